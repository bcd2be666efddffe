"""Rollouts of :mod:`gradfree.rl`: Gymnasium environments, one episode of a policy, and one
evaluation (a :class:`Task`, run in whichever process the executor picks) with its seeds."""
# No ``from __future__ import annotations``: the classes here name ``gradfree.rl`` as their module
# (for pickles), so their annotations are evaluated here rather than looked up there later.
from dataclasses import dataclass
from typing import Callable, Optional, Tuple

import numpy as np

from ..errors import InvalidParameterError, MissingDependencyError
from ._policy import PolicySpec


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
