"""Evolution strategies with pycma's ask/tell/stop loop, and ``minimize``.

One class per algorithm of the Rust registry (``gradfree.es.INGO``, ``CMAES``, ...): the classes
are made from the registry itself, so the names, summaries and sources here are those of
``gradfree list`` and of the CLI. Each class is a thin wrapper around one Rust run object that
owns the stop rules, counters, best point and boundary repair, so a Python loop stops at the
same generation, with the same reason, as ``gradfree optimize`` under the same rules.
"""
from __future__ import annotations

import inspect
import json
import math
from collections import namedtuple
from typing import Callable, Optional, Sequence

import numpy as np

from . import _gradfree, _util
from ._pickling import Checked as _Checked
from .errors import CheckpointError, InvalidParameterError

Result = namedtuple("Result", ["xbest", "fbest", "evals_best", "evaluations", "iterations", "xfavorite", "stds", "stop"])
Result.__doc__ = """The state of a run: pycma's ``CMAEvolutionStrategyResult``, with its fields in its order.

Attributes
----------
xbest : numpy.ndarray
    Best point evaluated (``x0`` before the first finite value).
fbest : float
    Its value (``inf`` before the first finite value).
evals_best : int or None
    The evaluation count at which ``xbest`` was evaluated (1-based, as pycma's ``evals_best``;
    ``None`` before the first finite value).
evaluations : int
    Objective values told.
iterations : int
    Generations told.
xfavorite : numpy.ndarray
    The distribution mean, the favourite solution (pycma's ``xfavorite``).
stds : numpy.ndarray
    Standard deviation of every coordinate of the search distribution (CMA-ES: ``sigma *
    sqrt(diag(C))``, as pycma's ``stds``); for methods without such a spread, the step length
    ``sigma`` in every coordinate.
stop : dict
    The stop rule that fired (empty while the run goes on).
"""

#: The registry entries, in registry order (dicts with ``name``, ``class_name``, ``source``,
#: ``summary``, ``discrete``, ``domain``, ``popsize_param``, ``ipop_stagnation``, ``params``).
REGISTRY = json.loads(_gradfree.registries_json())["algorithms"]


def algorithms() -> list:
    """The registered algorithms as ``(name, source, summary)`` tuples, in registry order (the
    list of ``gradfree list``)."""
    return [(e["name"], e["source"], e["summary"]) for e in REGISTRY]


from ._es_options import (_BOUNDS_HANDLING, _MAXFEVALS_INF, _OFF, PYCMA_OPTIONS, PYCMA_STOP_NAMES,  # noqa: F401
                          _bounds_handling, _incpopsize, _param, _pycma_unbounded, _target, _tol)


