"""scikit-optimize's ``Optimizer`` and ``gp_minimize`` on gradfree's batch Bayesian optimization.

The state machine (GP fit, acquisition search, pending points) is the Rust ``BatchBO``; this
module reads scikit-optimize's arguments, keeps its lists (``Xi``, ``yi``, ``models``) and builds
its results. How each scikit-optimize option maps onto gradfree is the table in
:data:`SKOPT_OPTIONS` (and in the user guide, docs/bo.md).
"""
from __future__ import annotations

import copy as _copy
import json
import math
import numbers
import pickle
import warnings
from typing import Any, Callable, Optional, Sequence

import numpy as np

from .. import _gradfree, _util
from .._pickling import Checked as _Checked
from ..errors import CheckpointError, InvalidParameterError, TooLargeError
from .._es_minimize import OptimizeResult
from .space import Space

__all__ = ["Optimizer", "methods", "SKOPT_OPTIONS"]


def methods() -> list:
    """The selection rules as ``(name, summary, source)``."""
    return [(e["name"], e["summary"], e["source"]) for e in json.loads(_gradfree.registries_json())["bo_methods"]]


#: scikit-optimize's options and what gradfree does with each (also the table of the user guide, docs/bo.md).
SKOPT_OPTIONS = {
    "base_estimator": "'GP' (any case) or None: gradfree's GP (ARD Matérn 5/2, constant mean, hyper-parameters by "
                      "maximum likelihood; kernel='rbf' for the squared exponential). Other estimators are refused.",
    "n_initial_points": "honoured: every point told counts, asked or not (x0 too); default max(10, 3d + 2) (skopt: 10)",
    "n_random_starts": "deprecated alias of n_initial_points, as in skopt",
    "initial_point_generator": "'lattice' (default: the thesis' rank-1 lattice, Alg. 10, shifted modulo 1 by a uniform vector "
                               "drawn from random_state, so the design depends on the seed as skopt's does), 'random', 'sobol', 'halton', "
                               "'hammersly', 'lhs'; 'grid' is refused (use 'lattice')",
    "acq_func": "'gp_hedge' (skopt's default) and None: gradfree's default rule, BKOP (thesis Alg. 6/8); 'LCB': "
                "constant-weight UCB (Alg. 5/7) with weight kappa; 'EI': log expected improvement; 'PI', 'EIps', "
                "'PIps', 'MES', 'PVRS' are refused. method= selects any gradfree rule by name.",
    "acq_optimizer": "'auto', 'sampling', 'lbfgs': accepted; the acquisition is always maximized by multi-start CMA-ES "
                     "(acq_starts, acq_evals_per_dim, acq_max_evals)",
    "acq_optimizer_kwargs": "n_restarts_optimizer -> acq_starts; n_points and n_jobs accepted and unused",
    "acq_func_kwargs": "kappa -> the LCB weight (default 1.96 as skopt); xi is refused (no offset in gradfree's EI); "
                       "eta is refused (no gp_hedge portfolio)",
    "kappa": "LCB's weight (default 1.96, as skopt)",
    "xi": "refused unless None (gradfree's EI has no offset)",
    "noise": "'gaussian' (learned, default) or a fixed noise variance in standardized units",
    "n_points, n_restarts_optimizer": "gp_minimize: as in acq_optimizer_kwargs",
    "n_jobs": "gp_minimize: evaluates batches of n_jobs points on n_jobs threads (-1: one per core); Optimizer: "
              "accepted (the GP and acquisition run on all cores in Rust)",
    "model_queue_size": "honoured",
    "space_constraint": "refused: return a large value outside the feasible set",
    "avoid_duplicates": "True (always): a proposal within 1e-4 of the box of an evaluated or pending point is replaced "
                        "by a uniform point, as skopt; False is refused",
    "random_state": "an int, None, or a numpy RandomState/Generator (an int seed is drawn from it)",
    "ask(n_points, strategy)": "a batch by the rule's own batch selection (BKOP jointly; UCB/EI by hallucination); "
                               "strategy 'cl_min', 'cl_mean', 'cl_max' accepted",
    "verbose, callback, x0, y0": "honoured; callbacks run after every evaluation",
}

