"""Statistical inference from stochastic gradients, with statsmodels' conventions.

Liang & Su, "Statistical Inference for the Population Landscape via Moment-Adjusted Stochastic
Gradients" (JRSS-B 2019), and the random-scaling baseline of Lee, Liao, Seo & Shin (AAAI 2022):
``K`` independent, seeded chains of a stochastic-gradient process, and the intervals they give::

    from gradfree.inference import fit
    res = fit(X, y, model="logistic", method="masgrad", batch_size=25, step=0.2, chains=100, steps=200)
    res.params, res.bse, res.conf_int(alpha=0.05), res.cov_params()
    print(res.summary())
    res.chains            # (chains, steps + 1, p): every chain at every step, for plots

Methods (``method=``):

- ``"masgrad"``: MasGrad (eq. 10), ``theta -= eta Vhat^{-1} bhat``, with the symmetric inverse root
  of the gradients' covariance (the theory's, and the one our figures use);
- ``"masgrad-rank-one"``: the same with the rank-one inverse-root recursion of Prop. 6.2,
  O(n p^2); it inverts the root of ``Sigma + I/(n-1)`` (a built-in ridge) and is not symmetric, so
  its direction is the symmetric one of the ridged covariance, rotated: shrunk by
  ``sqrt(lambda / (lambda + 1/(n-1)))`` along each eigenvalue ``lambda`` of ``Sigma``;
- ``"sgd"``: SGD (eq. 3);
- ``"diff-masgrad"``, ``"diff-sgd"``: the discretized diffusions (eq. 11, eq. 6/8), which use the
  population moments of all the rows at every step;
- ``"random-scaling"``: averaged SGD with random-scaling intervals (Lee et al. 2022), the method of
  R's ``SGDinference``; its intervals use the mixed-normal critical value (6.747 at 95%);
- ``"madprox"``: MadProx (eq. 19-20), l1-regularized GLMs with weight ``lam``.

What the intervals mean. For the chain methods ``bse`` is the spread of the chains' final iterates:
the spread of the process at inverse temperature ``beta = 2n / eta`` (Thm. 3.1), which equals an
estimator's sampling spread only at a matching temperature; ``gradfree reproduce
inference-coverage`` measures how they cover. Random scaling's interval is a confidence interval
for the optimum with its asymptotic guarantee.

Data larger than memory: ``fit_stream(batches, ...)`` takes an iterator of ``(X, y)`` batches;
every step reads ``chains x batch_size`` fresh rows and each chain takes its own, so every row is
used once and memory stays flat. A model of your own: ``fit(X, y, grad=g, n_params=p)`` with
``g(theta, X, y) -> (n, p)`` per-sample gradients, called once per mini-batch.
"""
from __future__ import annotations

import json
import numbers
import warnings as _warnings
from typing import Any, Callable, Iterable, Optional, Sequence

import numpy as np

from . import _gradfree, _util
from .errors import InferenceWarning, InvalidParameterError, PerfectSeparationWarning

__all__ = ["fit", "fit_stream", "InferenceResults", "METHODS", "MODELS", "random_scaling_critical_value", "simulate"]

#: The methods, by name.
METHODS = ("masgrad", "masgrad-rank-one", "sgd", "diff-masgrad", "diff-sgd", "random-scaling", "madprox")
#: The models, by name.
MODELS = ("linear", "logistic", "poisson", "mixture", "relu")


def random_scaling_critical_value(level: float = 0.95) -> float:
    """Random scaling's critical value at coverage ``level`` (6.747 at 0.95; Lee et al. 2022, Table 1),
    by Gil-Pelaez inversion of its mixed-normal limit."""
    return _gradfree.random_scaling_critical_value(float(level))


def simulate(design: str, d: int, model: str, n: int, seed: int = 0):
    """Simulated rows of the coverage protocol of Chen, Lee, Tong & Zhang (Ann. Statist. 2020, sec. 5).

    Rows ``x ~ N(0, Sigma)`` with ``design`` ``"identity"``, ``"toeplitz"`` (``0.5^|i-j|``) or
    ``"equicorrelation"`` (0.2 off the diagonal); ``theta*`` evenly spaced in ``[0, 1]``; ``y`` from
    the ``"linear"`` (``x^T theta* + N(0, 1)``) or ``"logistic"`` model. Returns ``(X, y, theta*)``.
    The same rows as ``gradfree reproduce inference-coverage`` for the same seed. Simulated data for
    measuring coverage, not a stand-in for a real data set.
    """
    return _gradfree.inference_simulate(str(design), _util.count("d", d, 1), str(model), _util.count("n", n, 1), _util.seed(seed))