class _ES(_Checked):
    """An evolution strategy of the Rust crate with pycma's ask/tell/stop loop.

    Parameters
    ----------
    x0 : array_like, shape (d,)
        Initial mean.
    sigma0 : float, default 0.5
        Initial step size (standard deviation of every coordinate); ``None`` takes the library's
        default (the thesis' sigma_1 = 0.5).
    options : dict, optional
        Any keyword below, by its name here or by pycma's (``maxfevals``, ``maxiter``,
        ``ftarget``, ``tolfun``, ``tolx``, ``tolflatfitness``, ``tolstagnation``,
        ``tolconditioncov``, ``timeout``, ``popsize``, ``seed``, ``bounds``), as in
        ``cma.CMAEvolutionStrategy(x0, sigma0, options)``; keywords given directly win.
    seed : int, optional
        Seed of the portable random number generator (``None``: drawn from the OS).
    popsize : int, optional
        Population size (default: the algorithm's).
    max_evals : int, default ``10000 * d``
        Evaluation budget; a generation that would exceed it is not started.
    max_gens : int, optional
        Generation budget.
    target : float, optional
        Stop once the best value is ``<= target``.
    max_seconds : float, optional
        Wall-time budget.
    tol_fun : float or False, default 1e-11
        Converged when the best values of the last ``tol_fun_window`` generations and all values
        of the last generation span less than this (pycma's ``tolfun``).
    tol_fun_window : int, default ``10 + ceil(30 d / popsize)``
        Generations the ``tol_fun`` history spans.
    tol_x : float or False, default 1e-11
        Converged when the step length ``sigma`` (largest coordinate standard deviation) falls
        below this (pycma's ``tolx``).
    tol_flat : int or False, default 1
        Stop after more than this many generations in a row whose best value equals their median
        (pycma's ``tolflatfitness``).
    tol_stagnation : int or False, default ``100 + ceil(100 d^1.5 / popsize)``
        Stop when the medians of the last tenth of this many generations' best and median values
        are no better than those of the tenth before (pycma's ``tolstagnation``).
    tol_condition : float or False, default 1e14
        Stop when the covariance's condition number exceeds this (CMA-ES and Fast-INGO report
        one; pycma's ``tolconditioncov``).
    tol_diverge : float or False, default 1e12
        Stop as ``diverged`` when a generation's best value exceeds the best so far by more than
        this times ``max(1, |best|)``.
    convergence : bool, default True
        ``False``: only budgets and the target end the run (the ``tol_*`` rules apply only where
        given). With ``restarts`` the convergence rules are off by default: each restart judges
        convergence itself.
    bounds : (lower, upper), optional
        ``ask`` returns points repaired into the box, ``tell`` takes those points back; the
        optimizer updates from the points it proposed (pycma's non-Lamarckian handling).
    bounds_handling : {"transform", "clip", "reflect", "penalty"}, default "transform"
        How points are mapped into ``bounds``. ``"transform"`` is pycma's ``BoundTransform``: a
        smooth periodic map onto the box, the identity inside it away from a margin of
        ``min(width/2, max(1, |bound|)/20)`` at each bound, so the optimizer never meets a plateau
        and an optimum inside the box is not biased. ``"clip"`` projects onto the box: the value is
        then flat along every outward direction, the distribution drifts out of the box and its
        samples pile up on the faces (on BBOB at d = 10 it lost more than half of the hits of
        unconstrained CMA-ES). ``"penalty"`` clips and adds ``1e3`` times the squared distance to
        the box. pycma's ``BoundTransform`` and ``BoundPenalty`` are accepted as names too.
    restarts : bool, int or {"ipop", "bipop"}, default False
        ``True`` or ``"ipop"`` (until a stop rule ends the run) or a maximum number of IPOP
        restarts (Auger & Hansen 2005): when the run converges (scale below 1e-40 sigma0, or best
        values flat to 1e-12 over 10 + 30 d/N generations; pycma's median-stagnation rule too,
        except for INGO, INGOstep, Fast-INGO and IGO) or diverges, it starts again with twice the
        population (at most max(N, 100 d)) and a new seed. ``"bipop"`` (or a count with
        ``bipop=True``, as in pycma's ``fmin``): BIPOP (Hansen 2009), which interleaves these
        large-population runs with small-population runs of random ``sigma0 10^{-2U}``, the regime
        with fewer evaluations spent going next; a count limits the large restarts only.
    bipop : bool, default False
        Restart with BIPOP instead of IPOP (pycma's ``bipop=True``).
    incpopsize : float, default 2
        The population's growth per (large) restart, at least 1 (as pycma's ``fmin2``).
    restart_bounds : (lower, upper), optional
        Each restart starts from a uniform draw in this box instead of ``x0``.
    **params
        The algorithm's own parameters (listed below, with ``gradfree params NAME`` on the
        command line); unknown ones raise ``InvalidParameterError``.

    Notes
    -----
    ``stop()`` returns the rule that fired as a dict, as pycma does: ``max_evals``, ``max_gens``,
    ``target``, ``tol_fun``, ``tol_x``, ``tol_flat``, ``tol_stagnation``, ``tol_condition``,
    ``max_seconds``, ``diverged`` (values blew up, or the search distribution overflowed) or
    ``numerical_failure`` (an update that could not be computed). The rules are those of the Rust
    driver, so a Python loop stops where ``gradfree optimize`` stops under the same rules.
    """

    algorithm = ""

    def __init__(self, x0: Sequence[float], sigma0: Optional[float] = None, options: Optional[dict] = None, *,
                 seed: Optional[int] = None, popsize: Optional[int] = None,
                 max_evals: Optional[int] = None, max_gens: Optional[int] = None, target: Optional[float] = None,
                 max_seconds: Optional[float] = None, tol_fun=None, tol_fun_window: Optional[int] = None, tol_x=None,
                 tol_flat=None, tol_stagnation=None, tol_condition=None, tol_diverge=None, convergence: bool = True,
                 bounds=None, bounds_handling: str = "transform", restarts=False, restart_bounds=None, bipop: bool = False,
                 incpopsize: Optional[float] = None, **params):
        given = dict(seed=seed, popsize=popsize, max_evals=max_evals, max_gens=max_gens, target=target,
                     max_seconds=max_seconds, tol_fun=tol_fun, tol_fun_window=tol_fun_window, tol_x=tol_x,
                     tol_flat=tol_flat, tol_stagnation=tol_stagnation, tol_condition=tol_condition,
                     tol_diverge=tol_diverge, bounds=bounds)
        if options is not None:
            if not isinstance(options, dict):
                raise InvalidParameterError(f"options: expected a dict of options (as pycma's inopts), got {options!r}; "
                                            "pass the seed as seed=...")
            aliases = {}
            for key, value in options.items():
                name = PYCMA_OPTIONS.get(key, key)
                if name != key:
                    self._pycma_names = True
                    value = _pycma_unbounded(name, value)
                if name in given:
                    if given[name] is None:
                        given[name] = value
                        aliases[name] = key
                elif name == "bounds_handling":
                    bounds_handling = value
                elif name not in params:
                    params[name] = value
            if aliases:   # errors name the options as the caller spelled them (pycma's maxfevals, ...)
                with _util.renamed(**{k: v for k, v in aliases.items() if k != v}):
                    self._setup(x0, sigma0, given, params, bounds_handling, convergence, restarts, restart_bounds, bipop,
                                incpopsize)
                return
        self._setup(x0, sigma0, given, params, bounds_handling, convergence, restarts, restart_bounds, bipop, incpopsize)

    def _setup(self, x0, sigma0, given, params, bounds_handling, convergence, restarts, restart_bounds, bipop, incpopsize):
        bounds_handling = _bounds_handling(bounds_handling)
        if given["popsize"] is not None:
            params["popsize"] = _util.count("popsize", given["popsize"], 2)
        # pycma's shape rule for x0; sizes that cannot fit are refused before x0 is copied.
        x0 = _util.vector("x0", x0, "pycma", params.get("popsize"))
        self.seed = _util.seed(given["seed"])
        max_restarts = None
        scheme = "bipop" if bipop is True else "ipop"
        if not isinstance(bipop, bool):
            raise InvalidParameterError(f"bipop: expected True or False, got {bipop!r}")
        if isinstance(restarts, str):
            if restarts not in ("ipop", "bipop"):
                raise InvalidParameterError(f"restarts {restarts!r}: expected 'ipop', 'bipop', True, False or a non-negative integer")
            scheme = "bipop" if restarts == "bipop" else scheme
        elif restarts is not False and restarts is not None and restarts is not True:
            if isinstance(restarts, bool) or not isinstance(restarts, (int, np.integer)) or not 0 <= restarts < 1 << 32:
                raise InvalidParameterError(f"restarts: expected True, False, 'ipop', 'bipop' or an integer in [0, 2**32 - 1], "
                                            f"got {restarts!r}")
            max_restarts = int(restarts)
        if incpopsize is not None:
            incpopsize = _incpopsize(incpopsize)
        rb = _util.box("restart_bounds", restart_bounds, x0.shape)
        box = _util.box("bounds", given["bounds"], x0.shape)
        g = given
        tols = {
            "tol_fun": _tol("tol_fun", g["tol_fun"], _util.positive),
            "tol_x": _tol("tol_x", g["tol_x"], _util.positive),
            "tol_flat": _tol("tol_flat", g["tol_flat"], lambda n, v: _util.count(n, v, 0)),
            "tol_stagnation": _tol("tol_stagnation", g["tol_stagnation"], lambda n, v: _util.count(n, v, 1)),
            "tol_condition": _tol("tol_condition", g["tol_condition"], _util.positive),
            "tol_diverge": _tol("tol_diverge", g["tol_diverge"], _util.positive),
        }
        # The library's run document (gradfree_es::EsSpec, its stop rules gradfree_core::StopSpec,
        # which takes these keywords' names): what was given, nothing else; the rest is its default.
        stop = {
            "max_evals": _util.count("max_evals", g["max_evals"], 1) if g["max_evals"] is not None else None,
            "max_gens": _util.count("max_gens", g["max_gens"], 1) if g["max_gens"] is not None else None,
            "target": _target(g["target"]),
            "tol_fun_window": _util.count("tol_fun_window", g["tol_fun_window"], 1) if g["tol_fun_window"] is not None else None,
            "max_seconds": _util.positive("max_seconds", g["max_seconds"]) if g["max_seconds"] is not None else None,
            **{k: (None if v is _OFF else v) for k, v in tols.items()},
            "convergence": _util.flag("convergence", convergence),
            "off": [k for k, v in tols.items() if v is _OFF],
        }
        self._x0 = x0
        spec = {"algorithm": self.algorithm, "seed": self.seed, "params": {k: _param(k, v) for k, v in params.items()},
                "stop": stop, "parallel": False}
        if sigma0 is not None:
            spec["sigma0"] = _util.finite("sigma0", sigma0)   # a document holds finite numbers; the library judges the range
        if restarts:
            mean = "initial" if rb is None else {"uniform": {"lower": rb[0], "upper": rb[1]}}
            spec["restarts"] = {"max": max_restarts, "mean": mean, "scheme": scheme, "popsize_factor": incpopsize}
        if box is not None:
            spec["bounds"] = [{"lower": box[0], "upper": box[1]}, bounds_handling]
        self._run = _gradfree.Run.from_spec(json.dumps(spec), x0)
        rules = json.loads(self._run.stop_rules_json())
        self.max_evals, self.max_gens, self.target = rules["max_evaluations"], rules["max_generations"], rules["target"]
        self.max_seconds = rules["max_seconds"]
        self.tol_fun, self.tol_fun_window, self.tol_x = rules["tol_f"], rules["tol_f_window"], rules["tol_x"]
        self.tol_flat, self.tol_stagnation = rules["tol_flat"], rules["tol_stagnation"]
        self.tol_condition, self.tol_diverge = rules["tol_condition"], rules["tol_diverge"]
        self._evals_best = None

    #: Whether ``stop()`` answers in pycma's names (set when options are given in pycma's names).
    _pycma_names = False

    @property
    def stop_rules(self) -> dict:
        """The stop rules in force, defaults resolved (``None``: the rule is off)."""
        return {k: getattr(self, k) for k in ("max_evals", "max_gens", "target", "max_seconds", "tol_fun", "tol_fun_window",
                                              "tol_x", "tol_flat", "tol_stagnation", "tol_condition", "tol_diverge")}

    @property
    def popsize(self) -> int:
        """Points per generation (changes with IPOP restarts)."""
        return self._run.popsize

    @property
    def mean(self) -> np.ndarray:
        """Centre of the current search distribution, shape (d,)."""
        return self._run.mean

    @property
    def restarts_done(self) -> int:
        """Restarts made so far, of both BIPOP regimes (0 without ``restarts``)."""
        return self._run.restarts

    @property
    def sigma(self) -> float:
        """The optimizer's step length, as the ``tol_x`` rule uses it: the largest standard deviation
        of the search distribution along a coordinate (for methods with a fixed sampling width, the
        largest coordinate of the last mean step)."""
        return self._run.scale

    @property
    def stds(self) -> np.ndarray:
        """Standard deviation of every coordinate of the search distribution, shape (d,)
        (CMA-ES: ``sigma * sqrt(diag(C))``, pycma's ``stds``); for methods without a Gaussian spread
        in that form, the step length ``sigma`` in every coordinate."""
        s = self._run.stds
        return np.full(self._run.dim, self._run.scale) if s is None else s

    @property
    def evals_best(self) -> Optional[int]:
        """The evaluation count at which the best point was evaluated (1-based, pycma's
        ``evals_best``; ``None`` before the first finite value)."""
        return getattr(self, "_evals_best", None)

    @property
    def evaluations(self) -> int:
        """Objective values told so far."""
        return self._run.evaluations

    @property
    def iterations(self) -> int:
        """Generations told so far."""
        return self._run.generations

    @property
    def fbest(self) -> float:
        """Best finite value told so far (``inf`` before the first)."""
        return self._run.best_f

    @property
    def xbest(self) -> np.ndarray:
        """Best point evaluated (``x0`` before the first finite value)."""
        x = self._run.best_x
        return self._x0.copy() if x is None else x

    def ask(self) -> np.ndarray:
        """The next population to evaluate, shape (popsize, d) (repaired into ``bounds`` if
        given). Raises ``InvalidParameterError`` once a stop rule has fired, and when sampling
        overflows (the run then stops as ``diverged``)."""
        stopped = self._run.stop()
        try:
            return self._run.ask()
        except InvalidParameterError:
            if stopped is None and self._run.stop() is not None:
                hint = ("is sigma0 too large?" if self._run.generations == 0 else
                        f"it grew over {self._run.generations} generations: is the objective unbounded below?")
                raise InvalidParameterError(
                    f"ask: the search distribution overflowed while sampling (step length {self._run.scale:.3g}; {hint}): "
                    f"the run stopped as {self._run.stop()!r} (stop() says so; minimize, optimize and fmin2 end there)"
                ) from None
            raise

    def _ask_or_none(self):
        """``ask()``, or ``None`` when the run stops while sampling (the loops then end, as on any
        stop rule)."""
        stopped = self._run.stop()
        try:
            return self._run.ask()
        except InvalidParameterError:
            if stopped is None and self._run.stop() is not None:
                return None
            raise

    def tell(self, X, values) -> None:
        """Reports the objective values of the points the last ``ask`` returned.

        Parameters
        ----------
        X : array_like, shape (popsize, d)
            The points, as ``ask`` returned them (same order).
        values : array_like, shape (popsize,)
            Their values.
        """
        X = np.ascontiguousarray(np.asarray(X, dtype=np.float64))
        values = _util.reals("values", values)
        if X.ndim != 2:
            raise InvalidParameterError(f"X: expected shape ({self.popsize}, {self._run.dim}), got {X.shape}")
        if values.shape[0] != X.shape[0]:
            raise InvalidParameterError(f"values: expected {X.shape[0]} values, got {values.shape[0]}")
        before, evals = self._run.best_f, self._run.evaluations
        self._run.tell(X, values)
        self._note_best(before, evals, values)

    def _note_best(self, before: float, evals: int, values: np.ndarray) -> None:
        """Records ``evals_best`` after a ``tell`` whose values start at evaluation ``evals + 1``
        (pycma's ``BestSolution.update``: the first value equal to the new best)."""
        after = self._run.best_f
        if after < before:
            hit = np.flatnonzero(values == after)
            k = int(hit[0]) if hit.size else int(np.argmin(np.where(np.isnan(values), np.inf, values)))
            self._evals_best = evals + k + 1

    def stop(self) -> dict:
        """The stop rule that has fired, as ``{name: threshold}`` (empty: keep going), as pycma's
        ``stop()``; the names are listed in the class documentation."""
        key = self._run.stop()
        if key is None:
            return {}
        value = getattr(self, key, True)
        if self._pycma_names:
            key = PYCMA_STOP_NAMES.get(key, key)
            if key == "maxfevals" and value >= _MAXFEVALS_INF:
                value = math.inf
        return {key: value}

    @property
    def stop_message(self) -> str:
        """What the stop reason means, in one sentence (empty while the run goes on)."""
        m = self._run.stop_message()
        return "" if m is None else m[0]

    @property
    def success(self) -> bool:
        """Whether the run succeeded, as ``scipy.optimize``'s ``success``: with a ``target``, it
        was reached; without one, the run converged (``tol_fun`` or ``tol_x`` fired)."""
        m = self._run.stop_message()
        return bool(m and m[1])

    def optimize(self, objective_fct: Callable[..., float], iterations: Optional[int] = None, args: tuple = (),
                 verb_disp: Optional[int] = None, callback: Optional[Callable] = None, executor=None):
        """Runs the ask/tell loop until a stop rule fires (or for ``iterations`` more generations),
        as pycma's ``optimize``.

        Parameters
        ----------
        objective_fct : callable
            ``objective_fct(x, *args) -> float`` for one point ``x`` of shape (d,).
        iterations : int, optional
            Most generations to run in this call.
        args : tuple, default ()
            Extra arguments of ``objective_fct``.
        verb_disp : int, optional
            Print a line every this many generations (and at the end).
        callback : callable, optional
            Called as ``callback(self)`` after each generation.
        executor : concurrent.futures.Executor, optional
            Evaluates each population through ``executor.map`` (default: in this thread).

        Returns
        -------
        self
        """
        done, executor = 0, _util.executor(executor)
        args = _util.args("args", args)
        if iterations is not None:
            iterations = _util.count("iterations", iterations, 0)
        while not self.stop() and (iterations is None or done < iterations):
            X = self._ask_or_none()
            if X is None:
                break
            f = (lambda x: objective_fct(x, *args)) if args else objective_fct
            values = [_util.real("f(x)", v) for v in (executor.map(f, X) if executor is not None else (f(x) for x in X))]
            self.tell(X, values)
            done += 1
            if callback is not None:
                callback(self)
            if verb_disp and self.iterations % verb_disp == 0:
                self.disp()
        if verb_disp:
            self.disp()
        return self

    @property
    def result(self) -> Result:
        """``(xbest, fbest, evals_best, evaluations, iterations, xfavorite, stds, stop)``, pycma's
        ``result`` with its fields in its order (see ``Result``)."""
        return Result(self.xbest, self.fbest, self.evals_best, self.evaluations, self.iterations, self.mean, self.stds,
                      self.stop())

    def disp(self) -> None:
        """Prints one line: generation, evaluations, best value, step length."""
        print(f"{self.algorithm} it {self.iterations:6d}  evals {self.evaluations:9d}  best f {self.fbest:.6e}  sigma {self.sigma:.3e}")

    def events(self):
        """(kind, message) events since the last call (backtracking, restarts, ...)."""
        return self._run.take_events()

    # Pickles are checked (gradfree._pickling): format, class, version and checksum, then the
    # run's invariants (Rust's Run.from_state_json).
    def _pickle_state(self) -> dict:
        state = dict(self.__dict__)
        state["_run"] = self._run.state_json()
        return state

    def _unpickle_state(self, state: dict) -> None:
        if not isinstance(state.get("_run"), str):
            raise CheckpointError(f"not a valid run state of {type(self).__name__}: no run (the pickle was changed or damaged)")
        run = _gradfree.Run.from_state_json(state["_run"])
        want = type(self).algorithm
        if want and run.name != want:
            raise CheckpointError(f"not a valid run state: the state is of {run.name}, which {type(self).__name__} "
                                  f"({want}) cannot continue; unpickle it as the class that saved it")
        state["_run"] = run
        self.__dict__.update(state)

    def _unpickle_legacy(self, state) -> None:
        """A state pickled before checked pickles (a dict with the run's JSON, as ``gradfree.rl``'s
        older checkpoints hold): loaded through the run's invariant checks only."""
        if not isinstance(state, dict) or not isinstance(state.get("_run"), str):
            super()._unpickle_legacy(state)
        self._unpickle_state(dict(state))


