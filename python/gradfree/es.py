"""Evolution strategies with pycma's ask/tell/stop loop, and ``minimize``.

One class per algorithm of the Rust registry (``gradfree.es.INGO``, ``CMAES``, ...): the classes
are made from the registry itself, so the names, summaries and sources here are those of
``gradfree list`` and of the CLI. Each class is a thin wrapper around one Rust run object that
owns the stop rules, counters, best point and boundary repair, so a Python loop stops at the
same generation, with the same reason, as ``gradfree optimize`` under the same rules.
"""
from __future__ import annotations

import json
import math
from collections import namedtuple
from typing import Callable, Optional, Sequence

import numpy as np

from . import _gradfree, _util
from .errors import InvalidParameterError

Result = namedtuple("Result", ["xbest", "fbest", "evaluations", "iterations", "stop"])

#: The registry entries, in registry order (dicts with ``name``, ``class_name``, ``source``,
#: ``summary``, ``discrete``, ``domain``, ``popsize_param``, ``ipop_stagnation``).
REGISTRY = json.loads(_gradfree.registry_json())


class _ES:
    """An evolution strategy of the Rust crate with pycma's ask/tell/stop loop.

    Stop rules (those of the Rust driver, ``gradfree optimize``): ``max_evals`` (default 10000 d;
    a generation that would exceed it is not started), ``max_gens``, ``target`` (stop once the
    best value is <= target), ``tol_fun`` (the best values of the last ``tol_fun_window``
    generations, default 10, and all values of the last generation span less than ``tol_fun``),
    ``tol_x`` (the step length ``sigma`` fell below it), ``max_seconds`` (wall time). A run whose
    search distribution overflows stops with ``diverged``, one whose update fails numerically (a
    covariance that cannot be decomposed) with ``numerical_failure``. ``stop()`` returns the rule
    that fired as a dict, as pycma does.

    ``bounds = (lower, upper)``: ``ask`` returns points repaired into the box (``bounds_handling``
    ``"clip"`` or ``"reflect"``), ``tell`` takes those points back; the optimizer updates from the
    points it proposed (pycma's non-Lamarckian handling).

    Extra keyword arguments are the algorithm's parameters (the fields of its Rust ``*Params``
    struct, e.g. ``beta=0.04`` for INGO); unknown ones raise ``InvalidParameterError``.

    ``restarts``: ``True`` (until a stop rule ends the run) or a maximum number of IPOP restarts
    (Auger & Hansen 2005): when the run converges (scale below 1e-40 sigma0, or best values flat
    to 1e-12 over 10 + 30 d/N generations; pycma's median-stagnation rule too, except for INGO,
    INGOstep, Fast-INGO and IGO) or diverges, it starts again with twice the population (at most
    max(N, 100 d)) and a new seed, from ``x0`` or from a uniform draw in ``restart_bounds =
    (lower, upper)``. ``popsize`` then changes between generations; ``restarts_done`` counts them.
    """

    algorithm = ""

    def __init__(self, x0: Sequence[float], sigma0: float = 0.5, seed: Optional[int] = None, popsize: Optional[int] = None,
                 max_evals: Optional[int] = None, max_gens: Optional[int] = None, target: Optional[float] = None,
                 tol_fun: Optional[float] = None, tol_fun_window: int = 10, tol_x: Optional[float] = None,
                 max_seconds: Optional[float] = None, bounds=None, bounds_handling: str = "clip", restarts=False,
                 restart_bounds=None, **params):
        x0 = np.asarray(x0, dtype=np.float64)
        if x0.ndim > 1:
            raise InvalidParameterError(f"x0: expected a 1-D array of shape (d,), got shape {x0.shape}")
        x0 = np.ascontiguousarray(x0.ravel())
        if x0.size == 0:
            raise InvalidParameterError("x0: expected at least one coordinate")
        if popsize is not None:
            params["popsize"] = _util.count("popsize", popsize, 2)
        self.seed = _util.seed(seed)
        max_restarts = None
        if restarts is not False and restarts is not None and restarts is not True:
            if isinstance(restarts, bool) or not isinstance(restarts, (int, np.integer)) or restarts < 0:
                raise InvalidParameterError(f"restarts: expected True, False or a non-negative integer, got {restarts!r}")
            max_restarts = int(restarts)
        rb = _util.box("restart_bounds", restart_bounds, x0.shape)
        box = _util.box("bounds", bounds, x0.shape)
        stop = {
            "max_evaluations": _util.count("max_evals", max_evals, 1) if max_evals is not None else 10000 * x0.size,
            "max_generations": _util.count("max_gens", max_gens, 1) if max_gens is not None else None,
            "target": _util.number("target", target) if target is not None else None,
            "tol_f": _util.positive("tol_fun", tol_fun) if tol_fun is not None else None,
            "tol_f_window": _util.count("tol_fun_window", tol_fun_window, 1),
            "tol_x": _util.positive("tol_x", tol_x) if tol_x is not None else None,
            "max_seconds": _util.positive("max_seconds", max_seconds) if max_seconds is not None else None,
        }
        self._x0 = x0
        self._run = _gradfree.Run(self.algorithm, x0, float(sigma0), self.seed, json.dumps(params), json.dumps(stop),
                                  bool(restarts), max_restarts, rb, box, bounds_handling)
        self.max_evals, self.max_gens, self.target = stop["max_evaluations"], stop["max_generations"], stop["target"]
        self.tol_fun, self.tol_x, self.max_seconds = tol_fun, tol_x, max_seconds

    @property
    def popsize(self) -> int:
        return self._run.popsize

    @property
    def mean(self) -> np.ndarray:
        return self._run.mean

    @property
    def restarts_done(self) -> int:
        return self._run.restarts

    @property
    def sigma(self) -> float:
        """The optimizer's step length, as the ``tol_x`` rule uses it: the largest standard deviation
        of the search distribution along a coordinate (for methods with a fixed sampling width, the
        largest coordinate of the last mean step)."""
        return self._run.scale

    @property
    def evaluations(self) -> int:
        return self._run.evaluations

    @property
    def iterations(self) -> int:
        return self._run.generations

    @property
    def fbest(self) -> float:
        return self._run.best_f

    @property
    def xbest(self) -> np.ndarray:
        """Best point evaluated (``x0`` before the first finite value)."""
        x = self._run.best_x
        return self._x0.copy() if x is None else x

    def ask(self) -> np.ndarray:
        """The next population to evaluate, shape (popsize, d)."""
        return self._run.ask()

    def tell(self, X, values) -> None:
        """Reports the values of the points returned by the last ``ask`` (same order)."""
        X = np.ascontiguousarray(np.asarray(X, dtype=np.float64))
        values = np.ascontiguousarray(np.asarray(values, dtype=np.float64).ravel())
        if X.ndim != 2:
            raise InvalidParameterError(f"X: expected shape ({self.popsize}, {self._run.dim}), got {X.shape}")
        if values.shape[0] != X.shape[0]:
            raise InvalidParameterError(f"values: expected {X.shape[0]} values, got {values.shape[0]}")
        self._run.tell(X, values)

    def stop(self) -> dict:
        """The stop rule that has fired, as ``{name: threshold}`` (empty: keep going), as pycma's
        ``stop()``: ``max_evals``, ``max_gens``, ``target``, ``tol_fun``, ``tol_x``,
        ``max_seconds``, ``diverged`` or ``numerical_failure``."""
        key = self._run.stop()
        if key is None:
            return {}
        value = {"max_evals": self.max_evals, "max_gens": self.max_gens, "target": self.target, "tol_fun": self.tol_fun,
                 "tol_x": self.tol_x, "max_seconds": self.max_seconds}.get(key, True)
        return {key: value}

    @property
    def result(self) -> Result:
        return Result(self.xbest, self.fbest, self.evaluations, self.iterations, self.stop())

    def disp(self) -> None:
        print(f"{self.algorithm} it {self.iterations:6d}  evals {self.evaluations:9d}  best f {self.fbest:.6e}  sigma {self.sigma:.3e}")

    def events(self):
        """(kind, message) events since the last call (backtracking, restarts, ...)."""
        return self._run.take_events()

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_run"] = self._run.state_json()
        return state

    def __setstate__(self, state):
        state = dict(state)
        state["_run"] = _gradfree.Run.from_state_json(state["_run"])
        self.__dict__.update(state)


