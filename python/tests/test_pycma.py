"""``gradfree.es`` as a drop-in for pycma (``import gradfree.es as cma``): pycma's README and
docstring examples run with only the import changed (read from the installed ``cma`` package, so
they are skipped without it), ``result`` and ``stop()`` use pycma's names, options gradfree cannot
honour are refused by name, and bounds are never changed in place."""
import contextlib
import doctest
import io
import math
import pickle
import re

import numpy as np
import pytest

import gradfree
import gradfree.es as cma
from gradfree.errors import InvalidParameterError

#: pycma's ``CMAEvolutionStrategyResult`` fields, in pycma's order (checked against pycma below
#: when it is installed).
RESULT_FIELDS = ("xbest", "fbest", "evals_best", "evaluations", "iterations", "xfavorite", "stds", "stop")

#: Our stop-rule names and pycma's termination keys (pycma's are also its option names).
STOP_NAMES = {"max_evals": "maxfevals", "max_gens": "maxiter", "target": "ftarget", "tol_fun": "tolfun", "tol_x": "tolx",
              "tol_flat": "tolflatfitness", "tol_stagnation": "tolstagnation", "tol_condition": "tolconditioncov",
              "max_seconds": "timeout"}


def quiet(**opts):
    return {"verb_disp": 0, "verbose": -9, **opts}


# --- result and stop() names -------------------------------------------------------------------


def test_result_fields_are_pycmas_in_pycmas_order():
    assert cma.Result._fields == RESULT_FIELDS
    for cls in (gradfree.INGO, gradfree.CMAES, gradfree.XNES, gradfree.OpenAIES):
        es = cls(np.full(4, 0.5), 0.3, seed=2, max_evals=400)
        while not es.stop():
            X = es.ask()
            es.tell(X, [cma.ff.sphere(x) for x in X])
        r = es.result
        assert r._fields == RESULT_FIELDS and len(r) == 8
        assert r.evaluations == es.evaluations and r.iterations == es.iterations
        assert 1 <= r.evals_best <= r.evaluations
        assert np.array_equal(r.xfavorite, es.mean) and r.stds.shape == (4,) and np.all(r.stds > 0)
        assert r.stop == es.stop() and "max_evals" in r.stop


def test_result_fields_match_installed_pycma():
    pycma = pytest.importorskip("cma")
    assert tuple(pycma.evolution_strategy.CMAEvolutionStrategyResult._fields) == RESULT_FIELDS


def test_evals_best_is_the_count_of_the_best_evaluation():
    es = cma.CMAEvolutionStrategy(np.full(3, 1.0), 0.5, quiet(seed=5, maxiter=30))
    seen = []
    while not es.stop():
        X = es.ask()
        f = [cma.ff.sphere(x) for x in X]
        seen.extend(f)
        es.tell(X, f)
    k = int(np.argmin(seen))
    assert es.result.evals_best == k + 1 == es.best.evals
    assert es.result.fbest == seen[k] and np.array_equal(es.result.xbest, es.best.x)
    assert cma.ff.sphere(es.result.xbest) == es.result.fbest


def test_stop_names_are_pycmas_with_pycma_options_and_ours_with_ours():
    assert cma.PYCMA_STOP_NAMES == STOP_NAMES
    es = gradfree.CMAES(np.zeros(3) + 1, 0.5, {"maxfevals": 100}, seed=1)
    ours = gradfree.CMAES(np.zeros(3) + 1, 0.5, seed=1, max_evals=100)
    for e in (es, ours):
        while not e.stop():
            X = e.ask()
            e.tell(X, [cma.ff.sphere(x) for x in X])
    assert es.stop() == {"maxfevals": 100} and ours.stop() == {"max_evals": 100}
    cases = [({"maxfevals": 120}, "maxfevals"), ({"maxiter": 4}, "maxiter"), ({"ftarget": 1e-2}, "ftarget"),
             ({"tolfun": 1e-3, "tolx": False}, "tolfun"), ({"tolx": 1e-3, "tolfun": 0}, "tolx")]
    for opts, key in cases:
        es = cma.CMAEvolutionStrategy(np.ones(4), 0.5, quiet(seed=3, **opts)).optimize(cma.ff.sphere)
        assert key in es.stop(), (opts, es.stop())
        assert es.result.stop == es.stop()


def test_stop_names_are_pycmas_termination_options():
    pycma = pytest.importorskip("cma")
    names = set(pycma.CMAOptions.defaults())
    assert set(STOP_NAMES.values()) <= names


