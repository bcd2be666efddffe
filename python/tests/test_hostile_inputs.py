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
