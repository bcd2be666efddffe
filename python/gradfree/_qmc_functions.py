"""The lattice functions and discrepancies of :mod:`gradfree.qmc` (re-exported there): subgroup
and Korobov generating vectors, the thesis' lattice searches, minimum toroidal distances and
scipy's discrepancies."""
from __future__ import annotations

from typing import Optional

import numpy as np

from . import _gradfree, _util
from .errors import InvalidParameterError


def _metric(metric) -> str:
    if not isinstance(metric, str) or metric not in ("l1", "l2"):
        raise InvalidParameterError(f"metric = {metric!r}: expected 'l1' or 'l2'")
    return metric


def subgroup_vector(d: int, n: int) -> list:
    """The generating vector of the subgroup rank-1 lattice (Lyu's thesis, Thm. 13, eq. 5.14).

    Parameters
    ----------
    d : int
        Dimension.
    n : int
        A prime with ``2d | n - 1``.

    Returns
    -------
    list of int
        ``z`` of length ``d``.
    """
    return _gradfree.subgroup_vector(_util.count("d", d, 1), _util.count("n", n, 1))


def korobov(d: int, n: int, metric: str = "l2") -> tuple:
    """Exhaustive search of the Korobov vector ``z = (1, a, a^2, ...) mod n`` with the largest
    minimum toroidal distance (Korobov 1959; thesis sec. 5.5), symmetry-reduced and parallel.
    Stops with ``KeyboardInterrupt`` on Ctrl-C.

    Parameters
    ----------
    d : int
        Dimension.
    n : int
        Number of points.
    metric : {"l1", "l2"}, default "l2"

    Returns
    -------
    (a, z, distance) : (int, list of int, float)
    """
    return _gradfree.korobov(_util.count("d", d, 1), _util.count("n", n, 1), _metric(metric))


def min_distance(z, n: int, metric: str = "l2") -> float:
    """Minimum toroidal distance between distinct points of the rank-1 lattice ``(z, n)``, exactly,
    in O(n d) (thesis eq. 5.8-5.9).

    Parameters
    ----------
    z : sequence of int
        Generating vector.
    n : int
        Number of points.
    metric : {"l1", "l2"}, default "l2"

    Returns
    -------
    float
    """
    return _gradfree.min_distance(z, _util.count("n", n, 1), _metric(metric))


def lattice_search(d: int, n: int, method: str = "alg10", primes: Optional[int] = None, sweeps: Optional[int] = None,
                   top: Optional[int] = None) -> tuple:
    """A generating vector of large l2 packing distance from the searches of Lyu's thesis (sec. 4.6).

    Parameters
    ----------
    d : int
        Dimension.
    n : int
        Number of points.
    method : {"alg10", "alg11"}, default "alg10"
        Algorithm 10 (cos-based candidates over ``primes`` primes) or Algorithm 11 (Algorithm
        10's ``top`` best vectors refined by ``sweeps`` sweeps of successive coordinate search).
    primes, sweeps, top : int, optional
        Search sizes (default: the thesis' M = 50 primes, T = 3 sweeps, and SCS from the 64 best
        Algorithm 10 vectors; the library's ``SearchSpec``).

    Returns
    -------
    (z, distance) : (list of int, float)
    """
    sizes = [None if v is None else _util.count(name, v, lo) for name, v, lo in (("primes", primes, 1), ("sweeps", sweeps, 0), ("top", top, 1))]
    if not isinstance(method, str) or method not in ("alg10", "alg11"):
        raise InvalidParameterError(f"method = {method!r}: expected 'alg10' or 'alg11'")
    return _gradfree.lattice_search(_util.count("d", d, 1), _util.count("n", n, 1), method, *sizes)


def discrepancy(sample, method: str = "CD", *, iterative: bool = False, workers: int = 1) -> float:
    """The L2-type discrepancy of a sample in ``[0, 1]^d``, as ``scipy.stats.qmc.discrepancy``
    (same keyword arguments, errors and values; ``method`` may also be given second, by position):
    "CD" centered and "WD" wrap-around (Hickernell 1998), "MD"
    mixture (Zhou, Fang & Ning 2013, eq. 18), squared as scipy returns them, and "L2-star"
    (Warnock 1972), not squared, as scipy returns it. ``O(n^2 d)`` in Rust.

    Parameters
    ----------
    sample : array_like, shape (n, d)
        Points in the unit cube.
    iterative : bool, default False
        Normalize as if the sample had ``n + 1`` points (scipy's convention, for scoring a point
        about to be added).
    method : {"CD", "WD", "MD", "L2-star"}, default "CD"
    workers : int, default 1
        Threads; ``-1`` uses every core. The value does not depend on it.

    Returns
    -------
    float

    Raises
    ------
    InvalidParameterError
        (a ``ValueError``) for a sample that is not a 2-D array or not in the unit cube, an unknown
        method, or ``workers`` not ``-1`` or >= 1.
    """
    sample = np.asarray(sample, dtype=np.float64)
    if sample.ndim != 2:
        raise InvalidParameterError(f"Sample is not a 2D array (sample: shape {sample.shape})")
    if not (np.all(sample >= 0.0) and np.all(sample <= 1.0)):  # NaN fails too
        raise InvalidParameterError("Sample is not in unit hypercube (sample: every value must be in [0, 1])")
    if method not in ("CD", "WD", "MD", "L2-star"):
        raise InvalidParameterError(f"{method!r} is not a valid method. It must be one of {{'CD', 'L2-star', 'MD', 'WD'}}")
    if isinstance(workers, (bool, np.bool_)) or not isinstance(workers, (int, np.integer)):
        raise InvalidParameterError(f"workers: expected -1 or an integer >= 1, got {workers!r}")
    return _gradfree.discrepancy(np.ascontiguousarray(sample), method, bool(iterative), int(workers))


for _f in (subgroup_vector, korobov, min_distance, lattice_search, discrepancy):
    _f.__module__ = "gradfree.qmc"      # their public home
