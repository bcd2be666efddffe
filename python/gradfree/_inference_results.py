"""The results of :func:`gradfree.inference.fit`, in statsmodels' conventions.

Three classes share :class:`InferenceResults`, by what the method estimates:

- :class:`MLEResults` (``method="mle"``, the default for GLMs): statsmodels' ``GLMResults``
  attributes (``params``, ``bse``, ``tvalues``, ``pvalues``, ``conf_int``, ``cov_params``,
  ``llf``, ``aic``, ``bic``, ``nobs``, ``df_model``, ``df_resid``, ``scale``, ``predict``,
  ``fittedvalues``, ``resid``...);
- :class:`RandomScalingResults`: random scaling's confidence intervals (Lee et al. 2022) and the
  chains;
- :class:`ProcessResults` (SGD, MasGrad, the diffusions, MadProx): the chains and their spread
  (``process_sd``, ``bands``), which is the process's at ``beta = 2n/eta`` and not a confidence
  interval, so ``bse`` and ``conf_int`` raise :class:`gradfree.errors.NotOfferedError`.

A DataFrame in gives pandas out: Series and DataFrames indexed by the column names (``const`` for
the intercept) and the rows' index. Results pickle, and ``save``/``load`` as statsmodels' do.
"""
from __future__ import annotations

import html
import json
import numbers
import os
import pickle
import warnings as _warnings

import numpy as np

from . import _gradfree, _pickling
from ._measures import StatsmodelsMeasures
from ._pickling import Checked as _Checked
from .errors import (CheckpointError, ConvergenceWarning, InferenceWarning, InvalidParameterError, NotOfferedError,
                     PerfectSeparationWarning)

__all__ = ["InferenceResults", "MLEResults", "RandomScalingResults", "ProcessResults", "FittedModel", "Summary",
           "SummaryTable", "load"]

_GLMS = ("linear", "logistic", "poisson")
#: The class each kind of a fit's warning is raised as (the library's ``WarningKind``).
_WARNING_CLASSES = {"perfect-separation": PerfectSeparationWarning, "convergence": ConvergenceWarning,
                    "other": InferenceWarning}


def _alpha(alpha) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0.0 < float(alpha) < 1.0:
        raise InvalidParameterError(f"invalid parameter `alpha` = {alpha!r}: must be in (0, 1)")
    return float(alpha)


class FittedModel(_Checked):
    """The fitted model, as statsmodels' ``results.model``: its name, ``exog_names``,
    ``endog_names``, ``formula`` (None unless fitted from one), and (unless removed) ``exog`` and
    ``endog``. Compares equal to its name."""

    def __init__(self, name, exog_names, endog_name, exog=None, endog=None, intercept=False):
        self.name = name
        self.exog_names = list(exog_names)
        self.endog_names = endog_name
        self._x = exog
        self.endog = endog
        self.intercept = intercept
        #: The formula of ``fit("y ~ x1 + C(g)", data=df)`` (None without one) and its design's
        #: description, which ``predict`` passes new rows through (gradfree._formula).
        self.formula = None
        self._spec = None

    @property
    def exog(self):
        """The design matrix the model was fitted on (with the ``const`` column), or None once
        the data are removed or when the rows were streamed."""
        if self._x is None:
            return None
        return _design(self._x, self.intercept)

    def __eq__(self, other):
        return self.name == other if isinstance(other, str) else NotImplemented

    def __hash__(self):
        return hash(self.name)

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"<FittedModel {self.name}: {len(self.exog_names)} parameters>"


def _design(x, intercept):
    return np.column_stack([np.ones(x.shape[0]), x]) if intercept else x


