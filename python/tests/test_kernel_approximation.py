"""gradfree.kernel_approximation: scikit-learn conformance (check_estimator, Pipeline, GridSearchCV),
agreement with scikit-learn's exact RBF kernel, the arc-cosine closed forms, and the thesis' claim
that SSF features have a lower Gram error than i.i.d. ones (sec. 6.6)."""
import pickle

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.linear_model import RidgeClassifier  # noqa: E402
from sklearn.metrics.pairwise import rbf_kernel  # noqa: E402
from sklearn.model_selection import GridSearchCV, train_test_split  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import MinMaxScaler  # noqa: E402
from sklearn.utils.estimator_checks import check_estimator  # noqa: E402

import gradfree  # noqa: E402
from gradfree.kernel_approximation import (CirculantSampler, IIDSampler, OrthogonalSampler, QMCSampler,  # noqa: E402
                                           SSFSampler, gram_errors, kernel_matrix, methods)

SAMPLERS = [IIDSampler, OrthogonalSampler, CirculantSampler, QMCSampler, SSFSampler]


@pytest.mark.parametrize("cls", SAMPLERS, ids=lambda c: c.__name__)
def test_check_estimator(cls):
    check_estimator(cls())


def _digits():
    X, y = load_digits(return_X_y=True)
    return X / 16.0, y


def test_pipeline_and_grid_search_on_digits():
    X, y = _digits()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0)
    pipe = make_pipeline(SSFSampler(random_state=0), RidgeClassifier(alpha=1e-2))
    grid = GridSearchCV(pipe, {"ssfsampler__kernel": ["rbf", "arccos1"], "ssfsampler__n_components": [256, 1024]}, cv=3)
    grid.fit(Xtr, ytr)
    assert grid.best_params_["ssfsampler__n_components"] == 1024
    assert grid.score(Xte, yte) > 0.95


def test_exact_kernels_agree_with_sklearn_and_closed_forms():
    X, _ = _digits()
    X = X[:50]
    np.testing.assert_allclose(kernel_matrix(X, "rbf", gamma=0.02), rbf_kernel(X, gamma=0.02), rtol=1e-12, atol=1e-14)
    n = np.linalg.norm(X, axis=1)
    cos = np.clip(X @ X.T / np.outer(n, n), -1, 1)
    t = np.arccos(cos)
    k0 = 1 - t / np.pi
    k1 = np.outer(n, n) / np.pi * (np.sin(t) + (np.pi - t) * cos)
    np.testing.assert_allclose(kernel_matrix(X, "arccos0"), k0, atol=1e-7)
    np.testing.assert_allclose(kernel_matrix(X, "arccos1"), k1, rtol=1e-7, atol=1e-9)


def test_ssf_has_lower_gram_error_than_iid_on_digits():
    X, _ = _digits()
    X = X[:1000]
    K = kernel_matrix(X, "arccos1")
    err = {}
    for cls in (IIDSampler, SSFSampler):
        vals = []
        for seed in range(3):
            Z = cls(kernel="arccos1", n_components=4 * 64, random_state=seed).fit_transform(X)
            vals.append(gram_errors(K, Z @ Z.T)[0])
        err[cls.__name__] = np.mean(vals)
    assert err["SSFSampler"] < 0.5 * err["IIDSampler"], err


def test_dtypes_reproducibility_and_pickling():
    X, _ = _digits()
    X = X[:200]
    for cls in SAMPLERS:
        s = cls(n_components=64, random_state=3).fit(X)
        Z = s.transform(X)
        assert Z.dtype == np.float64 and Z.shape == (200, 64)
        Z32 = s.transform(X.astype(np.float32))
        assert Z32.dtype == np.float32
        np.testing.assert_allclose(Z32, Z, atol=1e-5)
        np.testing.assert_array_equal(cls(n_components=64, random_state=3).fit_transform(X), Z)
        again = pickle.loads(pickle.dumps(s))
        np.testing.assert_array_equal(again.transform(X), Z)
        assert list(s.get_feature_names_out())[:2] == [f"{cls.__name__.lower()}0", f"{cls.__name__.lower()}1"]
    assert len(SSFSampler(random_state=0).fit(X).frequencies_) == 32
    assert [m[0] for m in methods()] == ["iid", "orf", "circulant", "halton", "sobol", "lattice", "ssf"]


def test_bad_input_is_a_clear_error():
    X, _ = _digits()
    X = X[:20]
    s = SSFSampler(random_state=0).fit(X)
    with pytest.raises(ValueError, match="X has 3 features, but SSFSampler is expecting 64"):
        s.transform(X[:, :3])
    bad = X.copy()
    bad[2, 5] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        s.transform(bad)
    with pytest.raises(gradfree.InvalidParameterError, match="n_components = 0"):
        SSFSampler(n_components=0).fit(X)
    with pytest.raises(gradfree.InvalidParameterError, match="kernel = laplace"):
        IIDSampler(kernel="laplace").fit(X)
    with pytest.raises(gradfree.InvalidParameterError, match="gamma"):
        IIDSampler(gamma=-1.0).fit(X)
    with pytest.raises(gradfree.InvalidParameterError, match="sequence"):
        QMCSampler(sequence="niederreiter").fit(X)
    with pytest.raises(gradfree.InvalidParameterError, match="rotation"):
        SSFSampler(rotation="givens").fit(X)
    with pytest.raises(gradfree.InvalidParameterError, match="shapes differ"):
        gram_errors(np.eye(3), np.eye(2))