class _DiscreteES(_ES):
    """A discrete optimizer over ``{0..K-1}^dim`` with pycma's loop; ``ask()`` returns an integer
    array of shape (popsize, dim), ``tell`` takes it back with the values. Keyword arguments are
    the Rust parameters (e.g. ``beta``, ``baseline``; ``categories`` for K)."""

    def __init__(self, dim: int, seed: Optional[int] = None, popsize: Optional[int] = None,
                 max_evals: Optional[int] = None, max_gens: Optional[int] = None, target: Optional[float] = None,
                 tol_fun: Optional[float] = None, **params):
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 1:
            raise InvalidParameterError(f"dim: expected a positive integer, got {dim!r}")
        super().__init__(np.zeros(int(dim)), 1.0, seed=seed, popsize=popsize, max_evals=max_evals, max_gens=max_gens,
                         target=target, tol_fun=tol_fun, **params)

    def ask(self) -> np.ndarray:
        """The next population as integers, shape (popsize, dim)."""
        return super().ask().astype(np.int64)

    @property
    def xbest(self) -> np.ndarray:
        return super().xbest.astype(np.int64)


def _make_class(entry: dict) -> type:
    base = _DiscreteES if entry["discrete"] else _ES
    doc = f"{entry['summary']} ({entry['source']}); ``gradfree optimize --algo {entry['name']}``.\n\n{base.__doc__}"
    return type(entry["class_name"], (base,), {"algorithm": entry["name"], "__doc__": doc, "__module__": __name__})


