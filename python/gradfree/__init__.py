"""gradfree: gradient-free optimization and quasi-Monte Carlo, from Rust.

Evolution strategies with pycma's loop::

    import numpy as np, gradfree
    es = gradfree.INGO(np.full(10, 0.5), 0.5, seed=1)
    while not es.stop():
        X = es.ask()
        es.tell(X, [float(np.sum(x ** 2)) for x in X])
    print(es.result.fbest)

QMC engines with scipy.stats.qmc's interface (``random``, ``reset``, ``fast_forward``)::

    pts = gradfree.Sobol(64, seed=1).random(1024)
    lat = gradfree.SubgroupLattice(50, 101)            # thesis eq. (5.14)
    print(lat.min_distance("l1"))                      # 12.624 (thesis Table 5.1)
"""
from __future__ import annotations

import json
import math
import os
from collections import namedtuple
from typing import Callable, Optional, Sequence

import numpy as np

from . import _gradfree
from .errors import CheckpointError, GradfreeError, InvalidParameterError, NonFiniteError, TooLargeError
from ._gradfree import Problem, algorithms, discrepancy, korobov, lattice_search, min_distance, run_builtin, subgroup_vector

__all__ = [
    "INGO", "INGOstep", "FastINGO", "CMAES", "XNES", "IGO", "MiNES", "OpenAIES", "NesterovSpokoiny",
    "BernoulliINGO", "CategoricalINGO", "GA",
    "minimize", "OptimizeResult", "Sobol", "Halton", "Rank1Lattice", "SubgroupLattice", "KorobovLattice",
    "SearchedLattice", "Problem", "algorithms", "discrepancy", "korobov", "lattice_search", "min_distance",
    "run_builtin", "subgroup_vector",
    "GradfreeError", "InvalidParameterError", "NonFiniteError", "CheckpointError", "TooLargeError",
]

Result = namedtuple("Result", ["xbest", "fbest", "evaluations", "iterations", "stop"])


def _seed(seed: Optional[int]) -> int:
    if seed is None:
        return int.from_bytes(os.urandom(8), "little")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 1 << 64:
        raise InvalidParameterError(f"seed: expected an integer in [0, 2**64 - 1] or None, got {seed!r}")
    return int(seed)


def _count(name: str, value, lo: int) -> int:
    """An integer >= lo; integral floats (``8.0``) are accepted, ``7.9``, booleans and NaN are not."""
    if isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(f"{name}: expected an integer >= {lo}, got {value!r}")
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        value = int(value)
    if not isinstance(value, (int, np.integer)) or value < lo:
        raise InvalidParameterError(f"{name}: expected an integer >= {lo}, got {value!r}")
    return int(value)


