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


def test_rng_is_scipys_name_for_the_seed():
    a = gradfree.Sobol(3, rng=np.random.default_rng(7)).random(8)
    b = gradfree.Sobol(3, rng=np.random.default_rng(7)).random(8)
    c = gradfree.Sobol(3, rng=np.random.default_rng(8)).random(8)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    np.testing.assert_array_equal(gradfree.Halton(2, rng=5).random(4), gradfree.Halton(2, seed=5).random(4))
    with pytest.raises(InvalidParameterError, match="rng"):
        gradfree.Sobol(2, seed=1, rng=1)
    with pytest.raises(InvalidParameterError, match="seed"):
        gradfree.Sobol(2, rng="x")