#: scikit-optimize's acquisition functions gradfree does not offer (all of them are refused with the
#: same alternatives).
_REFUSED_ACQ = ("PI", "EIps", "PIps", "MES", "PVRS")


def _seed_of(random_state) -> int:
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63 - 1))
    if random_state is not None and not isinstance(random_state, (numbers.Integral, np.integer)):
        raise InvalidParameterError(f"random_state: expected None, an int, a numpy RandomState or Generator, got {random_state!r}")
    return _util.seed(random_state, "random_state")


def _count(name: str, v, lo: int = 1) -> int:
    return _util.count(name, v, lo)


def _n_initial(n_initial_points, d: int, name: str = "n_initial_points") -> int:
    """``n_initial_points`` checked (named ``name``: ``n_random_starts`` when given so), or the
    library's default for ``d`` searched coordinates."""
    if n_initial_points is None:
        return _gradfree.bo_default_n_initial(d)
    return _count(name, n_initial_points, 0)


#: The keywords of the library's BO run (``gradfree_bo::BoParams``), by name: kind, accepted
#: values, default, command-line and Python names, doc.
KEYWORDS = {k["name"]: k for k in json.loads(_gradfree.bo_keywords())}


def _opt(check: Callable, name: str, v):
    return None if v is None else check(name, v)


_as_given = _util.renamed


def _mapping(name: str, value) -> dict:
    """A dict of options (``None``: none), as scikit-optimize's ``*_kwargs``."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidParameterError(f"{name}: expected a dict of options or None, got {value!r}")
    return dict(value)


def _choice(name: str, value, accepted) -> None:
    """Refuses a value that is not one of the strings ``accepted`` (arrays, numbers, ...)."""
    if not (value is None and None in accepted) and (not isinstance(value, str) or value not in accepted):
        raise InvalidParameterError(f"{name} = {value!r}: expected one of {[a for a in accepted]}")


def _acquisition(acq_func, method, kappa, xi, acq_func_kwargs):
    """``(method, weight)`` from scikit-optimize's acquisition options."""
    kw = _mapping("acq_func_kwargs", acq_func_kwargs)
    if acq_func is not None and not isinstance(acq_func, str):
        raise InvalidParameterError(f"acq_func = {acq_func!r}: expected 'gp_hedge', 'EI' or 'LCB' (gradfree's own rules "
                                    "by method=)")
    if method is not None and not isinstance(method, str):
        raise InvalidParameterError(f"method = {method!r}: expected one of {[m[0] for m in methods()]}")
    unknown = set(kw) - {"kappa", "xi", "eta"}
    if unknown:
        raise InvalidParameterError(f"acq_func_kwargs: unknown keys {sorted(unknown)}; accepted: kappa")
    kappa = kw.get("kappa", kappa)
    xi = kw.get("xi", xi)
    if "eta" in kw:
        raise InvalidParameterError("acq_func_kwargs eta is not offered: gradfree has no gp_hedge portfolio "
                                    "(acq_func='gp_hedge' runs the default rule, BKOP)")
    if xi is not None:
        raise InvalidParameterError(f"xi = {xi!r} is not offered: gradfree's expected improvement has no offset; "
                                    "use acq_func='LCB' with kappa, or the default rule, to set exploration")
    if acq_func in _REFUSED_ACQ:
        raise InvalidParameterError(f"acq_func = {acq_func!r} is not offered: use 'EI', 'LCB' or the default (None or "
                                    "'gp_hedge': the BKOP batch rule)")
    if acq_func not in (None, "gp_hedge", "EI", "LCB"):
        raise InvalidParameterError(f"acq_func = {acq_func!r}: expected 'gp_hedge', 'EI' or 'LCB' "
                                    "(gradfree's own rules by method=)")
    if method is not None and acq_func not in (None, "gp_hedge"):
        raise InvalidParameterError(f"give acq_func or method, not both (acq_func={acq_func!r}, method={method!r})")
    if acq_func == "LCB":
        if kappa is None:
            return "ucb", 1.96
        k = _util.number("kappa", kappa)
        if not (math.isfinite(k) and k >= 0):
            raise InvalidParameterError(f"kappa = {kappa!r}: expected a finite number >= 0 (LCB's weight on the "
                                        "predictive standard deviation)")
        return "ucb", k
    if kappa is not None:
        raise InvalidParameterError("kappa: only used with acq_func='LCB' (for the default rule pass weight=)")
    return ("ei" if acq_func == "EI" else method), None