class _ES:
    """An evolution strategy of the Rust crate with pycma's ask/tell/stop loop.

    Stop rules (checked by ``stop()``): ``max_evals`` (default 10000 d), ``max_gens``, ``target``
    (stop once the best value is <= target), ``tol_fun`` (best value unchanged by more than this
    over 100 generations). Extra keyword arguments are the algorithm's parameters (the fields of
    its Rust ``*Params`` struct, e.g. ``beta=0.04`` for INGO); unknown ones raise ``ValueError``.

    ``restarts``: ``True`` (until a stop rule ends the run) or a maximum number of IPOP restarts
    (Auger & Hansen 2005): when the run converges (scale below 1e-40 sigma0, or best values flat
    to 1e-12 over 10 + 30 d/N generations; pycma's median-stagnation rule too, except for INGO,
    INGOstep, Fast-INGO and IGO) or diverges, it starts again with twice the population (at most max(N, 100 d)) and a new
    seed, from ``x0`` or from a uniform draw in ``restart_bounds = (lower, upper)``. ``popsize``
    then changes between generations; ``restarts_done`` counts them.
    """

    algorithm = ""

    def __init__(self, x0: Sequence[float], sigma0: float = 0.5, seed: Optional[int] = None, popsize: Optional[int] = None,
                 max_evals: Optional[int] = None, max_gens: Optional[int] = None, target: Optional[float] = None,
                 tol_fun: Optional[float] = None, restarts=False, restart_bounds=None, **params):
        x0 = np.ascontiguousarray(np.asarray(x0, dtype=np.float64).ravel())
        if x0.size == 0:
            raise InvalidParameterError("x0: expected at least one coordinate")
        if popsize is not None:
            params["popsize"] = _count("popsize", popsize, 2)
        self.seed = _seed(seed)
        max_restarts = None
        if restarts is not False and restarts is not None and restarts is not True:
            if isinstance(restarts, bool) or not isinstance(restarts, (int, np.integer)) or restarts < 0:
                raise InvalidParameterError(f"restarts: expected True, False or a non-negative integer, got {restarts!r}")
            max_restarts = int(restarts)
        rb = None
        if restart_bounds is not None:
            rb = tuple(np.broadcast_to(np.asarray(b, dtype=np.float64), x0.shape).tolist() for b in restart_bounds)
        self._opt = _gradfree.Optimizer(self.algorithm, x0, float(sigma0), self.seed, json.dumps(params),
                                        bool(restarts), max_restarts, rb)
        self.max_evals = _count("max_evals", max_evals, 1) if max_evals is not None else 10000 * x0.size
        if self.max_evals < self._opt.popsize:
            raise InvalidParameterError(
                f"max_evals: expected >= the population size {self._opt.popsize} of {self.algorithm} (one generation), got {self.max_evals}")
        self.max_gens = _count("max_gens", max_gens, 1) if max_gens is not None else None
        self.target = target
        self.tol_fun = tol_fun
        self.evaluations = 0
        self.iterations = 0
        self.xbest = x0.copy()
        self.fbest = math.inf
        self._recent = []
        self._asked = None

    @property
    def popsize(self) -> int:
        return self._opt.popsize

    @property
    def mean(self) -> np.ndarray:
        return self._opt.mean

    @property
    def restarts_done(self) -> int:
        return self._opt.restarts

    @property
    def sigma(self) -> float:
        return self._opt.scale

    def ask(self) -> np.ndarray:
        """The next population, shape (popsize, d)."""
        self._asked = self._opt.ask()
        return self._asked.copy()

    def tell(self, X, values) -> None:
        """Reports the values of the points returned by the last ``ask`` (same order)."""
        X = np.ascontiguousarray(np.asarray(X, dtype=np.float64))
        values = np.ascontiguousarray(np.asarray(values, dtype=np.float64).ravel())
        if X.ndim != 2:
            raise InvalidParameterError(f"X: expected shape ({self.popsize}, {self._opt.dim}), got {X.shape}")
        if values.shape[0] != X.shape[0]:
            raise InvalidParameterError(f"values: expected {X.shape[0]} values, got {values.shape[0]}")
        self._opt.tell(X, values)
        self.evaluations += len(values)
        self.iterations += 1
        finite = np.isfinite(values)
        if finite.any():
            i = int(np.argmin(np.where(finite, values, np.inf)))
            if values[i] < self.fbest:
                self.fbest = float(values[i])
                self.xbest = X[i].copy()
        self._recent = (self._recent + [self.fbest])[-100:]

    def stop(self) -> dict:
        """Stop reasons met so far (empty: keep going), as pycma's ``stop()``."""
        out = {}
        if self.evaluations + self.popsize > self.max_evals:
            out["max_evals"] = self.max_evals
        if self.max_gens is not None and self.iterations >= self.max_gens:
            out["max_gens"] = self.max_gens
        if self.target is not None and self.fbest <= self.target:
            out["target"] = self.target
        if self.tol_fun is not None and len(self._recent) == 100 and self._recent[0] - self._recent[-1] <= self.tol_fun:
            out["tol_fun"] = self.tol_fun
        return out

    @property
    def result(self) -> Result:
        return Result(self.xbest.copy(), self.fbest, self.evaluations, self.iterations, self.stop())

    def disp(self) -> None:
        print(f"{self.algorithm} it {self.iterations:6d}  evals {self.evaluations:9d}  best f {self.fbest:.6e}  sigma {self.sigma:.3e}")

    def events(self):
        """(kind, message) events since the last call (backtracking, restarts, ...)."""
        return self._opt.take_events()

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_opt"] = self._opt.state_json()
        return state

    def __setstate__(self, state):
        state = dict(state)
        state["_opt"] = _gradfree.Optimizer.from_state_json(state["_opt"])
        self.__dict__.update(state)


