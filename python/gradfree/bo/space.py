"""Search spaces with scikit-optimize's grammar: ``Real``, ``Integer``, ``Categorical``, ``Space``
and ``check_dimension``.

A dimension is read by scikit-optimize's rules (``skopt.space.check_dimension`` of version 0.10,
which its users' scripts rely on):

- a ``Real``, ``Integer`` or ``Categorical`` object (ours, or scikit-optimize's when it is
  installed: read by their attributes, so skopt is never imported here);
- a list, tuple or array of one element: a ``Categorical``;
- two elements: a ``Categorical`` if one is a string or a bool, else an ``Integer`` if both are
  integers, else a ``Real``;
- three elements whose third is ``"uniform"`` or ``"log-uniform"``: an ``Integer`` if the two
  bounds are integers, else a ``Real``, with that prior (so ``(1, 100, "log-uniform")`` is an
  ``Integer``); any other third element makes a ``Categorical`` of the three;
- four elements ``(low, high, "log-uniform", base)`` with an integer base: ``Integer`` or
  ``Real`` as above; any other four or more elements: a ``Categorical``.

The optimizer sees a box: a ``Real`` or ``Integer`` with the log-uniform prior is searched in
``log_base`` coordinates (as scikit-optimize's model sees it), integers and categories are rounded
inside the acquisition (Garrido-Merchán & Hernández-Lobato 2020), and a categorical of one value
is held fixed. It always searches the unit cube of that box, whatever the dimensions' transforms.

scikit-optimize's transform API is offered as its users call it: a dimension's ``transform_``
(set by ``transform=`` or ``set_transformer``) governs its ``transform``, ``inverse_transform``,
``transformed_size`` and ``transformed_bounds`` (``"identity"`` or ``"normalize"`` for a ``Real``
or ``Integer``, ``"identity"`` meaning ``log_base`` coordinates for a log-uniform prior;
``"onehot"``, ``"label"``, ``"normalize"``, ``"string"`` or ``"identity"`` for a ``Categorical``;
rules and the few departures from scikit-optimize in :mod:`gradfree.bo._transform`), and a
``Space``'s ``transform``, ``inverse_transform``, ``set_transformer``,
``set_transformer_by_type``, ``get_transformer``, ``transformed_n_dims`` and
``transformed_bounds`` combine them.
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Iterable, Optional

import numpy as np

from .._pickling import Checked as _Checked
from ..errors import InvalidParameterError
from . import _transform as _tf
from ._checks import check_dtype, check_prior, dtype_range, held_bounds, show
from ._transform import _same

__all__ = ["Dimension", "Real", "Integer", "Categorical", "Space", "check_dimension"]


def _rng(random_state):
    """A numpy Generator from ``None``, an int, a ``RandomState`` or a ``Generator``."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    if random_state is None or (isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool)):
        return np.random.default_rng(random_state)
    raise InvalidParameterError(f"random_state: expected None, an int, a numpy RandomState or Generator, got {random_state!r}")


class Dimension(_Checked):
    """A search dimension (scikit-optimize's ``Dimension``): ``rvs``, ``bounds``, ``name``,
    ``distance`` and ``in``; ``transform``, ``inverse_transform``, ``set_transformer``,
    ``transformed_size`` and ``transformed_bounds`` by its ``transform_``; ``_kind``, ``_box``,
    ``_to_box`` and ``_from_box`` give the box the optimizer searches."""

    _name: Optional[str] = None
    _transforms: tuple = ()
    transform_: str

    @property
    def name(self) -> Optional[str]:
        return self._name

    @name.setter
    def name(self, value) -> None:
        if value is not None and not isinstance(value, str):
            raise InvalidParameterError(f"name = {value!r}: Dimension's name must be either string or None.")
        self._name = value

    def rvs(self, n_samples: int = 1, random_state=None) -> np.ndarray:
        """``n_samples`` values drawn from the dimension's prior, as an array of the dimension's
        ``dtype`` (scikit-optimize returns a list for ``dtype=float`` and ``int``)."""
        rng = _rng(random_state)
        values = [self._from_box(u) for u in rng.uniform(*self._box_range(), size=n_samples)]
        return np.array(values, dtype=np.dtype(self.dtype))

    @property
    def size(self) -> int:
        return 1

    @property
    def is_constant(self) -> bool:
        return False

    @property
    def transformed_size(self) -> int:
        """The number of columns ``transform`` gives a value."""
        return 1


