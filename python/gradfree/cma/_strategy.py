"""pycma's interface over gradfree's CMA-ES: ``CMAEvolutionStrategy``, ``CMAOptions``, ``fmin2``
and the helpers pycma's examples use (``ff``, ``s``, ``optimization_tools``, ``plot``), so that
code written for pycma (the ``cma`` package, version 4.x) runs with ``import gradfree.es as cma``.

The names, defaults, call signatures and printed lines follow pycma's (N. Hansen et al.,
https://github.com/CMA-ES/pycma, ``cma/evolution_strategy.py`` and ``cma/options_parameters.py``);
the optimizer underneath is ``gradfree.es.CMAES`` (the Rust crate's CMA-ES, Hansen's 2016
tutorial with active weights and CSA, here with pycma's step-size damping, ``damping="pycma"``),
so runs are not bit-identical to pycma's. What pycma
offers and gradfree does not is refused with ``InvalidParameterError`` naming it, never ignored;
``CMAOptions.handling()`` lists how each option is treated.
"""
from __future__ import annotations

import math
import pickle
import sys
import time
import warnings as _warnings

import numpy as np

from .. import _gradfree, _util
from . import _ff as ff
from ._options import (_OPTIONS, DEFAULT_ONLY, HONOURED, IGNORED, CMAOptions, _bounds,  # noqa: F401
                       _check_key, _default_value, _evaluate, _off_or, _refuse_option, _transform)
from ._tools import (BestSolution, EvalParallel2, Logger, NeverTestedWarning, _Blank, _call,  # noqa: F401
                     _vequals_approximately, optimization_tools, plot, s, warnings_and_exceptions)
from ..errors import InvalidParameterError
from ..es import _MAXFEVALS_INF, CMAES, PYCMA_STOP_NAMES, Result, _ES


