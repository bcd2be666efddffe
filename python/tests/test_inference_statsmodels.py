"""gradfree.inference against statsmodels on bundled data (statsmodels is a test requirement, so
these run in CI), the statsmodels results API, one MasGrad and one MadProx step recomputed here in
NumPy, and the coverage of the default intervals."""
import io
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from sklearn.datasets import load_breast_cancer, load_diabetes, load_linnerud

from gradfree.errors import (CheckpointError, ConvergenceWarning, InvalidParameterError, NotOfferedError,
                             PerfectSeparationWarning)
from gradfree.inference import MLEResults, ProcessResults, fit, fit_stream, load, simulate


def breast_cancer():
    """UCI breast cancer as scikit-learn ships it: four standardized features, the 0/1 target."""
    d = load_breast_cancer(as_frame=True)
    X = d.data.iloc[:, :4]
    X = (X - X.mean()) / X.std()
    X.columns = ["radius", "texture", "perimeter", "area"]
    return X, d.target


def close(ours, theirs, rtol=1e-4, atol=1e-9):
    np.testing.assert_allclose(np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float), rtol=rtol, atol=atol)


def test_the_default_logistic_fit_is_statsmodels_logit_and_glm():
    X, y = breast_cancer()
    ours = fit(X, y, intercept=True)
    assert isinstance(ours, MLEResults) and ours.method == "mle"
    logit = sm.Logit(y, sm.add_constant(X)).fit(disp=0)
    glm = sm.GLM(y, sm.add_constant(X), family=sm.families.Binomial()).fit()
    for theirs in (logit, glm):
        for name in ("params", "bse", "tvalues", "pvalues"):
            a, b = getattr(ours, name), getattr(theirs, name)
            assert list(a.index) == list(b.index) == ["const", "radius", "texture", "perimeter", "area"]
            close(a, b)
        close(ours.conf_int(), theirs.conf_int())
        close(ours.cov_params(), theirs.cov_params(), atol=1e-5)
        close(ours.llf, theirs.llf, rtol=1e-9)
        close(ours.aic, theirs.aic, rtol=1e-9)
        assert ours.nobs == theirs.nobs == 569 and ours.df_model == theirs.df_model == 4
        assert ours.df_resid == theirs.df_resid == 564
    close(ours.bic, glm.bic_llf, rtol=1e-9)
    close(ours.bic, logit.bic, rtol=1e-9)
    close(ours.fittedvalues, glm.fittedvalues, rtol=1e-5, atol=1e-8)
    close(ours.resid_response, glm.resid_response, rtol=1e-5, atol=1e-8)
    close(ours.resid_pearson, glm.resid_pearson, rtol=1e-5, atol=1e-8)
    close(ours.predict(X.iloc[:7]), glm.predict(sm.add_constant(X).iloc[:7]), rtol=1e-5)
    close(ours.predict(X.iloc[:7], which="linear"), glm.predict(sm.add_constant(X).iloc[:7], which="linear"), rtol=1e-5)
    # The sandwich.
    hc0 = fit(X, y, intercept=True, cov_type="HC0")
    close(hc0.bse, sm.GLM(y, sm.add_constant(X), family=sm.families.Binomial()).fit(cov_type="HC0").bse)
    assert hc0.cov_type == "HC0" and ours.converged and ours.scale == 1.0


def test_linear_and_poisson_agree_with_ols_and_glm():
    d = load_diabetes(as_frame=True)
    X, y = d.data, d.target
    ours = fit(X, y, model="linear", intercept=True)
    ols = sm.OLS(y, sm.add_constant(X)).fit()
    for name in ("params", "bse", "tvalues", "pvalues"):
        close(getattr(ours, name), getattr(ols, name), rtol=1e-8)
    close(ours.conf_int(alpha=0.1), ols.conf_int(alpha=0.1), rtol=1e-8)  # Student's t on df_resid, as OLS
    close(ours.llf, ols.llf, rtol=1e-10)
    close(ours.aic, ols.aic, rtol=1e-10)
    close(ours.bic, ols.bic, rtol=1e-10)
    close(ours.scale, ols.scale, rtol=1e-10)
    close(ours.resid, ols.resid, rtol=1e-8, atol=1e-6)
    # Poisson: the counts of chin-ups in Linnerud's data on three standardized measurements.
    lin = load_linnerud(as_frame=True)
    Xp = lin.target.astype(float)
    Xp = (Xp - Xp.mean()) / Xp.std()
    counts = lin.data["Chins"]
    pois = fit(Xp, counts, model="poisson", intercept=True)
    theirs = sm.GLM(counts, sm.add_constant(Xp), family=sm.families.Poisson()).fit()
    for name in ("params", "bse", "pvalues"):
        close(getattr(pois, name), getattr(theirs, name), rtol=1e-4, atol=1e-10)
    close(pois.llf, theirs.llf, rtol=1e-9)


