"""Hostile arguments of the Python front ends, each kind following the peer the API follows:
start points by pycma's and scipy's shape rules, sizes refused before memory is taken, search
dimensions by scikit-optimize's rules, pandas data by statsmodels' alignment rule, streamed
batches by their column names, and errors that name the keyword the caller gave."""
import time
import warnings

import numpy as np
import pytest

import gradfree
from gradfree import es
from gradfree.errors import GradfreeError, InvalidParameterError, TooLargeError


def sphere(x):
    return float(np.sum(np.asarray(x, dtype=float) ** 2))


# --- x0 by pycma's rule (cma/evolution_strategy.py, CMAEvolutionStrategy._set_x0) --------------

PYCMA_ENTRIES = {
    "CMAEvolutionStrategy": lambda x0: es.CMAEvolutionStrategy(x0, 0.5, {"verbose": -9, "maxfevals": 30}),
    "fmin2": lambda x0: es.fmin2(sphere, x0, 0.5, {"verbose": -9, "maxfevals": 30})[1],
    "fmin2-restarts": lambda x0: es.fmin2(sphere, x0, 0.5, {"verbose": -9, "maxfevals": 30}, restarts=1)[1],
    **{f"es.{name}": (lambda cls: lambda x0: cls(x0, 0.5, max_evals=30))(cls) for name, cls in es._METHODS.items()},
}


@pytest.mark.parametrize("entry", sorted(PYCMA_ENTRIES))
def test_x0_shapes_follow_pycma(entry):
    make = PYCMA_ENTRIES[entry]
    # (2, 2) was a 4-d problem; pycma refuses every shape but 1-D, (1, N) and (N, 1).
    for bad in (np.zeros((2, 2)), np.zeros((1, 2, 2)), [[0.0, 1.0], [2.0, 3.0]], 0.5, np.float64(0.5), np.array(0.5)):
        with pytest.raises(InvalidParameterError, match=r"^x0: expected a 1-D array"):
            make(bad)
    for flat in (np.zeros((1, 3)), np.zeros((3, 1)), [[0.1], [0.2], [0.3]]):
        with pytest.warns(UserWarning, match="x0 should be a list or 1-D array; flattening"):
            made = make(flat)
        assert (made.N if hasattr(made, "N") else made._run.dim) == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        made = make([0.1, 0.2, 0.3])
    assert (made.N if hasattr(made, "N") else made._run.dim) == 3


@pytest.mark.parametrize("entry", sorted(PYCMA_ENTRIES) + ["minimize"])
def test_x0_that_is_not_numbers_is_named(entry):
    make = PYCMA_ENTRIES.get(entry, lambda x0: gradfree.minimize(sphere, x0, max_evals=30))
    cases = [(["a", "b"], r"x0: expected real numbers, got strings"), ("1, 2", r"x0: expected an array of numbers"),
             ([1.0, None], r"x0\[1\]: expected a real number, got None"),
             ([1.0, 1j], r"x0: expected real numbers, got complex"),
             (np.array(["2020-01-01", "2021-01-01"], dtype="datetime64[D]"), "x0: expected real numbers, got dates"),
             ([1.0, np.nan], r"x0\[1\] = .*nan.*: expected finite"), ([np.inf, 1.0], r"x0\[0\] = .*inf.*: expected finite"),
             ([], "x0: expected at least one coordinate"), ([[1.0], [2.0, 3.0]], "x0: expected a 1-D array of numbers"),
             ([object(), 1.0], r"x0\[0\]: expected a real number")]
    for bad, message in cases:
        with pytest.raises(InvalidParameterError, match=message):
            make(bad)


def test_minimize_follows_scipy_for_x0():
    # scipy.optimize.minimize: np.atleast_1d, then only 1-D.
    assert gradfree.minimize(sphere, 2.0, method="cmaes", max_evals=20, seed=1).x.shape == (1,)
    for bad in (np.zeros((2, 2)), np.zeros((1, 3))):
        with pytest.raises(InvalidParameterError, match=r"^x0: expected a 1-D array of shape \(d,\), got shape"):
            gradfree.minimize(sphere, bad)


