"""Batch Bayesian optimization (Lyu 2021, thesis ch. 4) with scikit-optimize's conventions.

A Gaussian process with an ARD Matérn 5/2 kernel and a constant mean (ordinary kriging;
hyper-parameters by maximum likelihood),
an initial rank-1 lattice design (thesis Alg. 9/10), then batches chosen by

- ``"bkop"``: the thesis' batch rule (Alg. 6/8), the batch chosen jointly (default);
- ``"ucb"``: constant-weight confidence bound (Alg. 5/7);
- ``"gp-bucb"``: GP-BUCB (Desautels, Krause & Burdick 2014);
- ``"gp-ucb-pe"``: GP-UCB-PE (Contal et al. 2013);
- ``"bull"``: Bull's (2011) non-adaptive design plus one final point;
- ``"ei"``: expected improvement (Jones et al. 1998) in logarithms, batches by the Kriging
  believer (Ginsbourger et al. 2010), as a baseline.

Ask/tell, with evaluations pending on workers::

    from gradfree.bo import Optimizer
    opt = Optimizer([(-2.0, 2.0)] * 6, batch_size=5, random_state=0)
    X = opt.ask()                 # the initial design
    opt.tell(X, [f(x) for x in X])
    X = opt.ask(5)                # a batch; ask again before telling and pending points are avoided

or in one call::

    from gradfree.bo import minimize
    res = minimize(f, [(-2.0, 2.0)] * 6, n_calls=60, batch_size=5, random_state=0)
    res.x, res.fun, res.x_iters, res.func_vals

Dimensions follow scikit-optimize: ``(low, high)`` of floats is continuous, of ints an integer
range, and a list of more than two values (or of strings) is categorical. The GP, its fit and the
acquisition search run in Rust without the GIL.
"""
from __future__ import annotations

import json
import numbers
import pickle
from typing import Any, Callable, Optional, Sequence

import numpy as np

from . import _gradfree, _util
from .errors import InvalidParameterError
from .es import OptimizeResult

__all__ = ["Optimizer", "minimize", "methods"]


def methods() -> list:
    """The selection rules as ``(name, summary, source)``."""
    return [(e["name"], e["summary"], e["source"]) for e in json.loads(_gradfree.registries_json())["bo_methods"]]


class _Dim:
    """One search dimension: continuous ``(lo, hi)``, integer ``(lo, hi)`` or categorical."""

    def __init__(self, spec, index: int):
        self.categories = None
        if isinstance(spec, tuple) and len(spec) == 2 and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in spec):
            lo, hi = spec
            if all(isinstance(v, numbers.Integral) for v in spec):
                self.kind, self.low, self.high = "integer", float(lo), float(hi)
            else:
                self.kind, self.low, self.high = "continuous", float(lo), float(hi)
        elif isinstance(spec, (list, tuple)) and len(spec) >= 2:
            self.categories = list(spec)
            self.kind, self.low, self.high = "categorical", 0.0, float(len(spec) - 1)
        else:
            raise InvalidParameterError(
                f"invalid dimension {index} = {spec!r}: expected (low, high) of floats or ints, or a list of categories")

    def decode(self, v: float):
        if self.kind == "continuous":
            return float(v)
        if self.kind == "integer":
            return int(round(v))
        return self.categories[int(round(v))]

    def encode(self, v) -> float:
        if self.kind == "categorical":
            try:
                return float(self.categories.index(v))
            except ValueError:
                raise InvalidParameterError(f"value {v!r} is not one of the categories {self.categories}") from None
        return float(v)