def _design(generator, d: int, n: int, seed: int) -> Optional[np.ndarray]:
    """The unit-cube initial design of ``generator`` (``None``: the Rust lattice)."""
    name = generator if isinstance(generator, str) else type(generator).__name__.lower()
    if name == "lattice":
        return None
    rng = np.random.default_rng(seed)
    if n == 0:
        return np.zeros((0, d))
    if name == "random":
        return rng.random((n, d))
    if name in ("sobol", "halton", "hammersly"):
        from .. import qmc
        if name == "sobol":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")      # a design need not be a power of 2 long
                return np.asarray(qmc.Sobol(d, scramble=True, seed=seed).random(n))
        if name == "halton":
            return np.asarray(qmc.Halton(d, scramble=True, seed=seed).random(n))
        first = (np.arange(n) + 0.5) / n
        rest = np.asarray(qmc.Halton(d - 1, scramble=True, seed=seed).random(n)) if d > 1 else np.zeros((n, 0))
        return np.column_stack([first, rest])
    if name == "lhs":
        # One point in each of n equal slices per coordinate, slices paired at random (McKay et al. 1979).
        return (np.stack([rng.permutation(n) for _ in range(d)], axis=1) + rng.random((n, d))) / n
    if name == "grid":
        raise InvalidParameterError("initial_point_generator = 'grid' is not offered: use 'lattice' (a rank-1 lattice, "
                                    "the default) or 'sobol'")
    raise InvalidParameterError(f"initial_point_generator = {generator!r}: expected 'lattice', 'random', 'sobol', "
                                "'halton', 'hammersly' or 'lhs'")


class _SharedRun(_Checked):
    """The optimizer's Rust state, shared by all its :class:`GaussianProcessModel`s (observations
    are only appended, so a model of the first ``n`` stays valid); pickled once per pickle, as JSON
    (checked: gradfree._pickling, then the state's invariants)."""

    def __init__(self, bo):
        self.bo = bo

    def _pickle_state(self) -> dict:
        return {"bo": self.bo.state_json()}

    def _unpickle_state(self, state: dict) -> None:
        if set(state) != {"bo"} or not isinstance(state["bo"], str):
            raise CheckpointError("a pickle of a GP model's run: its state is not the run's JSON (changed or damaged)")
        self.bo = _gradfree.BatchBO.from_state_json(state["bo"])


class GaussianProcessModel(_Checked):
    """A surrogate of :attr:`Optimizer.models`: gradfree's GP fitted to the observations told up
    to one point of the run (fitted when first used, warm-started where the run's fit then was, so
    the model does not depend on when it is used). ``predict(X, return_std=False)`` takes points
    of the space (lists, as ``ask`` returns them) and returns the posterior mean (and standard
    deviation) in the objective's units. A model holds the observation count and the
    hyper-parameters, not a copy of the observations."""

    def __init__(self, run: _SharedRun, n: int, warm, space: Space):
        self._run, self.n_observations, self._warm, self._space, self._gp = run, n, warm, space, None

    def _fit(self):
        if self._gp is None:
            self._gp = self._run.bo.gp(self.n_observations, self._warm)
        return self._gp

    def predict(self, X, return_std: bool = False):
        X = [list(p) for p in X]
        box = np.ascontiguousarray(np.array([self._space._to_box(p) for p in X], dtype=float).reshape(len(X), -1))
        mean, std = self._fit().predict(box)
        return (mean, std) if return_std else mean

    @property
    def hyperparameters(self):
        """``(length_scales, signal_variance, noise_variance)`` (unit cube, standardized outputs)."""
        return self._fit().hyperparameters

    # The run and the space are pickled beside the model's checked state, so that the models of
    # one optimizer (or result) share them in a pickle, as in memory.
    _pickle_refs = {"_run": _SharedRun, "_space": Space}

    def _pickle_state(self) -> dict:
        return {"_run": self._run, "n_observations": self.n_observations, "_warm": self._warm, "_space": self._space}

    def _unpickle_state(self, state: dict) -> None:
        if set(state) != {"_run", "n_observations", "_warm", "_space"} or state["_run"] is None or state["_space"] is None:
            raise CheckpointError("a pickle of a GaussianProcessModel with other fields (changed or damaged)")
        self.__dict__.update(state, _gp=None)