# --- options -----------------------------------------------------------------------------------


def test_cmaoptions_defaults_and_search():
    opts = cma.CMAOptions()
    assert isinstance(opts, dict) and opts["tolfun"].startswith("1e-11") and opts["popsize"].startswith("4 + 3 * math.log(N)")
    tol = cma.CMAOptions("tol")
    assert tol and all("tol" in k.lower() or "tol" in v.lower() for k, v in tol.items())
    assert {"tolfun", "tolx", "tolstagnation", "tolflatfitness", "tolconditioncov"} <= set(tol)
    assert set(cma.CMAOptions("erb")) >= {"verbose", "verb_disp", "verb_log", "verb_filenameprefix"}
    assert cma.CMAOptions(tolfun=1e-5) == {"tolfun": 1e-5}
    handling = cma.CMAOptions.handling()
    assert handling["verb_log"] == "ignored" and handling["tolx"] == "honoured" and handling["CMA_active"] == "default only"


def test_cmaoptions_defaults_are_pycmas_where_given():
    pycma = pytest.importorskip("cma")
    theirs = pycma.CMAOptions.defaults()
    for k, v in cma.CMAOptions.defaults().items():
        assert k in theirs, k
        assert v.split("#")[0].strip() == theirs[k].split("#")[0].strip(), k


@pytest.mark.parametrize("opts, name", [
    ({"CMA_mirrors": 1}, "CMA_mirrors"),
    ({"transformation": [abs, None]}, "transformation"),
    ({"tolfunhist": 1e-9}, "tolfunhist"),
    ({"no_such_option": 1}, "no_such_option"),
    ({"CMA_diagonal": 100}, "CMA_diagonal"),
    ({"CMA_elitist": True}, "CMA_elitist"),
    ({"BoundaryHandler": "BoundNone"}, "BoundaryHandler"),
    ({"bounds": [1, 0]}, "bounds"),
    ({"bounds": [0, None], "BoundaryHandler": "BoundPenalty"}, "BoundaryHandler"),
])
def test_bad_options_are_refused_naming_them(opts, name):
    with pytest.raises(InvalidParameterError, match=re.escape(name)) as info:
        cma.CMAEvolutionStrategy(np.zeros(3), 0.5, opts)
    if "no_such" in name or "mirrors" in name:
        assert "tolfun" in str(info.value)  # the list of what is honoured
    with pytest.raises(InvalidParameterError, match=re.escape(name)):
        cma.fmin2(cma.ff.sphere, np.zeros(3), 0.5, opts)


def test_default_only_options_at_their_default_and_ignored_ones_are_accepted():
    opts = quiet(CMA_active=True, CMA_elitist=False, CMA_diagonal=0, verb_plot=0, verb_log=0, verb_append=5,
                 verb_filenameprefix="x/", seed=2, maxiter=3)
    es = cma.CMAEvolutionStrategy(np.zeros(3), 0.5, opts).optimize(cma.ff.sphere)
    assert es.countiter == 3


@pytest.mark.parametrize("kwargs, name", [
    ({"gradf": cma.ff.grad_rosen}, "gradf"),
    ({"restart_from_best": True}, "restart_from_best"),
    ({"incpopsize": 0.5}, "incpopsize"),
    ({"incpopsize": "2"}, "incpopsize"),
    ({"incpopsize": float("nan")}, "incpopsize"),
    ({"noise_handler": True}, "noise_handler"),
    ({"noise_change_sigma_exponent": 0}, "noise_change_sigma_exponent"),
    ({"noise_kappa_exponent": 1}, "noise_kappa_exponent"),
    ({"constraints": lambda x: [x[0]]}, "constraints"),
    ({"bipop": 2}, "bipop"),
])
def test_fmin2_refuses_what_it_cannot_honour(kwargs, name):
    with pytest.raises(InvalidParameterError, match=re.escape(name)):
        cma.fmin2(cma.ff.rosen, np.zeros(4), 0.3, quiet(), **kwargs)


