"""The keyword checks of the evolution strategies' classes (:mod:`gradfree.es`): pycma's option
names, the tolerance and budget keywords, boundary handlers and algorithm parameters."""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from . import _util
from .errors import InvalidParameterError

#: pycma's option names accepted in ``options`` (as well as every keyword of the classes).
PYCMA_OPTIONS = {
    "maxfevals": "max_evals", "maxiter": "max_gens", "ftarget": "target", "tolfun": "tol_fun",
    "tolfunhist_window": "tol_fun_window", "tolx": "tol_x", "tolflatfitness": "tol_flat",
    "tolstagnation": "tol_stagnation", "tolconditioncov": "tol_condition", "timeout": "max_seconds",
    "BoundaryHandler": "bounds_handling", "seed": "seed", "popsize": "popsize", "bounds": "bounds",
}

#: Our stop-rule names and pycma's (``stop()`` answers in pycma's names when the options were
#: given in pycma's names, and for ``CMAEvolutionStrategy`` and ``fmin2``); rules pycma does not
#: have (``diverged``, ``numerical_failure``, ``restarts_settled``) keep their names.
PYCMA_STOP_NAMES = {"max_evals": "maxfevals", "max_gens": "maxiter", "target": "ftarget", "tol_fun": "tolfun",
                    "tol_x": "tolx", "tol_flat": "tolflatfitness", "tol_stagnation": "tolstagnation",
                    "tol_condition": "tolconditioncov", "max_seconds": "timeout"}

_OFF = object()

#: The evaluation budget standing for pycma's ``maxfevals=inf`` (no budget).
_MAXFEVALS_INF = 1 << 62


def _tol(name: str, value, kind):
    """A tolerance keyword: ``None`` (the default), ``False`` (off) or a value."""
    if value is None:
        return None
    if value is False:
        return _OFF
    return kind(name, value)


def _pycma_unbounded(name: str, value):
    """pycma's "no limit" values of its budget options (``maxfevals=inf``, ``timeout=inf``,
    ``ftarget=-inf``) as ours."""
    if isinstance(value, (int, float, np.floating)) and not isinstance(value, bool) and math.isinf(value):
        if name == "max_evals" and value > 0:
            return _MAXFEVALS_INF
        if (name == "max_seconds" and value > 0) or (name == "target" and value < 0):
            return None
    return value


#: pycma's boundary handlers, by class name, and ours.
_BOUNDS_HANDLING = {"BoundTransform": "transform", "BoundPenalty": "penalty", "transform": "transform", "clip": "clip",
                    "reflect": "reflect", "penalty": "penalty"}


def _bounds_handling(value) -> str:
    """A ``bounds_handling`` name (pycma's ``BoundTransform`` / ``BoundPenalty`` classes or names too)."""
    key = getattr(value, "__name__", value)
    if not isinstance(key, str) or key not in _BOUNDS_HANDLING:
        raise InvalidParameterError(f"bounds_handling {value!r}: expected one of 'transform', 'clip', 'reflect', 'penalty'")
    return _BOUNDS_HANDLING[key]


def _param(name: str, value):
    """An algorithm parameter as JSON carries it: a bool, an integer, a finite number, a string or
    ``None`` (NumPy scalars and 0-d arrays as their values); anything else is refused naming it."""
    value = _util._scalar(value)
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidParameterError(f"{name}: expected a finite number, got {value!r}")
        return value
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    raise InvalidParameterError(f"{name}: expected a number, a string or a boolean (an algorithm parameter), got {shown}")


def _target(value) -> Optional[float]:
    """The ``target`` stop rule: a finite number, or ``None``/``-inf`` for none (pycma's
    ``ftarget=-inf``); ``+inf`` (every value reaches it) and NaN are refused."""
    if value is None:
        return None
    value = _util.number("target", value)
    if value == -math.inf:
        return None
    if value == math.inf:
        raise InvalidParameterError("target = inf: expected a finite number, or None or -inf for no target")
    return value


def _incpopsize(value) -> float:
    """The population's growth per restart (pycma's ``incpopsize``): a finite number >= 1."""
    value = _util.real("incpopsize", value)
    if not 1.0 <= value < math.inf:
        raise InvalidParameterError(f"incpopsize = {value!r}: expected a finite number >= 1")
    return value