class InferenceSummary:
    """The coefficient table of :meth:`InferenceResults.summary` (``str()`` or ``as_text()``)."""

    def __init__(self, text: str):
        self._text = text

    def as_text(self) -> str:
        return self._text

    def __str__(self) -> str:
        return self._text

    __repr__ = __str__


class InferenceResults:
    """What the chains estimate, in statsmodels' conventions.

    Attributes
    ----------
    params : ndarray, shape (p,)
        The estimates: the mean of the chains' final iterates (random scaling: chain 0's average).
    bse : ndarray, shape (p,)
        Standard errors: the chains' standard deviation (random scaling: the scale
        ``sqrt(V_T,jj / T)`` its interval multiplies by the critical value).
    chains : ndarray, shape (chains, records, p)
        Every chain at every recorded step (every step in memory; streamed runs thin their records).
    steps : ndarray, shape (records,)
        The step of each record.
    names : list of str
        Parameter names (``const`` first with ``intercept=True``).
    method, model : str
    spec : dict
        The run's settings, every default filled in.
    ridged_steps : int
        Steps whose batch covariance was singular and was ridged (eigenvalues raised to 1e-10 of
        the largest).
    streamed_rows : int or None
        Streamed runs: the rows read.
    warnings : list of str
        What the estimate must be read with: separated classes in a logistic fit (also raised as
        :class:`gradfree.errors.PerfectSeparationWarning`, and printed under the summary's table).
    """

    def __init__(self, fit: Any):
        self._fit = fit
        self.params = fit.params()
        self.bse = fit.bse()
        self.chains = fit.chains()
        self.steps = fit.steps()
        self.names = list(fit.names)
        self.spec = json.loads(fit.spec_json)
        self.method = self.spec["method"]
        self.model = fit.model
        self.ridged_steps = fit.ridged_steps
        self.streamed_rows = fit.streamed_rows
        self.warnings = list(fit.warnings)
        for w in self.warnings:
            kind = PerfectSeparationWarning if w.startswith("Perfect separation") else InferenceWarning
            _warnings.warn(w, kind, stacklevel=3)

    def conf_int(self, alpha: float = 0.05) -> np.ndarray:
        """The ``1 - alpha`` intervals, shape ``(p, 2)``: quantiles (or normal intervals, with
        ``interval="normal"``) of the chains' final iterates; random scaling: chain 0's interval."""
        return self._fit.conf_int(1.0 - _alpha(alpha))

    def cov_params(self) -> np.ndarray:
        """Covariance of the estimates, ``(p, p)``."""
        return self._fit.cov_params()

    def chain_intervals(self, alpha: float = 0.05) -> np.ndarray:
        """Random scaling: every chain's ``1 - alpha`` interval, ``(chains, p, 2)``."""
        return self._fit.chain_intervals(1.0 - _alpha(alpha))

    def bands(self, alpha: float = 0.05):
        """Pointwise bands across chains at every record: ``(lower, center, upper)``, each
        ``(records, p)``: the empirical ``alpha/2`` and ``1 - alpha/2`` quantiles (NumPy's default,
        type 7) and the mean."""
        a = _alpha(alpha)
        lo, hi = np.quantile(self.chains, [a / 2, 1 - a / 2], axis=0)
        return lo, self.chains.mean(axis=0), hi

    def summary(self, alpha: float = 0.05) -> InferenceSummary:
        """The coefficient table (coef, std err, interval) under a header naming the method, the
        model, the batch size, the step, the chains and the steps."""
        return InferenceSummary(self._fit.summary(1.0 - _alpha(alpha)))

    def __repr__(self) -> str:
        return f"<InferenceResults {self.method} on {self.model}: {len(self.params)} parameters, {self.chains.shape[0]} chains>"


def _alpha(alpha) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0.0 < float(alpha) < 1.0:
        raise InvalidParameterError(f"invalid parameter `alpha` = {alpha!r}: must be in (0, 1)")
    return float(alpha)


