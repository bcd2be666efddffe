"""gradfree.robust: Algorithm 13 against brute force, the NPCL threshold's closed form, seeded label
noise at its rate, noise-rate estimates, scikit-learn conformance of RobustClassifier
(check_estimator, pickling, Pipeline), NPCL keeping clean labels on the digits, and bad input as
typed exceptions naming the argument."""
import itertools
import pickle

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.datasets import load_digits  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import check_estimator  # noqa: E402

import gradfree  # noqa: E402
from gradfree.robust import (RobustClassifier, curriculum_selection, estimate_noise_rate,  # noqa: E402
                             estimate_noise_rate_anchors, flip_labels, npcl_threshold)


def _objective(losses, v, c):
    return max(float(np.dot(v, losses)), c - float(np.sum(v)))


def test_selection_is_optimal_and_a_prefix_of_the_sorted_order():
    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(1, 9))
        losses = rng.choice([0.0, 0.5, 1.0, rng.exponential()], size=n) * rng.integers(0, 2, size=n) + \
            rng.exponential(size=n) * rng.integers(0, 2, size=n)
        c = float(rng.uniform(0, 2 * n))
        mask = curriculum_selection(losses, c)
        best = min(_objective(losses, np.array(v, float), c) for v in itertools.product([0, 1], repeat=n))
        assert _objective(losses, mask.astype(float), c) == pytest.approx(best, abs=1e-12)
        order = np.argsort(losses, kind="stable")
        k = int(mask.sum())
        assert mask[order[:k]].all() and not mask[order[k:]].any()


def test_npcl_threshold_closed_form():
    assert npcl_threshold(128, 40, 0.2) == pytest.approx(0.64 * 128 + 0.8 * 40)
    assert npcl_threshold(128, 40, 0.2, adaptive=False) == pytest.approx(0.8 * 128)
    assert npcl_threshold(10, 0, 0.0) == 10.0


def test_flip_labels_hits_its_rate_and_transition_matrix():
    y = np.repeat(np.arange(10), 4000)
    for kind, rate in [("symmetric", 0.5), ("pair", 0.45), ("symmetric", 0.2)]:
        noisy, t = flip_labels(y, kind, rate, seed=1)
        sd = np.sqrt(rate * (1 - rate) / y.size)
        assert abs(np.mean(noisy != y) - rate) < 4 * sd
        assert np.allclose(t.sum(axis=1), 1.0) and np.allclose(np.diag(t), 1 - rate)
        empirical = np.array([[np.mean(noisy[y == i] == j) for j in range(10)] for i in range(10)])
        assert np.abs(empirical - t).max() < 4 * np.sqrt(0.25 / 4000)
        if kind == "pair":
            assert np.allclose(t[0, 1], rate) and np.allclose(t[9, 0], rate)
    again, _ = flip_labels(y, "symmetric", 0.5, seed=1)
    assert np.array_equal(again, flip_labels(y, "symmetric", 0.5, seed=1)[0])
    # Any label values; the transition matrix follows np.unique's order.
    names = np.array(["cat", "dog", "eel"])[np.arange(3000) % 3]
    noisy, t = flip_labels(names, "pair", 0.3, seed=0)
    assert noisy.dtype == names.dtype and set(noisy) <= {"cat", "dog", "eel"} and t.shape == (3, 3)


def test_noise_rate_estimates():
    y = np.repeat(np.arange(5), 400)
    noisy, _ = flip_labels(y, "symmetric", 0.3, seed=2)
    rate, (lo, hi), t = estimate_noise_rate(y, noisy)
    assert rate == pytest.approx(np.mean(noisy != y)) and lo < 0.3 < hi and t.shape == (5, 5)
    # Anchor points of the true posterior P(noisy | x) give back T exactly.
    _, T = flip_labels(y, "pair", 0.25, seed=0)
    proba = np.vstack([T[i] for i in y])
    est, T_hat = estimate_noise_rate_anchors(proba, noisy)
    assert est == pytest.approx(0.25) and np.allclose(T_hat, T)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_check_estimator():
    check_estimator(RobustClassifier(random_state=0))


def _digits(rate, kind="symmetric", seed=0):
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    idx = np.random.default_rng(5).permutation(len(y))
    tr, te = idx[:1400], idx[1400:]
    noisy, _ = flip_labels(y[tr], kind, rate, seed=seed)
    return X[tr], y[tr], noisy, X[te], y[te]


def test_npcl_trains_on_cleaner_labels_than_it_is_given():
    X, clean, noisy, Xt, yt = _digits(0.4)
    clf = RobustClassifier(loss="npcl", noise_rate=0.4, epochs=25, burn_in=3, random_state=1).fit(X, noisy)
    sel = clf.selected_
    given = np.mean(noisy == clean)
    kept = np.mean(noisy[sel] == clean[sel])
    assert kept > given + 0.25, (given, kept, sel.mean())
    assert clf.score(Xt, yt) > 0.85
    assert len(clf.history_) == 25 and {"train_loss", "selected_fraction", "lr"} <= set(clf.history_[0])