class Optimizer(_Checked):
    """Bayesian optimization with scikit-optimize's ``Optimizer`` interface, on the thesis' batch
    rules (Lyu 2021, ch. 4).

    ``ask()`` is one point, ``ask(n_points)`` a batch chosen jointly by the rule; ``tell(x, y)``
    takes one point or a list and returns the result so far. Points asked and not yet told are
    pending: later asks avoid them (scikit-optimize returns the same point until told).

    Parameters follow ``skopt.Optimizer`` (the table :data:`SKOPT_OPTIONS` says what each maps
    to); gradfree's own, keyword-only:

    method : str, optional
        A rule of :func:`methods` (``"bkop"``, ``"ucb"``, ``"gp-bucb"``, ``"gp-ucb-pe"``,
        ``"bull"``, ``"ei"``); default BKOP.
    batch_size : int, default 5
        Points per batch of :func:`minimize` (the thesis' L).
    kernel : {"matern52", "rbf"}; noise : float; weight : float; beta : float
        GP kernel, fixed noise variance (standardized), exploration weight of BKOP/UCB, fixed
        beta of GP-BUCB/GP-UCB-PE.
    acq_starts, acq_evals_per_dim, acq_max_evals : int
        CMA-ES starts of the acquisition search, evaluations per start and variable (50, at
        least 400 per start), and at most ``acq_max_evals`` per start (2,000; it binds beyond
        40 variables, e.g. BKOP's joint search over batch size x dimensions).
    on_nonfinite : {"error", "treat-as-inf"}
        NaN/inf values: an error, or failed evaluations recorded at the worst value seen.
    n_calls : int
        Total budget; needed by ``method="bull"`` only.
    """

    def __init__(self, dimensions, base_estimator="gp", n_random_starts=None, n_initial_points=None,
                 initial_point_generator="lattice", n_jobs=1, acq_func=None, acq_optimizer="auto", random_state=None,
                 model_queue_size=None, space_constraint=None, acq_func_kwargs=None, acq_optimizer_kwargs=None,
                 avoid_duplicates=True, *, method: Optional[str] = None, batch_size: Optional[int] = None,
                 kernel: Optional[str] = None, noise=None, weight: Optional[float] = None, beta: Optional[float] = None,
                 acq_starts: Optional[int] = None, acq_evals_per_dim: Optional[int] = None,
                 acq_max_evals: Optional[int] = None,
                 on_nonfinite: Optional[str] = None, n_calls: Optional[int] = None, kappa=None, xi=None):
        args = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        self.specs = {"args": args, "function": "Optimizer"}
        if base_estimator is not None and not (isinstance(base_estimator, str) and base_estimator.lower() == "gp"):
            raise InvalidParameterError(
                f"base_estimator = {base_estimator!r} is not offered: gradfree fits its own Gaussian process "
                "(ARD Matern 5/2; kernel='rbf' for the squared exponential); pass base_estimator='GP'")
        if avoid_duplicates is not True:
            raise InvalidParameterError("avoid_duplicates=False is not offered: a proposal that repeats an evaluated point "
                                        "is always replaced by a uniform point (to evaluate a point again, tell it again)")
        if not isinstance(acq_optimizer, str) or acq_optimizer not in ("auto", "sampling", "lbfgs"):
            raise InvalidParameterError(f"acq_optimizer = {acq_optimizer!r}: expected 'auto', 'sampling' or 'lbfgs'")
        self.space = Space(dimensions, constraint=space_constraint)
        initial_name = "n_initial_points"
        if n_random_starts is not None:
            n_initial_points, initial_name = n_random_starts, "n_random_starts"
        d = len(self.space._free)
        n_init = _n_initial(n_initial_points, d, initial_name)
        if model_queue_size is not None and (isinstance(model_queue_size, bool) or not isinstance(model_queue_size, numbers.Integral)):
            raise InvalidParameterError(f"model_queue_size: expected an int or None, got {model_queue_size!r}")
        okw = _mapping("acq_optimizer_kwargs", acq_optimizer_kwargs)
        unknown = set(okw) - {"n_points", "n_restarts_optimizer", "n_jobs"}
        if unknown:
            raise InvalidParameterError(f"acq_optimizer_kwargs: unknown keys {sorted(unknown)}; accepted: n_points, "
                                        "n_restarts_optimizer, n_jobs")
        renamed = {}
        if acq_starts is None and okw.get("n_restarts_optimizer") is not None:
            acq_starts = okw["n_restarts_optimizer"]
            renamed["acq_starts"] = "acq_optimizer_kwargs['n_restarts_optimizer']"
        _check_n_jobs(n_jobs)
        _choice("kernel", kernel, (None, "matern52", "rbf"))
        _choice("on_nonfinite", on_nonfinite, (None, *KEYWORDS["on_nonfinite"]["values"]))
        method, lcb_weight = _acquisition(acq_func, method, kappa, xi, acq_func_kwargs)
        if lcb_weight is not None:
            weight = lcb_weight
        if isinstance(noise, str) and noise == "gaussian":
            noise = None
        self.acq_func, self.acq_optimizer, self.base_estimator_ = acq_func or "gp_hedge", acq_optimizer, "GP"
        self.n_jobs, self.avoid_duplicates = n_jobs, avoid_duplicates
        self.max_model_queue_size = model_queue_size
        self.n_initial_points_ = n_init
        self._n_initial_points = n_init
        self.random_state = _seed_of(random_state)
        self._generator = initial_point_generator
        self.Xi: list = []
        self.yi: list = []
        self.models: list = []
        self._asked: dict = {}
        self._bo = None
        self._shared = None
        if d == 0:
            return    # every dimension a single category: the one point is all there is (as skopt)
        lo, hi, kinds = self.space._box()
        _check_budget(n_calls)
        # Options left None take the library's defaults (gradfree_bo::BoParams).
        if initial_name != "n_initial_points":
            renamed["n_initial_points"] = initial_name
        with _as_given(**renamed):
            self._bo = self._make_bo(lo, hi, kinds, method, batch_size, n_init, kernel, noise, weight, beta, acq_starts,
                                     acq_evals_per_dim, acq_max_evals, on_nonfinite, n_calls)
        design = _design(initial_point_generator, d, n_init, self.random_state)
        if design is not None or n_init == 0:
            self._bo.set_design(np.ascontiguousarray(design if design is not None else np.zeros((0, d))))

    def _make_bo(self, lo, hi, kinds, method, batch_size, n_init, kernel, noise, weight, beta, acq_starts,
                 acq_evals_per_dim, acq_max_evals, on_nonfinite, n_calls):
        given = dict(
            method=method, batch_size=_opt(_count, "batch_size", batch_size), n_initial=max(n_init, 1), kernel=kernel,
            noise=_opt(_util.number, "noise", noise), weight=_opt(_util.number, "weight", weight),
            beta=_opt(_util.number, "beta", beta), acq_starts=_opt(_count, "acq_starts", acq_starts),
            acq_evals_per_dim=_opt(_count, "acq_evals_per_dim", acq_evals_per_dim),
            acq_max_evals=_opt(_count, "acq_max_evals", acq_max_evals), on_nonfinite=on_nonfinite,
            budget=_opt(_count, "n_calls", n_calls),
            # The lattice shifted by a uniform vector drawn from random_state (modulo 1, which keeps
            # its spacing): as scikit-optimize's initial points, the design depends on the seed.
            design_seed=self.random_state)
        for name, v in given.items():
            # JSON has no infinities; every numeric keyword of the library must be finite.
            if isinstance(v, float) and not math.isfinite(v):
                raise InvalidParameterError(f"{name} = {v}: expected a finite number")
        return _gradfree.BatchBO.from_spec(lo, hi, kinds, self.random_state, json.dumps(given))

    # scikit-optimize's interface ---------------------------------------------------------------
    def ask(self, n_points: Optional[int] = None, strategy: str = "cl_min"):
        """The next point to evaluate (a list), or a list of ``n_points`` points chosen together.

        While fewer than ``n_initial_points`` values have been told the points come from the
        initial design; then from the rule's acquisition on the GP fitted to everything told,
        with pending points (asked, not told) avoided. ``strategy`` (scikit-optimize's constant
        liar: ``"cl_min"``, ``"cl_mean"``, ``"cl_max"``) is accepted; the batch is the rule's own
        (BKOP chooses it jointly, UCB and EI condition on each pick)."""
        if n_points is not None and (isinstance(n_points, bool) or not isinstance(n_points, numbers.Integral) or
                                     not 0 < n_points < 1 << 64):
            raise InvalidParameterError(f"n_points should be int > 0, got {n_points!r}")
        if not isinstance(strategy, str) or strategy not in ("cl_min", "cl_mean", "cl_max"):
            raise InvalidParameterError(f"strategy = {strategy!r}: expected one of ['cl_min', 'cl_mean', 'cl_max']")
        count = 1 if n_points is None else int(n_points)
        if self._bo is None:
            pts = [self.space._from_box([]) for _ in range(count)]
            return pts[0] if n_points is None else pts
        self._bo.keep_design(max(0, self._n_initial_points - self._bo.n_pending))
        with _as_given(**{"batch size": "n_points"}):
            X = self._bo.ask(count)
        pts = []
        for row in X:
            p = self.space._from_box(row)
            self._asked.setdefault(_key(p), []).append(np.array(row))
            pts.append(p)
        return pts[0] if n_points is None else pts

    def tell(self, x, y, fit: bool = True):
        """Records ``y = f(x)`` for one point or a list of points (asked or not) and returns the
        result so far (an ``OptimizeResult``). Errors are ``ValueError``s, as scikit-optimize's."""
        xs, ys = _points_and_values(x, y)
        for p in xs:
            self.space._check_point(p)
        if self._bo is None:
            self.Xi.extend([list(p) for p in xs])
            self.yi.extend(ys)
            return self.get_result()
        rows = np.ascontiguousarray(np.array([self._row(p) for p in xs], dtype=float).reshape(len(xs), -1))
        self._bo.tell(rows, ys)
        for p in xs:
            queue = self._asked.get(_key(p))
            if queue:
                queue.pop(0)
        self.Xi.extend([list(p) for p in xs])
        self.yi.extend(ys)
        self._n_initial_points -= len(ys)
        if fit and self._n_initial_points <= 0 and self._bo.n_observations > 0:
            if self._shared is None or self._shared.bo is not self._bo:
                self._shared = _SharedRun(self._bo)
            self.models.append(GaussianProcessModel(self._shared, self._bo.n_observations, self._bo.hyperparameters, self.space))
            if self.max_model_queue_size is not None:
                del self.models[:max(0, len(self.models) - self.max_model_queue_size)]
        return self.get_result()

    def run(self, func: Callable, n_iter: int = 1):
        """``n_iter`` rounds of ``ask()``, ``func(x)``, ``tell``; returns the result."""
        for _ in range(_count("n_iter", n_iter)):
            x = self.ask()
            self.tell(x, func(x))
        return self.get_result()

    def update_next(self) -> None:
        """scikit-optimize recomputes its next point here; gradfree computes it at ``ask``."""

    def get_result(self) -> OptimizeResult:
        """The result so far: ``x``, ``fun``, ``func_vals``, ``x_iters``, ``models``, ``space``,
        ``random_state`` (the seed), ``specs``, and ``nfev``."""
        return _result(self.Xi, self.yi, self.space, self.random_state, self.models, self.specs)

    def copy(self, random_state=None) -> "Optimizer":
        """A copy: the same state, pending points included (``random_state=None``), or a new
        optimizer seeded with ``random_state`` that has been told the same values."""
        if random_state is None:
            return pickle.loads(pickle.dumps(self))
        args = {k: v for k, v in self.specs["args"].items()}
        args["random_state"] = random_state
        opt = Optimizer(**args)
        if self.Xi:
            opt.tell(self.Xi, self.yi)
        return opt

    def _row(self, p) -> list:
        queue = self._asked.get(_key(p))
        return list(queue[0]) if queue else self.space._to_box(p)

    # state ----------------------------------------------------------------------------------------
    @property
    def method(self) -> Optional[str]:
        """The selection rule's name (``None`` when there is nothing to search)."""
        return None if self._bo is None else self._bo.method

    @property
    def n_pending(self) -> int:
        """Points asked and not yet told."""
        return 0 if self._bo is None else self._bo.n_pending

    @property
    def hyperparameters(self):
        """``(length_scales, signal_variance, noise_variance)`` of the last GP fit (unit cube,
        standardized outputs), or ``None``."""
        return None if self._bo is None else self._bo.hyperparameters

    # Pickles are checked (gradfree._pickling), then the Rust state's invariants.
    def _pickle_state(self) -> dict:
        state = dict(self.__dict__)
        state["_bo"] = None if self._bo is None else self._bo.state_json()
        return state

    def _unpickle_state(self, state: dict) -> None:
        bo = state.get("_bo", False)
        if not (bo is None or isinstance(bo, str)):
            raise CheckpointError("a pickle of an Optimizer without its run state (changed or damaged)")
        state["_bo"] = None if bo is None else _gradfree.BatchBO.from_state_json(bo)
        self.__dict__.update(state)


