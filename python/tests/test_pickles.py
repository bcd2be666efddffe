"""Checked pickles (gradfree._pickling): for every class of the package that pickles, random
single-bit flips of its pickle either raise or load the very same state, never a different one;
a flip inside the state (its payload or checksum) is a CheckpointError; a pickle of one class does
not load as another; ``gradfree.inference.load`` returns only inference results.

``GRADFREE_FLIP_SEED`` sets the seed of the flips (printed in every failure) and
``GRADFREE_FLIPS`` their number per class and kind (default 300 anywhere in the pickle plus 300
outside the payload, where the pickle's own structure is)."""
import io
import json
import math
import os
import pickle

import numpy as np
import pytest

import gradfree
from gradfree import _pickling, es
from gradfree.errors import CheckpointError

SEED = int(os.environ.get("GRADFREE_FLIP_SEED", "20261129"))
FLIPS = int(os.environ.get("GRADFREE_FLIPS", "300"))


# --- the objects -------------------------------------------------------------------------------

def _es(cls):
    def make():
        d = 3
        opt = cls(d, seed=1) if issubclass(cls, es._DiscreteES) else cls(np.full(d, 0.5), 0.5, seed=1)
        X = opt.ask()
        opt.tell(X, [float(np.sum(np.asarray(x, float) ** 2)) for x in X])
        return opt
    return make


def _cma():
    e = es.CMAEvolutionStrategy([0.5, 0.5, 0.5], 0.5, {"seed": 2, "verbose": -9})
    e.optimize(lambda x: float(np.sum(np.asarray(x) ** 2)), iterations=2)
    e.ask()      # a population pending between ask and tell
    return e


def _bo_optimizer():
    from gradfree.bo import Optimizer
    opt = Optimizer([(0.0, 1.0), (0, 5), ["a", "b", "c"]], random_state=1, n_initial_points=3, acq_starts=2)
    for _ in range(5):
        x = opt.ask()
        opt.tell(x, float(x[0] + x[1]))
    return opt


def _breast():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 2))
    y = (rng.random(150) < 1 / (1 + np.exp(-X[:, 0]))).astype(float)
    return X, y


def _fit(**kw):
    import pandas as pd
    from gradfree.inference import fit
    X, y = _breast()
    return fit(pd.DataFrame(X, columns=["a", "b"]), pd.Series(y, name="yes"), **kw)


def _sampler(name):
    def make():
        from gradfree import kernel_approximation as ka
        X = np.random.default_rng(0).normal(size=(20, 4))
        return getattr(ka, name)(n_components=8, random_state=0).fit(X)
    return make


def _robust():
    from gradfree.robust import RobustClassifier
    X, y = _breast()
    return RobustClassifier(epochs=1, hidden_layer_sizes=(4,), random_state=0).fit(X, y.astype(int))


def _nok():
    from gradfree.robust import NOKDenoiser
    return NOKDenoiser(n_components=4, layers=2, alternations=2, random_state=0).fit(
        np.random.default_rng(0).normal(size=(30, 4)))


def _drawn(engine):
    engine.random(3)
    return engine


CASES = {
    **{f"es.{c.__name__}": _es(c) for c in es._CLASSES.values()},
    "es.CMAEvolutionStrategy": _cma,
    "es.OptimizeResult": lambda: es.minimize(lambda x: float(x @ x), np.ones(2), method="cmaes", seed=1, max_evals=40),
    "bo.Optimizer": _bo_optimizer,
    "bo.GaussianProcessModel": lambda: _bo_optimizer().models[-1],
    "bo._SharedRun": lambda: _bo_optimizer().models[-1]._run,
    "bo.OptimizeResult": lambda: _bo_optimizer().get_result(),
    "bo.Space": lambda: gradfree.bo.Space([(0.0, 1.0), (1, 9, "log-uniform"), ["x", "y"]]),
    "bo.Real": lambda: gradfree.bo.Real(1e-3, 1.0, "log-uniform", name="lr"),
    "bo.Integer": lambda: gradfree.bo.Integer(0, 7, name="k"),
    "bo.Categorical": lambda: gradfree.bo.Categorical(["a", "b", "c"], prior=[0.2, 0.3, 0.5]),
    "inference.MLEResults": lambda: _fit(intercept=True),
    "inference.RandomScalingResults": lambda: _fit(method="random-scaling", chains=4, passes=1),
    "inference.ProcessResults": lambda: _fit(method="sgd", chains=4, steps=20),
    "inference.FittedModel": lambda: _fit().model,
    "inference.Summary": lambda: _fit().summary(),
    "qmc.Sobol": lambda: _drawn(gradfree.Sobol(3, seed=1)),
    "qmc.Sobol-optimized": lambda: _drawn(gradfree.Sobol(2, seed=1, optimization="random-cd")),
    "qmc.Halton": lambda: _drawn(gradfree.Halton(3, seed=1)),
    "qmc.Rank1Lattice": lambda: _drawn(gradfree.Rank1Lattice([1, 3], 7, seed=1, shift=True)),
    "qmc.SubgroupLattice": lambda: _drawn(gradfree.SubgroupLattice(2, 13, seed=1)),
    "qmc.KorobovLattice": lambda: _drawn(gradfree.KorobovLattice(2, 13)),
    "qmc.SearchedLattice": lambda: _drawn(gradfree.SearchedLattice(2, 13, primes=5)),
    **{f"kernel_approximation.{n}": _sampler(n) for n in ("IIDSampler", "OrthogonalSampler", "CirculantSampler",
                                                          "QMCSampler", "SSFSampler")},
    "robust.RobustClassifier": _robust,
    "robust.NOKDenoiser": _nok,
}


