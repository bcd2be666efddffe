"""Quasi-Monte Carlo: Sobol and Halton engines with scipy.stats.qmc's interface, rank-1
lattices (subgroup, Korobov, searched), their quality measures, and discrepancies."""
from __future__ import annotations

import warnings
from typing import Optional

import numpy as np

from . import _gradfree, _util
from ._pickling import Checked as _Checked
from ._qmc_functions import _metric, discrepancy, korobov, lattice_search, min_distance, subgroup_vector  # noqa: F401
from .errors import CheckpointError, InvalidParameterError, TooLargeError

__all__ = ["Sobol", "Halton", "Rank1Lattice", "SubgroupLattice", "KorobovLattice", "SearchedLattice", "discrepancy",
           "korobov", "lattice_search", "min_distance", "subgroup_vector"]


try:  # scipy is optional: with it, the engines are scipy.stats.qmc.QMCEngine subclasses.
    from scipy.stats.qmc import QMCEngine as _Base
except ImportError:  # pragma: no cover - exercised only without scipy
    _Base = object

_SOBOL_BALANCE = "The balance properties of Sobol' points require n to be a power of 2."


def _seed_of(seed, rng) -> int:
    """The 64-bit seed of the Rust generator from ``seed`` or scipy's ``rng``.

    ``rng`` follows scipy (``numpy.random.default_rng(rng)`` is the generator, so ``rng=n`` and
    ``rng=numpy.random.default_rng(n)`` give the same points): an integer >= 0 of any size, a
    ``SeedSequence``, a ``BitGenerator`` or a ``Generator`` yields one 64-bit seed drawn from that
    generator; ``None`` draws from the OS. ``seed`` is gradfree's own name: an integer in
    ``[0, 2**64)`` is the Rust generator's seed itself (the points ``gradfree sample --seed`` gives),
    a larger integer or a numpy object is treated as for ``rng``. Both together is a ``TypeError``,
    as in scipy."""
    if rng is not None and seed is not None:
        raise TypeError("seed, rng: give one of them, not both (rng is scipy's name; seed is gradfree's)")
    name, value = ("rng", rng) if rng is not None else ("seed", seed)
    if value is None:
        return _util.seed(None)
    if isinstance(value, np.random.RandomState):
        return int(value.randint(0, 2 ** 31)) << 32 | int(value.randint(0, 2 ** 31))
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        if value < 0:
            raise InvalidParameterError(f"{name}: expected an integer >= 0, a numpy Generator, BitGenerator or SeedSequence, "
                                        f"or None, got {value!r}")
        if name == "seed" and value < 1 << 64:
            return int(value)
        value = np.random.default_rng(int(value))
    elif isinstance(value, (np.random.SeedSequence, np.random.BitGenerator)):
        value = np.random.default_rng(value)
    if isinstance(value, np.random.Generator):
        return int(value.integers(0, 2 ** 63, dtype=np.int64)) * 2 + int(value.integers(0, 2))
    raise InvalidParameterError(f"{name}: expected an integer >= 0, a numpy Generator, BitGenerator or SeedSequence, "
                                f"or None, got {value!r}")


def _count(n) -> int:
    return _util.count("n", n, 0)


class _EmptyEngine:
    """The points of a 0-dimensional engine (scipy returns arrays of shape ``(n, 0)``)."""

    def __init__(self):
        self.num_generated = 0

    def random(self, k: int) -> np.ndarray:
        self.num_generated += k
        return np.empty((k, 0))

    def reset(self) -> None:
        self.num_generated = 0

    def fast_forward(self, k: int) -> None:
        self.num_generated += k


#: scipy.stats.qmc's post-processing methods (``optimization=``).
_OPTIMIZATIONS = ("random-cd", "lloyd")