class _Numeric(Dimension):
    """``Real`` and ``Integer``: ``low``, ``high``, ``prior``, ``base``, ``dtype``."""

    _integer = False
    _transforms = _tf.NUMERIC

    def __init__(self, low, high, prior: str = "uniform", base: int = 10, transform: Optional[str] = None,
                 name: Optional[str] = None, dtype=None):
        kind = type(self).__name__
        for label, v in (("low", low), ("high", high)):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or not math.isfinite(v):
                raise InvalidParameterError(f"{kind} {label} = {v!r}: expected a finite number")
            if self._integer and not (isinstance(v, numbers.Integral) or float(v).is_integer()):
                raise InvalidParameterError(f"{kind} {label} = {v!r}: expected an integer (use Real for a continuous "
                                            "dimension)")
        dtype = check_dtype(kind, (np.int64 if self._integer else float) if dtype is None else dtype, self._integer)
        lo, hi = dtype_range(dtype, self._integer)
        for label, v in (("low", low), ("high", high)):
            if not lo <= v <= hi:
                raise InvalidParameterError(f"{kind} {label} = {show(v)}: expected a value in [{show(lo)}, {show(hi)}], "
                                            f"the range of its dtype {np.dtype(dtype).name}")
        if not self._integer and not math.isfinite(float(high) - float(low)):
            raise InvalidParameterError(f"{kind} bounds ({low}, {high}): the width high - low overflows float64 "
                                        "(draws would be infinite); narrow the bounds")
        if high <= low:
            raise InvalidParameterError(f"{kind} bounds ({low}, {high}): the lower bound {low} has to be less than the upper "
                                        f"bound {high}")
        if not isinstance(prior, str) or prior not in ("uniform", "log-uniform"):
            raise InvalidParameterError(f"{kind} prior = {prior!r}: expected 'uniform' or 'log-uniform'")
        if prior == "log-uniform" and low <= 0:
            raise InvalidParameterError(f"{kind}({low}, {high}, 'log-uniform'): search space should not contain 0 "
                                        "when using log-uniform prior (both bounds must be > 0)")
        if isinstance(base, bool) or not isinstance(base, numbers.Real) or not base > 1:
            raise InvalidParameterError(f"{kind} base = {base!r}: expected a number > 1")
        if prior == "log-uniform" and not math.log(high) / math.log(base) > math.log(low) / math.log(base):
            raise InvalidParameterError(f"{kind} bounds ({low}, {high}): too close for prior='log-uniform' (their "
                                        f"log_{base} are equal in float64, a box of width 0); use prior='uniform'")
        if not self._integer:
            held_bounds(kind, float(low), float(high), dtype)
        self.transform_ = _tf.check(self, "identity" if transform is None else transform)
        self.low, self.high = (int(low), int(high)) if self._integer else (float(low), float(high))
        self.prior, self.base, self.name = prior, base, name
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"{type(self).__name__}(low={self.low}, high={self.high}, prior='{self.prior}', transform='{self.transform_}')"

    def __eq__(self, other) -> bool:
        return (type(self) is type(other) and np.allclose([self.low, self.high], [other.low, other.high])
                and self.prior == other.prior and self.transform_ == other.transform_)

    __hash__ = None

    @property
    def bounds(self) -> tuple:
        return (self.low, self.high)

    def __contains__(self, point) -> bool:
        if isinstance(point, (list, tuple, np.ndarray)) and np.size(point) == 1:
            point = np.asarray(point).ravel()[0]      # a one-value sample, as rvs() returns it
        if isinstance(point, (str, bool, np.bool_)) or not isinstance(point, numbers.Real):
            return False
        if isinstance(point, np.floating):
            point = float(point)     # compared exactly (numpy would round the bounds to a float32 point's type)
        return bool(self.low <= point <= self.high)

    @property
    def _held(self) -> tuple:
        """The least and greatest values of the dimension that its ``dtype`` holds (a
        ``Real``'s; an ``Integer``'s bounds are its own): draws and ``inverse_transform`` clip to
        them, so their values cast to ``dtype`` stay within the bounds."""
        if self._integer:
            return (self.low, self.high)
        return held_bounds(type(self).__name__, self.low, self.high, self.dtype)

    def distance(self, a, b) -> float:
        """``|a - b|`` (both must be inside the dimension)."""
        if not (a in self and b in self):
            raise RuntimeError(f"Can only compute distance for values within the space, not {a!r} and {b!r} ({self})")
        return abs(a - b)

    def set_transformer(self, transform="identity") -> None:
        """Sets ``transform_``: ``"identity"`` or ``"normalize"``."""
        self.transform_ = _tf.check(self, transform)

    def transform(self, X):
        """Values to the warped space: themselves (``log_base`` of them for a log-uniform prior)
        under ``"identity"``, scaled to [0, 1] under ``"normalize"``."""
        return _tf.numeric_transform(self, X)

    def inverse_transform(self, Xt):
        """Warped values back to the dimension, clipped to the bounds (and rounded for an ``Integer``)."""
        return _tf.numeric_inverse(self, Xt)

    @property
    def transformed_bounds(self) -> tuple:
        return _tf.numeric_bounds(self)

    # The box the optimizer searches.
    def _log(self, v: float) -> float:
        return math.log(v) / math.log(self.base)

    def _box_range(self) -> tuple:
        if self.prior == "log-uniform":
            return (self._log(self.low), self._log(self.high))
        return (float(self.low), float(self.high))

    @property
    def _kind(self) -> str:
        return "integer" if self._integer and self.prior == "uniform" else "continuous"

    def _to_box(self, v) -> float:
        return self._log(float(v)) if self.prior == "log-uniform" else float(v)

    def _from_box(self, u: float):
        v = float(self.base) ** float(u) if self.prior == "log-uniform" else float(u)
        if self._integer:
            return int(min(max(round(v), self.low), self.high))
        lo, hi = self._held
        v = min(max(v, lo), hi)
        # A value of the dtype, as scikit-optimize's ask gives (np.float32 for dtype=np.float32).
        return v if self.dtype in (float, "float") else np.dtype(self.dtype).type(v)


