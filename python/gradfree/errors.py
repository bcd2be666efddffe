"""Exceptions raised by gradfree.

Every error gradfree raises on bad input is a :class:`GradfreeError`; the subclasses also derive
from the built-in exception a caller would catch without knowing gradfree (``ValueError`` for
invalid parameters, shapes, values and files, ``ArithmeticError`` for a model that cannot be
fitted, ``MemoryError`` for sizes that cannot fit).

The classes are made by the Rust extension (``gradfree._gradfree``), which raises them by a match
on the Rust error's kind; this module is where they are documented and imported from:

- ``GradfreeError``: the base class;
- ``InvalidParameterError(GradfreeError, ValueError)``: a parameter, shape or call order outside
  what is accepted; the message names it and the accepted range;
- ``NonFiniteError(GradfreeError, ValueError)``: an objective or integrand value was NaN or
  infinite under the ``error`` policy;
- ``CheckpointError(GradfreeError, ValueError)``: a saved state (pickle, checkpoint) is corrupt,
  foreign or inconsistent;
- ``ModelFitError(GradfreeError, ArithmeticError)``: a Gaussian process could not be fitted, or a
  moment-adjusted step's per-sample gradients had no spread at all;
- ``DataError(GradfreeError, ValueError)``: data that cannot be used (no rows, NaN or infinite
  values, responses outside the model's range, a stream that ended before one step); the message
  names the row or the rule;
- ``TooLargeError(GradfreeError, MemoryError)``: a size whose memory or running time this machine
  cannot afford; nothing was allocated;
- ``NotOfferedError(GradfreeError, AttributeError)``: a statistic the fit's method does not offer
  (``bse`` or ``conf_int`` of a chain method, whose spread is the process's: use ``bands``);
- ``MissingDependencyError(GradfreeError, ImportError)``: an optional package a feature needs is
  not installed (patsy for formulas, Gymnasium for policy search); the message names what to
  install.

and warnings:

- ``InferenceWarning(UserWarning)``: an inference result to read with care (chains that agree
  exactly, so an interval of width 0);
- ``ConvergenceWarning(InferenceWarning)``: maximum likelihood that did not converge, or chains
  that have not settled (their mean still moving, a running average still drifting);
- ``PerfectSeparationWarning(InferenceWarning)``: a logistic fit on separated classes
  (statsmodels' warning of the same name and text): the likelihood has no maximum, so the
  estimate and its interval mean nothing.
"""
from ._gradfree import (CheckpointError, DataError, GradfreeError, InvalidParameterError, ModelFitError,
                        NonFiniteError, NotOfferedError, TooLargeError)



class MissingDependencyError(GradfreeError, ImportError):
    """An optional package that the requested feature needs is not installed; the message says
    what to install (``pip install patsy`` for formulas, ``pip install gymnasium`` for
    reinforcement-learning tasks, ...)."""


class InferenceWarning(UserWarning):
    """An inference result to be read with care (the message says why)."""


class PerfectSeparationWarning(InferenceWarning):
    """Perfect separation or prediction detected, parameter may not be identified (as statsmodels')."""


class ConvergenceWarning(InferenceWarning):
    """A fit that has not converged: maximum likelihood stopped at its step limit, chains whose mean
    still moves, or a running average that still drifts (as statsmodels' warning of the same
    name)."""


__all__ = ["InferenceWarning", "MissingDependencyError", "PerfectSeparationWarning", "ConvergenceWarning", "NotOfferedError", "GradfreeError", "InvalidParameterError", "NonFiniteError", "CheckpointError", "ModelFitError", "TooLargeError",
           "DataError"]
