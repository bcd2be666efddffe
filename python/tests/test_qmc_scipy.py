"""The QMC engines are scipy.stats.qmc engines: subclasses of QMCEngine that scipy's own
tools accept, with scipy's random_base2, integers, reset/fast_forward and rng=, checked point for
point against scipy where the points are defined without randomness."""
import warnings

import numpy as np
import pytest
from scipy.stats import qmc

import gradfree
from gradfree.errors import InvalidParameterError


def test_engines_are_qmc_engines_that_scipy_accepts():
    for eng in [gradfree.Sobol(2, seed=1), gradfree.Halton(2, seed=1), gradfree.SubgroupLattice(2, 1021, seed=1, shift=True)]:
        assert isinstance(eng, qmc.QMCEngine)
    normal = qmc.MultivariateNormalQMC(mean=[1.0, -2.0], cov=[[1.0, 0.5], [0.5, 2.0]], engine=gradfree.Sobol(2, seed=3))
    x = normal.random(4096)
    assert x.shape == (4096, 2)
    np.testing.assert_allclose(x.mean(axis=0), [1.0, -2.0], atol=0.01)
    np.testing.assert_allclose(np.cov(x.T), [[1.0, 0.5], [0.5, 2.0]], atol=0.03)
    # scipy's own helpers on our points.
    pts = gradfree.Sobol(3, seed=1).random_base2(8)
    assert qmc.discrepancy(pts) == pytest.approx(gradfree.qmc.discrepancy(pts), rel=1e-12)
    assert qmc.scale(pts, [0, 0, 0], [2, 3, 4]).max() < 4


def test_unscrambled_points_random_base2_and_integers_match_scipy():
    ours, theirs = gradfree.Sobol(5, scramble=False), qmc.Sobol(5, scramble=False)
    np.testing.assert_array_equal(ours.random_base2(4), theirs.random_base2(4))
    np.testing.assert_array_equal(ours.random_base2(4), theirs.random_base2(4))
    assert ours.num_generated == theirs.num_generated == 32
    np.testing.assert_array_equal(ours.integers([0, 1, 2, 3, 4], u_bounds=10, n=32), theirs.integers([0, 1, 2, 3, 4], u_bounds=10, n=32))
    np.testing.assert_array_equal(ours.integers(7, n=16, endpoint=True), theirs.integers(7, n=16, endpoint=True))
    ours.reset(), theirs.reset()
    ours.fast_forward(5), theirs.fast_forward(5)
    np.testing.assert_array_equal(ours.random(3), theirs.random(3))
    h_ours, h_theirs = gradfree.Halton(4, scramble=False), qmc.Halton(4, scramble=False)
    np.testing.assert_allclose(h_ours.random(50), h_theirs.random(50), rtol=0, atol=1e-15)


def test_unscrambled_halton_is_correctly_rounded_and_within_2_ulp_of_scipy():
    """Our radical inverses are the exact fractions rounded once; scipy adds digit terms in floating
    point (``v += r * b2r; b2r /= b``), which may round several times: we keep the exact value
    and document the difference."""
    from fractions import Fraction

    n, d = 2000, 6
    ours = gradfree.Halton(d, scramble=False).random(n)
    theirs = qmc.Halton(d, scramble=False).random(n)
    primes = [2, 3, 5, 7, 11, 13]
    for i in range(0, n, 7):
        for j, b in enumerate(primes):
            k, num, den = i, 0, 1
            while k:
                num, den, k = num * b + k % b, den * b, k // b
            assert ours[i, j] == float(Fraction(num, den)), (i, j)
    ulps = np.abs(ours - theirs) / np.spacing(np.maximum(np.abs(ours), np.abs(theirs)))
    assert ulps.max() <= 2 and (ulps > 0).mean() > 0.05


def test_random_base2_refuses_what_scipy_refuses_and_warns_as_scipy():
    ours, theirs = gradfree.Sobol(2, seed=1), qmc.Sobol(2, rng=1)
    with warnings.catch_warnings(record=True) as w_ours:
        warnings.simplefilter("always")
        ours.random(3)
    with warnings.catch_warnings(record=True) as w_theirs:
        warnings.simplefilter("always")
        theirs.random(3)
    assert [str(w.message) for w in w_ours] == [str(w.message) for w in w_theirs]
    with pytest.raises(ValueError, match="power of 2"):
        theirs.random_base2(2)
    with pytest.raises(InvalidParameterError, match="power of 2"):
        ours.random_base2(2)
    assert ours.num_generated == 3