def _sparse_rows(n=60, d=40, density=0.1, seed=0, dtype=np.float64):
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=seed, data_rvs=rng.standard_normal).astype(dtype)
    keep = np.ones(n)
    keep[3] = 0.0  # an empty row
    X = (sp.diags(keep) @ X).tocsr()
    X.eliminate_zeros()
    return X


@pytest.mark.parametrize("cls", SAMPLERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("kernel", ["rbf", "arccos0", "arccos1", "arccos2"])
def test_sparse_input_gives_the_features_of_the_dense_input(cls, kernel):
    X = _sparse_rows()
    D = X.toarray()
    dense = cls(kernel=kernel, n_components=64, random_state=1).fit(D)
    Z = dense.transform(D)
    for fmt in ("csr", "csc"):
        S = X.asformat(fmt)
        from_sparse = cls(kernel=kernel, n_components=64, random_state=1).fit(S)
        assert from_sparse.gamma_ == dense.gamma_  # gamma="scale" bit for bit, None for arc-cosine
        np.testing.assert_array_equal(from_sparse.transform(S), Z)
        np.testing.assert_array_equal(from_sparse.transform(D), Z)
        np.testing.assert_array_equal(dense.transform(S), Z)
        np.testing.assert_array_equal(cls(kernel=kernel, n_components=64, random_state=1).fit_transform(S), Z)
    # float32 stays float32, sparse or dense.
    S32 = X.astype(np.float32)
    z32 = dense.transform(S32)
    assert z32.dtype == np.float32
    np.testing.assert_array_equal(z32, dense.transform(S32.toarray()))


def test_sparse_transform_is_chunked_and_gamma_scale_matches_dense(monkeypatch):
    import gradfree.kernel_approximation as ka

    X = _sparse_rows(n=97, d=30, density=0.2, seed=4)
    D = X.toarray()
    s = SSFSampler(n_components=32, random_state=0).fit(X)
    assert s.gamma_ == ka._gradfree.gamma_scale(np.ascontiguousarray(D))
    assert s.gamma_ == pytest.approx(1.0 / (D.shape[1] * D.var()), rel=1e-12)
    full = s.transform(X)
    monkeypatch.setattr(ka, "_SPARSE_CHUNK_VALUES", 2 * 30 + 1)  # blocks of 2 rows
    np.testing.assert_array_equal(s.transform(X), full)
    np.testing.assert_array_equal(full, s.transform(D))
    # Unsorted indices and duplicate entries (summed, as scipy reads them) are the same matrix.
    import scipy.sparse as sp

    coo = X.tocoo()
    half = coo.data / 2
    dup = sp.csr_matrix((np.concatenate([half, half])[::-1], (np.concatenate([coo.row, coo.row])[::-1],
                                                              np.concatenate([coo.col, coo.col])[::-1])), shape=X.shape)
    dup.has_canonical_format = False
    again = SSFSampler(n_components=32, random_state=0).fit(dup)
    assert again.gamma_ == pytest.approx(s.gamma_, rel=1e-15)
    np.testing.assert_allclose(again.transform(dup), full, rtol=1e-12, atol=1e-12)
    # An all-zero sparse matrix: gamma="scale" falls back to 1 as for the dense zeros.
    zero = sp.csr_matrix((5, 30))
    assert IIDSampler(random_state=0).fit(zero).gamma_ == IIDSampler(random_state=0).fit(zero.toarray()).gamma_ == 1.0
    bad = X.copy()
    bad.data[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        s.transform(bad)


@pytest.mark.parametrize("cls", SAMPLERS, ids=lambda c: c.__name__)
def test_gamma_defaults_to_scale_everywhere_unlike_rbfsampler(cls):
    """The choice pinned: every sampler defaults to gamma="scale" (RBFSampler: 1.0), and says so."""
    import inspect

    from sklearn.kernel_approximation import RBFSampler

    assert inspect.signature(cls).parameters["gamma"].default == "scale"
    assert cls().get_params()["gamma"] == "scale"
    assert RBFSampler().get_params()["gamma"] == 1.0
    assert "RBFSampler`` defaults to" in cls.__doc__ and "gamma=1.0" in cls.__doc__
    X, _ = _digits()
    X = X[:30]
    assert cls(random_state=0).fit(X).gamma_ == pytest.approx(1.0 / (X.shape[1] * X.var()))
    assert cls(gamma=1.0, random_state=0).fit(X).gamma_ == 1.0


def test_iid_sampler_with_gamma_one_approximates_rbfsamplers_kernel():
    # IIDSampler(gamma=1.0) is the drop-in for RBFSampler(): both estimate exp(-|x - z|^2).
    from sklearn.kernel_approximation import RBFSampler

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(40, 5)) / 2
    K = rbf_kernel(X, gamma=1.0)
    for est in (IIDSampler(gamma=1.0, n_components=4000, random_state=0), RBFSampler(n_components=4000, random_state=0)):
        Z = est.fit_transform(X)
        assert np.abs(Z @ Z.T - K).max() < 0.08, type(est).__name__