class INGO(_ES):
    """INGO, thesis Alg. 1 (implicit natural gradient, full covariance)."""
    algorithm = "ingo"


class INGOstep(_ES):
    """INGOstep, thesis Alg. 3."""
    algorithm = "ingostep"


class FastINGO(_ES):
    """Fast-INGO, thesis Alg. 2 (diagonal covariance)."""
    algorithm = "fast-ingo"


class CMAES(_ES):
    """CMA-ES (Hansen's tutorial defaults, active weights, CSA)."""
    algorithm = "cmaes"


class XNES(_ES):
    """xNES (Wierstra et al. 2014)."""
    algorithm = "xnes"


class IGO(_ES):
    """IGO with full covariance (explicit natural gradient)."""
    algorithm = "igo"


class MiNES(_ES):
    """MiNES (Ye & Zhang, Alg. 1)."""
    algorithm = "mines"


class OpenAIES(_ES):
    """OpenAI-ES (Salimans et al. 2017)."""
    algorithm = "openai-es"


class NesterovSpokoiny(_ES):
    """Nesterov-Spokoiny random gradient-free descent."""
    algorithm = "nesterov-spokoiny"


_METHODS = {c.algorithm: c for c in (INGO, INGOstep, FastINGO, CMAES, XNES, IGO, MiNES, OpenAIES, NesterovSpokoiny)}


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

    def tell(self, X, values) -> None:
        super().tell(X, values)
        self.xbest = np.asarray(self.xbest).astype(np.int64)


class BernoulliINGO(_DiscreteES):
    """Discrete INGO over {0, 1}^dim (thesis eq. 3.38-3.41); ``mean`` is P(x_i = 1)."""
    algorithm = "ingo-bernoulli"


class CategoricalINGO(_DiscreteES):
    """Discrete INGO over {0..K-1}^dim (thesis eq. 3.42-3.44), ``categories=K``; ``mean`` is the
    expected index of every coordinate."""
    algorithm = "ingo-categorical"


class GA(_DiscreteES):
    """The genetic-algorithm baseline of thesis sec. 3.7.3 (tournaments, uniform crossover, 1/d
    mutation, one elite), over {0..K-1}^dim with ``categories=K``."""
    algorithm = "ga"


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
    ``f`` propagate unchanged; NaN values follow the algorithm's ``on_nonfinite`` policy."""
    cls = _METHODS.get(method)
    if cls is None:
        raise InvalidParameterError(f"method {method!r}: expected one of {sorted(_METHODS)}")
    lower = upper = None
    if bounds is not None:
        shape = np.asarray(x0, dtype=np.float64).ravel().shape
        lower, upper = (np.broadcast_to(np.asarray(b, dtype=np.float64), shape) for b in bounds)
        if np.any(lower >= upper):
            raise InvalidParameterError("bounds: expected lower < upper in every coordinate")
    es = cls(x0, sigma0, seed=seed, max_evals=max_evals, target=target, restarts=restarts,
             restart_bounds=None if lower is None else (lower, upper), **params)
    xbest, fbest = None, math.inf
    while not es.stop():
        X = es.ask()
        P = X if lower is None else np.clip(X, lower, upper)
        values = list(executor.map(f, P)) if executor is not None else [f(p) for p in P]
        es.tell(X, values)
        i = int(np.argmin(values))
        if values[i] < fbest:
            xbest, fbest = P[i].copy(), float(values[i])
    reasons = es.stop()
    return OptimizeResult(x=xbest, fun=fbest, nfev=es.evaluations, nit=es.iterations, restarts=es.restarts_done,
                          success="target" in reasons, message=", ".join(reasons) or "stopped")