def test_same_seed_same_model_and_pickle_round_trip():
    X, _, noisy, Xt, yt = _digits(0.2)
    a = RobustClassifier(loss="coteaching", epochs=3, random_state=7).fit(X, noisy)
    b = RobustClassifier(loss="coteaching", epochs=3, random_state=7).fit(X, noisy)
    assert np.array_equal(a.predict_proba(Xt), b.predict_proba(Xt))
    c = pickle.loads(pickle.dumps(a))
    assert np.array_equal(c.predict_proba(Xt), a.predict_proba(Xt)) and np.array_equal(c.selected_, a.selected_)
    pipe = make_pipeline(StandardScaler(), RobustClassifier(loss="gce", epochs=5, random_state=0)).fit(X, noisy)
    assert pipe.score(Xt, yt) > 0.8
    cnn = RobustClassifier(loss="ce", model="cnn", epochs=2, random_state=0).fit(X, noisy)
    assert cnn.n_params_ > 0 and cnn.predict(Xt).shape == (len(Xt),)


def test_bad_input_is_a_typed_error_naming_the_argument():
    X, _, noisy, _, _ = _digits(0.2)
    cases = [
        (dict(noise_rate=1.0), X, noisy, gradfree.InvalidParameterError, "noise_rate"),
        (dict(noise_rate=-0.1), X, noisy, gradfree.InvalidParameterError, "noise_rate"),
        (dict(batch_size=0), X, noisy, gradfree.InvalidParameterError, "batch_size"),
        (dict(loss="focal"), X, noisy, gradfree.InvalidParameterError, "loss"),
        (dict(model="cnn"), X[:, :50], noisy, gradfree.InvalidParameterError, "model"),
        (dict(optimizer="lbfgs"), X, noisy, gradfree.InvalidParameterError, "optimizer"),
        (dict(block="gauss"), X, noisy, gradfree.InvalidParameterError, "block"),
        (dict(block={"lambda": 0.0}), X, noisy, gradfree.InvalidParameterError, "lambda"),
        (dict(block={"depth": 3}), X, noisy, gradfree.InvalidParameterError, "depth"),
        (dict(block={"at": "conv1"}), X, noisy, gradfree.InvalidParameterError, "conv1"),
        (dict(block="mean"), X[:, :50], noisy, gradfree.InvalidParameterError, "square images"),
        ({}, X, noisy[:-1], gradfree.DataError, "rows"),
        ({}, X[:0], noisy[:0], gradfree.DataError, "empty"),
        ({}, np.where(np.arange(X.size).reshape(X.shape) == 70, np.nan, X), noisy, gradfree.DataError, r"X\[1, 6\]"),
    ]
    for params, Xb, yb, exc, match in cases:
        with pytest.raises(exc, match=match):
            RobustClassifier(epochs=1, **params).fit(Xb, yb)
    with pytest.raises(gradfree.InvalidParameterError, match="rate"):
        flip_labels(noisy, "symmetric", 1.0)
    with pytest.raises(gradfree.InvalidParameterError, match="rate"):
        flip_labels(noisy, "pair", 0.5)
    with pytest.raises(gradfree.InvalidParameterError, match=r"y\[0\]"):
        flip_labels(np.array([12, 1, 2]), "symmetric", 0.2, n_classes=10)
    with pytest.raises(gradfree.InvalidParameterError, match="C"):
        curriculum_selection([0.1, 0.2], 5.0)
    with pytest.raises(gradfree.GradfreeError, match="losses"):
        curriculum_selection([0.1, np.nan], 1.0)
    with pytest.raises(gradfree.CheckpointError):
        gradfree._gradfree.RobustModel.from_bytes(b'{"spec": 1}')


def test_cnn_with_a_block_learns_and_pickles():
    X, y, _, Xt, yt = _digits(0.0)
    for block in ("median", {"at": "both", "lambda": 0.2}):
        clf = RobustClassifier(loss="ce", model="cnn", block=block, epochs=6, random_state=0).fit(X, y)
        assert clf.score(Xt, yt) > 0.6, block  # a 3x3 median filter on 8x8 digits costs ~15 points
        again = pickle.loads(pickle.dumps(clf))
        np.testing.assert_array_equal(again.predict_proba(Xt), clf.predict_proba(Xt))


def test_numpy_loop_example():
    import importlib
    import pathlib
    import sys

    folder = str(pathlib.Path(__file__).resolve().parents[1] / "examples")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    acc = importlib.import_module("npcl_numpy_loop").main()
    assert acc["NPCL selection"] > acc["hinge on every sample"] + 0.15