class Real(_Numeric):
    """A continuous dimension ``[low, high]`` (scikit-optimize's ``Real``): ``prior="uniform"`` or
    ``"log-uniform"`` (searched in ``log_base`` coordinates), ``base`` (default 10), ``name``.
    ``transform`` (``"identity"`` or ``"normalize"``) governs ``transform``/``inverse_transform``;
    the optimizer always works in the unit cube of the (log) box."""


class Integer(_Numeric):
    """An integer dimension ``{low, ..., high}`` (scikit-optimize's ``Integer``), bounds included;
    with ``prior="log-uniform"`` it is searched in ``log_base`` coordinates and rounded."""

    _integer = True


class Categorical(Dimension):
    """Unordered choices (scikit-optimize's ``Categorical``): ``categories``, ``prior`` (accepted,
    unused by the optimizer), ``name``. A single category is held fixed. ``transform``
    (``"onehot"``, ``"label"``, ``"normalize"``, ``"string"`` or ``"identity"``) governs
    ``transform``/``inverse_transform``, not the optimizer's search."""

    _transforms = _tf.CATEGORICAL

    def __init__(self, categories: Iterable[Any], prior=None, transform: Optional[str] = None, name: Optional[str] = None):
        if (isinstance(categories, (str, bytes, dict)) or not hasattr(categories, "__iter__")
                or isinstance(categories, np.ndarray) and categories.ndim == 0):
            raise InvalidParameterError(f"Categorical categories = {categories!r}: expected a list of categories")
        self.categories = tuple(categories)
        if not self.categories:
            raise InvalidParameterError("Categorical: expected at least one category")
        if len(self.categories) <= 1000:     # a point is matched to the first equal category
            for j, c in enumerate(self.categories):
                for k in range(j):
                    if _same(self.categories[k], c):
                        raise InvalidParameterError(
                            f"Categorical categories: {self.categories[k]!r} (at {k}) and {c!r} (at {j}) are the same "
                            "category (equal values), so a point of the second would read as the first; give each once")
        self.transform_ = _tf.check(self, "onehot" if transform is None else transform)
        if prior is not None:
            check_prior(prior, len(self.categories))
        self.prior, self.name = prior, name

    def __repr__(self) -> str:
        cats = self.categories if len(self.categories) <= 7 else self.categories[:3] + (_Ellipsis(),) + self.categories[-3:]
        return f"Categorical(categories={cats}, prior={self.prior})"

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self.categories == other.categories

    __hash__ = None

    @property
    def bounds(self) -> tuple:
        return self.categories

    @property
    def is_constant(self) -> bool:
        return len(self.categories) <= 1

    def __contains__(self, point) -> bool:
        return any(_same(point, c) for c in self.categories)

    def index(self, point) -> int:
        for k, c in enumerate(self.categories):
            if _same(point, c):
                return k
        raise InvalidParameterError(f"value {point!r} is not one of the categories {self.categories}")

    def distance(self, a, b) -> int:
        """0 for the same category, else 1."""
        if not (a in self and b in self):
            raise RuntimeError(f"Can only compute distance for values within the space, not {a!r} and {b!r} ({self})")
        return 0 if self.index(a) == self.index(b) else 1

    def rvs(self, n_samples: Optional[int] = None, random_state=None):
        """One category (``n_samples=None``) or a list of ``n_samples``, drawn from the prior."""
        rng = _rng(random_state)
        p = None if self.prior is None else np.asarray(self.prior, dtype=float) / np.sum(self.prior)
        picks = [self.categories[k] for k in rng.choice(len(self.categories), size=1 if n_samples is None else n_samples, p=p)]
        return picks[0] if n_samples is None else picks

    def set_transformer(self, transform="onehot") -> None:
        """Sets ``transform_``: ``"onehot"``, ``"label"``, ``"normalize"``, ``"string"`` or ``"identity"``."""
        self.transform_ = _tf.check(self, transform)

    def transform(self, X):
        """A list of categories to the warped space (one-hot rows, labels, [0, 1], strings or themselves)."""
        return _tf.categorical_transform(self, X)

    def inverse_transform(self, Xt):
        """Warped values back to an array of categories."""
        return _tf.categorical_inverse(self, Xt)

    @property
    def transformed_size(self) -> int:
        """The number of one-hot columns (one for two categories), else 1."""
        return _tf.categorical_size(self)

    @property
    def transformed_bounds(self):
        return _tf.categorical_bounds(self)

    def _box_range(self) -> tuple:
        return (0.0, float(len(self.categories) - 1))

    _kind = "categorical"

    def _to_box(self, v) -> float:
        return float(self.index(v))

    def _from_box(self, u: float):
        return self.categories[int(min(max(round(u), 0), len(self.categories) - 1))]