class SummaryTable(_Checked):
    """One table of a :class:`Summary`, as statsmodels' ``SimpleTable``: ``data`` is its rows of
    strings (the coefficient table's first row is the column titles), rendered by ``as_text``,
    ``as_html``, ``as_latex_tabular`` and ``as_csv``."""

    def __init__(self, data, text, header_row):
        self.data = data
        self._text = text
        self._header_row = header_row

    def as_text(self):
        return self._text

    def as_html(self):
        rows = []
        for i, row in enumerate(self.data):
            tag = "th" if (self._header_row and i == 0) else "td"
            cells = "".join(
                f"<{'th' if (j == 0 and tag == 'td' and self._header_row) else tag}>{html.escape(c)}</{'th' if (j == 0 and tag == 'td' and self._header_row) else tag}>"
                for j, c in enumerate(row))
            rows.append(f"<tr>{cells}</tr>")
        return '<table class="simpletable">\n' + "\n".join(rows) + "\n</table>"

    def as_latex_tabular(self):
        def esc(c):
            for a, b in (("\\", "\\textbackslash{}"), ("&", "\\&"), ("%", "\\%"), ("$", "\\$"), ("#", "\\#"),
                         ("_", "\\_"), ("{", "\\{"), ("}", "\\}"), ("|", "$|$"), (">", "$>$")):
                c = c.replace(a, b)
            return c
        cols = len(self.data[0]) if self.data else 0
        lines = ["\\begin{center}", "\\begin{tabular}{l" + "c" * (cols - 1) + "}", "\\toprule"]
        for i, row in enumerate(self.data):
            lines.append(" & ".join(esc(c) for c in row) + " \\\\")
            if self._header_row and i == 0:
                lines.append("\\midrule")
        lines += ["\\bottomrule", "\\end{tabular}", "\\end{center}"]
        return "\n".join(lines)

    def as_csv(self):
        def q(c):
            return f'"{c}"' if ("," in c or '"' in c) else c
        return "\n".join(",".join(q(c.strip()) for c in row) for row in self.data)

    def __str__(self):
        return self._text

    __repr__ = __str__


class Summary(_Checked):
    """A fit's summary, as statsmodels' ``Summary``: ``tables`` (the header, then the
    coefficients), ``extra_txt`` (the notes), and ``as_text``, ``as_html``, ``as_latex``,
    ``as_csv``."""

    def __init__(self, parts):
        # The library's summary and its text, header and table as it prints them (no layout here).
        doc, cells = parts["summary"], parts["cells"]
        self._doc, self._text = doc, parts["text"]
        self.title = doc["title"]
        header = []
        for i in range(max(len(doc["left"]), len(doc["right"]))):
            row = []
            for side in (doc["left"], doc["right"]):
                k, v = side[i] if i < len(side) else ("", "")
                row += [f"{k}:" if k else "", v]
            header.append(row)
        coef = [[""] + list(doc["columns"])] + [[name] + row for name, row in zip((r[0] for r in doc["rows"]), cells)]
        self.tables = [SummaryTable(header, "\n".join(parts["header"]), False),
                       SummaryTable(coef, "\n".join(parts["table"]), True)]
        self.extra_txt = "\n".join(doc["notes"])

    def as_text(self):
        return self._text

    def as_html(self):
        out = f"<h3>{html.escape(self.title)}</h3>\n" + "\n".join(t.as_html() for t in self.tables)
        if self.extra_txt:
            out += "<br/>\n" + "<br/>\n".join(html.escape(n) for n in self.extra_txt.split("\n"))
        return out

    def as_latex(self):
        out = f"\\begin{{center}}\n{self.title}\n\\end{{center}}\n" + "\n".join(t.as_latex_tabular() for t in self.tables)
        if self.extra_txt:
            out += "\n%\n" + "\n".join(f"% {n}" for n in self.extra_txt.split("\n"))
        return out

    def as_csv(self):
        out = self.title + "\n" + "\n".join(t.as_csv() for t in self.tables)
        if self.extra_txt:
            out += "\n" + self.extra_txt
        return out

    def _repr_html_(self):
        return self.as_html()

    def __str__(self):
        return self._text

    __repr__ = __str__


