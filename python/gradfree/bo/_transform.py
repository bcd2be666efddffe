"""scikit-optimize's transforms of a search dimension, for :mod:`gradfree.bo.space`.

A dimension's ``transform_`` names the warped space its ``transform`` maps values into and its
``inverse_transform`` maps back from (scikit-optimize 0.10's rules):

- ``Real`` and ``Integer``: ``"identity"`` (the values themselves; with the log-uniform prior,
  ``log_base`` of them) or ``"normalize"`` (the (log) box scaled to [0, 1]). The inverse clips
  to the bounds, and an ``Integer``'s rounds;
- ``Categorical``: ``"onehot"`` (a 0/1 column per category, a single column for two categories),
  ``"label"`` (the category's index), ``"normalize"`` (the index scaled to [0, 1]), ``"string"``
  (``str`` of the category) or ``"identity"`` (the category itself).

Types follow scikit-optimize: ``"identity"`` on a uniform prior returns its input unchanged,
``"label"`` and ``"string"`` return lists, the others arrays; a ``Real``'s inverse is a list of
floats (an array for another ``dtype``), an ``Integer``'s an array of ``dtype`` (a list for
``int``), a ``Categorical``'s an array of categories. Where scikit-optimize's result contradicts
its own transform, the result here is the consistent one: ``transformed_bounds`` of a log-uniform
``Real``/``Integer`` under ``"identity"`` are ``log_base`` of the bounds (scikit-optimize gives
``log10`` for a ``Real`` and the raw bounds for an ``Integer``), those of ``"label"`` are
``(0, n - 1)``, the ``"string"`` inverse of ``"False"`` is ``False``, and categories of mixed
types (``"a"``, ``1``, ``True``) keep their types and stay distinct. Values outside the
dimension raise :class:`InvalidParameterError` (scikit-optimize: ``KeyError`` or ``ValueError``).
"""
from __future__ import annotations

import numbers

import numpy as np

from ..errors import InvalidParameterError

NUMERIC = ("identity", "normalize")
CATEGORICAL = ("onehot", "label", "normalize", "string", "identity")
_EPS = 1e-8      # scikit-optimize's slack around a normalized interval


def check(dim, transform) -> str:
    """``transform`` if the dimension accepts it, else an error naming what it accepts."""
    accepted = dim._transforms
    if not isinstance(transform, str) or transform not in accepted:
        raise InvalidParameterError(f"{type(dim).__name__} transform = {transform!r}: expected one of "
                                    + ", ".join(map(repr, accepted)))
    return transform


def _floats(X, what: str) -> np.ndarray:
    try:
        x = np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{what}: expected numbers, got {X!r}") from None
    if np.isnan(x).any():
        raise InvalidParameterError(f"{what}: NaN is not a point of the space")
    return x


def _log(dim, x):
    return np.log10(x) / np.log10(dim.base)


def _unit_range(dim) -> tuple:
    """The interval ``"normalize"`` maps onto [0, 1]: the bounds, or their ``log_base``."""
    if dim.prior == "log-uniform":
        return float(_log(dim, dim.low)), float(_log(dim, dim.high))
    return float(dim.low), float(dim.high)


def numeric_transform(dim, X):
    if dim.transform_ == "identity" and dim.prior == "uniform":
        return X                                  # scikit-optimize returns its input unchanged
    what = f"{type(dim).__name__}.transform X"
    x = _floats(X, what)
    if dim.prior == "log-uniform":
        if np.any(x <= 0):
            raise InvalidParameterError(f"{what} = {X!r}: a log-uniform dimension has no values <= 0")
        x = _log(dim, x)
    if dim.transform_ == "identity":
        return x
    lo, hi = _unit_range(dim)
    if dim._integer and dim.prior == "uniform":
        x = np.round(x)
        outside = np.any((x < lo) | (x > hi))
    else:
        outside = np.any((x < lo - _EPS) | (x > hi + _EPS))
    if outside:
        raise InvalidParameterError(f"{what} = {X!r}: with transform='normalize' the values must lie within "
                                    f"[{dim.low}, {dim.high}]")
    return (x - lo) / (hi - lo)


def numeric_inverse(dim, Xt):
    what = f"{type(dim).__name__}.inverse_transform Xt"
    x = _floats(Xt, what)
    if dim.transform_ == "normalize":
        if np.any((x < -_EPS) | (x > 1 + _EPS)):
            raise InvalidParameterError(f"{what} = {Xt!r}: with transform='normalize' the values must lie within [0, 1]")
        lo, hi = _unit_range(dim)
        x = x * (hi - lo) + lo
        if dim._integer and dim.prior == "uniform":
            x = np.round(x)
    if dim.prior == "log-uniform":
        x = float(dim.base) ** x
    # Clipped to the values its dtype holds within the bounds, so the cast stays inside them.
    x = np.clip(x, *dim._held)
    if dim._integer:
        x = np.round(x)
        if dim.dtype == int or dim.dtype == "int":
            return x.astype(int).tolist()          # Python ints, as scikit-optimize
        return x.astype(dim.dtype)[()]
    x = x.astype(dim.dtype)
    return x.tolist() if dim.dtype == float or dim.dtype == "float" else x[()]


def numeric_bounds(dim) -> tuple:
    if dim.transform_ == "normalize":
        return (0.0, 1.0)
    if dim.prior == "log-uniform":
        return _unit_range(dim)
    return (dim.low, dim.high)