def test_popsize_and_seed_options():
    a = cma.CMAEvolutionStrategy(np.zeros(5), 1.0, quiet(popsize=13, seed=7))
    b = cma.CMAEvolutionStrategy(np.zeros(5), 1.0, quiet(popsize=13, seed=7))
    assert a.popsize == 13 and np.array_equal(a.ask(), b.ask())
    assert cma.CMAEvolutionStrategy(np.zeros(8), 1.0, quiet(popsize_factor=2)).popsize == 2 * 10
    assert cma.CMAEvolutionStrategy(np.zeros(8), 1.0, quiet()).popsize == 4 + int(3 * math.log(8))
    assert cma.CMAEvolutionStrategy(np.zeros(8), 1.0, quiet(popsize="4 + 3 * math.log(N)")).popsize == 10
    assert cma.CMAEvolutionStrategy(np.zeros(2), 1.0, quiet(seed=0)).opts["seed"] > 0  # 0 means time, as pycma


# --- bounds ------------------------------------------------------------------------------------


@pytest.mark.parametrize("bounds", [[[-1.0, 0.5, -2.0], [3.0, 3.0, 0.0]], [0.5, None], [None, [1, 2, 3]], [0, np.inf],
                                    [np.array([-1.0, 0.5, -2.0]), 2.5]])
def test_bounds_are_respected_and_never_modified_in_place(bounds):
    import copy
    given = copy.deepcopy(bounds)
    opts = quiet(bounds=bounds, seed=4, maxfevals=1500)
    lo = np.broadcast_to(np.array(-np.inf if bounds[0] is None else bounds[0], dtype=float), 3)
    hi = np.broadcast_to(np.array(np.inf if bounds[1] is None else bounds[1], dtype=float), 3)
    es = cma.CMAEvolutionStrategy([1.0, 1.0, -1.0], 2.0, opts)
    while not es.stop():
        X = es.ask()
        assert all(np.all(x >= lo) and np.all(x <= hi) for x in X)
        es.tell(X, [cma.ff.elli(np.asarray(x) - 0.7) for x in X])
    assert np.all(es.result.xfavorite >= lo) and np.all(es.result.xfavorite <= hi)
    for a, b in zip(bounds, given):
        assert (a is None and b is None) or np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    x, es2 = cma.fmin2(cma.ff.sphere, [1.0, 1.0, -1.0], 2.0, opts)
    assert np.all(x >= lo) and np.all(x <= hi)
    for a, b in zip(bounds, given):
        assert (a is None and b is None) or np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float))


def test_one_sided_bound_finds_the_constrained_optimum():
    es = cma.CMAEvolutionStrategy(10 * [0.2], 0.5, quiet(bounds=[0, None], seed=1))
    es.optimize(lambda x: cma.ff.elli(np.asarray(x) + 1.0))  # optimum at the lower bound 0
    assert np.all(es.result.xbest >= 0) and np.max(es.result.xbest) < 1e-3


# --- ask / tell --------------------------------------------------------------------------------


def test_ask_in_parts_and_tell_in_any_order():
    es = cma.CMAEvolutionStrategy(np.ones(4), 0.5, quiet(seed=9, popsize=6))
    X = es.ask(2) + es.ask(3) + es.ask(1)
    assert len(X) == 6 and isinstance(X, list)
    with pytest.raises(InvalidParameterError, match="popsize"):
        es.ask(1)
    perm = [3, 0, 5, 1, 4, 2]
    es.tell([X[i] for i in perm], [cma.ff.sphere(X[i]) for i in perm])
    assert es.countevals == 6 and es.countiter == 1
    assert es.best.f == min(cma.ff.sphere(x) for x in X)
    Y = es.ask()
    with pytest.raises(InvalidParameterError, match="not one of the points"):
        es.tell([y + 1e-3 for y in Y], [0.0] * 6)
    with pytest.raises(InvalidParameterError, match="6 points"):
        es.tell(Y[:5], [0.0] * 5)
    with pytest.raises(InvalidParameterError, match="sigma_fac"):
        es.ask(sigma_fac=2)
    with pytest.raises(InvalidParameterError, match="xmean"):
        es.ask(xmean=np.zeros(4))
    es.tell(Y, [cma.ff.sphere(y) for y in Y])
    assert es.countiter == 2


def test_optimize_callbacks_iterations_and_pickling():
    calls = []
    es = cma.CMAEvolutionStrategy(np.full(6, 0.5), 0.3, quiet(seed=11))
    es.optimize(cma.ff.rosen, iterations=5, callback=[lambda e: calls.append(e.countiter), lambda e: None])
    assert calls == [1, 2, 3, 4, 5] and es.countiter == 5 and len(es.logger.rows) == 5
    clone = pickle.loads(es.pickle_dumps())
    es.optimize(cma.ff.rosen, iterations=30)
    clone.optimize(cma.ff.rosen, iterations=30)
    assert es.result.fbest == clone.result.fbest and np.array_equal(es.mean, clone.mean)
    es.optimize(cma.ff.rosen, maxfun=40)
    assert es.countiter == 35 + math.ceil(40 / es.popsize)