class InferenceResults:
    """What a run estimated (see the module documentation); the base of the three results classes.

    Attributes
    ----------
    params : ndarray or Series, shape (p,)
        The estimates.
    names : list of str
        Parameter names (``const`` first with ``intercept=True``).
    method : str
    model : FittedModel
        The model: ``model.name`` (``"logistic"``...), ``model.exog_names``, ``model.endog_names``.
    spec : dict
        The run's settings, every default filled in.
    nobs : int
        Rows fitted (streamed: read).
    streamed_rows : int or None
        Streamed runs: the rows read.
    warnings : list of str
        What the estimate must be read with (also raised as warnings when the fit is made).
    """

    def __init__(self, fit, *, X=None, y=None, index=None, pandas=False, endog_name="y", intercept=False, warn=True,
                 offset=None):
        self._fit = fit
        #: The fit's offset per row (with ``log(exposure)``), or None.
        self._offset = offset
        self._pandas = bool(pandas)
        self._index = index
        self.names = list(fit.names)
        self.spec = json.loads(fit.spec_json)
        self.method = self.spec["method"]
        self.model = FittedModel(fit.model, self.names, endog_name, X, y, intercept)
        self.streamed_rows = fit.streamed_rows
        kinded = list(fit.warnings)
        self.warnings = [text for _, text in kinded]
        self._rows = None if X is None else int(X.shape[0])
        if warn:
            for kind, text in kinded:
                _warnings.warn(text, _WARNING_CLASSES.get(kind, InferenceWarning), stacklevel=4)

    # pandas in, pandas out.
    def _series(self, values, name=None):
        if not self._pandas:
            return values
        import pandas as pd
        return pd.Series(values, index=self.names, name=name)

    def _frame(self, values, columns):
        if not self._pandas:
            return values
        import pandas as pd
        return pd.DataFrame(values, index=self.names, columns=columns)

    def _rows_out(self, values, name=None, index=None):
        if not self._pandas:
            return values
        import pandas as pd
        return pd.Series(values, index=self._index if index is None else index, name=name)

    @property
    def params(self):
        return self._series(self._fit.params())

    def cov_params(self):
        """Covariance of the estimates, ``(p, p)`` (a DataFrame with pandas input)."""
        return self._frame(self._fit.cov_params(), self.names)

    @property
    def nobs(self):
        if self.streamed_rows is not None:
            return int(self.streamed_rows)
        return self._rows

    def summary(self, alpha: float = 0.05, xname=None, yname=None, layout=None) -> Summary:
        """The summary (statsmodels' layout) with ``1 - alpha`` intervals; ``xname`` renames the
        parameters (a list of ``p`` names), ``yname`` the response. Maximum likelihood's header
        is laid out as statsmodels' ``OLS`` (linear), ``Logit``/``Poisson`` (logistic, Poisson;
        ``GLM`` for streamed fits) summaries are; ``layout`` (``"glm"``, ``"ols"``,
        ``"discrete"``) chooses."""
        if layout is not None and layout not in ("glm", "ols", "discrete"):
            raise InvalidParameterError(f"invalid parameter `layout` = {layout!r}: must be one of glm, ols, discrete")
        names = self.names if xname is None else [str(n) for n in xname]
        if len(names) != len(self.names):
            raise InvalidParameterError(f"invalid parameter `xname`: {len(names)} names for {len(self.names)} parameters")
        return Summary(json.loads(self._fit.summary(1.0 - _alpha(alpha), str(self.model.endog_names if yname is None else yname),
                                                    names, layout)))

    def predict(self, exog=None, which="mean", offset=None, exposure=None):
        """Predictions of a GLM at ``exog`` (default the fitted rows): the mean (``which="mean"``)
        or the linear predictor (``"linear"``). When the fit added the ``const`` column
        (``intercept=True``), ``exog`` may come without it or with it (as ``sm.add_constant``
        gives it: a DataFrame's column named ``const``, else a first column of ones). ``offset``
        and ``exposure`` (added as ``log(exposure)``) apply to ``exog``; without ``exog`` the fit's
        own offset is used, as statsmodels. A model fitted from a formula takes a DataFrame of the
        formula's variables, transformed as the fitted rows were (same levels; NaN for a row with a
        missing value, as statsmodels' formula models)."""
        if self.model.name not in _GLMS:
            raise NotOfferedError(f"`predict` is for the GLMs ({', '.join(_GLMS)}), not {self.model.name}")
        if which not in ("mean", "linear"):
            raise InvalidParameterError(f"invalid parameter `which` = {which!r}: must be one of mean, linear")
        spec = getattr(self.model, "_spec", None)
        if spec is not None and exog is not None and not isinstance(exog, np.ndarray):
            return spec.predict(self, exog, which, offset=offset, exposure=exposure)  # through the formula's design
        index = None
        if exog is None:
            if self.model._x is None:
                raise NotOfferedError("`predict()` without exog needs the fitted rows, which were streamed or removed: pass exog")
            x = self.model._x
            if offset is not None or exposure is not None:
                raise InvalidParameterError("invalid parameter `offset`: only with exog (the fitted rows use the fit's own offset)")
        else:
            index = getattr(exog, "index", None)
            want = len(self.names) - int(self.model.intercept)
            if self.model.intercept and hasattr(exog, "columns") and "const" in [str(c) for c in exog.columns] \
                    and len(exog.columns) == want + 1:
                exog = exog.drop(columns=[c for c in exog.columns if str(c) == "const"])
            x = np.asarray(exog, dtype=np.float64)
            x = x.reshape(-1, 1) if x.ndim == 1 else x
            if self.model.intercept and x.ndim == 2 and x.shape[1] == want + 1 and np.all(x[:, 0] == 1.0):
                x = x[:, 1:]                              # the const column of sm.add_constant
            if x.ndim != 2 or x.shape[1] != want:
                raise InvalidParameterError(f"invalid parameter `exog`: {x.shape[-1]} columns, the model has {want} features"
                                            + (" (or these and a first column of ones)" if self.model.intercept else ""))
        eta = _design(x, self.model.intercept) @ np.asarray(self._fit.params())
        if exog is None:
            if self._offset is not None:
                eta = eta + self._offset
        else:
            for name, v, f in (("offset", offset, lambda a: a), ("exposure", exposure, np.log)):
                if v is not None:
                    a = np.asarray(v, dtype=np.float64).ravel()
                    if a.shape[0] != x.shape[0] or not np.all(np.isfinite(f(a))):
                        raise InvalidParameterError(f"invalid parameter `{name}`: one finite value per row of exog "
                                                    f"({x.shape[0]}){'; exposure must be positive' if name == 'exposure' else ''}")
                    eta = eta + f(a)
        out = eta if which == "linear" else _mean(self.model.name, eta)
        if not self._pandas:
            return out
        import pandas as pd
        return pd.Series(out, index=self._index if exog is None else index)

    # Pickling and files, as statsmodels' results; pickles are checked (gradfree._pickling: format,
    # class, version, checksum), then the fit's JSON is (inference_from_json).
    _pickle_version = 1

    def _to_pickle(self) -> dict:
        state = {"pandas": self._pandas, "index": self._index, "X": self.model._x, "y": self.model.endog,
                 "endog_name": self.model.endog_names, "intercept": self.model.intercept, "offset": self._offset}
        spec = getattr(self.model, "_spec", None)
        if spec is not None:
            state["formula"] = spec.to_state()          # patsy's objects do not pickle: what rebuilds them
        return {"fit_json": self._fit.fit_json, "names": list(self.names), "state": state}

    @classmethod
    def _from_pickle(cls, saved):
        if not (isinstance(saved, dict) and set(saved) == {"fit_json", "names", "state"} and isinstance(saved["fit_json"], str)
                and isinstance(saved["names"], list) and isinstance(saved["state"], dict)):
            raise CheckpointError(f"a pickle of {cls.__name__} with other fields (changed or damaged)")
        fit = _gradfree.inference_from_json(saved["fit_json"], [str(n) for n in saved["names"]])
        kind = _class_of(fit)
        if kind is not cls:
            raise CheckpointError(f"a pickle of {cls.__name__} holding a {json.loads(fit.spec_json)['method']} fit, whose "
                                  f"results are {kind.__name__} (changed or damaged)")
        state = saved["state"]
        res = cls(fit, X=state.get("X"), y=state.get("y"), index=state.get("index"), pandas=state.get("pandas", False),
                  endog_name=state.get("endog_name", "y"), intercept=state.get("intercept", False), warn=False,
                  offset=state.get("offset"))
        if state.get("formula") is not None:
            from ._formula import FormulaSpec
            spec = FormulaSpec.from_state(state["formula"])
            res.model.formula, res.model._spec = spec.formula, spec
        return res

    def remove_data(self):
        """Drops the fitted rows (``model.exog``, ``model.endog``) so that a saved result is small;
        ``fittedvalues``, ``resid`` and ``predict()`` without exog then raise."""
        self.model._x = None
        self.model.endog = None

    def save(self, fname, remove_data=False):
        """Pickles the result to ``fname`` (a path or a file object), written atomically: a
        crash leaves the old file or the new one, never half of one."""
        if remove_data:
            self.remove_data()
        if hasattr(fname, "write"):
            pickle.dump(self, fname)
            return
        _gradfree.atomic_write(os.fspath(fname), pickle.dumps(self))

    @classmethod
    def load(cls, fname):
        """A result saved with :meth:`save` (statsmodels' classmethod): a ``cls`` (any inference
        result when called on :class:`InferenceResults`), else :class:`CheckpointError` naming what
        the file holds (see :func:`load`)."""
        return _load(fname, cls)

    def __repr__(self):
        return f"<{type(self).__name__} {self.method} on {self.model.name}: {len(self.names)} parameters>"


