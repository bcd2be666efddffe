"""pycma's interface over gradfree's CMA-ES: ``CMAEvolutionStrategy``, ``CMAOptions``, ``fmin2``
and the helpers pycma's examples use (``ff``, ``s``, ``optimization_tools``, ``plot``), so that code
written for pycma (the ``cma`` package, version 4.x) runs with ``import gradfree.cma as cma`` (or,
as before, ``import gradfree.es as cma``: :mod:`gradfree.es` hands these names on from here).

This layer sits on :mod:`gradfree.es` and is never imported by it: the optimizer is
``gradfree.es.CMAES`` (the Rust crate's CMA-ES), the option names pycma shares with gradfree's
keywords are ``gradfree.es.PYCMA_OPTIONS`` and ``PYCMA_STOP_NAMES``, and the math (recombination
weights, pycma's ``BoundTransform``) is the Rust core's.
"""
from __future__ import annotations

import sys as _sys

from ..es import PYCMA_OPTIONS, PYCMA_STOP_NAMES
from . import _ff as ff
from . import _fmin, _options, _strategy, _tools
from ._fmin import fmin2
from ._options import CMAOptions
from ._strategy import CMAEvolutionStrategy
from ._tools import BestSolution, EvalParallel2, Logger, optimization_tools, plot, s, warnings_and_exceptions

fitness_functions = ff

# The public classes pickle under this package's name, which stays where the files behind it move.
CMAEvolutionStrategy.__module__ = CMAOptions.__module__ = __name__

# Pickles written before this package existed name the modules the pycma layer had then: they load
# (their class tag is accepted as this package's, gradfree._pickling.FORMER_TAGS).
for _old, _new in (("_pycma", _strategy), ("_pycma_options", _options), ("_pycma_tools", _tools), ("_pycma_ff", ff),
                   ("_pycma_fmin", _fmin)):
    _sys.modules.setdefault(f"gradfree.{_old}", _new)

__all__ = ["CMAEvolutionStrategy", "CMAOptions", "fmin2", "ff", "fitness_functions", "s", "optimization_tools", "plot",
           "BestSolution", "EvalParallel2", "Logger", "warnings_and_exceptions", "PYCMA_OPTIONS", "PYCMA_STOP_NAMES"]
