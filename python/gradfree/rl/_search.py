"""The policy search of :mod:`gradfree.rl`: the strategies it runs (:data:`METHODS`), one run
(:class:`PolicySearch`: a generation of rollouts per step, its log records, the best policy) and
its checkpoints."""
# No ``from __future__ import annotations``: the classes here name ``gradfree.rl`` as their module
# (for pickles and checkpoints), so their annotations are evaluated here rather than looked up there.
import io
import json
import math
import pickle
import time
from concurrent.futures import Executor
from dataclasses import asdict, dataclass, field
from typing import List, Optional

import numpy as np

from .. import _gradfree, _util
from .._pickling import Checked as _Checked
from ..errors import CheckpointError, InvalidParameterError
from ._policy import ObsStats, policy_for
from ._rollout import Task, make_env, rollout_seed, run_task

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


def thesis_population(d: int) -> int:
    """The thesis' samples per iteration for the RL tasks, ``N = 20 + 4 floor(floor(3 ln d) / 2)``
    (sec. 3.7.2); always even, so the samples can be antithetic pairs."""
    return 20 + 4 * (int(math.floor(3 * math.log(d))) // 2)


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
        """Generations run so far (the length of ``history``)."""
        return len(self.history)

    def tasks(self, X: np.ndarray) -> List[Task]:
        """The evaluations of one generation: one :class:`Task` per row of ``X`` (seeded by
        :func:`rollout_seed`), then one of the mean with ``eval_mean``."""
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
        """The run's settings for the start record of its log."""
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