def test_pandas_in_pandas_out_and_numpy_in_numpy_out():
    X, y = breast_cancer()
    r = fit(X, y, intercept=True)
    assert r.params["radius"] == r.params.iloc[1]
    assert list(r.conf_int().columns) == [0, 1] and list(r.conf_int(cols=[1, 3]).index) == ["radius", "perimeter"]
    assert list(r.cov_params().columns) == r.model.exog_names == ["const", "radius", "texture", "perimeter", "area"]
    assert r.model.endog_names == "target" and r.model == "logistic"
    assert r.model.exog.shape == (569, 5) and np.all(r.model.exog[:, 0] == 1)
    assert r.fittedvalues.index.equals(X.index)
    n = fit(X.to_numpy(), y.to_numpy(), intercept=True)
    assert isinstance(n.params, np.ndarray) and isinstance(n.conf_int(), np.ndarray)
    np.testing.assert_array_equal(n.params, r.params.to_numpy())
    with pytest.raises(InvalidParameterError, match="cols"):
        r.conf_int(cols=[9])


def test_summary_tables_and_renderings():
    X, y = breast_cancer()
    r = fit(X, y, intercept=True)
    s = r.summary()
    text = str(s)
    glm = sm.GLM(y, sm.add_constant(X), family=sm.families.Binomial()).fit()
    assert "Logit Regression Results" in text and "Pseudo R-squ." in text and "P>|z|" in text
    glm_text = str(r.summary(layout="glm"))
    assert "Generalized Linear Model Regression Results" in glm_text and "Binomial" in glm_text and "Deviance" in glm_text
    assert len(s.tables) == 2 and s.tables[1].data[0] == ["", "coef", "std err", "z", "P>|z|", "[0.025", "0.975]"]
    table = {row[0]: [float(v) for v in row[1:]] for row in s.tables[1].data[1:]}
    for name in glm.params.index:  # 4 significant digits, as statsmodels prints them
        assert abs(table[name][0] - glm.params[name]) <= 5e-4 * abs(glm.params[name]) + 1e-4
    html = s.as_html()
    assert html.count('<table class="simpletable">') == 2 and "<th>radius</th>" in html
    assert "\\begin{tabular}" in s.as_latex() and "radius" in s.as_latex()
    csv = s.as_csv()
    assert "radius," in csv and pd.read_csv(io.StringIO(s.tables[1].as_csv()), index_col=0).shape == (5, 6)
    renamed = r.summary(xname=["c", "a", "b", "d", "e"], yname="malignant", alpha=0.1)
    assert "malignant" in str(renamed) and "[0.050" in str(renamed) and renamed.tables[1].data[2][0] == "a"
    with pytest.raises(InvalidParameterError, match="xname"):
        r.summary(xname=["one"])


