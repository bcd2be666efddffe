"""Argument checks shared by the subpackages (the Rust side validates again; these give the
Python parameter names in messages)."""
from __future__ import annotations

import math
import os
from typing import Optional

import numpy as np

from .errors import InvalidParameterError


def seed(value: Optional[int]) -> int:
    """A seed in [0, 2**64); ``None`` draws one from the OS."""
    if value is None:
        return int.from_bytes(os.urandom(8), "little")
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < 1 << 64:
        raise InvalidParameterError(f"seed: expected an integer in [0, 2**64 - 1] or None, got {value!r}")
    return int(value)


def count(name: str, value, lo: int, hi: int = (1 << 64) - 1) -> int:
    """An integer in [lo, hi] (by default what a 64-bit size holds); integral floats (``8.0``) are
    accepted, ``7.9``, booleans and NaN are not."""
    if isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(f"{name}: expected an integer in [{lo}, {hi}], got {value!r}")
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        value = int(value)
    if not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise InvalidParameterError(f"{name}: expected an integer in [{lo}, {hi}], got {value!r}")
    return int(value)


def finite(name: str, value) -> float:
    """A finite float (the library then checks its range, naming ``name``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not math.isfinite(value):
        raise InvalidParameterError(f"invalid parameter `{name}` = {value!r}: must be a finite number")
    return float(value)


def positive(name: str, value) -> float:
    """A finite float > 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not (
            math.isfinite(value) and value > 0):
        raise InvalidParameterError(f"{name}: expected a finite number > 0, got {value!r}")
    return float(value)


def number(name: str, value) -> float:
    """A float that is not NaN (infinities allowed)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or math.isnan(value):
        raise InvalidParameterError(f"{name}: expected a number, got {value!r}")
    return float(value)


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