class Optimizer:
    """Batch Bayesian optimization with scikit-optimize's ask/tell interface.

    Parameters
    ----------
    dimensions : list
        One entry per coordinate: ``(low, high)`` floats (continuous), ``(low, high)`` ints
        (integer) or a list of categories.
    method : str, default "bkop"
        Selection rule (:func:`methods`).
    batch_size : int, default 5
        Points per batch after the initial design (``ask()`` without ``n_points`` still returns
        one point, as scikit-optimize's does; :func:`minimize` evaluates whole batches). The
        thesis' batch size L = 5 (§4.7), the library's default like every default here.
    n_initial_points : int, optional
        Size of the initial lattice design (default ``max(10, 3d + 2)``).
    random_state : int, optional
        Seed (``None``: drawn from the OS). Same seed, same points, whatever the thread count.
    kernel : {"matern52", "rbf"}, default "matern52"
    noise : float, optional
        Fixed noise variance in standardized units (default: learned, at least 1e-6).
    weight : float, default 1.0
        Exploration weight of ``bkop`` and ``ucb`` (thesis §4.7.2 uses 1).
    beta : float, optional
        Fixed ``beta_t`` for ``gp-bucb`` and ``gp-ucb-pe`` (default ``0.2 d ln(2t)``).
    acq_starts, acq_evals_per_dim : int
        CMA-ES starts of the acquisition search and evaluations per start and variable.
    on_nonfinite : {"error", "treat-as-inf"}, default "error"
        NaN/inf values: an error, or failed evaluations recorded at the worst value seen.
    n_calls : int, optional
        Total budget; required by ``method="bull"`` only.
    """

    def __init__(self, dimensions: Sequence[Any], method: Optional[str] = None, batch_size: Optional[int] = None,
                 n_initial_points: Optional[int] = None, random_state: Optional[int] = None, *, kernel: Optional[str] = None,
                 noise: Optional[float] = None, weight: Optional[float] = None, beta: Optional[float] = None,
                 acq_starts: Optional[int] = None, acq_evals_per_dim: Optional[int] = None, on_nonfinite: Optional[str] = None,
                 n_calls: Optional[int] = None):
        if isinstance(dimensions, (str, bytes)) or not isinstance(dimensions, Sequence) or len(dimensions) == 0:
            raise InvalidParameterError(f"invalid dimensions = {dimensions!r}: expected a non-empty list of (low, high) or category lists")
        self.dimensions = [_Dim(s, i) for i, s in enumerate(dimensions)]
        seed = _util.seed(random_state)
        # Options left None take the library's defaults (gradfree_bo::BoParams).
        self._bo = _gradfree.BatchBO(
            [d.low for d in self.dimensions], [d.high for d in self.dimensions], [d.kind for d in self.dimensions], seed,
            method=method, batch_size=_opt(_count, "batch_size", batch_size),
            n_initial=_opt(_count, "n_initial_points", n_initial_points), kernel=kernel, noise=_opt(_util.number, "noise", noise),
            weight=_opt(_util.number, "weight", weight), beta=_opt(_util.number, "beta", beta),
            acq_starts=_opt(_count, "acq_starts", acq_starts), acq_evals_per_dim=_opt(_count, "acq_evals_per_dim", acq_evals_per_dim),
            on_nonfinite=on_nonfinite, budget=_opt(_count, "n_calls", n_calls))
        self.Xi: list = []
        self.yi: list = []

    # scikit-optimize's interface ---------------------------------------------------------------
    def ask(self, n_points: Optional[int] = None):
        """The next point (``n_points=None``: one point as a list, or the whole initial design while
        it lasts, as a list of points) or a list of ``n_points`` points. Points asked and not yet
        told are pending: later batches avoid them."""
        n = None if n_points is None else _count("n_points", n_points)
        if n is None and self._bo.n_observations + self._bo.n_pending > 0:
            n = 1
        X = self._bo.ask(n)
        pts = [self._decode(x) for x in X]
        return pts[0] if n_points is None and n == 1 else pts

    def tell(self, x, y):
        """Records ``y = f(x)`` for one point or a list of points (asked or not)."""
        single = not (len(x) > 0 and isinstance(x[0], (list, tuple, np.ndarray)))
        xs = [x] if single else list(x)
        ys = [y] if single or np.ndim(y) == 0 else list(y)
        if len(xs) != len(ys):
            raise InvalidParameterError(f"{len(xs)} points but {len(ys)} values")
        ys = [_util.real(f"y[{k}]", v) for k, v in enumerate(ys)]
        X = np.array([self._encode(p) for p in xs], dtype=float).reshape(len(xs), len(self.dimensions))
        self._bo.tell(np.ascontiguousarray(X), ys)
        self.Xi.extend(xs)
        self.yi.extend(ys)
        return self

    def _decode(self, x) -> list:
        return [d.decode(v) for d, v in zip(self.dimensions, x)]

    def _encode(self, p) -> list:
        if len(p) != len(self.dimensions):
            raise InvalidParameterError(f"a point of dimension {len(p)} for {len(self.dimensions)} dimensions")
        return [d.encode(v) for d, v in zip(self.dimensions, p)]

    # state ----------------------------------------------------------------------------------------
    @property
    def method(self) -> str:
        return self._bo.method

    @property
    def n_pending(self) -> int:
        """Points asked and not yet told."""
        return self._bo.n_pending

    @property
    def hyperparameters(self):
        """``(length_scales, signal_variance, noise_variance)`` of the last GP fit (unit cube,
        standardized outputs), or ``None``."""
        return self._bo.hyperparameters

    def get_result(self) -> OptimizeResult:
        """The result so far, as scikit-optimize's ``OptimizeResult``."""
        if not self.yi:
            raise InvalidParameterError("no evaluations told yet")
        finite = [i for i, v in enumerate(self.yi) if np.isfinite(v)]
        if not finite:
            raise InvalidParameterError("no finite value told yet")
        k = min(finite, key=lambda i: self.yi[i])
        return OptimizeResult(x=list(self.Xi[k]), fun=self.yi[k], x_iters=[list(p) for p in self.Xi],
                              func_vals=np.array(self.yi), nfev=len(self.yi), success=True, message="budget used",
                              method=self.method)

    def __getstate__(self):
        return {"state": self._bo.state_json(), "dimensions": self.dimensions, "Xi": self.Xi, "yi": self.yi}

    def __setstate__(self, s):
        self._bo = _gradfree.BatchBO.from_state_json(s["state"])
        self.dimensions, self.Xi, self.yi = s["dimensions"], s["Xi"], s["yi"]

    def copy(self) -> "Optimizer":
        return pickle.loads(pickle.dumps(self))


