"""The Python package: pycma-style loop, errors, pickling, and QMC engines against scipy."""
import math
import pickle
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import gradfree


def sphere(x):
    return float(np.dot(x, x))


def run(es, f, gens=None):
    k = 0
    while not es.stop() and (gens is None or k < gens):
        X = es.ask()
        es.tell(X, [f(x) for x in X])
        k += 1
    return es


@pytest.mark.parametrize("cls", [gradfree.INGO, gradfree.CMAES, gradfree.FastINGO])
def test_es_solves_sphere_and_is_reproducible(cls):
    a = run(cls(np.full(10, 0.7), 0.5, seed=3, target=1e-8, max_evals=60000), sphere)
    b = run(cls(np.full(10, 0.7), 0.5, seed=3, target=1e-8, max_evals=60000), sphere)
    assert a.result.fbest <= 1e-8
    assert "target" in a.stop()
    assert a.result.fbest == b.result.fbest and a.evaluations == b.evaluations
    c = run(cls(np.full(10, 0.7), 0.5, seed=4, target=1e-8, max_evals=60000), sphere)
    assert c.evaluations != a.evaluations or c.result.fbest != a.result.fbest


def test_bad_input_raises_value_error_naming_the_problem():
    es = gradfree.INGO(np.zeros(4), 0.5, seed=1)
    X = es.ask()
    with pytest.raises(ValueError, match=r"expected shape \(\d+, 4\)"):
        es.tell(X[:, :3], np.zeros(len(X)))
    with pytest.raises(ValueError, match="not finite|NaN|nan"):
        es.tell(X, [math.nan] + [1.0] * (len(X) - 1))
    with pytest.raises(ValueError, match="unknown algorithm|popsize|beta"):
        gradfree.INGO(np.zeros(3), 0.5, beta=2.0)
    with pytest.raises(ValueError):
        gradfree.INGO(np.zeros(3), 0.5, nonsense=1)


def test_pickle_continues_identically():
    es = run(gradfree.INGO(np.full(6, 0.4), 0.5, seed=7), sphere, gens=15)
    clone = pickle.loads(pickle.dumps(es))
    run(es, sphere, gens=20)
    run(clone, sphere, gens=20)
    assert np.array_equal(es.mean, clone.mean)
    assert es.result.fbest == clone.result.fbest


def test_minimize_with_executor_bounds_and_exceptions():
    with ThreadPoolExecutor(2) as pool:
        r = gradfree.minimize(sphere, np.full(8, 2.0), method="cmaes", seed=2, target=1e-10, executor=pool)
    assert r.success and r.fun <= 1e-10 and r.nfev > 0
    r = gradfree.minimize(lambda x: float(np.sum((x - 3.0) ** 2)), np.zeros(3), seed=1, bounds=([-1] * 3, [1] * 3),
                          max_evals=4000)
    assert np.all(np.abs(r.x) <= 1.0) and abs(r.fun - 12.0) < 1e-3

    class Boom(RuntimeError):
        pass

    def f(x):
        raise Boom("objective failed")

    with pytest.raises(Boom, match="objective failed"):
        gradfree.minimize(f, np.zeros(3))
    with pytest.raises(ValueError, match="method"):
        gradfree.minimize(sphere, np.zeros(3), method="nope")


def test_qmc_engines_match_scipy():
    qmc = pytest.importorskip("scipy.stats.qmc")
    ours = gradfree.Sobol(7, scramble=False).random(64)
    assert np.array_equal(ours, qmc.Sobol(d=7, scramble=False).random(64))
    ours = gradfree.Halton(5, scramble=False).random(50)
    np.testing.assert_allclose(ours, qmc.Halton(d=5, scramble=False).random(50), rtol=0, atol=1e-15)
    e = gradfree.Sobol(3, seed=5)
    first = e.random(8)
    e.reset().fast_forward(4)
    assert np.array_equal(e.random(4), first[4:])
    assert np.array_equal(gradfree.Sobol(3, seed=5).random(8), first)
    # Scrambled points are balanced and still a net: each 1-D projection is stratified.
    pts = gradfree.Sobol(4, seed=9).random(256)
    for j in range(4):
        assert sorted((pts[:, j] * 256).astype(int)) == list(range(256))


def test_lattices():
    lat = gradfree.SubgroupLattice(50, 101)
    assert abs(lat.min_distance("l1") - 12.624) < 5e-4  # thesis Table 5.1
    assert abs(lat.min_distance("l2") - 2.0513) < 5e-5  # thesis Table 5.2
    pts = lat.random(101)
    assert pts.shape == (101, 50) and np.all(pts[0] == 0)
    with pytest.raises(ValueError, match="left"):
        lat.random(1)
    with pytest.raises(ValueError, match="admissible"):
        gradfree.SubgroupLattice(10, 1000)
    k = gradfree.KorobovLattice(50, 1601, metric="l2")
    assert abs(k.min_distance("l2") - 1.8356) < 5e-5  # thesis Table 5.2, Korobov row
    shifted = gradfree.SubgroupLattice(10, 41, seed=1, shift=True).random(41)
    assert np.all((shifted >= 0) & (shifted < 1))
