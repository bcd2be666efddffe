"""The inputs of :mod:`gradfree.inference`, checked and converted once: rows and responses
(statsmodels' alignment rule for pandas data), a maximum-likelihood fit's offset, exposure and
cluster groups, and the batches of :func:`gradfree.inference.fit_stream` (pairs, mappings of
columns, DataFrames, a Ray Dataset) with the sources that can be read again."""
from __future__ import annotations

import numbers

import numpy as np

from . import _util
from .errors import InvalidParameterError


def _rows(X, name="X") -> tuple:
    names = [str(c) for c in X.columns] if hasattr(X, "columns") else None
    arr = np.asarray(X)
    if arr.dtype.kind not in "fiub":
        raise InvalidParameterError(f"{name}: expected numbers, got an array of dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2:
        raise InvalidParameterError(f"{name}: expected a 2-d array (rows x features), got {arr.ndim} dimensions")
    return arr, names


def _response(y, rows: int, name: str = "y"):
    if y is None:
        return None
    try:
        arr = np.asarray(y)
    except (TypeError, ValueError) as e:
        raise InvalidParameterError(f"{name}: expected numbers: {e}") from None
    if arr.dtype.kind == "O":      # numbers in an object array pass; strings and the rest do not (as statsmodels)
        for k, v in enumerate(arr.ravel()):
            if isinstance(v, (str, bytes)) or not isinstance(v, numbers.Real):
                raise InvalidParameterError(f"{name}[{k}] = {v!r}: expected a number ({type(v).__name__})")
        arr = arr.astype(np.float64)
    if arr.dtype.kind not in "fiub":
        raise InvalidParameterError(f"{name}: expected numbers, got an array of dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr.astype(np.float64, copy=False).ravel())
    if arr.shape[0] != rows:
        raise InvalidParameterError(f"{name}: {arr.shape[0]} responses for {rows} rows of X")
    return arr


def _pandas_index(obj):
    """A pandas object's row index (``None`` for arrays and lists)."""
    index = getattr(obj, "index", None)
    return index if hasattr(index, "equals") else None


def _aligned(X, y, where: str = "") -> None:
    """statsmodels' rule for pandas data (``statsmodels/base/data.py``, ``PandasData._check_integrity``):
    when both ``X`` and ``y`` carry an index, the two must be equal (same labels, same order);
    rows are never matched by position behind the caller's back."""
    ix, iy = _pandas_index(X), _pandas_index(y)
    if ix is not None and iy is not None and not iy.equals(ix):
        extra = [v for v in list(iy[:50]) if v not in set(ix)][:3]
        detail = f" (y has rows {extra} that X has not)" if extra else " (the same labels in another order)" if len(ix) == len(iy) and set(ix) == set(iy) else ""
        raise InvalidParameterError(f"y{where}: the indices for endog and exog are not aligned: y's index differs from "
                                    f"X's{detail}; statsmodels refuses this too; align them (y.reindex(X.index)) or pass "
                                    "arrays")


def _glm_rows(model, spec, rows, cov_type, cov_kwds, offset, exposure):
    """The offset (with ``log(exposure)``) and the cluster codes of a maximum-likelihood fit, as
    statsmodels takes them: ``offset`` for any GLM, ``exposure`` for Poisson, and ``cov_kwds={"groups":
    ...}`` (labels of any kind, one per row) with ``cov_type="cluster"``."""
    mle = spec["method"] == "mle"
    off = None
    for name, v in (("offset", offset), ("exposure", exposure)):
        if v is None:
            continue
        if not mle:
            raise InvalidParameterError(f"invalid parameter `{name}`: only with method mle (it would be ignored)")
        if name == "exposure" and model != "poisson":
            raise InvalidParameterError("invalid parameter `exposure`: only with model poisson (log link), as statsmodels")
        try:
            a = np.asarray(v, dtype=np.float64).ravel()
        except (TypeError, ValueError) as e:
            raise InvalidParameterError(f"invalid parameter `{name}`: expected numbers: {e}") from None
        if a.shape[0] != rows:
            raise InvalidParameterError(f"invalid parameter `{name}`: {a.shape[0]} values for {rows} rows")
        if name == "exposure":
            if not np.all(a > 0):
                raise InvalidParameterError(f"invalid parameter `exposure`: must be positive (row {int(np.argmin(a > 0))} is {a[np.argmin(a > 0)]})")
            a = np.log(a)
        if not np.all(np.isfinite(a)):
            raise InvalidParameterError(f"invalid parameter `{name}`: must be finite (row {int(np.argmin(np.isfinite(a)))})")
        off = a if off is None else off + a
    groups = None
    if cov_kwds is not None:
        if not isinstance(cov_kwds, dict):
            raise InvalidParameterError(f"invalid parameter `cov_kwds` = {cov_kwds!r}: a dict, {{'groups': labels}}")
        extra = [k for k in cov_kwds if k != "groups"]
        if extra:
            raise InvalidParameterError(f"invalid parameter `cov_kwds`: unknown keys {extra}; accepted: groups")
        if cov_type != "cluster":
            raise InvalidParameterError("invalid parameter `cov_kwds`: only with cov_type='cluster' (it would be ignored)")
        g = np.asarray(cov_kwds["groups"])
        if g.ndim != 1 or g.shape[0] != rows:
            raise InvalidParameterError(f"invalid parameter `cov_kwds['groups']`: one label per row ({rows}), got shape {g.shape}")
        if g.dtype.kind == "f" and not np.all(np.isfinite(g)):
            raise InvalidParameterError("invalid parameter `cov_kwds['groups']`: NaN or infinite labels")
        try:
            _, codes = np.unique(g, return_inverse=True)
        except TypeError as e:
            raise InvalidParameterError(f"invalid parameter `cov_kwds['groups']`: labels that cannot be sorted: {e}") from None
        groups = np.ascontiguousarray(codes.ravel(), dtype=np.uint64)
    elif cov_type == "cluster":
        raise InvalidParameterError("invalid parameter `cov_kwds`: cov_type='cluster' needs cov_kwds={'groups': labels}")
    return off, groups


class _Batches:
    """The batches of :func:`fit_stream` as ``(X, y)`` float64 arrays, from ``(X, y)`` pairs,
    ``X`` alone, or mappings of columns (a Ray Dataset's ``iter_batches``, DataFrames, pyarrow
    tables) split by ``target``; the feature names come from the first batch's columns.

    Every later batch with column names must have the first batch's: the same set is read by name
    (in the first batch's order, whatever its own order), another set is refused naming the
    missing and extra columns; a batch without names (an array) is read by position. A ``y``
    Series must be indexed as its ``X`` (statsmodels' rule, as in :func:`fit`)."""

    def __init__(self, batches, target, columns, needs_y: bool = False):
        if isinstance(batches, (str, bytes)) or not hasattr(batches, "__iter__"):
            raise InvalidParameterError(f"batches: expected an iterable of batches ((X, y) pairs, dicts of columns, "
                                        f"DataFrames) or a Ray Dataset, got {type(batches).__name__}")
        try:
            self._it = iter(batches)
        except TypeError:
            raise InvalidParameterError(f"batches: expected an iterable of batches, got {batches!r}") from None
        if target is not None and not isinstance(target, str):
            raise InvalidParameterError(f"invalid parameter `target` = {target!r}: expected a column name (a string)")
        self._target = target
        self._columns = None if columns is None else _util.names("columns", columns)
        self._needs_y = needs_y
        self.names = None
        self.endog_name = None
        self._count = 0

    def __iter__(self):
        return self

    def _same_columns(self, found: list, what: str) -> None:
        """Refuses a batch whose columns are not the first batch's (naming the difference)."""
        want = set(self.names)
        if set(found) != want or len(found) != len(set(found)):
            missing = [c for c in self.names if c not in found]
            extra = [c for c in found if c not in want]
            repeated = sorted({c for c in found if found.count(c) > 1})
            parts = [f"missing {missing}" if missing else "", f"extra {extra}" if extra else "",
                     f"repeated {repeated}" if repeated else ""]
            raise InvalidParameterError(f"batches: batch {self._count} has {what} {found}, the first batch {self.names} "
                                        f"({', '.join(p for p in parts if p)}); every batch must have the first batch's "
                                        "columns (pass columns= to read a subset)")

    def __next__(self):
        item = next(self._it)
        self._count += 1
        where = f" of batch {self._count}"
        if isinstance(item, tuple) and len(item) == 2:
            if self._target is not None:
                raise InvalidParameterError("invalid parameter `target`: only with batches of columns (dicts, DataFrames, "
                                            "a Ray Dataset); these batches are (X, y) pairs")
            X = item[0]
            _aligned(X, item[1], where)
            if hasattr(X, "columns") and self.names is not None and self._count > 1:
                found = [str(c) for c in X.columns]
                if found != self.names:
                    self._same_columns(found, "columns")
                    X = X[[c for c in X.columns if str(c) in set(self.names)]]
                    X = X[sorted(X.columns, key=lambda c: self.names.index(str(c)))]
            x, names = _rows(X)
            if self._count == 1:
                self.names = names
                self.endog_name = getattr(item[1], "name", None)
            return x, _response(item[1], x.shape[0], f"y{where}")
        keys_of = getattr(item, "column_names", None)      # a pyarrow Table or RecordBatch
        if keys_of is None and hasattr(item, "keys") and (not hasattr(item, "shape") or hasattr(item, "columns")):
            keys_of = list(item.keys())                     # a dict of columns or a DataFrame
        if keys_of is not None:
            keys = [str(k) for k in keys_of]
            if self._target is None and self._needs_y:
                raise InvalidParameterError("invalid parameter `target` = None: batches of columns need target= naming the "
                                            f"response column (the model needs a response per row); columns: {', '.join(keys)}")
            if self._target is not None and self._target not in keys:
                raise InvalidParameterError(f"invalid parameter `target` = {self._target!r}: a column of the batches: {', '.join(keys)}")
            features = [k for k in keys if k != self._target]
            if self._columns is not None:
                cols = self._columns
                missing = [c for c in cols if c not in keys]
                if missing:
                    raise InvalidParameterError(f"invalid parameter `columns`: {', '.join(missing)} not among the columns "
                                                f"{', '.join(keys)} of batch {self._count}")
            elif self._count == 1 or self.names is None:
                cols = features
            else:
                if features != self.names:
                    self._same_columns(features, "columns")
                cols = self.names
            lookup = {str(k): k for k in keys_of}
            x, _ = _rows(np.column_stack([np.asarray(item[lookup[c]]) for c in cols]) if cols else np.empty((0, 0)),
                         f"X{where}")
            if self._count == 1:
                self.names, self.endog_name = cols, self._target
            if self._target is None:
                return x, None
            return x, _response(item[lookup[self._target]], x.shape[0], f"{self._target}{where}")
        if self._target is not None:
            raise InvalidParameterError("invalid parameter `target`: only with batches of columns (dicts, DataFrames, a Ray Dataset)")
        x, names = _rows(item, f"X{where}")
        if self._count == 1:
            self.names = names
        return x, None


def _opener(batches):
    """A function of no arguments giving a fresh iterable of ``batches``' batches when they can be
    read again (a list or tuple, a DataFrame or mapping of columns as one batch, a function of no
    arguments returning an iterable); ``None`` for a generator or an open reader."""
    if callable(batches) and not hasattr(batches, "__iter__"):
        def call():
            it = batches()
            if isinstance(it, (str, bytes)) or not hasattr(it, "__iter__"):
                raise InvalidParameterError(f"batches: the function returned {type(it).__name__}, not an iterable of batches")
            return it
        return call
    if hasattr(batches, "columns") and hasattr(batches, "shape") or isinstance(batches, dict) \
            or hasattr(batches, "column_names") and hasattr(batches, "num_rows"):
        return lambda: iter([batches])            # a DataFrame, dict of columns or pyarrow table: one batch
    if isinstance(batches, (list, tuple)):
        return lambda: iter(batches)
    return None
