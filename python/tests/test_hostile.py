"""The Python front ends under hostile input: sizes that cannot be allocated, panics on worker
threads, option values JSON cannot carry, arguments that do not apply, gradients that return NaN.
Every case raises a typed exception naming the keyword; none hangs or kills the interpreter."""
import math

import numpy as np
import pytest

from gradfree import _gradfree
from gradfree.errors import DataError, GradfreeError, InvalidParameterError, TooLargeError
from gradfree.inference import fit


def logistic(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (rng.random(n) < 1 / (1 + np.exp(-(X[:, 0] - X[:, 1])))).astype(float)
    return X, y


def test_a_worker_panic_is_an_exception_not_a_hang():
    with pytest.raises(GradfreeError, match="injected panic"):
        _gradfree._test_worker_panic()
    # The interpreter and the thread pool still work afterwards.
    X, y = logistic()
    assert fit(X, y, method="sgd", steps=5, chains=4).params.shape == (2,)
    assert fit(X, y).params.shape == (2,)


@pytest.mark.parametrize("kwargs, keyword", [
    ({"method": "masgrad", "batch_size": 2**64 - 1}, "batch_size"),
    ({"method": "masgrad", "batch_size": 10**10}, "batch_size"),
    ({"method": "masgrad", "chains": 2**20, "steps": 2**30}, "steps"),
])
def test_sizes_raise_before_allocating(kwargs, keyword):
    X, y = logistic()
    with pytest.raises((TooLargeError, InvalidParameterError), match=keyword):
        fit(X, y, **kwargs)


def test_sizes_of_models_and_blocks_name_their_keyword():
    X, y = logistic()
    with pytest.raises(TooLargeError, match="hidden"):
        fit(X, y, model="relu", hidden=10**12, method="sgd")
    from gradfree.robust import NOKDenoiser
    for n in (10**9, 2**62):
        with pytest.raises(TooLargeError, match="n_components"):
            NOKDenoiser(n_components=n).fit(np.random.default_rng(0).normal(size=(20, 8)))


def test_a_batch_larger_than_the_data_trains_on_the_whole_data():
    from gradfree.robust import RobustClassifier
    from sklearn.datasets import load_digits
    X, y = load_digits(return_X_y=True)
    clf = RobustClassifier(batch_size=2**62, epochs=1, random_state=0).fit(X[:200] / 16, y[:200])
    assert clf.predict(X[:5] / 16).shape == (5,)


@pytest.mark.parametrize("kwargs, keyword", [
    ({"steps": 2**64}, "steps"),
    ({"step": math.nan}, "step"),
    ({"step": math.inf}, "step"),
    ({"lam": math.nan, "method": "madprox"}, "lam"),
    ({"decay": -math.inf, "method": "random-scaling"}, "decay"),
    ({"theta0": [math.nan, 0.0]}, "theta0"),
    ({"theta0": [1e300, 0.0]}, "theta0"),
])
def test_option_errors_name_the_keyword_never_a_json_position(kwargs, keyword):
    X, y = logistic()
    with pytest.raises(InvalidParameterError, match=keyword) as e:
        fit(X, y, **kwargs)
    assert "line 1 column" not in str(e.value)


def test_arguments_that_do_not_apply_are_refused():
    rng = np.random.default_rng(1)
    z = rng.normal(size=(200, 1))
    with pytest.raises(InvalidParameterError, match="`y`"):
        fit(z, np.zeros(200), model="mixture", method="sgd")


def test_a_gradient_that_returns_nan_or_a_wrong_shape_is_named():
    X, y = logistic()
    with pytest.raises(DataError, match="gradient function returned"):
        fit(X, y, grad=lambda t, X, y: np.full((len(X), 2), np.nan), n_params=2, method="sgd", steps=3, chains=2)
    with pytest.raises(InvalidParameterError, match="shape"):
        fit(X, y, grad=lambda t, X, y: np.zeros((len(X), 3)), n_params=2, method="sgd", steps=3, chains=2)


def test_data_too_large_for_double_precision_is_named():
    X, y = logistic()
    with pytest.raises(DataError, match="standardize"):
        fit(X * 1e200, y, method="masgrad", steps=5, chains=4)
    with pytest.raises(DataError, match="standardize"):
        fit(X * 1e200, y)
    with pytest.raises(DataError, match="column 1 .*underflow"):
        fit(np.column_stack([X[:, 0], X[:, 1] * 1e-300]), y)


def test_random_scaling_overflow_is_an_error_not_a_zero_standard_error():
    X, y = logistic()
    with pytest.raises(DataError, match="overflow double precision"):
        fit(X, y, grad=lambda t, xb, yb: np.full((len(xb), 2), 1e200), n_params=2, passes=1, chains=2, step=1.0)


def test_masgrad_refuses_a_batch_of_at_most_p_rows():
    X, y = logistic()
    with pytest.raises(InvalidParameterError, match="batch_size"):
        fit(X, y, method="masgrad", moments="batch", batch_size=2, steps=3)
    assert fit(X, y, method="masgrad", moments="batch", batch_size=3, steps=3).params.shape == (2,)
    # The population's V (the default in memory) is not singular.
    assert fit(X, y, method="masgrad", batch_size=2, steps=3).params.shape == (2,)


def test_separated_classes_warn_as_statsmodels_does():
    from gradfree.errors import PerfectSeparationWarning
    x = np.linspace(-2, 2, 200).reshape(-1, 1)
    y = (x[:, 0] > 0).astype(float)
    with pytest.warns(PerfectSeparationWarning, match="Perfect separation or prediction detected"):
        res = fit(x, y, intercept=True, method="sgd")
    assert "Warnings:" in str(res.summary()) and res.warnings


@pytest.mark.parametrize("kwargs, keyword", [
    ({"hidden": 4}, "hidden"),
    ({"components": 2}, "components"),
    ({"sigma": 0.5}, "sigma"),
    ({"lam": 0.1}, "lam"),
    ({"decay": 0.6}, "decay"),
    ({"moments": "population", "method": "sgd"}, "moments"),
    ({"n_params": 2}, "n_params"),
])
def test_keywords_that_do_not_apply_are_refused(kwargs, keyword):
    X, y = logistic()
    with pytest.raises(InvalidParameterError, match=keyword):
        fit(X, y, **kwargs)


def test_training_sizes_are_capped_and_named():
    from gradfree.robust import RobustClassifier
    X, y = logistic()
    labels = (y > 0).astype(int)
    with pytest.raises(InvalidParameterError, match="epochs"):
        RobustClassifier(epochs=10**9).fit(X, labels)
    with pytest.raises(TooLargeError, match="hidden_layer_sizes"):
        RobustClassifier(hidden_layer_sizes=(10**12,), epochs=1).fit(X, labels)


def test_one_row_and_identical_chains_are_not_silent():
    from gradfree.errors import InferenceWarning
    with pytest.raises(InvalidParameterError, match="at least 2 rows"):
        fit(np.ones((1, 2)), np.ones(1), method="sgd")
    # Two identical rows: every mini-batch is the same, so the chains cannot spread.
    with pytest.warns(InferenceWarning, match="exactly the same value"):
        fit(np.ones((2, 1)), np.array([1.0, 1.0]), model="linear", method="sgd", steps=5, chains=4)


def test_a_gradient_model_of_a_billion_parameters_is_refused_at_once():
    X, y = logistic()
    with pytest.raises(TooLargeError, match="n_params"):
        fit(X, y, grad=lambda t, X, y: np.zeros((len(X), 1)), n_params=10**9, method="sgd", steps=3, chains=2)


def test_values_that_are_not_real_numbers_are_named_not_turned_into_nan():
    from gradfree import es
    from gradfree.bo import Optimizer
    opt = es.CMAES(np.zeros(3), seed=1)
    X = opt.ask()
    for bad, shown in ((["a"] * len(X), "values[0]"), ([None] * len(X), "None")):
        with pytest.raises(InvalidParameterError, match=shown.replace("[", r"\[")):
            opt.tell(X, bad)
    for f, shown in ((lambda x: None, "None"), (lambda x: complex(1, 1), "complex"), (lambda x: np.zeros(2), "ndarray")):
        with pytest.raises(InvalidParameterError, match=r"f\(x\): expected a real number.*" + shown):
            es.minimize(f, np.zeros(2), max_evals=30)
    assert es.minimize(lambda x: np.array([float(x @ x)]), np.ones(2), max_evals=30).nfev == 30, "a size-1 array is a value"
    with pytest.raises(InvalidParameterError, match=r"y: .*scalar, got None"):
        Optimizer([(0.0, 1.0)]).tell([0.5], None)
    with pytest.raises(InvalidParameterError, match=r"y\[1\]: .*scalar, got 'a'"):
        Optimizer([(0.0, 1.0)]).tell([[0.5], [0.2]], [1.0, "a"])
    X, y = logistic()
    with pytest.raises(InvalidParameterError, match="grad must return a 2-d array of numbers.*'abc'"):
        fit(X, y, grad=lambda t, xb, yb: "abc", n_params=2, steps=3, chains=2, method="sgd")


def test_keywords_of_executors_and_streams_that_would_be_ignored_are_refused():
    from gradfree.inference import fit_stream
    X, y = logistic()
    with pytest.raises(InvalidParameterError, match="n_parts.*only with executor"):
        fit(X, y, method="sgd", n_parts=0, steps=3, chains=2)
    with pytest.raises(InvalidParameterError, match="executor.*map"):
        fit(X, y, method="sgd", executor=object(), steps=3, chains=2)
    from gradfree import es
    with pytest.raises(InvalidParameterError, match="executor.*map"):
        es.minimize(lambda x: float(x @ x), np.zeros(2), executor="pool", max_evals=20)
    with pytest.raises(InvalidParameterError, match="executor.*map"):
        es.CMAES(np.zeros(2)).optimize(lambda x: float(x @ x), executor=3)
    blocks = ((X[k * 100:(k + 1) * 100], y[k * 100:(k + 1) * 100]) for k in range(3))
    with pytest.raises(InvalidParameterError, match="1 names for the 2 feature columns"):
        fit_stream(blocks, names=["a"], method="sgd", chains=2, batch_size=10)


def test_a_lattice_takes_integer_generators_only():
    import gradfree
    for z in ([1, 2.5], [1, -2], [1, 7]):
        with pytest.raises(InvalidParameterError, match=r"z\[1\]: expected an integer in \[0, 6\]"):
            gradfree.Rank1Lattice(z, 7)
    assert gradfree.Rank1Lattice([1, 3.0], 7).random(7).shape == (7, 2)


def test_an_edited_pickle_of_another_class_or_size_is_refused():
    import pickle

    import gradfree
    from gradfree import _pickling, es
    from gradfree.errors import CheckpointError
    state = es.INGO(np.zeros(3)).__getstate__()
    with pytest.raises(CheckpointError, match="a pickle of gradfree.es.INGO, not of gradfree.es.CMAES"):
        es.CMAES.__new__(es.CMAES).__setstate__(state)
    # A state from before checked pickles (a dict with the run's JSON) meets the run's own checks.
    legacy = es.INGO(np.zeros(3))._pickle_state()
    with pytest.raises(CheckpointError, match="state is of ingo, which CMAES"):
        es.CMAES.__new__(es.CMAES).__setstate__(legacy)
    import json
    # Edits whose checksum is recomputed still meet the invariant checks of the run and the engine.
    saved = es.CMAES(np.zeros(3))._pickle_state()
    run = json.loads(saved["_run"])
    run["driver"]["evaluations"] = -5
    saved["_run"] = json.dumps(run)
    with pytest.raises(CheckpointError, match=r"`driver.evaluations`: invalid value: integer `-5`"):
        es.CMAES.__new__(es.CMAES).__setstate__(_pickling.seal(es.CMAES, saved))
    state = gradfree.Sobol(3, seed=1).__getstate__()
    saved = pickle.loads(state["payload"])
    saved["d"] = 7
    with pytest.raises(CheckpointError, match="d, seed or point count"):
        gradfree.Sobol.__new__(gradfree.Sobol).__setstate__(_pickling.seal(gradfree.Sobol, saved))


def test_inputs_beyond_what_the_arithmetic_holds_are_named():
    pytest.importorskip("sklearn")
    from gradfree.robust import NOKDenoiser, RobustClassifier
    from sklearn.exceptions import NotFittedError
    X, y = logistic()
    with pytest.raises(DataError, match=r"X\[0, 0\] = .*e\+?29[89].*standardize"):
        NOKDenoiser().fit(X * 1e300)
    with pytest.raises(DataError, match=r"beyond float32's range"):
        RobustClassifier(epochs=1).fit(X * 1e300, y)
    with pytest.raises(NotFittedError):
        NOKDenoiser().transform(X)


def test_a_long_nok_fit_stops_on_ctrl_c():
    import os
    import signal
    import threading
    import time
    from gradfree.robust import NOKDenoiser
    X = np.random.default_rng(0).normal(size=(20000, 64))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
        start = time.monotonic()
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            NOKDenoiser(layers=50, alternations=50).fit(X)
        assert time.monotonic() - start < 30
    finally:
        signal.signal(signal.SIGINT, previous)