def minimize(func: Callable, dimensions: Sequence[Any], n_calls: int = 100, n_initial_points: Optional[int] = None,
             batch_size: Optional[int] = None, method: Optional[str] = None, random_state: Optional[int] = None, seed: Optional[int] = None,
             callback: Optional[Callable] = None, **kwargs) -> OptimizeResult:
    """Minimizes ``func`` over ``dimensions`` by batch Bayesian optimization, with
    ``skopt.gp_minimize``'s argument names; returns a SciPy-style ``OptimizeResult`` (``x``,
    ``fun``, ``x_iters``, ``func_vals``, ``nfev``).

    ``func(x)`` takes one point (a list); each batch of ``batch_size`` points (default 5, the
    thesis' L) is evaluated in order. The default rule is the thesis' BKOP; ``batch_size=1`` makes
    it the sequential constant-weight UCB (Alg. 5). ``seed`` is an alias of
    ``random_state``; ``callback(result)`` is called after every batch and may return ``True`` to
    stop. Other keywords go to :class:`Optimizer`.
    """
    if seed is not None and random_state is not None and seed != random_state:
        raise InvalidParameterError("give seed or random_state, not both")
    n_calls = _count("n_calls", n_calls)
    opt = Optimizer(dimensions, method=method, batch_size=batch_size, n_initial_points=n_initial_points,
                    random_state=random_state if random_state is not None else seed, n_calls=n_calls, **kwargs)
    batch_size = opt._bo.batch_size
    while len(opt.yi) < n_calls:
        left = n_calls - len(opt.yi)
        design_left = opt._bo.n_observations == 0 and opt._bo.n_pending == 0
        X = opt._bo.ask(None if design_left else min(batch_size, left))
        X = X[:left]
        pts = [opt._decode(x) for x in X]
        opt.tell(pts, [func(p) for p in pts])
        if callback is not None and callback(opt.get_result()):
            break
    res = opt.get_result()
    res["specs"] = {"method": opt.method, "batch_size": batch_size, "n_calls": n_calls}
    return res


def _count(name: str, v) -> int:
    return _util.count(name, v, 1)


def _opt(check: Callable, name: str, v):
    """``check(name, v)``, or ``None`` for ``None`` (the library's default)."""
    return None if v is None else check(name, v)