def test_results_pickle_and_save_atomically(tmp_path):
    X, y = breast_cancer()
    r = fit(X, y, intercept=True)
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is MLEResults and back.params.equals(r.params) and back.fittedvalues.equals(r.fittedvalues)
    assert str(back.summary()) == str(r.summary())
    path = tmp_path / "fit.pickle"
    r.save(path)
    assert load(path).conf_int().equals(r.conf_int()) and MLEResults.load(path).llf == r.llf
    assert [p.name for p in tmp_path.iterdir()] == ["fit.pickle"]
    m = fit(X, y, method="masgrad", chains=6, steps=20)
    assert np.array_equal(pickle.loads(pickle.dumps(m)).chains, m.chains)
    small = tmp_path / "small.pickle"
    r.save(small, remove_data=True)
    with pytest.raises(NotOfferedError, match="removed"):
        load(small).fittedvalues
    # A changed pickle is a CheckpointError: the checksum catches it; an edit whose checksum is
    # recomputed still meets the fit's own checks, which name the field.
    blob = pickle.dumps(fit(X, y, intercept=True))
    with pytest.raises(CheckpointError, match="checksum mismatch"):
        pickle.loads(blob.replace(b'"nobs":569', b'"nobs":"x"'))
    from gradfree import _pickling
    restore, (env,) = r.__reduce__()
    saved = pickle.loads(env["payload"])
    saved["fit_json"] = saved["fit_json"].replace('"nobs":569', '"nobs":"x"')
    with pytest.raises(CheckpointError, match="nobs"):
        restore(_pickling.seal(MLEResults, saved))


def test_warnings_where_statsmodels_warns():
    x = np.linspace(-1, 1, 40)
    y = (x > 0).astype(float)
    with pytest.warns(PerfectSeparationWarning):
        fit(x, y, intercept=True)
    X, y = breast_cancer()
    with pytest.warns(ConvergenceWarning, match="not settled"):
        fit(X, y, method="masgrad", chains=20, steps=40)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit(X, y, intercept=True)


def test_chain_spread_is_not_offered_as_a_confidence_interval():
    X, y = breast_cancer()
    m = fit(X, y, method="masgrad", chains=10, steps=40, seed=3)
    assert isinstance(m, ProcessResults) and not hasattr(m, "bse")
    for name in ("bse", "tvalues", "pvalues"):
        with pytest.raises(NotOfferedError, match=f"`{name}` is not offered.*bands"):
            getattr(m, name)
    with pytest.raises(NotOfferedError, match="`conf_int` is not offered"):
        m.conf_int()
    # The mixture and the network start off their symmetric point (exchangeable parameters).
    z = np.concatenate([np.random.default_rng(1).normal(-2, 1, 300), np.random.default_rng(2).normal(2, 1, 300)])
    mix = fit(z, model="mixture", components=2)
    assert mix.method == "random-scaling" and mix.params[0] < -1 and mix.params[1] > 1
    np.testing.assert_allclose(m.process_sd, m.chains[:, -1, :].std(axis=0, ddof=1), rtol=1e-10)
    lo, center, hi = m.bands()
    assert lo.shape == (41, 4) and np.all(lo <= hi)
    np.testing.assert_allclose(m.final_band(), np.quantile(m.chains[:, -1, :], [0.025, 0.975], axis=0).T, rtol=1e-12)
    # Keywords the method would ignore are refused.
    with pytest.raises(InvalidParameterError, match="`chains`.*chain method"):
        fit(X, y, chains=10)
    with pytest.raises(InvalidParameterError, match="`cov_type`"):
        fit(X, y, method="masgrad", cov_type="HC0")


