"""Argument checks shared by the subpackages (the Rust side validates again; these give the
Python parameter names in messages)."""
from __future__ import annotations

import contextlib
import math
import numbers
import os
import warnings
from typing import Optional

import numpy as np

from .errors import InvalidParameterError, TooLargeError


def seed(value: Optional[int], name: str = "seed") -> int:
    """A seed in [0, 2**64); ``None`` draws one from the OS; errors name ``name``."""
    if value is None:
        return int.from_bytes(os.urandom(8), "little")
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < 1 << 64:
        raise InvalidParameterError(f"{name}: expected an integer in [0, 2**64 - 1] or None, got {value!r}")
    return int(value)


def count(name: str, value, lo: int, hi: int = (1 << 64) - 1) -> int:
    """An integer in [lo, hi] (by default what a 64-bit size holds); integral floats (``8.0``) are
    accepted, ``7.9``, booleans and NaN are not."""
    value = _scalar(value)
    if isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(f"{name}: expected an integer in [{lo}, {hi}], got {value!r}")
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        value = int(value)
    if not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise InvalidParameterError(f"{name}: expected an integer in [{lo}, {hi}], got {value!r}")
    return int(value)


def finite(name: str, value) -> float:
    """A finite float (the library then checks its range, naming ``name``)."""
    value = _scalar(value)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not math.isfinite(value):
        raise InvalidParameterError(f"invalid parameter `{name}` = {value!r}: must be a finite number")
    return float(value)


def positive(name: str, value) -> float:
    """A finite float > 0."""
    value = _scalar(value)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not (
            math.isfinite(value) and value > 0):
        raise InvalidParameterError(f"{name}: expected a finite number > 0, got {value!r}")
    return float(value)


def number(name: str, value) -> float:
    """A float that is not NaN (infinities allowed)."""
    value = _scalar(value)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or math.isnan(value):
        raise InvalidParameterError(f"{name}: expected a number, got {value!r}")
    return float(value)


def flag(name: str, value) -> bool:
    """A yes/no keyword: ``True``/``False`` (NumPy's too) or the integers 0 and 1; anything else
    (an array, a string, ``None``) is refused naming ``name`` rather than judged by its truth."""
    value = _scalar(value)
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and value in (0, 1)):
        return bool(value)
    raise InvalidParameterError(f"{name}: expected True or False, got {value!r}")


def args(name: str, value) -> tuple:
    """Extra positional arguments of an objective: a tuple (or a list)."""
    if not isinstance(value, (tuple, list)):
        raise InvalidParameterError(f"{name}: expected a tuple of extra arguments of the objective, got {value!r}")
    return tuple(value)


def names(name: str, value) -> list:
    """A list of names: strings (or numbers, shown as strings), no repeats."""
    if hasattr(value, "tolist") and getattr(value, "ndim", 1) == 1:
        value = value.tolist()          # a 1-D array or a pandas Index
    if not isinstance(value, (list, tuple)):
        raise InvalidParameterError(f"{name}: expected a list of names, got {value!r}")
    if not value:
        raise InvalidParameterError(f"{name}: expected at least one name, got an empty list")
    out = []
    for k, v in enumerate(value):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (str, int, np.integer)):
            raise InvalidParameterError(f"{name}[{k}] = {v!r}: expected a name (a string)")
        out.append(str(v))
    repeated = sorted({v for v in out if out.count(v) > 1})
    if repeated:
        raise InvalidParameterError(f"{name}: repeated names {repeated}")
    return out


def box(name: str, bounds, shape) -> Optional[tuple]:
    """``(lower, upper)`` broadcast to ``shape`` as lists, with lower < upper everywhere."""
    if bounds is None:
        return None
    try:
        lower, upper = bounds
        lower, upper = (np.broadcast_to(np.asarray(b, dtype=np.float64), shape) for b in (lower, upper))
    except (TypeError, ValueError) as e:
        raise InvalidParameterError(f"{name}: expected (lower, upper), each a number or an array of shape {shape}: {e}") from None
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper)) and np.all(lower < upper)):
        raise InvalidParameterError(f"{name}: expected finite bounds with lower < upper in every coordinate")
    return lower.tolist(), upper.tolist()