def _optimization(optimization):
    """scipy's check of ``optimization``: None or one of :data:`_OPTIMIZATIONS` (any case)."""
    if optimization is None:
        return None
    name = optimization.lower() if isinstance(optimization, str) else None
    if name not in _OPTIMIZATIONS:
        raise ValueError(f"{optimization!r} is not a valid optimization method. It must be one of {set(_OPTIMIZATIONS)!r}")
    return name


#: Values per piece of a large draw (8 MB; Owen-scrambled Sobol points: about 0.15 s of one core).
_PIECE = 1 << 20


def _sequence(kind: str, d: int, seed: int, scramble: str, bits: int = 32):
    """The Rust engine of a Sobol or Halton sequence (a pure-Python one for ``d = 0``)."""
    return _EmptyEngine() if d == 0 else _gradfree.Engine(kind, d, seed, scramble, bits)


class _Engine(_Checked, _Base):
    """A QMC engine with ``scipy.stats.qmc.QMCEngine``'s interface (``random``, ``integers``,
    ``reset``, ``fast_forward``, ``d``, ``num_generated``); a ``QMCEngine`` subclass when scipy
    is installed, so it works wherever scipy takes an engine (e.g.
    ``scipy.stats.qmc.MultivariateNormalQMC(mean, engine=gradfree.Sobol(2))``)."""

    def __init__(self, engine, d: int, seed: int, recipe=None, optimization=None):
        # QMCEngine.__init__ is not called: the state (points drawn, randomization) lives in Rust.
        self._e = engine
        self.d = d
        self.seed = seed
        self._optimization = _optimization(optimization)
        self.optimization_method = self._optimize if self._optimization else None
        # The arguments of _sequence that rebuild a Rust engine when unpickled (None: the engine
        # is a Python object that pickles itself).
        self._recipe = recipe

    # Pickles are checked (gradfree._pickling: format, class, version, checksum), then the recipe.
    def _pickle_state(self) -> dict:
        # The Rust engine is rebuilt from its recipe and fast-forwarded: same randomization, same
        # next point (pickle and copy.deepcopy).
        state = self.__dict__.copy()
        state.pop("optimization_method", None)     # a bound method of self: rebuilt on load
        if self._recipe is not None:
            state["_e"] = self.num_generated
        return state

    def _unpickle_state(self, state: dict) -> None:
        recipe = state.get("_recipe")
        if recipe is not None:
            # The recipe (kind, d, seed, ...) rebuilds the engine; the attributes must say the same.
            if not (isinstance(recipe, tuple) and len(recipe) >= 4 and isinstance(recipe[1], int) and recipe[1] >= 0
                    and state.get("d") == recipe[1]
                    and state.get("seed") == recipe[2] and isinstance(state.get("_e"), int) and state["_e"] >= 0):
                raise CheckpointError("not a valid engine state: its d, seed or point count disagree with the sequence "
                                      "it rebuilds (the pickle was edited or damaged)")
        self.__dict__.update(state)
        self.optimization_method = self._optimize if self.__dict__.get("_optimization") else None
        if self._recipe is not None:
            drawn, self._e = self._e, _sequence(*self._recipe)
            self._e.fast_forward(drawn)

    @property
    def num_generated(self) -> int:
        """Points drawn since construction or the last ``reset``."""
        return self._e.num_generated

    @num_generated.setter
    def num_generated(self, value) -> None:  # scipy's base class assigns it; the Rust engine counts
        pass

    def _random(self, n: int = 1, *, workers: int = 1) -> np.ndarray:
        return self._draw(_count(n))

    def _draw(self, n: int) -> np.ndarray:
        """The next ``n`` points from the engine, drawn in pieces of about :data:`_PIECE` values so
        that Ctrl-C (handled by Python between two pieces) ends a large draw within a fraction of
        a second; an interrupted draw draws nothing (the engine goes back to where it started).
        The pieces are the same points as one draw: the sequences are defined by index."""
        e, d = self._e, self.d
        if d == 0 or n * d <= _PIECE:
            return e.random(n)
        if isinstance(e, _LatticeEngine):
            e._left(n)          # refused whole, before any piece is drawn
        need, limit = n * d * 8, _util.available_bytes()
        if need > limit:
            raise TooLargeError(f"n = {n}: {n} points in dimension {d} need {_util.human_bytes(need)}, more than the "
                                f"{_util.human_bytes(limit)} of memory available")
        try:
            out = np.empty((n, d))
        except MemoryError:
            raise TooLargeError(f"n = {n}: {n} points in dimension {d} ({_util.human_bytes(need)}) could not be "
                                "allocated") from None
        start, rows = e.num_generated, max(1, _PIECE // d)
        try:
            for i in range(0, n, rows):
                k = min(rows, n - i)
                out[i:i + k] = e.random(k)
        except BaseException:
            e.reset()
            e.fast_forward(start)
            raise
        return out

    def _optimize(self, sample: np.ndarray) -> np.ndarray:
        """scipy's ``optimization`` step on a drawn sample (in Rust): the seed follows from the
        engine's seed and the points drawn before, so a reset engine repeats it."""
        drawn = self.num_generated - len(sample)
        seed = (int(self.seed) * 6364136223846793005 + drawn + 1) % 2**64
        return _gradfree.optimize_points(np.ascontiguousarray(sample, dtype=np.float64), self._optimization, seed)

    def random(self, n: int = 1, *, workers: int = 1) -> np.ndarray:
        """The next ``n`` points of the sequence.

        Parameters
        ----------
        n : int, default 1
            Number of points.
        workers : int, default 1
            Accepted for scipy compatibility; the Rust engine uses all cores for large ``n``.

        Returns
        -------
        numpy.ndarray, shape (n, d)
            Points in ``[0, 1)^d``.
        """
        sample = self._random(n, workers=workers)
        if self._optimization and len(sample) and self.d:
            sample = self._optimize(sample)
        return sample

    def reset(self):
        """Back to the first point (same randomization). Returns ``self``."""
        self._e.reset()
        return self

    def fast_forward(self, n: int):
        """Skips ``n`` points. Returns ``self``."""
        self._e.fast_forward(_count(n))
        return self

    if _Base is object:  # without scipy: scipy's integers(), written out
        def integers(self, l_bounds, *, u_bounds=None, n: int = 1, endpoint: bool = False, workers: int = 1) -> np.ndarray:
            """Integers in ``[l_bounds, u_bounds)`` (``]`` with ``endpoint``) from the next ``n``
            points, as ``scipy.stats.qmc.QMCEngine.integers``."""
            if u_bounds is None:
                l_bounds, u_bounds = 0, l_bounds
            lo, hi = np.asarray(l_bounds), np.asarray(u_bounds)
            if endpoint:
                hi = hi + 1
            return np.floor(self.random(n) * (hi - lo) + lo).astype(np.int64)


class Sobol(_Engine):
    """Sobol points in up to 21201 dimensions, as ``scipy.stats.qmc.Sobol``.

    Joe & Kuo's direction numbers (S. Joe and F. Y. Kuo, "Constructing Sobol sequences with better
    two-dimensional projections", SIAM J. Sci. Comput. 30, 2008): the unscrambled points equal
    scipy's.

    Parameters
    ----------
    d : int
        Dimension, 0 to 21201 (``d = 0`` gives arrays of shape ``(n, 0)``, as scipy).
    scramble : bool, default True
        Randomize: linear matrix scrambling plus a digital shift (scipy's scrambling; Matoušek
        1998), or Owen's nested scrambling with ``method="owen"`` (Owen 1995).
    seed : int, optional
        Seed of the randomization: an integer in ``[0, 2**64)`` seeds the Rust generator directly
        (``None``: drawn from the OS).
    method : {"lms-shift", "owen"}, default "lms-shift"
        The scrambling.
    rng : int, numpy.random.Generator, BitGenerator or SeedSequence, optional
        scipy's argument: one 64-bit seed is drawn from ``numpy.random.default_rng(rng)``, so
        ``rng=n`` and ``rng=numpy.random.default_rng(n)`` give the same points. Giving ``seed``
        and ``rng`` together is a ``TypeError``.
    optimization : {None, "random-cd", "lloyd"}, optional
        scipy's post-processing of every drawn sample, in Rust: ``"random-cd"`` swaps coordinates
        between points while that lowers the centered discrepancy (Jin et al. 2005; at most 10 000
        tries, 100 without improvement), ``"lloyd"`` runs 10 Lloyd-Max iterations towards a
        centroidal Voronoi tessellation of the cube (centroids estimated from a Sobol sample of
        64 n points, cells clipped to the cube; scipy uses Qhull's unclipped cells). Both break
        the net / sequence structure, as in scipy. Unknown names raise scipy's ``ValueError``.
    bits : int, optional
        Bits of the generator, 1 to 64 as scipy's ``bits`` (default 32; scipy's is 30): at most
        ``2**bits`` points, each a multiple of ``2**-bits``. Up to 32 bits the points are the
        32-bit points rounded down, which for both scramblings is the ``bits``-bit scrambling
        (output digit ``k`` depends only on input digits ``1..k``); above 32 the generator runs on
        64 digits whose first 32 are the 32-bit points, the scrambling reaching every digit.
        Above 53 bits a double cannot hold every digit: points are rounded down to a multiple of
        ``2**-53``, so they stay below 1 (scipy rounds to nearest and can return 1.0).

    ``Sobol.MAXDIM`` is the largest dimension (21201), as in scipy.

    Engines pickle and ``copy.deepcopy`` (the copy continues from the same point).
    """

    MAXDIM = 21201

    def __init__(self, d: int, scramble: bool = True, seed: Optional[int] = None, method: str = "lms-shift", *, rng=None,
                 bits: Optional[int] = None, optimization: Optional[str] = None):
        if method not in ("lms-shift", "owen"):
            raise InvalidParameterError(f"method {method!r}: expected 'lms-shift' or 'owen'")
        s = _seed_of(seed, rng)
        d = _util.count("d", d, 0)
        if d > self.MAXDIM:
            raise InvalidParameterError(f"d = {d}: Sobol points exist up to d = {self.MAXDIM} (Sobol.MAXDIM)")
        self.bits = 32 if bits is None else _util.count("bits", bits, 1)
        if self.bits > 64:
            raise InvalidParameterError(f"bits = {bits}: expected an integer in 1..=64, as in scipy")
        self.maxn = 2 ** self.bits
        recipe = ("sobol", d, s, method if _util.flag("scramble", scramble) else "none", self.bits)
        super().__init__(_sequence(*recipe), d, s, recipe, optimization)

    def random(self, n: int = 1, *, workers: int = 1) -> np.ndarray:
        """The next ``n`` points, shape ``(n, d)``. Warns, as scipy does, when the first draw is not
        a power of 2 (the balance properties of Sobol points need ``n = 2^m``).

        Parameters
        ----------
        n : int, default 1
            Number of points.
        workers : int, default 1
            Accepted for scipy compatibility.

        Returns
        -------
        numpy.ndarray, shape (n, d)
        """
        n = _count(n)
        if self.num_generated == 0 and n & (n - 1) != 0:
            warnings.warn(_SOBOL_BALANCE, stacklevel=2)
        return super().random(n, workers=workers)

    def _random(self, n: int = 1, *, workers: int = 1) -> np.ndarray:
        n = _count(n)
        total = self.num_generated + n
        if total > self.maxn:
            raise InvalidParameterError(
                f"At most 2**{self.bits}={self.maxn} distinct points can be generated. {self.num_generated} points have been "
                f"previously generated, then: n={self.num_generated}+{n}={total}. Consider increasing `bits`.")
        return self._draw(n)

    def fast_forward(self, n: int):
        """Skips ``n`` points (at most the ``2**bits`` points of the sequence in all). Returns ``self``."""
        n = _count(n)
        if self.num_generated + n > self.maxn:
            raise InvalidParameterError(
                f"n = {n}: fast_forward beyond the 2**{self.bits}={self.maxn} points of the sequence ({self.num_generated} "
                "drawn so far). Consider increasing `bits`.")
        return super().fast_forward(n)

    def random_base2(self, m: int) -> np.ndarray:
        """The next ``2^m`` points, as scipy's ``Sobol.random_base2``: an error unless the points
        drawn so far plus ``2^m`` make a power of 2.

        Parameters
        ----------
        m : int
            Log2 of the number of points.

        Returns
        -------
        numpy.ndarray, shape (2^m, d)
        """
        m = _util.count("m", m, 0)
        n = 2 ** m
        total = self.num_generated + n
        if total & (total - 1) != 0:
            raise InvalidParameterError(
                f"{_SOBOL_BALANCE} {self.num_generated} points have been previously generated, then: "
                f"n={self.num_generated}+2**{m}={total}. If you still want to do this, use Sobol.random().")
        return self._random(n)


class Halton(_Engine):
    """Halton points, as ``scipy.stats.qmc.Halton`` (Halton 1960).

    Unscrambled points are the radical inverses rounded once from their exact fractions (correctly
    rounded). scipy sums the digit terms in floating point (``v += r * b^-k``, ``b^-k`` itself a
    running quotient), which rounds at every term: its values differ from these by up to 2 ulp in
    about a third of the entries. We keep the exact ones; scrambled points differ from scipy's
    anyway (another random stream, the same permutation scheme).

    Parameters
    ----------
    d : int
        Dimension, 0 or more.
    scramble : bool, default True
        Random digit permutations in each base (Owen's scrambling of the radical inverse).
    seed : int, optional
        Seed of the permutations, as for :class:`Sobol` (``None``: drawn from the OS).
    rng : int, numpy.random.Generator, BitGenerator or SeedSequence, optional
        scipy's argument, as for :class:`Sobol`.
    optimization : {None, "random-cd", "lloyd"}, optional
        scipy's post-processing of every drawn sample, as for :class:`Sobol`.
    """

    def __init__(self, d: int, scramble: bool = True, seed: Optional[int] = None, *, rng=None,
                 optimization: Optional[str] = None):
        s = _seed_of(seed, rng)
        d = _util.count("d", d, 0)
        recipe = ("halton", d, s, "permutation" if _util.flag("scramble", scramble) else "none")
        super().__init__(_sequence(*recipe), d, s, recipe, optimization)


class _LatticeEngine:
    """The points of a rank-1 lattice, drawn in order, for :class:`_Engine`."""

    def __init__(self, z, n, shift):
        self.z, self.n, self.shift, self.num_generated = z, n, shift, 0

    def _left(self, k: int) -> None:
        if self.num_generated + k > self.n:
            raise InvalidParameterError(f"n: only {self.n - self.num_generated} of the lattice's {self.n} points are left")

    def random(self, k: int) -> np.ndarray:
        self._left(k)
        out = _gradfree.lattice_points(self.z, self.n, self.num_generated, k, self.shift)
        self.num_generated += k
        return out

    def reset(self) -> None:
        self.num_generated = 0

    def fast_forward(self, k: int) -> None:
        self._left(k)
        self.num_generated += k


class Rank1Lattice(_Engine):
    """The rank-1 lattice ``{i z / n mod 1 : i < n}`` as a QMC engine over its ``n`` points.

    Parameters
    ----------
    z : sequence of int
        Generating vector (length d).
    n : int
        Number of points.
    seed : int, optional
        Seed of the random shift.
    shift : bool, default False
        Add one uniform random shift modulo 1 (randomized QMC, thesis eq. 5.4), drawn from ``seed``
        by the Rust generator: the same points as ``gradfree sample lattice --random-shift --seed
        SEED``.
    rng : int, numpy.random.Generator, BitGenerator or SeedSequence, optional
        scipy's argument, as for :class:`Sobol`.
    """

    def __init__(self, z, n: int, seed: Optional[int] = None, shift: bool = False, *, rng=None):
        n = _util.count("n", n, 1)
        if isinstance(z, (str, bytes)) or not hasattr(z, "__iter__") or isinstance(z, np.ndarray) and z.ndim != 1:
            raise InvalidParameterError(f"z: expected a sequence of integers, got {z!r}")
        try:
            self.z = [_util.count(f"z[{j}]", v, 0, n - 1 if n > 1 else 0) for j, v in enumerate(z)]
        except InvalidParameterError as e:
            raise InvalidParameterError(f"{e} (the generating vector's entries are residues modulo n = {n})") from None
        self.n = n
        s = _seed_of(seed, rng)
        self.shift = _gradfree.random_shift(self.z, self.n, s) if _util.flag("shift", shift) else None
        super().__init__(_LatticeEngine(self.z, self.n, self.shift), len(self.z), s)

    def min_distance(self, metric: str = "l2") -> float:
        """Minimum toroidal distance between distinct lattice points (thesis eq. 5.8-5.9).

        Parameters
        ----------
        metric : {"l1", "l2"}, default "l2"

        Returns
        -------
        float
        """
        return _gradfree.min_distance(self.z, self.n, _metric(metric))


class SubgroupLattice(Rank1Lattice):
    """The subgroup rank-1 lattice of Lyu (thesis Thm. 13, eq. 5.14): ``z`` from the subgroup of
    order ``2d`` of the multiplicative group mod ``n``.

    Parameters
    ----------
    d : int
        Dimension.
    n : int
        A prime with ``2d | n - 1`` (the error lists admissible ones).
    seed, shift
        As for :class:`Rank1Lattice`.
    """

    def __init__(self, d: int, n: int, seed: Optional[int] = None, shift: bool = False):
        super().__init__(subgroup_vector(d, n), n, seed, shift)


class KorobovLattice(Rank1Lattice):
    """The Korobov lattice ``z = (1, a, a^2, ...) mod n`` whose ``a`` maximizes the minimum
    ``metric`` toroidal distance, by exhaustive search (Korobov 1959; thesis sec. 5.5).

    Parameters
    ----------
    d : int
        Dimension.
    n : int
        Number of points.
    metric : {"l1", "l2"}, default "l2"
    seed, shift
        As for :class:`Rank1Lattice`.
    """

    def __init__(self, d: int, n: int, metric: str = "l2", seed: Optional[int] = None, shift: bool = False):
        self.a, z, _ = korobov(d, n, metric)
        super().__init__(z, n, seed, shift)


class SearchedLattice(Rank1Lattice):
    """A lattice of large packing radius from the searches of Lyu's thesis (sec. 4.6).
    ``self.distance`` is its minimum l2 toroidal distance.

    Parameters
    ----------
    d : int
        Dimension.
    n : int
        Number of points.
    method : {"alg10", "alg11"}, default "alg10"
        Algorithm 10 (cos-based candidates over ``primes`` primes) or Algorithm 11 (successive
        coordinate search, ``sweeps`` sweeps from Algorithm 10's ``top`` best vectors).
    primes, sweeps, top : int, optional
        Search sizes (default: the thesis' M = 50 primes, T = 3 sweeps, and SCS from the 64 best
        Algorithm 10 vectors).
    seed, shift
        As for :class:`Rank1Lattice`.
    """

    def __init__(self, d: int, n: int, method: str = "alg10", primes: Optional[int] = None, sweeps: Optional[int] = None,
                 top: Optional[int] = None, seed: Optional[int] = None, shift: bool = False):
        z, self.distance = lattice_search(d, n, method, primes, sweeps, top)
        super().__init__(z, n, seed, shift)
