"""Policy search for reinforcement learning with gradfree's evolution strategies (Lyu 2021, thesis
sec. 3.7.2, Fig. 3.2): a policy network's parameters are the search variables, an evaluation is
the mean return of rollouts in a Gymnasium environment, and the strategy (Fast-INGO, antithetic
ES, ASEBO or ARS, all from :mod:`gradfree.es`) minimizes minus that return.

    python -m gradfree.rl --env HalfCheetah-v5 --method fast-ingo --workers 2 --generations 100 --seed 0

Reproducibility: rollout ``k`` of generation ``g`` resets its environment with a seed derived from
``(run seed, g, k, episode)`` (:func:`rollout_seed`), so a run gives the same rewards whatever
the number of workers. Observation statistics (``obs_norm``) are frozen during a generation and
merged afterwards in population order, for the same reason.

Gymnasium (and MuJoCo for its ``*-v5`` locomotion tasks: ``pip install "gymnasium[mujoco]"``) is
needed at run time only.
"""
from __future__ import annotations

import io
import json
import math
import os
import pickle
import time
from concurrent.futures import Executor
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from .. import _gradfree, _util
from .._pickling import Checked as _Checked
from ..errors import CheckpointError, GradfreeError, InvalidParameterError

#: The strategies the runner knows: name -> (``gradfree.es`` class, its parameters for the run).
#: Fast-INGO uses the thesis' step size beta = 0.3 (sec. 3.7.2); the others their authors' defaults.
METHODS = {
    "fast-ingo": ("FastINGO", {"beta": 0.3}),
    "openai-es": ("OpenAIES", {}),
    "asebo": ("ASEBO", {}),
    "ars": ("ARS", {}),
}


#: The ``kind`` of a policy search's checkpoint metadata.
CHECKPOINT_KIND = "gradfree.rl"


class MissingDependencyError(GradfreeError, ImportError):
    """An optional package the requested environment needs is not installed."""


