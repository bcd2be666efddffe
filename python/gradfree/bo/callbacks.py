"""Callbacks with scikit-optimize's names and rules (``skopt.callbacks``): each is called with the
result so far after every evaluation; returning ``True`` stops the run.

- :class:`DeltaXStopper`: the last two points are closer than ``delta`` (the space's distance);
- :class:`DeltaYStopper`: the ``n_best`` best values lie within ``delta``;
- :class:`HollowIterationsStopper`: the best value improved by at most ``threshold`` over the last
  ``n_iterations`` evaluations;
- :class:`DeadlineStopper`: the time left is less than the longest evaluation so far;
- :class:`ThresholdStopper`: a value at or below ``threshold`` was found;
- :class:`VerboseCallback`, :class:`TimerCallback`, :class:`CheckpointSaver`: print, time, save.
"""
from __future__ import annotations

import time
from typing import Callable, List

import numpy as np

from ..errors import InvalidParameterError

__all__ = ["EarlyStopper", "DeltaXStopper", "DeltaYStopper", "HollowIterationsStopper", "DeadlineStopper",
           "ThresholdStopper", "VerboseCallback", "TimerCallback", "CheckpointSaver", "check_callback", "eval_callbacks"]


def check_callback(callback) -> List[Callable]:
    """A list of callables from ``None``, one callable or a list of them (scikit-optimize's rule:
    anything else is a ``ValueError``)."""
    if callback is None:
        return []
    if callable(callback):
        return [callback]
    if isinstance(callback, (list, tuple)) and all(callable(c) for c in callback):
        return list(callback)
    raise InvalidParameterError(f"callback: expected a callable or a list of callables, got {callback!r}")


def eval_callbacks(callbacks, result) -> bool:
    """Calls every callback (all of them, as scikit-optimize does); ``True`` if one asks to stop."""
    stop = False
    for c in callbacks:
        decision = c(result)
        if decision is not None:
            stop = stop or bool(decision)
    return stop


class EarlyStopper:
    """Base class: ``__call__(result)`` returns ``self._criterion(result)`` (``True`` stops,
    ``None`` means not enough data yet)."""

    def __call__(self, result):
        return self._criterion(result)

    def _criterion(self, result):  # pragma: no cover - abstract
        raise NotImplementedError("subclasses of EarlyStopper implement _criterion(result)")


class DeltaXStopper(EarlyStopper):
    """Stops when the last two points evaluated are less than ``delta`` apart."""

    def __init__(self, delta: float):
        self.delta = delta

    def _criterion(self, result):
        if len(result.x_iters) < 2:
            return None
        return result.space.distance(result.x_iters[-2], result.x_iters[-1]) < self.delta


class DeltaYStopper(EarlyStopper):
    """Stops when the ``n_best`` best values lie within ``delta`` of each other."""

    def __init__(self, delta: float, n_best: int = 5):
        self.delta, self.n_best = delta, n_best

    def _criterion(self, result):
        if len(result.func_vals) < self.n_best:
            return None
        vals = np.sort(result.func_vals)
        return vals[self.n_best - 1] - vals[0] < self.delta


class HollowIterationsStopper(EarlyStopper):
    """Stops when the best value improved by at most ``threshold`` over the last ``n_iterations``
    evaluations."""

    def __init__(self, n_iterations: int, threshold: float = 0):
        self.n_iterations, self.threshold = n_iterations, abs(threshold)

    def _criterion(self, result):
        if len(result.func_vals) <= self.n_iterations:
            return False
        best = np.minimum.accumulate(result.func_vals)
        return best[-self.n_iterations - 1] - best[-1] <= self.threshold


class DeadlineStopper(EarlyStopper):
    """Stops before ``total_time`` seconds run out: when the time left is less than the longest
    interval between two calls so far (``iter_time`` keeps them)."""

    def __init__(self, total_time: float):
        self._time = time.time()
        self.iter_time: list = []
        self.total_time = total_time

    def _criterion(self, result):
        now = time.time()
        self.iter_time.append(now - self._time)
        self._time = now
        if not result.x_iters:
            return None
        return self.total_time - float(np.sum(self.iter_time)) <= max(self.iter_time)


class ThresholdStopper(EarlyStopper):
    """Stops once a value at or below ``threshold`` has been found."""

    def __init__(self, threshold: float):
        self.threshold = threshold

    def _criterion(self, result):
        return bool(np.any(np.asarray(result.func_vals) <= self.threshold))


class TimerCallback:
    """Records the time between calls in ``iter_time``."""

    def __init__(self):
        self._time = time.time()
        self.iter_time: list = []

    def __call__(self, result):
        now = time.time()
        self.iter_time.append(now - self._time)
        self._time = now


class VerboseCallback:
    """Prints one block per evaluation: its number, the value and the best so far (as
    scikit-optimize's ``verbose=True``)."""

    def __init__(self, n_total: int, n_init: int = 0, n_random: int = 0):
        self.n_total, self.n_init, self.n_random = n_total, n_init, n_random
        self._start = time.time()
        self.iter_no = 1

    def __call__(self, result):
        now = time.time()
        print(f"Iteration No: {self.iter_no} ended. Search finished for the next optimal point.")
        print(f"Time taken: {now - self._start:.4f}")
        print(f"Function value obtained: {result.func_vals[-1]:.4f}")
        print(f"Current minimum: {result.fun:.4f}")
        self._start = now
        self.iter_no += 1


class CheckpointSaver:
    """Saves the result after every evaluation with :func:`gradfree.bo.dump` (written atomically:
    an interrupted save leaves the previous file)."""

    def __init__(self, checkpoint_path: str, **dump_options):
        if not isinstance(checkpoint_path, str) or not checkpoint_path:
            raise InvalidParameterError(f"checkpoint_path: expected a file name, got {checkpoint_path!r}")
        self.checkpoint_path, self.dump_options = checkpoint_path, dump_options

    def __call__(self, result):
        from .utils import dump
        dump(result, self.checkpoint_path, **self.dump_options)