def _key(p) -> str:
    return repr([v.item() if isinstance(v, np.generic) else v for v in p])


def _is_point(x) -> bool:
    return (isinstance(x, (list, tuple)) or isinstance(x, np.ndarray) and x.ndim == 1) and not any(
        isinstance(v, (list, tuple, np.ndarray)) for v in x)


def _points_and_values(x, y):
    """scikit-optimize's reading of ``tell(x, y)``: one point and a number, or a list of points and
    a list of numbers (``ValueError`` otherwise)."""
    if isinstance(x, np.ndarray) and x.ndim == 2:
        x = [list(r) for r in x]
    if isinstance(x, (list, tuple)) and len(x) > 0 and all(isinstance(p, (list, tuple, np.ndarray)) for p in x):
        if not isinstance(y, (list, tuple, np.ndarray)) or np.ndim(y) != 1:
            raise InvalidParameterError(f"expected y to be a list of scalars for {len(x)} points, got {y!r}")
        if len(y) != len(x):
            raise InvalidParameterError(f"{len(x)} points but {len(y)} values")
        return [list(p) for p in x], [_scalar(v, f"y[{k}]") for k, v in enumerate(y)]
    if _is_point(x) and len(x) > 0:
        return [list(x)], [_scalar(y, "y")]
    raise InvalidParameterError(f"Type of arguments `x` ({type(x).__name__}) and `y` ({type(y).__name__}) not compatible: "
                                "expected a point and a number, or a list of points and a list of numbers")