class _DiscreteES(_ES):
    """A discrete optimizer over ``{0..K-1}^dim`` with pycma's loop; ``ask()`` returns an integer
    array of shape (popsize, dim), ``tell`` takes it back with the values.

    Parameters
    ----------
    dim : int
        Number of variables.
    options : dict, optional
        Options as for the continuous classes.
    **kwargs
        The stop rules and options of the continuous classes (``seed``, ``popsize``,
        ``max_evals``, ``target``, ``tol_fun``, ...; no convergence rule applies unless given,
        since discrete values stay on one level for hundreds of generations between
        improvements) and the algorithm's parameters (e.g. ``beta``, ``baseline``;
        ``categories`` for K).
    """

    def __init__(self, dim: int, options: Optional[dict] = None, **kwargs):
        dim = _util.count("dim", dim, 1)
        _util.check_es_memory("dim", dim)
        super().__init__(np.zeros(dim), 1.0, options, **kwargs)

    def ask(self) -> np.ndarray:
        """The next population as integers, shape (popsize, dim)."""
        return super().ask().astype(np.int64)

    @property
    def xbest(self) -> np.ndarray:
        return super().xbest.astype(np.int64)


def _params_section(entry: dict) -> str:
    """The numpydoc "Other Parameters" section of an algorithm, from the Rust registry (the field
    names, accepted values and doc comments of its ``*Params`` struct)."""
    lines = ["Other Parameters", "----------------"]
    for p in entry["params"]:
        lines.append(f"{p['name']} : {p['kind']}, optional")
        words, line = p["doc"].split(), "   "
        for w in words:
            if len(line) + len(w) > 92:
                lines.append(line)
                line = "   "
            line += " " + w
        lines.append(line)
    return "\n".join(lines)


