"""Learning with noisy labels: the curriculum loss and NPCL (Lyu & Tsang, "Curriculum Loss: Robust
Learning and Generalization against Label Corruption", ICLR 2020; thesis ch. 8).

A classifier in scikit-learn's conventions, trained in Rust (burn's CPU backend) without the GIL::

    from gradfree.robust import RobustClassifier, flip_labels
    y_noisy, T = flip_labels(y, "symmetric", 0.5, seed=0)
    clf = RobustClassifier(loss="npcl", noise_rate=0.5, epochs=50, random_state=0).fit(X, y_noisy)
    clf.score(X_test, y_test)
    clf.selected_          # the rows the last epoch trained on (NPCL's pick)
    clf.history_           # per-epoch loss, training accuracy, selected fraction, learning rate

Losses (``loss=``): ``"npcl"`` (Algorithm 14: per batch, Algorithm 13 keeps the samples of smallest
hard hinge up to the threshold of eq. 8.21, the step is the mean soft hinge of those; all samples
during the ``burn_in`` epochs), ``"cl"`` (the same with ``noise_rate = 0``: the curriculum loss
of eq. 8.9), ``"ce"`` (cross-entropy), ``"gce"`` (generalized cross-entropy, q = 0.7; Zhang &
Sabuncu 2018), ``"coteaching"`` (two networks, forget rate rising to ``noise_rate``; Han et al.
2018), ``"hinge"`` (soft multi-class hinge, thesis app. 10.37), ``"hinge-hard"``.

The selection alone, for a training loop in any framework::

    from gradfree.robust import curriculum_selection, npcl_threshold
    C = npcl_threshold(len(losses), n_misclassified, noise_rate=0.2)   # eq. (8.21)
    keep = curriculum_selection(losses, C)                              # Algorithm 13
    loss = losses_tensor[keep].mean()

Setting ``noise_rate`` on your own data: check a few hundred randomly chosen labels by hand and
call :func:`estimate_noise_rate` (a rate with its Wilson interval); without any checked labels,
:func:`estimate_noise_rate_anchors` reads it off a network trained on the noisy labels (Patrini et
al. 2017). That estimate is biased: on Fashion-MNIST we measured it up to 0.06 too high from a
network trained for 5 epochs, and far too low from one that has memorized the noisy labels.
``gradfree reproduce curriculum-misspecified`` measures both estimates and what a wrong rate
costs.

Robustness to input noise: :class:`NOKDenoiser`, the neural optimization kernel block of thesis
ch. 7 as a scikit-learn transformer (``fit`` learns its rotations without labels, ``transform``
returns the denoised rows, ``codes`` the block's features), and :func:`nok_kernel`, its kernel.
"""
from __future__ import annotations

import json
import numbers
import numpy as np

from . import _gradfree, _util
from ._pickling import Checked as _Checked
from ._sklearn import (BaseEstimator, ClassifierMixin, check_classification_targets, check_is_fitted, check_random_state,
                       validate_data)
from .errors import DataError, InvalidParameterError

from ._nok import ACTIVATIONS, STRUCTURES, NOKDenoiser, nok_kernel

__all__ = ["RobustClassifier", "flip_labels", "curriculum_selection", "npcl_threshold", "estimate_noise_rate",
           "estimate_noise_rate_anchors", "LOSSES", "NOKDenoiser", "nok_kernel", "ACTIVATIONS", "STRUCTURES"]

#: The keywords of the library's training run (``TrainRunSpec``), by name: kind, accepted values,
#: default, command-line and Python names, the names the library's checks use, doc.
KEYWORDS = {k["name"]: k for k in json.loads(_gradfree.train_keywords())}

#: The losses of :class:`RobustClassifier`, by name.
LOSSES = tuple(KEYWORDS["loss"]["values"])


