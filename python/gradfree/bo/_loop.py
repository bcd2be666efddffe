"""The loops of :func:`gp_minimize` (scikit-optimize's signature) and :func:`minimize`
(gradfree's batches) over :class:`gradfree.bo.optimizer.Optimizer` (scikit-optimize's
``base_minimize``)."""
from __future__ import annotations

import concurrent.futures
import numbers
import os
from typing import Callable, Optional

import numpy as np

from .. import _util
from ..errors import InvalidParameterError
from .._es_minimize import OptimizeResult
from .callbacks import VerboseCallback, check_callback, eval_callbacks
from .optimizer import Optimizer, _as_given, _check_budget, _count, _is_point, _n_initial
from .space import Space

__all__ = ["gp_minimize", "minimize"]


def _values(name: str, y) -> list:
    """``y0``: one number or a list of numbers."""
    y = _util._scalar(y)
    items = [y] if isinstance(y, (numbers.Number, np.generic)) or y is None else y
    if not isinstance(items, (list, tuple, np.ndarray)):
        raise InvalidParameterError(f"{name}: expected a number or a list of numbers, got {y!r}")
    out = []
    for k, v in enumerate(items.tolist() if isinstance(items, np.ndarray) else items):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
            raise InvalidParameterError(f"{name}[{k}] = {v!r}: expected a number")
        out.append(float(v))
    return out


def _workers(n_jobs) -> Optional[int]:
    """The threads ``n_jobs`` asks for (``None``: evaluate in this thread)."""
    if n_jobs is None or (isinstance(n_jobs, numbers.Integral) and not isinstance(n_jobs, bool) and n_jobs == 1):
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0 or n_jobs < -1:
        raise InvalidParameterError(f"n_jobs: expected a positive integer or -1 (one per core), got {n_jobs!r}")
    return (os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs)


def _minimize(function: str, call: dict) -> OptimizeResult:
    """The loop of :func:`gp_minimize` and :func:`minimize` (scikit-optimize's ``base_minimize``);
    ``call`` is the caller's arguments by name (kept as ``specs["args"]``)."""
    kwargs = dict(call.pop("kwargs"))
    specs_args = {**call, **kwargs}
    (func, dimensions, base_estimator, n_calls, n_random_starts, n_initial_points, initial_point_generator, acq_func,
     acq_optimizer, x0, y0, random_state, verbose, callback, n_restarts_optimizer, xi, kappa, noise, n_jobs,
     model_queue_size, space_constraint, batch_size, executor) = (
        call[k] for k in ("func", "dimensions", "base_estimator", "n_calls", "n_random_starts", "n_initial_points",
                          "initial_point_generator", "acq_func", "acq_optimizer", "x0", "y0", "random_state", "verbose",
                          "callback", "n_restarts_optimizer", "xi", "kappa", "noise", "n_jobs", "model_queue_size",
                          "space_constraint", "batch_size", "executor"))
    kwargs["method"] = call["method"]
    if not callable(func):
        raise InvalidParameterError(f"func: expected a callable, got {func!r}")
    n_calls = _count("n_calls", n_calls, 0)
    if x0 is None or (isinstance(x0, (list, tuple)) and len(x0) == 0):
        x0 = []
    elif _is_point(x0):
        x0 = [list(x0)]
    if not isinstance(x0, (list, tuple)) or not all(isinstance(p, (list, tuple, np.ndarray)) for p in x0):
        raise InvalidParameterError(f"`x0` should be a list (a point, or a list of points), but got {x0!r}")
    x0 = [list(p) for p in x0]
    initial_name = "n_initial_points"
    if n_random_starts is not None:
        n_initial_points, initial_name = n_random_starts, "n_random_starts"
    space = Space(dimensions, constraint=space_constraint)
    d = len(space._free)
    n_initial_points = _n_initial(n_initial_points, d, initial_name)
    if n_initial_points <= 0 and not x0:
        raise InvalidParameterError(f"Either set `{initial_name}` > 0, or provide `x0`")
    if y0 is not None:
        y0 = _values("y0", y0)
        if len(y0) != len(x0):
            raise InvalidParameterError(f"`x0` and `y0` should have the same length ({len(x0)} points, {len(y0)} values)")
    required = n_initial_points + (len(x0) if not y0 else 0)
    if n_calls < required:
        extra = f" + {len(x0)} points of x0 to evaluate" if x0 and not y0 else ""
        raise InvalidParameterError(f"Expected `n_calls` >= {required}, got {n_calls} ({initial_name} = "
                                    f"{n_initial_points}{extra})")
    for k, p in enumerate(x0):
        try:
            space._check_point(p)
        except InvalidParameterError as e:
            raise InvalidParameterError(f"x0[{k}]: {e}") from None
    _check_budget(n_calls)
    executor = None if executor is None else _util.executor(executor)
    workers = None if executor is not None else _workers(n_jobs)
    # Parameters the Optimizer takes under other names: its errors name the caller's keyword.
    renamed = {}
    if batch_size is None and function == "gp_minimize":
        if executor is not None:   # batches as large as the pool, at most BO's largest batch (1000)
            batch_size = min(getattr(executor, "_max_workers", None) or getattr(executor, "_processes", None) or 5, 1000)
        else:
            batch_size = 1 if workers is None else (min(workers, 1000) if n_jobs == -1 else workers)
            renamed["batch_size"] = "n_jobs"
    opt_kwargs = dict(kwargs)
    if n_restarts_optimizer is not None and "acq_starts" not in opt_kwargs:
        opt_kwargs["acq_starts"] = n_restarts_optimizer
        renamed["acq_starts"] = "n_restarts_optimizer"
    with _as_given(**renamed):
        opt = Optimizer(space, base_estimator=base_estimator, n_initial_points=n_initial_points + len(x0),
                        initial_point_generator=initial_point_generator, acq_func=acq_func, acq_optimizer=acq_optimizer,
                        random_state=random_state, model_queue_size=model_queue_size, batch_size=batch_size, noise=noise,
                        kappa=kappa, xi=xi, n_calls=n_calls, **opt_kwargs)
    opt.specs = {"args": specs_args, "function": function}
    owned = workers is not None
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers) if owned else executor
    # The initial design counts only the points still to evaluate (x0 with its values is extra).
    callbacks = check_callback(callback)
    if verbose:
        callbacks.append(VerboseCallback(n_total=n_calls, n_init=len(x0) if not y0 else 0, n_random=n_initial_points))
    evaluate = (lambda X: [func(p) for p in X]) if pool is None else (lambda X: list(pool.map(func, X)))
    try:
        left = n_calls
        if x0:
            if y0 is None:
                y0 = evaluate(x0)
                left -= len(y0)
            result = opt.tell(x0, list(y0))
            result.specs = opt.specs
            if eval_callbacks(callbacks, result):
                return result
        batch = 1 if opt._bo is None else opt._bo.batch_size
        while left > 0:
            X = opt.ask(min(batch, left))
            for p, v in zip(X, evaluate(X)):
                left -= 1
                result = opt.tell(p, v)
                if eval_callbacks(callbacks, result):
                    return result
        return opt.get_result()
    finally:
        if owned:
            pool.shutdown(wait=True)


