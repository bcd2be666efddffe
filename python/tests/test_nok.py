"""gradfree.robust.NOKDenoiser and nok_kernel (thesis ch. 7): scikit-learn conformance, the fit's
objective never increasing (7.16), the first-layer ReLU kernel against the arc-cosine kernel, a
kernel method on the digits, determinism and pickling, and bad input as typed exceptions naming
the argument."""
import pickle

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.datasets import load_digits  # noqa: E402
from sklearn.kernel_ridge import KernelRidge  # noqa: E402
from sklearn.utils.estimator_checks import check_estimator  # noqa: E402

import gradfree  # noqa: E402
from gradfree.robust import NOKDenoiser, nok_kernel  # noqa: E402


def test_check_estimator():
    # No expected failures: the checks that set n_components = 1 (below n_features) fit a block
    # of rank 1 (W = sqrt(N) R^T B, W^T W / N = I_N).
    for r in check_estimator(NOKDenoiser(random_state=0), on_fail=None):
        assert r["status"] in ("passed", "skipped"), r
        if r["status"] == "skipped":
            assert "array_api" in r["check_name"], r


def test_codes_narrower_than_the_input_fit_and_never_increase_the_objective():
    x, _ = _digits()
    for n in (1, 5, 63):
        den = NOKDenoiser(n_components=n, layers=3, alternations=3, random_state=0).fit(x[:300])
        assert den.n_components_ == n and den.codes(x[:4]).shape == (4, n)
        obj = den.objective_
        assert np.all(np.isfinite(obj)) and np.all(np.diff(obj) <= 1e-9 * np.abs(obj[:-1])), (n, obj)
        assert obj[-1] < obj[0], (n, obj)
        r = den.rotations_[-1]
        np.testing.assert_allclose(r @ r.T, np.eye(64), atol=1e-10)
        z = den.transform(x[300:])
        # The reconstruction lies in an n-dimensional subspace; wider codes reconstruct better.
        assert np.linalg.matrix_rank(z, tol=1e-8) <= n
    errs = [np.sum((NOKDenoiser(n_components=n, activation="relu", random_state=0).fit(x[:300]).transform(x[300:])
                    - x[300:]) ** 2) for n in (4, 32)]
    assert errs[1] < errs[0], errs


def test_rows_are_independent_and_one_sample_fits():
    x, _ = _digits()
    den = NOKDenoiser(random_state=2).fit(x[:100])
    full = den.transform(x[:40])
    perm = np.random.default_rng(1).permutation(40)
    np.testing.assert_array_equal(den.transform(x[:40][perm]), full[perm])
    np.testing.assert_array_equal(den.transform(x[10:17]), full[10:17])
    one = NOKDenoiser(random_state=2).fit(x[:1])
    assert one.transform(x[:1]).shape == (1, 64)
    params = den.get_params()
    den.fit(x[:50])
    assert den.get_params() == params


def _digits():
    x, y = load_digits(return_X_y=True)
    return (x - x.mean(0)) / (x.std(0) + 1.0), y


def test_fit_never_increases_the_objective_and_reconstructs():
    x, _ = _digits()
    for act, alpha in (("l1", 0.1), ("relu", None), ("l0", 0.02), ("mcp", 0.1)):
        den = NOKDenoiser(activation=act, alpha=alpha, layers=3, alternations=3, random_state=1).fit(x[:500])
        obj = den.objective_
        assert len(obj) == 1 + 3 * 4
        assert np.all(np.diff(obj) <= 1e-9 * np.abs(obj[:-1])), (act, obj)
        assert obj[-1] < 0.5 * obj[0], (act, obj)
        r = den.rotations_
        assert r.shape == (4, 64, 64)
        np.testing.assert_allclose(r[-1] @ r[-1].T, np.eye(64), atol=1e-10)
        err = np.sum((den.transform(x[500:]) - x[500:]) ** 2)
        assert err < 0.5 * np.sum(x[500:] ** 2), act
        assert den.codes(x[:3]).shape == (3, den.n_components_) and den.n_components_ == 128


