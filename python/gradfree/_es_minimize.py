"""``gradfree.minimize``: an evolution strategy with ``scipy.optimize.minimize``'s interface, and
its ``OptimizeResult`` (re-exported by :mod:`gradfree.es`)."""
from __future__ import annotations

import json
import math
from typing import Callable, Optional

import numpy as np

from . import _gradfree, _pickling, _util
from .errors import CheckpointError, InvalidParameterError
from .es import _METHODS

try:
    from scipy.optimize import OptimizeResult as _ResultBase
except ImportError:  # pragma: no cover - scipy is optional at run time
    class _ResultBase(dict):
        """A dict whose keys are also attributes (scipy's ``OptimizeResult`` without scipy)."""

        def __getattr__(self, name):
            try:
                return self[name]
            except KeyError as e:
                raise AttributeError(name) from e

        __setattr__ = dict.__setitem__
        __delattr__ = dict.__delitem__


class OptimizeResult(_ResultBase):
    """``scipy.optimize.OptimizeResult`` (a subclass of it when scipy is installed): a dict whose
    keys are also attributes (``x``, ``fun``, ``nfev``, ``nit``, ``success``, ``message``, ...).
    Pickles are checked (gradfree._pickling: format, class, version, checksum)."""

    _pickle_version = 1

    def _to_pickle(self) -> dict:
        return dict(self)

    @classmethod
    def _from_pickle(cls, items):
        if not isinstance(items, dict):
            raise CheckpointError(f"a pickle of OptimizeResult whose items are a {type(items).__name__} (changed or damaged)")
        out = cls()
        out.update(items)
        return out


OptimizeResult.__module__ = "gradfree.es"      # its public home (and its pickles' class tag)
_pickling.restorable(OptimizeResult)


#: The method ``minimize`` uses when none is named: ``algorithm``, ``restarts``, ``params`` and a
#: ``description`` (the Rust crate's ``RECOMMENDED``, the one place the choice is written).
RECOMMENDED = json.loads(_gradfree.recommended_json())
#: Named presets ``minimize`` accepts as ``method`` (``"surrogate"``: lq-CMA-ES with BIPOP restarts,
#: for expensive functions), each with the fields of ``RECOMMENDED`` (the Rust crate's ``PRESETS``).
PRESETS = json.loads(_gradfree.presets_json())