def categorical_size(dim) -> int:
    n = len(dim.categories)
    return n if dim.transform_ == "onehot" and n != 2 else 1


def categorical_bounds(dim):
    size, n = categorical_size(dim), len(dim.categories)
    if size > 1:
        return [(0.0, 1.0)] * size
    if dim.transform_ == "label" and n > 2:
        return (0.0, float(n - 1))
    return (0.0, 1.0)


def _items(X, what: str) -> list:
    """The values of a list or 1-D array (a one-column array or a single non-string value: one)."""
    if isinstance(X, np.ndarray):
        if X.ndim == 0:
            return [X[()]]
        if X.ndim == 2 and X.shape[1] == 1:
            X = X[:, 0]
        if X.ndim != 1:
            raise InvalidParameterError(f"{what}: expected a list or 1-D array of values, got shape {X.shape}")
        return list(X)
    if isinstance(X, (list, tuple)):
        return list(X)
    return [X]


def categorical_transform(dim, X):
    what = "Categorical.transform X"
    if isinstance(X, (str, bytes)) or not isinstance(X, (list, tuple, np.ndarray)):
        raise InvalidParameterError(f"{what} = {X!r}: expected a list of categories")
    if dim.transform_ == "identity":
        return X                                  # scikit-optimize returns its input unchanged
    values = _items(X, what)
    try:
        labels = [dim.index(v) for v in values]
    except InvalidParameterError as err:
        raise InvalidParameterError(f"{what}: {err}") from None
    n = len(dim.categories)
    if dim.transform_ == "string":
        return [str(v) for v in values]
    if dim.transform_ == "label":
        return labels
    if dim.transform_ == "normalize":
        return np.asarray(labels, dtype=float) / (n - 1) if n > 1 else np.zeros(len(labels))
    onehot = np.zeros((len(labels), categorical_size(dim)), dtype=np.int64)
    if n == 2:
        onehot[:, 0] = labels
    elif n > 2:
        onehot[np.arange(len(labels)), labels] = 1
    return onehot


def categorical_inverse(dim, Xt):
    what = "Categorical.inverse_transform Xt"
    cats, n, t = dim.categories, len(dim.categories), dim.transform_
    if t == "identity":
        return category_array([_identity_category(cats, v) for v in _items(Xt, what)])
    if t == "string":
        by_str = {}
        for c in cats:
            by_str.setdefault(str(c), c)
        out = []
        for v in _items(Xt, what):
            if str(v) not in by_str:
                raise InvalidParameterError(f"{what}: {v!r} is not the string of one of the categories {cats}")
            out.append(by_str[str(v)])
        return category_array(out)
    y = _floats(Xt, what)
    if t == "onehot" and n > 2:
        if y.ndim != 2 or y.shape[1] != n:
            raise InvalidParameterError(f"{what}: expected one-hot rows of {n} columns, got shape {y.shape}")
        idx = np.argmax(y, axis=1)
    else:
        if y.ndim == 2 and t == "onehot" and y.shape[1] == 2:
            y = y[:, 1]                              # scikit-learn's two-column form of two classes
        y = np.asarray(_items(y, what), dtype=float)
        if t == "onehot":
            idx = (y > 0.5).astype(int) if n == 2 else np.zeros(len(y), dtype=int)
        else:
            if t == "normalize":
                if np.any((y < -_EPS) | (y > 1 + _EPS)):
                    raise InvalidParameterError(f"{what} = {Xt!r}: with transform='normalize' the values must lie "
                                                "within [0, 1]")
                y = y * (n - 1)
            idx = np.round(y).astype(int)
            if np.any((idx < 0) | (idx >= n)):
                raise InvalidParameterError(f"{what} = {Xt!r}: labels must round to 0, ..., {n - 1}")
    return category_array([cats[i] for i in idx])


def _identity_category(cats, v):
    """The category ``v`` stands for (itself, equal to it, or its string), else ``v``."""
    for match in (lambda c: _same(v, c), lambda c: _equal(v, c), lambda c: isinstance(v, str) and str(c) == v):
        for c in cats:
            if match(c):
                return c
    return v


def _same(a, b) -> bool:
    """Category equality that does not raise on arrays or mixed types."""
    if isinstance(a, (bool, np.bool_)) != isinstance(b, (bool, np.bool_)):
        return False     # True is not the category 1
    return _equal(a, b)


def _equal(a, b) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return a is b


def category_array(values: list) -> np.ndarray:
    """The values as an array: numpy's own type when they share one Python type (as
    scikit-optimize's), else an object array that keeps each value's type."""
    kinds = {type(v) for v in values}
    if len(kinds) <= 1 and all(issubclass(k, (str, numbers.Number, np.generic)) for k in kinds):
        return np.array(values)
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        out[i] = v
    return out


def column_block(values, n_rows: int, size: int) -> np.ndarray:
    """One dimension's transformed values as an ``(n_rows, size)`` block of ``Space.transform``."""
    if isinstance(values, np.ndarray):
        block = values
    elif all(isinstance(v, (numbers.Number, np.generic)) for v in values) or all(isinstance(v, str) for v in values):
        block = np.asarray(values)
    else:
        block = category_array(list(values))
    return block.reshape(n_rows, size)