def _mean(model, eta):
    if model == "logistic":
        return 1.0 / (1.0 + np.exp(-eta))
    if model == "poisson":
        return np.exp(eta)
    return eta


class _WithIntervals(InferenceResults):
    """Standard errors, statistics, p-values and confidence intervals."""

    @property
    def bse(self):
        return self._series(self._fit.bse())

    @property
    def tvalues(self):
        return self._series(self._fit.tvalues())

    @property
    def pvalues(self):
        return self._series(self._fit.pvalues())

    def conf_int(self, alpha: float = 0.05, cols=None):
        """The ``1 - alpha`` confidence intervals, ``(p, 2)`` (a DataFrame with columns 0 and 1
        with pandas input); ``cols``: the positions of the parameters to return."""
        ci = self._fit.conf_int(1.0 - _alpha(alpha))
        names = self.names
        if cols is not None:
            idx = np.atleast_1d(np.asarray(cols))
            if idx.dtype.kind not in "iu" or np.any(idx < 0) or np.any(idx >= len(names)):
                raise InvalidParameterError(f"invalid parameter `cols` = {cols!r}: positions in 0..{len(names) - 1}")
            ci, names = ci[idx], [names[i] for i in idx]
        if not self._pandas:
            return ci
        import pandas as pd
        return pd.DataFrame(ci, index=names, columns=[0, 1])


