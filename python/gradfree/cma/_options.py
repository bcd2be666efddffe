"""The options part of pycma's interface (:mod:`gradfree.cma`): the table of pycma's options
gradfree accepts (``_OPTIONS``, each ``HONOURED``, ``IGNORED`` or ``DEFAULT_ONLY``), ``CMAOptions``,
and the helpers that read option values (``_evaluate``, ``_off_or``, ``_bounds``) and map points
into bounds with pycma's ``BoundTransform`` (``_transform``, the Rust core's).
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from .. import _gradfree
from ..errors import InvalidParameterError

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
        why = "not offered by gradfree's CMA-ES (a pycma option gradfree does not implement, or a misspelling)"
        _refuse_option(name, "...", why)


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
    if (isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or isinstance(value, np.ndarray) and value.ndim == 0
            or len(value) != 2):
        raise InvalidParameterError(f"option 'bounds' = {value!r}: expected [lower, upper], each a number, None or a vector")

    def side(b, fill):
        if b is None:
            return np.full(N, fill)
        try:
            arr = np.array([fill if v is None else v for v in b] if isinstance(b, (list, tuple)) else b, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise InvalidParameterError(f"option 'bounds': expected numbers, None or vectors of numbers, got {b!r} ({e})") from None
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


def _transform(x, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """The point ``x`` mapped into the bounds by pycma's ``BoundTransform``, one-sided and open sides
    included (Hansen's ``BoxConstraintsLinQuadTransformation``; the Rust core's
    ``transform_coordinate``)."""
    return _gradfree.bound_transform(np.asarray(x, dtype=np.float64).reshape(1, -1), lower, upper)[0]