@pytest.mark.parametrize("keyword, value, shown", [
    ("sigma0", "big", "sigma0"), ("sigma0", [0.5, 0.5], "sigma0"), ("sigma0", np.nan, "sigma0"),
    ("bounds", (["a"], [1.0]), "bounds"), ("bounds", ([0.0, 0.0, 0.0], [1.0, 1.0]), "bounds"), ("bounds", (1.0, 0.0), "bounds"),
    ("restart_bounds", ([0, 0], [np.nan, 1]), "restart_bounds"), ("popsize", True, "popsize"),
    ("popsize", 2.5, "popsize"), ("max_evals", np.nan, "max_evals"), ("seed", -1, "seed"), ("seed", 2**64, "seed"),
    ("target", "x", "target"), ("tol_fun", -1.0, "tol_fun"),
])
def test_array_and_number_keywords_are_named(keyword, value, shown):
    for make in (lambda kw: gradfree.minimize(sphere, [0.5, 0.5], method="cmaes", **{"max_evals": 20, **kw}),
                 lambda kw: es.CMAES([0.5, 0.5], **kw) if keyword != "sigma0" else es.CMAES([0.5, 0.5], kw["sigma0"])):
        with pytest.raises(InvalidParameterError, match=shown):
            make({keyword: value})


def test_pycma_options_with_bad_arrays_are_named():
    for opts, shown in (({"bounds": [["a"], None]}, "option 'bounds'"), ({"bounds": [[0, np.nan], 1]}, "option 'bounds'"),
                        ({"CMA_stds": [1, 2]}, "CMA_stds"), ({"popsize": "x"}, "popsize")):
        with pytest.raises(InvalidParameterError, match=shown):
            es.CMAEvolutionStrategy([0.5, 0.5], 0.5, {"verbose": -9, **opts})
    with pytest.raises(InvalidParameterError, match="sigma0"):
        es.CMAEvolutionStrategy([0.5, 0.5], [0.5, 0.5])


# --- sizes refused before memory is taken ------------------------------------------------------

@pytest.mark.parametrize("make, shown", [
    (lambda x: es.CMAEvolutionStrategy(x, 0.5), r"x0: CMA-ES in dimension 1000000000 .* needs at least .*EiB"),
    (lambda x: es.fmin2(sphere, x, 0.5), "x0: CMA-ES in dimension 1000000000"),
    (lambda x: es.CMAES(x), "x0: a run in dimension 1000000000 needs at least .*GiB, more than the"),
    (lambda x: es.OpenAIES(x), "x0: a run in dimension 1000000000"),
    (lambda x: gradfree.minimize(sphere, x), "x0: a run in dimension 1000000000"),
])
def test_a_huge_x0_is_refused_at_once(make, shown):
    x = np.zeros(10**9)          # calloc'd: no page is touched unless the code reads x
    start = time.perf_counter()
    with pytest.raises(TooLargeError, match=shown):
        make(x)
    assert time.perf_counter() - start < 0.25


def test_huge_discrete_dimensions_and_populations_are_refused_at_once():
    start = time.perf_counter()
    with pytest.raises(TooLargeError, match="dim: a run in dimension 1000000000000"):
        es.GA(10**12)
    with pytest.raises(TooLargeError, match="popsize = 1000000000000: a population"):
        es.CMAES(np.zeros(5), popsize=10**12)
    with pytest.raises(InvalidParameterError, match="dim"):
        es.GA(True)
    assert time.perf_counter() - start < 0.25


# --- search dimensions by scikit-optimize's rules (skopt/space/space.py) -----------------------

REAL_DTYPES = ["float", "float16", "float32", "float64", float, np.float16, np.float32, np.float64, "int", int,
               np.int32, "double", "f8", bool, str, object]
INTEGER_DTYPES = ["int", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", int, np.int8,
                  np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, float, "float", np.float64,
                  "i8", bool, np.bool_, object]


def _accepts(make) -> bool:
    try:
        make()
        return True
    except ValueError:
        return False