class MLEResults(StatsmodelsMeasures, _WithIntervals):
    """Maximum likelihood with Wald intervals, read as statsmodels' ``GLMResults``,
    ``LogitResults``/``PoissonResults`` and ``OLSResults`` are: z statistics for logistic and
    Poisson regression and for the linear model's robust covariances, Student's t on ``df_resid``
    for the linear model's nonrobust one (``use_t`` chooses); ``df_model`` is ``rank - 1`` (GLM,
    Logit, Poisson) or ``rank - k_constant`` (OLS); the measures of fit and tests of
    :class:`gradfree._measures.StatsmodelsMeasures`."""

    @property
    def _glm(self):
        return json.loads(self._fit.glm_json)

    @property
    def llf(self):
        return float(self._glm["llf"])

    @property
    def nobs(self):
        return int(self._glm["nobs"])

    @property
    def scale(self):
        return float(self._glm["scale"])

    @property
    def converged(self):
        return bool(self._glm["converged"])

    @property
    def _order(self):
        return json.loads(self._fit.fit_json).get("order")

    @property
    def order_pvalue(self):
        """Streamed fits: the p-value of the test that the rows came in random order (a score
        fluctuation test of the one-pass estimate, Zeileis & Hornik 2007); ``None`` when not run
        (rows in memory, the linear model, rows within the first block)."""
        o = self._order
        return None if o is None else float(o["pvalue"])

    @property
    def order_effect(self):
        """Streamed fits: whether the rows' order moved the one-pass estimate (``order_pvalue`` <
        0.001); the estimate is then the Newton passes' MLE when the rows could be read again,
        else marked not converged."""
        o = self._order
        return bool(o is not None and o["order_effect"])

    @property
    def refit_passes(self):
        """Streamed fits: the Newton passes run over the rows read again (0: none)."""
        o = self._order
        return 0 if o is None else int(o.get("passes", 0))

    @property
    def cov_type(self):
        return self.spec["cov_type"]

    def _data(self):
        if self.model._x is None or self.model.endog is None:
            raise NotOfferedError("the fitted rows were streamed or removed, so there are no fitted values or residuals")
        return self.model._x, self.model.endog

    @property
    def fittedvalues(self):
        """The fitted means (statsmodels' ``GLMResults.fittedvalues``)."""
        self._data()
        return self.predict()

    @property
    def resid_response(self):
        """``y - fittedvalues``."""
        _, y = self._data()
        return self._rows_out(y - np.asarray(self.fittedvalues))

    resid = resid_response

    @property
    def resid_pearson(self):
        """``(y - mu) / sqrt(V(mu))``, ``V`` the family's variance function (1, ``mu (1 - mu)``,
        ``mu``)."""
        _, y = self._data()
        mu = np.asarray(self.fittedvalues)
        var = {"linear": np.ones_like(mu), "logistic": mu * (1 - mu), "poisson": mu}[self.model.name]
        return self._rows_out((y - mu) / np.sqrt(var))

    @property
    def resid_deviance(self):
        """``sign(y - mu) sqrt(d_i)``, ``d_i`` the row's share of the deviance (statsmodels'
        ``GLMResults.resid_deviance``)."""
        _, y = self._data()
        mu = np.asarray(self.fittedvalues)
        with np.errstate(divide="ignore", invalid="ignore"):
            ylog = lambda a, b: np.where(a > 0, a * np.log(np.where(a > 0, a, 1) / b), 0.0)  # noqa: E731
            d = {"linear": lambda: (y - mu) ** 2,
                 "logistic": lambda: 2 * (ylog(y, mu) + ylog(1 - y, 1 - mu)),
                 "poisson": lambda: 2 * (ylog(y, mu) - (y - mu))}[self.model.name]()
        return self._rows_out(np.sign(y - mu) * np.sqrt(np.maximum(d, 0.0)))