class _Ellipsis:
    """Shown as ``...`` in a long list of categories."""

    def __repr__(self) -> str:
        return "..."


def _is_integral(v) -> bool:
    return isinstance(v, numbers.Integral)


def _is_real(v) -> bool:
    return isinstance(v, numbers.Real)


def _foreign(dimension):
    """A scikit-optimize ``Real``/``Integer``/``Categorical``, read by its attributes."""
    kind = type(dimension).__name__
    if kind in ("Real", "Integer"):
        cls = Real if kind == "Real" else Integer
        return cls(dimension.low, dimension.high, prior=getattr(dimension, "prior", "uniform"),
                   base=getattr(dimension, "base", 10), transform=getattr(dimension, "transform_", None),
                   name=getattr(dimension, "name", None), dtype=getattr(dimension, "dtype", None))
    if kind == "Categorical":
        return Categorical(dimension.categories, prior=getattr(dimension, "prior", None),
                           transform=getattr(dimension, "transform_", None), name=getattr(dimension, "name", None))
    return None


def check_dimension(dimension, transform: Optional[str] = None) -> Dimension:
    """Turns a dimension description into a ``Real``, ``Integer`` or ``Categorical`` by
    scikit-optimize's rules (module documentation), made with ``transform`` (a dimension object
    is returned as it is)."""
    if isinstance(dimension, Dimension):
        return dimension
    if type(dimension).__module__.split(".")[0] == "skopt":
        dim = _foreign(dimension)
        if dim is not None:
            return dim
    if not isinstance(dimension, (list, tuple, np.ndarray)):
        raise InvalidParameterError(f"Invalid dimension {dimension!r}: expected (low, high), (low, high, prior), "
                                    "(low, high, prior, base), a list of categories, or a Real/Integer/Categorical")
    dimension = list(dimension) if isinstance(dimension, np.ndarray) else dimension
    n = len(dimension)
    if n == 0:
        raise InvalidParameterError("Invalid dimension []: expected at least one value")
    if n == 1:
        return Categorical(dimension, transform=transform)
    if n == 2:
        if any(isinstance(v, (str, bool, np.bool_)) for v in dimension):
            return Categorical(dimension, transform=transform)
        if all(_is_integral(v) for v in dimension):
            return Integer(*map(int, dimension), transform=transform)
        if all(_is_real(v) for v in dimension):
            return Real(*map(float, dimension), transform=transform)
        raise InvalidParameterError(f"Invalid dimension {dimension!r}: two values must be numbers (low, high) or categories")
    low, high, prior = dimension[0], dimension[1], dimension[2]
    if n == 3:
        if isinstance(prior, str) and prior in ("uniform", "log-uniform"):
            if _is_integral(low) and _is_integral(high):
                return Integer(int(low), int(high), prior, transform=transform)
            if _is_real(low) and _is_real(high):
                return Real(float(low), float(high), prior, transform=transform)
        return Categorical(dimension, transform=transform)
    if n == 4 and isinstance(prior, str) and prior == "log-uniform" and isinstance(dimension[3], int):
        if _is_integral(low) and _is_integral(high):
            return Integer(int(low), int(high), prior, dimension[3], transform=transform)
        if _is_real(low) and _is_real(high):
            return Real(float(low), float(high), prior, dimension[3], transform=transform)
    return Categorical(dimension, transform=transform)