def real(name: str, value) -> float:
    """One objective value: a real number (an int, a float, a NumPy scalar or a size-1 array);
    NaN and infinities pass (the run's ``on_nonfinite`` policy judges them)."""
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iuf":
        value = value.reshape(()).item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        shown = repr(value)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        raise InvalidParameterError(f"{name}: expected a real number, got {shown} ({type(value).__name__})")
    return float(value)


def reals(name: str, values) -> np.ndarray:
    """Objective values as a float64 vector; every entry must be a real number (``None``, strings
    and complex numbers are refused, never turned into NaN)."""
    try:
        v = np.asarray(values)
    except (TypeError, ValueError) as e:
        raise InvalidParameterError(f"{name}: expected real numbers: {e}") from None
    if v.dtype.kind not in "iuf" or v.dtype == np.bool_:
        flat = v.ravel() if v.dtype.kind == "O" else [values] if v.ndim == 0 else v.ravel()
        for k, item in enumerate(flat):
            real(f"{name}[{k}]", item)
        if v.dtype.kind != "O":
            raise InvalidParameterError(f"{name}: expected real numbers, got an array of {v.dtype}")
    return np.ascontiguousarray(np.asarray(values, dtype=np.float64).ravel())


def executor(value):
    """An executor for ``map`` (``None``: evaluate in this thread)."""
    if value is not None and not callable(getattr(value, "map", None)):
        raise InvalidParameterError(f"invalid parameter `executor` = {type(value).__name__}: expected an object with "
                                    "map(fn, iterable), such as a concurrent.futures executor or a multiprocessing pool")
    return value