def test_relu_kernel_approaches_half_the_arc_cosine_kernel():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 10))
    norms = np.linalg.norm(x, axis=1)
    cos = np.clip(x @ x.T / np.outer(norms, norms), -1, 1)
    t = np.arccos(cos)
    exact = np.outer(norms, norms) * (np.sin(t) + (np.pi - t) * cos) / (2 * np.pi)
    errs = [np.mean([np.linalg.norm(nok_kernel(x, n_components=n, random_state=s) - exact) for s in range(6)])
            for n in (20, 5120)]
    assert errs[1] < 0.04 * np.linalg.norm(exact), errs
    assert errs[1] < 0.2 * errs[0], errs


def test_nok_kernel_in_kernel_ridge_classifies_digits():
    x, y = _digits()
    idx = np.random.default_rng(0).permutation(len(y))
    tr, te = idx[:1200], idx[1200:]
    onehot = np.eye(10)[y[tr]]
    k_tr = nok_kernel(x[tr], n_components=1024, random_state=0)
    k_te = nok_kernel(x[te], x[tr], n_components=1024, random_state=0)
    model = KernelRidge(alpha=1.0, kernel="precomputed").fit(k_tr, onehot)
    acc = np.mean(model.predict(k_te).argmax(1) == y[te])
    assert acc > 0.95, acc
    # The fitted block's kernel is a Gram matrix of its codes.
    den = NOKDenoiser(random_state=0).fit(x[:300])
    k = den.kernel(x[:20])
    c = den.codes(x[:20])
    np.testing.assert_allclose(k, c @ c.T / den.n_components_, atol=1e-10)
    assert np.all(np.linalg.eigvalsh(k) > -1e-9)


def test_same_seed_same_block_and_pickle_round_trip():
    x, _ = _digits()
    a = NOKDenoiser(structure="subgroup", random_state=4).fit(x[:200])
    b = NOKDenoiser(structure="subgroup", random_state=4).fit(x[:200])
    np.testing.assert_array_equal(a.transform(x[200:260]), b.transform(x[200:260]))
    c = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(a.transform(x[200:260]), c.transform(x[200:260]))
    d = NOKDenoiser(structure="subgroup", random_state=5).fit(x[:200])
    assert not np.allclose(a.transform(x[200:260]), d.transform(x[200:260]))
    with pytest.raises(gradfree.CheckpointError):
        gradfree._gradfree.NokModel.from_bytes(b"{}")


def test_bad_input_is_a_typed_error_naming_the_argument():
    x, _ = _digits()
    bad = x[:10].copy()
    bad[3, 5] = np.nan
    with pytest.raises(gradfree.DataError, match=r"X\[3, 5\]"):
        NOKDenoiser().fit(bad)
    cases = [
        (dict(alpha=0.0), "alpha"),
        (dict(alpha=-1.0), "alpha"),
        (dict(activation="gelu"), "activation"),
        (dict(n_components=0), "n_components"),
        (dict(n_components=100, structure="orthogonal"), "n_components"),
        (dict(layers=0), "layers"),
        (dict(alternations=0), "alternations"),
        (dict(structure="fft"), "structure"),
        (dict(rotation="spin"), "rotation"),
        (dict(activation="scad", gamma=1.5), "gamma"),
    ]
    for kwargs, name in cases:
        with pytest.raises(gradfree.InvalidParameterError, match=name):
            NOKDenoiser(**kwargs).fit(x[:10])
    with pytest.raises(gradfree.InvalidParameterError, match="structure"):
        NOKDenoiser(structure="ssf").fit(x[:10, :7])
    with pytest.raises(gradfree.InvalidParameterError, match="features"):
        nok_kernel(x[:3], x[:3, :5])
    with pytest.raises(gradfree.InvalidParameterError, match="X"):
        nok_kernel([["a"]])
    den = NOKDenoiser(random_state=0).fit(x[:50])
    with pytest.raises(ValueError, match="features"):
        den.transform(x[:5, :10])