def test_rng_is_scipys_argument_and_seed_gradfrees():
    a = gradfree.Sobol(3, rng=np.random.default_rng(7)).random(8)
    b = gradfree.Sobol(3, rng=np.random.default_rng(7)).random(8)
    c = gradfree.Sobol(3, rng=np.random.default_rng(8)).random(8)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    # rng=n means rng=default_rng(n), as in scipy; so do a SeedSequence and a BitGenerator.
    for E in (gradfree.Sobol, gradfree.Halton):
        want = E(2, rng=np.random.default_rng(5)).random(4)
        np.testing.assert_array_equal(E(2, rng=5).random(4), want)
        np.testing.assert_array_equal(E(2, rng=np.random.SeedSequence(5)).random(4), want)
        np.testing.assert_array_equal(E(2, rng=np.random.PCG64(5)).random(4), want)
    # seed=n in [0, 2**64) seeds the Rust generator itself (the CLI's --seed); beyond, any
    # non-negative integer is accepted, as scipy accepts it.
    assert gradfree.Sobol(2, seed=5).seed == 5 and not np.array_equal(gradfree.Sobol(2, seed=5).random(4), gradfree.Sobol(2, rng=5).random(4))
    for big in (2**64, 2**200):
        np.testing.assert_array_equal(gradfree.Sobol(2, rng=big).random(4), gradfree.Sobol(2, rng=np.random.default_rng(big)).random(4))
        assert qmc.Sobol(2, rng=big).random(4).shape == gradfree.Sobol(2, seed=big).random(4).shape == (4, 2)
    with pytest.raises(TypeError, match="rng"):
        gradfree.Sobol(2, seed=1, rng=1)
    with pytest.raises(TypeError):
        qmc.Sobol(2, seed=1, rng=1)
    with pytest.raises(InvalidParameterError, match="rng"):
        gradfree.Sobol(2, rng="x")
    with pytest.raises(InvalidParameterError, match="seed"):
        gradfree.Halton(2, seed=-1)


def test_zero_dimensions_give_empty_columns_as_in_scipy():
    for ours, theirs in [(gradfree.Sobol(0, rng=1), qmc.Sobol(0, rng=1)), (gradfree.Halton(0, rng=1), qmc.Halton(0, rng=1))]:
        assert ours.random(4).shape == theirs.random(4).shape == (4, 0)
        assert ours.num_generated == theirs.num_generated == 4
        assert ours.reset().random(2).shape == (2, 0)


def test_engines_pickle_and_deepcopy_and_continue_from_the_same_point():
    import copy
    import pickle
    engines = [gradfree.Sobol(3, seed=4), gradfree.Sobol(3, seed=4, method="owen"), gradfree.Sobol(2, scramble=False), gradfree.Halton(3, seed=4),
               gradfree.SubgroupLattice(2, 1021, seed=1, shift=True), gradfree.Sobol(0, seed=1)]
    for e in engines:
        e.random(4)
        twins = [pickle.loads(pickle.dumps(e)), copy.deepcopy(e)]
        want = e.random(8)
        for t in twins:
            assert type(t) is type(e) and t.num_generated == 4 and t.seed == e.seed
            np.testing.assert_array_equal(t.random(8), want)
        # The copies are independent of the original.
        twins[1].reset()
        assert e.num_generated == 12


def test_discrepancy_has_scipys_methods_arguments_and_errors():
    x = gradfree.Sobol(3, seed=2).random(64)
    for method in ("CD", "WD", "MD", "L2-star"):
        for iterative in (False, True):
            want = qmc.discrepancy(x, method=method, iterative=iterative)
            for workers in (1, 2, -1):
                got = gradfree.discrepancy(x, method=method, iterative=iterative, workers=workers)
                assert got == pytest.approx(want, rel=1e-12, abs=1e-13), (method, iterative, workers)  # WD cancels ~1
    for bad, match in [(x[:, 0], "not a 2D array"), (x + 0.5, "not in unit hypercube")]:
        with pytest.raises(ValueError, match=match):
            qmc.discrepancy(bad)
        with pytest.raises(InvalidParameterError, match=match):
            gradfree.discrepancy(bad)
    # scipy returns NaN for a sample with NaN; we say why instead.
    assert np.isnan(qmc.discrepancy(np.full((3, 2), np.nan)))
    with pytest.raises(InvalidParameterError, match="not in unit hypercube"):
        gradfree.discrepancy(np.full((3, 2), np.nan))
    with pytest.raises(ValueError, match="not a valid method"):
        qmc.discrepancy(x, method="cd")
    with pytest.raises(InvalidParameterError, match="not a valid method"):
        gradfree.discrepancy(x, method="cd")
    with pytest.raises(InvalidParameterError, match="workers"):
        gradfree.discrepancy(x, workers=0)