def test_fmin2_parallel_objective_callbacks_and_initial_x():
    seen, inits = [], []
    x, es = cma.fmin2(None, 3 * [0.5], 0.3, quiet(seed=1), parallel_objective=lambda X: [cma.ff.sphere(x) for x in X],
                      callback=lambda e: seen.append(e.countevals), init_callback=[inits.append], eval_initial_x=True)
    assert inits == [es] and seen[0] == 1 + es.popsize and es.result.fbest < 1e-9
    assert np.array_equal(x, es.result.xbest) and es.result.evaluations == es.countevals
    assert "tolfun" in es.stop() or "tolx" in es.stop() or "tolflatfitness" in es.stop()


def test_fmin2_restarts_and_output(capsys):
    np.random.seed(3)
    x, es = cma.fmin2(cma.ff.rastrigin, lambda: 2 * np.random.rand(3) - 1, 0.5, {"seed": 3, "ftarget": 1e-8, "verb_disp": 50},
                      restarts=9, bipop=True)
    out = capsys.readouterr().out
    assert "aCMA-ES" in out and "Iterat #Fevals" in out and "termination on {'ftarget'" in out
    assert es.result.fbest < 1e-8 and es.stop() == {"ftarget": 1e-8}
    r = es.result_pretty()
    assert r.fbest == es.result.fbest and r._fields == RESULT_FIELDS
    assert "final/bestever f-value" in capsys.readouterr().out


def test_fmin2_incpopsize_grows_the_population_by_its_factor():
    for factor, expect in ((3, [7, 21, 63]), (1.5, [7, 11, 16])):
        sizes = []
        x, es = cma.fmin2(cma.ff.rastrigin, 3 * [1.0], 0.5, {"seed": 4, "maxfevals": 6000, "verb_disp": 0},
                          restarts=2, incpopsize=factor, callback=lambda e: sizes.append(e.popsize))
        # Restart j runs round(7 incpopsize^j) points (7 = 4 + floor(3 ln 3) at N = 3).
        assert sorted(set(sizes)) == expect and es.restarts_done == 2


def test_test_functions():
    ones, zeros = np.ones(5), np.zeros(5)
    assert cma.ff.rosen(ones) == 0 and cma.ff.rosen(zeros) == 4
    assert cma.ff.sphere([1, 2]) == 5 and cma.ff.rastrigin(zeros) == 0
    assert cma.ff.elli([1, 1]) == 1 + 1e6 and cma.ff.cigar([1, 1]) == 1 + 1e6 and cma.ff.tablet([1, 1]) == 1e6 + 1
    g, x, h = cma.ff.grad_rosen(np.full(4, 0.3)), np.full(4, 0.3), 1e-6
    num = [(cma.ff.rosen(x + h * e) - cma.ff.rosen(x - h * e)) / (2 * h) for e in np.eye(4)]
    assert np.allclose(g, num, rtol=1e-5)
    from gradfree.es.fitness_functions import elli  # as ``from cma.fitness_functions import elli``
    assert elli is cma.ff.elli


# --- pycma's own examples, with only the import changed -----------------------------------------

#: The import lines of pycma's examples and their gradfree versions.
IMPORTS = [("from cma.fitness_functions import", "from gradfree.es.fitness_functions import"),
           ("from cma.optimization_tools import", "from gradfree.es.optimization_tools import"),
           ("import cma, warnings", "import gradfree.es as cma, warnings"),
           ("import cma", "import gradfree.es as cma")]

#: Segments of the examples (from the example whose source contains the key to the next key)
#: that gradfree refuses by design, and the name the refusal must give.
REFUSED = {
    "'bounds': [0, np.inf]": "resampl",         # ask(1) beyond popsize: pycma's resampling of NaN points
    '"transformation"': "transformation",       # a user transformation: the 'transformation' option
    "'CMA_diagonal':100": "CMA_diagonal",       # diagonal covariance for the first iterations
    "catch_warnings():": "gradf",               # fmin2(gradf=...)
}

