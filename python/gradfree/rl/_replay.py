"""Replay of a policy that :mod:`gradfree.rl` saved: its returns over seeded episodes and, on
request, the first episode's frames as PNG files."""
from __future__ import annotations

import os
from typing import Optional

import numpy as np

from .. import _util
from ..errors import InvalidParameterError
from ._policy import policy_for
from ._rollout import MissingDependencyError, episode, make_env, rollout_seed


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