def thesis_population(d: int) -> int:
    """The thesis' samples per iteration for the RL tasks, ``N = 20 + 4 floor(floor(3 ln d) / 2)``
    (sec. 3.7.2); always even, so the samples can be antithetic pairs."""
    return 20 + 4 * (int(math.floor(3 * math.log(d))) // 2)


# --------------------------------------------------------------------------------------------
# Policies


@dataclass(frozen=True)
class PolicySpec:
    """The shape of a policy: ``kind`` is ``"mlp"`` (one hidden tanh layer of ``hidden`` units,
    the thesis' network) or ``"linear"`` (ARS's ``a = M s``, no bias). ``discrete`` policies act by
    the arg-max of their outputs; continuous ones clip their outputs to ``[low, high]``."""
    kind: str
    obs_dim: int
    act_dim: int
    hidden: int = 16
    discrete: bool = False
    low: Tuple[float, ...] = ()
    high: Tuple[float, ...] = ()

    def __post_init__(self):
        if self.kind not in ("mlp", "linear"):
            raise InvalidParameterError(f"policy: expected 'mlp' or 'linear', got {self.kind!r}")
        for name in ("obs_dim", "act_dim", "hidden"):
            _util.count(name, getattr(self, name), 1)

    @property
    def n_params(self) -> int:
        """Parameter count: ``h o + h + a h + a`` for the MLP, ``a o`` for the linear policy."""
        o, a, h = self.obs_dim, self.act_dim, self.hidden
        return h * o + h + a * h + a if self.kind == "mlp" else a * o

    def forward(self, params: np.ndarray, obs: np.ndarray) -> np.ndarray:
        """The raw outputs for one observation. The flat layout is ``W1`` (``h x o``, row-major),
        ``b1``, ``W2`` (``a x h``), ``b2`` for the MLP, ``M`` (``a x o``) for the linear policy."""
        o, a, h = self.obs_dim, self.act_dim, self.hidden
        if self.kind == "linear":
            return params.reshape(a, o) @ obs
        w1 = params[: h * o].reshape(h, o)
        b1 = params[h * o: h * o + h]
        w2 = params[h * o + h: h * o + h + a * h].reshape(a, h)
        b2 = params[h * o + h + a * h:]
        return w2 @ np.tanh(w1 @ obs + b1) + b2

    def act(self, params: np.ndarray, obs: np.ndarray):
        out = self.forward(params, obs)
        if self.discrete:
            return int(np.argmax(out))
        return np.clip(out, self.low, self.high)


def policy_for(env, kind: str = "mlp", hidden: int = 16) -> PolicySpec:
    """The policy shape for a Gymnasium environment with a flat ``Box`` observation and a ``Box``
    or ``Discrete`` action space."""
    from gymnasium import spaces
    obs, act = env.observation_space, env.action_space
    if not isinstance(obs, spaces.Box) or len(obs.shape) != 1:
        raise InvalidParameterError(f"env: needs a flat Box observation space, got {obs}")
    if isinstance(act, spaces.Discrete):
        return PolicySpec(kind, obs.shape[0], int(act.n), hidden, True)
    if isinstance(act, spaces.Box) and len(act.shape) == 1:
        return PolicySpec(kind, obs.shape[0], act.shape[0], hidden, False, tuple(map(float, act.low)), tuple(map(float, act.high)))
    raise InvalidParameterError(f"env: needs a Discrete or flat Box action space, got {act}")


# --------------------------------------------------------------------------------------------
# Observation statistics (ARS V2's state normalization, optional)


@dataclass
class ObsStats:
    """Running mean and variance of observations (Chan et al.'s parallel merge of sums), applied
    as ``(s - mean) / std`` with ``std`` floored at 1e-8 where a coordinate never varied."""
    n: float = 0.0
    total: Optional[np.ndarray] = None
    total_sq: Optional[np.ndarray] = None

    def merge(self, n: float, total: np.ndarray, total_sq: np.ndarray) -> None:
        if n == 0:
            return
        if self.total is None:
            self.n, self.total, self.total_sq = n, total.copy(), total_sq.copy()
        else:
            self.n += n
            self.total += total
            self.total_sq += total_sq

    def frozen(self) -> Optional[Tuple[np.ndarray, np.ndarray]]:
        """``(mean, std)`` for the next generation, or ``None`` before any observation."""
        if self.total is None or self.n < 2:
            return None
        mean = self.total / self.n
        var = np.maximum(self.total_sq / self.n - mean * mean, 0.0)
        std = np.sqrt(var)
        return mean, np.where(std < 1e-8, 1.0, std)


# --------------------------------------------------------------------------------------------
# Rollouts


def rollout_seed(run_seed: int, generation: int, index: int, episode: int) -> int:
    """The environment seed of one episode: a hash of ``(run seed, generation, index, episode)``
    (NumPy's ``SeedSequence``), independent of which worker runs it."""
    return int(np.random.SeedSequence([run_seed, generation, index, episode]).generate_state(1, np.uint32)[0])


@dataclass(frozen=True)
class Task:
    """One evaluation: the mean return of ``episodes`` episodes of at most ``max_steps`` steps."""
    env_id: str
    policy: PolicySpec
    params: np.ndarray
    seeds: Tuple[int, ...]
    max_steps: int
    norm: Optional[Tuple[np.ndarray, np.ndarray]] = None
    collect: bool = False


@dataclass
class Outcome:
    """What a worker returns: mean return, steps taken, and observation sums if collected."""
    reward: float
    steps: int
    obs_n: float = 0.0
    obs_sum: Optional[np.ndarray] = None
    obs_sq: Optional[np.ndarray] = None


_ENVS: dict = {}


def make_env(env_id: str):
    """``gymnasium.make(env_id)``; a missing Gymnasium or MuJoCo is a :class:`MissingDependencyError`
    naming the package to install."""
    try:
        import gymnasium as gym
    except ImportError as e:
        raise MissingDependencyError(f"reinforcement-learning tasks need Gymnasium: pip install gymnasium ({e})") from None
    try:
        return gym.make(env_id)
    except gym.error.DependencyNotInstalled as e:
        raise MissingDependencyError(f"{env_id} needs MuJoCo: pip install \"gymnasium[mujoco]\" ({e})") from None
    except (gym.error.NameNotFound, gym.error.VersionNotFound, gym.error.NamespaceNotFound) as e:
        raise InvalidParameterError(f"env: unknown Gymnasium environment {env_id!r} ({e})") from None


def episode(env, policy: PolicySpec, params: np.ndarray, seed: int, max_steps: Optional[int] = None,
            norm: Optional[Tuple[np.ndarray, np.ndarray]] = None, on_obs: Optional[Callable] = None,
            on_step: Optional[Callable] = None) -> Tuple[float, int]:
    """One episode of ``policy`` with ``params`` from ``env.reset(seed=seed)``, at most ``max_steps``
    steps (``None``: until the environment ends it): ``(return, steps)``. ``on_obs(s)`` sees every
    raw observation before it is normalized by ``norm = (mean, std)``; ``on_step()`` is called
    after every step (e.g. to render a frame). The one rollout loop of training and replay."""
    obs, _ = env.reset(seed=seed)
    total, steps = 0.0, 0
    while max_steps is None or steps < max_steps:
        s = np.asarray(obs, dtype=np.float64)
        if on_obs is not None:
            on_obs(s)
        if norm is not None:
            s = (s - norm[0]) / norm[1]
        obs, r, terminated, truncated, _ = env.step(policy.act(params, s))
        total += float(r)
        steps += 1
        if on_step is not None:
            on_step()
        if terminated or truncated:
            break
    return total, steps


def run_task(task: Task) -> Outcome:
    """Runs one evaluation in this process (environments are cached per process)."""
    env = _ENVS.get(task.env_id)
    if env is None:
        env = _ENVS[task.env_id] = make_env(task.env_id)
    out = Outcome(0.0, 0)
    on_obs = None
    if task.collect:
        out.obs_sum = np.zeros(task.policy.obs_dim)
        out.obs_sq = np.zeros(task.policy.obs_dim)

        def on_obs(s):
            out.obs_sum += s
            out.obs_sq += s * s
            out.obs_n += 1
    total = 0.0
    for seed in task.seeds:
        r, steps = episode(env, task.policy, task.params, seed, task.max_steps, task.norm, on_obs)
        total += r
        out.steps += steps
    out.reward = total / len(task.seeds)
    return out


# --------------------------------------------------------------------------------------------
# The run


@dataclass
class Generation:
    """One generation's record (also a line of the JSON-lines log)."""
    generation: int
    evaluations: int
    reward_mean: float
    reward_max: float
    reward_of_mean: Optional[float]
    best_reward: float
    steps: int
    total_steps: int
    eval_seconds: float
    es_seconds: float


@dataclass
class PolicySearch(_Checked):
    """A policy-search run: ``env_id``, ``method`` (a key of :data:`METHODS`), the policy shape,
    ``episodes`` per evaluation, ``max_steps`` per episode (default: the environment's limit),
    ``sigma0`` (0.1, the thesis' sigma_1) and ``popsize`` (default :func:`thesis_population`).
    ``step(executor)`` runs one generation (``None`` once the evolution strategy has stopped:
    ``es.stop()`` names its rule, e.g. ``diverged``); the object pickles (checkpoint) and resumes
    exactly."""
    env_id: str
    method: str = "fast-ingo"
    seed: int = 0
    policy_kind: str = "mlp"
    hidden: int = 16
    episodes: int = 1
    max_steps: Optional[int] = None
    sigma0: float = 0.1
    popsize: Optional[int] = None
    obs_norm: bool = False
    eval_mean: bool = True
    history: List[Generation] = field(default_factory=list)

    def __post_init__(self):
        if self.method not in METHODS:
            raise InvalidParameterError(f"method: expected one of {', '.join(METHODS)}, got {self.method!r}")
        self.seed = _util.seed(self.seed)
        _util.count("episodes", self.episodes, 1)
        _util.positive("sigma0", self.sigma0)
        env = make_env(self.env_id)
        self.policy = policy_for(env, self.policy_kind, self.hidden)
        limit = env.spec.max_episode_steps if env.spec is not None else None
        self.max_steps = _util.count("max_steps", self.max_steps, 1) if self.max_steps is not None else (limit or 1000)
        env.close()
        d = self.policy.n_params
        n = _util.count("popsize", self.popsize, 2) if self.popsize is not None else thesis_population(d)
        from .. import es
        cls_name, params = METHODS[self.method]
        self.es = getattr(es, cls_name)(np.zeros(d), self.sigma0, seed=self.seed, popsize=n, max_evals=2 ** 62,
                                        convergence=False, **params)
        self.stats = ObsStats()
        self.best_reward = -math.inf
        self.best_params = np.zeros(d)
        self.total_steps = 0
        #: The run's JSON-lines log (an absolute path), named in its checkpoint so that a resumed
        #: run keeps writing it (``python -m gradfree.rl --resume`` without ``--log``).
        self.log_path: Optional[str] = None
        #: The run's identity, written into its log's start records and its checkpoint: a resumed
        #: run refuses a log that another run has since taken over. ``None`` for a run resumed
        #: from a checkpoint of a version that had none (its log is then not checked).
        self.run_id: Optional[str] = _gradfree.new_run_id()

    @property
    def generation(self) -> int:
        return len(self.history)

    def tasks(self, X: np.ndarray) -> List[Task]:
        g = self.generation
        norm = self.stats.frozen() if self.obs_norm else None
        rows = list(X)
        if self.eval_mean:
            rows.append(self.es.mean)
        return [Task(self.env_id, self.policy, np.asarray(x, dtype=np.float64),
                     tuple(rollout_seed(self.seed, g, k, e) for e in range(self.episodes)), self.max_steps, norm,
                     self.obs_norm and k < len(X)) for k, x in enumerate(rows)]

    def step(self, executor: Optional[Executor] = None) -> Optional[Generation]:
        """Runs one generation and returns its record; ``None``, running nothing, once the
        evolution strategy has stopped (before or while sampling: ``es.stop()`` says why)."""
        t0 = time.perf_counter()
        X = None if self.es.stop() else self.es._ask_or_none()
        if X is None:
            return None
        tasks = self.tasks(X)
        t1 = time.perf_counter()
        outs = list(executor.map(run_task, tasks)) if executor is not None else [run_task(t) for t in tasks]
        t2 = time.perf_counter()
        rewards = np.array([o.reward for o in outs[: len(X)]])
        self.es.tell(X, -rewards)
        if self.obs_norm:
            for o in outs[: len(X)]:
                self.stats.merge(o.obs_n, o.obs_sum, o.obs_sq)
        k = int(np.argmax(rewards))
        if rewards[k] > self.best_reward:
            self.best_reward, self.best_params = float(rewards[k]), np.array(X[k])
        steps = sum(o.steps for o in outs)
        self.total_steps += steps
        t3 = time.perf_counter()
        rec = Generation(self.generation + 1, self.es.evaluations, float(rewards.mean()), float(rewards.max()),
                         float(outs[-1].reward) if self.eval_mean else None, self.best_reward, steps, self.total_steps,
                         t2 - t1, (t1 - t0) + (t3 - t2))
        self.history.append(rec)
        return rec

    def log_line(self, rec: Generation) -> dict:
        """The generation record of the core's log (``gradfree_core::GenerationRecord``; ``best_f``
        is minus the best reward, so ``gradfree plot --linear`` draws it) with the RL fields added;
        :class:`gradfree._gradfree.RunLog` writes it."""
        line = {"generation": rec.generation, "evaluations": rec.evaluations,
                "best_f": -rec.best_reward, "gen_best_f": -rec.reward_max, "gen_median_f": -rec.reward_mean,
                "scale": float(self.es.sigma), "seconds": rec.eval_seconds + rec.es_seconds,
                "reward_mean": rec.reward_mean, "reward_max": rec.reward_max, "reward_of_mean": rec.reward_of_mean,
                "best_reward": rec.best_reward, "steps": rec.steps, "total_steps": rec.total_steps,
                "eval_seconds": rec.eval_seconds, "es_seconds": rec.es_seconds}
        # Values that are not finite are null, as in the core's records.
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in line.items()}

    def start_line(self) -> dict:
        return {"algorithm": self.method, "dim": self.policy.n_params, "population_size": self.es.popsize,
                "env": self.env_id, "policy": self.policy_kind, "hidden": self.hidden, "episodes": self.episodes,
                "max_steps": self.max_steps, "seed": self.seed, "obs_norm": self.obs_norm, "start_generation": self.generation}

    def save_policy(self, path: str) -> None:
        """The best policy so far as ``.npz`` (parameters, shape, observation statistics), written
        atomically."""
        norm = self.stats.frozen() if self.obs_norm else None
        buf = io.BytesIO()
        np.savez(buf, params=self.best_params, kind=self.policy_kind, obs_dim=self.policy.obs_dim, act_dim=self.policy.act_dim,
                 hidden=self.hidden, env=self.env_id, reward=self.best_reward, norm_mean=None if norm is None else norm[0],
                 norm_std=None if norm is None else norm[1])
        _gradfree.atomic_write(path, buf.getvalue())

    # Checkpoints ----------------------------------------------------------------------------

    def _unpickle_legacy(self, state) -> None:
        """A run pickled before checked pickles (the checkpoints of older versions, documented to
        load): its strategy is checked by the run's invariant checks."""
        from ..es import _ES
        if not isinstance(state, dict) or not isinstance(state.get("es"), _ES):
            super()._unpickle_legacy(state)
        self.__dict__.update(state)

    def _config(self) -> dict:
        return {"env_id": self.env_id, "method": self.method, "seed": self.seed, "policy_kind": self.policy_kind,
                "hidden": self.hidden, "episodes": self.episodes, "max_steps": self.max_steps, "sigma0": self.sigma0,
                "popsize": self.es.popsize, "obs_norm": self.obs_norm, "eval_mean": self.eval_mean}

    def save_checkpoint(self, path: str) -> None:
        """Writes the run as a gradfree checkpoint (``gradfree optimize --checkpoint``'s format: one
        JSON document, checksummed, written atomically; the strategy's state with the run's
        settings and the policy search's own state as metadata). Floats round-trip exactly, so
        :meth:`load_checkpoint` continues bit for bit."""
        stats = None if self.stats.total is None else {"n": self.stats.n, "total": self.stats.total.tolist(),
                                                         "total_sq": self.stats.total_sq.tolist()}
        meta = {"kind": CHECKPOINT_KIND, "config": self._config(),
                "state": {"stats": stats, "best_reward": self.best_reward if math.isfinite(self.best_reward) else None,
                          "best_params": self.best_params.tolist(), "total_steps": self.total_steps,
                          "history": [asdict(g) for g in self.history]}}
        if self.log_path is not None:
            meta["log"] = self.log_path
        if self.run_id is not None:
            meta["run_id"] = self.run_id
        self.es._run.save_checkpoint(path, json.dumps(meta, allow_nan=False))

    @classmethod
    def load_checkpoint(cls, path: str) -> "PolicySearch":
        """A run saved by :meth:`save_checkpoint`, its file checked first (format, checksum, the
        strategy's invariants): a foreign or corrupt file is a :class:`~gradfree.CheckpointError`.
        Files written by pickle (before this format) still load."""
        with open(path, "rb") as f:
            head = f.read(1)
        if head == b"\x80":  # a pickle (protocol 2 and later) of an older version
            with open(path, "rb") as f:
                run = pickle.load(f)
            if not isinstance(run, cls):
                raise CheckpointError(f"{path}: not a gradfree.rl checkpoint")
            return run
        es_run, meta_json = _gradfree.Run.load_checkpoint(path)
        meta = json.loads(meta_json)
        if not isinstance(meta, dict) or meta.get("kind") != CHECKPOINT_KIND:
            raise CheckpointError(f"{path}: not a gradfree.rl checkpoint (a checkpoint of another kind of run)")
        try:
            run = cls(**meta["config"])
            state = meta["state"]
            if es_run.dim != run.policy.n_params or es_run.name != run.es.algorithm:
                raise CheckpointError(f"{path}: the saved strategy does not fit the policy of {run.env_id}")
            run.es._run = es_run
            if state["stats"] is not None:
                run.stats = ObsStats(float(state["stats"]["n"]), np.array(state["stats"]["total"]), np.array(state["stats"]["total_sq"]))
            run.best_reward = -math.inf if state["best_reward"] is None else float(state["best_reward"])
            run.best_params = np.array(state["best_params"], dtype=np.float64)
            run.total_steps = int(state["total_steps"])
            run.history = [Generation(**g) for g in state["history"]]
            run.log_path = meta.get("log")
            run.run_id = meta.get("run_id")
            if run.run_id is not None and not isinstance(run.run_id, str):
                raise TypeError(f"run_id is {run.run_id!r}")
        except (KeyError, TypeError, ValueError) as e:
            raise CheckpointError(f"{path}: not a valid gradfree.rl checkpoint ({type(e).__name__}: {e})") from None
        return run


