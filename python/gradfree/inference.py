"""Statistical inference: confidence intervals that cover, with statsmodels' results.

The default (``method=None``) for the GLMs is maximum likelihood with Wald intervals: Newton's
method when the rows are in memory (the numbers of statsmodels' ``GLM(...).fit()``), and
cumulatively updated estimating equations in one pass when they stream (Schifano, Wu, Wang, Yan &
Chen, Technometrics 2016), within a small fraction of a standard error of the same estimate. Its
95% intervals cover 0.94-0.96 in every design of the coverage study (``gradfree reproduce
inference-default``)::

    from gradfree.inference import fit
    res = fit(X, y, model="logistic", intercept=True)     # X a DataFrame: pandas out
    res.params["age"], res.bse, res.pvalues, res.conf_int(alpha=0.05), res.cov_params()
    print(res.summary())                                   # statsmodels' layout; .as_html(), .tables

The chain methods of Liang & Su, "Statistical Inference for the Population Landscape via
Moment-Adjusted Stochastic Gradients" (JRSS-B 2019), and averaged SGD with random scaling (Lee,
Liao, Seo & Shin, AAAI 2022) run ``K`` independent, seeded chains (``method=``):

- ``"random-scaling"``: averaged SGD with random-scaling confidence intervals (its critical value
  is 6.747 at 95%, from its mixed-normal limit); the default for the mixture and the ReLU network
  and for a model given by its gradient (``grad=``);
- ``"masgrad"``: MasGrad (eq. 10), ``theta -= eta Vhat^{-1} bhat``, with the symmetric inverse root;
  ``V`` is the population's when the rows are in memory and an independent batch's when they
  stream (``moments=``; the step's own batch, sec. 6.1, correlates ``Vhat`` with ``bhat`` and moves
  the chains off the optimum: 9-13 of their standard deviations on the paper's logistic setup);
- ``"masgrad-rank-one"``: the same with the rank-one inverse-root recursion of Prop. 6.2,
  O(n p^2); it inverts the root of ``Sigma + I/(n-1)`` (a built-in ridge) and is not symmetric, so
  its direction is the symmetric one of the ridged covariance, rotated: shrunk by
  ``sqrt(lambda / (lambda + 1/(n-1)))`` along each eigenvalue ``lambda`` of ``Sigma``;
- ``"sgd"``: SGD (eq. 3);
- ``"diff-masgrad"``, ``"diff-sgd"``: the discretized diffusions (eq. 11, eq. 6/8);
- ``"madprox"``: MadProx (eq. 19-20), l1-regularized GLMs with weight ``lam``.

What the chains give. SGD, MasGrad, the diffusions and MadProx spread like the process at inverse
temperature ``beta = 2n/eta`` (Thm. 3.1), not like an estimator: their ``process_sd`` and
``bands()`` are the paper's bands, and ``bse``/``conf_int`` raise
:class:`gradfree.errors.NotOfferedError` (as intervals they cover 0.07-1.00 in the coverage study).

Formulas, as statsmodels' formula API (patsy, optional): ``fit("y ~ x1 + C(g) + np.log(x2)",
data=df, model="logistic")`` (columns ``Intercept``, ``C(g)[T.b]``, ...; ``res.predict(new_df)``
with the same levels), and ``fit_stream(formula, data=chunks)``.

Data larger than memory: ``fit_stream(batches, ...)`` takes an iterator of ``(X, y)`` batches, of
dicts of columns or DataFrames (``pd.read_csv(path, chunksize=k)``), or a Ray Dataset (``target=``
names the response column); rows in an order are tested for and, when the batches can be read
again, refitted to the MLE by Newton passes. A model of your own:
``fit(X, y, grad=g, n_params=p)`` with ``g(theta, X, y) -> (n, p)`` per-sample gradients.
"""
from __future__ import annotations

import importlib.util
import itertools
import json
from typing import Callable, Iterable, Optional, Sequence

import numpy as np

from . import _formula, _gradfree, _util
from ._inference_results import (FittedModel, InferenceResults, MLEResults, ProcessResults, RandomScalingResults,
                                 Summary, SummaryTable, _alpha, load, results)
from ._inference_inputs import _aligned, _Batches, _glm_rows, _opener, _response, _rows
from .errors import InvalidParameterError

