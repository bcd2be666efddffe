"""scikit-optimize's helpers: ``dump``/``load`` of results and optimizers, ``use_named_args``."""
from __future__ import annotations

import copy
import functools
import os
import pickle

from .. import _gradfree
from ..errors import InvalidParameterError
from .space import Space

__all__ = ["dump", "load", "use_named_args"]


def dump(res, filename, store_objective: bool = True, **kwargs) -> None:
    """Saves a result (or an :class:`~gradfree.bo.Optimizer`) to ``filename`` (a path or a file
    object) by pickling; a path is written
    atomically: a crash leaves the old file or the new one, never half of one (scikit-optimize's
    ``dump``, which uses joblib). ``store_objective=False`` leaves out the objective function kept
    in ``res.specs["args"]["func"]`` (for objectives that cannot be pickled). ``kwargs`` are
    scikit-optimize's joblib options (``compress``, ...), accepted and not needed."""
    if not store_objective:
        args = (getattr(res, "specs", None) or {}).get("args", {})
        if "func" in args:
            res = copy.copy(res)
            res["specs"] = {**res["specs"], "args": {k: v for k, v in args.items() if k != "func"}}
    try:
        data = pickle.dumps(res)
    except (pickle.PicklingError, AttributeError, TypeError) as e:
        raise InvalidParameterError(f"dump: the result cannot be pickled ({e}); pass store_objective=False if the "
                                    "objective is a lambda or a local function") from e
    if hasattr(filename, "write"):
        filename.write(data)
        return
    _gradfree.atomic_write(os.fspath(filename), data)


def load(filename, **kwargs):
    """A result or optimizer saved with :func:`dump`. Unpickling runs code: load only files you
    trust."""
    if hasattr(filename, "read"):
        return pickle.load(filename)
    with open(os.fspath(filename), "rb") as f:
        return pickle.load(f)


def use_named_args(dimensions):
    """A decorator that lets an objective take the dimensions' names as keyword arguments and be
    called with a point (scikit-optimize's ``use_named_args``)::

        space = [Real(0, 1, name="lr"), Integer(1, 5, name="depth")]

        @use_named_args(space)
        def objective(lr, depth): ...

        objective([0.1, 3])
    """
    space = Space(dimensions)
    names = [d.name for d in space.dimensions]
    if any(n is None for n in names):
        raise InvalidParameterError("use_named_args: every dimension needs a name (name=...)")
    # scikit-optimize builds {name: value} and so keeps only the last value of a repeated name,
    # handing the objective fewer arguments than the point has; a repeated name is refused.
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        where = "; ".join(f"{n!r} at {[i for i, m in enumerate(names) if m == n]}" for n in repeated)
        raise InvalidParameterError(f"use_named_args: dimension names must differ, got {where} (the objective would "
                                    "receive one value for each repeated name)")

    def decorator(func):
        @functools.wraps(func)
        def wrapper(x):
            if len(x) != len(names):
                raise InvalidParameterError(f"use_named_args: a point of {len(x)} values for {len(names)} dimensions {names}")
            return func(**dict(zip(names, x)))
        return wrapper
    return decorator
