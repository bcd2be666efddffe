"""Exceptions raised by gradfree.

Every error gradfree raises on bad input is a :class:`GradfreeError`; the subclasses also derive
from the built-in exception a caller would catch without knowing gradfree (``ValueError`` for
invalid parameters, shapes, values and files, ``MemoryError`` for sizes that cannot fit).
"""


class GradfreeError(Exception):
    """Base class of gradfree's errors."""


class InvalidParameterError(GradfreeError, ValueError):
    """A parameter, shape or call order outside what is accepted; the message names it and the
    accepted range."""


class NonFiniteError(GradfreeError, ValueError):
    """An objective or integrand value was NaN or infinite under the ``error`` policy."""


class CheckpointError(GradfreeError, ValueError):
    """A saved state (pickle, checkpoint) is corrupt, foreign or inconsistent."""


class ModelFitError(GradfreeError, ArithmeticError):
    """A surrogate model (a Gaussian process) could not be fitted: its kernel matrix stayed
    singular at every jitter of the ladder (e.g. many duplicated points with zero noise)."""


class TooLargeError(GradfreeError, MemoryError):
    """A size whose memory or running time this machine cannot afford; nothing was allocated."""


__all__ = ["GradfreeError", "InvalidParameterError", "NonFiniteError", "CheckpointError", "ModelFitError", "TooLargeError"]
