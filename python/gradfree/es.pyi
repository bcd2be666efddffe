"""Type stubs of ``gradfree.es``: one class per entry of the Rust algorithm registry
(``crates/es/src/registry.rs``). A test fails if this file and the registry disagree."""
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

_F64 = npt.NDArray[np.float64]
_I64 = npt.NDArray[np.int64]
_Box = Optional[Tuple[Union[float, Sequence[float]], Union[float, Sequence[float]]]]

REGISTRY: List[Dict[str, Any]]

def algorithms() -> List[Tuple[str, str, str]]:
    """The registered algorithms as (name, source, summary), in registry order."""

class Result(NamedTuple):
    """pycma's result fields, in pycma's order."""
    xbest: Optional[np.ndarray]
    fbest: float
    evals_best: Optional[int]
    evaluations: int
    iterations: int
    xfavorite: _F64
    stds: _F64
    stop: Dict[str, Any]

PYCMA_OPTIONS: Dict[str, str]
PYCMA_STOP_NAMES: Dict[str, str]
_Tol = Union[None, bool, float]

class _ES:
    algorithm: str
    seed: int
    max_evals: int
    max_gens: Optional[int]
    target: Optional[float]
    max_seconds: Optional[float]
    tol_fun: Optional[float]
    tol_fun_window: int
    tol_x: Optional[float]
    tol_flat: Optional[int]
    tol_stagnation: Optional[int]
    tol_condition: Optional[float]
    tol_diverge: Optional[float]
    def __init__(
        self,
        x0: npt.ArrayLike,
        sigma0: Optional[float] = None,
        options: Optional[Dict[str, Any]] = None,
        *,
        seed: Optional[int] = None,
        popsize: Optional[int] = None,
        max_evals: Optional[int] = None,
        max_gens: Optional[int] = None,
        target: Optional[float] = None,
        max_seconds: Optional[float] = None,
        tol_fun: _Tol = None,
        tol_fun_window: Optional[int] = None,
        tol_x: _Tol = None,
        tol_flat: Union[None, bool, int] = None,
        tol_stagnation: Union[None, bool, int] = None,
        tol_condition: _Tol = None,
        tol_diverge: _Tol = None,
        convergence: bool = True,
        bounds: _Box = None,
        bounds_handling: str = "transform",
        restarts: Union[bool, int, str] = False,
        restart_bounds: _Box = None,
        bipop: bool = False,
        incpopsize: Optional[float] = None,
        **params: Any,
    ) -> None: ...
    @property
    def stop_rules(self) -> Dict[str, Any]: ...
    @property
    def stop_message(self) -> str: ...
    @property
    def success(self) -> bool: ...
    def optimize(
        self,
        objective_fct: Callable[..., float],
        iterations: Optional[int] = None,
        args: Tuple[Any, ...] = (),
        verb_disp: Optional[int] = None,
        callback: Optional[Callable[[Any], Any]] = None,
        executor: Any = None,
    ) -> "_ES": ...
    @property
    def popsize(self) -> int: ...
    @property
    def mean(self) -> _F64: ...
    @property
    def restarts_done(self) -> int: ...
    @property
    def sigma(self) -> float: ...
    @property
    def stds(self) -> _F64: ...
    @property
    def evals_best(self) -> Optional[int]: ...
    @property
    def evaluations(self) -> int: ...
    @property
    def iterations(self) -> int: ...
    @property
    def fbest(self) -> float: ...
    @property
    def xbest(self) -> np.ndarray: ...
    def ask(self) -> np.ndarray: ...
    def tell(self, X: npt.ArrayLike, values: npt.ArrayLike) -> None: ...
    def stop(self) -> Dict[str, Any]: ...
    @property
    def result(self) -> Result: ...
    def disp(self) -> None: ...
    def events(self) -> List[Tuple[str, str]]: ...

class _DiscreteES(_ES):
    def __init__(self, dim: int, options: Optional[Dict[str, Any]] = None, **kwargs: Any) -> None: ...
    def ask(self) -> _I64: ...
    @property
    def xbest(self) -> _I64: ...

class INGO(_ES):
    """implicit natural gradient, full covariance via its inverse (Cholesky of Sigma^-1) (thesis Alg. 1, eq. (3.28)-(3.29))."""