def minimize(f: Callable[[np.ndarray], float], x0, method: Optional[str] = None, sigma0: Optional[float] = None,
             seed: Optional[int] = None, max_evals: Optional[int] = None, target: Optional[float] = None, bounds=None,
             restarts=None, executor=None, settle_runs=None, restart_bounds=None, worse_runs=None,
             **params) -> OptimizeResult:
    """Minimizes ``f`` with an evolution strategy, as ``scipy.optimize.minimize``.

    Parameters
    ----------
    f : callable
        ``f(x) -> float`` for one point ``x`` of shape (d,). Exceptions propagate unchanged; NaN
        values follow the algorithm's ``on_nonfinite`` policy.
    x0 : array_like, shape (d,)
        Start point.
    method : str, optional
        A continuous algorithm of ``gradfree.algorithms()`` (``"cmaes"``, ``"ingo"``, ``"xnes"``,
        ...), with its own defaults (the thesis' for the INGO family), or ``"surrogate"``, for
        expensive functions: lq-CMA-ES (Hansen 2019, "A global surrogate assisted CMA-ES"), which
        ranks most of each population with a linear-quadratic model of ``f`` and evaluates only
        what the model cannot rank, with BIPOP restarts and the settle rule as for the default
        (``gradfree.es.PRESETS["surrogate"]``; user guide, docs/results/optimizers.md). ``None``: the recommended
        method, ``gradfree.es.RECOMMENDED``: CMA-ES (Hansen's 2016 tutorial) with BIPOP restarts
        (Hansen 2009), quasi-Monte Carlo directions (``sampling="sphere-qmc"``: rotated subgroup
        points on the sphere, thesis sec. 5.6) and pycma's step-size damping for large populations
        (``damping="pycma"``; the tutorial's up to d = 5). On COCO's bbob suite (f1-f24, 15 instances, budget
        10^4 d, sigma0 = 2) it had a larger area under the runtime ECDF than pycma's BIPOP-CMA-ES
        (``cma.fmin2(..., restarts=9, bipop=True)``) at d = 2, 5, 10 and 20, and than the other
        CMA-ES variants measured (i.i.d. or orthogonal directions; IPOP), and at d = 10 it needed no
        more evaluations than pycma on 20 of 24 functions (``benches/coco_side_by_side.py``; the
        user guide's docs/results/optimizers.md has the table). INGO's fastest form measured is
        ``method="ingo", step_size="tpa", beta=1.5 / d, sampling="sphere-qmc", cusp_guard=True,
        restarts="bipop"``: level with CMA-ES + IPOP on bbob at d = 10 and solving the thesis'
        functions at d = 100 (user guide, docs/results/optimizers.md, "Options that measurably help INGO").
    sigma0 : float, default 0.5
        Initial step size.
    seed : int, optional
        Seed (``None``: drawn from the OS).
    max_evals : int, default ``10000 * d``
        Evaluation budget.
    target : float, optional
        Stop once ``f <= target``.
    bounds : (lower, upper), optional
        ``f`` sees only points in the box: pycma's smooth ``BoundTransform`` maps the optimizer's
        points into it (``bounds_handling="clip"`` etc. choose another map; see the ES classes).
    restarts : bool, int or {"ipop", "bipop"}, optional
        Restarts (``True``/``"ipop"``: IPOP, doubling population; ``"bipop"``: BIPOP; an int: at
        most that many IPOP restarts), each from a uniform point in ``restart_bounds`` or
        ``bounds`` if given, else from ``x0``, until the budget is spent, the ``target`` is reached or (``settle_runs``) the
        restarts settle. ``None``: BIPOP for the recommended method and ``"surrogate"``, none for a
        named algorithm.
    restart_bounds : (lower, upper), optional
        Where restarts draw their start points (uniformly), when that region is smaller than
        ``bounds`` or there are no bounds: pycma's ``fmin2`` with a callable ``x0``, e.g. COCO's
        protocol of starts in [-4, 4]^d inside the [-5, 5]^d domain. Default: ``bounds``, else ``x0``.
    settle_runs : int or False, optional
        With restarts: stop once this many converged runs in a row after the run that found the
        best point have each converged back to it (value within ``1e-11 + 1e-10 |f|``, pycma's
        ``tolfun`` plus a relative part; point within ``1e-2 sigma0 sqrt(d)``): more restarts are
        not expected to help, and the run ends with ``stop="restarts_settled"``, a success. A
        converged run at a worse value (another local optimum) starts the count again, so on
        multimodal functions the restarts go on. ``None``: 2 for the recommended method and
        ``"surrogate"`` when no ``target`` is given (chosen on COCO's bbob suite: no target lost at
        d = 5 and 10; user guide, docs/results/optimizers.md), off with a ``target`` (the restarts go on until
        it is reached or the budget is spent, as pycma's with ``ftarget``: a run that settled above
        the target would end as a failure with budget left), off for a named algorithm; ``False``: off (restarts use all of ``max_evals`` unless the target is
        reached). Without restarts there is nothing to settle (``restarts=False`` gives one run
        that stops on convergence).
    worse_runs : float or False, optional
        With restarts: end a run once it is converging to a value worse than the best of the
        earlier runs that ended flat (its last generation's values span at most ``worse_runs``
        times the gap, and Aitken's extrapolation of its best values leaves at most 10 times that to
        gain): such a run can only refine a point that is not the answer, and its evaluations go to
        the next restart. A ratio in (0, 1). ``None``: 0.01 for the recommended method (chosen on
        COCO's bbob suite; user guide, docs/results/optimizers.md), off for ``"surrogate"`` and a
        named algorithm; ``False``: off.
    executor : concurrent.futures.Executor, optional
        Each population is evaluated through ``executor.map`` (or a Ray pool's ``map``).
    **params
        Stop rules (``tol_fun``, ``tol_x``, ``convergence``, ...) and algorithm parameters, as for
        the ES classes.

    Returns
    -------
    OptimizeResult
        ``x``, ``fun``, ``nfev``, ``nit``, ``restarts``, ``success`` (the target was reached; without
        a target: ``tol_fun``, ``tol_x`` or ``restarts_settled`` fired), ``stop`` (the rule that
        fired) and ``message`` (what it means).
    """
    x0 = _util.vector("x0", x0, "scipy")      # scipy.optimize.minimize's rule: a scalar is one coordinate
    if settle_runs is not None and settle_runs is not False and (
            isinstance(settle_runs, bool) or not isinstance(settle_runs, (int, np.integer)) or not 0 <= settle_runs < 1 << 32):
        raise InvalidParameterError(f"settle_runs: expected a count in [1, 2**32 - 1], 0/False (off) or None (the default), "
                                    f"got {settle_runs!r}")
    asked_settle = bool(settle_runs)
    if worse_runs is not None and worse_runs is not False and (
            isinstance(worse_runs, bool) or not isinstance(worse_runs, (int, float, np.integer, np.floating))
            or not 0 < worse_runs < 1):
        raise InvalidParameterError(f"worse_runs: expected a ratio in (0, 1), False (off) or None (the default), got {worse_runs!r}")
    asked_worse = worse_runs is not None and worse_runs is not False
    preset = RECOMMENDED if method is None else PRESETS.get(method) if isinstance(method, str) else None
    if preset is not None:
        method = preset["algorithm"]
        params = {**preset["params"], **params}
        if restarts is None:
            restarts = preset["restarts"]
        if settle_runs is None:
            # The preset's rule for a run with or without a target (Rust's
            # Recommended::default_settle_runs: with a target the restarts go on until it or the budget).
            settle_runs = preset["default_settle_runs"]["without_target" if target is None else "with_target"]
        if worse_runs is None:
            worse_runs = preset["worse_runs"]
    if restarts is None:
        restarts = False
    settle_runs = int(settle_runs) if settle_runs else None
    cls = _METHODS.get(method) if isinstance(method, str) else None
    if cls is None:
        raise InvalidParameterError(f"method {method!r}: expected one of {sorted(_METHODS)}")
    executor = _util.executor(executor)
    shape = x0.shape
    box = _util.box("bounds", bounds, shape)
    restart_box = _util.box("restart_bounds", restart_bounds, shape)
    es = cls(x0, sigma0, seed=seed, max_evals=max_evals, target=target, restarts=restarts, bounds=box,
             restart_bounds=box if restart_box is None else restart_box, **params)
    if not es._run.set_settle_runs(settle_runs) and asked_settle:
        raise InvalidParameterError(f"settle_runs={settle_runs}: the run has no restarts (restarts={restarts!r})")
    worse_runs = float(worse_runs) if worse_runs else None
    if not es._run.set_worse_runs(worse_runs) and asked_worse:
        raise InvalidParameterError(f"worse_runs={worse_runs}: the run has no restarts (restarts={restarts!r})")
    while not es.stop():
        X = es._ask_or_none()
        if X is None:
            break
        values = [_util.real("f(x)", v) for v in (executor.map(f, X) if executor is not None else (f(x) for x in X))]
        es.tell(X, values)
    reasons = es.stop()
    return OptimizeResult(x=es.xbest if es.evaluations and math.isfinite(es.fbest) else None, fun=es.fbest, nfev=es.evaluations,
                          nit=es.iterations, restarts=es.restarts_done, success=es.success, stop=next(iter(reasons), ""),
                          message=es.stop_message or "stopped")


minimize.__module__ = "gradfree.es"