def _scalar(value):
    """A 0-d numeric array as its number (NumPy's 0-d results are numbers to the checks here)."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "biuf":
        return value[()]
    return value


def _kind_of(arr: np.ndarray) -> str:
    return {"U": "strings", "S": "bytes", "c": "complex numbers", "M": "dates", "m": "time spans",
            "V": "records"}.get(arr.dtype.kind, f"values of dtype {arr.dtype}")


def vector(name: str, value, rule: str = "pycma", popsize: Optional[int] = None, full: bool = False,
           memory: bool = True) -> np.ndarray:
    """A start point (``x0``) as a float64 vector of finite numbers, by the peer's shape rule:

    - ``"pycma"`` (``cma.CMAEvolutionStrategy._set_x0``): a 1-D array; a 2-D array of shape
      ``(1, d)`` or ``(d, 1)`` is flattened with a ``UserWarning``; any other shape (a scalar, a
      ``(2, 2)`` array) and strings are refused;
    - ``"scipy"`` (``scipy.optimize.minimize``): a scalar is one coordinate
      (``np.atleast_1d``); anything but 1-D is refused.

    Strings, complex numbers, dates and objects that are not real numbers are refused naming
    ``name`` (never turned into NaN or a bare NumPy error); so are empty and non-finite points,
    and points whose run cannot fit in memory (:func:`check_es_memory` with ``popsize`` and
    ``full``, before any copy). The array is not copied when it is already a float64 vector."""
    if isinstance(value, (str, bytes)):
        raise InvalidParameterError(f"{name}: expected an array of numbers, got the string {value!r}")
    try:
        arr = value if isinstance(value, np.ndarray) else np.asarray(value)
    except (TypeError, ValueError) as e:     # ragged lists
        raise InvalidParameterError(f"{name}: expected a 1-D array of numbers: {e}") from None
    if arr.dtype.kind == "O":
        flat = arr.ravel()
        for k, v in enumerate(flat):
            if isinstance(v, (str, bytes, complex)) or not isinstance(v, numbers.Real):
                shown = repr(v) if len(repr(v)) <= 40 else repr(v)[:37] + "..."
                raise InvalidParameterError(f"{name}[{k}]: expected a real number, got {shown} ({type(v).__name__})")
        arr = np.asarray(arr, dtype=np.float64)
    elif arr.dtype.kind not in "biuf":
        raise InvalidParameterError(f"{name}: expected real numbers, got {_kind_of(arr)} (an array of {arr.dtype})")
    if arr.ndim == 0:
        if rule == "pycma":
            raise InvalidParameterError(f"{name}: expected a 1-D array of shape (d,), got the scalar {arr.item()!r} "
                                        f"(pycma's rule; pass [{arr.item()!r}] for one variable)")
        arr = arr.reshape(1)
    elif arr.ndim == 2 and rule == "pycma" and 1 in arr.shape:
        warnings.warn(f"{name} should be a list or 1-D array; flattening the {arr.shape}-array (as pycma)", UserWarning,
                      stacklevel=3)
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        also = " (or of shape (1, d) or (d, 1), which is flattened)" if rule == "pycma" else ""
        raise InvalidParameterError(f"{name}: expected a 1-D array of shape (d,){also}, got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidParameterError(f"{name}: expected at least one coordinate, got an empty array")
    if memory:
        check_es_memory(name, arr.size, popsize, full)
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise InvalidParameterError(f"{name}[{int(bad[0])}] = {arr[bad[0]]!r}: expected finite numbers")
    return arr


def available_bytes() -> int:
    """Bytes of memory this process may plan to use, as every size check of the Rust core counts
    them (``gradfree_core::memory::available_bytes``): the least of ``MemAvailable`` plus free swap,
    the room under ``ulimit -v`` and under the cgroup's ``memory.max``, or 1 TiB where none can be
    read; ``GRADFREE_MEMORY_LIMIT`` lowers it."""
    from . import _gradfree
    return int(_gradfree.available_bytes())


def human_bytes(n: int) -> str:
    """``1.5 GiB`` (as the Rust core prints sizes)."""
    x, units = float(n), ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"]
    u = 0
    while x >= 1024 and u + 1 < len(units):
        x, u = x / 1024, u + 1
    return f"{n} B" if u == 0 else f"{x:.1f} {units[u]}"


def check_es_memory(name: str, d: int, popsize: Optional[int] = None, full: bool = False) -> None:
    """Refuses at once (``TooLargeError`` naming ``name`` or ``popsize``) an evolution strategy in
    dimension ``d`` whose smallest state cannot fit: ``4 n d + 32 d`` float64 values for a
    population of ``n`` (at least 2) points, plus ``8 d^2`` with CMA-ES's full covariance (``full``):
    the lower bound of the Rust crate's estimate (``crates/es/src/sizes.rs``), which checks the
    exact need again. Checked before ``x0`` is copied, so a huge ``x0`` is refused in
    milliseconds rather than after copies of it."""
    n = max(2, popsize or 2)
    population, vectors = 4 * n * d * 8, 32 * d * 8
    covariance = 8 * d * d * 8 if full else 0
    need = population + vectors + covariance
    if need < 64 << 20:
        return
    limit = available_bytes()
    if need > limit:
        if popsize and population >= max(vectors, covariance):
            head = f"popsize = {popsize}: a population of {popsize} points in dimension {d}"
        else:
            head = f"{name}: " + (f"CMA-ES in dimension {d} (its {d} x {d} covariance)" if full else f"a run in dimension {d}")
        raise TooLargeError(f"{head} needs at least {human_bytes(need)}, more than the {human_bytes(limit)} of memory "
                            "available")


@contextlib.contextmanager
def renamed(**given):
    """Errors about a parameter renamed to the keyword the caller gave (``acq_starts`` set from
    ``n_restarts_optimizer``, ``max_evals`` from pycma's ``maxfevals``): ``internal="keyword"``;
    a message that begins with the internal name (``invalid parameter `max_evals` ...`` or
    ``max_evals: ...``) is raised again with the caller's."""
    try:
        yield
    except (InvalidParameterError, TooLargeError) as e:
        msg = str(e)
        for internal, keyword in given.items():
            for head in (f"invalid parameter `{internal}`", f"{internal}:", f"{internal} =", f"`{internal}` ="):
                if msg.startswith(head):
                    raise type(e)(msg.replace(internal, keyword, 1)) from None
        raise