@pytest.mark.parametrize("dtype", REAL_DTYPES, ids=repr)
def test_real_dtype_is_accepted_or_refused_as_skopt_and_honoured(dtype):
    from gradfree.bo.space import Real
    skopt = pytest.importorskip("skopt.space")
    accepted = _accepts(lambda: skopt.Real(0, 10, dtype=dtype))
    assert _accepts(lambda: Real(0, 10, dtype=dtype)) == accepted
    if not accepted:
        with pytest.raises(InvalidParameterError, match="Real dtype = "):
            Real(0, 10, dtype=dtype)
        return
    ours, theirs = Real(0, 10, dtype=dtype), skopt.Real(0, 10, dtype=dtype)
    draws = ours.rvs(5, random_state=0)
    assert np.asarray(draws).dtype == np.dtype(dtype) and all(0 <= v <= 10 for v in draws)
    a, b = ours.inverse_transform([3.3, 7.1]), theirs.inverse_transform([3.3, 7.1])
    assert type(a) is type(b) and np.asarray(a).dtype == np.asarray(b).dtype


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=repr)
def test_integer_dtype_is_accepted_or_refused_as_skopt_and_honoured(dtype):
    from gradfree.bo.space import Integer
    skopt = pytest.importorskip("skopt.space")
    accepted = _accepts(lambda: skopt.Integer(0, 10, dtype=dtype))
    assert _accepts(lambda: Integer(0, 10, dtype=dtype)) == accepted
    if not accepted:
        with pytest.raises(InvalidParameterError, match="Integer dtype = "):
            Integer(0, 10, dtype=dtype)
        return
    ours, theirs = Integer(0, 10, dtype=dtype), skopt.Integer(0, 10, dtype=dtype)
    draws = ours.rvs(5, random_state=0)
    assert np.asarray(draws).dtype == np.dtype(dtype) and all(0 <= v <= 10 for v in draws)
    a, b = ours.inverse_transform([3.3, 7.6]), theirs.inverse_transform([3.3, 7.6])
    assert type(a) is type(b) and np.asarray(a).dtype == np.asarray(b).dtype and list(a) == list(b)


def test_dtypes_of_numpy_dtype_objects_and_bounds_that_do_not_fit():
    from gradfree.bo.space import Integer, Real
    assert Real(0, 1, dtype=np.dtype("float32")).rvs(3, random_state=0).dtype == np.float32
    with pytest.raises(InvalidParameterError, match="Real dtype = dtype"):
        Real(0, 1, dtype=np.dtype("int32"))     # skopt passes dtype objects unchecked and casts to int
    # skopt wraps or overflows silently (uint8 draws of -5..300, float16 draws of inf).
    with pytest.raises(InvalidParameterError, match=r"Integer low = -5: expected a value in \[0, 255\], the range of its dtype uint8"):
        Integer(-5, 300, dtype="uint8")
    with pytest.raises(InvalidParameterError, match=r"Real high = 1000000.0: .*float16"):
        Real(0, 1e6, dtype="float16")
    with pytest.raises(InvalidParameterError, match="Real bounds .*overflows float64"):
        Real(-1e308, 1e308)
    with pytest.raises(InvalidParameterError, match=r"Integer low = 0.5: expected an integer"):
        Integer(0.5, 3)


@pytest.mark.parametrize("bounds, shown", [
    ((0, 2**70), r"Integer high = 2\*\*70: expected a value in \[-2\*\*63, \(2\*\*63 - 1\)\], the range of its dtype int64"),
    ((-2**64, 0), r"Integer low = -2\*\*64"), ((0, 2**63), r"Integer high = 2\*\*63:"),
    ((0, 2**40, "uniform", 10, None, None, "int32"), r"Integer high = 1099511627776: .*int32"),
])
def test_huge_integer_bounds_are_named_with_the_accepted_range(bounds, shown):
    from gradfree.bo.space import Integer
    with pytest.raises(InvalidParameterError, match=shown):
        Integer(*bounds)
    big = Integer(-2**63, 2**63 - 1)
    draws = big.rvs(50, random_state=1)
    assert draws.dtype == np.int64 and all(big.low <= v <= big.high for v in draws)


@pytest.mark.parametrize("prior, shown", [
    ([1.5, -0.5], r"prior\[1\] = -0.5: expected a finite probability >= 0"),
    ([0.5, 0.6], "the probabilities sum to 1.1, not 1"), ([1.0], "expected 2 probabilities"),
    ([np.nan, 1.0], r"prior\[0\] = nan"), ([np.inf, 0.0], r"prior\[0\] = inf"), ([True, False], r"prior\[0\] = True"),
    ("ab", "expected a list of 2 probabilities"), ([None, 1.0], r"prior\[0\] = None"),
])
def test_a_categorical_prior_is_checked_when_made(prior, shown):
    from gradfree.bo.space import Categorical
    with pytest.raises(InvalidParameterError, match="^Categorical " + ("" if shown.startswith("prior") else "prior.*") + shown):
        Categorical(["a", "b"], prior=prior)
    skopt = pytest.importorskip("skopt.space")
    if not isinstance(prior, str) and None not in prior:
        assert not _accepts(lambda: skopt.Categorical(["a", "b"], prior=prior)) or prior == [True, False]


