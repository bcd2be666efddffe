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
import types as _types

from ._executors import make_executor
from ._policy import ObsStats, PolicySpec, policy_for
from ._replay import evaluate_policy
from ._rollout import MissingDependencyError, Outcome, Task, episode, make_env, rollout_seed, run_task
from ._search import CHECKPOINT_KIND, METHODS, Generation, PolicySearch, thesis_population

__all__ = ["METHODS", "CHECKPOINT_KIND", "MissingDependencyError", "thesis_population", "PolicySpec", "policy_for",
           "ObsStats", "rollout_seed", "Task", "Outcome", "make_env", "episode", "run_task", "Generation", "PolicySearch",
           "make_executor", "evaluate_policy"]

# The classes and functions are gradfree.rl's wherever their code lives: pickles and checkpoints name
# them ``gradfree.rl.<name>`` (pickle's references, and the class tags of gradfree._pickling), as
# they did before the code was split into modules, so that either version loads the other's
# (MissingDependencyError stays gradfree.errors', where every exception is).
for _name in __all__:
    if isinstance(globals()[_name], (type, _types.FunctionType)) and globals()[_name].__module__.startswith(__name__):
        globals()[_name].__module__ = __name__
del _name
