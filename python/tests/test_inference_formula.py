"""Formulas in gradfree.inference against statsmodels' formula API on statsmodels' bundled data:
the same columns (names and order: patsy's, which statsmodels uses), estimates, standard errors and
predictions; fit_stream over chunks of a DataFrame with the levels of the first chunk or given
ones; missing values dropped as statsmodels drops them; results that pickle and load with their
formula."""
import io
import pickle
import sys

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("patsy")
sm = pytest.importorskip("statsmodels.api")
smf = pytest.importorskip("statsmodels.formula.api")

from gradfree.errors import InvalidParameterError, MissingDependencyError, NotOfferedError  # noqa: E402
from gradfree.inference import MLEResults, fit, fit_stream, load  # noqa: E402


def close(ours, theirs, rtol):
    np.testing.assert_allclose(np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float), rtol=rtol, atol=0)


def fair():
    """Fair's affairs data (6366 rows), as statsmodels ships it, with the 0/1 response of its
    logit example."""
    d = sm.datasets.fair.load_pandas().data
    return d.assign(affair=(d["affairs"] > 0).astype(float))


def same_fit(ours, theirs, rtol=1e-7):
    assert isinstance(ours, MLEResults)
    assert list(ours.params.index) == list(theirs.params.index)
    assert ours.model.exog_names == list(theirs.model.exog_names)
    assert ours.model.endog_names == theirs.model.endog_names
    close(ours.params, theirs.params, rtol)
    close(ours.bse, theirs.bse, rtol)
    assert ours.nobs == theirs.nobs


LOGIT = "affair ~ rate_marriage + age + yrs_married + C(religious) + np.log(educ) + age:children"


def test_logit_formula_is_statsmodels_logit_with_its_names_and_predictions():
    d = fair()
    train, held_out = d.iloc[:6000], d.iloc[6000:]
    ours = fit(LOGIT, data=train, model="logistic")
    theirs = smf.logit(LOGIT, data=train).fit(disp=0, tol=1e-12)
    assert list(ours.params.index) == ["Intercept", "C(religious)[T.2.0]", "C(religious)[T.3.0]", "C(religious)[T.4.0]",
                                       "rate_marriage", "age", "yrs_married", "np.log(educ)", "age:children"]
    same_fit(ours, theirs)
    assert ours.model.formula == LOGIT and ours.model.endog_names == "affair"
    close(ours.predict(held_out), theirs.predict(held_out), 1e-9)
    close(ours.predict(held_out, which="linear"), theirs.predict(held_out, which="linear"), 1e-9)
    assert list(ours.predict(held_out).index) == list(held_out.index)
    # Through smf.glm too (statsmodels' GLM names, the same numbers; its fitted values are means).
    glm = smf.glm(LOGIT, data=train, family=sm.families.Binomial()).fit(tol=1e-12)
    same_fit(ours, glm)
    close(ours.fittedvalues, glm.fittedvalues, 1e-9)


def test_ols_formula_with_an_interaction_and_without_an_intercept():
    d = sm.datasets.anes96.load_pandas().data
    formula = "selfLR ~ C(PID) + np.log(income) + age + educ:age"
    ours = fit(formula, data=d, model="linear")
    same_fit(ours, smf.ols(formula, data=d).fit())
    assert "educ:age" in ours.params.index and "C(PID)[T.6.0]" in ours.params.index
    # '- 1' removes the intercept (patsy then codes every level of the first categorical term).
    no_const = "selfLR ~ C(PID) + np.log(income) + age - 1"
    ours = fit(no_const, data=d, model="linear")
    theirs = smf.ols(no_const, data=d).fit()
    same_fit(ours, theirs)
    assert "Intercept" not in ours.params.index and ours.params.index[0] == "C(PID)[0.0]"
    close(ours.predict(d.iloc[-40:]), theirs.predict(d.iloc[-40:]), 1e-9)
    assert list(fit("selfLR ~ age + educ + 0", data=d, model="linear").params.index) == ["age", "educ"]


def test_poisson_formula_is_statsmodels_poisson():
    d = sm.datasets.randhie.load_pandas().data
    formula = "mdvis ~ lncoins + idp + lpi + fmde + physlm + disea + C(hlthg) + C(hlthp)"
    train, held_out = d.iloc[:19000], d.iloc[19000:]
    ours = fit(formula, data=train, model="poisson")
    theirs = smf.poisson(formula, data=train).fit(disp=0, tol=1e-12)
    same_fit(ours, theirs)
    close(ours.predict(held_out), theirs.predict(held_out), 1e-9)


def test_rows_with_missing_values_are_dropped_as_statsmodels_drops_them():
    d = fair()
    d.loc[d.index[[3, 50, 51]], "age"] = np.nan
    d.loc[d.index[7], "affair"] = np.nan
    d.loc[d.index[9], "religious"] = np.nan
    d.loc[d.index[11], "occupation"] = np.nan          # not in the formula: the row stays
    ours = fit(LOGIT, data=d)
    theirs = smf.logit(LOGIT, data=d).fit(disp=0, tol=1e-12)
    assert ours.nobs == theirs.nobs == len(d) - 5
    same_fit(ours, theirs)
    assert list(ours.fittedvalues.index) == list(theirs.fittedvalues.index)
    # predict: NaN for the rows with a missing value, as statsmodels'.
    pred, want = ours.predict(d.iloc[:12]), theirs.predict(d.iloc[:12])
    assert list(pred.index) == list(d.index[:12])
    assert np.array_equal(np.isnan(pred), np.isnan(want)) and np.isnan(pred.iloc[3])
    close(pred.dropna(), want.dropna(), 1e-9)


