"""Random-feature kernel approximation as scikit-learn transformers.

``Z = Sampler(...).fit_transform(X)`` maps rows to features whose inner products approximate a
kernel, ``Z @ Z.T ~ K(X, X)``, so a linear model on ``Z`` approximates a kernel machine. Kernels:
``"rbf"`` (``exp(-gamma |x - z|^2)``) and the arc-cosine kernels ``"arccos0"``, ``"arccos1"``,
``"arccos2"`` (Cho & Saul 2009; any ``"arccos<b>"`` up to b = 10). One transformer per way of
choosing the projection directions:

- :class:`IIDSampler`: i.i.d. Gaussian (Rahimi & Recht 2007, the cos/sin pair);
- :class:`OrthogonalSampler`: orthogonal random features (Yu et al. 2016);
- :class:`CirculantSampler`: signed circulant blocks by FFT (Feng, Hu & Liao 2015);
- :class:`QMCSampler`: Halton, scrambled Sobol or a shifted subgroup lattice through the Gaussian
  quantile (Avron et al. 2016; Lyu, Yuan & Tsang 2020);
- :class:`SSFSampler`: spherical structured features (Lyu, "Spherical structured feature maps for
  kernel approximation", ICML 2017): structured points on the sphere, one FFT per row.

Example::

    from sklearn.pipeline import make_pipeline
    from sklearn.linear_model import RidgeClassifier
    from gradfree.kernel_approximation import SSFSampler
    clf = make_pipeline(SSFSampler(kernel="arccos1", n_components=2048, random_state=0), RidgeClassifier())

The transformers follow scikit-learn's conventions (keyword parameters stored unchanged, ``fit``
returns ``self``, fitted attributes end in ``_``, float32 stays float32) and need scikit-learn
installed (``pip install scikit-learn``; without it, creating one raises ``ImportError``, while
:func:`kernel_matrix`, :func:`gram_errors` and :func:`methods` work); the numerics run in Rust
without the GIL.
"""
from __future__ import annotations

import json
import numbers

import numpy as np

from . import _gradfree
from ._pickling import Checked as _Checked
from ._sklearn import (BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin, check_is_fitted,
                       check_random_state, validate_data)
from ._sklearn import sparse as sp  # scipy.sparse, a dependency of scikit-learn (None without it)
from .errors import InvalidParameterError

__all__ = ["IIDSampler", "OrthogonalSampler", "CirculantSampler", "QMCSampler", "SSFSampler", "kernel_matrix",
           "gram_errors", "methods"]


def methods():
    """The projection methods as ``(name, summary, reference)`` tuples.

    Returns
    -------
    list of tuple of str
        One entry per method, from the same registry as ``gradfree list``.
    """
    return [(e["name"], e["summary"], e["source"]) for e in json.loads(_gradfree.registries_json())["feature_methods"]]


