"""What a statsmodels script reads off a GLM's results after the fit, with statsmodels'
definitions (computed once by the library, ``gradfree_inference::mle::measures``): ``df_model``,
``df_resid``, ``aic``, ``bic``, ``k_constant``; the GLM's ``deviance``, ``null_deviance``,
``pearson_chi2``; the discrete models' ``llnull``, ``llr``, ``llr_pvalue``, ``prsquared``; OLS's
``rsquared``, ``rsquared_adj``, ``fvalue``, ``f_pvalue``, ``ssr``, ``ess``, ``centered_tss``,
``uncentered_tss``, ``mse_model``, ``mse_resid``, ``mse_total``; ``use_t`` and
``df_resid_inference``; the tests ``t_test``, ``f_test``, ``wald_test``; and ``get_margeff``.

A measure the model does not have is an ``AttributeError``, as in statsmodels (``OLS`` results
have no ``llnull``); one a streamed fit cannot give (it keeps no rows) says so.
"""
from __future__ import annotations

import numpy as np

from . import _contrasts, _margins


def _measure(name: str, doc: str):
    def get(self):
        m = self._measures()
        if name not in m:
            if m.get("_streamed"):
                raise AttributeError(f"`{name}` needs the rows, which a streamed fit does not keep; fit in memory for it")
            raise AttributeError(f"`{name}` is not defined for the {self.model.name} model (as in statsmodels)")
        return m[name]
    get.__doc__ = doc
    return property(get)


class StatsmodelsMeasures:
    """The measures and tests of the module documentation, for :class:`MLEResults`."""

    def _measures(self) -> dict:
        m = getattr(self, "_measures_cache", None)
        if m is None:
            m = dict(self._fit.measures() or {})
            if self.streamed_rows is not None:
                m["_streamed"] = True
            self._measures_cache = m
        return m

    df_model = _measure("df_model", "The model's degrees of freedom: ``rank - k_constant`` for the linear model (OLS), "
                                    "``rank - 1`` for logistic and Poisson regression (Logit, Poisson, GLM).")
    df_resid = _measure("df_resid", "``nobs - rank``.")
    aic = _measure("aic", "``-2 llf + 2 rank``.")
    bic = _measure("bic", "``-2 llf + log(nobs) rank``.")
    deviance = _measure("deviance", "The deviance: the residual sum of squares (linear), ``-2 llf`` (logistic), "
                                    "``2 sum [y log(y / mu) - (y - mu)]`` (Poisson).")
    null_deviance = _measure("null_deviance", "The deviance of the model with a constant only (and the offset).")
    pearson_chi2 = _measure("pearson_chi2", "``sum (y - mu)^2 / V(mu)``.")
    llnull = _measure("llnull", "The log-likelihood of the model with a constant only (and the offset).")
    llr = _measure("llr", "The likelihood ratio statistic ``2 (llf - llnull)``.")
    llr_pvalue = _measure("llr_pvalue", "The chi-squared p-value of ``llr`` on ``df_model`` degrees of freedom.")
    prsquared = _measure("prsquared", "McFadden's pseudo R-squared ``1 - llf / llnull``.")
    ssr = _measure("ssr", "The linear model's residual sum of squares.")
    ess = _measure("ess", "The linear model's explained sum of squares (centered when the model has a constant).")
    centered_tss = _measure("centered_tss", "``sum (y - ybar)^2``.")
    uncentered_tss = _measure("uncentered_tss", "``sum y^2``.")
    rsquared = _measure("rsquared", "The linear model's R-squared (uncentered without a constant, as OLS).")
    rsquared_adj = _measure("rsquared_adj", "``1 - (nobs - k_constant) / df_resid (1 - rsquared)``.")
    mse_model = _measure("mse_model", "``ess / df_model``.")
    mse_resid = _measure("mse_resid", "``ssr / df_resid``.")
    mse_total = _measure("mse_total", "``(ess + ssr) / (df_model + df_resid)``.")
    fvalue = _measure("fvalue", "The F statistic that every coefficient but the constant is 0 (a Wald F with a robust "
                                "covariance).")
    f_pvalue = _measure("f_pvalue", "The p-value of ``fvalue``.")

    @property
    def k_constant(self) -> int:
        """1 when the design has a constant column (the intercept, or a column of one nonzero
        value), else 0."""
        return int(self._measures().get("k_constant", 0))

    @property
    def rank(self) -> int:
        """The rank of the design (fewer than its columns when some are collinear)."""
        return int(self._measures().get("rank", len(self.names)))

    @property
    def use_t(self) -> bool:
        """Whether the statistics use Student's t (statsmodels' default: the linear model's
        nonrobust covariance; ``fit(use_t=...)`` to choose)."""
        return self._fit.df_inference is not None

    @property
    def df_resid_inference(self):
        """The degrees of freedom of the t statistics: ``df_resid``, or the clusters less one
        with ``cov_type="cluster"`` (None when the statistics are normal)."""
        return self._fit.df_inference

    def pseudo_rsquared(self, kind: str = "mcf") -> float:
        """McFadden's (``"mcf"``, ``1 - llf / llnull``) or Cox and Snell's (``"cs"``) pseudo
        R-squared (statsmodels' ``GLMResults.pseudo_rsquared``)."""
        if kind not in ("mcf", "cs"):
            from .errors import InvalidParameterError
            raise InvalidParameterError(f"invalid parameter `kind` = {kind!r}: must be one of mcf, cs")
        m = self._measures()
        key = "prsquared" if kind == "mcf" else "pseudo_rsquared_cs"
        if key not in m:
            raise AttributeError(f"pseudo R-squared is not defined for the {self.model.name} model")
        return m[key]

    def t_test(self, r_matrix, q_matrix=None):
        """Wald t (or z) tests of ``R theta = q``, each row on its own: ``r_matrix`` a string
        (``"x1 = 0, x2 = x3"``), a matrix, or ``(R, q)`` (statsmodels' ``t_test``)."""
        return _contrasts.t_test(self, r_matrix, q_matrix)

    def f_test(self, r_matrix, q_matrix=None):
        """The joint F test of ``R theta = q`` (statsmodels' ``f_test``)."""
        return _contrasts.f_test(self, r_matrix, q_matrix)

    def wald_test(self, r_matrix, q_matrix=None, use_f=None, scalar=True):
        """The joint Wald test of ``R theta = q``: F when ``use_f`` (default ``use_t``), else
        chi-squared (statsmodels' ``wald_test``; the statistic is a scalar)."""
        return _contrasts.wald_test(self, r_matrix, q_matrix, use_f)

    def get_margeff(self, at="overall", method="dydx", atexog=None, dummy=False, count=False):
        """Marginal effects of logistic and Poisson regression with delta-method standard errors
        (statsmodels' ``get_margeff``; see :mod:`gradfree._margins`)."""
        return _margins.get_margeff(self, at, method, atexog, dummy, count)
