"""gradfree.inference.fit_stream on rows in an order (sorted by the response or a covariate),
re-readable sources, pandas chunks with ``target=``, and quasi-complete separation."""
import warnings

import numpy as np
import pytest

from gradfree.errors import ConvergenceWarning, InvalidParameterError, PerfectSeparationWarning
from gradfree.inference import fit, fit_stream


def rare_events(n=20_000, d=8, seed=0):
    """Test inputs (not a data set): logistic rows with about 7% positives."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    eta = X @ np.linspace(-0.5, 0.5, d) - 3.0
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
    return X, y


def batches(X, y, k=1000):
    return [(X[i:i + k], y[i:i + k]) for i in range(0, len(y), k)]


def test_rows_sorted_by_the_response_read_once_are_marked_not_garbage():
    X, y = rare_events()
    o = np.argsort(y, kind="stable")
    with pytest.warns(ConvergenceWarning, match="Zeileis"):
        r = fit_stream(iter(batches(X[o], y[o])), intercept=True)
    assert r.order_effect and r.order_pvalue < 1e-6 and not r.converged and np.isnan(r.llf)
    text = str(r.summary())
    assert "small fraction of a standard error" not in text and "not the MLE" in text


def test_rows_sorted_by_the_response_read_again_give_the_mle():
    # Both fits stop at Newton's tolerance: they agree to 1e-8 relative or 1e-7 standard errors.
    X, y = rare_events()
    ref = fit(X, y, intercept=True)
    o = np.argsort(y, kind="stable")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = fit_stream(batches(X[o], y[o]), intercept=True)           # a list: read again
    assert r.order_effect and r.refit_passes >= 2 and r.converged
    np.testing.assert_allclose(r.params, ref.params, rtol=1e-8, atol=1e-7 * ref.bse.min())
    np.testing.assert_allclose(r.bse, ref.bse, rtol=1e-6)
    assert abs(r.llf - ref.llf) < 1e-8 * abs(ref.llf)
    assert "Newton's method over 20000 streamed rows" in str(r.summary())
    # A function returning a fresh iterable reads again too; refit=True runs the passes even when
    # the test does not fire (rows sorted by a covariate of a well-specified model).
    o = np.argsort(X[:, 0])
    r = fit_stream(lambda: iter(batches(X[o], y[o])), intercept=True, refit=True)
    np.testing.assert_allclose(r.params, ref.params, rtol=1e-8, atol=1e-7 * ref.bse.min())
    with pytest.raises(InvalidParameterError, match="refit"):
        fit_stream(iter(batches(X, y)), intercept=True, refit=True)
    with pytest.raises(InvalidParameterError, match="refit"):
        fit_stream(batches(X, y), method="sgd", refit=True)


def test_random_order_is_one_pass_and_not_flagged():
    X, y = rare_events(seed=3)
    o = np.random.default_rng(1).permutation(len(y))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = fit_stream(batches(X[o], y[o]), intercept=True)
    assert not r.order_effect and r.order_pvalue > 0.001 and r.refit_passes == 0 and r.converged
    assert "order test: p =" in str(r.summary())


def test_pandas_chunks_with_target(tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = rare_events(n=5000, d=3, seed=5)
    df = pd.DataFrame(X, columns=["age", "dose", "weight"])
    df.insert(1, "y", y.astype(int))
    df.index = np.arange(len(df)) * 3 + 7               # not 0..n
    path = tmp_path / "rows.csv"
    df.to_csv(path, index=False)
    ref = fit(df[["age", "dose", "weight"]], df["y"], intercept=True)
    r = fit_stream(pd.read_csv(path, chunksize=700), target="y", intercept=True)
    assert list(r.params.index) == ["const", "age", "dose", "weight"] and r.model.endog_names == "y"
    np.testing.assert_allclose(r.params, ref.params, atol=0.2 * ref.bse.max())
    frames = [df.iloc[i:i + 900] for i in range(0, len(df), 900)]
    r2 = fit_stream(frames, target="y", intercept=True, refit=True)
    np.testing.assert_allclose(r2.params, ref.params, rtol=1e-8, atol=1e-7 * ref.bse.min())
    r3 = fit_stream(lambda: pd.read_csv(path, chunksize=700), target="y", intercept=True, refit=True)
    np.testing.assert_allclose(r3.params, ref.params, rtol=1e-8, atol=1e-7 * ref.bse.min())
    r4 = fit_stream(df, target="y", intercept=True)     # one DataFrame: one batch
    np.testing.assert_allclose(r4.params, ref.params, rtol=1e-6)
    assert list(r4.params.index) == ["const", "age", "dose", "weight"]


def quasi_separated():
    """x < 0 all 0, x > 0 all 1, and ten rows at x = 0, three of them 1 (an intercept of
    logit(0.3))."""
    x = np.r_[-np.arange(1, 21), np.zeros(10), np.arange(1, 21)].astype(float)
    y = np.r_[np.zeros(20), [1, 1, 1, 0, 0, 0, 0, 0, 0, 0], np.ones(20)]
    return x[:, None], y


def test_quasi_separation_warns_in_memory_and_streamed():
    X, y = quasi_separated()
    with pytest.warns(PerfectSeparationWarning, match="quasi-complete"):
        fit(X, y, intercept=True)
    with pytest.warns(PerfectSeparationWarning, match="quasi-complete"):
        fit_stream(iter([(X, y)]), intercept=True)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(3000)
    x[:200] = 0.0
    yy = (x > 0).astype(float)
    yy[:200] = rng.integers(0, 2, 200)
    o = rng.permutation(3000)
    with pytest.warns(PerfectSeparationWarning, match="quasi-complete"):
        fit(x[:, None], yy, intercept=True)
    with pytest.warns(PerfectSeparationWarning, match="quasi-complete"):
        fit_stream(iter(batches(x[o, None], yy[o], 500)), intercept=True)
