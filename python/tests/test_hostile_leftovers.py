"""Regressions of the hostile generator's Python leftovers, each tested as a kind: a floating
``dtype`` whose values do not fit a ``Real``'s bounds, loops that ask a stopped run, kernel
samplers' ``gamma`` named as the user gave it, ``x0`` that is not real numbers, and public
objects that pickle without the checked envelope. (Ctrl-C during large QMC draws:
``test_hostile_interrupts.py``.)"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradfree.errors import InvalidParameterError

FUZZ = settings(deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None,
                max_examples=150)

FLOAT_DTYPES = ["float16", "float32", "float64", np.float16, np.float32, np.float64, float, "float"]

# Bounds of every magnitude, with a bias to the dtypes' edges (float16: 6e-8, 65504; float32:
# 1.4e-45, 3.4e38; float64: 5e-324, 1.8e308) and to intervals narrower than a float32 ulp.
_MAGNITUDES = st.sampled_from([5e-324, 1e-320, 1e-300, 1.4e-45, 1e-45, 1e-40, 6e-8, 5.9e-8, 1e-5, 0.1, 1.0, 1e4,
                               65504.0, 65520.0, 1e30, 3.4028234e38, 3.5e38, 1e300, 1e308])


@st.composite
def _bounds(draw):
    a = draw(st.one_of(_MAGNITUDES, st.floats(-1e308, 1e308, allow_nan=False)))
    a = -a if draw(st.booleans()) else a
    width = draw(st.one_of(st.sampled_from([1e-12, 1e-9, 1e-7, 1e-3, 1.0]), _MAGNITUDES))
    rel = draw(st.booleans())
    b = a + width * (abs(a) if rel and a != 0 else 1.0)
    if not math.isfinite(b) or b <= a:
        b = np.nextafter(a, math.inf)
    return a, float(b)


@settings(FUZZ)
@given(bounds=_bounds(), dtype=st.sampled_from(FLOAT_DTYPES), prior=st.sampled_from(["uniform", "log-uniform"]),
       transform=st.sampled_from(["identity", "normalize"]))
def test_a_real_holds_only_values_of_its_dtype_within_its_bounds(bounds, dtype, prior, transform):
    """A ``Real`` of a floating dtype is refused (naming the dtype) unless its draws, its
    inverse transform of the box's corners and their round trip through ``transform`` all lie
    within its bounds. scikit-optimize draws inf (bounds beyond float32) or 0 (bounds below
    float32's smallest value) there, and NaN through ``transform``."""
    from gradfree.bo import Real
    low, high = bounds
    try:
        dim = Real(low, high, prior=prior, transform=transform, dtype=dtype)
    except InvalidParameterError as e:
        msg, name, t = str(e), np.dtype(dtype).name, np.dtype(dtype).type
        if "prior='log-uniform'" in msg or "log-uniform prior" in msg:      # a box of width 0, or 0 inside
            assert prior == "log-uniform" and (low <= 0 or math.log10(low) == math.log10(high)), msg
        elif "overflows float64" in msg:
            assert not math.isfinite(high - low), msg
        else:
            # Refused only where the dtype cannot hold the bounds, or no value between them.
            assert name in msg, msg
            with np.errstate(over="ignore", under="ignore"):
                lo, hi = t(low), t(high)
                inside = [float(v) for v in (lo, hi, np.nextafter(lo, t(np.inf)), np.nextafter(hi, t(-np.inf)))
                          if low <= float(v) <= high]
            assert max(abs(low), abs(high)) > float(np.finfo(t).max) or not inside, msg
        return
    draws = dim.rvs(20, random_state=0)
    assert np.asarray(draws).dtype == np.dtype(dtype)
    corners = dim.inverse_transform(np.array(dim.transformed_bounds, dtype=float))
    with np.errstate(over="raise", invalid="raise", divide="raise"):    # underflow to subnormals is fine
        for v in list(draws) + list(np.atleast_1d(corners)):
            assert low <= float(v) <= high and v in dim, (v, low, high)
        back = dim.inverse_transform(dim.transform(np.asarray(draws)))
    for v in np.atleast_1d(back):
        assert low <= float(v) <= high


def test_float32_bounds_beyond_its_range_or_between_its_values_are_named():
    from gradfree.bo import Optimizer, Real
    with pytest.raises(InvalidParameterError, match=r"Real high = 1e\+308: expected a value in .*float32"):
        Real(5e-324, 1e308, dtype=np.float32, transform="normalize")
    with pytest.raises(InvalidParameterError, match=r"Real bounds \(1e-320, 1e-300\): no float32 value lies between "
                                                    r"them \(float32 holds 0 and magnitudes from 1.4e-45 to 3.4e\+38"):
        Real(1e-320, 1e-300, dtype=np.float32)
    # float32 rounds 0.2 up: the upper corner is float32's 0.19999999, inside the bounds.
    dim = Real(0.1, 0.2, dtype=np.float32, transform="normalize")
    hi = dim.inverse_transform([1.0])[0]
    assert hi.dtype == np.float32 and float(hi) <= 0.2 and dim.transform([hi])[0] <= 1.0
    # The optimizer's points are values of the dtype, as scikit-optimize's (np.float32 here).
    opt = Optimizer([dim, Real(0.1, 0.2)], random_state=0, n_initial_points=2)
    for _ in range(3):
        x = opt.ask()
        assert isinstance(x[0], np.float32) and 0.1 <= float(x[0]) <= 0.2 and type(x[1]) is float
        opt.tell(x, float(x[0]))


def test_a_float32_point_is_compared_with_the_bounds_exactly():
    from gradfree.bo import Real
    with np.errstate(all="raise"):     # numpy would cast 1e300 to float32 (inf, an overflow)
        assert np.float32(1.0) in Real(-1e300, 1e300)
    assert np.float32(0.2) not in Real(0.1, 0.2)          # 0.20000000298 > 0.2


# --- loops that end on a stop rule, never by asking a stopped run ---------------------------------

def _unbounded(x) -> float:
    """-max|x|: unbounded below, so the step length grows until sampling overflows (finite
    values throughout, so only the search distribution can overflow)."""
    return -float(np.max(np.abs(np.asarray(x, dtype=float))))


def _sphere(x) -> float:
    return float(np.sum(np.asarray(x, dtype=float) ** 2))


# (objective, x0, sigma0): overflow at the first ask (the hostile case), and after generations.
DIVERGING = [(_sphere, [1e308, -1e308], 1e308), (_unbounded, [1.0, -1.0], 1e300)]


@pytest.mark.parametrize("f, x0, sigma0", DIVERGING)
def test_fmin2_and_optimize_end_with_the_stop_reason_when_sampling_overflows(f, x0, sigma0):
    from gradfree.es import CMAES, XNES, CMAEvolutionStrategy, fmin2
    with np.errstate(over="ignore"):
        x, es = fmin2(f, x0, sigma0, {"verbose": -9})
        assert es.stop() == {"diverged": True} and es.result.stop == {"diverged": True}
        assert (x is None) == (es.countevals == 0)     # pycma's xbest before any evaluation: None
        assert CMAEvolutionStrategy(x0, sigma0, {"verbose": -9}).optimize(f).stop() == {"diverged": True}
        for cls in (CMAES, XNES):
            assert "diverged" in cls(x0, sigma0, seed=1).optimize(f).stop()


@pytest.mark.parametrize("method", ["cmaes", "xnes", "lq-cmaes"])
@pytest.mark.parametrize("f, x0, sigma0", DIVERGING)
def test_minimize_ends_with_the_stop_reason_when_sampling_overflows(method, f, x0, sigma0):
    import gradfree
    with np.errstate(over="ignore"):
        r = gradfree.minimize(f, x0, method=method, sigma0=sigma0, seed=1, max_evals=50_000)
    assert r.stop == "diverged" and not r.success and r.message.startswith("diverged")
    assert (r.x is None) == (r.nfev == 0)


def test_a_users_loop_is_told_why_ask_failed():
    """A user's own loop gets an error that says the run stopped and why, not a bare refusal."""
    from gradfree.es import CMAES
    es = CMAES([1.0, -1.0], 1e300, seed=1)
    with pytest.raises(InvalidParameterError, match=r"overflowed while sampling .*unbounded below.*'diverged'"):
        while not es.stop():
            X = es.ask()
            es.tell(X, [_unbounded(x) for x in X])
    assert es.stop() == {"diverged": True}


class _FakeCocoProblem:
    """The attributes of a cocoex problem that ``gradfree.coco.run_problem`` reads."""

    def __init__(self, f, x0):
        self.f, self.initial_solution, self.evaluations, self.final_target_hit = f, np.asarray(x0, float), 0, False

    def __call__(self, x):
        self.evaluations += 1
        return self.f(x)


@pytest.mark.parametrize("f, x0, sigma0", DIVERGING)
def test_the_coco_loop_ends_when_sampling_overflows(f, x0, sigma0):
    from gradfree.coco import run_problem
    from gradfree.es import CMAES
    problem = _FakeCocoProblem(f, x0)
    with np.errstate(over="ignore"):
        run_problem(problem, CMAES, 100_000, sigma0, 1, False, {})      # raised InvalidParameterError from ask
    assert problem.evaluations < 100_000


def test_policy_search_ends_with_the_stop_reason_and_keeps_the_policy(tmp_path, capsys):
    pytest.importorskip("gymnasium")
    import json

    from gradfree.rl import PolicySearch
    from gradfree.rl.__main__ import main as rl_main
    run = PolicySearch("CartPole-v1", sigma0=1e308, popsize=4, max_steps=5)
    assert run.step() is None and run.es.stop() == {"diverged": True} and run.generation == 0
    pol = tmp_path / "p.npz"
    assert rl_main(["--env", "CartPole-v1", "--sigma0", "1e308", "--generations", "3", "--quiet", "--max-steps", "5",
                    "--popsize", "4", "--executor", "serial", "--save-policy", str(pol)]) == 0
    out, err = capsys.readouterr()
    summary = json.loads(out.strip().splitlines()[-1])      # strict JSON: no -Infinity
    assert summary["stop_reason"] == "diverged" and summary["generations"] == 0 and summary["best_reward"] is None
    assert "stopped (diverged) after 0 of 3 generations" in err and pol.exists()