def test_sobol_bits_and_maxdim_as_in_scipy():
    assert gradfree.Sobol.MAXDIM == qmc.Sobol.MAXDIM == 21201
    assert gradfree.Sobol(2).bits == 32 and gradfree.Sobol(2, bits=10).bits == 10
    np.testing.assert_array_equal(gradfree.Sobol(4, scramble=False, bits=10).random(1024), qmc.Sobol(4, scramble=False, bits=10).random(1024))
    # bits-bit points stay a net: 2^6 scrambled points are multiples of 2^-6 and fill every
    # interval of length 2^-6 once in each coordinate, and every 2^-3 x 2^-3 box of each pair once.
    for method in ("lms-shift", "owen"):
        x = gradfree.Sobol(3, seed=1, method=method, bits=6).random_base2(6)
        k = (x * 64).astype(int)
        assert np.array_equal(k, x * 64)
        for j in range(3):
            assert len(set(k[:, j])) == 64
        for a, b in [(0, 1), (0, 2), (1, 2)]:
            assert len(set(zip(k[:, a] // 8, k[:, b] // 8))) == 64
    ours, theirs = gradfree.Sobol(2, bits=3, seed=1), qmc.Sobol(2, bits=3, rng=1)
    for e in (ours, theirs):
        with pytest.raises(ValueError, match=r"At most 2\*\*3=8 distinct points"):
            e.random(9)
        assert e.random(8).shape == (8, 2)
    # Up to scipy's 64 bits: the unscrambled points are scipy's, scrambled ones use digits below
    # 2^-32 (as scipy's do) while their first 32 digits are the 32-bit engine's, all below 1.
    np.testing.assert_array_equal(gradfree.Sobol(5, scramble=False, bits=64).random(512), qmc.Sobol(5, scramble=False, bits=64).random(512))
    for method in ("lms-shift", "owen"):
        fine, coarse = gradfree.Sobol(4, seed=3, method=method, bits=64).random(256), gradfree.Sobol(4, seed=3, method=method).random(256)
        assert np.mean(fine * 2.0**32 % 1 != 0) > 0.95
        np.testing.assert_array_equal(np.floor(fine * 2.0**32), coarse * 2.0**32)
        assert fine.max() < 1.0 and fine.min() >= 0.0
        x = gradfree.Sobol(3, seed=3, method=method, bits=40).random(64)
        assert np.array_equal(np.floor(x * 2.0**40), x * 2.0**40)
    for bad in (65, 0):
        with pytest.raises(InvalidParameterError, match="bits"):
            gradfree.Sobol(2, bits=bad)
    with pytest.raises(ValueError, match="bits"):
        gradfree.Sobol(2, bits=65)
    with pytest.raises(InvalidParameterError, match="MAXDIM"):
        gradfree.Sobol(21202)


def test_optimization_as_scipy():
    """``optimization=``: "random-cd" lowers the centered discrepancy about as much as scipy's,
    "lloyd" spreads the points (larger smallest L1 distance), a reset engine repeats itself, the
    option survives pickling, and unknown names raise scipy's ValueError."""
    import pickle

    from scipy.spatial import distance

    plain = gradfree.Halton(3, seed=5).random(64)
    cd = gradfree.Halton(3, seed=5, optimization="random-cd")
    opt = cd.random(64)
    assert qmc.discrepancy(opt) < qmc.discrepancy(plain)
    ref = qmc.Halton(3, rng=5, optimization="random-cd").random(64)
    assert qmc.discrepancy(opt) < 1.5 * qmc.discrepancy(ref)
    assert np.array_equal(np.sort(opt, axis=0), np.sort(plain, axis=0))  # coordinates only swapped
    assert np.array_equal(cd.reset().random(64), opt)
    clone = pickle.loads(pickle.dumps(gradfree.Sobol(2, seed=1, optimization="lloyd")))
    assert clone.optimization_method is not None
    lloyd = gradfree.Sobol(2, seed=1, optimization="lloyd").random(64)
    assert np.all((lloyd >= 0) & (lloyd <= 1))
    assert distance.pdist(lloyd, "cityblock").min() > distance.pdist(gradfree.Sobol(2, seed=1).random(64), "cityblock").min()
    assert gradfree.Sobol(2, seed=1, optimization="LLOYD").random(4).shape == (4, 2)
    for E, S in [(gradfree.Sobol, qmc.Sobol), (gradfree.Halton, qmc.Halton)]:
        with pytest.raises(ValueError) as ours:
            E(2, optimization="annealing")
        with pytest.raises(ValueError) as theirs:
            S(2, optimization="annealing")
        assert str(ours.value) == str(theirs.value)