class Space(_Checked):
    """A list of dimensions (scikit-optimize's ``Space``): ``dimensions``, ``dimension_names``,
    ``n_dims``, ``bounds``, ``rvs``, ``distance``, ``in``, and the transform API
    (``transform``, ``inverse_transform``, ``set_transformer``, ``set_transformer_by_type``,
    ``get_transformer``, ``transformed_n_dims``, ``transformed_bounds``)."""

    def __init__(self, dimensions, constraint=None):
        if constraint is not None:
            raise InvalidParameterError("space_constraint is not offered: return a large value from the objective "
                                        "outside the feasible set (or NaN with on_nonfinite='treat-as-inf')")
        if hasattr(dimensions, "dimensions") and not isinstance(dimensions, (list, tuple)):
            dimensions = dimensions.dimensions       # a Space (ours or scikit-optimize's)
        if isinstance(dimensions, (str, bytes)) or not isinstance(dimensions, (list, tuple)) or len(dimensions) == 0:
            raise InvalidParameterError(f"dimensions: expected a non-empty list of dimensions, got {dimensions!r}")
        self.dimensions = [check_dimension(d) for d in dimensions]
        self.constraint = None

    def __repr__(self) -> str:
        return "Space([" + ",\n       ".join(map(repr, self.dimensions)) + "])"

    def __eq__(self, other) -> bool:
        return isinstance(other, Space) and self.dimensions == other.dimensions

    __hash__ = None

    def __iter__(self):
        return iter(self.dimensions)

    @property
    def n_dims(self) -> int:
        return len(self.dimensions)

    @property
    def dimension_names(self) -> list:
        """The dimensions' names (``X_i`` for an unnamed one); assignable, as scikit-optimize's."""
        return [d.name if d.name is not None else f"X_{i}" for i, d in enumerate(self.dimensions)]

    @dimension_names.setter
    def dimension_names(self, names) -> None:
        if len(names) != len(self.dimensions):
            raise InvalidParameterError(f"dimension_names: `names` must be the same length as `self.dimensions` "
                                        f"({len(self.dimensions)}), got {len(names)}")
        for d, name in zip(self.dimensions, names):
            d.name = name

    def __getitem__(self, key):
        """``(index, dimension)`` for a name or an index (``(None, None)`` if there is none), or a
        list of them for a list of keys (scikit-optimize's lookup)."""
        def get(k):
            for i, d in enumerate(self.dimensions):
                if k == d.name or (isinstance(k, int) and not isinstance(k, bool) and k == i):
                    return (i, d)
            return (None, None)
        if isinstance(key, (str, int)) and not isinstance(key, bool):
            return get(key)
        if isinstance(key, (list, tuple)):
            return [get(k) for k in key]
        raise InvalidParameterError(f"Dimension name should be either string or list of strings, but got {type(key).__name__}")

    @property
    def bounds(self) -> list:
        return [d.bounds for d in self.dimensions]

    @property
    def is_real(self) -> bool:
        return all(isinstance(d, Real) for d in self.dimensions)

    @property
    def is_categorical(self) -> bool:
        return all(isinstance(d, Categorical) for d in self.dimensions)

    @property
    def is_partly_categorical(self) -> bool:
        return any(isinstance(d, Categorical) for d in self.dimensions)

    @property
    def n_constant_dimensions(self) -> int:
        return sum(d.is_constant for d in self.dimensions)

    def __contains__(self, point) -> bool:
        return len(point) == self.n_dims and all(v in d for v, d in zip(point, self.dimensions))

    def rvs(self, n_samples: int = 1, random_state=None) -> list:
        """``n_samples`` points drawn from the priors, as a list of lists."""
        rng = _rng(random_state)
        cols = [d.rvs(n_samples, rng) for d in self.dimensions]
        return [[v.item() if isinstance(v, np.generic) else v for v in p] for p in zip(*cols)]

    def distance(self, point_a, point_b) -> float:
        """The sum of the dimensions' distances (scikit-optimize's)."""
        return sum(d.distance(a, b) for d, a, b in zip(self.dimensions, point_a, point_b))

    # scikit-optimize's transform API (the optimizer's search does not depend on it).
    def set_transformer(self, transform) -> None:
        """Sets every dimension's transform to ``transform``, or each to its own (a list as long as
        ``dimensions``); all are checked before any is set."""
        if isinstance(transform, (list, tuple)):
            if len(transform) != self.n_dims:
                raise InvalidParameterError(f"transform: expected one transform per dimension ({self.n_dims}), "
                                            f"got {len(transform)}")
            pairs = list(zip(self.dimensions, transform))
        else:
            pairs = [(d, transform) for d in self.dimensions]
        for d, t in [(d, _tf.check(d, t)) for d, t in pairs]:
            d.transform_ = t

    def set_transformer_by_type(self, transform, dim_type) -> None:
        """Sets the transform of the dimensions of type ``dim_type`` (``Real``, ``Integer`` or
        ``Categorical``, ours or scikit-optimize's, or a tuple of them)."""
        types = dim_type if isinstance(dim_type, tuple) else (dim_type,)
        if not types or not all(isinstance(t, type) for t in types):
            raise InvalidParameterError(f"dim_type = {dim_type!r}: expected a dimension class (Real, Integer or Categorical)")
        foreign = {t.__name__ for t in types if t.__module__.split(".")[0] == "skopt"}
        chosen = [d for d in self.dimensions
                  if isinstance(d, types) or type(d).__name__ in foreign or "Dimension" in foreign]
        for d, t in [(d, _tf.check(d, transform)) for d in chosen]:
            d.transform_ = t

    def get_transformer(self) -> list:
        return [d.transform_ for d in self.dimensions]

    @property
    def transformed_n_dims(self) -> int:
        return sum(d.transformed_size for d in self.dimensions)

    @property
    def transformed_bounds(self) -> list:
        """Each dimension's transformed bounds, one pair per column."""
        out = []
        for d in self.dimensions:
            (out.extend if d.transformed_size > 1 else out.append)(d.transformed_bounds)
        return out

    def transform(self, X) -> np.ndarray:
        """Points (a list of lists) to the warped space: a float array of ``transformed_n_dims``
        columns, each dimension's side by side (strings or objects if a categorical is
        ``"string"`` or ``"identity"`` of non-numbers, as scikit-optimize's)."""
        try:
            rows = [list(p) for p in X]
        except TypeError:
            raise InvalidParameterError(f"X: expected a list of points, got {X!r}") from None
        for p in rows:
            if len(p) != self.n_dims:
                raise InvalidParameterError(f"X: every point must have {self.n_dims} values, got {p!r}")
        blocks = [_tf.column_block(d.transform([p[j] for p in rows]), len(rows), d.transformed_size)
                  for j, d in enumerate(self.dimensions)]
        Xt = np.hstack(blocks)
        return Xt.astype(float) if Xt.dtype.kind in "biuf" else Xt

    def inverse_transform(self, Xt) -> list:
        """Warped points (``transformed_n_dims`` columns) back to a list of lists of values."""
        try:
            Xt = np.asarray(Xt)
        except ValueError:
            raise InvalidParameterError("Xt: expected a 2-D array of transformed points") from None
        if Xt.ndim != 2 or Xt.shape[1] != self.transformed_n_dims:
            raise InvalidParameterError(f"Xt: expected shape (n_points, {self.transformed_n_dims}), got {Xt.shape}")
        cols, start = [], 0
        for d in self.dimensions:
            k = d.transformed_size
            cols.append(d.inverse_transform(Xt[:, start] if k == 1 else Xt[:, start:start + k]))
            start += k
        return [[v.item() if isinstance(v, np.generic) else v for v in p] for p in zip(*cols)]

    # The box the optimizer searches (constant categoricals left out).
    @property
    def _free(self) -> list:
        return [i for i, d in enumerate(self.dimensions) if not d.is_constant]

    def _box(self) -> tuple:
        free = [self.dimensions[i] for i in self._free]
        if not free:
            raise InvalidParameterError("dimensions: every dimension is a single category, so there is nothing to search")
        lo, hi = zip(*(d._box_range() for d in free))
        return list(lo), list(hi), [d._kind for d in free]

    def _to_box(self, point) -> list:
        return [self.dimensions[i]._to_box(point[i]) for i in self._free]

    def _from_box(self, u) -> list:
        it = iter(u)
        return [d.categories[0] if d.is_constant else d._from_box(next(it)) for d in self.dimensions]

    def _check_point(self, point) -> None:
        """scikit-optimize's ``check_x_in_space`` for one point (a ``ValueError`` naming it)."""
        if len(point) != self.n_dims:
            raise InvalidParameterError(f"Dimensions of point ({list(point)}) and space ({self.bounds}) do not match: "
                                        f"expected {self.n_dims} values, got {len(point)}")
        for i, (v, d) in enumerate(zip(point, self.dimensions)):
            if v not in d:
                raise InvalidParameterError(f"Point ({list(point)}) is not within the bounds of the space ({self.bounds}): "
                                            f"coordinate {i} = {v!r} is outside {d}")