class _Engine:
    """scipy.stats.qmc.QMCEngine-style wrapper."""

    def __init__(self, engine, seed: int):
        self._e = engine
        self.seed = seed

    @property
    def d(self) -> int:
        return self._e.d

    @property
    def num_generated(self) -> int:
        return self._e.num_generated

    def random(self, n: int = 1) -> np.ndarray:
        return self._e.random(int(n))

    def reset(self):
        self._e.reset()
        return self

    def fast_forward(self, n: int):
        self._e.fast_forward(int(n))
        return self


class Sobol(_Engine):
    """Sobol points (Joe-Kuo direction numbers, up to 21201 dimensions). ``scramble=True``: linear
    matrix scrambling + digital shift (scipy's default), or ``method="owen"``."""

    def __init__(self, d: int, scramble: bool = True, seed: Optional[int] = None, method: str = "lms-shift"):
        if method not in ("lms-shift", "owen"):
            raise InvalidParameterError(f"method {method!r}: expected 'lms-shift' or 'owen'")
        s = _seed(seed)
        super().__init__(_gradfree.Engine("sobol", int(d), s, method if scramble else "none"), s)


class Halton(_Engine):
    """Halton points; ``scramble=True`` applies random digit permutations."""

    def __init__(self, d: int, scramble: bool = True, seed: Optional[int] = None):
        s = _seed(seed)
        super().__init__(_gradfree.Engine("halton", int(d), s, "permutation" if scramble else "none"), s)


class Rank1Lattice:
    """The rank-1 lattice ``{i z / n mod 1 : i < n}`` (any generating vector ``z``) as a QMC engine
    over its ``n`` points, with an optional uniform random shift drawn from ``seed``."""

    def __init__(self, z, n: int, seed: Optional[int] = None, shift: bool = False):
        self.z, self.n = [int(v) for v in z], int(n)
        self.seed = _seed(seed)
        self.shift = np.random.default_rng(self.seed).random(len(self.z)).tolist() if shift else None
        self._i = 0

    @property
    def d(self) -> int:
        return len(self.z)

    def _check_left(self, n: int) -> None:
        if self._i + n > self.n:
            raise InvalidParameterError(f"n: only {self.n - self._i} of the lattice's {self.n} points are left")

    def random(self, n: int = 1) -> np.ndarray:
        self._check_left(n)
        out = _gradfree.lattice_points(self.z, self.n, self._i, int(n), self.shift)
        self._i += int(n)
        return out

    def reset(self):
        self._i = 0
        return self

    def fast_forward(self, n: int):
        self._check_left(n)
        self._i += int(n)
        return self

    @property
    def num_generated(self) -> int:
        return self._i

    def min_distance(self, metric: str = "l2") -> float:
        """Minimum toroidal ``metric`` ("l1" or "l2") distance between distinct lattice points."""
        return _gradfree.min_distance(self.z, self.n, metric)


class SubgroupLattice(Rank1Lattice):
    """The subgroup rank-1 lattice (thesis Thm. 13, eq. 5.14): n prime with 2d | n - 1."""

    def __init__(self, d: int, n: int, seed: Optional[int] = None, shift: bool = False):
        super().__init__(subgroup_vector(int(d), int(n)), n, seed, shift)


class KorobovLattice(Rank1Lattice):
    """The lattice of an exhaustive Korobov search maximizing the ``metric`` toroidal distance."""

    def __init__(self, d: int, n: int, metric: str = "l2", seed: Optional[int] = None, shift: bool = False):
        self.a, z, _ = korobov(int(d), int(n), metric)
        super().__init__(z, n, seed, shift)


class SearchedLattice(Rank1Lattice):
    """The lattice of the thesis' packing-radius searches (sec. 4.6): ``method="alg10"``
    (Algorithm 10 over ``primes`` primes) or ``"alg11"`` (successive coordinate search, ``sweeps``
    sweeps from Algorithm 10's ``top`` best vectors). ``self.distance`` is its min l2 distance."""

    def __init__(self, d: int, n: int, method: str = "alg10", primes: int = 50, sweeps: int = 3, top: int = 64,
                 seed: Optional[int] = None, shift: bool = False):
        z, self.distance = lattice_search(int(d), int(n), method, int(primes), int(sweeps), int(top))
        super().__init__(z, n, seed, shift)