def _make_class(entry: dict) -> type:
    base = _DiscreteES if entry["discrete"] else _ES
    doc = (f"{entry['summary'][0].upper()}{entry['summary'][1:]}.\n\n"
           f"Reference: {entry['source']}. Command line: ``gradfree optimize --algo {entry['name']}``; "
           f"parameters: ``gradfree params {entry['name']}``.\n\n{inspect.cleandoc(base.__doc__)}\n\n{_params_section(entry)}\n")
    return type(entry["class_name"], (base,), {"algorithm": entry["name"], "__doc__": doc, "__module__": __name__})


_CLASSES = {e["class_name"]: _make_class(e) for e in REGISTRY}
globals().update(_CLASSES)
_METHODS = {c.algorithm: c for c in _CLASSES.values() if not issubclass(c, _DiscreteES)}


# Names handed on from the layers above this module, imported on first use (PEP 562): ``minimize``
# and its result (scipy's interface, gradfree._es_minimize) and pycma's interface (gradfree.cma:
# ``import gradfree.es as cma`` keeps working). Those layers import this module, never the reverse.
_HANDED_ON = {**dict.fromkeys(("minimize", "OptimizeResult", "PRESETS", "RECOMMENDED"), "gradfree._es_minimize"),
              **dict.fromkeys(("CMAEvolutionStrategy", "CMAOptions", "fmin2", "ff", "fitness_functions", "s",
                               "optimization_tools", "plot", "BestSolution", "EvalParallel2", "warnings_and_exceptions"),
                              "gradfree.cma")}


def __getattr__(name: str):
    module = _HANDED_ON.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_HANDED_ON))


__all__ = ["REGISTRY", "RECOMMENDED", "PRESETS", "algorithms", "minimize", "OptimizeResult", "Result", *_CLASSES,
           "CMAEvolutionStrategy", "CMAOptions", "fmin2", "ff", "fitness_functions", "s", "optimization_tools", "plot",
           "BestSolution", "EvalParallel2", "PYCMA_OPTIONS", "PYCMA_STOP_NAMES"]