def _rate(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 <= float(value) < 1.0:
        raise InvalidParameterError(f"invalid {name} = {value!r}: must be a number in [0, 1)")
    return float(value)


def _encode(y, n_classes, name="y"):
    """Labels as integers in [0, K) and the classes they stand for."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise InvalidParameterError(f"{name} must be 1-d (one label per sample), got shape {y.shape}")
    if y.size == 0:
        raise InvalidParameterError(f"{name} is empty: need at least one label")
    if n_classes is None:
        classes, enc = np.unique(y, return_inverse=True)
        return classes, enc.astype(np.int64), len(classes)
    k = _util.count("n_classes", n_classes, 2)
    if not np.issubdtype(y.dtype, np.integer):
        if np.issubdtype(y.dtype, np.floating) and np.all(np.isfinite(y)) and np.all(y == np.round(y)):
            y = y.astype(np.int64)
        else:
            raise InvalidParameterError(f"{name} must hold integer labels in [0, n_classes = {k}) when n_classes is given")
    bad = np.flatnonzero((y < 0) | (y >= k))
    if bad.size:
        raise InvalidParameterError(f"invalid {name}[{bad[0]}] = {y[bad[0]]}: labels must be in [0, n_classes = {k})")
    return np.arange(k), y.astype(np.int64), k


def flip_labels(y, kind="symmetric", rate=0.2, seed=0, n_classes=None):
    """Seeded label noise: each label is corrupted with probability ``rate``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Clean labels: any values (the classes are ``np.unique(y)``), or integers in
        ``[0, n_classes)`` when ``n_classes`` is given.
    kind : {"symmetric", "pair"}
        ``"symmetric"``: a corrupted label is uniform over the other K - 1 classes (needs
        ``rate < (K-1)/K``); ``"pair"``: class ``i`` becomes class ``i + 1 (mod K)`` (needs
        ``rate < 0.5``), as in Co-teaching (Han et al. 2018).
    rate : float in [0, 1)
    seed : int
    n_classes : int, optional

    Returns
    -------
    y_noisy : ndarray of shape (n_samples,)
        Same values and dtype as ``y``.
    transition : ndarray of shape (K, K)
        ``T[i, j]`` = P(label j | class i), rows and columns in the order of ``np.unique(y)``.
    """
    if kind not in ("symmetric", "pair"):
        raise InvalidParameterError(f"invalid kind = {kind!r}: must be 'symmetric' or 'pair'")
    rate = _rate("rate", rate)
    y_arr = np.asarray(y)
    classes, enc, k = _encode(y_arr, n_classes)
    noisy, transition, _ = _gradfree.robust_flip_labels(enc, k, f"{kind}:{rate!r}", _util.seed(seed))
    if n_classes is None:
        return classes[noisy], transition
    return noisy.astype(y_arr.dtype, copy=False), transition


def curriculum_selection(losses, C, one_more=False):
    """Algorithm 13 (thesis ch. 8): the optimal ``v`` of ``min_v max(sum_i v_i l_i, C - sum_i v_i)``.

    Sorts the losses and keeps the longest prefix with ``L_i <= C + 1 - i`` (``L_i`` the sum of the
    ``i`` smallest), in O(n log n); ties are broken by position.

    Parameters
    ----------
    losses : array-like of shape (n,)
        Per-sample losses, finite and >= 0 (e.g. the hard multi-class hinge).
    C : float in [0, 2n]
        The threshold of eq. (8.13): ``n + (number misclassified)`` for the curriculum loss Q
        (8.9), ``n`` for the curriculum loss E (8.11), :func:`npcl_threshold` for NPCL (which is E
        at ``noise_rate=0, adaptive=False`` and Q at ``noise_rate=0``, thesis sec. 8.2.4).
    one_more : bool
        Add the next sample when ``L_T < C - T`` (the remark after Proposition 2).

    Returns
    -------
    ndarray of bool, shape (n,)
        ``True`` for the selected samples.
    """
    losses = np.ascontiguousarray(losses, dtype=np.float64)
    if losses.ndim != 1:
        raise InvalidParameterError(f"losses must be 1-d, got shape {losses.shape}")
    mask, _, _ = _gradfree.robust_select(losses, _util.number("C", C), bool(one_more))
    return mask


def npcl_threshold(batch_size, n_misclassified, noise_rate, adaptive=True):
    """NPCL's threshold ``C`` for one mini-batch (thesis eqs. 8.20-8.21).

    Parameters
    ----------
    batch_size : int
        ``m``, the samples in the batch.
    n_misclassified : int
        Samples of the batch the current model misclassifies (margin < 0).
    noise_rate : float in [0, 1)
        ``eps``.
    adaptive : bool, default=True
        ``(1-eps)^2 m + (1-eps) n_misclassified`` (eq. 8.21, the thesis' choice); ``False`` gives
        ``(1-eps) m`` (eq. 8.20).

    Returns
    -------
    float
    """
    m = _util.count("batch_size", batch_size, 1)
    e = _util.count("n_misclassified", n_misclassified, 0)
    return _gradfree.robust_npcl_threshold(m, e, _rate("noise_rate", noise_rate), bool(adaptive))


def estimate_noise_rate(y_trusted, y_noisy, alpha=0.05):
    """The noise rate from a trusted subset: labels checked by hand for randomly chosen samples,
    against the labels the data set gives the same samples.

    Parameters
    ----------
    y_trusted : array-like of shape (n,)
        The checked labels.
    y_noisy : array-like of shape (n,)
        The data set's labels of the same samples.
    alpha : float, default=0.05
        The interval's level is ``1 - alpha``; only 0.05 is offered.

    Returns
    -------
    rate : float
        The fraction that disagree (unbiased for the data set's rate when the samples are random).
    interval : tuple of float
        Its Wilson score interval (500 checked labels give about +-0.04 at rate 0.5).
    transition : ndarray of shape (K, K)
        The row-normalized confusion, ``T[i, j]`` = P(label j | class i), classes in
        ``np.unique`` order of both label sets.
    """
    if alpha != 0.05:
        raise InvalidParameterError(f"invalid alpha = {alpha!r}: only 0.05 (95% intervals) is offered")
    t, n = np.asarray(y_trusted), np.asarray(y_noisy)
    if t.shape != n.shape:
        raise InvalidParameterError(f"y_trusted has shape {t.shape} but y_noisy has {n.shape}: one pair per sample")
    classes = np.unique(np.concatenate([t.ravel(), n.ravel()]))
    enc = lambda a: np.searchsorted(classes, a).astype(np.int64)  # noqa: E731
    rate, lo, hi, transition = _gradfree.robust_estimate_trusted(enc(t), enc(n), max(len(classes), 2))
    return rate, (lo, hi), transition


def estimate_noise_rate_anchors(proba, y_noisy, quantile=0.97):
    """The noise rate without trusted labels, from anchor points (Patrini et al., CVPR 2017).

    For each class ``i`` the anchor is the sample at the ``quantile`` of ``P(i | x)``; its
    predicted distribution is row ``i`` of ``T``, and ``rate = sum_i pi_i (1 - T_ii)``.

    Parameters
    ----------
    proba : array-like of shape (n_samples, K)
        A model's probabilities P(noisy label | x), from a model trained on the noisy labels
        (early: a network that has memorized the labels makes every anchor look clean).
    y_noisy : array-like of shape (n_samples,)
        Integer labels in ``[0, K)`` (for the class priors ``pi``).
    quantile : float, default=0.97

    Returns
    -------
    rate : float
    transition : ndarray of shape (K, K)
    """
    p = np.ascontiguousarray(proba, dtype=np.float64)
    if p.ndim != 2:
        raise InvalidParameterError(f"proba must be 2-d (n_samples, n_classes), got shape {p.shape}")
    _, y, _ = _encode(y_noisy, p.shape[1], "y_noisy")
    return _gradfree.robust_estimate_anchors(p, y, float(quantile))


def _defaults():
    return json.loads(_gradfree.defaults_json())["robust"]


def _float32(X, convert):
    """``convert()`` (scikit-learn's validation to float32, the network's precision), with finite
    values beyond float32's range (|x| > 3.4e38, which it would turn into infinities) refused by
    name; NaN and infinities of the input itself are left to the Rust check, which names them."""
    with np.errstate(over="ignore"):
        out = convert()
    X32 = out[0] if isinstance(out, tuple) else out
    bad = ~np.isfinite(X32)
    if bad.any():
        X64 = np.asarray(X, dtype=np.float64)
        i, j = np.argwhere(bad)[0]
        if X64.shape == X32.shape and np.isfinite(X64[i, j]):
            raise DataError(f"X[{i}, {j}] = {X64[i, j]:g}: beyond float32's range (|x| <= 3.4e38; the network computes "
                            "in float32); standardize the features")
    return out


def _sample_weight(sample_weight, n):
    """``sample_weight`` as a new float64 vector of ``n`` finite weights >= 0, not all 0, or
    ``None``; errors name ``sample_weight`` and what it accepts."""
    if sample_weight is None:
        return None
    if isinstance(sample_weight, numbers.Real) and not isinstance(sample_weight, bool):
        sample_weight = np.full(n, float(sample_weight))
    try:
        w = np.array(sample_weight)
    except (TypeError, ValueError) as e:
        raise InvalidParameterError(f"invalid sample_weight: expected an array of {n} finite numbers >= 0: {e}") from None
    if w.ndim != 1 or w.shape[0] != n:
        raise InvalidParameterError(f"invalid sample_weight of shape {w.shape}: expected shape ({n},), one finite weight "
                                    ">= 0 per sample")
    if w.dtype.kind not in "iuf":
        raise InvalidParameterError(f"invalid sample_weight of dtype {w.dtype}: expected finite numbers >= 0")
    w = np.ascontiguousarray(w, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if bad.size:
        raise InvalidParameterError(f"invalid sample_weight[{bad[0]}] = {float(w[bad[0]])!r}: weights must be finite and >= 0")
    if not np.isfinite(w.sum()):
        raise InvalidParameterError("invalid sample_weight: the weights' sum overflows; rescale them (only their ratios matter)")
    if not w.any():
        raise InvalidParameterError("invalid sample_weight: all weights are zero; at least one weight must be > 0")
    return w


class _Classifier(_Checked):
    """A neural network trained on possibly noisy labels (see the module documentation).

    Parameters
    ----------
    loss : str, default="npcl"
        One of :data:`LOSSES`.
    noise_rate : float in [0, 1), default=0.2
        ``eps`` of NPCL's threshold and Co-teaching's forget rate (ignored by the others).
    model : {"mlp", "cnn"}, default="mlp"
        ``"cnn"`` needs square images whose side is a multiple of 4 (8x8, 28x28 rows).
    hidden_layer_sizes : tuple of int, optional
        The MLP's widths (default (256, 256), Co-teaching's MLP).
    epochs : int, optional
        Default 50.
    batch_size : int, default=128
    burn_in : int, optional
        NPCL/CL: epochs on every sample before the selection starts (default 5).
    optimizer : {"adam", "sgd"}, optional
        Default ``"adam"`` (lr 1e-3); ``"sgd"`` is lr 1e-2 with momentum 0.9.
    learning_rate : float, optional
        Replaces the optimizer's default.
    schedule : {"co-teaching", "constant"}, optional
        Default ``"co-teaching"``: linear decay to 0 over the last 60% of the epochs, Adam's beta1
        0.1 there.
    block : {"mean", "median", "nok"} or dict, optional
        In front of the first learnable layer (square images): a 3x3 mean or median filter, or the
        neural optimization kernel block (thesis ch. 7; 4x4 input patches, soft thresholding,
        rotation learned through the Cayley map). A dict sets the block's options (keys ``at``
        in {"input", "conv1", "both"}, ``patch``, ``activation``, ``lambda``, ``width``,
        ``layers``, ``learn_rotation``, ``structure``; see ``gradfree train --help``).
    random_state : int, RandomState or None
        Seeds the initialization and the data order.
    verbose : bool, default=False
        A progress bar on stderr.

    Attributes
    ----------
    classes_ : ndarray
    n_features_in_ : int
    selected_ : ndarray of bool, shape (n_samples,)
        The rows the last epoch's steps used (NPCL's and Co-teaching's selection; all rows for the
        losses without one).
    history_ : list of dict
        One record per epoch: ``epoch``, ``train_loss``, ``train_accuracy`` (on the labels given),
        ``selected_fraction``, ``lr``, ``seconds``.
    n_params_ : int
        Trained parameters (per network).

    ``predict_proba`` is the softmax of the network's outputs: calibrated for ``"ce"``, only an
    ordering for the hinge losses.
    """

    def __init__(self, *, loss="npcl", noise_rate=0.2, model="mlp", hidden_layer_sizes=None, epochs=None, batch_size=128,
                 burn_in=None, optimizer=None, learning_rate=None, schedule=None, block=None, random_state=None, verbose=False):
        self.loss = loss
        self.noise_rate = noise_rate
        self.model = model
        self.hidden_layer_sizes = hidden_layer_sizes
        self.epochs = epochs
        self.batch_size = batch_size
        self.burn_in = burn_in
        self.optimizer = optimizer
        self.learning_rate = learning_rate
        self.schedule = schedule
        self.block = block
        self.random_state = random_state
        self.verbose = verbose

    def _spec(self):
        if self.loss not in LOSSES:
            raise InvalidParameterError(f"invalid loss = {self.loss!r}: must be one of {', '.join(LOSSES)}")
        spec = {"loss": self.loss, "model": self.model, "noise_rate": _rate("noise_rate", self.noise_rate),
                "batch_size": _util.count("batch_size", self.batch_size, 1)}
        if self.hidden_layer_sizes is not None:
            sizes = [self.hidden_layer_sizes] if isinstance(self.hidden_layer_sizes, numbers.Integral) else list(self.hidden_layer_sizes)
            spec["hidden"] = [_util.count("hidden_layer_sizes", h, 1) for h in sizes]
        if self.epochs is not None:
            spec["epochs"] = _util.count("epochs", self.epochs, 1)
        if self.burn_in is not None:
            spec["burn_in"] = _util.count("burn_in", self.burn_in, 0)
        if self.optimizer is not None:
            spec["optimizer"] = self.optimizer
        if self.learning_rate is not None:
            spec["lr"] = _util.positive("learning_rate", self.learning_rate)
        if self.schedule is not None:
            spec["schedule"] = self.schedule
        if self.block is not None:
            if isinstance(self.block, dict):
                spec["block"] = {"kind": "nok", **self.block}
            elif self.block in ("mean", "median", "nok"):
                spec["block"] = {"kind": self.block}
            else:
                raise InvalidParameterError(f"invalid block = {self.block!r}: must be 'mean', 'median', 'nok' or a dict of NOK options")
        rs = self.random_state
        if isinstance(rs, numbers.Integral) and not isinstance(rs, bool) and rs >= 0:
            spec["seed"] = int(rs)
        else:
            spec["seed"] = int(check_random_state(rs).randint(np.iinfo(np.int32).max))
        return spec

    def fit(self, X, y, sample_weight=None):
        """Train on rows ``X`` and (noisy) labels ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Weights ``w_i >= 0``, finite, not all zero (``None``: all 1), with scikit-learn's
            meaning: an integer weight is that many copies of the row, a zero weight leaves the
            row out. Each step minimizes ``sum_i w_i l_i / sum_i w_i`` over the rows it uses; for
            ``"npcl"``/``"cl"`` the weights multiply each sample's loss in the partial problem of
            eq. (8.13), ``max(sum_i v_i w_i l_i, C - sum_i v_i w_i)``, whose threshold (8.21)
            counts weight (``m`` = the batch's weight, the misclassified count = their weight),
            and Co-teaching keeps its fraction by weight. The rows are first reduced to their
            distinct ``(x, y)`` pairs with summed weights in a canonical order, so fitting
            depends only on the weighted data: repeating a row and giving it weight 2 give the
            same model, bit for bit, and so do a zero weight and the row left out, or multiplying
            every weight by the same factor.

        Returns
        -------
        self : object
        """
        spec = self._spec()
        try:
            nx, ny = (a.shape[0] if hasattr(a, "shape") else len(a) for a in (X, y))
        except TypeError:  # y=None, or no length: validate_data says what is wrong
            pass
        else:
            if nx != ny:
                raise DataError(f"X has {nx} rows but y has {ny} labels: one label per row")
            if nx == 0:
                raise DataError("X is empty (0 samples): need at least one row")
        # Finiteness is checked in Rust (a DataError naming the row and column).
        X, y = _float32(X, lambda: validate_data(self, X, y, dtype=np.float32, order="C", ensure_all_finite=False))
        check_classification_targets(y)
        w = _sample_weight(sample_weight, X.shape[0])
        self.classes_, enc = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise InvalidParameterError(f"y has one class ({self.classes_[0]!r}): a classifier needs at least 2 classes")
        self._model, self.selected_ = _gradfree.robust_fit(X, enc.astype(np.int64), len(self.classes_), json.dumps(spec),
                                                           bool(self.verbose), w)
        self._set_fitted()
        return self

    def _set_fitted(self):
        self.history_ = [{k: v for k, v in r.items() if k not in ("test_accuracy", "label_precision")}
                         for r in json.loads(self._model.history_json())]
        self.n_params_ = self._model.n_params

    def _logits(self, X):
        check_is_fitted(self, "_model")
        X = _float32(X, lambda: validate_data(self, X, dtype=np.float32, order="C", reset=False, ensure_all_finite=False))
        return self._model.logits(X).astype(np.float64)

    def decision_function(self, X):
        """The network's outputs, shape ``(n_samples, n_classes)`` (for two classes, the second
        output minus the first, shape ``(n_samples,)``)."""
        t = self._logits(X)
        return t[:, 1] - t[:, 0] if len(self.classes_) == 2 else t

    def predict_proba(self, X):
        """The softmax of the network's outputs, shape ``(n_samples, n_classes)``."""
        t = self._logits(X)
        t -= t.max(axis=1, keepdims=True)
        p = np.exp(t)
        return p / p.sum(axis=1, keepdims=True)

    def predict(self, X):
        """The class of the largest output."""
        t = self._logits(X)
        return self.classes_[np.argmax(t, axis=1)]


class RobustClassifier(ClassifierMixin, _Classifier, BaseEstimator):
    __doc__ = _Classifier.__doc__