def test_valid_priors_as_skopt_accepts_them():
    from gradfree.bo.space import Categorical
    for prior in ([0.2, 0.3, 0.5], np.array([0.25, 0.25, 0.5]), (1 / 3, 1 / 3, 1 / 3), [0, 0, 1]):
        draws = Categorical(["a", "b", "c"], prior=prior).rvs(20, random_state=0)
        assert set(draws) <= {"a", "b", "c"}
    assert set(Categorical(["a", "b", "c"], prior=[0, 0, 1]).rvs(20, random_state=0)) == {"c"}


def test_use_named_args_refuses_repeated_names():
    from gradfree.bo import Real, Space, use_named_args
    dims = [Real(0, 1, name="a"), Real(0, 1, name="b"), Real(0, 1, name="a")]
    with pytest.raises(InvalidParameterError, match=r"dimension names must differ, got 'a' at \[0, 2\]"):
        use_named_args(dims)
    # Space keeps scikit-optimize's rule (repeated names are allowed; a name finds the first).
    assert Space(dims)["a"][0] == 0
    seen = use_named_args([Real(0, 1, name="a"), Real(0, 1, name="b")])(lambda a, b: (a, b))([0.1, 0.2])
    assert seen == (0.1, 0.2)


# --- errors name the keyword the caller gave ---------------------------------------------------

def test_errors_name_the_callers_keyword_not_an_internal_one():
    from gradfree.bo import Optimizer, gp_minimize
    f = lambda x: x[0]  # noqa: E731
    with pytest.raises(InvalidParameterError, match=r"`n_jobs` = 1000000000: must be an integer in 1..=1000") as e:
        gp_minimize(f, [(0.0, 1.0)], n_calls=12, n_jobs=10**9)
    assert "batch_size" not in str(e.value)
    with pytest.raises(InvalidParameterError, match=r"`n_restarts_optimizer` = 10000: must be an integer in 1..=1024"):
        gp_minimize(f, [(0.0, 1.0)], n_calls=12, n_restarts_optimizer=10**4)
    with pytest.raises(InvalidParameterError, match=r"acq_optimizer_kwargs\['n_restarts_optimizer'\]"):
        Optimizer([(0.0, 1.0)], acq_optimizer_kwargs={"n_restarts_optimizer": 10**4})
    opt = Optimizer([(0.0, 1.0)], random_state=0)
    for n in (10**9, 2**64 - 1):
        with pytest.raises(InvalidParameterError, match=r"`n_points` = \d+: must be an integer in 1..=1000"):
            opt.ask(n_points=n)
    for n in (2**64, 0, True, 2.0):
        with pytest.raises(InvalidParameterError, match="n_points should be int > 0"):
            opt.ask(n_points=n)
    with pytest.raises(InvalidParameterError, match="random_state: "):
        gp_minimize(f, [(0.0, 1.0)], n_calls=12, random_state=-3)
    for n_jobs in (0, True, 1.5):
        with pytest.raises(InvalidParameterError, match="n_jobs"):
            Optimizer([(0.0, 1.0)], n_jobs=n_jobs)
        with pytest.raises(InvalidParameterError, match="n_jobs"):
            gp_minimize(f, [(0.0, 1.0)], n_calls=12, n_jobs=n_jobs)
    start = time.perf_counter()
    with pytest.raises(TooLargeError, match="n_calls = 1000000000000: a Gaussian process"):
        gp_minimize(f, [(0.0, 1.0)], n_calls=10**12)
    assert time.perf_counter() - start < 1


# --- pandas rows by statsmodels' rule (statsmodels/base/data.py, PandasData._check_integrity) ---

