"""Hostile keyword values and argument shapes, drawn by hypothesis (derandomized, so a failure
reproduces), for the evolution strategies, pycma's ``CMAEvolutionStrategy`` and ``fmin2``,
``minimize``, scikit-optimize's dimensions, ``Optimizer`` and ``gp_minimize``, statsmodels-style
``fit`` and ``fit_stream`` and the QMC engines.

One keyword at a time gets a value from a pool of hostile ones (0, negatives, 2^31 ... 2^70, NaN,
infinities, booleans where integers go, strings, ``None``, empty and nested lists, 0-d, 2-D,
complex, datetime and object arrays, dicts) while the others stay valid. Whatever is drawn, the
call returns, or raises a ``gradfree.errors`` exception (or the ``ValueError``/``TypeError`` a
peer raises) whose message names that keyword: never a bare NumPy or builtin error from deep
inside, never a ``PanicException``, never a call that does not come back within 20 s.
``GRADFREE_FUZZ_KEYWORD_CASES`` sets the number of examples per entry point (default 250; 4,000
pass)."""
import math
import os
import re
import signal

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gradfree
from gradfree import es
from gradfree.errors import GradfreeError, NonFiniteError

CASES = int(os.environ.get("GRADFREE_FUZZ_KEYWORD_CASES", "250"))
FUZZ = settings(deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None,
                max_examples=CASES)


class _Enough(Exception):
    """Raised by the test objectives after a few evaluations: a valid budget need not be spent."""


class _Hang(Exception):
    pass


def _counted(f, limit=60):
    calls = [0]

    def g(x):
        calls[0] += 1
        if calls[0] > limit:
            raise _Enough
        return f(x)
    return g


def sphere(x):
    return float(np.sum(np.asarray(x, dtype=float) ** 2))


#: Values no keyword should crash on.
HOSTILE = [0, 1, -1, 2, 7, 2**31, 2**63, 2**64, 2**70, -2**70, 0.5, 2.5, -0.5, 1e-320, 1e308, -1e308, math.nan,
           math.inf, -math.inf, True, False, "7", "x", "", None, [], [0.5, 0.5], [[0.5], [0.5]], [1.0, None],
           np.zeros((2, 2)), np.array(3.0), np.array([1j, 2j]), np.array(["a", "b"]), np.int64(3), np.float32(math.nan),
           np.bool_(True), np.datetime64("2020-01-01"), np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[D]"),
           np.array([object(), object()]), 1j, b"x", {}, {"a": 1}, (0.0, 1.0), (1.0, 0.0), ([0.0, 0.0], [1.0, 1.0]),
           ([0.0, 0.0], [math.nan, 1.0]), object()]


def _names_keyword(message: str, keyword: str) -> bool:
    return re.search(r"(?<![A-Za-z0-9_])" + re.escape(keyword) + r"(?![A-Za-z0-9_])", message) is not None


def _alarm(signum, frame):
    raise _Hang("no answer within 20 s")


