"""pycma's interface over gradfree's CMA-ES: ``CMAEvolutionStrategy``, ``CMAOptions``, ``fmin2``
and the helpers pycma's examples use (``ff``, ``s``, ``optimization_tools``, ``plot``), so that
code written for pycma (the ``cma`` package, version 4.x) runs with ``import gradfree.es as cma``.

The names, defaults, call signatures and printed lines follow pycma's (N. Hansen et al.,
https://github.com/CMA-ES/pycma, ``cma/evolution_strategy.py`` and ``cma/options_parameters.py``);
the optimizer underneath is ``gradfree.es.CMAES`` (the Rust crate's CMA-ES, Hansen's 2016
tutorial with active weights and CSA), so runs are not bit-identical to pycma's. What pycma
offers and gradfree does not is refused with ``InvalidParameterError`` naming it, never ignored;
``CMAOptions.handling()`` lists how each option is treated.
"""
from __future__ import annotations

import concurrent.futures
import itertools
import math
import os
import pickle
import pprint as _pprint
import sys
import time
import types
import warnings as _warnings
import weakref
from typing import Optional

import numpy as np

from . import _pycma_ff as ff
from . import _util
from .errors import InvalidParameterError
from .es import _MAXFEVALS_INF, CMAES, Result, _ES

# How each of pycma's options is treated. HONOURED: it has its pycma meaning. IGNORED: it only
# concerns pycma's data files and console layout, which gradfree does not write (documented, no
# effect on the run). DEFAULT_ONLY: gradfree's CMA-ES does what pycma's default does and has no
# other setting, so the default value is accepted and any other is refused.
HONOURED, IGNORED, DEFAULT_ONLY = "honoured", "ignored", "default only"

#: pycma's options gradfree accepts: name -> (pycma's default, description, handling). The
#: defaults and descriptions are pycma's (``cma.CMAOptions.defaults()``); every other pycma
#: option is refused.
_OPTIONS = {
    "BoundaryHandler": ("BoundTransform", "or BoundPenalty, unused when ``bounds in (None, [None, None])``", HONOURED),
    "bounds": ("[None, None]", "lower (=bounds[0]) and upper domain boundaries, each a scalar or a list/vector; "
               "None or inf for an unbounded side", HONOURED),
    "ftarget": ("-inf", "#v target function value, minimization", HONOURED),
    "maxfevals": ("inf", "#v maximum number of function evaluations", HONOURED),
    "maxiter": ("100 + 150 * (N+3)**2 // popsize**0.5", "#v maximum number of iterations", HONOURED),
    "popsize": ("4 + 3 * math.log(N)", "population size, AKA lambda, int(popsize) is the number of new solution per iteration",
                HONOURED),
    "popsize_factor": ("1", "multiplier for popsize, convenience option to increase default popsize", HONOURED),
    "seed": ("time", "random number seed; `None`, `0` and nan equate to `time` (a seed drawn from the OS)", HONOURED),
    "timeout": ("inf", "#v stop if timeout seconds are exceeded", HONOURED),
    "tolconditioncov": ("1e14", "#v stop if the condition of the covariance matrix is above `tolconditioncov`", HONOURED),
    "tolflatfitness": ("1", "#v iterations tolerated with flat fitness before termination", HONOURED),
    "tolfun": ("1e-11", "#v termination criterion: tolerance in function value, quite useful", HONOURED),
    "tolstagnation": ("int(100 + 100 * N**1.5 / popsize)", "#v termination if no improvement over tolstagnation iterations",
                      HONOURED),
    "tolx": ("1e-11", "#v termination criterion: tolerance in x-changes (gradfree: the largest coordinate std)", HONOURED),
    "verb_disp": ("100", "#v verbosity: display console output every verb_disp iteration", HONOURED),
    "verb_time": ("True", "#v output timings on console", HONOURED),
    "verbose": ("3", "#v verbosity e.g. of initial/final message, -1 is very quiet, <=-9 is maximally quiet", HONOURED),
    "verb_append": ("0", "initial evaluation counter, if append, do not overwrite output files (ignored: no files)", IGNORED),
    "verb_disp_overwrite": ("4", "#v max number of shown additional lines before overwriting (ignored: lines are not overwritten)",
                            IGNORED),
    "verb_filenameprefix": ("outcmaes/", "output path (folder) and filenames prefix (ignored: no files)", IGNORED),
    "verb_log": ("1", "#v verbosity: write data to files every verb_log iteration (ignored: no files; es.logger keeps "
                 "its data in memory)", IGNORED),
    "verb_log_expensive": ("N * (N <= 50)", "allow to execute eigendecomposition for logging (ignored: no files)", IGNORED),
    "CMA_active": ("True", "negative update, conducted after the original update (gradfree's CMA-ES is always active)",
                   DEFAULT_ONLY),
    "CMA_diagonal": ("0*100*N/popsize**0.5", "nb of iterations with diagonal covariance matrix (gradfree: 0 only)",
                     DEFAULT_ONLY),
    "CMA_elitist": ("False", "#v elitism (gradfree: False only)", DEFAULT_ONLY),
    "verb_plot": ("0", "#v in fmin2(): plot() is called every verb_plot iteration (gradfree: 0 only)", DEFAULT_ONLY),
}


def _default_value(name: str):
    """pycma's default of a DEFAULT_ONLY option, as a value."""
    return {"CMA_active": True, "CMA_diagonal": 0, "CMA_elitist": False, "verb_plot": 0}[name]


def _refuse_option(name: str, value, why: str):
    raise InvalidParameterError(
        f"option {name!r} = {value!r}: {why}; the options gradfree.es.CMAEvolutionStrategy honours are "
        f"{sorted(k for k, v in _OPTIONS.items() if v[2] == HONOURED)} (pycma's names; "
        f"{sorted(k for k, v in _OPTIONS.items() if v[2] == IGNORED)} are accepted and ignored, "
        f"{sorted(k for k, v in _OPTIONS.items() if v[2] == DEFAULT_ONLY)} accepted at pycma's default only)")


def _check_key(name) -> None:
    if name not in _OPTIONS:
        why = ("pycma's option is not offered by gradfree's CMA-ES" if isinstance(name, str) and name in _pycma_option_names()
               else "not an option of pycma's CMAOptions")
        _refuse_option(name, "...", why)


_PYCMA_NAMES = None


def _pycma_option_names() -> frozenset:
    """pycma's option names when pycma is installed (only to word the refusal), else ours."""
    global _PYCMA_NAMES
    if _PYCMA_NAMES is None:
        try:
            import cma  # noqa: F401  (the comparison package, optional)
            _PYCMA_NAMES = frozenset(cma.CMAOptions.defaults())
        except Exception:
            _PYCMA_NAMES = frozenset(_OPTIONS)
    return _PYCMA_NAMES


