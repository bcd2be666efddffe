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
is held fixed.
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Iterable, Optional

import numpy as np

from ..errors import InvalidParameterError

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


class Dimension:
    """A search dimension (scikit-optimize's ``Dimension``): ``rvs``, ``bounds``, ``name``,
    ``distance`` and ``in``; ``_kind``, ``_box``, ``_to_box`` and ``_from_box`` give the box the
    optimizer searches."""

    _name: Optional[str] = None

    @property
    def name(self) -> Optional[str]:
        return self._name

    @name.setter
    def name(self, value) -> None:
        if value is not None and not isinstance(value, str):
            raise InvalidParameterError(f"name = {value!r}: Dimension's name must be either string or None.")
        self._name = value

    def rvs(self, n_samples: int = 1, random_state=None) -> np.ndarray:
        """``n_samples`` values drawn from the dimension's prior, as an array (scikit-optimize's)."""
        rng = _rng(random_state)
        values = [self._from_box(u) for u in rng.uniform(*self._box_range(), size=n_samples)]
        return np.array(values, dtype=np.int64 if getattr(self, "_integer", False) else float)

    @property
    def size(self) -> int:
        return 1

    @property
    def is_constant(self) -> bool:
        return False


class _Numeric(Dimension):
    """``Real`` and ``Integer``: ``low``, ``high``, ``prior``, ``base``."""

    _integer = False

    def __init__(self, low, high, prior: str = "uniform", base: int = 10, transform: Optional[str] = None,
                 name: Optional[str] = None, dtype=None):
        kind = type(self).__name__
        for label, v in (("low", low), ("high", high)):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or not math.isfinite(v):
                raise InvalidParameterError(f"{kind} {label} = {v!r}: expected a finite number")
        if high <= low:
            raise InvalidParameterError(f"{kind} bounds ({low}, {high}): the lower bound {low} has to be less than the upper "
                                        f"bound {high}")
        if prior not in ("uniform", "log-uniform"):
            raise InvalidParameterError(f"{kind} prior = {prior!r}: expected 'uniform' or 'log-uniform'")
        if prior == "log-uniform" and low <= 0:
            raise InvalidParameterError(f"{kind}({low}, {high}, 'log-uniform'): search space should not contain 0 "
                                        "when using log-uniform prior (both bounds must be > 0)")
        if isinstance(base, bool) or not isinstance(base, numbers.Real) or not base > 1:
            raise InvalidParameterError(f"{kind} base = {base!r}: expected a number > 1")
        if transform not in (None, "identity", "normalize"):
            raise InvalidParameterError(f"{kind} transform = {transform!r}: should be 'normalize' or 'identity'")
        self.low, self.high = (int(low), int(high)) if self._integer else (float(low), float(high))
        self.prior, self.base, self.name = prior, base, name
        self.transform_ = transform or "identity"
        self.dtype = dtype if dtype is not None else (np.int64 if self._integer else float)

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
        return bool(self.low <= point <= self.high)

    def distance(self, a, b) -> float:
        """``|a - b|`` (both must be inside the dimension)."""
        if not (a in self and b in self):
            raise RuntimeError(f"Can only compute distance for values within the space, not {a!r} and {b!r} ({self})")
        return abs(a - b)

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
        return min(max(v, self.low), self.high)


class Real(_Numeric):
    """A continuous dimension ``[low, high]`` (scikit-optimize's ``Real``): ``prior="uniform"`` or
    ``"log-uniform"`` (searched in ``log_base`` coordinates), ``base`` (default 10), ``name``.
    ``transform`` is accepted for scikit-optimize's scripts and has no effect here: the optimizer
    always works in the unit cube of the (log) box."""


class Integer(_Numeric):
    """An integer dimension ``{low, ..., high}`` (scikit-optimize's ``Integer``), bounds included;
    with ``prior="log-uniform"`` it is searched in ``log_base`` coordinates and rounded."""

    _integer = True


class Categorical(Dimension):
    """Unordered choices (scikit-optimize's ``Categorical``): ``categories``, ``prior`` (accepted,
    unused by the optimizer), ``name``. A single category is held fixed."""

    def __init__(self, categories: Iterable[Any], prior=None, transform: Optional[str] = None, name: Optional[str] = None):
        self.categories = tuple(categories)
        if not self.categories:
            raise InvalidParameterError("Categorical: expected at least one category")
        if transform not in (None, "onehot", "label", "string", "identity", "normalize"):
            raise InvalidParameterError(f"Categorical transform = {transform!r}: expected 'onehot', 'label', 'string', "
                                        "'identity' or 'normalize'")
        if prior is not None and len(prior) != len(self.categories):
            raise InvalidParameterError(f"Categorical prior: expected {len(self.categories)} probabilities, got {len(prior)}")
        self.prior, self.name = prior, name
        self.transform_ = transform or "onehot"

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


def _same(a, b) -> bool:
    """Category equality that does not raise on arrays or mixed types."""
    if isinstance(a, (bool, np.bool_)) != isinstance(b, (bool, np.bool_)):
        return False     # True is not the category 1
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return a is b


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
                   base=getattr(dimension, "base", 10), name=getattr(dimension, "name", None))
    if kind == "Categorical":
        return Categorical(dimension.categories, prior=getattr(dimension, "prior", None), name=getattr(dimension, "name", None))
    return None


def check_dimension(dimension, transform: Optional[str] = None) -> Dimension:
    """Turns a dimension description into a ``Real``, ``Integer`` or ``Categorical`` by
    scikit-optimize's rules (module documentation). ``transform`` is accepted for compatibility."""
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
        return Categorical(dimension)
    if n == 2:
        if any(isinstance(v, (str, bool, np.bool_)) for v in dimension):
            return Categorical(dimension)
        if all(_is_integral(v) for v in dimension):
            return Integer(*map(int, dimension))
        if all(_is_real(v) for v in dimension):
            return Real(*map(float, dimension))
        raise InvalidParameterError(f"Invalid dimension {dimension!r}: two values must be numbers (low, high) or categories")
    low, high, prior = dimension[0], dimension[1], dimension[2]
    if n == 3:
        if isinstance(prior, str) and prior in ("uniform", "log-uniform"):
            if _is_integral(low) and _is_integral(high):
                return Integer(int(low), int(high), prior)
            if _is_real(low) and _is_real(high):
                return Real(float(low), float(high), prior)
        return Categorical(dimension)
    if n == 4 and isinstance(prior, str) and prior == "log-uniform" and isinstance(dimension[3], int):
        if _is_integral(low) and _is_integral(high):
            return Integer(int(low), int(high), prior, dimension[3])
        if _is_real(low) and _is_real(high):
            return Real(float(low), float(high), prior, dimension[3])
    return Categorical(dimension)


class Space:
    """A list of dimensions (scikit-optimize's ``Space``): ``dimensions``, ``dimension_names``,
    ``n_dims``, ``bounds``, ``rvs``, ``distance``, ``in``."""

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