def _choice(name: str, value, accepted: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in accepted:
        raise InvalidParameterError(f"invalid parameter `{name}` = {value!r}: must be one of {', '.join(accepted)}")
    return value


def _specs(model, method, batch_size, step, chains, steps, seed, sampling, moments, interval, lam, prox_metric, decay,
           theta0, intercept, components, sigma, hidden):
    """The library's run and model documents from the keywords (``None``: the library's default).
    A keyword that does not apply to the model or method is refused, as it would be ignored."""
    run: dict = {"method": _choice("method", method, METHODS)}
    _choice("model", model, MODELS)
    applies = {"hidden": (hidden, model == "relu", "model='relu'"),
               "components": (components, model == "mixture", "model='mixture'"),
               "sigma": (sigma, model == "mixture", "model='mixture'"),
               "lam": (lam, method == "madprox", "method='madprox'"),
               "prox_metric": (prox_metric, method == "madprox", "method='madprox'"),
               "decay": (decay, method == "random-scaling", "method='random-scaling'"),
               "moments": (moments, method in ("masgrad", "masgrad-rank-one"), "a masgrad method")}
    for key, (value, ok, needs) in applies.items():
        if value is not None and not ok:
            raise InvalidParameterError(f"invalid parameter `{key}` = {value!r}: only with {needs} (it would be ignored)")
    for key, value in (("batch_size", batch_size), ("chains", chains), ("steps", steps)):
        if value is not None:
            run[key] = _util.count(key, value, 1)
    for key, value in (("step", step), ("lambda", lam), ("decay", decay)):
        if value is not None:
            run[key] = _util.finite("lam" if key == "lambda" else key, value)
    if seed is not None:
        run["seed"] = _util.seed(seed)
    for key, value, accepted in (("sampling", sampling, ("with-replacement", "without-replacement")),
                                 ("moments", moments, ("batch", "independent", "population")),
                                 ("interval", interval, ("quantile", "normal")),
                                 ("prox_metric", prox_metric, ("diagonal", "full"))):
        if value is not None:
            run[key] = _choice(key, value, accepted)
    if theta0 is not None:
        run["theta0"] = [_util.finite("theta0", v) for v in np.asarray(theta0, dtype=np.float64).ravel()]
    mspec: dict = {"model": _choice("model", model, MODELS), "intercept": bool(intercept)}
    if components is not None:
        mspec["components"] = _util.count("components", components, 1)
    if sigma is not None:
        mspec["sigma"] = _util.finite("sigma", sigma)
    if hidden is not None:
        mspec["hidden"] = _util.count("hidden", hidden, 1)
    return json.dumps(mspec), json.dumps(run)


def _rows(X, name="X") -> tuple:
    names = [str(c) for c in X.columns] if hasattr(X, "columns") else None
    arr = np.asarray(X)
    if arr.dtype.kind not in "fiub":
        raise InvalidParameterError(f"{name}: expected numbers, got an array of dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2:
        raise InvalidParameterError(f"{name}: expected a 2-d array (rows x features), got {arr.ndim} dimensions")
    return arr, names


def _response(y, rows: int):
    if y is None:
        return None
    arr = np.ascontiguousarray(np.asarray(y, dtype=np.float64).ravel())
    if arr.shape[0] != rows:
        raise InvalidParameterError(f"y: {arr.shape[0]} responses for {rows} rows of X")
    return arr


def fit(X, y=None, model: str = "logistic", method: str = "masgrad", batch_size: int = 25, step: float = 0.2,
        chains: int = 100, steps: int = 200, seed: int = 0, *, sampling: Optional[str] = None,
        moments: Optional[str] = None, interval: Optional[str] = None, lam: Optional[float] = None,
        prox_metric: Optional[str] = None, decay: Optional[float] = None, theta0=None, intercept: bool = False,
        components: Optional[int] = None, sigma: Optional[float] = None, hidden: Optional[int] = None,
        grad: Optional[Callable] = None, n_params: Optional[int] = None, progress: bool = False,
        executor=None, n_parts: Optional[int] = None) -> InferenceResults:
    """Intervals from ``chains`` independent chains of a stochastic-gradient process on ``X, y``.

    Parameters
    ----------
    X : array_like or DataFrame, shape (n, d)
        Rows (float64 or float32; a DataFrame's columns name the parameters). The mixture takes
        one column of scalars.
    y : array_like, shape (n,), optional
        Responses: real (linear, relu), 0/1 (logistic), counts >= 0 (poisson); none for mixture.
    model : str, default "logistic"
        ``linear``, ``logistic``, ``poisson`` (GLMs, sec. 4.2), ``mixture`` (1-D Gaussian mixture
        with unknown means, sec. 7) or ``relu`` (two-layer ReLU network, sec. 7).
    method : str, default "masgrad"
        One of :data:`METHODS` (module documentation).
    batch_size : int, default 25
        Mini-batch size ``n`` of eq. (3)/(10).
    step : float, default 0.2
        Step ``eta``; the inverse temperature is ``beta = 2n / eta`` (eq. 6). Random scaling: the
        first step of ``eta t^-decay``.
    chains : int, default 100
        Independent chains ``K`` (sec. 7); chain ``k`` is seeded from ``seed`` and ``k``, so results
        do not depend on the thread count.
    steps : int, default 200
        Steps per chain ``T``.
    seed : int, default 0
    sampling : {"with-replacement", "without-replacement"}, default "with-replacement"
        Mini-batches with replacement are the bootstrap of sec. 7.
    moments : {"batch", "independent", "population"}, default "batch"
        MasGrad's ``V``: the plug-in estimate of the step's batch (sec. 6.1); of a second,
        independent batch (twice the gradients; removes the bias the batch's own ``V`` puts on the
        stationary point); or the population ``V(theta)`` of all rows (App. C).
    interval : {"quantile", "normal"}, default "quantile"
        Intervals from the chains: empirical quantiles (the paper's bands are skewed), or mean ± z sd.
    lam : float, default 0.1
        MadProx's l1 weight ``lambda`` (eq. 19).
    prox_metric : {"diagonal", "full"}, default "diagonal"
        MadProx's metric: ``diag(V)`` (soft-thresholding, the paper's suggestion) or the full ``V``.
    decay : float, default 0.505
        Random scaling's step exponent ``a`` in ``eta t^-a``, in (1/2, 1).
    theta0 : array_like, optional
        Start of every chain (default the origin).
    intercept : bool, default False
        GLMs: add a constant column ``const`` first (statsmodels' ``add_constant``).
    components : int, default 3
        Mixture: components ``p``.
    sigma : float, default 1.0
        Mixture: the components' known standard deviation.
    hidden : int, default 2
        ReLU network: hidden units ``k`` (``p = k d + k`` parameters).
    grad : callable, optional
        A model of your own: ``grad(theta, X_batch, y_batch) -> (n, p)`` per-sample gradients of
        the loss, called once per mini-batch (``y_batch`` is None without ``y``). Needs ``n_params``.
    n_params : int, optional
        The number of parameters of ``grad``'s model.
    progress : bool, default False
        A progress bar on standard error (when it is a terminal).
    executor : concurrent.futures.Executor or ray.util.multiprocessing.Pool, optional
        Runs the chains in ``n_parts`` slices through ``executor.map`` (a process pool, a Ray
        cluster); the slices are the chains of one run, so the result is the same as without.
        ``grad`` must then be picklable. A process pool must not fork (use
        ``mp_context=multiprocessing.get_context("spawn")`` or ``"forkserver"``): a forked copy of
        a process whose Rust thread pool is running can deadlock.
    n_parts : int, optional
        Slices for ``executor`` (default its worker count, else 4; at most ``chains``).

    Returns
    -------
    InferenceResults

    Raises
    ------
    gradfree.errors.DataError
        No rows, NaN or infinite values, responses outside the model's range.
    gradfree.errors.InvalidParameterError
        A parameter outside its range (the message names it and the range).
    gradfree.errors.ModelFitError
        Every per-sample gradient of a MasGrad step was the same (no direction exists).
    """
    x, names = _rows(X)
    yy = _response(y, x.shape[0])
    model_json, spec_json = _specs(model, method, batch_size, step, chains, steps, seed, sampling, moments, interval, lam,
                                   prox_metric, decay, theta0, intercept, components, sigma, hidden)
    names = names or [f"x{j}" for j in range(x.shape[1])]
    n_params = None if n_params is None else _util.count("n_params", n_params, 1)
    if n_params is not None and grad is None:
        raise InvalidParameterError(f"invalid parameter `n_params` = {n_params}: only with grad= (a model given by its gradient)")
    if executor is None:
        if n_parts is not None:
            raise InvalidParameterError(f"invalid parameter `n_parts` = {n_parts!r}: only with executor= (it would be ignored)")
        return InferenceResults(_gradfree.inference_fit(x, yy, model_json, spec_json, names, grad, n_params, bool(progress)))
    _util.executor(executor)
    ctx = getattr(executor, "_mp_context", None)
    if ctx is not None and ctx.get_start_method() == "fork":
        raise InvalidParameterError("invalid parameter `executor`: a process pool that forks can deadlock (the Rust thread pool "
                                    "does not survive fork); create it with mp_context=multiprocessing.get_context('spawn')")
    spec = json.loads(spec_json)
    total = spec.get("chains", json.loads(_gradfree.defaults_json())["inference"]["run"]["chains"])
    parts = n_parts if n_parts is not None else (getattr(executor, "_max_workers", None) or getattr(executor, "_processes", None) or 4)
    parts = min(_util.count("n_parts", parts, 1), total)
    bounds = [total * i // parts for i in range(parts + 1)]
    tasks = [(x, yy, model_json, json.dumps({**spec, "first_chain": lo, "chains": hi - lo}), names, grad, n_params)
             for lo, hi in zip(bounds, bounds[1:])]
    fits = list(executor.map(_fit_part, tasks))
    return InferenceResults(_gradfree.inference_combine([f for f, _ in fits], fits[0][1]))


def _fit_part(task):
    """One slice of a run's chains, on a worker of an executor: the fit as JSON, and the names."""
    x, yy, model_json, spec_json, names, grad, n_params = task
    part = _gradfree.inference_fit(x, yy, model_json, spec_json, names, grad, n_params, False)
    return part.fit_json, part.names


def _batches(batches: Iterable):
    for item in batches:
        if isinstance(item, tuple) and len(item) == 2:
            x, _ = _rows(item[0])
            yield x, _response(item[1], x.shape[0])
        else:
            x, _ = _rows(item)
            yield x, None


def fit_stream(batches: Iterable, model: str = "logistic", method: str = "masgrad", batch_size: int = 25,
               step: float = 0.2, chains: int = 100, steps: Optional[int] = None, seed: int = 0, *,
               moments: Optional[str] = None, interval: Optional[str] = None, lam: Optional[float] = None,
               prox_metric: Optional[str] = None, decay: Optional[float] = None, theta0=None, intercept: bool = False,
               components: Optional[int] = None, sigma: Optional[float] = None, hidden: Optional[int] = None,
               names: Optional[Sequence[str]] = None, grad: Optional[Callable] = None,
               n_params: Optional[int] = None, progress: bool = False) -> InferenceResults:
    """:func:`fit` on data that arrive in batches and never all sit in memory.

    ``batches`` is an iterable (a generator) of ``(X, y)`` pairs (or ``X`` alone for the mixture)
    of any sizes. Every step reads ``chains x batch_size`` fresh rows and chain ``k`` takes rows
    ``k n .. (k + 1) n`` of them: every row is used once, the chains see disjoint samples (the
    paper's setting of fresh samples from the population), and memory is one block plus the
    chains' records, thinned to at most 1025 per chain. ``steps``: at most this many (default:
    until the batches end). The diffusions and ``moments="population"`` need every row at every
    step, so they need :func:`fit`. Other parameters as in :func:`fit`; ``names`` names the
    features.
    """
    model_json, spec_json = _specs(model, method, batch_size, step, chains, None, seed, None, moments, interval, lam,
                                   prox_metric, decay, theta0, intercept, components, sigma, hidden)
    max_steps = None if steps is None else _util.count("steps", steps, 1)
    n_params = None if n_params is None else _util.count("n_params", n_params, 1)
    names = None if names is None else [str(n) for n in names]
    return InferenceResults(_gradfree.inference_fit_stream(_batches(iter(batches)), model_json, spec_json, names, max_steps,
                                                           grad, n_params, bool(progress)))