class CMAOptions(dict):
    """pycma's ``CMAOptions``: a dict of options by pycma's names (pycma's
    ``cma.options_parameters.CMAOptions``).

    ``CMAOptions()`` gives the options gradfree's ``CMAEvolutionStrategy`` accepts with pycma's
    defaults, as strings ``"value  # description"`` (pycma's form; strings are evaluated with
    ``N`` the dimension and ``popsize`` the population size when the strategy is made).
    ``CMAOptions("tol")`` gives those whose name or description contains ``"tol"`` (case
    disregarded), as pycma's. ``CMAOptions({...})`` or ``CMAOptions(key=value, ...)`` gives the
    options given, checked: a name that is not one of gradfree's options raises
    ``InvalidParameterError`` naming it and listing those it honours.

    How each option is treated (``CMAOptions.handling()``):

    - honoured, with pycma's meaning: ``bounds``, ``BoundaryHandler``, ``ftarget``, ``maxfevals``,
      ``maxiter``, ``popsize``, ``popsize_factor``, ``seed``, ``timeout``, ``tolconditioncov``,
      ``tolflatfitness``, ``tolfun``, ``tolstagnation``, ``tolx``, ``verb_disp``, ``verb_time``,
      ``verbose``;
    - accepted and ignored, since gradfree writes no data files and does not overwrite console
      lines: ``verb_append``, ``verb_disp_overwrite``, ``verb_filenameprefix``, ``verb_log``,
      ``verb_log_expensive``;
    - accepted at pycma's default only (what gradfree's CMA-ES does; other values are refused):
      ``CMA_active`` (True), ``CMA_diagonal`` (0), ``CMA_elitist`` (False), ``verb_plot`` (0);
    - every other pycma option (``CMA_mirrors``, ``transformation``, ``fixed_variables``,
      ``integer_variables``, ``tolfunhist``, ``tolupsigma``, ``CMA_stds``, ...) is refused.

    Parameters
    ----------
    s : str or dict, optional
        A search string, or a dict of options.
    **kwargs
        Options (when ``s`` is ``None``).
    """

    def __init__(self, s=None, **kwargs):
        if s is None and not kwargs:
            super().__init__({k: f"{v[0]}  # {v[1]}" for k, v in _OPTIONS.items()})
        elif isinstance(s, str):
            if kwargs:
                raise InvalidParameterError("CMAOptions: a search string must be the only argument")
            low = s.lower()
            super().__init__({k: v for k, v in CMAOptions().items() if low in k.lower() or low in str(v).lower()})
        elif isinstance(s, dict):
            if kwargs:
                raise InvalidParameterError("CMAOptions: a dictionary argument must be the only argument")
            for k in s:
                _check_key(k)
            super().__init__(s)
        elif s is None:
            for k in kwargs:
                _check_key(k)
            super().__init__(kwargs)
        else:
            raise InvalidParameterError(f"CMAOptions: expected a search string, a dict or keyword arguments, got {s!r}")

    @staticmethod
    def defaults() -> dict:
        """pycma's defaults of the options gradfree accepts, as a plain dict of strings."""
        return dict(CMAOptions())

    @staticmethod
    def handling() -> dict:
        """How gradfree treats each option it accepts: ``"honoured"``, ``"ignored"`` (pycma's
        data files and console layout only) or ``"default only"``."""
        return {k: v[2] for k, v in _OPTIONS.items()}

    def match(self, s: str = "") -> dict:
        """The options whose name or description contains ``s`` (case disregarded), as pycma's."""
        low = s.lower()
        return {k: v for k, v in self.items() if low in k.lower() or low in str(v).lower()}

    def set(self, dic=None, **kwargs):
        """pycma changes some options of a running strategy this way; gradfree's rules are fixed
        when the run is made, so this raises ``InvalidParameterError``."""
        raise InvalidParameterError("CMAOptions.set: gradfree's options cannot be changed once the strategy is made; "
                                    "make a new CMAEvolutionStrategy with the options")


def _evaluate(name: str, value, N: int, popsize: Optional[float]):
    """An option value as pycma reads it: strings are evaluated (after the ``#`` comment is cut)
    with ``N`` and ``popsize`` known, as pycma's ``CMAOptions.eval``."""
    if not isinstance(value, str):
        return value
    text = value.split("#", 1)[0].strip()
    if name in ("verb_filenameprefix", "BoundaryHandler"):
        return text
    if name == "seed" and text in ("time", "None", ""):
        return None
    names = {"N": N, "popsize": popsize, "math": math, "np": np, "numpy": np, "inf": math.inf, "nan": math.nan,
             "True": True, "False": False, "None": None}
    builtins = {"int": int, "float": float, "min": min, "max": max, "abs": abs, "round": round, "len": len}
    try:
        return eval(text, {"__builtins__": builtins}, names)  # pycma evaluates option strings the same way
    except Exception as e:
        raise InvalidParameterError(f"option {name!r} = {value!r}: cannot evaluate it ({e})") from None


def _off_or(name: str, value, kind):
    """A tolerance: ``None``/``False``/0/inf switch the rule off (``False``), else ``kind``."""
    if value is None or value is False or (not isinstance(value, bool) and isinstance(value, (int, float, np.number))
                                           and (value == 0 or math.isinf(value))):
        if isinstance(value, (int, float, np.number)) and not isinstance(value, bool) and value < 0:
            raise InvalidParameterError(f"option {name!r} = {value!r}: expected a number >= 0")
        return False
    return kind(name, value)


def _bounds(value, N: int):
    """pycma's ``bounds = [lower, upper]``: each a scalar, ``None`` or a vector (a shorter vector
    is extended with its last entry, as pycma's ``BoundaryHandler``); ``None`` and +-inf are
    unbounded sides. Returns copies ``(lower, upper)`` of shape (N,), or ``None`` when unbounded."""
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise InvalidParameterError(f"option 'bounds' = {value!r}: expected [lower, upper], each a number, None or a vector")

    def side(b, fill):
        if b is None:
            return np.full(N, fill)
        arr = np.array([fill if v is None else v for v in b] if isinstance(b, (list, tuple)) else b, dtype=np.float64)
        arr = np.atleast_1d(arr).ravel()
        if arr.size == 0 or arr.size > N:
            raise InvalidParameterError(f"option 'bounds': expected scalars or vectors of length at most {N}, got {b!r}")
        if arr.size < N:
            arr = np.concatenate([arr, np.full(N - arr.size, arr[-1])])
        if np.any(np.isnan(arr)):
            raise InvalidParameterError(f"option 'bounds': NaN in {b!r}")
        return arr

    lower, upper = side(value[0], -np.inf), side(value[1], np.inf)
    if np.any(lower >= upper):
        i = int(np.flatnonzero(lower >= upper)[0])
        raise InvalidParameterError(f"option 'bounds': expected lower < upper in every coordinate, got [{lower[i]}, {upper[i]}] "
                                    f"in coordinate {i}")
    if np.all(np.isneginf(lower)) and np.all(np.isposinf(upper)):
        return None
    return lower, upper