_CLASSES = {e["class_name"]: _make_class(e) for e in REGISTRY}
globals().update(_CLASSES)
_METHODS = {c.algorithm: c for c in _CLASSES.values() if not issubclass(c, _DiscreteES)}


class OptimizeResult(dict):
    """scipy.optimize-style result: ``x``, ``fun``, ``nfev``, ``nit``, ``success``, ``message``."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(name) from e


def minimize(f: Callable[[np.ndarray], float], x0, method: str = "ingo", sigma0: float = 0.5, seed: Optional[int] = None,
             max_evals: Optional[int] = None, target: Optional[float] = None, bounds=None, restarts=False,
             executor=None, **params) -> OptimizeResult:
    """Minimizes ``f`` with a gradfree ES. Each population is evaluated through ``executor.map``
    (any ``concurrent.futures`` executor, or a Ray pool's ``map``; default: in this thread).
    ``bounds = (lower, upper)`` clips the points ``f`` sees (the optimizer is told its own points).
    ``restarts=True`` runs IPOP restarts (doubling population) until ``max_evals`` is spent, each
    restart from a uniform point in ``bounds`` if given, else from ``x0``. Exceptions raised by
    ``f`` propagate unchanged; NaN values follow the algorithm's ``on_nonfinite`` policy. Other
    keyword arguments are the stop rules and parameters of the ES classes."""
    cls = _METHODS.get(method)
    if cls is None:
        raise InvalidParameterError(f"method {method!r}: expected one of {sorted(_METHODS)}")
    shape = np.asarray(x0, dtype=np.float64).ravel().shape
    box = _util.box("bounds", bounds, shape)
    es = cls(x0, sigma0, seed=seed, max_evals=max_evals, target=target, restarts=restarts, bounds=box,
             restart_bounds=box, **params)
    while not es.stop():
        X = es.ask()
        values = list(executor.map(f, X)) if executor is not None else [f(x) for x in X]
        es.tell(X, values)
    reasons = es.stop()
    return OptimizeResult(x=es.xbest if es.evaluations and math.isfinite(es.fbest) else None, fun=es.fbest, nfev=es.evaluations,
                          nit=es.iterations, restarts=es.restarts_done, success="target" in reasons,
                          message=", ".join(reasons) or "stopped")


__all__ = ["REGISTRY", "minimize", "OptimizeResult", "Result", *_CLASSES]