class _Chains:
    """``chains``, every chain at every record (``(chains, records, p)``), and ``steps``, the step of
    each record."""

    @property
    def chains(self):
        return self._fit.chains()

    @property
    def steps(self):
        return self._fit.steps()


class RandomScalingResults(_Chains, _WithIntervals):
    """Averaged SGD with random-scaling intervals (Lee et al. 2022) in passes over the rows, every
    chain pooled: ``params`` is the mean of the chains' averages over the last pass, ``bse`` the
    standard error ``sqrt(6 Vbar_jj / T)`` (``E V_T = sigma^2 / 6``; ``cov_params()`` is ``6 Vbar /
    T``), ``conf_int`` and ``pvalues`` use the law of ``K`` pooled chains (6.747 times
    ``sqrt(V_T,jj / T)`` at 95% for one chain, tending to ``1.96 bse`` as ``K`` grows). A
    :class:`gradfree.errors.ConvergenceWarning` says when the average has not settled (its interval
    is then not a confidence interval). ``chains``: every chain's running average at every record;
    ``chain_intervals``: every chain's own interval."""

    def chain_intervals(self, alpha: float = 0.05):
        """Every chain's ``1 - alpha`` interval, ``(chains, p, 2)``."""
        return self._fit.chain_intervals(1.0 - _alpha(alpha))