def make_executor(kind: str, workers: int):
    """``"process"``: a process pool of ``workers``; ``"ray"``: Ray's multiprocessing ``Pool`` on a
    local (or ``RAY_ADDRESS``) cluster; ``"serial"``: ``None`` (this process)."""
    workers = _util.count("workers", workers, 1)
    if kind == "serial" or (kind == "process" and workers == 1):
        return None
    if kind == "process":
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    if kind == "ray":
        try:
            import ray
            from ray.util.multiprocessing import Pool
        except ImportError as e:
            raise MissingDependencyError(f"executor 'ray' needs Ray: pip install ray ({e})") from None
        started = not ray.is_initialized()
        return _RayPool(Pool(workers), ray if started else None)
    raise InvalidParameterError(f"executor: expected process, ray or serial, got {kind!r}")


class _RayPool:
    """Ray's Pool with the ``map``/``shutdown`` of a ``concurrent.futures`` executor; shutting
    it down also stops the local Ray instance the pool started (so a later pool of another size
    starts afresh), never a cluster it joined."""

    def __init__(self, pool, started_ray=None):
        self.pool = pool
        self.started_ray = started_ray

    def map(self, fn, items):
        return self.pool.map(fn, list(items))

    def shutdown(self, wait=True):
        self.pool.terminate()
        if self.started_ray is not None:
            self.started_ray.shutdown()
            self.started_ray = None


