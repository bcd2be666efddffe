"""The checks of a dimension's ``dtype`` and a ``Categorical``'s ``prior`` by scikit-optimize's
rules (``skopt/space/space.py``), for :mod:`gradfree.bo.space`."""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..errors import InvalidParameterError


#: The ``dtype`` names scikit-optimize accepts (``skopt/space/space.py``, ``Real`` and ``Integer``).
_REAL_DTYPES = ("float", "float16", "float32", "float64")
_INTEGER_DTYPES = ("int", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
_INTEGER_TYPES = (int, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)


def check_dtype(kind: str, dtype, integer: bool):
    """``dtype`` if scikit-optimize's ``Real``/``Integer`` accept it: a name of
    :data:`_REAL_DTYPES`/:data:`_INTEGER_DTYPES`, a NumPy floating type (``float`` too) for a
    ``Real``, ``int`` or a sized NumPy integer type for an ``Integer``; also a ``numpy.dtype`` of
    that kind (scikit-optimize passes those through unchecked). Anything else is refused naming
    ``dtype`` (``Real(0, 10, dtype=int)`` would otherwise draw floats it calls integers)."""
    names = _INTEGER_DTYPES if integer else _REAL_DTYPES
    if isinstance(dtype, str):
        ok = dtype in names
    elif isinstance(dtype, type):
        ok = dtype in _INTEGER_TYPES if integer else (dtype is not bool and np.issubdtype(dtype, np.floating))
    elif isinstance(dtype, np.dtype):
        ok = dtype.kind in ("iu" if integer else "f")
    else:
        ok = False
    if not ok:
        want = ("'int', 'int8', ..., 'uint64', int or a NumPy integer type (np.int8 ... np.uint64)" if integer
                else "'float', 'float16', 'float32', 'float64' or a NumPy floating type (float, np.float32, ...)")
        raise InvalidParameterError(f"{kind} dtype = {dtype!r}: expected {want}, as scikit-optimize")
    return dtype


def dtype_range(dtype, integer: bool) -> tuple:
    """The values a ``dtype`` holds (``int`` is NumPy's int64, as scikit-optimize casts it)."""
    np_dtype = np.dtype(dtype)
    if integer:
        info = np.iinfo(np_dtype)
        return int(info.min), int(info.max)
    info = np.finfo(np_dtype)
    return -float(info.max), float(info.max)


def held_bounds(kind: str, low: float, high: float, dtype) -> tuple:
    """The least and greatest values of a floating ``dtype`` inside ``[low, high]``, as floats:
    the bounds a ``Real`` of that ``dtype`` draws and clips to, so that every value it gives,
    cast to its ``dtype``, lies within its bounds (``Real(0.1, 0.2, dtype=np.float32)`` clips
    to float32's 0.19999999, not to 0.2, which float32 rounds up to 0.20000000298). Bounds
    that hold no value of the ``dtype`` (``Real(1e-320, 1e-300, dtype=np.float32)``, where
    float32 has only 0 and 1.4e-45) are refused naming the dtype and what it holds:
    scikit-optimize draws 0 there, outside the dimension, and NaN through ``transform``."""
    t = np.dtype(dtype).type
    with np.errstate(all="ignore"):     # subnormal results are values of the dtype too
        lo, hi = t(low), t(high)
        if float(lo) < low:
            lo = np.nextafter(lo, t(np.inf))
        if float(hi) > high:
            hi = np.nextafter(hi, t(-np.inf))
    if lo > hi:
        info = np.finfo(np.dtype(dtype))
        name = np.dtype(dtype).name
        raise InvalidParameterError(
            f"{kind} bounds ({low!r}, {high!r}): no {name} value lies between them ({name} holds 0 and magnitudes "
            f"from {float(info.smallest_subnormal):.3g} to {float(info.max):.3g}, {info.precision} significant digits); "
            "widen the bounds or choose a wider dtype")
    return float(lo), float(hi)


def show(v) -> str:
    """A bound for a message (a huge integer as a power of two, or one less, when it is one)."""
    if isinstance(v, numbers.Integral) and abs(int(v)) >= 1 << 62:
        a, sign = abs(int(v)), "-" if v < 0 else ""
        e = a.bit_length()
        if a == 1 << (e - 1):
            return f"{sign}2**{e - 1}"
        if a == (1 << e) - 1:
            return f"{sign}(2**{e} - 1)"
    return repr(v)


def check_prior(prior, n: int) -> None:
    """A ``Categorical`` prior as scikit-optimize's (scipy's ``rv_discrete``) accepts it: ``n``
    real probabilities, finite, >= 0, summing to 1 (``numpy.allclose``), checked when the
    dimension is made (scikit-optimize checks there too; numpy would fail only when drawing)."""
    if (isinstance(prior, (str, bytes, dict)) or not hasattr(prior, "__len__")
            or isinstance(prior, np.ndarray) and prior.ndim != 1):
        raise InvalidParameterError(f"Categorical prior = {prior!r}: expected a list of {n} probabilities")
    if len(prior) != n:
        raise InvalidParameterError(f"Categorical prior: expected {n} probabilities (one per category), got {len(prior)}")
    for k, p in enumerate(prior):
        if isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Real) or not math.isfinite(p) or p < 0:
            raise InvalidParameterError(f"Categorical prior[{k}] = {p!r}: expected a finite probability >= 0")
    total = float(np.sum(np.asarray(prior, dtype=float)))
    if not np.allclose(total, 1.0):
        raise InvalidParameterError(f"Categorical prior = {list(prior)!r}: the probabilities sum to {total!r}, not 1")