def test_stateful_transforms_keep_the_fitted_rows_state_in_predict_and_pickles(tmp_path):
    d = fair()
    formula = "affair ~ center(age) + standardize(yrs_married) + C(occupation) + rate_marriage"
    train, held_out = d.iloc[:5000], d.iloc[5000:]
    ours = fit(formula, data=train)
    theirs = smf.logit(formula, data=train).fit(disp=0, tol=1e-12)
    same_fit(ours, theirs)
    close(ours.predict(held_out), theirs.predict(held_out), 1e-9)
    again = pickle.loads(pickle.dumps(ours))
    assert again.model.formula == formula and again.model.exog_names == ours.model.exog_names
    close(again.predict(held_out), theirs.predict(held_out), 1e-9)
    ours.save(tmp_path / "res.pickle", remove_data=True)
    loaded = load(tmp_path / "res.pickle")
    assert loaded.model.formula == formula and loaded.model.endog_names == "affair"
    close(loaded.predict(held_out), theirs.predict(held_out), 1e-9)
    buf = io.BytesIO()
    loaded.save(buf)
    buf.seek(0)
    close(load(buf).predict(held_out.iloc[:10]), theirs.predict(held_out.iloc[:10]), 1e-9)


def test_fit_stream_over_chunks_is_the_in_memory_formula_fit():
    d = fair().sample(frac=1.0, random_state=0)       # one-pass methods want the rows in random order
    formula = "affair ~ rate_marriage + age + C(religious) + np.log(educ) + age:children"
    full = fit(formula, data=d)
    one = fit_stream(formula, data=(d.iloc[i:i + 500] for i in range(0, len(d), 500)))
    assert list(one.params.index) == list(full.params.index) and one.nobs == len(d)
    assert one.model.formula == formula and one.model.endog_names == "affair"
    assert np.all(np.abs(one.params - full.params) < 0.2 * full.bse)
    pred = one.predict(d.iloc[:20])
    assert list(pred.index) == list(d.index[:20])
    assert np.all(np.abs(pred - full.predict(d.iloc[:20])) < 0.01)
    # Dicts of columns are chunks too.
    dicts = ({c: d[c].to_numpy()[i:i + 1000] for c in d.columns} for i in range(0, len(d), 1000))
    assert list(fit_stream(formula, data=dicts).params.index) == list(full.params.index)


def test_a_later_chunk_with_an_unseen_level_raises_and_levels_can_be_given():
    d = fair().sample(frac=1.0, random_state=1)
    first = d.iloc[:300][d["religious"].iloc[:300] != 4.0]
    chunks = [first, d.iloc[300:]]
    formula = "affair ~ rate_marriage + C(religious)"
    with pytest.raises(InvalidParameterError, match=r"chunk 2: column `religious` has the level 4\.0"):
        fit_stream(formula, data=iter(chunks))
    # Every level given up front: by levels= ...
    full = fit(formula, data=pd.concat(chunks))
    given = fit_stream(formula, data=iter(chunks), levels={"religious": [1.0, 2.0, 3.0, 4.0]})
    assert list(given.params.index) == list(full.params.index)
    assert np.all(np.abs(given.params - full.params) < 0.2 * full.bse)
    # ... or in the formula (patsy's C(x, levels=...)).
    inline = fit_stream("affair ~ rate_marriage + C(religious, levels=[1.0, 2.0, 3.0, 4.0])", data=iter(chunks))
    close(inline.params, given.params, 1e-12)
    # A value outside the given levels is refused, naming the column and the value.
    with pytest.raises(InvalidParameterError, match=r"column `religious` has the level 4\.0"):
        fit_stream(formula, data=iter(chunks), levels={"religious": [1.0, 2.0, 3.0]})
    # predict with a level the model never had.
    res = fit(formula, data=first)
    with pytest.raises(InvalidParameterError, match=r"column `religious` has the level 4\.0"):
        res.predict(d.iloc[300:])


