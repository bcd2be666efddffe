"""pycma's ``fmin2`` over :class:`gradfree.es.CMAEvolutionStrategy`: a whole run, optionally with
IPOP or BIPOP restarts (Auger & Hansen 2005; Hansen 2009) run by the Rust restart wrapper, with
pycma's signature, callbacks and printed summary (``cma/evolution_strategy.py``, ``fmin2`` and
``fmin``)."""
from __future__ import annotations

import math

import numpy as np

from .. import _util
from .._es_options import _incpopsize
from ..errors import InvalidParameterError
from ._options import CMAOptions, _bounds
from ._strategy import CMAEvolutionStrategy, _callbacks


def fmin2(objective_function, x0, sigma0, options=None, args=(), gradf=None, restarts=0, restart_from_best=False,
          incpopsize=2, eval_initial_x=False, parallel_objective=None, noise_handler=None, noise_change_sigma_exponent=1,
          noise_kappa_exponent=0, bipop=False, callback=None, init_callback=None, constraints=None):
    """Minimizes ``objective_function`` with CMA-ES and returns ``(xbest, es)``, as pycma's
    ``cma.fmin2`` (``es`` a ``CMAEvolutionStrategy``; see ``es.result`` and
    ``es.result_pretty()``).

    Parameters
    ----------
    objective_function : callable or None
        ``objective_function(x, *args) -> float``; may be ``None`` with ``parallel_objective``.
    x0 : array_like, callable or CMAEvolutionStrategy
        Start point; a callable is called once for it; a ``CMAEvolutionStrategy`` is continued
        (then ``sigma0`` and ``options`` must be ``None``).
    sigma0 : float
        Initial step size.
    options : dict, optional
        pycma's options (``CMAOptions``), e.g. ``{'ftarget': 1e-8, 'maxfevals': 1e4}``.
    args : tuple
        Extra arguments of the objective.
    restarts : int or dict, default 0
        Most IPOP restarts (population doubled each time), run by gradfree's Rust restart wrapper
        until the budget, the target or another stop rule ends the run; pycma's dict form
        ``{'maxrestarts': k}`` too. Each restart starts from ``x0`` (from a uniform draw in
        ``bounds`` when the options give finite bounds), not from a new call of a callable ``x0``.
        Each run's end is judged by the restart wrapper's own convergence rules, so the options
        ``tolfun``, ``tolx``, ``tolflatfitness``, ``tolstagnation``, ``tolconditioncov`` and
        ``maxiter`` (which would end all runs) are refused with restarts; the last run has no
        convergence rule, so the run ends on ``maxfevals`` (default with restarts: gradfree's
        ``10000 * N``), ``ftarget`` or ``timeout``.
    incpopsize : float, default 2
        The population's growth per (large) restart, a number >= 1: restart j runs
        ``round(popsize0 * incpopsize**j)`` points.
    eval_initial_x : bool, default False
        Evaluate ``x0`` first (counted in ``countevals``, a candidate for ``xbest``).
    parallel_objective : callable, optional
        ``parallel_objective(X, *args) -> list`` evaluates a whole population, used instead of
        ``objective_function``.
    bipop : bool, default False
        BIPOP restarts (Hansen 2009) instead of IPOP.
    callback : callable or list of callables, optional
        Called as ``callback(es)`` after each iteration.
    init_callback : callable or list of callables, optional
        Called as ``init_callback(es)`` once the strategy is made.
    gradf, restart_from_best, noise_handler, noise_change_sigma_exponent, noise_kappa_exponent, constraints
        pycma's; not offered by gradfree, so only their defaults are accepted (see Raises).

    Returns
    -------
    xbest : numpy.ndarray
        The best point evaluated.
    es : CMAEvolutionStrategy
        The strategy, stopped.

    Raises
    ------
    InvalidParameterError
        For an argument gradfree cannot honour, named with what to use instead: ``gradf`` (gradfree
        is gradient-free), ``restart_from_best=True``, ``noise_handler`` (and the noise exponents), ``constraints``; and for refused options.
    """
    args = _util.args("args", args)
    eval_initial_x = _util.flag("eval_initial_x", eval_initial_x)
    if gradf is not None:
        raise InvalidParameterError("gradf: gradients are not used by gradfree's gradient-free CMA-ES; pass gradf=None")
    if restart_from_best:
        raise InvalidParameterError("restart_from_best=True is not offered: gradfree's restarts start from x0 (or from "
                                    "uniform draws in finite bounds); pass restart_from_best=False")
    incpopsize = _incpopsize(incpopsize)
    if noise_handler is not None and noise_handler is not False:
        raise InvalidParameterError("noise_handler is not offered by gradfree (no uncertainty handling); pass None, and "
                                    "average repeated evaluations in the objective instead")
    if noise_change_sigma_exponent != 1 or noise_kappa_exponent != 0:
        raise InvalidParameterError("noise_change_sigma_exponent and noise_kappa_exponent only act with a noise_handler, "
                                    "which gradfree does not offer; leave them at 1 and 0")
    if constraints is not None:
        raise InvalidParameterError("constraints are not offered by gradfree's CMA-ES; pass None, and use the option "
                                    "'bounds' or a penalty in the objective")
    if objective_function is None and parallel_objective is None:
        raise InvalidParameterError("objective_function: expected a callable (or pass parallel_objective)")
    for name, f in (("objective_function", objective_function), ("parallel_objective", parallel_objective)):
        if f is not None and not callable(f):
            raise InvalidParameterError(f"{name}: expected a callable, got {f!r}")
    max_restarts = restarts
    if isinstance(restarts, dict):
        unknown = set(restarts) - {"maxrestarts", "maxfevals"}
        if unknown:
            raise InvalidParameterError(f"restarts: unknown keys {sorted(unknown)}; expected 'maxrestarts'")
        if restarts.get("maxfevals", math.inf) != math.inf:
            raise InvalidParameterError("restarts['maxfevals'] is not offered; use the option 'maxfevals' (the whole "
                                        "budget of all restarts)")
        max_restarts = restarts.get("maxrestarts", 9) if restarts else 0
    max_restarts = _util.count("restarts", max_restarts, 0, (1 << 32) - 1)
    if not isinstance(bipop, (bool, np.bool_, int, np.integer)) or bipop not in (0, 1):
        raise InvalidParameterError(f"bipop = {bipop!r}: expected True or False (gradfree's BIPOP budget ratio is 1)")
    init_cbs, cbs = _callbacks(init_callback), _callbacks(callback)
    if isinstance(x0, CMAEvolutionStrategy):
        if options is not None or max_restarts:
            raise InvalidParameterError("x0 is a CMAEvolutionStrategy: options and restarts cannot change it; pass "
                                        "options=None, restarts=0")
        es = x0
    else:
        if callable(x0):
            x0 = x0()
        x0 = _util.vector("x0", x0, "pycma", full=True)    # pycma's shape rule, before anything reads x0
        run_kwargs = {}
        if max_restarts > 0:
            run_kwargs = dict(restarts=max_restarts, bipop=bool(bipop), incpopsize=incpopsize)
            box = _bounds(CMAOptions(dict(options or {})).get("bounds"), int(x0.size))
            if box is not None and np.all(np.isfinite(box[0])) and np.all(np.isfinite(box[1])):
                run_kwargs["restart_bounds"] = (box[0], box[1])
        es = CMAEvolutionStrategy(x0, sigma0, options, _run_kwargs=run_kwargs)
    for cb in init_cbs:
        cb(es)

    def evaluate(X):
        if parallel_objective is not None:
            return list(parallel_objective(X, *args))
        return [objective_function(x, *args) for x in X]

    if eval_initial_x and es.countiter == 0:
        x = es._pheno(es.x0)
        f0 = evaluate([x])[0]
        es._extra_evals += 1
        es.best.update([x], arf=[_util.real("f(x0)", f0)], evals=es.countevals)
    while not es.stop():
        try:
            X = es.ask()
        except InvalidParameterError:
            if es.stop():      # the run stopped while sampling (diverged)
                break
            raise
        es.tell(X, evaluate(X))
        for cb in cbs:
            cb(es)
        es.disp()
    if es.opts["verb_disp"] > 0:
        es.result_pretty(number_of_restarts=es.restarts_done)
    return es.result.xbest, es
