"""gradfree.inference: statsmodels-style results, a Python gradient model, streamed batches, and
typed errors for bad input."""
import numpy as np
import pytest

from gradfree.errors import DataError, InferenceWarning, InvalidParameterError, ModelFitError, NotOfferedError
from gradfree.inference import fit, fit_stream, random_scaling_critical_value


def logistic_rows(n=2000, seed=0):
    """Test inputs (not a data set): a well-specified logistic model with an intercept."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    w = np.array([0.5, -1.0, 0.25])
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ w + 0.3)))).astype(float)
    return X, y


def test_chain_results_read_the_chains():
    X, y = logistic_rows()
    r = fit(X, y, intercept=True, method="masgrad", chains=40, steps=100)
    assert r.params.shape == r.process_sd.shape == (4,)
    band = r.final_band(alpha=0.1)
    assert band.shape == (4, 2) and np.all(band[:, 0] < r.params) and np.all(r.params < band[:, 1])
    # The 90% quantile band of the final iterates, computed here (type 7, NumPy's default).
    np.testing.assert_allclose(band, np.quantile(r.chains[:, -1, :], [0.05, 0.95], axis=0).T, rtol=1e-12)
    np.testing.assert_allclose(r.cov_params(), np.cov(r.chains[:, -1, :].T), rtol=1e-10)
    np.testing.assert_allclose(r.process_sd, np.sqrt(np.diag(r.cov_params())))
    with pytest.raises(NotOfferedError):
        r.conf_int()
    assert r.chains.shape == (40, 101, 4) and list(r.steps[:3]) == [0, 1, 2]
    text = str(r.summary())
    assert "MasGrad chains" in text and "Batch size:" in text and "const" in text and "process sd" in text
    assert r.names == ["const", "x0", "x1", "x2"] and r.method == "masgrad" and r.spec["chains"] == 40
    lo, center, hi = r.bands()
    assert lo.shape == (101, 4) and np.all(lo <= hi)
    assert abs(random_scaling_critical_value(0.95) - 6.747) < 1e-3


def test_population_masgrad_centers_on_the_maximum_likelihood_estimate():
    sm = pytest.importorskip("statsmodels.api")
    X, y = logistic_rows()
    mle = sm.Logit(y, sm.add_constant(X)).fit(disp=0).params
    r = fit(X, y, intercept=True, method="masgrad", chains=50, steps=300)
    assert r.spec["moments"] is None  # the population's, in memory
    np.testing.assert_allclose(r.params, mle, atol=0.05)
    ind = fit(X, y, intercept=True, method="masgrad", moments="independent", chains=50, steps=300)
    np.testing.assert_allclose(ind.params, mle, atol=0.06)


def test_a_python_gradient_and_float32_rows_give_the_built_in_chains():
    X, y = logistic_rows(500)

    def grad(theta, xb, yb):
        return (1 / (1 + np.exp(-(xb @ theta))) - yb)[:, None] * xb

    ours = fit(X, y, method="sgd", chains=8, steps=30)
    theirs = fit(X, y, method="sgd", chains=8, steps=30, grad=grad, n_params=3)
    np.testing.assert_allclose(theirs.chains, ours.chains, rtol=0, atol=1e-12)
    x32 = X.astype(np.float32)
    a = fit(x32, y, method="masgrad", chains=8, steps=30)
    b = fit(x32.astype(np.float64), y, method="masgrad", chains=8, steps=30)
    np.testing.assert_array_equal(a.chains, b.chains)
    np.testing.assert_array_equal(fit(x32, y).params, fit(x32.astype(np.float64), y).params)


def test_chains_through_an_executor_are_the_chains_of_one_run():
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
    X, y = logistic_rows(500)
    kw = dict(intercept=True, method="masgrad", chains=10, steps=20)
    one = fit(X, y, **kw)
    with ThreadPoolExecutor(3) as ex:
        threaded = fit(X, y, executor=ex, **kw)
        with pytest.raises(InvalidParameterError, match="executor"):
            fit(X, y, executor=ex)  # mle runs no chains
    # "spawn": a forked child of a process whose Rust thread pool is running can deadlock.
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as ex:
        processes = fit(X, y, executor=ex, n_parts=4, **kw)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as ex:
        with pytest.raises(InvalidParameterError, match="spawn"):
            fit(X, y, method="sgd", executor=ex)
    for other in (threaded, processes):
        np.testing.assert_array_equal(other.chains, one.chains)
        np.testing.assert_array_equal(other.final_band(), one.final_band())
        assert other.names == one.names and other.spec["chains"] == 10


def test_streamed_batches_use_every_row_once_and_errors_come_through():
    X, y = logistic_rows(4000)

    def batches(size):
        for i in range(0, len(y), size):
            yield X[i:i + size], y[i:i + size]

    a = fit_stream(batches(333), method="random-scaling", batch_size=2, chains=4, step=0.5)
    b = fit_stream(batches(1000), method="random-scaling", batch_size=2, chains=4, step=0.5)
    np.testing.assert_array_equal(a.chains, b.chains)
    assert a.streamed_rows == 4000 and a.spec["steps"] == 500
    assert a.chain_intervals().shape == (4, 3, 2)

    def broken():
        yield X[:10], y[:10]
        raise KeyError("source went away")

    with pytest.raises(KeyError, match="source went away"):
        fit_stream(broken(), method="sgd", chains=2, batch_size=5)

    def bad_grad(theta, xb, yb):
        raise ZeroDivisionError("user bug")

    with pytest.raises(ZeroDivisionError, match="user bug"):
        fit(X, y, grad=bad_grad, n_params=3, chains=2, passes=1)
    with pytest.raises(InvalidParameterError, match="shape"):
        fit(X, y, grad=lambda t, xb, yb: np.zeros((2, 2)), n_params=3, chains=2, passes=1)
    # The default, one pass: the rows of every batch once, within a small fraction of a standard
    # error of the in-memory fit.
    one = fit_stream(batches(333))
    full = fit(X, y)
    assert one.nobs == 4000 and one.method == "mle"
    assert np.all(np.abs(one.params - full.params) < 0.2 * full.bse)


def test_bad_input_is_a_typed_error_naming_it():
    X, y = logistic_rows(100)
    bad = X.copy()
    bad[7, 1] = np.nan
    with pytest.raises(DataError, match="row 7 column 1 is NaN"):
        fit(bad, y)
    with pytest.raises(DataError, match="row 7 column 1 is inf"):
        bad[7, 1] = np.inf
        fit(bad, y)
    with pytest.raises(DataError, match="no rows"):
        fit(np.empty((0, 3)), np.empty(0))
    with pytest.raises(InvalidParameterError, match="batch_size"):
        fit(X, y, method="sgd", batch_size=500, sampling="without-replacement")
    with pytest.raises(DataError, match="response 0 is"):
        fit(X, y + 2)
    with pytest.raises(DataError, match="counts >= 0"):
        fit(X, -y - 1, model="poisson")
    with pytest.raises(ModelFitError, match="no moment-adjusted direction"):
        fit(np.ones((50, 3)), np.ones(50), model="linear", method="masgrad")
    with pytest.warns(InferenceWarning, match="rank 1"):   # three equal columns: statsmodels' pinv, with a warning
        r = fit(np.ones((50, 3)) * [1, 2, 3], np.arange(50.0), model="linear")
    assert r.rank == 1 and r.df_model == 0 and np.allclose(r.params, r.params[0] * np.array([1, 2, 3]))
    with pytest.raises(InvalidParameterError, match="`method`"):
        fit(X, y, method="newton")
    with pytest.raises(InvalidParameterError, match="step"):
        fit(X, y, method="sgd", step=-1.0)
    with pytest.raises(InvalidParameterError, match="`step`.*chain method"):
        fit(X, y, step=0.1)
    with pytest.raises(InvalidParameterError, match="alpha"):
        fit(X, y).conf_int(alpha=1.5)
    with pytest.raises(InvalidParameterError, match="y: 99 responses"):
        fit(X, y[:-1])
    with pytest.raises(DataError, match="empty"):
        fit_stream(iter([]))
