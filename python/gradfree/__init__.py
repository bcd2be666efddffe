"""gradfree: gradient-free optimization and quasi-Monte Carlo, from Rust.

Evolution strategies with pycma's loop::

    import numpy as np, gradfree
    es = gradfree.INGO(np.full(10, 0.5), 0.5, seed=1)
    while not es.stop():
        X = es.ask()
        es.tell(X, [float(np.sum(x ** 2)) for x in X])
    print(es.result.fbest)

Subsystems live in submodules (``gradfree.es``, ``gradfree.qmc``, ``gradfree.bo``,
``gradfree.kernel_approximation``, ``gradfree.inference``, ``gradfree.robust``, ``gradfree.errors``); their
public names are also available here. ``gradfree.experiments`` lists and runs the experiments of
``gradfree reproduce``.

QMC engines with scipy.stats.qmc's interface (``random``, ``reset``, ``fast_forward``)::

    pts = gradfree.Sobol(64, seed=1).random(1024)
    lat = gradfree.SubgroupLattice(50, 101)            # thesis eq. (5.14)
    print(lat.min_distance("l1"))                      # 12.624 (thesis Table 5.1)
"""
from __future__ import annotations

from . import bo, errors, es, experiments, inference, qmc
from ._gradfree import Problem, run_builtin
from .errors import (CheckpointError, DataError, GradfreeError, InvalidParameterError, ModelFitError, NonFiniteError,
                     TooLargeError)
from .es import *  # noqa: F401,F403  (one class per registry entry)
from .es import _METHODS, OptimizeResult, Result, algorithms, minimize  # noqa: F401
from .qmc import (Halton, KorobovLattice, Rank1Lattice, SearchedLattice, Sobol, SubgroupLattice, discrepancy, korobov,
                  lattice_search, min_distance, subgroup_vector)

__all__ = [
    *es._CLASSES,
    "minimize", "OptimizeResult", "Sobol", "Halton", "Rank1Lattice", "SubgroupLattice", "KorobovLattice",
    "SearchedLattice", "Problem", "algorithms", "discrepancy", "korobov", "lattice_search", "min_distance",
    "run_builtin", "subgroup_vector",
    "GradfreeError", "InvalidParameterError", "NonFiniteError", "CheckpointError", "ModelFitError", "TooLargeError",
    "DataError", "bo", "es", "qmc", "errors", "experiments", "inference",
]