def _fit(loss, X, y, w=None, **kw):
    params = dict(loss=loss, noise_rate=0.3, epochs=6, burn_in=2, batch_size=32, hidden_layer_sizes=(32,),
                  random_state=3)
    params.update(kw)
    return RobustClassifier(**params).fit(X, y, sample_weight=w)


@pytest.mark.parametrize("loss", ["npcl", "cl", "ce", "gce", "hinge", "coteaching"])
def test_sample_weight_is_repetition_and_zero_is_removal(loss):
    X, _, noisy, Xt, _ = _digits(0.3)
    X, noisy = X[:300], noisy[:300]
    rng = np.random.default_rng(0)
    w = rng.integers(0, 4, size=len(noisy))
    ref = _fit(loss, X, noisy).predict_proba(Xt)
    # None, all ones and all twos: the same model, bit for bit (only the weights' ratios matter).
    assert np.array_equal(_fit(loss, X, noisy, np.ones(len(noisy))).predict_proba(Xt), ref)
    assert np.array_equal(_fit(loss, X, noisy, np.full(len(noisy), 2.0)).predict_proba(Xt), ref)
    assert np.array_equal(_fit(loss, X, noisy, [2] * len(noisy)).predict_proba(Xt), ref)
    # Integer weights are repeated rows, zero weights removed rows (in any row order), bit for bit.
    weighted = _fit(loss, X, noisy, w)
    repeated = _fit(loss, np.repeat(X, w, axis=0), np.repeat(noisy, w))
    perm = rng.permutation(len(noisy))
    shuffled = _fit(loss, X[perm], noisy[perm], w[perm])
    for other in (repeated, shuffled):
        assert np.array_equal(weighted.predict_proba(Xt), other.predict_proba(Xt))
        assert [h["train_loss"] for h in weighted.history_] == [h["train_loss"] for h in other.history_]
    keep = w > 0
    dropped = _fit(loss, X[keep], noisy[keep], w[keep])
    assert np.array_equal(weighted.predict_proba(Xt), dropped.predict_proba(Xt))
    # selected_ has one entry per given row; rows of weight 0 are never used.
    assert weighted.selected_.shape == (len(noisy),) and not weighted.selected_[~keep].any()
    np.testing.assert_array_equal(weighted.selected_[keep], dropped.selected_)
    # Non-uniform weights do change the model.
    assert not np.array_equal(weighted.predict_proba(Xt), ref)


def test_sample_weight_steers_training():
    # Zero weight on every noisy row trains on the clean rows only: better than the noisy fit.
    # (Measured: 0.851 with the noisy rows, 0.942 without them.)
    X, clean, noisy, Xt, yt = _digits(0.6)
    noisy_fit = RobustClassifier(loss="ce", epochs=40, random_state=0).fit(X, noisy)
    w = (noisy == clean).astype(float)
    clean_fit = RobustClassifier(loss="ce", epochs=40, random_state=0).fit(X, noisy, sample_weight=w)
    assert clean_fit.score(Xt, yt) > noisy_fit.score(Xt, yt) + 0.05
    assert clean_fit.history_[-1]["train_accuracy"] > 0.95  # weighted: measured on the clean rows
    assert noisy_fit.history_[-1]["train_accuracy"] < 0.6


def test_bad_sample_weight_is_an_error_naming_it():
    X, _, noisy, _, _ = _digits(0.2)
    X, noisy = X[:40], noisy[:40]
    n = len(noisy)
    for w, match in [(-np.ones(n), r"sample_weight\[0\] = -1"), (np.r_[1.0, np.nan, np.ones(n - 2)], r"sample_weight\[1\]"),
                     (np.r_[np.inf, np.ones(n - 1)], r"sample_weight\[0\] = inf"), (np.zeros(n), "all weights are zero"),
                     (np.ones(n + 1), "shape"), (np.ones((n, 2)), "shape"), (np.array(["a"] * n), "dtype"),
                     (np.full(n, 1e308), "overflows")]:
        with pytest.raises(gradfree.InvalidParameterError, match=match):
            RobustClassifier(epochs=1).fit(X, noisy, sample_weight=w)
    original = np.r_[10.0, np.ones(n - 1)]
    given = original.copy()
    RobustClassifier(epochs=1, random_state=0).fit(X, noisy, sample_weight=given)
    np.testing.assert_array_equal(given, original)
    # A scalar weight is every row's weight, as scikit-learn reads it.
    a = RobustClassifier(epochs=2, random_state=0).fit(X, noisy, sample_weight=3)
    b = RobustClassifier(epochs=2, random_state=0).fit(X, noisy)
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