def _frame(n=300, seed=0):
    import pandas as pd
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 2)), columns=["a", "b"])
    y = pd.Series((rng.random(n) < 1 / (1 + np.exp(-X["a"]))).astype(float), name="yes")
    return X, y


@pytest.mark.parametrize("change", ["reversed", "shifted", "shuffled", "other labels"])
def test_a_y_series_indexed_otherwise_than_x_is_refused_as_statsmodels_does(change):
    from gradfree.inference import fit
    X, y = _frame()
    rng = np.random.default_rng(1)
    bad = {"reversed": y.iloc[::-1], "shifted": y.set_axis(np.arange(1, len(y) + 1)),
           "shuffled": y.iloc[rng.permutation(len(y))], "other labels": y.set_axis([f"r{i}" for i in range(len(y))])}[change]
    with pytest.raises(InvalidParameterError, match="y: the indices for endog and exog are not aligned"):
        fit(X, bad)
    sm = pytest.importorskip("statsmodels.api")
    with pytest.raises(ValueError, match="The indices for endog and exog are not aligned"):
        sm.GLM(bad, X, family=sm.families.Binomial())
    # Aligned (reindexed), or without an index on one side: fitted, and by label.
    if change in ("reversed", "shuffled"):
        assert np.allclose(fit(X, bad.reindex(X.index)).params, fit(X, y).params)
    assert np.allclose(fit(X, y.to_numpy()).params, fit(X, y).params)


def test_responses_that_are_not_numbers_are_named():
    from gradfree.inference import fit
    X, y = _frame()
    for bad, shown in ((y.astype(str), r"y\[0\] = '0.0'"), ([None] * len(y), r"y\[0\] = None"),
                       (y.to_numpy().astype(complex), "y: expected numbers, got an array of dtype complex")):
        with pytest.raises(InvalidParameterError, match=shown):
            fit(X, bad)


def _batches(frame, size, edit=lambda k, part: part):
    return (edit(k, frame.iloc[i:i + size]) for k, i in enumerate(range(0, len(frame), size)))


@pytest.mark.parametrize("kind", ["dict", "DataFrame", "pyarrow", "pair"])
def test_every_streamed_batch_has_the_first_batchs_columns(kind):
    from gradfree.inference import fit_stream
    X, y = _frame()
    frame = X.assign(t=y)

    def as_kind(part):
        if kind == "dict":
            return {c: part[c].to_numpy() for c in part.columns}
        if kind == "pyarrow":
            pa = pytest.importorskip("pyarrow")
            return pa.Table.from_pandas(part, preserve_index=False)
        if kind == "pair":
            return (part.drop(columns="t"), part["t"])
        return part

    def stream(edit):
        kw = {} if kind == "pair" else {"target": "t"}
        return fit_stream((as_kind(p) for p in _batches(frame, 100, edit)), **kw)

    same = stream(lambda k, p: p)
    # The same columns in another order are read by name: the same fit.
    swapped = stream(lambda k, p: p if k == 0 else p[["t", "b", "a"]])
    assert list(swapped.params.index) == ["a", "b"] and np.allclose(swapped.params, same.params, rtol=0, atol=0)
    # Another set of columns is refused, naming the difference (it was merged by position).
    with pytest.raises(InvalidParameterError, match=r"batch 2 has columns \['a', 'c'\].*missing \['b'\], extra \['c'\]"):
        stream(lambda k, p: p if k == 0 else p.rename(columns={"b": "c"}))
    with pytest.raises(InvalidParameterError, match=r"batch 3 has columns \['a'\].*missing \['b'\]"):
        stream(lambda k, p: p if k < 2 else p.drop(columns="b"))


def test_a_streamed_pair_follows_statsmodels_alignment():
    from gradfree.inference import fit_stream
    X, y = _frame()
    pairs = ((X.iloc[i:i + 100], y.iloc[i:i + 100] if i < 200 else y.iloc[i:i + 100].iloc[::-1]) for i in range(0, 300, 100))
    with pytest.raises(InvalidParameterError, match="y of batch 3: the indices for endog and exog are not aligned"):
        fit_stream(pairs)
    # Arrays carry no labels and are read by position, as statsmodels reads them.
    plain = ((X.iloc[i:i + 100].to_numpy(), y.iloc[i:i + 100].to_numpy()) for i in range(0, 300, 100))
    assert fit_stream(plain).params.shape == (2,)
