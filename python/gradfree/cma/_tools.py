"""The tools of pycma's interface (:mod:`gradfree.cma`): ``BestSolution`` and ``EvalParallel2``
(pycma's ``cma.optimization_tools``), the in-memory data ``Logger`` and ``plot``, pycma's ``cma.s``
helpers and ``cma.warnings_and_exceptions``, and the registration of ``gradfree.es.ff``,
``gradfree.es.fitness_functions`` and ``gradfree.es.optimization_tools`` in ``sys.modules``.
"""
from __future__ import annotations

import concurrent.futures
import itertools
import math
import os
import pprint as _pprint
import sys
import types
import weakref

import numpy as np

from ..errors import InvalidParameterError
from . import _ff as ff


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
