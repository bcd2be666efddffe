"""Quasi-Monte Carlo: Sobol and Halton engines with scipy.stats.qmc's interface, rank-1
lattices (subgroup, Korobov, searched), their quality measures, and discrepancies."""
from __future__ import annotations

import warnings
from typing import Optional

import numpy as np

from . import _gradfree, _util
from ._gradfree import discrepancy, korobov, lattice_search, min_distance, subgroup_vector
from .errors import InvalidParameterError

__all__ = ["Sobol", "Halton", "Rank1Lattice", "SubgroupLattice", "KorobovLattice", "SearchedLattice", "discrepancy",
           "korobov", "lattice_search", "min_distance", "subgroup_vector"]


class _Engine:
    """scipy.stats.qmc.QMCEngine-style wrapper."""

    def __init__(self, engine, seed: int):
        self._e = engine
        self.seed = seed

    @property
    def d(self) -> int:
        return self._e.d

    @property
    def num_generated(self) -> int:
        return self._e.num_generated

    def random(self, n: int = 1) -> np.ndarray:
        return self._e.random(int(n))

    def reset(self):
        self._e.reset()
        return self

    def fast_forward(self, n: int):
        self._e.fast_forward(int(n))
        return self


class Sobol(_Engine):
    """Sobol points (Joe-Kuo direction numbers, up to 21201 dimensions). ``scramble=True``: linear
    matrix scrambling + digital shift (scipy's default), or ``method="owen"``."""

    def __init__(self, d: int, scramble: bool = True, seed: Optional[int] = None, method: str = "lms-shift"):
        if method not in ("lms-shift", "owen"):
            raise InvalidParameterError(f"method {method!r}: expected 'lms-shift' or 'owen'")
        s = _util.seed(seed)
        super().__init__(_gradfree.Engine("sobol", int(d), s, method if scramble else "none"), s)

    def random(self, n: int = 1) -> np.ndarray:
        """The next ``n`` points, shape ``(n, d)``. As scipy's ``Sobol.random``, warns when the first
        draw is not a power of 2 (the balance properties of Sobol points need ``n = 2^m``)."""
        n = int(n)
        if self.num_generated == 0 and n & (n - 1) != 0:
            warnings.warn("The balance properties of Sobol' points require n to be a power of 2.", stacklevel=2)
        return super().random(n)


class Halton(_Engine):
    """Halton points; ``scramble=True`` applies random digit permutations."""

    def __init__(self, d: int, scramble: bool = True, seed: Optional[int] = None):
        s = _util.seed(seed)
        super().__init__(_gradfree.Engine("halton", int(d), s, "permutation" if scramble else "none"), s)


class Rank1Lattice:
    """The rank-1 lattice ``{i z / n mod 1 : i < n}`` (any generating vector ``z``) as a QMC engine
    over its ``n`` points, with an optional uniform random shift (thesis eq. 5.4) drawn from
    ``seed`` by the Rust generator: the same points as ``gradfree sample lattice --random-shift
    --seed SEED``."""

    def __init__(self, z, n: int, seed: Optional[int] = None, shift: bool = False):
        self.z, self.n = [int(v) for v in z], int(n)
        self.seed = _util.seed(seed)
        self.shift = _gradfree.random_shift(self.z, self.n, self.seed) if shift else None
        self._i = 0

    @property
    def d(self) -> int:
        return len(self.z)

    def _check_left(self, n: int) -> None:
        if self._i + n > self.n:
            raise InvalidParameterError(f"n: only {self.n - self._i} of the lattice's {self.n} points are left")

    def random(self, n: int = 1) -> np.ndarray:
        self._check_left(n)
        out = _gradfree.lattice_points(self.z, self.n, self._i, int(n), self.shift)
        self._i += int(n)
        return out

    def reset(self):
        self._i = 0
        return self

    def fast_forward(self, n: int):
        self._check_left(n)
        self._i += int(n)
        return self

    @property
    def num_generated(self) -> int:
        return self._i

    def min_distance(self, metric: str = "l2") -> float:
        """Minimum toroidal ``metric`` ("l1" or "l2") distance between distinct lattice points."""
        return _gradfree.min_distance(self.z, self.n, metric)


class SubgroupLattice(Rank1Lattice):
    """The subgroup rank-1 lattice (thesis Thm. 13, eq. 5.14): n prime with 2d | n - 1."""

    def __init__(self, d: int, n: int, seed: Optional[int] = None, shift: bool = False):
        super().__init__(subgroup_vector(int(d), int(n)), n, seed, shift)


class KorobovLattice(Rank1Lattice):
    """The lattice of an exhaustive Korobov search maximizing the ``metric`` toroidal distance."""

    def __init__(self, d: int, n: int, metric: str = "l2", seed: Optional[int] = None, shift: bool = False):
        self.a, z, _ = korobov(int(d), int(n), metric)
        super().__init__(z, n, seed, shift)


class SearchedLattice(Rank1Lattice):
    """The lattice of the thesis' packing-radius searches (sec. 4.6): ``method="alg10"``
    (Algorithm 10 over ``primes`` primes) or ``"alg11"`` (successive coordinate search, ``sweeps``
    sweeps from Algorithm 10's ``top`` best vectors). ``self.distance`` is its min l2 distance."""

    def __init__(self, d: int, n: int, method: str = "alg10", primes: int = 50, sweeps: int = 3, top: int = 64,
                 seed: Optional[int] = None, shift: bool = False):
        z, self.distance = lattice_search(int(d), int(n), method, int(primes), int(sweeps), int(top))
        super().__init__(z, n, seed, shift)