class ProcessResults(_Chains, InferenceResults):
    """SGD, MasGrad, the diffusions and MadProx: ``chains`` (every chain at every record),
    ``params`` (the mean of the final iterates), ``process_sd`` and ``bands``: the process's
    spread at inverse temperature ``beta = 2n/eta`` (Liang & Su 2019, Thm. 3.1), the bands of the
    paper's figures. It is not an estimator's sampling spread, so ``bse``, ``conf_int``,
    ``tvalues`` and ``pvalues`` raise :class:`NotOfferedError` (fit with ``method="mle"`` or
    ``"random-scaling"`` for confidence intervals)."""

    @property
    def process_sd(self):
        return self._series(self._fit.process_sd())

    @property
    def ridged_steps(self):
        return self._fit.ridged_steps

    def bands(self, alpha: float = 0.05):
        """Pointwise bands across chains at every record: ``(lower, center, upper)``, each
        ``(records, p)``: the empirical ``alpha/2`` and ``1 - alpha/2`` quantiles (NumPy's
        default, type 7) and the mean."""
        a = _alpha(alpha)
        chains = self.chains
        lo, hi = np.quantile(chains, [a / 2, 1 - a / 2], axis=0)
        return lo, chains.mean(axis=0), hi

    def final_band(self, alpha: float = 0.05):
        """The band at the last step, ``(p, 2)``, as the run's ``interval`` setting reads it
        (quantiles, or mean +- z sd)."""
        return self._fit.final_band(1.0 - _alpha(alpha))

    # The library refuses these (NotOfferedError, pointing to bands()).
    bse = property(lambda self: self._fit.bse())
    tvalues = property(lambda self: self._fit.tvalues())
    pvalues = property(lambda self: self._fit.pvalues())

    def conf_int(self, alpha: float = 0.05, cols=None):
        """Not offered: raises :class:`NotOfferedError` pointing to :meth:`bands`."""
        return self._fit.conf_int(1.0 - _alpha(alpha))


_CLASSES = {"MLEResults": MLEResults, "RandomScalingResults": RandomScalingResults, "ProcessResults": ProcessResults}


def _class_of(fit) -> type:
    """The results class of a fit from the extension, by its method."""
    method = json.loads(fit.spec_json)["method"]
    return MLEResults if method == "mle" else RandomScalingResults if method == "random-scaling" else ProcessResults


def results(fit, **context):
    """The results object of a fit from the extension, by its method."""
    return _class_of(fit)(fit, **context)


for _cls in _CLASSES.values():
    _pickling.restorable(_cls)


def _restore(*args):
    """The restore function of pickles written before checked pickles: refused."""
    raise CheckpointError("an inference result pickled by an older gradfree, without a checksum: it is not loaded; "
                          "fit the model again")


def _load(fname, kind):
    what = "a gradfree inference result" if kind is InferenceResults else f"a gradfree {kind.__name__}"
    if hasattr(fname, "read"):
        return _pickling.load_restorable(fname, what, kind)
    with open(fname if isinstance(fname, (str, bytes)) else os.fspath(fname), "rb") as f:
        return _pickling.load_restorable(f, what, kind)


def load(fname):
    """A result saved with :meth:`InferenceResults.save` (a path or a file object).

    Only a gradfree inference result is returned: the file's pickle may name nothing but
    gradfree's checked restore (anything else, e.g. another library's object, is refused before
    its code runs), its class tag, version and checksum are verified, then the fit's JSON; anything
    else is a :class:`~gradfree.errors.CheckpointError` naming what the file holds."""
    return _load(fname, InferenceResults)
