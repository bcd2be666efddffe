"""The policy network of :mod:`gradfree.rl` (its shape, its flat parameter layout, the action for
an observation) and the running observation statistics that normalize its input."""
# No ``from __future__ import annotations``: the classes here name ``gradfree.rl`` as their module
# (for pickles), so their annotations are evaluated here rather than looked up there later.
from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from .. import _util
from ..errors import InvalidParameterError


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
        """The action for one observation: the index of the largest output for a discrete
        policy, the outputs clipped to ``[low, high]`` for a continuous one."""
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
        """Adds ``n`` observations given by their sum ``total`` and their sum of squares
        ``total_sq`` (coordinate-wise)."""
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
