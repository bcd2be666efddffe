"""The neural optimization kernel block (Lyu, "Neural Optimization Kernel: Towards Robust Deep
Learning"; thesis ch. 7) in scikit-learn's conventions. Re-exported by :mod:`gradfree.robust`."""
from __future__ import annotations

import json
import numbers

import numpy as np

from . import _gradfree, _util
from ._pickling import Checked as _Checked
from ._sklearn import BaseEstimator, TransformerMixin, check_is_fitted, check_random_state, validate_data
from .errors import InvalidParameterError

#: Activations (Table 7.1 of the thesis, and ReLU).
ACTIVATIONS = ("l0", "l1", "mcp", "capped-l1", "scad", "mcp0", "relu")
#: Choices of the structured matrix B.
STRUCTURES = ("auto", "orthogonal", "ssf", "subgroup")
#: Randomizations of the Fourier structures.
ROTATIONS = ("phase", "signs", "haar")


def _choice(name, value, allowed):
    if value not in allowed:
        raise InvalidParameterError(f"invalid {name} = {value!r}: must be one of {', '.join(allowed)}")
    return value


def _spec(n_components, activation, alpha, gamma, layers, alternations, structure, rotation, random_state):
    """The options as the Rust block reads them (defaults: ``gradfree.defaults()["nok"]``)."""
    checks = {
        "n_components": (n_components, lambda v: _util.count("n_components", v, 1)),
        "activation": (activation, lambda v: _choice("activation", v, ACTIVATIONS)),
        "lambda": (alpha, lambda v: _util.positive("alpha", v)),
        "gamma": (gamma, lambda v: _util.positive("gamma", v)),
        "layers": (layers, lambda v: _util.count("layers", v, 1)),
        "alternations": (alternations, lambda v: _util.count("alternations", v, 1)),
        "structure": (structure, lambda v: _choice("structure", v, STRUCTURES)),
        "rotation": (rotation, lambda v: _choice("rotation", v, ROTATIONS)),
    }
    spec = {key: check(value) for key, (value, check) in checks.items() if value is not None}
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool) and random_state >= 0:
        spec["seed"] = int(random_state)
    else:
        spec["seed"] = int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    return json.dumps(spec)


class _Denoiser(_Checked):
    """The NOK block as a same-shape denoiser: ``transform`` returns the reconstruction
    ``W y / N`` of each row from its code ``y`` after ``layers * alternations`` layers of eq. 7.9,
    ``y <- h(W^T x + (I - W^T W / N) y)`` with ``W = sqrt(d) R^T B`` (eq. 7.7) and ``h`` the
    proximal operator of the activation's penalty (Table 7.1).

    ``fit`` learns the rotations ``R`` without labels by the alternating minimization of eq. 7.16:
    per phase, ``layers`` layers on every row, then the orthogonal Procrustes step (eq. 7.17). A
    new row goes through the same unrolled block. The mean objective never increases
    (``objective_``).

    Parameters
    ----------
    n_components : int, optional
        ``N``, the code width (default ``2 * n_features``). Any ``N >= 1``: below
        ``n_features`` ``B`` has ``N`` orthonormal columns (``structure="orthogonal"``) and ``W``
        is scaled by ``sqrt(N)`` instead of eq. 7.7's ``sqrt(d)``, so that ``W^T W / N = I_N``
        keeps eq. 7.9 a descent step (Thm 23); the reconstruction then lies in an
        ``N``-dimensional subspace that ``fit`` rotates towards the data.
    activation : str, default="l1"
        One of :data:`ACTIVATIONS`: hard threshold (``"l0"``), soft threshold (``"l1"``), MCP,
        capped l1, SCAD, MCP0, or ``"relu"``.
    alpha : float, optional
        The penalty's ``lambda`` (default 0.1; unused by ``"relu"``).
    gamma : float, optional
        The second parameter of MCP (default 3), capped l1 (1) and SCAD (3.7).
    layers : int, optional
        ``T1``, layers per phase (default 3).
    alternations : int, optional
        ``T2``, phases, each followed by a Procrustes step while fitting (default 2).
    structure : {"auto", "ssf", "subgroup", "orthogonal"}, optional
        ``B``: spherical structured features (DFT rows, one FFT per product: O(N log N)), the
        same with the closed-form subgroup frequencies, or blocks of random orthogonal matrices
        (O(N d); ``N`` a multiple of ``n_features``, or at most ``n_features``).
        ``"auto"`` (default) takes ``"ssf"`` where it applies (an even number of features, ``N``
        even and at least ``n_features + 2``), else ``"orthogonal"``.
    rotation : {"phase", "signs", "haar"}, optional
        The randomization of the Fourier structures: random phases and a coordinate permutation
        (thesis app. 10.26; default), random sign flips, or a Haar rotation.
    random_state : int, RandomState or None
        Seeds ``B``.

    Attributes
    ----------
    n_components_ : int
        The code width in use.
    n_features_in_ : int
    objective_ : ndarray
        The mean objective (7.16) per row while fitting: at ``y = 0``, after each layer and after
        each Procrustes step.
    rotations_ : ndarray, shape (alternations + 1, n_features, n_features)
        ``R_0 = I, R_1, ...``, the rotation of each phase.
    """

    def __init__(self, n_components=None, *, activation="l1", alpha=None, gamma=None, layers=None, alternations=None,
                 structure=None, rotation=None, random_state=None):
        self.n_components = n_components
        self.activation = activation
        self.alpha = alpha
        self.gamma = gamma
        self.layers = layers
        self.alternations = alternations
        self.structure = structure
        self.rotation = rotation
        self.random_state = random_state

    def fit(self, X, y=None):
        """Learn the rotations on the rows of ``X`` (``y`` is ignored).

        Returns
        -------
        self : object
        """
        spec = _spec(self.n_components, self.activation, self.alpha, self.gamma, self.layers, self.alternations,
                     self.structure, self.rotation, self.random_state)
        # Finiteness is checked in Rust (a DataError naming the row and column).
        X = validate_data(self, X, dtype=np.float64, order="C", ensure_all_finite=False)
        self._block = _gradfree.NokModel(X.shape[1], spec).fit(X)
        d = X.shape[1]
        self.n_components_ = self._block.width
        self.objective_ = self._block.trace()
        self.rotations_ = self._block.rotations().reshape(-1, d, d)
        return self

    def _check(self, X):
        check_is_fitted(self, "_block")
        return validate_data(self, X, dtype=np.float64, order="C", reset=False, ensure_all_finite=False)

    def transform(self, X):
        """The denoised rows ``W y / N``, shape ``(n_samples, n_features)``."""
        X = self._check(X)
        return self._block.transform(X)

    def codes(self, X):
        """The codes ``y`` of the rows, shape ``(n_samples, n_components_)``: the block's
        features."""
        X = self._check(X)
        return self._block.codes(X)

    def kernel(self, X, Y=None):
        """The NOK kernel ``k(x, y) = <y(x), y(y)> / N`` of the fitted block (eq. 7.6 at finite
        width), shape ``(len(X), len(Y))``."""
        X = self._check(X)
        Y = X if Y is None else self._check(Y)
        return self._block.kernel(X, Y)