def gp_minimize(func: Callable, dimensions, base_estimator=None, n_calls: int = 100, n_random_starts=None,
                n_initial_points=None, initial_point_generator="lattice", acq_func=None, acq_optimizer="auto", x0=None,
                y0=None, random_state=None, verbose: bool = False, callback=None, n_points=None, n_restarts_optimizer=None,
                xi=None, kappa=None, noise="gaussian", n_jobs=1, model_queue_size=None, space_constraint=None, *,
                method: Optional[str] = None, batch_size: Optional[int] = None, executor=None, **kwargs) -> OptimizeResult:
    """Minimizes ``func`` by Bayesian optimization with ``skopt.gp_minimize``'s signature.

    ``func(x)`` takes one point (a list, in the order of ``dimensions``) and returns a number.
    Points are evaluated one at a time (``n_jobs=1``), or in batches of ``n_jobs`` on a thread
    pool, or of ``batch_size`` through ``executor.map`` (a process pool, a Ray pool); every
    evaluation is told at once and the callbacks run after each (``True`` stops). ``x0``/``y0``
    are evaluated or told first and count towards ``n_calls`` as in scikit-optimize.

    Defaults differ from scikit-optimize's where gradfree's are its own (the table
    :data:`SKOPT_OPTIONS`): ``acq_func=None`` (or ``"gp_hedge"``) runs the thesis' BKOP rule,
    ``initial_point_generator="lattice"`` a rank-1 lattice, ``n_initial_points=None`` is
    ``max(10, 3d + 2)``. Keyword-only extras: ``method``, ``batch_size``, ``executor`` and the
    options of :class:`Optimizer`.

    Returns
    -------
    OptimizeResult
        ``x``, ``fun``, ``func_vals``, ``x_iters``, ``models``, ``space``, ``random_state``,
        ``specs``, ``nfev``.
    """
    return _minimize("gp_minimize", dict(locals()))


def minimize(func: Callable, dimensions, n_calls: int = 100, n_initial_points=None, batch_size: Optional[int] = None,
             method: Optional[str] = None, random_state=None, seed: Optional[int] = None, callback=None, *, x0=None, y0=None,
             base_estimator=None, n_random_starts=None, initial_point_generator="lattice", acq_func=None,
             acq_optimizer="auto", verbose: bool = False, n_points=None, n_restarts_optimizer=None, xi=None, kappa=None,
             noise="gaussian", n_jobs=1, model_queue_size=None, space_constraint=None, executor=None, **kwargs) -> OptimizeResult:
    """Minimizes ``func`` by batch Bayesian optimization: :func:`gp_minimize` with gradfree's
    batches (``batch_size`` points per round, default 5, the thesis' L; ``batch_size=1`` is the
    sequential constant-weight UCB, Alg. 5). ``seed`` is an alias of ``random_state``."""
    if seed is not None and random_state is not None and seed != random_state:
        raise InvalidParameterError("give seed or random_state, not both")
    random_state = random_state if random_state is not None else seed
    return _minimize("minimize", dict(locals()))