def check(keyword: str, call, names=None):
    """Runs ``call``: it returns, or raises a typed error naming ``keyword`` (or one of ``names``)."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(20)
    try:
        call()
    except (_Enough, StopIteration):
        pass
    except NonFiniteError as e:   # the objective's value overflowed (a start point of 1e308): not the keyword's fault
        assert "objective value" in str(e), f"{keyword}: {e!r}"
    except _Hang:
        raise AssertionError(f"{keyword}: the call did not return within 20 s")
    except (GradfreeError, ValueError, TypeError, MemoryError) as e:
        text = str(e)
        assert "PanicException" not in type(e).__name__ and "panicked" not in text, f"{keyword}: {e!r}"
        wanted = [keyword, *(names or [])]
        assert any(_names_keyword(text, k) for k in wanted), (
            f"{keyword}: {type(e).__module__}.{type(e).__name__} does not name it: {text}")
        if not isinstance(e, GradfreeError):
            # A builtin error must be Python's own check of the call (a peer's message), not one
            # from deep inside NumPy.
            assert "could not convert" not in text and "setting an array element" not in text, f"{keyword}: {e!r}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


values = st.sampled_from(HOSTILE)


# --- the evolution strategies -------------------------------------------------------------------

ES_KEYWORDS = ["sigma0", "seed", "popsize", "max_evals", "max_gens", "target", "max_seconds", "tol_fun", "tol_fun_window",
               "tol_x", "tol_flat", "tol_stagnation", "tol_condition", "tol_diverge", "bounds", "bounds_handling",
               "restarts", "restart_bounds", "bipop", "incpopsize", "convergence", "x0"]


@settings(FUZZ)
@given(cls=st.sampled_from(["CMAES", "INGO", "XNES", "OpenAIES", "ARS"]), keyword=st.sampled_from(ES_KEYWORDS),
       value=values)
def test_es_classes(cls, keyword, value):
    def run():
        kw = {"x0": [0.5, 0.5], "sigma0": 0.5, "max_evals": 60, **{keyword: value}}
        if keyword == "max_evals" and isinstance(value, int) and value > 60:
            kw["max_gens"] = 3
        opt = getattr(es, cls)(kw.pop("x0"), kw.pop("sigma0"), **kw)
        f = _counted(sphere)
        for _ in range(3):
            if opt.stop():
                break
            X = opt.ask()
            opt.tell(X, [f(x) for x in X])
    check(keyword, run)


@settings(FUZZ)
@given(keyword=st.sampled_from(["dim", "popsize", "max_evals", "seed", "categories"]), value=values)
def test_discrete_classes(keyword, value):
    def run():
        kw = {"dim": 3, "max_evals": 40, **{keyword: value}}
        opt = es.GA(kw.pop("dim"), **kw)
        X = opt.ask()
        opt.tell(X, [float(np.sum(x)) for x in X])
    check(keyword, run)


PYCMA_OPTIONS = ["popsize", "maxfevals", "maxiter", "ftarget", "tolfun", "tolx", "seed", "bounds", "verb_disp", "timeout",
                 "tolflatfitness", "tolstagnation", "popsize_factor", "BoundaryHandler", "CMA_stds", "tolconditioncov",
                 "verbose"]


@settings(FUZZ)
@given(keyword=st.sampled_from(PYCMA_OPTIONS + ["x0", "sigma0", "inopts"]), value=values)
def test_cma_evolution_strategy(keyword, value):
    def run():
        opts = {"verbose": -9, "maxfevals": 60}
        x0, sigma0 = [0.5, 0.5], 0.5
        if keyword == "x0":
            x0 = value
        elif keyword == "sigma0":
            sigma0 = value
        elif keyword == "inopts":
            opts = value
        else:
            opts[keyword] = value
        e = es.CMAEvolutionStrategy(x0, sigma0, opts)
        e.optimize(_counted(sphere), iterations=2)
    check(keyword, run, names=["option"] if keyword == "inopts" else None)


@settings(FUZZ)
@given(keyword=st.sampled_from(["x0", "sigma0", "restarts", "incpopsize", "bipop", "eval_initial_x", "maxfevals",
                                "options", "callback", "args"]), value=values)
def test_fmin2(keyword, value):
    def run():
        kw = {"options": {"verbose": -9, "maxfevals": 80}}
        x0, sigma0 = [0.5, 0.5], 0.5
        if keyword == "x0":
            x0 = value
        elif keyword == "sigma0":
            sigma0 = value
        elif keyword == "maxfevals":
            kw["options"]["maxfevals"] = value
        else:
            kw[keyword] = value
        f = _counted(sphere, 200)
        es.fmin2(lambda x, *a: f(x), x0, sigma0, **kw)
    check(keyword, run, names=["option", "objective_function"] if keyword == "args" else None)


@settings(FUZZ)
@given(keyword=st.sampled_from(["x0", "method", "sigma0", "seed", "max_evals", "target", "bounds", "restarts",
                                "settle_runs", "restart_bounds", "worse_runs", "executor", "tol_fun", "popsize"]),
       value=values)
def test_minimize(keyword, value):
    def run():
        kw = {"x0": [0.5, 0.5], "method": "cmaes", "max_evals": 80, **{keyword: value}}
        gradfree.minimize(_counted(sphere), kw.pop("x0"), **kw)
    check(keyword, run)


# --- scikit-optimize's front end --------------------------------------------------------------

@settings(FUZZ)
@given(kind=st.sampled_from(["Real", "Integer", "Categorical"]),
       keyword=st.sampled_from(["low", "high", "prior", "base", "transform", "name", "dtype", "categories"]), value=values)
def test_dimensions(kind, keyword, value):
    from gradfree.bo import space
    def run():
        if kind == "Categorical":
            kw = {"categories": ["a", "b"], "prior": None}
            if keyword in ("low", "high", "base", "dtype"):
                return
            kw[keyword] = value
            dim = space.Categorical(**kw)
        else:
            kw = {"low": 1, "high": 5, "prior": "uniform", "base": 10, "dtype": None, **{keyword: value}}
            if keyword == "categories":
                return
            dim = getattr(space, kind)(**kw)
        draws = dim.rvs(3, random_state=0)
        assert all(v in dim for v in (draws if kind != "Categorical" else draws))
        dim.transform(list(draws))
    check(keyword, run, names=[kind])


@settings(FUZZ)
@given(keyword=st.sampled_from(["dimensions", "n_initial_points", "initial_point_generator", "n_jobs", "acq_func",
                                "acq_optimizer", "random_state", "model_queue_size", "acq_func_kwargs",
                                "acq_optimizer_kwargs", "method", "batch_size", "kernel", "noise", "weight", "beta",
                                "acq_starts", "acq_evals_per_dim", "acq_max_evals", "on_nonfinite", "n_calls", "kappa",
                                "xi", "n_points", "strategy", "x", "y"]), value=values)
def test_optimizer(keyword, value):
    from gradfree.bo import Optimizer
    def run():
        kw = {"dimensions": [(0.0, 1.0), (1, 4)], "n_initial_points": 2, "random_state": 0, "acq_starts": 1,
              "acq_evals_per_dim": 5}
        ask = {}
        x, y = None, 1.0
        if keyword in ("n_points", "strategy"):
            ask[keyword] = value
        elif keyword == "x":
            x = value
        elif keyword == "y":
            y = value
        else:
            kw[keyword] = value
        if any(type(kw.get(k)) is int and kw[k] in (2**31, 2**63) for k in ("n_initial_points", "acq_max_evals")):
            return    # valid but slow sizes (the design, or the acquisition's evaluations)
        opt = Optimizer(**kw)
        for _ in range(3):
            pts = opt.ask(**ask)
            pts = pts if ask.get("n_points") is not None else [pts]
            opt.tell(pts if x is None else x, [float(sum(p[:1])) for p in pts] if x is None else y)
    check(keyword, run, names={"dimensions": ["dimension", "Dimension", "Real", "Integer", "Categorical"],
                               "x": ["Point", "point", "y", "Dimensions"], "n_calls": ["n_initial_points"]}.get(keyword))


@settings(FUZZ)
@given(keyword=st.sampled_from(["n_calls", "n_initial_points", "x0", "y0", "random_state", "n_jobs", "n_restarts_optimizer",
                                "noise", "kappa", "acq_func", "initial_point_generator", "callback", "model_queue_size",
                                "batch_size", "n_random_starts", "xi"]), value=values)
def test_gp_minimize(keyword, value):
    from gradfree.bo import gp_minimize
    def run():
        kw = {"n_calls": 6, "n_initial_points": 3, "random_state": 0, "acq_starts": 1, "acq_evals_per_dim": 5,
              **{keyword: value}}
        if keyword == "n_calls" and isinstance(value, int) and value > 6:
            kw["callback"] = lambda res: len(res.x_iters) >= 8
        gp_minimize(_counted(lambda p: float(p[0]), 12), [(0.0, 1.0), (1, 4)], **kw)
    check(keyword, run, names={"x0": ["dimension", "Point", "Real", "Integer"], "y0": ["x0", "y0", "y"],
                               "n_calls": ["n_initial_points"]}.get(keyword))


# --- statistical inference --------------------------------------------------------------------

def _data(n=120):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 2))
    y = (rng.random(n) < 1 / (1 + np.exp(-X[:, 0]))).astype(float)
    return X, y


XD, YD = _data()


@settings(FUZZ)
@given(keyword=st.sampled_from(["X", "y", "model", "method", "batch_size", "step", "chains", "steps", "passes", "seed", "cov_type",
                                "sampling", "moments", "interval", "lam", "decay", "theta0", "intercept", "components",
                                "sigma", "hidden", "n_params", "n_parts"]), value=values,
       method=st.sampled_from([None, "sgd", "random-scaling"]))
def test_fit(keyword, value, method):
    from gradfree.inference import fit
    def run():
        kw = {"X": XD, "y": YD, "method": method}
        if method is not None:
            kw.update(chains=4, **({"passes": 1} if method == "random-scaling" else {"steps": 20}))
        kw[keyword] = value
        for key, cap in (("chains", 8), ("steps", 30), ("passes", 2)):
            if isinstance(kw.get(key), int) and not isinstance(kw[key], bool) and 0 < kw[key] < 2**31:
                kw[key] = min(kw[key], cap)
        fit(kw.pop("X"), kw.pop("y"), **kw)
    check(keyword, run, names={"X": ["rows", "row", "column"], "y": ["response", "responses", "labels", "rows"],
                               "intercept": ["column", "Hessian"]}.get(keyword))


@settings(FUZZ)
@given(keyword=st.sampled_from(["batches", "target", "columns", "names", "batch_rows", "steps", "model"]), value=values)
def test_fit_stream(keyword, value):
    from gradfree.inference import fit_stream
    def run():
        frame = {"a": XD[:, 0], "b": XD[:, 1], "t": YD}
        kw = {"target": "t", **({} if keyword == "batches" else {keyword: value})}
        batches = value if keyword == "batches" else ({k: v[i:i + 40] for k, v in frame.items()} for i in range(0, 120, 40))
        fit_stream(batches, **kw)
    check(keyword, run, names={"batches": ["target", "batch", "batches", "rows", "X"], "steps": ["steps"],
                               "names": ["names", "feature"]}.get(keyword))


# --- QMC engines ------------------------------------------------------------------------------

@settings(FUZZ)
@given(engine=st.sampled_from(["Sobol", "Halton", "Rank1Lattice", "SubgroupLattice", "KorobovLattice"]),
       keyword=st.sampled_from(["d", "seed", "scramble", "bits", "optimization", "z", "n", "shift", "metric", "draw",
                                "fast_forward", "l_bounds", "u_bounds"]), value=values)
def test_qmc_engines(engine, keyword, value):
    def run():
        args = {"Sobol": {"d": 2, "seed": 1}, "Halton": {"d": 2, "seed": 1}, "Rank1Lattice": {"z": [1, 3], "n": 7},
                "SubgroupLattice": {"d": 2, "n": 13}, "KorobovLattice": {"d": 2, "n": 13}}[engine]
        valid = {"Sobol": {"d", "seed", "scramble", "bits", "optimization"}, "Halton": {"d", "seed", "scramble", "optimization"},
                 "Rank1Lattice": {"z", "n", "seed", "shift"}, "SubgroupLattice": {"d", "n", "seed", "shift"},
                 "KorobovLattice": {"d", "n", "metric", "seed", "shift"}}[engine]
        if keyword in valid:
            args[keyword] = value
            if keyword in ("d", "n") and isinstance(value, int) and not isinstance(value, bool) and value > 5000:
                if engine in ("SubgroupLattice", "KorobovLattice"):
                    return     # valid but long searches
        e = getattr(gradfree, engine)(**args)
        draw = value if keyword == "draw" else 4
        if isinstance(draw, int) and not isinstance(draw, bool) and draw > 4096:
            draw = 4096
        e.random(draw)
        if keyword == "fast_forward":
            e.fast_forward(value)
        if keyword in ("l_bounds", "u_bounds"):
            e.integers(**{"l_bounds": 0, "u_bounds": 5, keyword: value, "n": 2})
    check(keyword, run, names={"draw": ["n"], "fast_forward": ["n"]}.get(keyword))