def test_one_masgrad_step_with_either_root_recomputed_here():
    """One step of MasGrad from the origin on a batch of 12 rows, recomputed in NumPy: the
    symmetric root (eigendecomposition of the batch covariance) and the rank-one recursion of
    Prop. 6.2 on the centred gradients in the batch's order."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(12, 3))
    y = (rng.random(12) < 0.5).astype(float)
    seen = []

    def grad(theta, xb, yb):
        seen.append(xb.copy())
        return (1 / (1 + np.exp(-(xb @ theta))) - yb)[:, None] * xb

    for method in ("masgrad", "masgrad-rank-one"):
        seen.clear()
        r = fit(X, y, grad=grad, n_params=3, method=method, moments="batch", batch_size=12, chains=1, steps=1,
                step=0.3, sampling="without-replacement")
        xb = seen[0]
        yb = np.array([y[np.where((X == row).all(axis=1))[0][0]] for row in xb])
        g = (1 / (1 + np.exp(0.0)) - yb)[:, None] * xb
        b = g.mean(axis=0)
        if method == "masgrad":
            vals, vecs = np.linalg.eigh(np.cov(g.T, ddof=1))
            direction = vecs @ np.diag(vals ** -0.5) @ vecs.T @ b
        else:
            h = np.eye(3)
            for v in g - b:
                u = h @ v
                s = np.sqrt(1 + u @ u)
                h = h - np.outer(u, u @ h) / ((1 + s) * s)
            direction = np.sqrt(11) * h @ b
        np.testing.assert_allclose(r.chains[0, 1], -0.3 * direction, rtol=1e-12, atol=1e-15)


def test_one_madprox_step_recomputed_here():
    """MadProx (eq. 19-20) from the origin on the whole data as its batch: the gradient step in the
    diagonal metric D = diag(Sigma(0))^{1/2} (population covariance), then soft-thresholding at
    eta lambda / D_ii."""
    d = load_diabetes()
    X, y = d.data[:, :4] / d.data[:, :4].std(axis=0), (d.target - d.target.mean()) / d.target.std()
    eta, lam = 0.5, 0.3
    r = fit(X, y, model="linear", method="madprox", lam=lam, step=eta, batch_size=len(y), chains=1, steps=1,
            sampling="without-replacement")
    g = (X @ np.zeros(4) - y)[:, None] * X
    D = np.sqrt(np.cov(g.T, ddof=0).diagonal())
    z = -eta * g.mean(axis=0) / D
    want = np.sign(z) * np.maximum(np.abs(z) - eta * lam / D, 0)
    assert np.any(want == 0) and np.any(want != 0)
    np.testing.assert_allclose(r.chains[0, 1], want, rtol=1e-12, atol=1e-15)


def test_default_intervals_cover_where_the_former_default_did_not():
    """Coverage of 95% intervals over 40 replications of logistic rows with Toeplitz covariance,
    d = 20, N = 5000: the default (maximum likelihood) in memory and streamed covers; MasGrad with
    the batch's V, the former default, read as an interval, does not."""
    cover = {"memory": [], "stream": [], "masgrad": []}
    for rep in range(40):
        X, y, truth = simulate("toeplitz", 20, "logistic", 5000, seed=rep)
        inside = lambda ci: np.mean((ci[:, 0] <= truth) & (truth <= ci[:, 1]))
        cover["memory"].append(inside(fit(X, y).conf_int()))
        batches = ((X[i:i + 700], y[i:i + 700]) for i in range(0, 5000, 700))
        cover["stream"].append(inside(fit_stream(batches).conf_int()))
        if rep < 8:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m = fit(X, y, method="masgrad", moments="batch", chains=20, interval="normal", seed=rep)
            cover["masgrad"].append(inside(m.final_band()))
    rates = {k: np.mean(v) for k, v in cover.items()}
    assert 0.92 <= rates["memory"] <= 0.98 and 0.92 <= rates["stream"] <= 0.98, rates
    assert rates["masgrad"] < 0.8, rates


def test_fit_stream_reads_a_ray_dataset_and_dict_batches():
    """A Ray Dataset on a local Ray (its iter_batches, a batch at a time) gives the fit of the same
    rows in memory; so do dicts of columns; the feature names come from the columns."""
    X, y = breast_cancer()
    full = fit(X, y, intercept=True)
    frame = X.assign(target=y.astype(float))
    dicts = ({c: frame[c].to_numpy()[i:i + 100] for c in frame.columns} for i in range(0, len(frame), 100))
    one = fit_stream(dicts, target="target", intercept=True)
    assert list(one.params.index) == ["const", "radius", "texture", "perimeter", "area"]
    assert one.model.endog_names == "target" and one.nobs == 569
    np.testing.assert_allclose(one.params, full.params, atol=0.2 * full.bse.min())
    with pytest.raises(InvalidParameterError, match="target"):
        fit_stream(({"a": np.ones(3)} for _ in range(2)), target="y")
    ray = pytest.importorskip("ray")
    pytest.importorskip("pyarrow")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    try:
        ds = ray.data.from_pandas(frame)
        streamed = fit_stream(ds, target="target", intercept=True, batch_rows=128)
        np.testing.assert_allclose(streamed.params, one.params, rtol=1e-12)
        assert streamed.nobs == 569 and list(streamed.params.index) == list(one.params.index)
        chains = fit_stream(ds, target="target", method="random-scaling", chains=2, batch_size=1, step=0.5)
        assert chains.nobs == 568 and chains.chains.shape[0] == 2
    finally:
        ray.shutdown()