def kernel_matrix(X, kernel="rbf", gamma=1.0):
    """Exact Gram matrix ``K(X, X)``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Rows.
    kernel : str, default="rbf"
        ``"rbf"`` (``exp(-gamma |x - z|^2)``) or ``"arccos<b>"`` (thesis eq. 6.2).
    gamma : float, default=1.0
        RBF parameter; ignored by the arc-cosine kernels.

    Returns
    -------
    ndarray of shape (n_samples, n_samples)
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise InvalidParameterError(f"X must be 2-d (n_samples, n_features), got shape {X.shape}")
    return _gradfree.kernel_matrix(X, kernel, float(gamma))


def gram_errors(K, K_approx):
    """Relative Frobenius and max errors of an approximate Gram matrix (thesis sec. 6.6.2).

    Parameters
    ----------
    K : array-like of shape (n, n)
        Exact Gram matrix.
    K_approx : array-like of shape (n, n)
        Approximation, e.g. ``Z @ Z.T``.

    Returns
    -------
    tuple of float
        ``(|K_approx - K|_F / |K|_F, max |K_approx - K| / max |K|)``.
    """
    K = np.ascontiguousarray(K, dtype=np.float64)
    K_approx = np.ascontiguousarray(K_approx, dtype=np.float64)
    return _gradfree.gram_errors(K, K_approx)


#: Entries of ``X`` densified at once when a sparse ``X`` is transformed (about 64 MiB of float64).
_SPARSE_CHUNK_VALUES = 1 << 23


def _csr(X):
    """``X`` (CSR or CSC) as CSR with sorted, unique column indices; ``X`` itself is not changed."""
    X = X.tocsr()
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def _gamma_scale(X):
    """``gamma="scale"``, ``1 / (n_features * X.var())``: bit for bit the same for a sparse ``X``
    as for ``X.toarray()`` (the Rust side walks the CSR rows with the zeros in place)."""
    if sp.issparse(X):
        X = _csr(X)
        return float(_gradfree.gamma_scale_csr(np.ascontiguousarray(X.data, dtype=np.float64),
                                               np.ascontiguousarray(X.indices, dtype=np.int64),
                                               np.ascontiguousarray(X.indptr, dtype=np.int64), int(X.shape[1])))
    return float(_gradfree.gamma_scale(np.ascontiguousarray(X, dtype=np.float64)))


class _Sampler(_Checked, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Shared machinery: validation, the Rust map, pickling (the map is rebuilt from its seed).

    Sparse ``X`` (CSR or CSC, as scikit-learn's ``RBFSampler``) is transformed in blocks of rows,
    each densified (at most ``_SPARSE_CHUNK_VALUES`` entries at once, whatever the number of rows)
    and mapped by the same Rust code as a dense ``X``: the projections here are structured (FFT,
    circulant, quasi-Monte Carlo) maps of the dense row, so a sparse product would not be cheaper
    for all of them, and the features equal those of ``X.toarray()`` bit for bit.
    """

    _method = None

    def _method_name(self):
        return self._method

    def _extra(self):
        return {}

    def fit(self, X, y=None):
        """Draw the projection for the data's dimension (and ``gamma="scale"``'s value).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows (only their number of features, and their variance for
            ``gamma="scale"``, are used); CSR and CSC matrices are accepted.
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        X = validate_data(self, X, accept_sparse=["csr", "csc"], dtype=[np.float64, np.float32])
        if not isinstance(self.n_components, numbers.Integral) or isinstance(self.n_components, bool) \
                or self.n_components < 1:
            raise InvalidParameterError(f"invalid n_components = {self.n_components!r}: expected an integer >= 1 (best even)")
        if not isinstance(self.kernel, str):
            raise InvalidParameterError(f"invalid kernel = {self.kernel!r}: expected 'rbf' or 'arccos<b>'")
        if self.kernel in ("rbf", "gaussian"):
            if isinstance(self.gamma, str):
                if self.gamma != "scale":
                    raise InvalidParameterError(f"invalid gamma = {self.gamma!r}: expected a float > 0 or 'scale'")
                self.gamma_ = _gamma_scale(X)
            else:
                self.gamma_ = float(self.gamma)
        else:
            self.gamma_ = None
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        self._seed = seed
        self._build()
        return self

    def _build(self):
        self._map = _gradfree.FeatureMap(self.kernel, self.gamma_ if self.gamma_ is not None else 1.0, self._method_name(),
                                         int(self.n_components), int(self.n_features_in_), self._seed, **self._extra())
        self.n_projections_ = self._map.n_projections

    def transform(self, X):
        """Map rows to features.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows (float32 input gives float32 features). A CSR or CSC matrix is mapped in blocks
            of rows densified one at a time (bounded memory), to the same features as
            ``X.toarray()``.

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        check_is_fitted(self, "_map")
        X = validate_data(self, X, accept_sparse=["csr", "csc"], dtype=[np.float64, np.float32], reset=False,
                          order="C")
        f = self._map.transform_f32 if X.dtype == np.float32 else self._map.transform_f64
        if not sp.issparse(X):
            return f(X)
        X = _csr(X)
        n, d = X.shape
        out = np.empty((n, self._map.n_components), dtype=X.dtype)
        step = max(1, _SPARSE_CHUNK_VALUES // max(d, 1))
        for start in range(0, n, step):
            block = X[start:start + step].toarray(order="C")
            out[start:start + len(block)] = f(block)
        return out

    @property
    def _n_features_out(self):
        return self.n_components

    # Pickles are checked (gradfree._pickling: format, class, version, checksum); the Rust map is
    # rebuilt from the seed.
    def _pickle_state(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_map", None)
        return state

    def _unpickle_state(self, state: dict) -> None:
        self.__dict__.update(state)
        if "_seed" in state:
            self._build()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.sparse = True
        return tags


_COMMON = """
    Parameters
    ----------
    kernel : str, default="rbf"
        ``"rbf"`` (``exp(-gamma |x - z|^2)``), or an arc-cosine kernel ``"arccos0"``, ``"arccos1"``,
        ``"arccos2"`` (any ``"arccos<b>"``, b <= 10).
    gamma : "scale" or float, default="scale"
        RBF parameter; ``"scale"`` uses ``1 / (n_features * X.var())`` as scikit-learn's SVC
        (the variance over all entries of the ``X`` given to ``fit``, sparse or dense).
        Ignored by the arc-cosine kernels.

        .. note:: Every sampler here defaults to ``gamma="scale"``, while scikit-learn's
           ``RBFSampler`` defaults to ``gamma=1.0``. Replacing ``RBFSampler()`` by
           ``IIDSampler()`` therefore changes the kernel unless the data happen to have
           ``n_features * X.var() == 1``: pass ``gamma=1.0`` to keep ``RBFSampler``'s kernel.
    n_components : int, default=100
        Output dimension. Features come in cos/sin or chi(p)/chi(-p) pairs (2M per direction for
        SSF with M radial points), so this is twice the number of projections; other counts cut
        the last group, which biases the estimate slightly.
    random_state : int, RandomState instance or None, default=None
        Seed of the projection; an int gives the same features on every machine and thread count.
"""

_ATTRIBUTES = """
    Attributes
    ----------
    gamma_ : float or None
        The RBF parameter in use (``None`` for the arc-cosine kernels).
    n_projections_ : int
        Number of projection directions.
    n_features_in_ : int
        Number of input features.
    feature_names_in_ : ndarray of str
        Input feature names, when ``X`` had string column names.
"""


class _PlainSampler(_Sampler):
    """A sampler with only the shared parameters."""

    def __init__(self, *, kernel="rbf", gamma="scale", n_components=100, random_state=None):
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.random_state = random_state


class IIDSampler(_PlainSampler):
    __doc__ = ("Random features from i.i.d. Gaussian directions (Rahimi & Recht, NIPS 2007; cos/sin pairs, "
               "not cos + random offset).\n" + _COMMON + _ATTRIBUTES)
    _method = "iid"


class OrthogonalSampler(_PlainSampler):
    __doc__ = ("Orthogonal random features (Yu et al., NIPS 2016): Haar-orthogonal blocks with chi(d) "
               "row norms.\n" + _COMMON + _ATTRIBUTES)
    _method = "orf"


class CirculantSampler(_PlainSampler):
    __doc__ = ("Signed circulant random features applied by FFT (Feng, Hu & Liao, IJCAI 2015).\n"
               + _COMMON + _ATTRIBUTES)
    _method = "circulant"


class QMCSampler(_Sampler):
    __doc__ = ("Quasi-Monte Carlo features: a randomized low-discrepancy point set mapped through the "
               "Gaussian quantile (Avron et al., JMLR 2016; Lyu's thesis eq. 5.21).\n" + _COMMON + """
    sequence : {"sobol", "halton", "lattice"}, default="sobol"
        Sobol with linear matrix scrambling and digital shift, Halton with random digit
        permutations, or a randomly shifted subgroup rank-1 lattice (Lyu, Yuan & Tsang 2020).
""" + _ATTRIBUTES)

    def __init__(self, *, kernel="rbf", gamma="scale", n_components=100, sequence="sobol", random_state=None):
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.sequence = sequence
        self.random_state = random_state

    def _method_name(self):
        if self.sequence not in ("sobol", "halton", "lattice"):
            raise InvalidParameterError(f"invalid sequence = {self.sequence!r}: expected 'sobol', 'halton' or 'lattice'")
        return self.sequence


class SSFSampler(_Sampler):
    __doc__ = ("Spherical structured features (Lyu, ICML 2017; thesis ch. 6): directions on the sphere "
               "from rows of a DFT matrix chosen by Algorithm 12, applied by one FFT per row "
               "(O(n_components log n_components)), with random sign flips.\n" + _COMMON + """
    radial_points : int, default=1
        RBF only: radial quadrature points M (eq. 6.10); ``n_components`` is best a multiple of 2M.
    frequencies : {"optimized", "subgroup", "random"}, default="optimized"
        DFT rows: Algorithm 12 (coordinate ascent on the log-energy, eq. 6.34), the closed-form
        subgroup (needs a prime n with d/2 | n - 1), or uniformly random.
    rotation : {"signs", "haar", "phase"}, default="signs"
        Random sign flips (the thesis; O(d) per row), a Haar-random rotation (O(d^2) per row;
        exactly unbiased estimates), or random phases per frequency after a random coordinate
        permutation (thesis app. 10.26; O(d) per row, keeps the point set's inner products).
""" + _ATTRIBUTES + """    frequencies_ : list of int
        The DFT rows in use.
""")
    _method = "ssf"

    def __init__(self, *, kernel="rbf", gamma="scale", n_components=100, radial_points=1, frequencies="optimized",
                 rotation="signs", random_state=None):
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.radial_points = radial_points
        self.frequencies = frequencies
        self.rotation = rotation
        self.random_state = random_state

    def _extra(self):
        if not isinstance(self.radial_points, numbers.Integral) or isinstance(self.radial_points, bool):
            raise InvalidParameterError(f"invalid radial_points = {self.radial_points!r}: expected an integer >= 1")
        return {"radial_points": int(self.radial_points), "frequencies": self.frequencies, "rotation": self.rotation}

    def _build(self):
        super()._build()
        self.frequencies_ = list(self._map.frequencies)