class INGOstep(_ES):
    """INGO with the mean step scaled by Sigma_t instead of Sigma_{t+1} (thesis Alg. 3, eq. (3.36)-(3.37))."""

class FastINGO(_ES):
    """INGO with a diagonal covariance and antithetic samples, O(N d) per generation (thesis Alg. 2, eq. (3.30)-(3.31))."""

class IGO(_ES):
    """explicit natural gradient on (mu, Sigma), full covariance, same scores as INGO (Ollivier et al. 2017; thesis sec. 3.7.1 baseline)."""

class CMAES(_ES):
    """CMA-ES with active weights and CSA; IPOP restarts with --param restarts=K (Hansen 2016 tutorial (arXiv:1604.00772))."""

class LQCMAES(_ES):
    """CMA-ES ranked by a linear-quadratic model of f; evaluates only what the model cannot rank (expensive f) (Hansen 2019, A global surrogate assisted CMA-ES (GECCO), Alg. 1)."""

class MiNES(_ES):
    """mirror-descent NES: antithetic mean step, Hessian-tracking Sigma^-1 with eigenvalue projection (Ye & Zhang, MiNES Alg. 1, eq. (4.6), (4.13)-(4.17))."""

class XNES(_ES):
    """exponential natural evolution strategy, full covariance (Wierstra et al. 2014, Alg. 5 (xNES))."""

class OpenAIES(_ES):
    """fixed-sigma antithetic ES with centred ranks and Adam (or SGD) on the mean (Salimans et al. 2017)."""

class ASEBO(_ES):
    """antithetic ES sampling an adaptive active subspace of past gradients, Adam on the mean (Choromanski et al. 2019, Alg. 1 (ASEBO))."""

class ARS(_ES):
    """augmented random search: antithetic directions, the best b kept, step scaled by their values' std (Mania, Guy & Recht 2018, Alg. 1 (ARS V1-t))."""

class NesterovSpokoiny(_ES):
    """random gradient-free descent with antithetic Gaussian finite differences (MiNES eq. (4.18)-(4.19); Nesterov & Spokoiny 2017)."""

class BernoulliINGO(_DiscreteES):
    """discrete INGO over {0,1}^d: natural-gradient steps on the Bernoulli logits (thesis sec. 3.5, eq. (3.38)-(3.41))."""

class CategoricalINGO(_DiscreteES):
    """discrete INGO over {0..K-1}^d: steps on the softmax logits, rows re-centred (thesis sec. 3.5, eq. (3.42)-(3.44))."""

class GA(_DiscreteES):
    """generational GA: binary tournaments, uniform crossover, 1/d mutation, one elite (thesis sec. 3.7.3 baseline)."""

RECOMMENDED: Dict[str, Any]
PRESETS: Dict[str, Dict[str, Any]]

class OptimizeResult(dict):
    x: Optional[np.ndarray]
    fun: float
    nfev: int
    nit: int
    restarts: int
    success: bool
    message: str

def minimize(
    f: Callable[[np.ndarray], float],
    x0: npt.ArrayLike,
    method: Optional[str] = None,
    sigma0: Optional[float] = None,
    seed: Optional[int] = None,
    max_evals: Optional[int] = None,
    target: Optional[float] = None,
    bounds: _Box = None,
    restarts: Union[None, bool, int, str] = None,
    executor: Any = None,
    settle_runs: Union[None, bool, int] = None,
    restart_bounds: _Box = None,
    worse_runs: Union[None, bool, float] = None,
    **params: Any,
) -> OptimizeResult: ...

# pycma's interface (``import gradfree.es as cma``); python/gradfree/_pycma.py.

class CMAOptions(dict):  # type: ignore[type-arg]
    """pycma's options by name; CMAOptions('tol') searches names and descriptions."""
    def __init__(self, s: Union[None, str, Dict[str, Any]] = None, **kwargs: Any) -> None: ...
    @staticmethod
    def defaults() -> Dict[str, str]: ...
    @staticmethod
    def handling() -> Dict[str, str]: ...
    def match(self, s: str = "") -> Dict[str, Any]: ...
    def set(self, dic: Any = None, **kwargs: Any) -> Any: ...

