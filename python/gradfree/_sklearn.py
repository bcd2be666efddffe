"""scikit-learn, imported once for the modules whose estimators follow its conventions
(:mod:`gradfree.robust` and its NOK block, :mod:`gradfree.kernel_approximation`), with the one
rule for when it is missing.

scikit-learn is optional (``pip install scikit-learn``). Without it those modules still import and
their functions that do not need it work (``flip_labels``, ``nok_kernel``, ``kernel_matrix``, ...);
creating one of their estimators raises ``ImportError("<module>.<class> needs scikit-learn: pip
install scikit-learn")``, chained to the import's own error (which says what was missing: the
package, or a name that an older scikit-learn lacks). For that, the names here are stand-ins when
scikit-learn is missing: the base classes are empty classes, of which ``BaseEstimator`` refuses to
create an instance; ``check_random_state`` is scikit-learn's rule written with NumPy (the same
generator for the same argument), since functions without an estimator use it; the other helpers
raise the same ``ImportError``. ``sparse`` is ``scipy.sparse``, a dependency of scikit-learn,
imported with it (``None`` without it; only the estimators use it).
"""
from __future__ import annotations

import numbers

import numpy as np

try:
    from sklearn.base import BaseEstimator, ClassifierMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin
    from sklearn.utils import check_random_state
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import check_is_fitted, validate_data
    import scipy.sparse as sparse
except ImportError as e:  # pragma: no cover - exercised only without scikit-learn (test_optional_sklearn)
    AVAILABLE = False
    #: Why the import failed, for the cause of the errors below.
    _MISSING = e.with_traceback(None)
else:
    AVAILABLE = True
    _MISSING = None


def _error(what: str) -> ImportError:
    """The error of using ``what`` (a class, named as users write it) without scikit-learn; raised
    ``from`` :data:`_MISSING`."""
    return ImportError(f"{what} needs scikit-learn: pip install scikit-learn")


if not AVAILABLE:  # pragma: no cover - exercised only without scikit-learn (test_optional_sklearn)
    sparse = None

    class BaseEstimator:
        """Stand-in for ``sklearn.base.BaseEstimator``: creating an instance of a subclass raises
        :func:`_error` naming the class, as ``<module>.<class>`` (``_public_module``, set in the
        class's own body, replaces a private module's name)."""

        def __new__(cls, *args, **kwargs):
            module = vars(cls).get("_public_module", cls.__module__)
            raise _error(f"{module}.{cls.__qualname__}") from _MISSING

    class ClassifierMixin:
        """Stand-in for ``sklearn.base.ClassifierMixin`` (empty)."""

    class TransformerMixin:
        """Stand-in for ``sklearn.base.TransformerMixin`` (empty)."""

    class ClassNamePrefixFeaturesOutMixin:
        """Stand-in for ``sklearn.base.ClassNamePrefixFeaturesOutMixin`` (empty)."""

    def check_random_state(seed):
        """``sklearn.utils.check_random_state``: ``None`` (or ``numpy.random``) gives NumPy's global
        ``RandomState``, an integer a new ``RandomState(seed)``, a ``RandomState`` itself."""
        if seed is None or seed is np.random:
            return np.random.mtrand._rand
        if isinstance(seed, numbers.Integral):
            return np.random.RandomState(seed)
        if isinstance(seed, np.random.RandomState):
            return seed
        raise ValueError(f"{seed!r} cannot be used to seed a numpy.random.RandomState instance")

    def _needs_sklearn(*args, **kwargs):
        """Stand-in for scikit-learn's validation helpers, which only estimators call."""
        raise _error("this estimator") from _MISSING

    check_classification_targets = check_is_fitted = validate_data = _needs_sklearn

__all__ = ["AVAILABLE", "BaseEstimator", "ClassifierMixin", "ClassNamePrefixFeaturesOutMixin", "TransformerMixin",
           "check_classification_targets", "check_is_fitted", "check_random_state", "sparse", "validate_data"]
