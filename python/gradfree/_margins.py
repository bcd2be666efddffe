"""Marginal effects of logistic and Poisson regression, as statsmodels'
``DiscreteResults.get_margeff`` defines them (``statsmodels.discrete.discrete_margins``).

With the mean ``mu = F(eta)``, ``eta = x^T theta (+ offset)``, and ``f = dF/deta`` (``mu (1 - mu)``
for logistic, ``mu`` for Poisson), the effect of feature ``j`` at a row is ``dy/dx_j = f(eta)
theta_j`` (``method="dydx"``), or its elasticities ``ey/ex = dydx x_j / mu``, ``dy/ex = dydx x_j``,
``ey/dx = dydx / mu``. ``at="overall"`` averages the rows' effects; ``"mean"``, ``"median"`` and
``"zero"`` take them at the features' mean, median or 0 (the constant kept at 1). A fit's offset
or exposure is left out (the effects are on the rate at exposure 1), as statsmodels does. Their covariance
is the delta method's ``J V J^T``, ``J`` the Jacobian in ``theta`` by the complex step (as
statsmodels' ``approx_fprime_cs``), and the statistics are z (normal), as statsmodels'.
"""
from __future__ import annotations

import numpy as np

from . import _gradfree, _inference_results
from .errors import InvalidParameterError, NotOfferedError

_AT = ("overall", "mean", "median", "zero")
_METHODS = {"dydx": "dy/dx", "eyex": "d(lny)/d(lnx)", "dyex": "dy/d(lnx)", "eydx": "d(lny)/dx"}


def _effects(model, theta, x, off, method, keep):
    """The effects (averaged over the rows of ``x``) of the columns ``keep``; complex-safe."""
    eta = x @ theta + off
    mu = _inference_results._mean(model, eta)      # the fitted mean, complex-safe (the complex step below)
    f = mu * (1.0 - mu) if model == "logistic" else mu
    per_row = f[:, None] * theta[None, keep]
    if method in ("eyex", "dyex"):
        per_row = per_row * x[:, keep]
    if method in ("eyex", "eydx"):
        per_row = per_row / mu[:, None]
    return per_row.mean(axis=0)


class Margins:
    """Marginal effects (statsmodels' ``DiscreteMargins``): ``margeff``, ``margeff_se``,
    ``margeff_cov``, ``tvalues``, ``pvalues``, ``conf_int(alpha)``, ``summary_frame(alpha)`` and
    ``summary()``; ``at`` and ``method`` as asked."""

    def __init__(self, names, margeff, cov, at, method, pandas):
        self.names, self.at, self.method = names, at, method
        self.margeff = margeff
        self.margeff_cov = cov
        self.margeff_se = np.sqrt(np.diag(cov))
        with np.errstate(divide="ignore", invalid="ignore"):
            self.tvalues = margeff / self.margeff_se
        self.pvalues = np.array([2 * _gradfree.inference_law("norm", abs(t)) if np.isfinite(t) else np.nan for t in self.tvalues])
        self._pandas = pandas

    def conf_int(self, alpha: float = 0.05):
        """``1 - alpha`` normal intervals, ``(k, 2)``."""
        from ._inference_results import _alpha
        c = _gradfree.inference_law("norm", 1 - _alpha(alpha) / 2, 1.0, 1.0, True)
        return np.column_stack([self.margeff - c * self.margeff_se, self.margeff + c * self.margeff_se])

    def summary_frame(self, alpha: float = 0.05):
        """statsmodels' columns: the effect, ``Std. Err.``, ``z``, ``Pr(>|z|)``, ``Conf. Int. Low``,
        ``Cont. Int. Hi.`` (sic)."""
        import pandas as pd
        ci = self.conf_int(alpha)
        return pd.DataFrame({_METHODS[self.method]: self.margeff, "Std. Err.": self.margeff_se, "z": self.tvalues,
                             "Pr(>|z|)": self.pvalues, "Conf. Int. Low": ci[:, 0], "Cont. Int. Hi.": ci[:, 1]},
                            index=self.names)

    def summary(self, alpha: float = 0.05) -> str:
        """The effects as text."""
        ci = self.conf_int(alpha)
        head = f"{'':<16}{_METHODS[self.method]:>12}{'std err':>12}{'z':>10}{'P>|z|':>10}{'[' + str(alpha / 2):>12}{str(1 - alpha / 2) + ']':>10}"
        lines = [f"Marginal effects (at={self.at}, method={self.method})", "=" * 82, head, "-" * 82]
        for j, n in enumerate(self.names):
            lines.append(f"{n[:16]:<16}{self.margeff[j]:>12.4f}{self.margeff_se[j]:>12.4f}{self.tvalues[j]:>10.3f}"
                         f"{self.pvalues[j]:>10.3f}{ci[j, 0]:>12.4f}{ci[j, 1]:>10.4f}")
        lines.append("=" * 82)
        return "\n".join(lines)

    def __repr__(self):
        return f"<Margins at={self.at} method={self.method}: {len(self.names)} effects>"


def get_margeff(results, at="overall", method="dydx", atexog=None, dummy=False, count=False):
    """The marginal effects of a logistic or Poisson fit (see the module documentation)."""
    model = results.model.name
    if model not in ("logistic", "poisson"):
        raise NotOfferedError(f"`get_margeff` is for logistic and Poisson regression (statsmodels' discrete models), not {model}")
    if at not in _AT:
        raise InvalidParameterError(f"invalid parameter `at` = {at!r}: must be one of {', '.join(_AT)}")
    if method not in _METHODS:
        raise InvalidParameterError(f"invalid parameter `method` = {method!r}: must be one of {', '.join(_METHODS)}")
    for name, v in (("atexog", atexog), ("dummy", dummy), ("count", count)):
        if v not in (None, False):
            raise NotOfferedError(f"`{name}` of get_margeff is not offered: the effects are the derivatives of every column")
    x = results.model.exog
    if x is None:
        raise NotOfferedError("get_margeff needs the fitted rows, which were streamed or removed")
    x = np.asarray(x, dtype=np.float64)
    off = np.zeros(x.shape[0])     # effects on the rate: offset 0, exposure 1 (statsmodels' margins)
    const = [j for j in range(x.shape[1]) if np.all(x[:, j] == x[0, j]) and x[0, j] != 0]
    keep = [j for j in range(x.shape[1]) if j not in const]
    if not keep:
        raise NotOfferedError("get_margeff: the model has only a constant, so there is no effect to report")
    if at != "overall":
        pick = {"mean": np.mean, "median": np.median, "zero": lambda a, axis: np.zeros(a.shape[1])}[at]
        row = pick(x, axis=0)
        row[const] = x[0, const]
        x, off = row[None, :], np.array([0.0])
    theta = np.asarray(results._fit.params(), dtype=np.float64)
    me = _effects(model, theta, x, off, method, keep)
    h = 1e-20
    jac = np.empty((len(keep), theta.size))
    for k in range(theta.size):
        t = theta.astype(np.complex128)
        t[k] += 1j * h
        jac[:, k] = _effects(model, t, x.astype(np.complex128), off, method, keep).imag / h
    cov = jac @ np.asarray(results._fit.cov_params()) @ jac.T
    return Margins([results.names[j] for j in keep], me, cov, at, method, results._pandas)
