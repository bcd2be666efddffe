"""gradfree: gradient-free optimization and quasi-Monte Carlo, from Rust.

Evolution strategies with pycma's loop::

    import numpy as np, gradfree
    es = gradfree.INGO(np.full(10, 0.5), 0.5, seed=1)
    while not es.stop():
        X = es.ask()
        es.tell(X, [float(np.sum(x ** 2)) for x in X])
    print(es.result.fbest)

What this top level holds: the evolution strategies of ``gradfree.es`` (one class per algorithm,
``minimize``, ``OptimizeResult``, ``Result``, ``algorithms``), the QMC engines and lattice
functions of ``gradfree.qmc``, the exceptions and warnings of ``gradfree.errors``, the built-in benchmark
functions (``Problem``, ``run_builtin``) and one module per job. Everything else
is in its job's module (``gradfree.robust.RobustClassifier``, ``gradfree.bo.Optimizer``, ...), not
here: ``gradfree.minimize`` is the evolution strategies' and ``gradfree.bo.minimize`` the
Bayesian optimizer's. The command line's name for each job and its Python module:

    ===========================  ===================================  ============================
    job                          command line                         Python module
    ===========================  ===================================  ============================
    optimize a function          gradfree optimize                    gradfree.es
    the same with pycma's API    gradfree optimize --algo cmaes       gradfree.cma
    sample and integrate (QMC)   gradfree sample/lattice/integrate    gradfree.qmc
    kernel features              gradfree features                    gradfree.kernel_approximation
    batch Bayesian optimization  gradfree bo                          gradfree.bo
    confidence intervals         gradfree infer                       gradfree.inference
    noisy labels, input noise    gradfree train                       gradfree.robust
    policy search                python -m gradfree.rl                gradfree.rl
    the documents' experiments   gradfree reproduce                   gradfree.experiments
    ===========================  ===================================  ============================

QMC engines with scipy.stats.qmc's interface (``random``, ``reset``, ``fast_forward``)::

    pts = gradfree.Sobol(64, seed=1).random(1024)
    lat = gradfree.SubgroupLattice(50, 101)            # thesis eq. (5.14)
    print(lat.min_distance("l1"))                      # 12.624 (thesis Table 5.1)
"""
from __future__ import annotations

from . import bo, cma, errors, es, experiments, inference, qmc, rl
from ._es_minimize import OptimizeResult, minimize
from ._gradfree import Problem, run_builtin
from .errors import *  # noqa: F401,F403  (every exception and warning: errors.__all__, listed once there)
from .es import _METHODS, Result, algorithms  # noqa: F401
from .qmc import (Halton, KorobovLattice, Rank1Lattice, SearchedLattice, Sobol, SubgroupLattice, discrepancy, korobov,
                  lattice_search, min_distance, subgroup_vector)

globals().update(es._CLASSES)  # one class per algorithm of the registry, as in gradfree.es

#: Job modules imported on first use (``gradfree.robust``, ...): they load scikit-learn, which
#: would double the time of ``import gradfree``.
_LAZY = ("kernel_approximation", "robust")


def __getattr__(name):
    if name in _LAZY:
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'gradfree' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))

__all__ = [
    *es._CLASSES,
    "minimize", "OptimizeResult", "Result", "Sobol", "Halton", "Rank1Lattice", "SubgroupLattice", "KorobovLattice",
    "SearchedLattice", "Problem", "algorithms", "discrepancy", "korobov", "lattice_search", "min_distance",
    "run_builtin", "subgroup_vector",
    *errors.__all__, "bo", "cma", "es", "qmc", "errors", "experiments", "inference", "kernel_approximation", "rl", "robust",
]