class BestSolution:
    x: Optional[np.ndarray]
    f: float
    evals: Optional[int]
    evalsall: Optional[int]
    compared: int
    last: Any
    def __init__(self, x: Optional[np.ndarray] = None, f: float = ..., evals: Optional[int] = None) -> None: ...
    def update(self, arx: Any, xarchive: Any = None, arf: Optional[Sequence[float]] = None,
               evals: Optional[int] = None) -> "BestSolution": ...
    def get(self) -> Tuple[Optional[np.ndarray], float, Optional[int]]: ...

class EvalParallel2:
    def __init__(self, fitness_function: Optional[Callable[..., float]] = None,
                 number_of_processes: Optional[int] = None) -> None: ...
    def __call__(self, solutions: Sequence[npt.ArrayLike], fitness_function: Optional[Callable[..., float]] = None,
                 args: Tuple[Any, ...] = (), timeout: Optional[float] = None) -> List[float]: ...
    def terminate(self) -> None: ...
    def __enter__(self) -> "EvalParallel2": ...
    def __exit__(self, *exc: Any) -> None: ...

class CMAEvolutionStrategy(CMAES):
    """CMA-ES with pycma's interface (cma.CMAEvolutionStrategy)."""
    opts: CMAOptions
    inopts: Optional[Dict[str, Any]]
    inputargs: Dict[str, Any]
    N: int
    sigma0: float
    x0: _F64
    best: BestSolution
    def __init__(self, x0: Union[npt.ArrayLike, Callable[[], npt.ArrayLike]], sigma0: float,
                 inopts: Optional[Dict[str, Any]] = None) -> None: ...
    @property
    def countevals(self) -> int: ...
    @property
    def countiter(self) -> int: ...
    @property
    def logger(self) -> Any: ...
    @property
    def xfavorite(self) -> _F64: ...
    def ask(self, number: Optional[int] = None, xmean: Any = None, sigma_fac: float = 1, gradf: Any = None,  # type: ignore[override]
            args: Tuple[Any, ...] = (), **kwargs: Any) -> List[_F64]: ...
    def tell(self, solutions: Sequence[npt.ArrayLike], function_values: Sequence[float],  # type: ignore[override]
             check_points: Any = None, copy: bool = False) -> "CMAEvolutionStrategy": ...
    def stop(self, check: bool = True, ignore_list: Sequence[str] = (), check_in_same_iteration: bool = False,  # type: ignore[override]
             get_value: Optional[str] = None) -> Any: ...
    def optimize(self, objective_fct: Callable[..., float], maxfun: Optional[int] = None,  # type: ignore[override]
                 iterations: Optional[int] = None, min_iterations: int = 1, args: Tuple[Any, ...] = (),
                 verb_disp: Optional[int] = None, callback: Any = None, n_jobs: Optional[int] = 0, executor: Any = None,
                 **kwargs: Any) -> "CMAEvolutionStrategy": ...
    def disp_annotation(self) -> None: ...
    def disp(self, modulo: Optional[int] = None, overwrite: Optional[int] = None) -> "CMAEvolutionStrategy": ...  # type: ignore[override]
    def result_pretty(self, number_of_restarts: int = 0, time_str: Optional[str] = None,
                      fbestever: Optional[float] = None) -> Result: ...
    def pickle_dumps(self) -> bytes: ...

def fmin2(
    objective_function: Optional[Callable[..., float]],
    x0: Any,
    sigma0: Optional[float],
    options: Optional[Dict[str, Any]] = None,
    args: Tuple[Any, ...] = (),
    gradf: Any = None,
    restarts: Union[int, Dict[str, Any]] = 0,
    restart_from_best: bool = False,
    incpopsize: float = 2,
    eval_initial_x: bool = False,
    parallel_objective: Optional[Callable[..., Sequence[float]]] = None,
    noise_handler: Any = None,
    noise_change_sigma_exponent: float = 1,
    noise_kappa_exponent: float = 0,
    bipop: bool = False,
    callback: Any = None,
    init_callback: Any = None,
    constraints: Any = None,
) -> Tuple[Optional[np.ndarray], CMAEvolutionStrategy]: ...

def plot(*args: Any, **kwargs: Any) -> Any: ...

ff: Any
fitness_functions: Any
s: Any
optimization_tools: Any
warnings_and_exceptions: Any