#: The first example of each segment of pycma's examples (its source contains the key).
SEGMENTS = {
    "CMAEvolutionStrategy": ["{'seed':234}", "CMAEvolutionStrategy(4 * [1], 1)  #", "'bounds': [0, np.inf]",
                             '"transformation"', "{'verb_disp': 0}", "BestSolution()", "fitness_functions import elli",
                             "import pickle"],
    "fmin2": ["cma.CMAOptions()  #", "'CMA_diagonal':100", "'seed':12345", "catch_warnings():",
              "def parallel_sphere"],
}


def _translate(source: str) -> str:
    for old, new in IMPORTS:
        source = source.replace(old, new)
    return source


def _examples(text: str):
    """The doctest examples of ``text`` as sources (a continuation line that lacks ``...``, as in
    pycma's README, is joined back to its statement)."""
    out = []
    for ex in doctest.DocTestParser().get_examples(text):
        src = ex.source
        try:
            compile(src, "<example>", "exec")
        except SyntaxError:
            src = src + ex.want
        out.append(_translate(src))
    return out


def _segments(examples, keys):
    starts = [next(i for i, src in enumerate(examples) if key in src) for key in keys]
    bounds = starts + [len(examples)]
    return [(keys[k], examples[bounds[k]:bounds[k + 1]]) for k in range(len(keys))], examples[:starts[0]]


def _run_segment(key, sources, ns):
    refused = REFUSED.get(key)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for k, src in enumerate(sources):
            try:
                exec(compile(src, f"<pycma example {key}>", "exec"), ns)
            except InvalidParameterError as e:
                assert refused is not None, f"{key}: {src!r} raised {e}"
                assert refused in str(e), (key, str(e))
                for rest in sources[k + 1:]:  # the imports the later segments use
                    if rest.startswith(("import ", "from ")):
                        exec(rest, ns)
                return "refused"
    assert refused is None, f"{key}: expected a refusal naming {refused!r}"
    return "ran"


def _namespace():
    np.random.seed(12345)
    return {"np": np, "cma": cma, "__name__": "pycma_example"}


@pytest.mark.parametrize("where", ["CMAEvolutionStrategy", "fmin2"])
def test_pycma_docstring_examples_run_with_the_import_changed(where):
    pycma = pytest.importorskip("cma")
    doc = getattr(pycma, where).__doc__
    segments, prelude = _segments(_examples(doc), SEGMENTS[where])
    ns = _namespace()
    for src in prelude:
        exec(compile(src, "<prelude>", "exec"), ns)
    outcome = {}
    for key, sources in segments:
        for attempt in range(3):  # pycma's examples are unseeded: a rare local optimum fails an assert
            try:
                outcome[key] = _run_segment(key, sources, ns)
                break
            except AssertionError:
                if attempt == 2:
                    raise
    assert outcome == {k: ("refused" if k in REFUSED else "ran") for k in SEGMENTS[where]}


def test_pycma_readme_examples_run_with_the_import_changed():
    pytest.importorskip("cma")
    import importlib.metadata

    readme = importlib.metadata.metadata("cma").get_payload() or importlib.metadata.metadata("cma")["Description"]
    examples = [src for src in _examples(readme) if "help(" not in src]
    assert len(examples) >= 8
    ns = _namespace()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for src in examples:
            if src.strip() == "cma.plot()  # shortcut for es.logger.plot()":
                try:
                    import matplotlib
                    matplotlib.use("Agg")
                except ImportError:
                    with pytest.raises(ImportError, match="matplotlib"):
                        exec(src, ns)
                    continue
            exec(compile(src, "<pycma README>", "exec"), ns)
    text = out.getvalue()
    assert "termination on" in text and "aCMA-ES" in text and "verb_disp" in text
    # unseeded, as in the README: 8-D Rosenbrock may end in its local optimum, so only the run is checked
    assert np.all(np.isfinite(ns["xopt"])) and ns["es"].opts["verb_disp"] == 1


def test_bound_transform_matches_pycmas():
    pycma = pytest.importorskip("cma")
    from gradfree.cma._options import _transform
    lower, upper = np.array([0.0, -1.0, -np.inf, 2.0, -1e3]), np.array([np.inf, 3.0, 5.0, 2.5, 1e3])
    theirs = pycma.transformations.BoxConstraintsLinQuadTransformation(
        [[0, None], [-1, 3], [None, 5], [2, 2.5], [-1e3, 1e3]])
    rng = np.random.default_rng(1)
    for x in rng.standard_normal((500, 5)) * 30:
        np.testing.assert_allclose(_transform(x, lower, upper), theirs(x), rtol=0, atol=1e-12)


