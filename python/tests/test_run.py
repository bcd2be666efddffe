"""The thin Python layer: the Python loop and the Rust driver share one run object (stop rules,
bookkeeping, repair), the classes and stubs come from the Rust registry, QMC shifts from the
Rust generator."""
import ast
import json
import pathlib
import pickle
import subprocess

import numpy as np
import pytest

import gradfree
import gradfree.errors as E


def _loop(es, problem):
    while not es.stop():
        X = es.ask()
        es.tell(X, problem.evaluate(X))
    return es


RULES = [
    # Python keyword arguments; the Rust driver gets the rules the Python run resolved.
    {"tol_fun": 1e-6},
    {"tol_fun": 1e-3, "tol_fun_window": 3},
    {"tol_x": 1e-4},
    {"target": 1e-5},
    {"max_gens": 17},
    {"max_evals": 333},
    {},  # the default convergence rules
    {"tol_flat": 0, "convergence": False},
    {"tol_stagnation": 120, "tol_fun": False, "tol_x": False},
    {"tol_condition": 1e3},
    {"convergence": False},
]


@pytest.mark.parametrize("algo", ["cmaes", "ingo", "fast-ingo", "xnes", "nesterov-spokoiny"])
@pytest.mark.parametrize("rules", range(len(RULES)))
def test_python_loop_and_rust_driver_stop_at_the_same_generation(algo, rules):
    py_rules = RULES[rules]
    p = gradfree.Problem("ellipsoid", 6)
    x0 = np.linspace(-0.4, 0.6, 6)
    cls = gradfree._METHODS[algo]
    budget = py_rules.get("max_evals", 20000)
    es = cls(x0, 0.3, seed=5, **dict(py_rules, max_evals=budget))
    stop = es._run.stop_rules_json()
    _loop(es, p)
    best_x, best_f, evals, gens, mean, reason = gradfree.run_builtin(algo, p, x0, 0.3, 5, budget, "{}", stop)
    assert (es.iterations, es.evaluations) == (gens, evals)
    assert list(es.stop()) == [reason]
    assert es.fbest == best_f and np.array_equal(es.xbest, best_x) and np.array_equal(es.mean, mean)