__all__ = ["fit", "fit_stream", "load", "InferenceResults", "MLEResults", "RandomScalingResults", "ProcessResults",
           "FittedModel", "Summary", "SummaryTable", "METHODS", "MODELS", "KEYWORDS", "default_method",
           "random_scaling_critical_value", "simulate"]

#: The keywords of a run, read from the library's specs (``{"model": [...], "run": [...]}``: each
#: with its name, Python name, kind, accepted values, default, floor and the rule of when it applies).
KEYWORDS = json.loads(_gradfree.inference_keywords())
_KEYWORD = {k["name"]: k for k in KEYWORDS["model"] + KEYWORDS["run"]}
#: The methods, by name.
METHODS = tuple(_KEYWORD["method"]["values"])
#: The models, by name.
MODELS = tuple(_KEYWORD["model"]["values"])


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


def default_method(model: str = "logistic", grad: bool = False) -> str:
    """The method :func:`fit` uses when none is named: ``"mle"`` for the GLMs (``linear``,
    ``logistic``, ``poisson``), ``"random-scaling"`` for the mixture, the ReLU network and a model
    given by its gradient (``grad=True``)."""
    return _gradfree.inference_default_method(_choice("model", model, MODELS), bool(grad))


def _choice(name: str, value, accepted: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in accepted:
        raise InvalidParameterError(f"invalid parameter `{name}` = {value!r}: must be one of {', '.join(accepted)}")
    return value


def _keyword(k: dict, value):
    """``value`` of the keyword ``k`` (from :data:`KEYWORDS`) as the library reads it, checked by
    its kind: a choice among its values, a count from its floor, a finite number, a seed, a flag or
    a vector."""
    name = k["python"]
    if k["values"]:
        return _choice(name, value, k["values"])
    if k["name"] == "seed":
        return _util.seed(value)
    kind = k["kind"]
    if kind == "int":
        return _util.count(name, value, int(k["minimum"] or 0))
    if kind == "float":
        return _util.finite(name, value)
    if kind == "bool":
        return _util.flag(name, value)
    return _util.vector(name, value, "scipy", memory=False).tolist()


def _specs(model, method, given, custom=False):
    """The library's run and model documents from the keywords ``given`` (``None``: the
    library's default); the method, when not named, is :func:`default_method`'s. A keyword that
    does not apply to the model or method is refused, as it would be ignored (the rules are the
    library's, :data:`KEYWORDS`)."""
    _choice("model", model, MODELS)
    method = default_method(model, custom) if method is None else _choice("method", method, METHODS)
    g = {k: v for k, v in given.items() if v is not None}
    refused = _gradfree.inference_refused(model, method, list(g))
    if refused is not None:
        key, needs = refused
        raise InvalidParameterError(f"invalid parameter `{key}` = {g[key]!r}: only with {needs} (it would be ignored)")
    docs = ({"model": model}, {"method": method})
    for doc, keywords in zip(docs, (KEYWORDS["model"], KEYWORDS["run"])):
        for k in keywords:
            if k["python"] in g and k["name"] not in doc:
                doc[k["name"]] = _keyword(k, g[k["python"]])
    return json.dumps(docs[0]), json.dumps(docs[1])

def fit(X, y=None, model: str = "logistic", method: Optional[str] = None, batch_size: Optional[int] = None,
        step: Optional[float] = None, chains: Optional[int] = None, steps: Optional[int] = None,
        seed: Optional[int] = None, *, data=None, passes: Optional[int] = None, cov_type: Optional[str] = None,
        sampling: Optional[str] = None,
        moments: Optional[str] = None, interval: Optional[str] = None, lam: Optional[float] = None,
        prox_metric: Optional[str] = None, decay: Optional[float] = None, theta0=None, intercept: bool = False,
        components: Optional[int] = None, sigma: Optional[float] = None, hidden: Optional[int] = None,
        grad: Optional[Callable] = None, n_params: Optional[int] = None, progress: bool = False,
        executor=None, n_parts: Optional[int] = None, use_t: Optional[bool] = None, cov_kwds: Optional[dict] = None,
        offset=None, exposure=None) -> InferenceResults:
    """Confidence intervals for the parameters of a model on ``X, y`` (see the module documentation).

    Parameters
    ----------
    X : array_like or DataFrame, shape (n, d), or str
        Rows (float64 or float32). A DataFrame's columns name the parameters, and the results are
        pandas objects indexed by them. The mixture takes one column of scalars. Or a formula,
        ``"y ~ x1 + C(g) + np.log(x2)"``, read as statsmodels' formula API reads it (patsy) with
        ``data``: the response and the design with its ``Intercept`` column (``- 1`` removes it),
        named as statsmodels names them; rows with a missing value are dropped (statsmodels'
        ``missing="drop"``); ``model.formula`` keeps it and ``predict(new_df)`` transforms new rows
        the same way (same levels). Needs patsy (``pip install patsy``).
    y : array_like or Series, shape (n,), optional
        Responses: real (linear, relu), 0/1 (logistic), counts >= 0 (poisson); none for mixture.
        A Series' name is ``model.endog_names``. None with a formula (its left-hand side).
    data : DataFrame or dict of columns, optional
        The rows a formula's names refer to (only with a formula as ``X``).
    model : str, default "logistic"
        ``linear``, ``logistic``, ``poisson`` (GLMs, sec. 4.2), ``mixture`` (1-D Gaussian mixture
        with unknown means, sec. 7) or ``relu`` (two-layer ReLU network, sec. 7).
    method : str, optional
        One of :data:`METHODS`; default :func:`default_method` (``"mle"`` for the GLMs).
    cov_type : {"nonrobust", "HC0", "HC1", "HC2", "HC3", "cluster"}, default "nonrobust"
        mle: the inverse Fisher information (statsmodels' default), White's sandwich and its
        small-sample corrections (MacKinnon & White 1985; for logistic and Poisson regression
        HC1-HC3 are HC0, as in statsmodels' GLM and Logit), or the cluster-robust CRV1 with
        ``cov_kwds={"groups": labels}``.
    cov_kwds : dict, optional
        ``{"groups": labels}`` (one per row, any sortable labels) for ``cov_type="cluster"``.
    use_t : bool, optional
        mle: Student's t for the statistics, p-values and intervals, on ``df_resid`` (clusters
        less one with ``cluster``), or the normal; default statsmodels': t for the linear model's
        nonrobust covariance, normal otherwise.
    offset : array_like, optional
        mle: a term per row added to the linear predictor, coefficient fixed at 1 (statsmodels'
        ``offset``).
    exposure : array_like, optional
        mle, Poisson: positive exposures, ``log(exposure)`` added to the offset.
    batch_size : int, optional
        Chain methods: mini-batch size ``n`` of eq. (3)/(10) (default 25; random scaling on rows
        in memory: ``n / 400`` between 10 and 25, about 400 steps a pass).
    step : float, optional
        Chain methods: step ``eta`` (default 0.2); the inverse temperature is ``beta = 2n / eta``
        (eq. 6). Random scaling: the first step ``eta_0`` of ``eta_0 t^-decay``; by default
        ``1 / lambda_max``, the mean loss's largest curvature where each pass starts, and the last
        of several passes steps with ``H^-1`` (a fixed gain: the intervals' law is unchanged).
    chains : int, default 100
        Chain methods: independent chains ``K`` (sec. 7); chain ``k`` is seeded from ``seed`` and
        ``k``, so results do not depend on the thread count. Random scaling pools them: the
        estimate is their averages' mean and its interval uses the law of ``K`` pooled chains.
    steps : int, default 200
        Chain methods but random scaling: steps per chain ``T``.
    passes : int, default 3
        Random scaling: passes over the rows, each in a fresh random order, ``ceil(n / batch_size)``
        steps, each from the average of the pass before; the interval is the last pass's.
    seed : int, default 0
    sampling : {"with-replacement", "without-replacement"}, default "with-replacement"
        Mini-batches with replacement are the bootstrap of sec. 7.
    moments : {"population", "independent", "batch"}, optional
        MasGrad's ``V``: the population ``V(theta)`` of all rows (App. C; the default in memory), a
        second, independent batch's (the default streamed), or the step's own batch (sec. 6.1),
        whose correlation with the gradient moves the chains off the optimum.
    interval : {"quantile", "normal"}, default "quantile"
        Process methods: ``final_band`` as empirical quantiles or mean ± z sd.
    lam : float, default 0.1
        MadProx's l1 weight ``lambda`` (eq. 19).
    prox_metric : {"diagonal", "full"}, default "diagonal"
        MadProx's metric: ``diag(V)`` (soft-thresholding, the paper's suggestion) or the full ``V``.
    decay : float, default 0.505
        Random scaling's step exponent ``a`` in ``eta t^-a``, in (1/2, 1).
    theta0 : array_like, optional
        Chain methods: the start of every chain (default the origin).
    intercept : bool, default False
        GLMs: add a constant column ``const`` first (statsmodels' ``add_constant``). Not with a
        formula, which adds its own ``Intercept``.
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
        Chain methods: runs the chains in ``n_parts`` slices through ``executor.map`` (a process
        pool, a Ray cluster); the slices are the chains of one run, so the result is the same as
        without. ``grad`` must then be picklable. A process pool must not fork (use
        ``mp_context=multiprocessing.get_context("spawn")``): a forked copy of a process whose Rust
        thread pool is running can deadlock.
    n_parts : int, optional
        Slices for ``executor`` (default its worker count, else 4; at most ``chains``).

    Returns
    -------
    MLEResults, RandomScalingResults or ProcessResults
        By the method (all :class:`InferenceResults`).

    Raises
    ------
    gradfree.errors.DataError
        No rows, NaN or infinite values, responses outside the model's range.
    gradfree.errors.InvalidParameterError
        A parameter outside its range, or one the method would ignore (the message names it).
    gradfree.errors.ModelFitError
        A singular Hessian (collinear columns), or every per-sample gradient of a MasGrad step the
        same (no direction exists).

    Warns
    -----
    gradfree.errors.PerfectSeparationWarning
        Separated classes in a logistic fit (statsmodels' warning).
    gradfree.errors.ConvergenceWarning
        Maximum likelihood that did not converge, or chains that have not settled.
    """
    formula_spec = None
    if isinstance(X, str):
        formula_spec, y, X = _formula_frames(X, y, data, intercept, model, _formula.environment(1))
        # Per-row arguments of the data's rows, on the rows the formula kept (statsmodels' missing="drop").
        offset, exposure = formula_spec.kept_rows(offset), formula_spec.kept_rows(exposure)
        if isinstance(cov_kwds, dict) and "groups" in cov_kwds:
            cov_kwds = {**cov_kwds, "groups": formula_spec.kept_rows(cov_kwds["groups"])}
    elif data is not None:
        raise InvalidParameterError(f"invalid parameter `data`: only with a formula as X (fit('y ~ x1 + C(g)', data=df)); "
                                    f"X is a {type(X).__name__} (it would be ignored)")
    x, names = _rows(X)
    _aligned(X, y)
    yy = _response(y, x.shape[0])
    given = dict(batch_size=batch_size, step=step, chains=chains, steps=steps, seed=seed, cov_type=cov_type,
                 sampling=sampling, moments=moments, interval=interval, lam=lam, prox_metric=prox_metric, decay=decay,
                 theta0=theta0, intercept=intercept, components=components, sigma=sigma, hidden=hidden, passes=passes,
                 use_t=use_t)
    model_json, spec_json = _specs(model, method, given, custom=grad is not None)
    off, groups = _glm_rows(model, json.loads(spec_json), x.shape[0], cov_type, cov_kwds, offset, exposure)
    names = names or [f"x{j}" for j in range(x.shape[1])]
    n_params = None if n_params is None else _util.count("n_params", n_params, 1)
    if n_params is not None and grad is None:
        raise InvalidParameterError(f"invalid parameter `n_params` = {n_params}: only with grad= (a model given by its gradient)")
    context = dict(X=x if grad is None else None, y=yy, index=getattr(X, "index", None), pandas=hasattr(X, "columns"),
                   endog_name=str(getattr(y, "name", None) or "y"), intercept=bool(intercept) and grad is None, offset=off)
    if executor is None:
        if n_parts is not None:
            raise InvalidParameterError(f"invalid parameter `n_parts` = {n_parts!r}: only with executor= (it would be ignored)")
        return _with_formula(results(_gradfree.inference_fit(x, yy, model_json, spec_json, names, grad, n_params,
                                                             bool(progress), off, groups), **context), formula_spec)
    spec = json.loads(spec_json)
    if spec["method"] == "mle":
        raise InvalidParameterError("invalid parameter `executor`: only with a chain method (mle runs no chains; it would be ignored)")
    _util.executor(executor)
    ctx = getattr(executor, "_mp_context", None)
    if ctx is not None and ctx.get_start_method() == "fork":
        raise InvalidParameterError("invalid parameter `executor`: a process pool that forks can deadlock (the Rust thread pool "
                                    "does not survive fork); create it with mp_context=multiprocessing.get_context('spawn')")
    total = spec.get("chains", json.loads(_gradfree.defaults_json())["inference"]["run"]["chains"])
    parts = n_parts if n_parts is not None else (getattr(executor, "_max_workers", None) or getattr(executor, "_processes", None) or 4)
    parts = min(_util.count("n_parts", parts, 1), total)
    bounds = [total * i // parts for i in range(parts + 1)]
    tasks = [(x, yy, model_json, json.dumps({**spec, "first_chain": lo, "chains": hi - lo}), names, grad, n_params)
             for lo, hi in zip(bounds, bounds[1:])]
    fits = list(executor.map(_fit_part, tasks))
    return _with_formula(results(_gradfree.inference_combine([f for f, _ in fits], fits[0][1]), **context), formula_spec)


def _formula_check(formula, intercept, model, given: dict) -> None:
    """Refuses what conflicts with a formula (statsmodels' formula API): the formula adds its
    ``Intercept`` (``- 1`` removes it) and names the response and the columns."""
    if intercept:
        raise InvalidParameterError(f"invalid parameter `intercept` = {intercept!r}: the formula {formula!r} adds its own "
                                    "`Intercept` column (as statsmodels' formula API; '- 1' removes it); leave intercept "
                                    "out")
    if model == "mixture":
        raise InvalidParameterError(f"invalid parameter `model` = 'mixture' with the formula {formula!r}: the mixture has no "
                                    "response or design; pass its column as X")
    for key, value in given.items():
        if value is not None:
            raise InvalidParameterError(f"invalid parameter `{key}` = {value!r}: the formula {formula!r} names the response "
                                        "and the columns (it would be ignored); pass the data as data=")


def _formula_frames(formula, y, data, intercept, model, env):
    """``(spec, y, X)`` of a formula on ``data`` (see :mod:`gradfree._formula`)."""
    if y is not None:
        raise InvalidParameterError(f"invalid parameter `y`: X is the formula {formula!r}, whose left-hand side names the "
                                    "response; pass the rows as data= and leave y out")
    _formula_check(formula, intercept, model, {})
    return _formula.FormulaSpec.build(formula, data, env)


def _with_formula(res, spec):
    """``res`` with the formula and its spec on its model (``res.model.formula``), for ``predict``."""
    if spec is not None:
        res.model.formula, res.model._spec = spec.formula, spec
    return res


def _fit_part(task):
    """One slice of a run's chains, on a worker of an executor: the fit as JSON, and the names."""
    x, yy, model_json, spec_json, names, grad, n_params = task
    part = _gradfree.inference_fit(x, yy, model_json, spec_json, names, grad, n_params, False)
    return part.fit_json, part.names


def fit_stream(batches: Iterable, model: str = "logistic", method: Optional[str] = None,
               batch_size: Optional[int] = None, step: Optional[float] = None, chains: Optional[int] = None,
               steps: Optional[int] = None, seed: Optional[int] = None, *, target: Optional[str] = None,
               columns: Optional[Sequence[str]] = None, cov_type: Optional[str] = None, moments: Optional[str] = None,
               interval: Optional[str] = None, lam: Optional[float] = None, prox_metric: Optional[str] = None,
               decay: Optional[float] = None, theta0=None, intercept: bool = False, components: Optional[int] = None,
               sigma: Optional[float] = None, hidden: Optional[int] = None, names: Optional[Sequence[str]] = None,
               grad: Optional[Callable] = None, n_params: Optional[int] = None, batch_rows: Optional[int] = None,
               progress: bool = False, data=None, levels: Optional[dict] = None,
               use_t: Optional[bool] = None, refit: Optional[bool] = None) -> InferenceResults:
    """:func:`fit` on data that arrive in batches and never all sit in memory.

    ``batches`` is an iterable (a generator) of ``(X, y)`` pairs (or ``X`` alone for the mixture)
    of any sizes; or of mappings of columns (dicts of arrays, DataFrames) with ``target`` naming
    the response column and ``columns`` the features (default every other column, in order); or a
    Ray Dataset, read with ``iter_batches(batch_size=batch_rows, batch_format="numpy")`` (default
    4096 rows), so the rows come from the cluster's blocks a batch at a time.

    The default method, maximum likelihood, reads every row once (cumulatively updated estimating
    equations, Schifano et al. 2016): memory is one block of ``max(1000, 10 p)`` rows and ``p x p``
    sums. The chain methods read ``chains x batch_size`` fresh rows per step, chain ``k`` taking
    rows ``k n .. (k + 1) n`` (the paper's fresh samples), and keep at most 1025 records per chain;
    ``steps``: at most this many (default: until the batches end). The diffusions and
    ``moments="population"`` need every row at every step, so they need :func:`fit`. Other
    parameters as in :func:`fit`; ``names`` names the features (default the batches' columns).

    A formula, as statsmodels' formula API (patsy): ``fit_stream("y ~ x1 + C(g)", data=chunks)``
    with ``data`` an iterable of DataFrames (or dicts of columns, or a Ray Dataset, read as pandas
    batches). The first chunk fixes the design: its columns' names, the levels of every
    categorical term and the state of stateful transforms (``center(x)``); ``levels={"g": ["a",
    "b", "c"]}`` gives a column's levels up front instead (in this order, the first the
    reference), as does ``C(g, levels=["a", "b", "c"])`` in the formula. A later chunk with a level
    the design does not have raises :class:`~gradfree.errors.InvalidParameterError` naming the
    column and the level. Rows with a missing value are dropped (statsmodels' ``missing="drop"``).

    Rows in an order (sorted by date, by id, by the response). The one-pass estimate assumes rows
    in random order; maximum likelihood tests it (a score fluctuation test, Zeileis & Hornik
    2007: the block estimates drifting more than chance allows, p < 0.001; ``order_pvalue`` and
    ``order_effect`` on the result). When it fires and the source can be read again, Newton's
    method runs in passes over every row from the one-pass estimate, to the full-data MLE (the
    in-memory :func:`fit`'s numbers, whatever the order; memory still one batch). Sources that can
    be read again: a list or tuple of batches, a DataFrame or dict of columns (one batch), a Ray
    Dataset, or a function of no arguments returning a fresh iterable of batches (e.g.
    ``lambda: pd.read_csv(path, chunksize=10_000)``). A generator or an open reader cannot: the
    result is then marked (``converged`` false, ``llf`` nan, a ``ConvergenceWarning`` naming the
    test and its p-value), as it is when the one-pass log-likelihood is impossible.

    refit : bool, optional
        Maximum likelihood: ``True`` runs the Newton passes whatever the test finds (the MLE even
        for order effects too small for the test, such as rows sorted by a covariate of a
        well-specified model, which moved the one-pass estimate by 0.34 standard errors on 20 000
        logistic rows; needs a source that can be read again); ``False`` never reads the rows again; default: when the
        test fires and the source can be read again. The linear model is exact in one pass in
        any order and is never refitted.
    """
    stream = None
    if isinstance(batches, str):
        _formula_check(batches, intercept, model, dict(target=target, columns=columns, names=names))
        stream = _FormulaChunks(batches, data, levels, _formula.environment(1), batch_rows)
        batches, batch_rows = stream, None
    elif data is not None or levels is not None:
        key, value = ("data", data) if data is not None else ("levels", levels)
        raise InvalidParameterError(f"invalid parameter `{key}`: only with a formula as batches "
                                    f"(fit_stream('y ~ x1 + C(g)', data=chunks)); batches is a {type(batches).__name__} "
                                    "(it would be ignored)")
    given = dict(batch_size=batch_size, step=step, chains=chains, steps=None, seed=seed, cov_type=cov_type, use_t=use_t,
                 moments=moments, interval=interval, lam=lam, prox_metric=prox_metric, decay=decay, theta0=theta0,
                 intercept=intercept, components=components, sigma=sigma, hidden=hidden)
    model_json, spec_json = _specs(model, method, given, custom=grad is not None)
    if steps is not None and json.loads(spec_json)["method"] == "mle":
        raise InvalidParameterError(f"invalid parameter `steps` = {steps!r}: only with a chain method (mle reads every row once; it would be ignored)")
    max_steps = None if steps is None else _util.count("steps", steps, 1)
    n_params = None if n_params is None else _util.count("n_params", n_params, 1)
    mle = json.loads(spec_json)["method"] == "mle"
    if refit is not None:
        refit = _util.flag("refit", refit)
        if not mle:
            raise InvalidParameterError(f"invalid parameter `refit` = {refit!r}: only with method mle (the chain methods read "
                                        "every row once; it would be ignored)")
    if hasattr(batches, "iter_batches"):
        rows = 4096 if batch_rows is None else _util.count("batch_rows", batch_rows, 1)
        dataset = batches
        opener = lambda: dataset.iter_batches(batch_size=rows, batch_format="numpy")
    elif batch_rows is not None:
        raise InvalidParameterError(f"invalid parameter `batch_rows` = {batch_rows!r}: only with a Ray Dataset (it would be ignored)")
    else:
        opener = _opener(batches)
    if refit and opener is None:
        raise InvalidParameterError("invalid parameter `refit` = True: the batches can be read only once (a generator or an open "
                                    "reader); pass a list of batches, a function returning a fresh iterable of them, or a Ray "
                                    "Dataset")
    needs_y = model != "mixture" and grad is None
    source = _Batches(batches if opener is None else opener(), target, columns, needs_y=needs_y)
    # The first batch, read here, names the features (its columns) when `names` does not.
    first = next(source, None)
    given_names = None if names is None else _util.names("names", names)
    if given_names is None and grad is None and model != "mixture" and source.names is not None:
        given_names = list(source.names)
    rows = itertools.chain([] if first is None else [first], source)

    def reread():
        again = _Batches(opener(), target, columns, needs_y=needs_y)
        again.names, again.endog_name, again._count = source.names, source.endog_name, 1
        return again

    fit_ = _gradfree.inference_fit_stream(rows, model_json, spec_json, given_names, max_steps, grad, n_params, bool(progress),
                                          reread if (mle and opener is not None and refit is not False) else None, refit)
    # Named columns in (DataFrames, dicts, a Ray Dataset), pandas out, where pandas is installed.
    pandas = source.names is not None and importlib.util.find_spec("pandas") is not None
    res = results(fit_, pandas=pandas, endog_name=str(source.endog_name or "y"), intercept=bool(intercept) and grad is None)
    return _with_formula(res, None if stream is None else stream.spec)


class _FormulaChunks:
    """The chunks of a formula's :func:`fit_stream` as ``(X, y)`` DataFrame and Series: the first
    chunk builds the design (:class:`gradfree._formula.FormulaSpec`), every later one goes through
    it (the same columns, levels and transforms); chunks left without rows by dropped missing values
    are skipped."""

    def __init__(self, formula, data, levels, env, batch_rows):
        if data is None:
            raise InvalidParameterError(f"invalid parameter `data` = None: the formula {formula!r} (as batches) needs "
                                        "data=, an iterable of DataFrame chunks (or a Ray Dataset)")
        if hasattr(data, "iter_batches"):
            rows = 4096 if batch_rows is None else _util.count("batch_rows", batch_rows, 1)
            data = data.iter_batches(batch_size=rows, batch_format="pandas")
        elif batch_rows is not None:
            raise InvalidParameterError(f"invalid parameter `batch_rows` = {batch_rows!r}: only with a Ray Dataset "
                                        "(it would be ignored)")
        if isinstance(data, (str, bytes)) or hasattr(data, "keys") or not hasattr(data, "__iter__"):
            raise InvalidParameterError(f"invalid parameter `data`: fit_stream reads an iterable of chunks (DataFrames, "
                                        f"dicts of columns), got a {type(data).__name__}; rows in memory: "
                                        f"fit({formula!r}, data=df)")
        if levels is not None:
            if not isinstance(levels, dict) or not all(isinstance(k, str) and hasattr(v, "__iter__") and
                                                       not isinstance(v, (str, bytes)) for k, v in levels.items()):
                raise InvalidParameterError(f"invalid parameter `levels` = {levels!r}: a dict of a column's name -> its "
                                            "levels (a list), e.g. {'g': ['a', 'b', 'c']}")
            levels = {k: list(v) for k, v in levels.items()}
        self._formula, self._levels, self._env = formula, levels, env
        self._it = iter(data)
        self._count = 0
        self.spec = None

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            chunk = next(self._it)
            self._count += 1
            where = f"data chunk {self._count}"
            if self.spec is None:
                self.spec, y, X = _formula.FormulaSpec.build(self._formula, chunk, self._env, self._levels, where)
            else:
                y, X = self.spec.frames(chunk, where)
            if len(X):
                return X, y