def evaluate_policy(path: str, episodes: int = 5, seed: int = 0, render_dir: Optional[str] = None) -> dict:
    """Replays a saved policy: the mean and standard deviation of its return over ``episodes``
    seeded episodes, and, with ``render_dir``, the first episode's frames as PNG files (needs a
    renderer: MuJoCo's offscreen OpenGL, or pygame for classic control)."""
    z = np.load(path, allow_pickle=True)
    env_id = str(z["env"])
    env = make_env(env_id) if render_dir is None else _make_render_env(env_id)
    spec = policy_for(env, str(z["kind"]), int(z["hidden"]))
    params = z["params"]
    if params.shape != (spec.n_params,):
        raise InvalidParameterError(f"{path}: {params.size} parameters, the policy of {env_id} has {spec.n_params}")
    norm = None if z["norm_mean"].dtype == object else (z["norm_mean"], z["norm_std"])
    returns, frames = [], [0]

    def frame():
        _save_frame(env.render(), os.path.join(render_dir, f"frame{frames[0]:05d}.png"))
        frames[0] += 1
    for e in range(_util.count("episodes", episodes, 1)):
        render = render_dir is not None and e == 0
        total, _ = episode(env, spec, params, rollout_seed(seed, 0, 0, e), None, norm, on_step=frame if render else None)
        returns.append(total)
    env.close()
    return {"env": env_id, "episodes": len(returns), "mean": float(np.mean(returns)), "std": float(np.std(returns)),
            "returns": returns, "frames": frames[0]}