class CMAEvolutionStrategy(CMAES):
    """CMA-ES with pycma's interface (``cma.CMAEvolutionStrategy``): ``es =
    CMAEvolutionStrategy(x0, sigma0, inopts)``, then ``while not es.stop(): X = es.ask();
    es.tell(X, [f(x) for x in X]); es.disp()``, or ``es.optimize(f)``; ``es.result`` and
    ``es.result_pretty()``.

    The optimizer is gradfree's CMA-ES (``gradfree.es.CMAES``); the options, stop names, printed
    lines and attributes are pycma's.

    Parameters
    ----------
    x0 : array_like, shape (N,)
        Initial mean (a callable is called once to give it).
    sigma0 : float
        Initial step size, > 0.
    inopts : dict, optional
        Options by pycma's names (see ``CMAOptions``; ``CMAOptions.handling()`` says how each is
        treated): ``{'bounds': [0, None], 'maxfevals': 1e4, 'ftarget': 1e-8, 'popsize': 20,
        'seed': 3, 'verb_disp': 0, ...}``. An option gradfree cannot honour raises
        ``InvalidParameterError`` naming it. The dict is not changed.

    Notes
    -----
    - ``ask(number)`` hands out points of the current iteration's population (sampled whole by
      the Rust CMA-ES): ``ask()`` the whole population (the same points again until ``tell``),
      ``ask(k)`` the next ``k`` points not yet handed out. Asking more than ``popsize`` points in
      one iteration (pycma's resampling of rejected solutions) is refused: tell their values, or
      ``inf``, instead.
    - ``tell(solutions, values)`` takes the ``popsize`` points of the iteration in any order
      (lists of arrays as pycma's); points ``ask`` did not return (pycma's injected solutions)
      are refused.
    - ``stop()`` answers in pycma's names: ``tolfun``, ``tolx``, ``maxfevals``, ``maxiter``,
      ``ftarget``, ``tolflatfitness``, ``tolstagnation``, ``tolconditioncov``, ``timeout``; and
      gradfree's ``diverged`` (values blew up), ``numerical_failure`` and, with restarts,
      ``restarts_settled``, which pycma does not have.
    - ``sigma`` is the largest coordinate standard deviation (gradfree's step length), not
      pycma's global step-size factor; ``stds`` are the coordinate standard deviations
      ``sigma * sqrt(diag(C))`` in pycma's sense.
    - Bounds with an unbounded side (``[0, None]``, ``[0, np.inf]``) are mapped in Python with
      pycma's ``BoundTransform``; finite boxes by the Rust run (which also caps the coordinate
      stds at a third of the box, pycma's ``maxstd_boundrange``).
    """

    def __init__(self, x0, sigma0, inopts=None, *, _run_kwargs=None):
        if callable(x0):
            x0 = x0()
        self.inputargs = dict(x0=x0, sigma0=sigma0, inopts=inopts)
        self.inopts = inopts
        # pycma's rule (CMAEvolutionStrategy._set_x0): 1-D, (1, N) or (N, 1) flattened with a
        # warning, anything else refused; a size that cannot fit is refused before any copy.
        x0 = _util.vector("x0", x0, "pycma", full=True).copy()
        sigma0 = _util.positive("sigma0", sigma0)
        if inopts is not None and not isinstance(inopts, dict):
            raise InvalidParameterError(f"inopts: expected a dict of pycma's options, got {inopts!r}")
        given = CMAOptions(dict(inopts or {}))
        N = int(x0.size)
        raw = {k: v[0] for k, v in _OPTIONS.items()}
        raw.update(given)
        opts = CMAOptions.__new__(CMAOptions)
        pop = _evaluate("popsize", raw["popsize"], N, None)
        factor = _util.positive("popsize_factor", _evaluate("popsize_factor", raw["popsize_factor"], N, None))
        if isinstance(pop, bool) or not isinstance(pop, (int, float, np.number)) or not math.isfinite(pop):
            raise InvalidParameterError(f"option 'popsize' = {raw['popsize']!r}: expected an integer >= 2")
        if not pop * factor < 2.0**64:
            _refuse_option("popsize_factor", raw["popsize_factor"], f"popsize {pop!r} times it is {pop * factor!r}, beyond "
                           "any population that fits in memory")
        popsize = int(pop * factor)
        if factor != 1 and popsize >= 2:
            with _util.renamed(popsize=f"popsize ({pop!r} x option 'popsize_factor' {factor!r})"):
                _util.count("popsize", popsize, 2)
                _util.check_es_memory("x0", N, popsize)
        if popsize < 2:
            raise InvalidParameterError(f"option 'popsize' = {raw['popsize']!r} (times popsize_factor {factor}): expected >= 2")
        for k, v in raw.items():
            dict.__setitem__(opts, k, _evaluate(k, v, N, popsize))
        dict.__setitem__(opts, "popsize", popsize)
        for k in (k for k, v in _OPTIONS.items() if v[2] == DEFAULT_ONLY):
            v = opts[k]
            if not (v == _default_value(k) and type(v) in (bool, int, float, np.bool_) or v is _default_value(k)):
                _refuse_option(k, inopts.get(k, v) if inopts else v, "gradfree's CMA-ES only does what pycma's default does")
        if opts["verbose"] is None:
            dict.__setitem__(opts, "verbose", 3)
        dict.__setitem__(opts, "verbose", _util.number("option 'verbose'", opts["verbose"]))
        if opts["verbose"] < -8:
            dict.__setitem__(opts, "verb_disp", 0)
        verb_disp = opts["verb_disp"]
        if verb_disp is None or verb_disp is False:
            verb_disp = 0
        dict.__setitem__(opts, "verb_disp", _util.count("verb_disp", verb_disp, 0))

        seed = _util._scalar(opts["seed"])
        if isinstance(seed, np.generic):
            seed = seed.item()
        if seed is None or (isinstance(seed, float) and math.isnan(seed)) or (
                isinstance(seed, (int, float)) and not isinstance(seed, bool) and seed == 0):
            seed = None     # pycma: 0 or NaN draws a seed
        elif isinstance(seed, float) and seed.is_integer():
            seed = int(seed)
        elif not isinstance(seed, int) or isinstance(seed, bool):
            _refuse_option("seed", opts["seed"], "expected an integer in [0, 2**64 - 1], or None, 0 or NaN to draw one")
        maxfevals = opts["maxfevals"]
        if maxfevals is None or (isinstance(maxfevals, (int, float)) and math.isinf(maxfevals) and maxfevals > 0):
            max_evals = _MAXFEVALS_INF
        else:
            max_evals = _util.count("maxfevals", maxfevals, 1)
        maxiter = opts["maxiter"]
        max_gens = None if maxiter is None or (isinstance(maxiter, float) and math.isinf(maxiter)) else _util.count(
            "maxiter", int(maxiter) if isinstance(maxiter, float) and maxiter >= 1 else maxiter, 1)
        ftarget = opts["ftarget"]
        target = None if ftarget is None or (isinstance(ftarget, (int, float)) and ftarget == -math.inf) else _util.number(
            "ftarget", ftarget)
        timeout = opts["timeout"]
        max_seconds = None if timeout is None or (isinstance(timeout, (int, float)) and timeout == math.inf) else _util.positive(
            "timeout", timeout)
        tolflat = opts["tolflatfitness"]
        tolstag = opts["tolstagnation"]
        rules = dict(
            tol_fun=_off_or("tolfun", opts["tolfun"], _util.positive),
            tol_x=_off_or("tolx", opts["tolx"], _util.positive),
            tol_condition=_off_or("tolconditioncov", opts["tolconditioncov"], _util.positive),
            tol_flat=False if tolflat is None or tolflat is False or (isinstance(tolflat, float) and math.isinf(tolflat))
            else _util.count("tolflatfitness", int(tolflat) if isinstance(tolflat, float) and math.isfinite(tolflat) else tolflat, 0),
            tol_stagnation=False if tolstag is None or tolstag is False or (isinstance(tolstag, float) and math.isinf(tolstag))
            else _util.count("tolstagnation", int(tolstag) if isinstance(tolstag, float) and math.isfinite(tolstag) else tolstag, 1),
        )
        if (_run_kwargs or {}).get("restarts"):
            # Each restart judges its own convergence (the Rust restart wrapper's rules); these
            # options would end the whole run instead, so with restarts they are not taken.
            per_run = ("tolfun", "tolx", "tolflatfitness", "tolstagnation", "tolconditioncov", "maxiter")
            for k in per_run:
                if k in given:
                    _refuse_option(k, given[k], "with fmin2's restarts gradfree's restart wrapper judges the end of each "
                                   "run itself and this option would end all runs; leave it out or use restarts=0")
            rules = {k: None for k in rules}
            max_gens = None
            if "maxfevals" not in given:
                max_evals = None  # gradfree's budget (10000 N): the last run has no convergence rule to end it
        handler = opts["BoundaryHandler"]
        hname = getattr(handler, "__name__", handler)
        if not isinstance(hname, (str, type(None))) or hname not in ("BoundTransform", "BoundPenalty", None, "None"):
            _refuse_option("BoundaryHandler", handler, "expected 'BoundTransform' or 'BoundPenalty'")
        dict.__setitem__(opts, "BoundaryHandler", "BoundPenalty" if hname == "BoundPenalty" else "BoundTransform")
        box = _bounds(opts["bounds"], N)
        dict.__setitem__(opts, "bounds", None if box is None else [box[0].copy(), box[1].copy()])
        self._tf = None
        rust_box = None
        if box is not None:
            if np.all(np.isfinite(box[0])) and np.all(np.isfinite(box[1])):
                rust_box = (box[0], box[1])
            elif hname == "BoundPenalty":
                _refuse_option("BoundaryHandler", handler, "BoundPenalty needs finite lower and upper bounds in gradfree; use "
                               "BoundTransform (the default) for unbounded sides")
            else:
                self._tf = (box[0], box[1])
        self.opts = opts
        self.N = N
        self.sigma0 = sigma0
        self.x0 = x0.copy()
        self.best = BestSolution()
        self._pending = None
        self._given = 0
        self._extra_evals = 0
        self._last_fmin = math.nan
        self._start = time.time()
        self._logger = None
        self._disp_count = 0
        kw = dict(seed=seed, popsize=popsize, max_evals=max_evals, max_gens=max_gens, target=target, max_seconds=max_seconds,
                  bounds=rust_box, bounds_handling="penalty" if hname == "BoundPenalty" else "transform",
                  damping="pycma", **rules)
        kw.update(_run_kwargs or {})
        with _util.renamed(**PYCMA_STOP_NAMES):
            super().__init__(x0, sigma0, **kw)
        self._pycma_names = True
        dict.__setitem__(opts, "seed", self.seed)
        if opts["verb_disp"] > 0 and opts["verbose"] >= 0:
            w = _gradfree.cma_weights(popsize)
            print(f"({len(w)}_w,{popsize})-aCMA-ES (mu_w={1.0 / float(np.sum(w * w)):2.1f},w_1={int(100 * w[0])}%) "
                  f"in dimension {N} (seed={self.seed}, {time.asctime()})")

    # --- pycma's attributes ---------------------------------------------------------------

    @property
    def countevals(self) -> int:
        """Evaluations told so far (with the initial point's if ``fmin2(eval_initial_x=True)``)."""
        return self._run.evaluations + self._extra_evals

    @property
    def countiter(self) -> int:
        """Iterations told so far."""
        return self._run.generations

    evaluations = countevals
    iterations = countiter

    @property
    def logger(self) -> Logger:
        """The in-memory data logger (pycma's ``es.logger``; no files are written)."""
        if self._logger is None:
            self._logger = Logger(self)
        return self._logger

    @property
    def fbest(self) -> float:
        """Best value told so far (``inf`` before the first)."""
        return self.best.f

    @property
    def xbest(self):
        """Best point told so far, as told (inside ``bounds``); ``None`` before the first."""
        return self.best.x

    @property
    def evals_best(self):
        """The evaluation count at which ``xbest`` was evaluated (pycma's ``evals_best``)."""
        return self.best.evals

    def _pheno(self, x: np.ndarray) -> np.ndarray:
        """``x`` mapped into the bounds (pycma's ``gp.pheno`` with its boundary repair)."""
        if self._tf is not None:
            return _transform(x, *self._tf)
        box = self.opts["bounds"]
        if box is None:
            return np.array(x, dtype=np.float64)
        if self.opts["BoundaryHandler"] == "BoundPenalty":
            return np.clip(x, box[0], box[1])
        return _transform(x, box[0], box[1])

    @property
    def xfavorite(self) -> np.ndarray:
        """The distribution mean mapped into the bounds (pycma's ``xfavorite``)."""
        return self._pheno(self.mean)

    def _axis_ratio(self) -> float:
        c = self._run.condition
        return math.nan if c is None else math.sqrt(c)

    @property
    def result(self) -> Result:
        """pycma's ``result``: ``(xbest, fbest, evals_best, evaluations, iterations, xfavorite,
        stds, stop)`` (see ``gradfree.es.Result``)."""
        return Result(self.best.x, self.best.f, self.best.evals, self.countevals, self.countiter, self.xfavorite, self.stds,
                      self.stop())

    # --- the loop -------------------------------------------------------------------------

    def ask(self, number=None, xmean=None, sigma_fac=1, gradf=None, args=(), **kwargs):
        """Points to evaluate, as a list of arrays (pycma's ``ask``).

        Parameters
        ----------
        number : int, optional
            ``None``: the whole population of this iteration (the same points until ``tell``);
            ``k``: the next ``k`` points of it not yet handed out (at most ``popsize`` in all per
            iteration: gradfree's CMA-ES samples whole populations).
        xmean, sigma_fac, gradf, args
            pycma's; only the defaults (``None``, ``1``, ``None``, ``()``) are accepted.
        """
        if xmean is not None:
            raise InvalidParameterError("ask: xmean is not offered (gradfree's CMA-ES samples around its own mean); pass None")
        if sigma_fac != 1:
            raise InvalidParameterError(f"ask: sigma_fac = {sigma_fac!r} is not offered; pass 1")
        if gradf is not None:
            raise InvalidParameterError("ask: gradf is not offered (gradfree is gradient-free); pass None")
        if kwargs:
            raise InvalidParameterError(f"ask: unknown arguments {sorted(kwargs)}")
        if self._pending is None:
            raw = _ES.ask(self)
            out = raw if self._tf is None else _gradfree.bound_transform(raw, *self._tf)
            self._pending, self._given = (raw, out), 0
        out = self._pending[1]
        n = out.shape[0]
        if number is None:
            self._given = n
            return [row.copy() for row in out]
        k = _util.count("number", number, 1)
        if self._given + k > n:
            raise InvalidParameterError(
                f"ask(number={k}): only {n - self._given} of this iteration's popsize = {n} points are left; gradfree's "
                "CMA-ES samples whole populations, so resampling rejected points (asking more than popsize per iteration) "
                "is not offered: tell every point's value (inf for a rejected one) instead")
        rows = out[self._given:self._given + k]
        self._given += k
        return [row.copy() for row in rows]

    def tell(self, solutions, function_values, check_points=None, copy=False):
        """Reports the values of this iteration's ``popsize`` points (pycma's ``tell``).

        Parameters
        ----------
        solutions : list of arrays or array, shape (popsize, N)
            The points ``ask`` returned in this iteration, in any order.
        function_values : list of float
            Their values, in the same order.
        check_points, copy
            pycma's; ``check_points`` must be ``None`` or ``False``, ``copy`` has no effect (the
            points are copied anyway).

        Returns
        -------
        self
        """
        if check_points not in (None, False):
            raise InvalidParameterError("tell: check_points is not offered (only points ask returned are accepted); pass None")
        if self._pending is None:
            raise InvalidParameterError("tell: no population is pending; call ask() first")
        raw, out = self._pending
        n, d = out.shape
        try:
            S = np.array([np.asarray(x, dtype=np.float64).ravel() for x in solutions], dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise InvalidParameterError(f"solutions: expected {n} points of dimension {d}: {e}") from None
        values = _util.reals("function_values", function_values)
        if S.ndim != 2 or S.shape != (n, d):
            raise InvalidParameterError(
                f"solutions: expected the {n} points (popsize) of dimension {d} of this iteration, got shape {S.shape}; "
                "gradfree's CMA-ES updates from whole populations")
        if values.shape[0] != n:
            raise InvalidParameterError(f"function_values: expected {n} values, got {values.shape[0]}")
        if np.array_equal(S, out):
            perm = np.arange(n)
        else:
            where = {}
            for i, row in enumerate(out):
                where.setdefault(row.tobytes(), []).append(i)
            perm = np.empty(n, dtype=np.int64)
            for i, row in enumerate(S):
                slot = where.get(row.tobytes())
                if not slot:
                    raise InvalidParameterError(
                        f"solutions[{i}] is not one of the points ask() returned in this iteration (or is told twice); "
                        "gradfree's CMA-ES updates from its own samples (pycma's injected solutions are not offered)")
                perm[i] = slot.pop(0)
        ordered = np.empty(n)
        ordered[perm] = values
        _ES.tell(self, raw, ordered)
        self._pending, self._given = None, 0
        self.best.update([row.copy() for row in S], arf=values, evals=self.countevals)
        finite = values[np.isfinite(values)]
        self._last_fmin = float(finite.min()) if finite.size else math.nan
        return self

    def stop(self, check=True, ignore_list=(), check_in_same_iteration=False, get_value=None):
        """The termination conditions met, as ``{name: value}`` in pycma's names (empty: go on);
        ``ignore_list`` leaves names out, ``get_value`` returns the value of one name."""
        s = super().stop() if check else {}
        s = {k: v for k, v in s.items() if k not in ignore_list}
        if get_value is not None:
            return s.get(get_value)
        return s

    def optimize(self, objective_fct, maxfun=None, iterations=None, min_iterations=1, args=(), verb_disp=None,
                 callback=None, n_jobs=0, executor=None, **kwargs):
        """Runs ask/tell until ``stop()`` (pycma's ``OOOptimizer.optimize``); returns ``self``.

        Parameters
        ----------
        objective_fct : callable
            ``objective_fct(x, *args) -> float``.
        maxfun : int, optional
            Most evaluations in this call.
        iterations : int, optional
            Most iterations in this call.
        min_iterations : int, default 1
            Fewest iterations in this call, unless a stop rule has fired (gradfree's run proposes
            nothing once stopped).
        args : tuple
            Extra arguments of ``objective_fct``.
        verb_disp : int, optional
            Print a line every this many iterations (``None``: the option ``verb_disp``); at the
            end ``result_pretty()`` prints the result if the option ``verb_disp`` is positive.
        callback : callable or list of callables, optional
            Called as ``callback(self)`` after each iteration (and ``self.logger.add``, as pycma).
        n_jobs : int, default 0
            Processes to evaluate in (``-1`` or ``None``: the CPU count; 0 or 1: this process).
        executor : concurrent.futures.Executor, optional
            gradfree's alternative to ``n_jobs``: each population is evaluated through
            ``executor.map``.
        """
        if kwargs:
            _warnings.warn(f"ignoring unknown arguments {sorted(kwargs)} in optimize (as pycma)")
        args = _util.args("args", args)
        maxfun = None if maxfun is None else _util.count("maxfun", maxfun, 0)
        iterations = None if iterations is None else _util.count("iterations", iterations, 0)
        min_iterations = _util.count("min_iterations", min_iterations, 0)
        if iterations is not None and min_iterations > iterations:
            iterations = min_iterations
        callbacks = _callbacks(callback) + [self.logger.add]
        executor = _util.executor(executor)
        pool = None
        if executor is None and n_jobs not in (0, 1):
            pool = EvalParallel2(objective_fct, None if n_jobs in (-1, None) else n_jobs)
        citer = cevals = 0
        try:
            while not self.stop():
                if (maxfun and cevals >= maxfun) or (iterations and citer >= iterations):
                    break
                citer += 1
                try:
                    X = self.ask()
                except InvalidParameterError:
                    if self.stop():      # the run stopped while sampling (diverged)
                        break
                    raise
                if executor is not None:
                    values = list(executor.map(lambda x: objective_fct(x, *args), X))
                elif pool is not None:
                    values = pool(X, args=args)
                else:
                    values = [objective_fct(x, *args) for x in X]
                cevals += len(values)
                self.tell(X, values)
                for cb in callbacks:
                    cb(self)
                self.disp(verb_disp)
        finally:
            if pool is not None:
                pool.terminate()
        if (verb_disp is None or verb_disp > 0) and self.opts["verb_disp"] > 0:
            self.result_pretty()
        return self

    # --- printing -------------------------------------------------------------------------

    def disp_annotation(self):
        """Prints the column names of ``disp`` (pycma's)."""
        print("Iterat #Fevals   function value  axis ratio  sigma  min&max std  t[m:s]")

    def disp(self, modulo=None, overwrite=None):
        """Prints one line of the state (pycma's ``disp``): at iterations 1, 2, 3, every
        ``modulo`` (default the option ``verb_disp``; 0 prints nothing) and when a stop rule has
        fired, with the column names every ``10 * modulo`` iterations. Returns ``self``."""
        if modulo is None:
            modulo = self.opts["verb_disp"]
        if not modulo:
            return self
        modulo = int(modulo)
        it = self.countiter
        if (it - 1) % (10 * modulo) < 1:
            self.disp_annotation()
        if it > 0 and (self.stop() or it < 4 or it % modulo < 1):
            stds = self.stds
            toc = time.time() - self._start
            stime = (str(int(toc // 60)) + ":" + ("%2.1f" % (toc % 60)).rjust(4, "0")) if self.opts["verb_time"] else ""
            print(" ".join((repr(it).rjust(5), repr(self.countevals).rjust(6), "%.15e" % self._last_fmin,
                            "%4.1e" % self._axis_ratio(), "%6.2e" % self.sigma, "%6.0e" % float(np.min(stds)),
                            "%6.0e" % float(np.max(stds)), stime)))
            sys.stdout.flush()
        return self

    def result_pretty(self, number_of_restarts=0, time_str=None, fbestever=None):
        """Prints the result as pycma's ``result_pretty`` and returns ``result``."""
        if fbestever is None:
            fbestever = self.best.f
        print("termination on {0}{1}{2}".format(
            self.stop(), f" ({time_str})" if time_str else "",
            " after {0} restart{1}".format(number_of_restarts, "s" if number_of_restarts > 1 else "")
            if number_of_restarts > 0 else ""))
        print("final/bestever f-value = %e %e after %d/%s evaluations" % (self.best.last.f, fbestever, self.countevals,
                                                                          self.best.evals))
        fav, stds = self.xfavorite, self.stds
        if self.N < 9:
            print("incumbent solution: " + " ".join(str(fav).split()).replace(" ", ", ").replace("[,", "["))
            print("std deviations: " + " ".join(str(stds).split()).replace(" ", ", ").replace("[,", "["))
        else:
            print("incumbent solution: %s ...]" % (str(fav[:8])[:-1]))
            print("std deviations: %s ...]" % (str(stds[:8])[:-1]))
        return self.result

    def pickle_dumps(self) -> bytes:
        """``pickle.dumps(self)`` (pycma's ``pickle_dumps``)."""
        return pickle.dumps(self)

    def _pickle_state(self) -> dict:
        state = super()._pickle_state()
        state["_logger"] = None if self._logger is None else self._logger.rows
        return state

    def _unpickle_state(self, state: dict) -> None:
        rows = state.get("_logger")
        super()._unpickle_state(state)
        self._logger = None
        if rows is not None:
            self.logger.rows = list(rows)


def _callbacks(callback) -> list:
    """pycma's callback argument: ``None``, a callable or a list of callables."""
    if callback is None:
        return []
    if callable(callback):
        return [callback]
    try:
        cbs = list(callback)
    except TypeError:
        raise InvalidParameterError(f"callback: expected a callable or a list of callables, got {callback!r}") from None
    for c in cbs:
        if not callable(c):
            raise InvalidParameterError(f"callback: {c!r} is not callable")
    return cbs


