"""Property-based fuzz of the Python front ends (hypothesis): statistical inference, training on
noisy labels, the NOK block, QMC engines and minimize, with keyword values drawn from pools of
hostile ones (0, negatives, 2^31, 2^63, 2^64, NaN, infinities, strings, huge widths) mixed with
valid ones. Whatever is drawn, a call returns or raises an exception a caller can catch by type
(gradfree's errors, or the ``TypeError``/``ValueError`` of Python's own argument checks): never a
``PanicException``, a crash of the interpreter, or a call that does not return within 30 s.
``GRADFREE_FUZZ_PY_CASES`` scales the number of examples (default: 1,050 in all)."""
import math
import os
import signal

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gradfree
from gradfree.errors import GradfreeError

SCALE = float(os.environ.get("GRADFREE_FUZZ_PY_CASES", "1050")) / 1050
FUZZ = settings(deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None)

SIZES = st.sampled_from([0, 1, 2, 3, 7, 25, 2**31, 2**62, 2**63, 2**64 - 1, 2**64, -1, 2.5, "7", None, math.nan])
REALS = st.sampled_from([0.0, -1.0, 0.2, 0.5, 1e-320, 1e17, 1e308, math.nan, math.inf, -math.inf, "x", None])


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang("no answer within 30 s")


def call(f):
    """Runs ``f``; returns normally, or raises only what a caller may catch by type."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(30)
    try:
        f()
    except (GradfreeError, TypeError, ValueError, OverflowError, MemoryError) as e:
        assert "PanicException" not in type(e).__name__, repr(e)
        assert "panicked" not in str(e), repr(e)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (rng.random(120) < 1 / (1 + np.exp(-X[:, 0]))).astype(float)
    return X, y


X, Y = _data()


@settings(FUZZ, max_examples=int(450 * SCALE))
@given(model=st.sampled_from(["linear", "logistic", "poisson", "mixture", "relu", "nope"]),
       method=st.sampled_from(["masgrad", "masgrad-rank-one", "sgd", "diff-sgd", "random-scaling", "madprox", "nope"]),
       batch_size=SIZES, step=REALS, chains=SIZES, steps=SIZES, seed=SIZES,
       moments=st.sampled_from([None, "batch", "independent", "population", "nope"]),
       theta0=st.sampled_from([None, [0.0, 0.0, 0.0], [math.nan, 0, 0], [1e300, 0, 0], [1.0], "x"]),
       hidden=SIZES, components=SIZES, with_y=st.booleans(), scale=st.sampled_from([1.0, 1e200, 0.0]))
def test_fit_never_panics_or_hangs(model, method, batch_size, step, chains, steps, seed, moments, theta0, hidden,
                                   components, with_y, scale):
    from gradfree.inference import fit
    kwargs = dict(model=model, method=method, moments=moments, theta0=theta0)
    for key, value in (("batch_size", batch_size), ("step", step), ("chains", chains), ("steps", steps), ("seed", seed),
                       ("hidden", hidden), ("components", components)):
        if value is not None:
            kwargs[key] = value
    # Valid runs stay small: a drawn count that fits is capped so the fuzz stays fast.
    for key, cap in (("chains", 8), ("steps", 30)):
        if isinstance(kwargs.get(key), int) and 0 < kwargs[key] < 2**31:
            kwargs[key] = min(kwargs[key], cap)
    x = X[:, :1] if model == "mixture" else X
    call(lambda: fit(x * scale, Y if with_y else None, **kwargs))


@settings(FUZZ, max_examples=int(200 * SCALE))
@given(batch_size=SIZES, epochs=st.sampled_from([1, 2, 0, -1, 10**9, 2**64, "3", None]),
       hidden=st.sampled_from([None, 8, 0, (8, 8), 10**12, 2**64, "x"]),
       loss=st.sampled_from(["npcl", "cl", "ce", "gce", "coteaching", "hinge", "nope"]),
       noise_rate=st.sampled_from([None, 0.0, 0.3, 1.0, -0.1, math.nan]),
       learning_rate=st.sampled_from([None, 1e-3, 0.0, -1.0, math.inf, 1e30]))
def test_robust_classifier_never_panics_or_hangs(batch_size, epochs, hidden, loss, noise_rate, learning_rate):
    from gradfree.robust import RobustClassifier
    kwargs = dict(loss=loss, noise_rate=noise_rate, hidden_layer_sizes=hidden, learning_rate=learning_rate)
    if batch_size is not None:
        kwargs["batch_size"] = batch_size
    if epochs is not None:
        kwargs["epochs"] = epochs
    labels = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0).astype(int)
    call(lambda: RobustClassifier(random_state=0, **kwargs).fit(X, labels))


@settings(FUZZ, max_examples=int(200 * SCALE))
@given(n_components=SIZES, layers=SIZES, alternations=SIZES, alpha=REALS,
       activation=st.sampled_from(["l1", "l0", "mcp", "scad", "relu", "nope"]),
       rows=st.sampled_from([X[:20], X[:1], np.zeros((0, 3)), np.full((4, 3), np.nan), X[:20] * 1e300]))
def test_nok_denoiser_never_panics_or_hangs(n_components, layers, alternations, alpha, activation, rows):
    from gradfree.robust import NOKDenoiser
    kwargs = dict(activation=activation)
    for key, value in (("n_components", n_components), ("layers", layers), ("alternations", alternations), ("alpha", alpha)):
        if value is not None:
            kwargs[key] = min(value, 4) if key in ("layers", "alternations") and isinstance(value, int) and value > 0 else value
    call(lambda: NOKDenoiser(random_state=0, **kwargs).fit_transform(rows))


@settings(FUZZ, max_examples=int(200 * SCALE))
@given(engine=st.sampled_from(["Sobol", "Halton"]), d=SIZES, n=SIZES, scramble=st.booleans(), seed=SIZES,
       bits=st.sampled_from([None, 1, 30, 64, 65, 0, -1]))
def test_qmc_and_minimize_never_panic_or_hang(engine, d, n, scramble, seed, bits):
    def run():
        kwargs = dict(scramble=scramble, seed=seed)
        if engine == "Sobol" and bits is not None:
            kwargs["bits"] = bits
        e = getattr(gradfree.qmc, engine)(d, **kwargs)
        e.random(min(n, 4096) if isinstance(n, int) and n > 0 else n)
    call(run)
    x0 = np.zeros(d if isinstance(d, int) and 0 < d < 50 else 2)
    call(lambda: gradfree.minimize(lambda x: float(np.sum(x**2)), x0, max_evals=n if isinstance(n, int) and 0 < n < 500 else 200,
                                   seed=seed))


def test_the_fuzz_ran_enough_cases():
    # Four properties above at 450 + 200 + 200 + 200 examples, two calls each in the last.
    assert int(450 * SCALE) + int(200 * SCALE) * 2 + int(200 * SCALE) >= 1000 or SCALE < 1