def test_a_missing_column_and_conflicting_arguments_are_named():
    d = fair()
    with pytest.raises(InvalidParameterError, match=r"no column `educaton`"):
        fit("affair ~ age + np.log(educaton)", data=d)
    res = fit("affair ~ age + educ", data=d)
    with pytest.raises(InvalidParameterError, match=r"`exog`: no column `educ`"):
        res.predict(d.drop(columns="educ"))
    chunks = [d.iloc[:3000], d.iloc[3000:].drop(columns="age")]
    with pytest.raises(InvalidParameterError, match=r"no column `age`"):
        fit_stream("affair ~ age + educ", data=iter(chunks))
    with pytest.raises(InvalidParameterError, match=r"`intercept`.*Intercept"):
        fit("affair ~ age", data=d, intercept=True)
    with pytest.raises(InvalidParameterError, match=r"`intercept`"):
        fit_stream("affair ~ age", data=iter([d]), intercept=True)
    with pytest.raises(InvalidParameterError, match=r"`y`"):
        fit("affair ~ age", d["affair"], data=d)
    with pytest.raises(InvalidParameterError, match=r"`data`"):
        fit("affair ~ age")
    with pytest.raises(InvalidParameterError, match=r"`data`: only with a formula"):
        fit(d[["age"]], d["affair"], data=d)
    with pytest.raises(InvalidParameterError, match=r"`levels`: only with a formula"):
        fit_stream(iter([(d[["age"]], d["affair"])]), levels={"g": [1]})
    with pytest.raises(InvalidParameterError, match=r"`target`"):
        fit_stream("affair ~ age", data=iter([d]), target="affair")
    with pytest.raises(InvalidParameterError, match=r"`data`.*iterable of chunks"):
        fit_stream("affair ~ age", data=d)
    with pytest.raises(InvalidParameterError, match=r"no response"):
        fit("age + educ", data=d)
    with pytest.raises(InvalidParameterError, match=r"`levels`"):
        fit_stream("affair ~ C(religious)", data=iter([d]), levels=["religious"])


def test_a_numpy_array_to_predict_is_the_design_itself():
    """An array is the design matrix with its Intercept column (statsmodels' transform=False)."""
    d = fair()
    res = fit("affair ~ age + educ", data=d)
    X = np.column_stack([np.ones(5), d[["age", "educ"]].to_numpy()[:5]])
    close(res.predict(X), res.predict(d.iloc[:5]), 1e-12)


def test_without_patsy_a_formula_says_what_to_install(monkeypatch):
    d = fair()
    monkeypatch.setitem(sys.modules, "patsy", None)
    with pytest.raises(MissingDependencyError, match=r"pip install patsy") as info:
        fit("affair ~ age", data=d)
    assert isinstance(info.value, ImportError)
    # Calls without a formula do not need it.
    assert list(fit(d[["age"]], d["affair"], intercept=True).params.index) == ["const", "age"]


def test_a_ray_dataset_streams_through_a_formula():
    ray = pytest.importorskip("ray")
    pytest.importorskip("pyarrow")
    d = fair().sample(frac=1.0, random_state=2).reset_index(drop=True)
    formula = "affair ~ rate_marriage + age + C(religious)"
    full = fit(formula, data=d)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    try:
        one = fit_stream(formula, data=ray.data.from_pandas(d), batch_rows=1000)
    finally:
        ray.shutdown()
    assert list(one.params.index) == list(full.params.index) and one.nobs == len(d)
    assert np.all(np.abs(one.params - full.params) < 0.2 * full.bse)


def test_predict_takes_a_dict_of_columns_and_per_row_arguments_follow_the_rows_kept():
    d = fair()
    res = fit("affair ~ age + np.log(educ)", data=d)
    one = res.predict({"age": 32.0, "educ": 14.0})
    close(one, res.predict(pd.DataFrame({"age": [32.0], "educ": [14.0]})), 1e-15)
    # An exposure of the data's rows goes with the rows the formula keeps (statsmodels' missing="drop").
    r = sm.datasets.randhie.load_pandas().data.iloc[:4000].copy()
    r.loc[r.index[[5, 17]], "lpi"] = np.nan
    exposure = np.linspace(0.5, 2.0, len(r))
    formula = "mdvis ~ lncoins + lpi + C(hlthp)"
    ours = fit(formula, data=r, model="poisson", exposure=exposure)
    theirs = smf.poisson(formula, data=r, exposure=exposure).fit(disp=0, tol=1e-12)
    same_fit(ours, theirs)
    close(ours.predict(r.iloc[20:50], exposure=exposure[20:50]), theirs.predict(r.iloc[20:50], exposure=exposure[20:50]),
          1e-9)
    pred = ours.predict(r.iloc[:30], exposure=exposure[:30])          # NaN for rows 5 and 17, the others theirs
    keep = np.setdiff1d(np.arange(30), [5, 17])
    assert np.isnan(pred.iloc[[5, 17]]).all()
    close(pred.iloc[keep], theirs.predict(r.iloc[keep], exposure=exposure[keep]), 1e-9)


def doubled(x):
    return 2.0 * x


def test_a_function_of_the_session_works_in_memory_and_is_named_after_a_load():
    d = fair()
    res = fit("affair ~ doubled(age) + educ", data=d)
    theirs = smf.logit("affair ~ doubled(age) + educ", data=d).fit(disp=0, tol=1e-12)
    same_fit(res, theirs)
    close(res.predict(d.iloc[:5]), theirs.predict(d.iloc[:5]), 1e-9)
    again = pickle.loads(pickle.dumps(res))        # `doubled` is the session's: not kept
    with pytest.raises(NotOfferedError, match=r"`doubled` of the session"):
        again.predict(d.iloc[:5])