def nok_kernel(X, Y=None, *, n_components=None, activation="relu", alpha=None, gamma=None, layers=1, structure=None,
               rotation=None, random_state=None):
    """The NOK kernel ``k_{T,N}(x, y) = <y_T(x), y_T(y)> / N`` (thesis eq. 7.6 at width ``N``) of
    a block with ``R = I`` and a random structured ``B``, for kernel methods (e.g.
    ``sklearn.kernel_ridge.KernelRidge(kernel="precomputed")``).

    With the defaults (one ReLU layer) it is the random-feature estimate of half the arc-cosine
    kernel of order 1 (Cho & Saul 2009); deeper blocks and thresholding activations give the NOK
    kernels of the thesis.

    Parameters
    ----------
    X : array-like, shape (n_x, n_features)
    Y : array-like, shape (n_y, n_features), optional
        Default ``X``.
    n_components : int, optional
        ``N`` (default ``2 * n_features``); the estimate's error falls as ``1 / sqrt(N)``.
    activation : str, default="relu"
        One of :data:`ACTIVATIONS`.
    layers : int, default=1
        ``T``, the layers of eq. 7.9.
    alpha, gamma, structure, rotation, random_state
        As in :class:`NOKDenoiser`.

    Returns
    -------
    K : ndarray, shape (len(X), len(Y))
    """
    def matrix(name, a):
        try:
            a = np.ascontiguousarray(a, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise InvalidParameterError(f"{name} must be a 2-d array of numbers: {e}") from None
        if a.ndim != 2 or a.shape[0] == 0 or a.shape[1] == 0:
            raise InvalidParameterError(f"{name} must be a non-empty 2-d array, got shape {a.shape}")
        return a

    X = matrix("X", X)
    Y = X if Y is None else matrix("Y", Y)
    if X.shape[1] != Y.shape[1]:
        raise InvalidParameterError(f"X has {X.shape[1]} features but Y has {Y.shape[1]}: they must agree")
    spec = _spec(n_components, activation, alpha, gamma, layers, 1, structure, rotation, random_state)
    return _gradfree.NokModel(X.shape[1], spec).kernel(X, Y)


class NOKDenoiser(TransformerMixin, _Denoiser, BaseEstimator):
    __doc__ = _Denoiser.__doc__
    #: Where users find the class, for the error of creating one without scikit-learn (gradfree._sklearn).
    _public_module = "gradfree.robust"