def test_default_stop_rules_follow_pycma_and_can_be_switched_off():
    es = gradfree.CMAES(np.ones(10), 0.5, seed=1)
    lam = es.popsize
    assert es.stop_rules == {
        "max_evals": 100000, "max_gens": None, "target": None, "max_seconds": None, "tol_fun": 1e-11,
        "tol_fun_window": 10 + -(-30 * 10 // lam), "tol_x": 1e-11, "tol_flat": 1,
        "tol_stagnation": 100 + int(np.ceil(100 * 10 ** 1.5 / lam)), "tol_condition": 1e14, "tol_diverge": 1e12}
    es = gradfree.CMAES(np.ones(10), 0.5, {"tolfun": 1e-8, "tolflatfitness": 3, "maxiter": 50}, seed=1, tol_x=False)
    r = es.stop_rules
    assert (r["tol_fun"], r["tol_flat"], r["max_gens"], r["tol_x"]) == (1e-8, 3, 50, None)
    off = gradfree.CMAES(np.ones(10), 0.5, seed=1, convergence=False).stop_rules
    assert all(off[k] is None for k in ("tol_fun", "tol_x", "tol_flat", "tol_stagnation", "tol_condition", "tol_diverge"))
    # Restarts judge convergence themselves: the run-level rules stay off.
    assert gradfree.CMAES(np.ones(10), 0.5, seed=1, restarts=True).stop_rules["tol_x"] is None
    # Discrete searches: no convergence rule by default (their values plateau for long).
    r = gradfree.BernoulliINGO(10, seed=1).stop_rules
    assert r["tol_flat"] is None and r["tol_fun"] is None and r["tol_stagnation"] is None
    assert gradfree.BernoulliINGO(10, seed=1, tol_fun=1e-3).stop_rules["tol_fun"] == 1e-3
    with pytest.raises(E.InvalidParameterError, match="tol_flat"):
        gradfree.CMAES(np.ones(3), 0.5, tol_flat=-1)
    with pytest.raises(E.InvalidParameterError, match="options"):
        gradfree.CMAES(np.ones(3), 0.5, 7)


def test_minimize_stops_on_convergence_and_reports_success_as_scipy():
    """A 10-d quadratic: the run stops long before the default budget, success True; with an
    unreachable target the same run is not a success."""
    f = lambda x: float(np.sum(x ** 2))
    for method in ["cmaes", "xnes", "ingo", "fast-ingo"]:
        r = gradfree.minimize(f, np.ones(10), method=method, seed=3)
        assert r.success and r.stop in ("tol_fun", "tol_x") and r.fun < 1e-9, (method, r.stop, r.fun)
        assert r.nfev < 50000, (method, r.nfev)
        assert "converged" in r.message
    r = gradfree.minimize(f, np.ones(10), method="cmaes", seed=3, target=-1.0)
    assert not r.success and r.fun < 1e-9


def test_mines_and_random_search_do_not_blow_up_on_a_badly_scaled_quadratic():
    """With the papers' constant steps both diverge (stop ``diverged``); the default backtracking
    keeps them descending."""
    f = gradfree.Problem("ellipsoid", 12)
    x0 = np.linspace(0.3, 0.85, 12)
    f0 = float(f.evaluate(x0[None, :])[0])
    for cls in [gradfree.MiNES, gradfree.NesterovSpokoiny]:
        es = _loop(cls(x0, 0.5, seed=2, max_evals=30000, step_control="none"), f)
        assert es.stop() == {"diverged": True}, cls
        assert "diverged" in es.stop_message
        es = _loop(cls(x0, 0.5, seed=2, max_evals=30000), f)
        assert "diverged" not in es.stop() and es.fbest < 1e-2 * f0, (cls, es.stop(), es.fbest)
        assert any(kind == "step-rejected" for kind, _ in es.events())


def test_optimize_and_options_dict_as_pycma():
    f = lambda x, a: float(np.sum((x - a) ** 2))
    seen = []
    es = gradfree.CMAES(np.zeros(5), 0.5, {"seed": 4, "maxfevals": 2000, "ftarget": 1e-10})
    assert es.optimize(f, args=(1.0,), callback=lambda e: seen.append(e.iterations)) is es
    assert es.stop() == {"ftarget": 1e-10} and es.success  # options in pycma's names: pycma's stop names
    assert seen == list(range(1, es.iterations + 1))
    np.testing.assert_allclose(es.xbest, np.ones(5), atol=1e-4)
    es2 = gradfree.CMAES(np.zeros(5), 0.5, seed=4, max_evals=2000, target=1e-10).optimize(f, args=(1.0,))
    assert es2.fbest == es.fbest and es2.iterations == es.iterations
    part = gradfree.CMAES(np.zeros(5), 0.5, seed=4).optimize(f, iterations=3, args=(1.0,))
    assert part.iterations == 3 and not part.stop()


def test_stop_reasons_are_pycma_style_and_ask_after_stop_is_an_error():
    p = gradfree.Problem("sphere", 4)
    es = _loop(gradfree.CMAES(np.ones(4), 0.5, seed=1, tol_fun=1e-9), p)
    assert es.stop() == {"tol_fun": 1e-9}
    with pytest.raises(E.InvalidParameterError, match="stopped \\(tol-f\\)"):
        es.ask()
    es = _loop(gradfree.CMAES(np.ones(4), 0.5, seed=1, max_gens=3), p)
    assert es.stop() == {"max_gens": 3} and es.iterations == 3
    with pytest.raises(E.InvalidParameterError, match="tol_fun"):
        gradfree.CMAES(np.ones(4), 0.5, tol_fun=-1.0)
    with pytest.raises(E.InvalidParameterError, match="target"):
        gradfree.CMAES(np.ones(4), 0.5, target=float("nan"))
    with pytest.raises(E.InvalidParameterError, match="no population is pending"):
        gradfree.CMAES(np.ones(4), 0.5).tell(np.zeros((8, 4)), np.zeros(8))


def test_bounds_repair_points_and_best_point_is_feasible():
    p = gradfree.Problem("sphere", 5)
    # The constrained optimum is the corner x = 1 (f = 5). The default transformation reaches a
    # bound only in the limit; clipping lands on it at once.
    es = gradfree.INGO(np.full(5, 2.0), 3.0, seed=2, bounds=(1.0, 4.0), max_gens=200)
    while not es.stop():
        X = es.ask()
        assert X.min() >= 1.0 and X.max() <= 4.0
        es.tell(X, p.evaluate(X))
    assert np.all(es.xbest >= 1.0) and 0 <= es.fbest - 5.0 < 1e-5 and es.fbest == p(es.xbest)
    clip = gradfree.INGO(np.full(5, 2.0), 3.0, seed=2, bounds=(1.0, 4.0), bounds_handling="clip", max_gens=30)
    while not clip.stop():
        X = clip.ask()
        clip.tell(X, p.evaluate(X))
    assert clip.fbest == 5.0
    ref = gradfree.INGO(np.full(5, 2.0), 3.0, seed=2, bounds=(1.0, 4.0), bounds_handling="reflect", max_gens=3)
    X = ref.ask()
    assert X.min() >= 1.0 and X.max() <= 4.0
    with pytest.raises(E.InvalidParameterError, match="bounds_handling"):
        gradfree.INGO(np.zeros(2), 1.0, bounds=(0, 1), bounds_handling="wrap")
    with pytest.raises(E.InvalidParameterError, match="bounds"):
        gradfree.INGO(np.zeros(2), 1.0, bounds=(1, 0))


def test_pickle_between_ask_and_tell_keeps_the_pending_population():
    p = gradfree.Problem("rosenbrock", 4)
    es = gradfree.XNES(np.zeros(4), 0.5, seed=9, bounds=(-1.0, 1.0))
    for _ in range(5):
        X = es.ask()
        es.tell(X, p.evaluate(X))
    X = es.ask()
    clone = pickle.loads(pickle.dumps(es))
    for run in (es, clone):
        run.tell(X, p.evaluate(X))
        for _ in range(10):
            Y = run.ask()
            run.tell(Y, p.evaluate(Y))
    assert np.array_equal(es.mean, clone.mean) and es.fbest == clone.fbest and es.evaluations == clone.evaluations


def test_classes_and_stubs_follow_the_registry():
    """Adding an algorithm to the Rust registry adds its class here; the stub file must list it."""
    names = [e["name"] for e in gradfree.es.REGISTRY]
    assert names == [a[0] for a in gradfree.algorithms()]
    for e in gradfree.es.REGISTRY:
        cls = getattr(gradfree, e["class_name"])
        assert cls is getattr(gradfree.es, e["class_name"]) and cls.algorithm == e["name"]
        assert e["class_name"] in gradfree.__all__ and e["summary"][1:] in cls.__doc__
        assert issubclass(cls, gradfree.es._DiscreteES) == e["discrete"]
    stub = ast.parse(pathlib.Path(gradfree.es.__file__).with_suffix(".pyi").read_text())
    classes = {n.name: [b.id for b in n.bases] for n in stub.body if isinstance(n, ast.ClassDef)}
    registered = {e["class_name"]: ["_DiscreteES" if e["discrete"] else "_ES"] for e in gradfree.es.REGISTRY}
    assert {k: v for k, v in classes.items() if v in (["_ES"], ["_DiscreteES"]) and not k.startswith("_")} == registered
    public = {n for n in dir(gradfree.es) if not n.startswith("_") and n not in ("annotations", "inspect", "json", "math", "np")}
    stubbed = set(classes) | {n.name for n in stub.body if isinstance(n, ast.FunctionDef)}
    stubbed |= {t.id for n in stub.body if isinstance(n, ast.AnnAssign) for t in [n.target]}
    assert public - {"Callable", "Optional", "Sequence", "namedtuple", "InvalidParameterError", "CheckpointError"} <= stubbed


def _binary():
    from conftest import newest_binary
    exe = newest_binary()
    if exe is None:
        pytest.skip("no gradfree binary under target/ (cargo build first)")
    return exe


def test_lattice_shift_matches_the_cli(tmp_path):
    """Same seed, same shifted points in Python and in `gradfree sample subgroup --random-shift`."""
    out = tmp_path / "pts.npy"
    subprocess.run([str(_binary()), "sample", "--method", "subgroup", "--dim", "10", "--n", "41", "--random-shift", "--seed", "7",
                    "-o", str(out)], check=True, capture_output=True)
    cli = np.load(out)
    py = gradfree.SubgroupLattice(10, 41, seed=7, shift=True).random(41)
    assert cli.shape == py.shape == (41, 10)
    assert np.allclose(cli, py, rtol=0, atol=1e-15)


def test_experiments_run_from_python_match_the_cli(tmp_path):
    """Python lists the CLI's experiments and gets the same tables the CLI writes as CSV."""
    import csv

    names = [e["name"] for e in gradfree.experiments.list()]
    listed = subprocess.run([str(_binary()), "reproduce", "--list"], check=True, capture_output=True, text=True).stdout
    assert names == [line.split()[0] for line in listed.splitlines() if line.strip()]
    rep = gradfree.experiments.run("sphere-coherence", quick=True, out=tmp_path / "py")
    subprocess.run([str(_binary()), "reproduce", "sphere-coherence", "--quick", "--out", str(tmp_path / "cli")], check=True,
                   capture_output=True)
    for table in rep.tables:
        with open(tmp_path / "cli" / "sphere-coherence" / f"{table.slug}.csv", newline="") as fh:
            rows = list(csv.reader(fh))
        assert rows == [table.headers, *table.rows]
    assert rep.figures and rep.figures[0]["kind"] == "charts" and rep.figures[0]["charts"][0]["series"]
    assert "mutual coherence" in str(rep.tables[0]).lower() or rep.tables[0].rows
    with pytest.raises(E.InvalidParameterError, match="unknown experiment `nope`"):
        gradfree.experiments.run("nope", out=tmp_path)
    with pytest.raises(E.InvalidParameterError, match="runs"):
        gradfree.experiments.run("sphere-coherence", runs=0, out=tmp_path)


def test_small_frictions_are_clear_errors(monkeypatch):
    """A 2-D x0 is refused (not flattened); the NaN error names Python's keyword; the BBOB runner
    without COCO says what to install."""
    import sys

    with pytest.raises(E.InvalidParameterError, match=r"x0: expected a 1-D array .* \(2, 3\)"):
        gradfree.CMAES(np.zeros((2, 3)), 0.5)
    es = gradfree.CMAES(np.zeros(3), 0.5, seed=1)
    X = es.ask()
    with pytest.raises(E.NonFiniteError, match='on_nonfinite="treat-as-inf"'):
        es.tell(X, [float("nan")] * len(X))
    monkeypatch.setitem(sys.modules, "cocoex", None)
    from gradfree import coco

    with pytest.raises(SystemExit, match="pip install coco-experiment"):
        coco.main(["--dims", "2"])


def test_sobol_warns_as_scipy_does():
    """Same sequence of draws, same warnings as scipy.stats.qmc.Sobol (only a first draw of a size
    that is not a power of 2 warns)."""
    import warnings

    from scipy.stats import qmc

    for sizes in ([8, 3], [5], [1, 2, 4], [0, 6]):
        caught = []
        for engine in (gradfree.Sobol(2, seed=1), qmc.Sobol(2, seed=1)):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                for n in sizes:
                    engine.random(n)
            caught.append(sum("power of 2" in str(x.message) for x in w))
        assert caught[0] == caught[1], (sizes, caught)
