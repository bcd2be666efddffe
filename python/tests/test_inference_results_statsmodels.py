"""What a statsmodels script types after the fit, against statsmodels itself on its bundled
datasets: the measures of fit (``rsquared``, ``fvalue``, ``llnull``, ``prsquared``, ``deviance``...),
the covariance types HC0-HC3 and cluster, ``use_t``, ``offset`` and ``exposure``, ``predict`` with
the constant column, the tests ``t_test``/``f_test``/``wald_test`` with string constraints,
``get_margeff``, collinear columns and the summaries' layouts; and random designs drawn anew each
run (hypothesis, seed printed on failure)."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

sm = pytest.importorskip("statsmodels.api")
pd = pytest.importorskip("pandas")

from gradfree.errors import InferenceWarning, InvalidParameterError  # noqa: E402
from gradfree.inference import fit  # noqa: E402


def close(a, b, rtol=1e-7):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert np.allclose(a, b, rtol=rtol, atol=1e-10, equal_nan=True), (a, b)


@pytest.fixture(scope="module")
def spector():
    d = sm.datasets.spector.load_pandas().data
    return d[["GPA", "TUCE", "PSI"]], d.GRADE


@pytest.fixture(scope="module")
def longley():
    d = sm.datasets.longley.load_pandas().data
    return d.drop(columns="TOTEMP"), d.TOTEMP


def test_logit_measures_tests_and_margins(spector):
    X, y = spector
    r = fit(X, y, model="logistic", intercept=True)
    s = sm.Logit(y, sm.add_constant(X)).fit(disp=0)
    for k in ["params", "bse", "llf", "llnull", "llr", "llr_pvalue", "prsquared", "df_model", "df_resid", "aic", "bic"]:
        close(getattr(r, k), getattr(s, k))
    g = sm.GLM(y, sm.add_constant(X), family=sm.families.Binomial()).fit()
    for k in ["deviance", "null_deviance", "pearson_chi2"]:
        close(getattr(r, k), getattr(g, k))
    close(r.pseudo_rsquared("cs"), g.pseudo_rsquared("cs"))
    close(r.resid_deviance, g.resid_deviance, 1e-6)
    assert r.use_t is False and r.k_constant == 1
    for at in ["overall", "mean", "median", "zero"]:
        for method in ["dydx", "eyex", "dyex", "eydx"]:
            m, ms = r.get_margeff(at=at, method=method), s.get_margeff(at=at, method=method)
            close(np.r_[m.margeff, m.margeff_se, m.pvalues], np.r_[ms.margeff, ms.margeff_se, ms.pvalues], 1e-6)
    close(r.get_margeff().summary_frame().values, s.get_margeff().summary_frame().values, 1e-6)
    t, ts = r.t_test("GPA = 1"), s.t_test("GPA = 1")
    close([t.effect[0], t.sd[0], t.tvalue[0], t.pvalue], [ts.effect[0], ts.sd[0, 0], ts.tvalue[0, 0], ts.pvalue])
    w, ws = r.wald_test("GPA = 0, TUCE = 0"), s.wald_test("GPA = 0, TUCE = 0")
    close([w.statistic, w.pvalue, w.df_denom], [ws.statistic, ws.pvalue, ws.df_denom])
    f, fs = r.f_test("GPA = 0, 2*TUCE = PSI - 1"), s.f_test("GPA = 0, 2*TUCE = PSI - 1")
    close([f.fvalue, f.pvalue, f.df_denom, f.df_num], [fs.fvalue, fs.pvalue, fs.df_denom, fs.df_num])
    R = np.array([[0, 1, 0, 0], [0, 0, 1, -1]])
    close(r.f_test((R, [0, 1])).fvalue, s.f_test((R, [0, 1])).fvalue)
    # predict on rows that carry the constant column (sm.add_constant), by name and by position.
    close(r.predict(sm.add_constant(X)), s.predict(sm.add_constant(X)), 1e-6)
    close(r.predict(sm.add_constant(X).values), r.predict(X.values))
    with pytest.raises(InvalidParameterError, match="no parameter named"):
        r.t_test("GPX = 0")
    assert "Logit Regression Results" in str(r.summary()) and "LL-Null" in str(r.summary())
    assert "Deviance" in str(r.summary(layout="glm"))


@pytest.mark.parametrize("cov_type", ["nonrobust", "HC0", "HC1", "HC2", "HC3"])
def test_ols_measures_by_covariance(longley, cov_type):
    X, y = longley
    r = fit(X, y, model="linear", intercept=True, cov_type=cov_type)
    s = sm.OLS(y, sm.add_constant(X)).fit(cov_type=cov_type)
    for k in ["params", "bse", "pvalues", "rsquared", "rsquared_adj", "fvalue", "f_pvalue", "ssr", "ess", "mse_resid",
              "mse_model", "mse_total", "df_model", "df_resid", "aic", "bic", "llf", "centered_tss", "uncentered_tss"]:
        close(getattr(r, k), getattr(s, k), 1e-6)
    close(r.conf_int(), s.conf_int(), 1e-6)
    assert r.use_t == s.use_t
    with pytest.raises(AttributeError):
        r.llnull                                  # OLS results have none either
    assert "OLS Regression Results" in str(r.summary()) and "R-squared" in str(r.summary())


def test_ols_without_a_constant_and_use_t(longley):
    X, y = longley
    r = fit(X, y, model="linear", cov_type="HC1", use_t=True)
    s = sm.OLS(y, X).fit(cov_type="HC1", use_t=True)
    for k in ["params", "bse", "pvalues", "rsquared", "rsquared_adj", "fvalue", "f_pvalue", "df_model", "ess"]:
        close(getattr(r, k), getattr(s, k), 1e-6)
    assert r.df_model == len(X.columns) and r.k_constant == 0
    # A constant column the user added (sm.add_constant) counts as the constant, as in statsmodels.
    r2 = fit(sm.add_constant(X), y, model="linear")
    close([r2.df_model, r2.rsquared], [sm.OLS(y, sm.add_constant(X)).fit().df_model, sm.OLS(y, sm.add_constant(X)).fit().rsquared], 1e-6)


@pytest.mark.parametrize("use_t", [False, True])
def test_cluster_covariance(spector, use_t):
    X, y = spector
    groups = np.arange(len(y)) % 7
    r = fit(X, y, model="logistic", intercept=True, cov_type="cluster", cov_kwds={"groups": groups}, use_t=use_t)
    s = sm.Logit(y, sm.add_constant(X)).fit(disp=0, cov_type="cluster", cov_kwds={"groups": groups}, use_t=use_t)
    close(r.bse, s.bse, 1e-6)
    close(r.pvalues, s.pvalues, 1e-6)
    close(r.conf_int(), s.conf_int(), 1e-6)
    assert r.use_t == use_t and (r.df_resid_inference == 6 if use_t else r.df_resid_inference is None)
    labels = np.array(["a", "b", "c", "d", "e", "f", "g"])[groups]          # any sortable labels
    close(fit(X, y, intercept=True, cov_type="cluster", cov_kwds={"groups": labels}).bse, s.bse, 1e-6)
    with pytest.raises(InvalidParameterError, match="cov_kwds"):
        fit(X, y, intercept=True, cov_type="cluster")
    with pytest.raises(InvalidParameterError, match="only with cov_type='cluster'"):
        fit(X, y, intercept=True, cov_kwds={"groups": groups})


def test_poisson_exposure_and_offset():
    d = sm.datasets.randhie.load_pandas().data.iloc[:3000]
    X, y = d[["lncoins", "idp", "lpi", "fmde"]], d.mdvis
    rng = np.random.default_rng(5)
    expo, off = np.exp(rng.normal(0, 0.3, len(y))), rng.normal(0, 0.1, len(y))
    r = fit(X, y, model="poisson", intercept=True, exposure=expo, offset=off)
    s = sm.Poisson(y, sm.add_constant(X), exposure=expo, offset=off).fit(disp=0)
    g = sm.GLM(y, sm.add_constant(X), family=sm.families.Poisson(), exposure=expo, offset=off).fit()
    for k in ["params", "bse", "llf", "llnull", "prsquared", "llr_pvalue"]:
        close(getattr(r, k), getattr(s, k), 1e-6)
    for k in ["deviance", "null_deviance", "pearson_chi2"]:
        close(getattr(r, k), getattr(g, k), 1e-6)
    close(r.fittedvalues, g.fittedvalues, 1e-6)
    close(r.resid_deviance, g.resid_deviance, 1e-5)
    close(r.predict(X.iloc[:9], exposure=expo[:9], offset=off[:9]), g.predict(sm.add_constant(X).iloc[:9], exposure=expo[:9], offset=off[:9]), 1e-6)
    # Margins on the rate (exposure 1), as statsmodels' (which refuses them with an offset).
    m = fit(X, y, model="poisson", intercept=True, exposure=expo).get_margeff()
    ms = sm.Poisson(y, sm.add_constant(X), exposure=expo).fit(disp=0).get_margeff()
    close(np.r_[m.margeff, m.margeff_se], np.r_[ms.margeff, ms.margeff_se], 1e-5)
    with pytest.raises(InvalidParameterError, match="exposure"):
        fit(X, y > 1, intercept=True, exposure=expo)                 # logistic: no exposure
    with pytest.raises(InvalidParameterError, match="positive"):
        fit(X, y, model="poisson", exposure=-expo)
    with pytest.raises(InvalidParameterError, match="offset.*only with method mle"):
        fit(X, y, model="poisson", method="sgd", offset=off)


def test_collinear_columns_warn_and_use_the_pseudo_inverse(spector):
    X, y = spector
    Xc = X.assign(GPA2=2 * X.GPA)
    with pytest.warns(InferenceWarning, match="rank 4"):
        r = fit(Xc, y, model="linear", intercept=True)
    s = sm.OLS(y, sm.add_constant(Xc)).fit()
    for k in ["params", "bse", "df_model", "df_resid", "rsquared", "fvalue", "llf"]:
        close(getattr(r, k), getattr(s, k), 1e-6)
    with pytest.warns(InferenceWarning, match="rank 4"):
        rl = fit(Xc, y, model="logistic", intercept=True)
    gl = sm.GLM(y, sm.add_constant(Xc), family=sm.families.Binomial()).fit(tol=1e-12)
    close(rl.params, gl.params, 1e-5)
    close(rl.bse, gl.bse, 1e-4)                 # statsmodels' IRLS stops on the deviance's change


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(40, 400), p=st.integers(1, 5),
       model=st.sampled_from(["linear", "logistic", "poisson"]), intercept=st.booleans(),
       cov_type=st.sampled_from(["nonrobust", "HC0", "HC1", "HC3"]))
def test_random_designs_agree_with_statsmodels(seed, n, p, model, intercept, cov_type):
    """Designs nobody picked: correlated, scaled and shifted columns, each response's family."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) @ rng.normal(size=(p, p)) * rng.uniform(0.1, 10, p) + rng.normal(0, 3, p)
    X = (X - X.mean(0)) / X.std(0) + rng.normal(0, 1, p)
    eta = X @ rng.normal(0, 0.3, p) + 0.2
    y = {"linear": lambda: eta + rng.normal(size=n) * rng.uniform(0.5, 2),
         "logistic": lambda: (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float),
         "poisson": lambda: rng.poisson(np.exp(np.clip(eta, -3, 3))).astype(float)}[model]()
    if model == "logistic" and (y.min() == y.max()):
        return
    Xs = sm.add_constant(X) if intercept else X
    fam = {"linear": sm.OLS, "logistic": sm.Logit, "poisson": sm.Poisson}[model]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = fit(X, y, model=model, intercept=intercept, cov_type=cov_type)
        s = fam(y, Xs).fit(cov_type=cov_type) if model == "linear" else fam(y, Xs).fit(disp=0, cov_type=cov_type, tol=1e-12)
    close(r.params, s.params, 1e-5)
    close(r.bse, s.bse, 1e-5)
    close(r.pvalues, s.pvalues, 1e-4)
    close([r.df_model, r.df_resid, r.aic], [s.df_model, s.df_resid, s.aic], 1e-6)
    if model == "linear":
        close([r.rsquared, r.rsquared_adj, r.fvalue, r.f_pvalue], [s.rsquared, s.rsquared_adj, s.fvalue, s.f_pvalue], 1e-5)
    else:
        close([r.llnull, r.prsquared, r.llr_pvalue], [s.llnull, s.prsquared, s.llr_pvalue], 1e-5)