def _make_render_env(env_id: str):
    """The environment with ``render_mode="rgb_array"``, its renderer checked by one frame. Without a
    display MuJoCo is pointed at EGL's offscreen rendering (``MUJOCO_GL=egl``, Mesa's software
    renderer where there is no GPU) unless ``MUJOCO_GL`` already says otherwise."""
    import gymnasium as gym
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("MUJOCO_GL", "egl")
        os.environ.setdefault("PYOPENGL_PLATFORM", os.environ["MUJOCO_GL"])
    env = None
    try:
        spec = gym.spec(env_id)
        kwargs = {}
        if "mujoco" in str(spec.entry_point):
            # A camera that follows the torso: the default one is fixed and a running policy
            # leaves its view within a few hundred steps.
            kwargs["default_camera_config"] = {"type": 1, "trackbodyid": 1, "distance": 4.0, "elevation": -15.0}
        env = gym.make(env_id, render_mode="rgb_array", **kwargs)
        env.reset(seed=0)
        if env.render() is None:
            raise RuntimeError("the environment returned no frame")
        return env
    except Exception as e:  # noqa: BLE001 - any renderer failure becomes one clear error
        if env is not None:
            env.close()
        raise MissingDependencyError(
            f"rendering {env_id} needs a working renderer: MuJoCo uses OpenGL through MUJOCO_GL=egl (libEGL), osmesa "
            f"or glfw (a display); classic control uses pygame ({type(e).__name__}: {e})") from None


def _save_frame(rgb, path: str) -> None:
    try:
        from PIL import Image
    except ImportError as e:
        raise MissingDependencyError(f"saving frames needs Pillow: pip install pillow ({e})") from None
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(np.asarray(rgb)).save(path)