def test_the_step_size_damping_is_pycmas():
    # pycma damps the step size more than Hansen's tutorial for large populations at d >= 6
    # (cma.sigma_adaptation); the pycma interface runs gradfree's CMA-ES with that rule.
    x0, pop = np.full(20, 1.0), 48

    def sigmas(es):
        out = []
        for _ in range(30):
            X = es.ask()
            es.tell(X, [float(np.sum(np.asarray(x) ** 2)) for x in X])
            out.append(es.sigma)
        return out

    ours = sigmas(cma.CMAEvolutionStrategy(x0, 0.5, {"popsize": pop, "seed": 3, "verbose": -9}))
    pycma_rule = sigmas(gradfree.CMAES(x0, 0.5, seed=3, popsize=pop, damping="pycma"))
    tutorial = sigmas(gradfree.CMAES(x0, 0.5, seed=3, popsize=pop))
    assert ours == pycma_rule
    assert ours != tutorial
    # The larger damping slows the step size's decrease on the sphere.
    assert ours[-1] > tutorial[-1]


# --- the package gradfree.cma -------------------------------------------------------------------

def test_gradfree_cma_and_gradfree_es_hand_on_the_same_names():
    """``gradfree.cma`` is pycma's interface; ``gradfree.es`` hands the same objects on (on first
    use), so ``import gradfree.es as cma`` keeps working, ``from gradfree.es import *`` too."""
    import gradfree.cma as gcma
    handed_on = [n for n, m in cma._HANDED_ON.items() if m == "gradfree.cma"]
    assert set(handed_on) | {"Logger"} == set(gcma.__all__) - {"PYCMA_OPTIONS", "PYCMA_STOP_NAMES"}
    for name in handed_on + ["PYCMA_OPTIONS", "PYCMA_STOP_NAMES"]:
        assert getattr(cma, name) is getattr(gcma, name), name
    assert gradfree.minimize is cma.minimize and gradfree.OptimizeResult is cma.OptimizeResult
    ns = {}
    exec("from gradfree.es import *", ns)
    assert ns["fmin2"] is gcma.fmin2 and ns["CMAES"] is cma.CMAES
    assert {"fmin2", "CMAEvolutionStrategy", "minimize"} <= set(dir(cma))
    with pytest.raises(AttributeError, match="no attribute 'fmin3'"):
        cma.fmin3
    from gradfree.es.fitness_functions import elli
    assert elli is gcma.ff.elli
    assert repr(gcma.CMAEvolutionStrategy).startswith("<class 'gradfree.cma.CMAEvolutionStrategy'")


def test_a_pickle_from_before_the_package_loads_and_continues():
    """A state pickled when the pycma layer was the modules gradfree._pycma* (stored in
    tests/data) loads, checksum and class tag checked, and continues where it stopped: the points
    and best value recorded when it was written."""
    import pathlib
    path = pathlib.Path(__file__).parent / "data" / "cma_state_before_gradfree_cma.pkl"
    es = pickle.loads(path.read_bytes())
    assert type(es) is cma.CMAEvolutionStrategy and es.countiter == 3
    assert es.result.fbest == 0.10182886093519143
    X = es.ask()
    np.testing.assert_allclose(np.asarray(X[0])[:2], [0.38753341, -0.15753475], rtol=0, atol=5e-9)
    # Written again, it carries the package's tag, and a changed byte is still refused.
    again = pickle.dumps(es)
    assert b"gradfree.cma" in again and b"gradfree._pycma" not in again
    damaged = bytearray(path.read_bytes())
    i = damaged.index(b"payload") + 40
    damaged[i] ^= 1
    with pytest.raises((gradfree.CheckpointError, pickle.UnpicklingError)):
        pickle.loads(bytes(damaged))


def test_recombination_weights_are_pycmas():
    pycma = pytest.importorskip("cma")
    from gradfree import _gradfree
    for lam in (2, 3, 4, 5, 10, 17, 100):
        ours = _gradfree.cma_weights(lam)
        theirs = np.asarray(pycma.recombination_weights.RecombinationWeights(lam).positive_weights)
        np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=0)
    with pytest.raises(InvalidParameterError, match="popsize"):
        _gradfree.cma_weights(1)
