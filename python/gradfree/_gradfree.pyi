"""Type stubs of the Rust extension module ``gradfree._gradfree`` (python/src/lib.rs)."""
from typing import List, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

_F32 = npt.NDArray[np.float32]
_F64 = npt.NDArray[np.float64]

class GradfreeError(Exception):
    """Base class of gradfree's errors (documented in ``gradfree.errors``)."""

class InvalidParameterError(GradfreeError, ValueError): ...
class NonFiniteError(GradfreeError, ValueError): ...
class CheckpointError(GradfreeError, ValueError): ...
class ModelFitError(GradfreeError, ArithmeticError): ...
class TooLargeError(GradfreeError, MemoryError): ...

class Run:
    """One ES run driven by ask/tell; the Rust side owns stop rules, counters, best point, repair."""

    def __init__(
        self,
        algorithm: str,
        x0: _F64,
        sigma0: Optional[float],
        seed: int,
        params_json: str,
        stop_json: str,
        restarts: bool = False,
        max_restarts: Optional[int] = None,
        restart_bounds: Optional[Tuple[Sequence[float], Sequence[float]]] = None,
        bounds: Optional[Tuple[Sequence[float], Sequence[float]]] = None,
        bounds_handling: str = "clip",
    ) -> None: ...
    def stop_message(self) -> Optional[Tuple[str, bool]]:
        """What the stop reason means and whether the run succeeded; None while it goes on."""
    def stop_rules_json(self) -> str:
        """The stop rules in force (gradfree_core::StopRules as JSON)."""
    def ask(self) -> _F64:
        """The next population to evaluate, shape (popsize, dim); raises once stopped."""
    def tell(self, x: npt.ArrayLike, values: _F64) -> Optional[str]:
        """Values of the points last asked for; returns the stop rule that fired, if any."""
    def stop(self) -> Optional[str]:
        """The stop rule that has fired (budgets and target judged now), or None."""
    @property
    def mean(self) -> _F64: ...
    @property
    def scale(self) -> float: ...
    @property
    def popsize(self) -> int: ...
    @property
    def dim(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def restarts(self) -> int: ...
    @property
    def evaluations(self) -> int: ...
    @property
    def generations(self) -> int: ...
    @property
    def best_f(self) -> float: ...
    @property
    def best_x(self) -> Optional[_F64]: ...
    def take_events(self) -> List[Tuple[str, str]]: ...
    def state_json(self) -> str: ...
    @classmethod
    def from_state_json(cls, state: str) -> "Run": ...
    def save_checkpoint(self, path: str, meta_json: str) -> None:
        """Writes the run as a gradfree checkpoint with meta_json as the caller's metadata."""
    @classmethod
    def load_checkpoint(cls, path: str) -> Tuple["Run", str]:
        """A run saved by save_checkpoint, checked, and the caller's metadata (JSON)."""

class Problem:
    """A benchmark function of the Rust crate ``gradfree_problems``."""

    def __init__(self, name: str, dim: int, seed: int = 0) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def dim(self) -> int: ...
    @property
    def minimum(self) -> Optional[float]: ...
    @property
    def categories(self) -> Optional[int]: ...
    def __call__(self, x: npt.ArrayLike) -> float: ...
    def evaluate(self, x: npt.ArrayLike) -> _F64:
        """f on each row of x, shape (n, dim) -> (n,)."""

class Engine:
    """Sobol or Halton points with scipy.stats.qmc's interface."""

    def __init__(self, kind: str, d: int, seed: int, scramble: str) -> None: ...
    def random(self, n: int) -> _F64: ...
    def reset(self) -> None: ...
    def fast_forward(self, n: int) -> None: ...
    @property
    def d(self) -> int: ...
    @property
    def num_generated(self) -> int: ...

class FeatureMap:
    """A random-feature map of gradfree_features (kernel approximation)."""

    def __init__(
        self,
        kernel: str,
        gamma: float,
        method: str,
        n_components: int,
        d: int,
        seed: int,
        radial_points: int = 1,
        frequencies: str = "optimized",
        rotation: str = "signs",
    ) -> None: ...
    def transform_f64(self, x: _F64) -> _F64: ...
    def transform_f32(self, x: _F32) -> _F32: ...
    @property
    def n_components(self) -> int: ...
    @property
    def n_projections(self) -> int: ...
    @property
    def frequencies(self) -> Optional[List[int]]: ...

class BatchBO:
    """Batch Bayesian optimization of gradfree_bo (ask/tell, pending points)."""

    def __init__(
        self,
        lower: List[float],
        upper: List[float],
        kinds: List[str],
        seed: int,
        method: Optional[str] = None,
        batch_size: Optional[int] = None,
        n_initial: Optional[int] = None,
        kernel: Optional[str] = None,
        noise: Optional[float] = None,
        weight: Optional[float] = None,
        beta: Optional[float] = None,
        acq_starts: Optional[int] = None,
        acq_evals_per_dim: Optional[int] = None,
        fit_restarts: Optional[int] = None,
        on_nonfinite: Optional[str] = None,
        budget: Optional[int] = None,
    ) -> None:
        """Fields left None take the library's defaults (gradfree_bo::BoParams)."""
    def ask(self, n: Optional[int] = None) -> _F64: ...
    def tell(self, x: _F64, y: List[float]) -> None: ...
    @property
    def dim(self) -> int: ...
    @property
    def n_observations(self) -> int: ...
    @property
    def n_pending(self) -> int: ...
    @property
    def best_f(self) -> float: ...
    @property
    def best_x(self) -> List[float]: ...
    @property
    def method(self) -> str: ...
    @property
    def batch_size(self) -> int: ...
    @property
    def hyperparameters(self) -> Optional[Tuple[List[float], float, float]]: ...
    def state_json(self) -> str: ...
    @staticmethod
    def from_state_json(s: str) -> "BatchBO": ...


def kernel_matrix(x: _F64, kernel: str, gamma: float = 1.0) -> _F64: ...
def gram_errors(exact: _F64, approx: _F64) -> Tuple[float, float]: ...
def gamma_scale(x: _F64) -> float: ...

def run_builtin(
    algorithm: str,
    problem: Problem,
    x0: _F64,
    sigma0: float,
    seed: int,
    max_evals: int,
    params_json: str = "{}",
    stop_json: Optional[str] = None,
) -> Tuple[_F64, float, int, int, _F64, Optional[str]]:
    """(best_x, best_f, evaluations, generations, mean, stop_reason) of a run of the Rust driver."""

def subgroup_vector(d: int, n: int) -> List[int]: ...
def korobov(d: int, n: int, metric: str = "l2") -> Tuple[int, List[int], float]: ...
def min_distance(z: Sequence[int], n: int, metric: str = "l2") -> float: ...
def lattice_points(z: Sequence[int], n: int, start: int, count: int, shift: Optional[Sequence[float]] = None) -> _F64: ...
def random_shift(z: Sequence[int], n: int, seed: int) -> List[float]:
    """The lattice's uniform random shift drawn from seed (as the CLI's --random-shift)."""
def lattice_search(
    d: int, n: int, method: str = "alg10", primes: Optional[int] = None, sweeps: Optional[int] = None, top: Optional[int] = None
) -> Tuple[List[int], float]: ...
def discrepancy(points: _F64, method: str = "CD") -> float: ...
def defaults_json() -> str:
    """The library's defaults (es, bo, lattice_search) as JSON."""
def registries_json() -> str:
    """Every registry as JSON, as ``gradfree list --json`` prints it."""
def run_experiment(
    name: str, out: str, quick: bool = False, seed: int = 0, runs: Optional[int] = None, reuse_runs: bool = True
) -> str:
    """Runs an experiment; its report (tables, figures, notes) as JSON."""

class RunLog:
    """The core's JSON-lines run log (gradfree plot reads it); resume_generation reopens a resumed run's log."""

    def __init__(self, path: str, resume_generation: Optional[int] = None) -> None: ...
    def start(self, info_json: str) -> None: ...
    def generation(self, record_json: str) -> None: ...
    def finish(self, result_json: str) -> None: ...

class Progress:
    """A progress bar on standard error (drawn only on a terminal), the command line's style."""

    def __init__(self, total: Optional[int] = None, template: str = ...) -> None: ...
    def update(self, position: int, message: str = "") -> None: ...
    def finish(self) -> None: ...

def atomic_write(path: str, data: bytes) -> None:
    """Writes data to path atomically (temporary file, fsync, rename)."""