def _scalar(v, name: str) -> float:
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v.item()
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        raise InvalidParameterError(f"{name}: `func` should return a scalar, got {v!r}")
    return float(v)


def _result(Xi, yi, space, seed, models, specs) -> OptimizeResult:
    """scikit-optimize's ``create_result``: the best finite value and its point."""
    vals = np.array(yi, dtype=float)
    finite = np.flatnonzero(np.isfinite(vals))
    if len(finite):
        best = int(finite[np.argmin(vals[finite])])
        x, fun = list(Xi[best]), float(vals[best])
    else:
        x, fun = None, float("inf")
    return OptimizeResult(x=x, fun=fun, func_vals=vals, x_iters=[list(p) for p in Xi], models=list(models), space=space,
                          random_state=seed, specs=specs, nfev=len(yi))


def _check_n_jobs(n_jobs) -> None:
    """``Optimizer``'s ``n_jobs`` as scikit-optimize hands it to joblib: ``None`` or a nonzero
    integer (``-1`` all cores, ``-2`` all but one, ...); gradfree's GP uses all cores anyway."""
    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0):
        raise InvalidParameterError(f"n_jobs: expected None or a nonzero integer (-1: all cores), as joblib, got {n_jobs!r}")


def _check_budget(n_calls) -> None:
    """Refuses a budget whose Gaussian process cannot fit in memory (its ``n x n`` kernel matrix
    and Cholesky factor), at once rather than after hours of evaluations."""
    if n_calls is None or isinstance(n_calls, bool) or not isinstance(n_calls, numbers.Integral) or n_calls < 1:
        return
    need = 2 * 8 * int(n_calls) ** 2
    if need >= 64 << 20 and need > (limit := _util.available_bytes()):
        raise TooLargeError(f"n_calls = {n_calls}: a Gaussian process of {n_calls} observations needs at least "
                            f"{_util.human_bytes(need)} (its kernel matrix and Cholesky factor), more than the "
                            f"{_util.human_bytes(limit)} of memory available")
