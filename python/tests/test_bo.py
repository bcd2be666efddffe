"""gradfree.bo: scikit-optimize-style batch Bayesian optimization."""
import pickle

import numpy as np
import pytest

import gradfree
from gradfree.bo import Optimizer, methods, minimize


def quad(x):
    return float((x[0] - 0.5) ** 2 + (x[1] + 0.3) ** 2)


def test_minimize_returns_an_optimize_result_near_the_optimum():
    res = minimize(quad, [(-2.0, 2.0), (-2.0, 2.0)], n_calls=30, n_initial_points=10, batch_size=2, random_state=0,
                   acq_starts=2)
    assert set(res) >= {"x", "fun", "x_iters", "func_vals", "nfev"}
    assert res.nfev == 30 and len(res.x_iters) == 30 and res.func_vals.shape == (30,)
    assert res.fun == min(res.func_vals) and quad(res.x) == res.fun
    assert res.fun < 0.01, res
    again = minimize(quad, [(-2.0, 2.0), (-2.0, 2.0)], n_calls=30, n_initial_points=10, batch_size=2, seed=0, acq_starts=2)
    assert again.x_iters == res.x_iters, "same seed, same points"


@pytest.mark.parametrize("method", [m[0] for m in methods() if m[0] != "bull"])
def test_pending_points_are_avoided(method):
    opt = Optimizer([(-2.0, 2.0)] * 2, method=method, n_initial_points=6, random_state=1, acq_starts=2)
    X0 = opt.ask(n_points=6)
    assert len(X0) == 6
    opt.tell(X0, [quad(x) for x in X0])
    a = opt.ask(2)
    b = opt.ask(2)
    assert opt.n_pending == 4
    for p in a:
        for q in b:
            assert np.linalg.norm(np.subtract(p, q)) > 1e-3
    opt.tell(b, [quad(x) for x in b])      # late results in any order
    opt.tell(a[0], quad(a[0]))
    assert opt.n_pending == 1


def test_integer_and_categorical_dimensions():
    dims = [(-2.0, 2.0), (0, 10), ["relu", "tanh", "gelu"]]

    def f(p):
        x, k, act = p
        assert isinstance(k, int) and act in ("relu", "tanh", "gelu")
        return (x - 0.5) ** 2 + (k - 7) ** 2 + (0.0 if act == "tanh" else 2.0)

    res = minimize(f, dims, n_calls=40, n_initial_points=12, batch_size=4, random_state=3, acq_starts=2)
    assert res.fun < 1.0, res.x
    assert all(isinstance(p[1], int) for p in res.x_iters)


def test_pickling_resumes_identically():
    opt = Optimizer([(-1.0, 1.0)] * 3, batch_size=2, n_initial_points=6, random_state=5, acq_starts=2)
    X = opt.ask(n_points=6)
    opt.tell(X, [quad(x) for x in X])
    clone = pickle.loads(pickle.dumps(opt))
    assert clone.ask(2) == opt.ask(2)
    with pytest.raises(gradfree.CheckpointError):
        gradfree._gradfree.BatchBO.from_state_json('{"params": 1}')


def test_bad_input_gets_typed_errors():
    assert Optimizer([(1.0,)]).ask() == [1.0], "one category: the one point, as scikit-optimize"
    with pytest.raises(gradfree.InvalidParameterError, match="batch_size"):
        Optimizer([(0.0, 1.0)], batch_size=0)
    with pytest.raises(gradfree.InvalidParameterError, match="bkop, ucb, gp-bucb, gp-ucb-pe, bull"):
        Optimizer([(0.0, 1.0)], method="qei")
    with pytest.raises(gradfree.InvalidParameterError, match="fix the coordinate"):
        Optimizer([(1.0, 1.0 + 1e-12)])
    with pytest.raises(gradfree.InvalidParameterError, match="budget"):
        Optimizer([(0.0, 1.0)], method="bull")
    for kw, name in [({"weight": "big"}, "weight"), ({"noise": -1.0}, "noise"), ({"noise": float("nan")}, "noise"),
                     ({"beta": None, "acq_starts": 2.5}, "acq_starts"), ({"batch_size": True}, "batch_size")]:
        with pytest.raises(gradfree.InvalidParameterError, match=name):
            Optimizer([(0.0, 1.0)], **kw)
    assert len(Optimizer([(0.0, 1.0)] * 2, batch_size=2.0, n_initial_points=4).ask(n_points=4)) == 4   # integral floats count
    opt = Optimizer([(0.0, 1.0)] * 2, n_initial_points=4, random_state=0)
    X = opt.ask(n_points=4)
    with pytest.raises(gradfree.NonFiniteError):
        opt.tell(X, [1.0, float("nan"), 2.0, 3.0])
    with pytest.raises(gradfree.InvalidParameterError, match="not within the bounds"):
        opt.tell([[5.0, 0.5]], [1.0])
    with pytest.raises(gradfree.InvalidParameterError, match="points but"):
        opt.tell(X, [1.0])
    lenient = Optimizer([(0.0, 1.0)] * 2, n_initial_points=4, random_state=0, on_nonfinite="treat-as-inf")
    X = lenient.ask(n_points=4)
    lenient.tell(X, [1.0, float("nan"), 2.0, 3.0])
    assert len(lenient.ask(2)) == 2


def test_bull_uses_its_budget_for_the_design():
    res = minimize(quad, [(-2.0, 2.0)] * 2, n_calls=15, method="bull", random_state=0, acq_starts=2)
    assert res.nfev == 15
