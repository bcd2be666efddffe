"""Batch Bayesian optimization (Lyu 2021, thesis ch. 4) with scikit-optimize's interface.

A Gaussian process with an ARD Matérn 5/2 kernel and a constant mean (ordinary kriging;
hyper-parameters by maximum likelihood), an initial design (by default the thesis' rank-1
lattice, Alg. 9/10, shifted modulo 1 by a vector drawn from ``random_state`` and handed out in van
der Corput order), then points chosen by

- ``"bkop"``: the thesis' batch rule (Alg. 6/8), the batch chosen jointly (default);
- ``"ucb"``: constant-weight confidence bound (Alg. 5/7);
- ``"gp-bucb"``: GP-BUCB (Desautels, Krause & Burdick 2014);
- ``"gp-ucb-pe"``: GP-UCB-PE (Contal et al. 2013);
- ``"bull"``: Bull's (2011) non-adaptive design plus one final point;
- ``"ei"``: expected improvement (Jones et al. 1998) in logarithms, batches by the Kriging
  believer (Ginsbourger et al. 2010), as a baseline.

scikit-optimize's scripts run with the import changed (``from gradfree.bo import gp_minimize,
Optimizer``; ``from gradfree.bo.space import Real, Integer, Categorical``; ``from
gradfree.bo.callbacks import DeltaYStopper``; ``from gradfree.bo import dump, load``)::

    from gradfree.bo import Optimizer
    opt = Optimizer([(-2.0, 2.0), (1e-5, 1e-1, "log-uniform"), [1, 2, 4, 8]], random_state=0)
    for _ in range(30):
        x = opt.ask()                # one point
        res = opt.tell(x, f(x))      # the result so far
    X = opt.ask(n_points=5)          # a batch, chosen jointly; pending points are avoided

    from gradfree.bo import gp_minimize
    res = gp_minimize(f, [(-2.0, 2.0)] * 6, n_calls=60, random_state=0, n_jobs=5)
    res.x, res.fun, res.x_iters, res.func_vals, res.models[-1].predict([[0.0] * 6])

Dimensions follow scikit-optimize's ``check_dimension`` to the letter (:mod:`gradfree.bo.space`),
and scikit-optimize's own ``Real``/``Integer``/``Categorical``/``Space`` objects are read when
given. What each scikit-optimize option maps to is :data:`SKOPT_OPTIONS`. The GP, its fit and
the acquisition search run in Rust without the GIL.
"""
from . import callbacks, space, utils
from .callbacks import (CheckpointSaver, DeadlineStopper, DeltaXStopper, DeltaYStopper, EarlyStopper,
                        HollowIterationsStopper, ThresholdStopper, TimerCallback, VerboseCallback)
from ._loop import gp_minimize, minimize
from .optimizer import SKOPT_OPTIONS, GaussianProcessModel, Optimizer, methods
from .space import Categorical, Integer, Real, Space, check_dimension
from .utils import dump, load, use_named_args

__all__ = ["Optimizer", "gp_minimize", "minimize", "methods", "SKOPT_OPTIONS", "GaussianProcessModel", "Real",
           "Integer", "Categorical", "Space", "check_dimension", "dump", "load", "use_named_args", "callbacks", "space",
           "utils", "EarlyStopper", "DeltaXStopper", "DeltaYStopper", "HollowIterationsStopper", "DeadlineStopper",
           "ThresholdStopper", "TimerCallback", "VerboseCallback", "CheckpointSaver"]