# --- comparing states --------------------------------------------------------------------------

def envelope_of(obj):
    """The envelope an object pickles as (its __getstate__, or its restore argument)."""
    if isinstance(obj, _pickling.Checked):
        return obj.__getstate__()
    fn, (env,) = obj.__reduce__()
    assert fn is _pickling.restore
    return env


def unfold(x):
    """A comparable picture of a state: envelopes opened, Rust JSON parsed (without the wall-clock
    seconds a run keeps), arrays as bytes, floats as hex (NaN equals NaN)."""
    if _pickling.is_envelope(x):
        tag, version, state, refs = _pickling.open_envelope(x, None, None)
        return ("envelope", tag, version, unfold(state), unfold(refs))
    if isinstance(x, _pickling.Checked) or hasattr(type(x), "_from_pickle"):
        return ("object", _pickling.class_tag(type(x)), unfold(envelope_of(x)))
    if isinstance(x, dict):
        return ("dict", type(x).__name__, sorted((repr(k), unfold(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [unfold(v) for v in x])
    if isinstance(x, float):
        return ("float", x.hex() if math.isfinite(x) else repr(x))
    if isinstance(x, str) and x[:1] == "{":
        try:
            doc = json.loads(x)
        except ValueError:
            return x
        if isinstance(doc.get("driver"), dict):
            doc["driver"].pop("seconds", None)
        return ("json", json.dumps(doc, sort_keys=True))
    if isinstance(x, np.ndarray):
        return ("ndarray", x.dtype.str, x.shape, x.tobytes() if x.dtype != object else unfold(x.tolist()))
    if hasattr(x, "to_list") and hasattr(x, "dtype"):          # a pandas Index or Series
        return ("pandas", type(x).__name__, str(x.dtype), unfold(x.to_list()), getattr(x, "name", None),
                unfold(getattr(x, "index", None)) if hasattr(x, "values") and not hasattr(x, "levels") and type(x).__name__ == "Series" else None)
    if hasattr(x, "__dict__") and not isinstance(x, type) and not callable(x):
        return ("obj", type(x).__name__, unfold(dict(vars(x))))
    if isinstance(x, (int, bool, bytes, str, type(None), complex)):
        return x
    if callable(x):
        return ("callable", getattr(x, "__qualname__", type(x).__name__))
    # An extension object (the Rust states): what it pickles as.
    reduced = x.__reduce_ex__(4)
    return ("reduce", type(x).__name__, unfold(reduced[0]), unfold(list(reduced[1:])))


def continuation(obj):
    """What the object gives next (the run continued), where that is cheap to ask."""
    if isinstance(obj, es._ES):
        return obj.ask()
    if isinstance(obj, gradfree.qmc._Engine):
        return obj.random(2)
    if isinstance(obj, gradfree.bo.Optimizer):
        return obj.ask()
    return None


def _same_next(a, b) -> bool:
    x, y = continuation(a), continuation(b)
    return (x is None and y is None) or np.array_equal(np.asarray(x, dtype=object), np.asarray(y, dtype=object))


#: What the unpickler's stack holds besides the object: strings, the state's bytes, numbers, the
#: envelope dict, the class itself.
_PLAIN = (str, bytes, int, float, bool, dict, tuple, list, type, type(None))


def _state_regions(blob: bytes) -> list:
    """Byte ranges of the pickle that hold state: the bytes of its envelopes (payloads and
    checksums, the shared objects' too), read from the stream's opcodes."""
    import pickletools
    width = {"SHORT_BINBYTES": 1, "BINBYTES": 4, "BINBYTES8": 8}
    spans = []
    for op, arg, pos in pickletools.genops(blob):
        if op.name in width:
            start = pos + 1 + width[op.name]
            spans.append((start, start + len(arg)))
    assert spans
    return spans


# --- the flips ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(CASES))
def test_bit_flips_raise_or_load_the_same_state(name):
    obj = CASES[name]()
    blob = pickle.dumps(obj)
    regions = _state_regions(blob)
    inside = np.zeros(len(blob), dtype=bool)
    for lo, hi in regions:
        inside[lo:hi] = True
    outside = np.flatnonzero(~inside)
    want = unfold(pickle.loads(blob))
    rng = np.random.default_rng([SEED, sum(name.encode())])
    positions = np.concatenate([rng.integers(len(blob), size=FLIPS), rng.choice(outside, size=FLIPS)])
    outcomes = {"CheckpointError": 0, "other exception": 0, "same state": 0, "plain value": 0}
    for k, pos in enumerate(positions):
        bit = int(rng.integers(8))
        flipped = bytearray(blob)
        flipped[pos] ^= 1 << bit
        where = f"{name}: flip {k} of bit {bit} at byte {pos} of {len(blob)} (GRADFREE_FLIP_SEED={SEED})"
        try:
            back = pickle.loads(bytes(flipped))
        except CheckpointError:
            outcomes["CheckpointError"] += 1
            continue
        except Exception as e:   # the pickle's own structure broken (any exception is fine there)
            assert not inside[pos], f"{where}: a flip inside the state gave {type(e).__name__}: {e}, not CheckpointError"
            outcomes["other exception"] += 1
            continue
        assert not inside[pos], f"{where}: a flip inside the state loaded"
        if type(back) in _PLAIN:
            # A damaged opcode or length field of the pickle's own structure (not of the state)
            # can make the unpickler stop early and return a value from its stack: no gradfree
            # object is restored, and pickle's format leaves no way to prevent it.
            outcomes["plain value"] += 1
            continue
        assert type(back) is type(obj), f"{where}: loaded a {type(back).__name__}"
        assert unfold(back) == want, f"{where}: loaded a different state"
        assert _same_next(back, pickle.loads(blob)), f"{where}: the loaded object continues differently"
        outcomes["same state"] += 1
    print(f"{name}: {len(positions)} flips, {outcomes}")
    assert outcomes["CheckpointError"] > 0


@pytest.mark.parametrize("name", ["es.CMAES", "es.CMAEvolutionStrategy", "bo.Optimizer", "qmc.Sobol",
                                  "kernel_approximation.IIDSampler", "robust.NOKDenoiser", "bo.Real"])
def test_an_unflipped_pickle_continues_identically(name):
    obj = CASES[name]()
    back = pickle.loads(pickle.dumps(obj))
    assert unfold(back) == unfold(obj)
    assert _same_next(back, obj)


def test_the_comparison_sees_a_different_state():
    """The check of the flips would catch a changed state: states that differ compare unequal."""
    a, b = CASES["es.CMAES"](), CASES["es.CMAES"]()
    assert unfold(a) == unfold(b)
    b.tell(b.ask(), np.arange(b.popsize, dtype=float))
    assert unfold(a) != unfold(b)
    from gradfree.robust import NOKDenoiser
    X = np.random.default_rng(0).normal(size=(30, 4))
    n1, n2 = (NOKDenoiser(n_components=4, layers=2, alternations=2, random_state=s).fit(X) for s in (0, 1))
    assert unfold(n1) != unfold(n2) and unfold(n1) == unfold(pickle.loads(pickle.dumps(n1)))
    assert unfold(gradfree.bo.Real(0, 1)) != unfold(gradfree.bo.Real(0, 2))


# --- one class loaded as another ---------------------------------------------------------------

CHECKED = ["es.CMAES", "es.INGO", "es.CMAEvolutionStrategy", "bo.Optimizer", "bo.Real", "bo.Integer", "bo.Space",
           "bo.GaussianProcessModel", "qmc.Sobol", "qmc.Halton", "kernel_approximation.IIDSampler",
           "kernel_approximation.QMCSampler", "robust.NOKDenoiser", "inference.FittedModel"]


def test_a_pickle_of_one_class_is_refused_as_another():
    objs = {n: CASES[n]() for n in CHECKED}
    for a, obj_a in objs.items():
        env = obj_a.__getstate__()
        tag_a = _pickling.class_tag(type(obj_a))
        for b, obj_b in objs.items():
            if type(obj_b) is type(obj_a):
                continue
            tag_b = _pickling.class_tag(type(obj_b))
            target = type(obj_b).__new__(type(obj_b))
            with pytest.raises(CheckpointError, match=f"a pickle of {tag_a}, not of {tag_b}"):
                target.__setstate__(env)
            # The class tag edited to the loading class: the checksum covers the tag.
            with pytest.raises(CheckpointError, match="checksum mismatch"):
                target.__setstate__({**env, "class": tag_b})
            # ... and in the pickle's bytes (the tag is a string of the stream).
        blob = pickle.dumps(obj_a)
        other = "gradfree.es.XNES" if tag_a != "gradfree.es.XNES" else "gradfree.es.SNES"
        edited = blob.replace(pickle.dumps(tag_a)[2:-2], pickle.dumps(other)[2:-2])
        if edited != blob and len(tag_a) == len(other):
            with pytest.raises(CheckpointError):
                pickle.loads(edited)


def test_an_inference_result_is_rebuilt_only_as_its_own_class():
    from gradfree._inference_results import MLEResults, ProcessResults
    mle = CASES["inference.MLEResults"]()
    env = envelope_of(mle)
    with pytest.raises(CheckpointError, match="checksum mismatch"):
        _pickling.restore({**env, "class": _pickling.class_tag(ProcessResults)})
    # Even with the checksum recomputed, an MLE fit is not restored as ProcessResults.
    forged = _pickling.seal(ProcessResults, pickle.loads(env["payload"]))
    with pytest.raises(CheckpointError, match="holding a mle fit, whose results are MLEResults"):
        _pickling.restore(forged)
    assert type(_pickling.restore(_pickling.seal(MLEResults, pickle.loads(env["payload"])))) is MLEResults


# --- old pickles -------------------------------------------------------------------------------

def test_old_pickles_load_only_where_their_invariants_are_checked():
    # ES states (and gradfree.rl's older checkpoints, which hold them) load through the run's checks.
    opt = CASES["es.CMAES"]()
    legacy = opt._pickle_state()
    back = es.CMAES.__new__(es.CMAES)
    back.__setstate__(legacy)
    assert np.array_equal(back.ask(), pickle.loads(pickle.dumps(opt)).ask())
    with pytest.raises(CheckpointError, match="with gradfree's checksum"):
        es.CMAES.__new__(es.CMAES).__setstate__({"seed": 1})
    # Everything else is refused with a clear error.
    for name in ("bo.Optimizer", "bo.Space", "qmc.Sobol", "kernel_approximation.IIDSampler", "robust.NOKDenoiser"):
        obj = CASES[name]()
        with pytest.raises(CheckpointError, match="from an older gradfree"):
            type(obj).__new__(type(obj)).__setstate__(obj._pickle_state())
    from gradfree import _inference_results
    with pytest.raises(CheckpointError, match="older gradfree, without a checksum"):
        _inference_results._restore("MLEResults", "{}", [], {})


def test_copies_keep_working_without_pickling():
    import copy
    r = CASES["es.OptimizeResult"]()
    r["callback"] = lambda x: x            # not picklable: copies must not pickle
    assert copy.copy(r)["callback"] is r["callback"] and copy.deepcopy(r).fun == r.fun
    opt = CASES["es.CMAES"]()
    assert np.array_equal(copy.deepcopy(opt).ask(), copy.copy(opt).ask())


# --- gradfree.inference.load -------------------------------------------------------------------

RAN = []


def _mark():
    RAN.append(True)


class _Payload:
    def __reduce__(self):
        return (_mark, ())


def test_inference_load_returns_only_inference_results(tmp_path):
    from gradfree.inference import MLEResults, ProcessResults, load
    r = CASES["inference.MLEResults"]()
    path = tmp_path / "r.pickle"
    r.save(path)
    assert type(load(path)) is MLEResults and type(MLEResults.load(path)) is MLEResults
    with pytest.raises(CheckpointError, match="not a gradfree ProcessResults: the file holds a pickle of "
                                              "gradfree._inference_results.MLEResults"):
        ProcessResults.load(path)
    cases = [({"a": 1}, "builtins.dict"), (np.zeros(3), "numpy"), (CASES["es.CMAES"](), "gradfree.es.CMAES"),
             (CASES["es.OptimizeResult"](), "gradfree.es.OptimizeResult"), (_Payload(), "test_pickles._mark")]
    for obj, shown in cases:
        with pytest.raises(CheckpointError, match=f"not a gradfree inference result: the file holds a pickle of {shown}"):
            load(io.BytesIO(pickle.dumps(obj)))
    assert RAN == [], "a foreign pickle's code ran"
    with pytest.raises(CheckpointError, match="not a pickle"):
        load(io.BytesIO(b"not a pickle at all"))
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 4
    with pytest.raises(CheckpointError, match="checksum mismatch"):
        load(io.BytesIO(bytes(blob)))
