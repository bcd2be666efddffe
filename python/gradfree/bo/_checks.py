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