def _margin(b: np.ndarray, width: np.ndarray) -> np.ndarray:
    """The width of the quadratic zone at a bound: ``min(width / 2, max(1, |b|) / 20)`` (pycma's
    ``BoundTransform``, the same as gradfree's Rust ``transform``)."""
    with np.errstate(invalid="ignore"):
        m = np.minimum(width / 2.0, np.maximum(1.0, np.abs(b)) / 20.0)
    return np.where(np.isfinite(b), m, 1.0)


def _transform(x: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """pycma's ``BoundTransform`` written out for any bounds, also one-sided or none: the identity
    inside the box away from a margin ``a`` at each bound, quadratic in the margin, and beyond
    the box mirrored (one-sided) or folded with period ``2 (ub - lb + al + au)`` (two-sided), so
    that every point maps into the box (Hansen's ``BoxConstraintsLinQuadTransformation``)."""
    y = np.array(x, dtype=np.float64, copy=True)
    width = upper - lower
    al, au = _margin(lower, width), _margin(upper, width)
    lo_f, up_f = np.isfinite(lower), np.isfinite(upper)
    both = lo_f & up_f
    if np.any(both):
        lo, period = lower[both] - al[both], 2.0 * (width[both] + al[both] + au[both])
        t = np.mod(y[both] - lo, period)
        t = np.where(t > period / 2.0, period - t, t)
        y[both] = lo + t
    only_lo = lo_f & ~up_f
    y[only_lo] = np.where(y[only_lo] < lower[only_lo] - al[only_lo], 2.0 * (lower[only_lo] - al[only_lo]) - y[only_lo], y[only_lo])
    only_up = up_f & ~lo_f
    y[only_up] = np.where(y[only_up] > upper[only_up] + au[only_up], 2.0 * (upper[only_up] + au[only_up]) - y[only_up], y[only_up])
    low = lo_f & (y < lower + al)
    y[low] = lower[low] + (y[low] - (lower[low] - al[low])) ** 2 / (4.0 * al[low])
    high = up_f & (y > upper - au)
    y[high] = upper[high] - (y[high] - (upper[high] + au[high])) ** 2 / (4.0 * au[high])
    return y


class _Blank:
    """An attribute holder (pycma's ``BestSolution.last``)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __repr__(self):
        return f"{type(self).__name__}({self.__dict__})"


class BestSolution:
    """The best solution seen: ``x``, ``f`` and ``evals`` (the evaluation count at which it was
    evaluated), as pycma's ``cma.optimization_tools.BestSolution``; ``evalsall`` is the count at
    the last update, ``last`` the best of the last update.

    Parameters
    ----------
    x : array_like, optional
        A first point.
    f : float, default inf
        Its value.
    evals : int, optional
        The evaluation count at which it was evaluated.
    """

    def __init__(self, x=None, f=math.inf, evals=None):
        self.x = x
        self.x_geno = None
        self.f = math.inf if f is None or (isinstance(f, float) and math.isnan(f)) else f
        self.evals = evals
        self.evalsall = evals
        self.compared = 0
        self.last = _Blank(x=x, f=f)

    def update(self, arx, xarchive=None, arf=None, evals=None):
        """Takes the best of the points ``arx`` with values ``arf`` if it is better, ``evals``
        being the evaluation count after them (so the best's count is ``evals - len(arf) + i +
        1``); or ``update(other_best_solution)``, which keeps the better of the two."""
        if isinstance(arx, BestSolution):
            if self.evalsall is None:
                self.evalsall = arx.evalsall
            elif arx.evalsall is not None:
                self.evalsall = max(self.evalsall, arx.evalsall)
            if arx.f is not None and arx.f < math.inf:
                self.update([arx.x], xarchive, [arx.f], arx.evals)
            self.compared += arx.compared
            return self
        if arf is None:
            raise InvalidParameterError("BestSolution.update: expected the values arf of the points arx")
        values = np.asarray(arf, dtype=np.float64)
        self.compared += len(values)
        if values.size == 0 or np.all(np.isnan(values)):
            return self
        i = int(np.nanargmin(values))
        fi = float(values[i])
        if fi < math.inf and fi < self.f:
            self.x, self.f = arx[i], fi
            self.evals = None if not evals else evals - len(values) + i + 1
            self.evalsall = evals
        elif evals:
            self.evalsall = evals
        self.last.x, self.last.f = arx[i], fi
        return self

    def get(self):
        """``(x, f, evals)``."""
        return self.x, self.f, self.evals


class EvalParallel2:
    """Evaluates a population in parallel processes, as pycma's
    ``cma.optimization_tools.EvalParallel2``: ``with EvalParallel2(f, n) as eval_all: values =
    eval_all(X)``. ``number_of_processes`` ``None`` takes the CPU count; 0 or 1 evaluates in this
    process. ``f`` must be picklable (a module-level function).

    Parameters
    ----------
    fitness_function : callable, optional
        ``fitness_function(x, *args) -> float``.
    number_of_processes : int, optional
        Worker processes (``None``: the CPU count; 0 or 1: none).
    """

    def __init__(self, fitness_function=None, number_of_processes=None):
        self.fitness_function = fitness_function
        n = os.cpu_count() if number_of_processes is None else int(number_of_processes)
        self.processes = n
        self._pool = concurrent.futures.ProcessPoolExecutor(n) if n and n > 1 else None

    def __call__(self, solutions, fitness_function=None, args=(), timeout=None):
        """The values of ``fitness_function(x, *args)`` (default: the one given) for the rows of
        ``solutions``, as a list."""
        f = fitness_function or self.fitness_function
        if f is None:
            raise InvalidParameterError("EvalParallel2: no fitness_function given")
        if self._pool is None:
            return [f(x, *args) for x in solutions]
        return list(self._pool.map(_call, itertools.repeat(f), list(solutions), itertools.repeat(tuple(args)), timeout=timeout))

    def terminate(self):
        """Shuts the processes down."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.terminate()


def _call(f, x, args):
    return f(x, *args)


_LAST_LOGGER = None


class Logger:
    """What pycma's ``CMADataLogger`` records, kept in memory (gradfree writes no data files):
    ``add()`` appends one row per call, ``data`` is the array of rows with the columns
    ``iteration, evaluations, f (best of the iteration), fbest, sigma, axis ratio, max std, min
    std``; ``disp_header()`` and ``disp(idx)`` print rows as pycma's logger does, ``plot()``
    plots them (needs matplotlib)."""

    columns = ("iteration", "evaluations", "f", "fbest", "sigma", "axis_ratio", "maxstd", "minstd")

    def __init__(self, es):
        self._es = weakref.ref(es)
        self.rows = []

    @property
    def data(self) -> np.ndarray:
        """The rows added so far, shape (rows, 8)."""
        return np.array(self.rows, dtype=np.float64).reshape(-1, len(self.columns))

    def register(self, es, append=None):
        """Attaches the logger to ``es`` (pycma's ``register``); returns the logger."""
        self._es = weakref.ref(es)
        return self

    def add(self, es=None, more_data=(), modulo=None):
        """Records the strategy's state of this iteration; returns the logger."""
        global _LAST_LOGGER
        es = es or self._es()
        if es is None or es.countiter == 0:
            return self
        stds = es.stds
        ar = es._axis_ratio()
        self.rows.append((es.countiter, es.countevals, es._last_fmin, es.best.f, es.sigma, ar, float(np.max(stds)),
                          float(np.min(stds))))
        _LAST_LOGGER = weakref.ref(self)
        return self

    def disp_header(self):
        """Prints the column names of ``disp``."""
        print("Iterat Nfevals  function value    axis ratio maxstd  minstd")

    def disp(self, idx=100):
        """Prints rows: every ``idx``-th row if ``idx`` is an int, else the rows indexed by ``idx``."""
        rows = self.rows
        if not rows:
            return
        picks = range(0, len(rows), max(1, idx)) if isinstance(idx, int) else [i % len(rows) for i in idx]
        for i in picks:
            it, ev, f, _, _, ar, mx, mn = rows[i]
            print(f"{int(it):5d} {int(ev):6d} {f:.15e} {ar:4.1e} {mx:8.2e} {mn:8.2e}")

    def plot(self, *args, **kwargs):
        """Plots f, sigma, the axis ratio and the coordinate stds against evaluations (matplotlib)."""
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("gradfree.es.plot needs matplotlib (pip install matplotlib)") from None
        d = self.data
        fig, ax = plt.subplots(1, 2, figsize=(10, 4))
        ax[0].semilogy(d[:, 1], np.abs(d[:, 2]), label="|f|")
        ax[0].semilogy(d[:, 1], np.abs(d[:, 3]), label="|fbest|")
        ax[0].semilogy(d[:, 1], d[:, 4], label="sigma")
        ax[0].semilogy(d[:, 1], d[:, 5], label="axis ratio")
        ax[0].legend()
        ax[1].semilogy(d[:, 1], d[:, 6], label="max std")
        ax[1].semilogy(d[:, 1], d[:, 7], label="min std")
        ax[1].legend()
        ax[0].set_xlabel("evaluations")
        ax[1].set_xlabel("evaluations")
        return fig


def plot(*args, **kwargs):
    """Plots the data of the logger that recorded last (pycma's ``cma.plot()``, which plots the
    last run's data files; gradfree keeps them in memory). Needs matplotlib.

    Parameters
    ----------
    *args, **kwargs
        Passed to ``Logger.plot`` (pycma's plot arguments are accepted and ignored).

    Returns
    -------
    matplotlib.figure.Figure
    """
    lg = _LAST_LOGGER() if _LAST_LOGGER is not None else None
    if lg is None:
        raise InvalidParameterError("plot: no data recorded; call es.logger.add() in the loop (es.optimize does)")
    return lg.plot()


def _weights(lam: int):
    """Positive recombination weights of CMA-ES for ``lam`` points (Hansen 2016, eq. 49)."""
    mu = lam // 2
    w = math.log((lam + 1) / 2.0) - np.log(np.arange(1, mu + 1))
    return w / w.sum()


class CMAEvolutionStrategy(CMAES):
    """CMA-ES with pycma's interface (``cma.CMAEvolutionStrategy``): ``es =
    CMAEvolutionStrategy(x0, sigma0, inopts)``, then ``while not es.stop(): X = es.ask();
    es.tell(X, [f(x) for x in X]); es.disp()``, or ``es.optimize(f)``; ``es.result`` and
    ``es.result_pretty()``.

    The optimizer is gradfree's CMA-ES (``gradfree.es.CMAES``); the options, stop names, printed
    lines and attributes are pycma's.

    Parameters
    ----------
    x0 : array_like, shape (N,)
        Initial mean (a callable is called once to give it).
    sigma0 : float
        Initial step size, > 0.
    inopts : dict, optional
        Options by pycma's names (see ``CMAOptions``; ``CMAOptions.handling()`` says how each is
        treated): ``{'bounds': [0, None], 'maxfevals': 1e4, 'ftarget': 1e-8, 'popsize': 20,
        'seed': 3, 'verb_disp': 0, ...}``. An option gradfree cannot honour raises
        ``InvalidParameterError`` naming it. The dict is not changed.

    Notes
    -----
    - ``ask(number)`` hands out points of the current iteration's population (sampled whole by
      the Rust CMA-ES): ``ask()`` the whole population (the same points again until ``tell``),
      ``ask(k)`` the next ``k`` points not yet handed out. Asking more than ``popsize`` points in
      one iteration (pycma's resampling of rejected solutions) is refused: tell their values, or
      ``inf``, instead.
    - ``tell(solutions, values)`` takes the ``popsize`` points of the iteration in any order
      (lists of arrays as pycma's); points ``ask`` did not return (pycma's injected solutions)
      are refused.
    - ``stop()`` answers in pycma's names: ``tolfun``, ``tolx``, ``maxfevals``, ``maxiter``,
      ``ftarget``, ``tolflatfitness``, ``tolstagnation``, ``tolconditioncov``, ``timeout``; and
      gradfree's ``diverged`` (values blew up), ``numerical_failure`` and, with restarts,
      ``restarts_settled``, which pycma does not have.
    - ``sigma`` is the largest coordinate standard deviation (gradfree's step length), not
      pycma's global step-size factor; ``stds`` are the coordinate standard deviations
      ``sigma * sqrt(diag(C))`` in pycma's sense.
    - Bounds with an unbounded side (``[0, None]``, ``[0, np.inf]``) are mapped in Python with
      pycma's ``BoundTransform``; finite boxes by the Rust run (which also caps the coordinate
      stds at a third of the box, pycma's ``maxstd_boundrange``).
    """

    def __init__(self, x0, sigma0, inopts=None, *, _run_kwargs=None):
        if callable(x0):
            x0 = x0()
        self.inputargs = dict(x0=x0, sigma0=sigma0, inopts=inopts)
        self.inopts = inopts
        if isinstance(x0, str):
            raise InvalidParameterError("x0: expected an array of numbers (pycma's string x0 is not evaluated by gradfree)")
        x0 = np.array(x0, dtype=np.float64, copy=True).ravel()
        if x0.size == 0 or not np.all(np.isfinite(x0)):
            raise InvalidParameterError(f"x0: expected a non-empty vector of finite numbers, got {x0!r}")
        sigma0 = _util.positive("sigma0", sigma0)
        if inopts is not None and not isinstance(inopts, dict):
            raise InvalidParameterError(f"inopts: expected a dict of pycma's options, got {inopts!r}")
        given = CMAOptions(dict(inopts or {}))
        N = int(x0.size)
        raw = {k: v[0] for k, v in _OPTIONS.items()}
        raw.update(given)
        opts = CMAOptions.__new__(CMAOptions)
        pop = _evaluate("popsize", raw["popsize"], N, None)
        factor = _util.positive("popsize_factor", _evaluate("popsize_factor", raw["popsize_factor"], N, None))
        if isinstance(pop, bool) or not isinstance(pop, (int, float, np.number)) or not math.isfinite(pop):
            raise InvalidParameterError(f"option 'popsize' = {raw['popsize']!r}: expected an integer >= 2")
        popsize = int(pop * factor)
        if popsize < 2:
            raise InvalidParameterError(f"option 'popsize' = {raw['popsize']!r} (times popsize_factor {factor}): expected >= 2")
        for k, v in raw.items():
            dict.__setitem__(opts, k, _evaluate(k, v, N, popsize))
        dict.__setitem__(opts, "popsize", popsize)
        for k in (k for k, v in _OPTIONS.items() if v[2] == DEFAULT_ONLY):
            v = opts[k]
            if not (v == _default_value(k) and type(v) in (bool, int, float, np.bool_) or v is _default_value(k)):
                _refuse_option(k, inopts.get(k, v) if inopts else v, "gradfree's CMA-ES only does what pycma's default does")
        if opts["verbose"] is None:
            dict.__setitem__(opts, "verbose", 3)
        if opts["verbose"] < -8:
            dict.__setitem__(opts, "verb_disp", 0)
        verb_disp = opts["verb_disp"]
        if verb_disp is None or verb_disp is False:
            verb_disp = 0
        dict.__setitem__(opts, "verb_disp", _util.count("verb_disp", verb_disp, 0))

        seed = opts["seed"]
        if seed is None or (isinstance(seed, float) and math.isnan(seed)) or (not isinstance(seed, bool) and seed == 0):
            seed = None
        elif isinstance(seed, float) and seed.is_integer():
            seed = int(seed)
        maxfevals = opts["maxfevals"]
        if maxfevals is None or (isinstance(maxfevals, (int, float)) and math.isinf(maxfevals) and maxfevals > 0):
            max_evals = _MAXFEVALS_INF
        else:
            max_evals = _util.count("maxfevals", maxfevals, 1)
        maxiter = opts["maxiter"]
        max_gens = None if maxiter is None or (isinstance(maxiter, float) and math.isinf(maxiter)) else _util.count(
            "maxiter", int(maxiter) if isinstance(maxiter, float) and maxiter >= 1 else maxiter, 1)
        ftarget = opts["ftarget"]
        target = None if ftarget is None or (isinstance(ftarget, (int, float)) and ftarget == -math.inf) else _util.number(
            "ftarget", ftarget)
        timeout = opts["timeout"]
        max_seconds = None if timeout is None or (isinstance(timeout, (int, float)) and timeout == math.inf) else _util.positive(
            "timeout", timeout)
        tolflat = opts["tolflatfitness"]
        tolstag = opts["tolstagnation"]
        rules = dict(
            tol_fun=_off_or("tolfun", opts["tolfun"], _util.positive),
            tol_x=_off_or("tolx", opts["tolx"], _util.positive),
            tol_condition=_off_or("tolconditioncov", opts["tolconditioncov"], _util.positive),
            tol_flat=False if tolflat is None or tolflat is False or (isinstance(tolflat, float) and math.isinf(tolflat))
            else _util.count("tolflatfitness", int(tolflat) if isinstance(tolflat, float) else tolflat, 0),
            tol_stagnation=False if tolstag is None or tolstag is False or (isinstance(tolstag, float) and math.isinf(tolstag))
            else _util.count("tolstagnation", int(tolstag) if isinstance(tolstag, float) else tolstag, 1),
        )
        if (_run_kwargs or {}).get("restarts"):
            # Each restart judges its own convergence (the Rust restart wrapper's rules); these
            # options would end the whole run instead, so with restarts they are not taken.
            per_run = ("tolfun", "tolx", "tolflatfitness", "tolstagnation", "tolconditioncov", "maxiter")
            for k in per_run:
                if k in given:
                    _refuse_option(k, given[k], "with fmin2's restarts gradfree's restart wrapper judges the end of each "
                                   "run itself and this option would end all runs; leave it out or use restarts=0")
            rules = {k: None for k in rules}
            max_gens = None
            if "maxfevals" not in given:
                max_evals = None  # gradfree's budget (10000 N): the last run has no convergence rule to end it
        handler = opts["BoundaryHandler"]
        hname = getattr(handler, "__name__", handler)
        if hname not in ("BoundTransform", "BoundPenalty", None, "None"):
            _refuse_option("BoundaryHandler", handler, "expected 'BoundTransform' or 'BoundPenalty'")
        dict.__setitem__(opts, "BoundaryHandler", "BoundPenalty" if hname == "BoundPenalty" else "BoundTransform")
        box = _bounds(opts["bounds"], N)
        dict.__setitem__(opts, "bounds", None if box is None else [box[0].copy(), box[1].copy()])
        self._tf = None
        rust_box = None
        if box is not None:
            if np.all(np.isfinite(box[0])) and np.all(np.isfinite(box[1])):
                rust_box = (box[0], box[1])
            elif hname == "BoundPenalty":
                _refuse_option("BoundaryHandler", handler, "BoundPenalty needs finite lower and upper bounds in gradfree; use "
                               "BoundTransform (the default) for unbounded sides")
            else:
                self._tf = (box[0], box[1])
        self.opts = opts
        self.N = N
        self.sigma0 = sigma0
        self.x0 = x0.copy()
        self.best = BestSolution()
        self._pending = None
        self._given = 0
        self._extra_evals = 0
        self._last_fmin = math.nan
        self._start = time.time()
        self._logger = None
        self._disp_count = 0
        kw = dict(seed=seed, popsize=popsize, max_evals=max_evals, max_gens=max_gens, target=target, max_seconds=max_seconds,
                  bounds=rust_box, bounds_handling="penalty" if hname == "BoundPenalty" else "transform", **rules)
        kw.update(_run_kwargs or {})
        super().__init__(x0, sigma0, **kw)
        self._pycma_names = True
        dict.__setitem__(opts, "seed", self.seed)
        if opts["verb_disp"] > 0 and opts["verbose"] >= 0:
            w = _weights(popsize)
            print(f"({len(w)}_w,{popsize})-aCMA-ES (mu_w={1.0 / float(np.sum(w * w)):2.1f},w_1={int(100 * w[0])}%) "
                  f"in dimension {N} (seed={self.seed}, {time.asctime()})")

    # --- pycma's attributes ---------------------------------------------------------------

    @property
    def countevals(self) -> int:
        """Evaluations told so far (with the initial point's if ``fmin2(eval_initial_x=True)``)."""
        return self._run.evaluations + self._extra_evals

    @property
    def countiter(self) -> int:
        """Iterations told so far."""
        return self._run.generations

    evaluations = countevals
    iterations = countiter

    @property
    def logger(self) -> Logger:
        """The in-memory data logger (pycma's ``es.logger``; no files are written)."""
        if self._logger is None:
            self._logger = Logger(self)
        return self._logger

    @property
    def fbest(self) -> float:
        """Best value told so far (``inf`` before the first)."""
        return self.best.f

    @property
    def xbest(self):
        """Best point told so far, as told (inside ``bounds``); ``None`` before the first."""
        return self.best.x

    @property
    def evals_best(self):
        """The evaluation count at which ``xbest`` was evaluated (pycma's ``evals_best``)."""
        return self.best.evals

    def _pheno(self, x: np.ndarray) -> np.ndarray:
        """``x`` mapped into the bounds (pycma's ``gp.pheno`` with its boundary repair)."""
        if self._tf is not None:
            return _transform(x, *self._tf)
        box = self.opts["bounds"]
        if box is None:
            return np.array(x, dtype=np.float64)
        if self.opts["BoundaryHandler"] == "BoundPenalty":
            return np.clip(x, box[0], box[1])
        return _transform(x, box[0], box[1])

    @property
    def xfavorite(self) -> np.ndarray:
        """The distribution mean mapped into the bounds (pycma's ``xfavorite``)."""
        return self._pheno(self.mean)

    def _axis_ratio(self) -> float:
        c = self._run.condition
        return math.nan if c is None else math.sqrt(c)

    @property
    def result(self) -> Result:
        """pycma's ``result``: ``(xbest, fbest, evals_best, evaluations, iterations, xfavorite,
        stds, stop)`` (see ``gradfree.es.Result``)."""
        return Result(self.best.x, self.best.f, self.best.evals, self.countevals, self.countiter, self.xfavorite, self.stds,
                      self.stop())

    # --- the loop -------------------------------------------------------------------------

    def ask(self, number=None, xmean=None, sigma_fac=1, gradf=None, args=(), **kwargs):
        """Points to evaluate, as a list of arrays (pycma's ``ask``).

        Parameters
        ----------
        number : int, optional
            ``None``: the whole population of this iteration (the same points until ``tell``);
            ``k``: the next ``k`` points of it not yet handed out (at most ``popsize`` in all per
            iteration: gradfree's CMA-ES samples whole populations).
        xmean, sigma_fac, gradf, args
            pycma's; only the defaults (``None``, ``1``, ``None``, ``()``) are accepted.
        """
        if xmean is not None:
            raise InvalidParameterError("ask: xmean is not offered (gradfree's CMA-ES samples around its own mean); pass None")
        if sigma_fac != 1:
            raise InvalidParameterError(f"ask: sigma_fac = {sigma_fac!r} is not offered; pass 1")
        if gradf is not None:
            raise InvalidParameterError("ask: gradf is not offered (gradfree is gradient-free); pass None")
        if kwargs:
            raise InvalidParameterError(f"ask: unknown arguments {sorted(kwargs)}")
        if self._pending is None:
            raw = self._run.ask()
            out = raw if self._tf is None else np.array([_transform(x, *self._tf) for x in raw])
            self._pending, self._given = (raw, out), 0
        out = self._pending[1]
        n = out.shape[0]
        if number is None:
            self._given = n
            return [row.copy() for row in out]
        k = _util.count("number", number, 1)
        if self._given + k > n:
            raise InvalidParameterError(
                f"ask(number={k}): only {n - self._given} of this iteration's popsize = {n} points are left; gradfree's "
                "CMA-ES samples whole populations, so resampling rejected points (asking more than popsize per iteration) "
                "is not offered: tell every point's value (inf for a rejected one) instead")
        rows = out[self._given:self._given + k]
        self._given += k
        return [row.copy() for row in rows]

    def tell(self, solutions, function_values, check_points=None, copy=False):
        """Reports the values of this iteration's ``popsize`` points (pycma's ``tell``).

        Parameters
        ----------
        solutions : list of arrays or array, shape (popsize, N)
            The points ``ask`` returned in this iteration, in any order.
        function_values : list of float
            Their values, in the same order.
        check_points, copy
            pycma's; ``check_points`` must be ``None`` or ``False``, ``copy`` has no effect (the
            points are copied anyway).

        Returns
        -------
        self
        """
        if check_points not in (None, False):
            raise InvalidParameterError("tell: check_points is not offered (only points ask returned are accepted); pass None")
        if self._pending is None:
            raise InvalidParameterError("tell: no population is pending; call ask() first")
        raw, out = self._pending
        n, d = out.shape
        try:
            S = np.array([np.asarray(x, dtype=np.float64).ravel() for x in solutions], dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise InvalidParameterError(f"solutions: expected {n} points of dimension {d}: {e}") from None
        values = _util.reals("function_values", function_values)
        if S.ndim != 2 or S.shape != (n, d):
            raise InvalidParameterError(
                f"solutions: expected the {n} points (popsize) of dimension {d} of this iteration, got shape {S.shape}; "
                "gradfree's CMA-ES updates from whole populations")
        if values.shape[0] != n:
            raise InvalidParameterError(f"function_values: expected {n} values, got {values.shape[0]}")
        if np.array_equal(S, out):
            perm = np.arange(n)
        else:
            where = {}
            for i, row in enumerate(out):
                where.setdefault(row.tobytes(), []).append(i)
            perm = np.empty(n, dtype=np.int64)
            for i, row in enumerate(S):
                slot = where.get(row.tobytes())
                if not slot:
                    raise InvalidParameterError(
                        f"solutions[{i}] is not one of the points ask() returned in this iteration (or is told twice); "
                        "gradfree's CMA-ES updates from its own samples (pycma's injected solutions are not offered)")
                perm[i] = slot.pop(0)
        ordered = np.empty(n)
        ordered[perm] = values
        _ES.tell(self, raw, ordered)
        self._pending, self._given = None, 0
        self.best.update([row.copy() for row in S], arf=values, evals=self.countevals)
        finite = values[np.isfinite(values)]
        self._last_fmin = float(finite.min()) if finite.size else math.nan
        return self

    def stop(self, check=True, ignore_list=(), check_in_same_iteration=False, get_value=None):
        """The termination conditions met, as ``{name: value}`` in pycma's names (empty: go on);
        ``ignore_list`` leaves names out, ``get_value`` returns the value of one name."""
        s = super().stop() if check else {}
        s = {k: v for k, v in s.items() if k not in ignore_list}
        if get_value is not None:
            return s.get(get_value)
        return s

    def optimize(self, objective_fct, maxfun=None, iterations=None, min_iterations=1, args=(), verb_disp=None,
                 callback=None, n_jobs=0, executor=None, **kwargs):
        """Runs ask/tell until ``stop()`` (pycma's ``OOOptimizer.optimize``); returns ``self``.

        Parameters
        ----------
        objective_fct : callable
            ``objective_fct(x, *args) -> float``.
        maxfun : int, optional
            Most evaluations in this call.
        iterations : int, optional
            Most iterations in this call.
        min_iterations : int, default 1
            Fewest iterations in this call, unless a stop rule has fired (gradfree's run proposes
            nothing once stopped).
        args : tuple
            Extra arguments of ``objective_fct``.
        verb_disp : int, optional
            Print a line every this many iterations (``None``: the option ``verb_disp``); at the
            end ``result_pretty()`` prints the result if the option ``verb_disp`` is positive.
        callback : callable or list of callables, optional
            Called as ``callback(self)`` after each iteration (and ``self.logger.add``, as pycma).
        n_jobs : int, default 0
            Processes to evaluate in (``-1`` or ``None``: the CPU count; 0 or 1: this process).
        executor : concurrent.futures.Executor, optional
            gradfree's alternative to ``n_jobs``: each population is evaluated through
            ``executor.map``.
        """
        if kwargs:
            _warnings.warn(f"ignoring unknown arguments {sorted(kwargs)} in optimize (as pycma)")
        if iterations is not None and min_iterations > iterations:
            iterations = min_iterations
        callbacks = _callbacks(callback) + [self.logger.add]
        executor = _util.executor(executor)
        pool = None
        if executor is None and n_jobs not in (0, 1):
            pool = EvalParallel2(objective_fct, None if n_jobs in (-1, None) else n_jobs)
        citer = cevals = 0
        try:
            while not self.stop():
                if (maxfun and cevals >= maxfun) or (iterations and citer >= iterations):
                    break
                citer += 1
                X = self.ask()
                if executor is not None:
                    values = list(executor.map(lambda x: objective_fct(x, *args), X))
                elif pool is not None:
                    values = pool(X, args=args)
                else:
                    values = [objective_fct(x, *args) for x in X]
                cevals += len(values)
                self.tell(X, values)
                for cb in callbacks:
                    cb(self)
                self.disp(verb_disp)
        finally:
            if pool is not None:
                pool.terminate()
        if (verb_disp is None or verb_disp > 0) and self.opts["verb_disp"] > 0:
            self.result_pretty()
        return self

    # --- printing -------------------------------------------------------------------------

    def disp_annotation(self):
        """Prints the column names of ``disp`` (pycma's)."""
        print("Iterat #Fevals   function value  axis ratio  sigma  min&max std  t[m:s]")

    def disp(self, modulo=None, overwrite=None):
        """Prints one line of the state (pycma's ``disp``): at iterations 1, 2, 3, every
        ``modulo`` (default the option ``verb_disp``; 0 prints nothing) and when a stop rule has
        fired, with the column names every ``10 * modulo`` iterations. Returns ``self``."""
        if modulo is None:
            modulo = self.opts["verb_disp"]
        if not modulo:
            return self
        modulo = int(modulo)
        it = self.countiter
        if (it - 1) % (10 * modulo) < 1:
            self.disp_annotation()
        if it > 0 and (self.stop() or it < 4 or it % modulo < 1):
            stds = self.stds
            toc = time.time() - self._start
            stime = (str(int(toc // 60)) + ":" + ("%2.1f" % (toc % 60)).rjust(4, "0")) if self.opts["verb_time"] else ""
            print(" ".join((repr(it).rjust(5), repr(self.countevals).rjust(6), "%.15e" % self._last_fmin,
                            "%4.1e" % self._axis_ratio(), "%6.2e" % self.sigma, "%6.0e" % float(np.min(stds)),
                            "%6.0e" % float(np.max(stds)), stime)))
            sys.stdout.flush()
        return self

    def result_pretty(self, number_of_restarts=0, time_str=None, fbestever=None):
        """Prints the result as pycma's ``result_pretty`` and returns ``result``."""
        if fbestever is None:
            fbestever = self.best.f
        print("termination on {0}{1}{2}".format(
            self.stop(), f" ({time_str})" if time_str else "",
            " after {0} restart{1}".format(number_of_restarts, "s" if number_of_restarts > 1 else "")
            if number_of_restarts > 0 else ""))
        print("final/bestever f-value = %e %e after %d/%s evaluations" % (self.best.last.f, fbestever, self.countevals,
                                                                          self.best.evals))
        fav, stds = self.xfavorite, self.stds
        if self.N < 9:
            print("incumbent solution: " + " ".join(str(fav).split()).replace(" ", ", ").replace("[,", "["))
            print("std deviations: " + " ".join(str(stds).split()).replace(" ", ", ").replace("[,", "["))
        else:
            print("incumbent solution: %s ...]" % (str(fav[:8])[:-1]))
            print("std deviations: %s ...]" % (str(stds[:8])[:-1]))
        return self.result

    def pickle_dumps(self) -> bytes:
        """``pickle.dumps(self)`` (pycma's ``pickle_dumps``)."""
        return pickle.dumps(self)

    def __getstate__(self):
        state = super().__getstate__()
        state["_logger"] = None if self._logger is None else self._logger.rows
        return state

    def __setstate__(self, state):
        rows = state.get("_logger")
        super().__setstate__(state)
        self._logger = None
        if rows is not None:
            self.logger.rows = list(rows)


def _callbacks(callback) -> list:
    """pycma's callback argument: ``None``, a callable or a list of callables."""
    if callback is None:
        return []
    if callable(callback):
        return [callback]
    try:
        cbs = list(callback)
    except TypeError:
        raise InvalidParameterError(f"callback: expected a callable or a list of callables, got {callback!r}") from None
    for c in cbs:
        if not callable(c):
            raise InvalidParameterError(f"callback: {c!r} is not callable")
    return cbs


def fmin2(objective_function, x0, sigma0, options=None, args=(), gradf=None, restarts=0, restart_from_best=False,
          incpopsize=2, eval_initial_x=False, parallel_objective=None, noise_handler=None, noise_change_sigma_exponent=1,
          noise_kappa_exponent=0, bipop=False, callback=None, init_callback=None, constraints=None):
    """Minimizes ``objective_function`` with CMA-ES and returns ``(xbest, es)``, as pycma's
    ``cma.fmin2`` (``es`` a ``CMAEvolutionStrategy``; see ``es.result`` and
    ``es.result_pretty()``).

    Parameters
    ----------
    objective_function : callable or None
        ``objective_function(x, *args) -> float``; may be ``None`` with ``parallel_objective``.
    x0 : array_like, callable or CMAEvolutionStrategy
        Start point; a callable is called once for it; a ``CMAEvolutionStrategy`` is continued
        (then ``sigma0`` and ``options`` must be ``None``).
    sigma0 : float
        Initial step size.
    options : dict, optional
        pycma's options (``CMAOptions``), e.g. ``{'ftarget': 1e-8, 'maxfevals': 1e4}``.
    args : tuple
        Extra arguments of the objective.
    restarts : int or dict, default 0
        Most IPOP restarts (population doubled each time), run by gradfree's Rust restart wrapper
        until the budget, the target or another stop rule ends the run; pycma's dict form
        ``{'maxrestarts': k}`` too. Each restart starts from ``x0`` (from a uniform draw in
        ``bounds`` when the options give finite bounds), not from a new call of a callable ``x0``.
        Each run's end is judged by the restart wrapper's own convergence rules, so the options
        ``tolfun``, ``tolx``, ``tolflatfitness``, ``tolstagnation``, ``tolconditioncov`` and
        ``maxiter`` (which would end all runs) are refused with restarts; the last run has no
        convergence rule, so the run ends on ``maxfevals`` (default with restarts: gradfree's
        ``10000 * N``), ``ftarget`` or ``timeout``.
    incpopsize : 2
        The population factor of a restart; gradfree's restarts double it, so only 2 is accepted.
    eval_initial_x : bool, default False
        Evaluate ``x0`` first (counted in ``countevals``, a candidate for ``xbest``).
    parallel_objective : callable, optional
        ``parallel_objective(X, *args) -> list`` evaluates a whole population, used instead of
        ``objective_function``.
    bipop : bool, default False
        BIPOP restarts (Hansen 2009) instead of IPOP.
    callback : callable or list of callables, optional
        Called as ``callback(es)`` after each iteration.
    init_callback : callable or list of callables, optional
        Called as ``init_callback(es)`` once the strategy is made.
    gradf, restart_from_best, noise_handler, noise_change_sigma_exponent, noise_kappa_exponent, constraints
        pycma's; not offered by gradfree, so only their defaults are accepted (see Raises).

    Returns
    -------
    xbest : numpy.ndarray
        The best point evaluated.
    es : CMAEvolutionStrategy
        The strategy, stopped.

    Raises
    ------
    InvalidParameterError
        For an argument gradfree cannot honour, named with what to use instead: ``gradf`` (gradfree
        is gradient-free), ``restart_from_best=True``, ``incpopsize`` other than 2,
        ``noise_handler`` (and the noise exponents), ``constraints``; and for refused options.
    """
    if gradf is not None:
        raise InvalidParameterError("gradf: gradients are not used by gradfree's gradient-free CMA-ES; pass gradf=None")
    if restart_from_best:
        raise InvalidParameterError("restart_from_best=True is not offered: gradfree's restarts start from x0 (or from "
                                    "uniform draws in finite bounds); pass restart_from_best=False")
    if isinstance(incpopsize, bool) or not isinstance(incpopsize, (int, float, np.number)) or incpopsize != 2:
        raise InvalidParameterError(f"incpopsize = {incpopsize!r}: gradfree's IPOP/BIPOP restarts double the population, "
                                    "so only incpopsize=2 is accepted")
    if noise_handler is not None and noise_handler is not False:
        raise InvalidParameterError("noise_handler is not offered by gradfree (no uncertainty handling); pass None, and "
                                    "average repeated evaluations in the objective instead")
    if noise_change_sigma_exponent != 1 or noise_kappa_exponent != 0:
        raise InvalidParameterError("noise_change_sigma_exponent and noise_kappa_exponent only act with a noise_handler, "
                                    "which gradfree does not offer; leave them at 1 and 0")
    if constraints is not None:
        raise InvalidParameterError("constraints are not offered by gradfree's CMA-ES; pass None, and use the option "
                                    "'bounds' or a penalty in the objective")
    if objective_function is None and parallel_objective is None:
        raise InvalidParameterError("objective_function: expected a callable (or pass parallel_objective)")
    for name, f in (("objective_function", objective_function), ("parallel_objective", parallel_objective)):
        if f is not None and not callable(f):
            raise InvalidParameterError(f"{name}: expected a callable, got {f!r}")
    max_restarts = restarts
    if isinstance(restarts, dict):
        unknown = set(restarts) - {"maxrestarts", "maxfevals"}
        if unknown:
            raise InvalidParameterError(f"restarts: unknown keys {sorted(unknown)}; expected 'maxrestarts'")
        if restarts.get("maxfevals", math.inf) != math.inf:
            raise InvalidParameterError("restarts['maxfevals'] is not offered; use the option 'maxfevals' (the whole "
                                        "budget of all restarts)")
        max_restarts = restarts.get("maxrestarts", 9) if restarts else 0
    max_restarts = _util.count("restarts", max_restarts, 0)
    if not isinstance(bipop, (bool, np.bool_)) and bipop not in (0, 1):
        raise InvalidParameterError(f"bipop = {bipop!r}: expected True or False (gradfree's BIPOP budget ratio is 1)")
    init_cbs, cbs = _callbacks(init_callback), _callbacks(callback)
    if isinstance(x0, CMAEvolutionStrategy):
        if options is not None or max_restarts:
            raise InvalidParameterError("x0 is a CMAEvolutionStrategy: options and restarts cannot change it; pass "
                                        "options=None, restarts=0")
        es = x0
    else:
        if callable(x0):
            x0 = x0()
        run_kwargs = {}
        if max_restarts > 0:
            run_kwargs = dict(restarts=max_restarts, bipop=bool(bipop))
            box = _bounds(CMAOptions(dict(options or {})).get("bounds"), int(np.asarray(x0).size))
            if box is not None and np.all(np.isfinite(box[0])) and np.all(np.isfinite(box[1])):
                run_kwargs["restart_bounds"] = (box[0], box[1])
        es = CMAEvolutionStrategy(x0, sigma0, options, _run_kwargs=run_kwargs)
    for cb in init_cbs:
        cb(es)

    def evaluate(X):
        if parallel_objective is not None:
            return list(parallel_objective(X, *args))
        return [objective_function(x, *args) for x in X]

    if eval_initial_x and es.countiter == 0:
        x = es._pheno(es.x0)
        f0 = evaluate([x])[0]
        es._extra_evals += 1
        es.best.update([x], arf=[_util.real("f(x0)", f0)], evals=es.countevals)
    while not es.stop():
        X = es.ask()
        es.tell(X, evaluate(X))
        for cb in cbs:
            cb(es)
        es.disp()
    if es.opts["verb_disp"] > 0:
        es.result_pretty(number_of_restarts=es.restarts_done)
    return es.result.xbest, es


def _vequals_approximately(a, b, eps=1e-12) -> bool:
    """Whether ``a`` and ``b`` agree to ``eps``, absolutely or relatively, in every entry."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    diff = np.abs(a - b)
    return bool(np.all(diff < eps) or np.all(diff < eps * np.abs(a)))


#: pycma's ``cma.s``: the two helpers its examples use (``pprint``, ``Mh.vequals_approximately``).
s = types.SimpleNamespace(pprint=_pprint.pprint, Mh=types.SimpleNamespace(vequals_approximately=_vequals_approximately))


class NeverTestedWarning(UserWarning):
    """pycma's warning category for untested code paths (never raised by gradfree)."""


#: pycma's ``cma.optimization_tools``: ``BestSolution`` and ``EvalParallel2``.
optimization_tools = types.ModuleType("gradfree.es.optimization_tools",
                                      "pycma's optimization_tools helpers: BestSolution, EvalParallel2.")
optimization_tools.BestSolution = BestSolution
optimization_tools.EvalParallel2 = EvalParallel2
#: pycma's ``cma.warnings_and_exceptions`` (its warning category).
warnings_and_exceptions = types.SimpleNamespace(NeverTestedWarning=NeverTestedWarning)

# ``from gradfree.es.fitness_functions import elli`` works as ``from cma.fitness_functions import
# elli`` does (the way ``os.path`` is importable from the module ``os``).
sys.modules.setdefault("gradfree.es.ff", ff)
sys.modules.setdefault("gradfree.es.fitness_functions", ff)
sys.modules.setdefault("gradfree.es.optimization_tools", optimization_tools)

__all__ = ["CMAEvolutionStrategy", "CMAOptions", "fmin2", "ff", "s", "optimization_tools", "plot", "BestSolution",
           "EvalParallel2", "Logger"]
