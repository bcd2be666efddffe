"""Linear hypotheses on a fit's coefficients, as statsmodels' ``t_test``, ``f_test`` and
``wald_test`` take and report them (``statsmodels.stats.contrast.ContrastResults``).

A hypothesis ``R theta = q`` is given as statsmodels takes it: a string of comma-separated linear
equations in the parameter names (``"x1 = 0, x2 + 2*x3 = 1"``, ``"x1 = x2"``; a bare expression
means ``= 0``), a matrix ``R`` (``q = 0``), or a tuple ``(R, q)``. The statistics are Wald's, with
the fit's covariance (its ``cov_type``): ``t = (R theta - q) / sqrt(R V R^T)`` row by row, and
``F = (R theta - q)^T (R V R^T)^{-1} (R theta - q) / J`` on ``J`` and the residual (or the
clusters') degrees of freedom, or its ``chi2 = J F`` when the fit uses the normal.
"""
from __future__ import annotations

import re

import numpy as np

from . import _gradfree
from .errors import InvalidParameterError

_NUMBER = re.compile(r"\s*(\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)\s*")


def _side(text: str, names: list, where: str):
    """The coefficients and constant of one side of an equation: terms ``[+-] [number *] name``
    or ``[+-] number``; names are matched longest first, so names with spaces, brackets or
    operators (``C(g)[T.b]``) are read whole."""
    coef = np.zeros(len(names))
    const = 0.0
    by_length = sorted(range(len(names)), key=lambda j: -len(names[j]))
    i, n = 0, len(text)
    first = True
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            if first:
                raise InvalidParameterError(f"invalid parameter `r_matrix`: an empty side in {where!r}")
            return coef, const
        sign = 1.0
        if text[i] in "+-":
            sign = -1.0 if text[i] == "-" else 1.0
            i += 1
        elif not first:
            raise InvalidParameterError(f"invalid parameter `r_matrix`: expected + or - at {text[i:]!r} in {where!r}")
        while i < n and text[i].isspace():
            i += 1
        factor = 1.0
        m = _NUMBER.match(text, i)
        name_at = None
        for j in by_length:
            if text.startswith(names[j], i):
                name_at = j
                break
        if name_at is None and m:
            factor = float(m.group(1))
            i = m.end()
            if i < n and text[i] == "*":
                i += 1
                while i < n and text[i].isspace():
                    i += 1
                name_at = next((j for j in by_length if text.startswith(names[j], i)), None)
                if name_at is None:
                    raise InvalidParameterError(f"invalid parameter `r_matrix`: no parameter named at {text[i:]!r} in "
                                                f"{where!r}; the names are {', '.join(names)}")
            else:
                const += sign * factor
                first = False
                continue
        if name_at is None:
            raise InvalidParameterError(f"invalid parameter `r_matrix`: no parameter named at {text[i:]!r} in {where!r}; "
                                        f"the names are {', '.join(names)}")
        i += len(names[name_at])
        while i < n and text[i].isspace():
            i += 1
        if i < n and text[i] == "*":   # name * number
            m = _NUMBER.match(text, i + 1)
            if not m:
                raise InvalidParameterError(f"invalid parameter `r_matrix`: expected a number after * in {where!r}")
            factor *= float(m.group(1))
            i = m.end()
        coef[name_at] += sign * factor
        first = False


def _split(text: str) -> list:
    """Comma-separated equations, ignoring commas inside brackets (names like ``C(g, levels)``)."""
    parts, depth, start = [], 0, 0
    for k, c in enumerate(text):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:k])
            start = k + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def constraints(r_matrix, names: list, q_matrix=None):
    """``(R, q)`` of a hypothesis given as statsmodels takes it (see the module documentation)."""
    p = len(names)
    if isinstance(r_matrix, str):
        if q_matrix is not None:
            raise InvalidParameterError("invalid parameter `q_matrix`: only with a matrix r_matrix (a string holds its own "
                                        "right-hand sides)")
        rows, qs = [], []
        for eq in _split(r_matrix):
            sides = eq.split("=")
            if len(sides) > 2:
                raise InvalidParameterError(f"invalid parameter `r_matrix`: {eq!r} has more than one =")
            lhs, lc = _side(sides[0], names, eq)
            rhs, rc = _side(sides[1], names, eq) if len(sides) == 2 else (np.zeros(p), 0.0)
            rows.append(lhs - rhs)
            qs.append(rc - lc)
        if not rows:
            raise InvalidParameterError("invalid parameter `r_matrix`: no equation")
        return np.array(rows), np.array(qs)
    if isinstance(r_matrix, tuple) and len(r_matrix) == 2 and q_matrix is None:
        r_matrix, q_matrix = r_matrix
    R = np.atleast_2d(np.asarray(r_matrix, dtype=np.float64))
    if R.ndim != 2 or R.shape[1] != p:
        raise InvalidParameterError(f"invalid parameter `r_matrix`: {R.shape[-1]} columns, the model has {p} parameters")
    q = np.zeros(R.shape[0]) if q_matrix is None else np.asarray(q_matrix, dtype=np.float64).ravel()
    if q.shape[0] != R.shape[0]:
        raise InvalidParameterError(f"invalid parameter `q_matrix`: {q.shape[0]} values for {R.shape[0]} restrictions")
    if not (np.all(np.isfinite(R)) and np.all(np.isfinite(q))):
        raise InvalidParameterError("invalid parameter `r_matrix`: values must be finite")
    return R, q


class ContrastResults:
    """The result of a test (statsmodels' ``ContrastResults``): for ``t_test``, ``effect``,
    ``sd``, ``tvalue``, ``pvalue``, ``df_denom``, ``conf_int(alpha)`` and ``summary_frame()``;
    for ``f_test`` and ``wald_test``, ``statistic`` (``fvalue`` for F), ``pvalue``, ``df_num``,
    ``df_denom`` and ``distribution`` (``"F"`` or ``"chi2"``)."""

    def __init__(self, kind, **values):
        self.kind = kind
        for k, v in values.items():
            setattr(self, k, v)

    def conf_int(self, alpha: float = 0.05):
        """``1 - alpha`` intervals of a t test's effects, ``(J, 2)``."""
        if self.kind != "t":
            raise AttributeError("conf_int is for t tests")
        from ._inference_results import _alpha
        a = _alpha(alpha)
        if self.distribution == "t":
            c = _gradfree.inference_law("t", 1 - a / 2, self.df_denom, 1.0, True)
        else:
            c = _gradfree.inference_law("norm", 1 - a / 2, 1.0, 1.0, True)
        return np.column_stack([self.effect - c * self.sd, self.effect + c * self.sd])

    def summary_frame(self, alpha: float = 0.05):
        """A t test as a DataFrame: coef, std err, t (or z), P>|t|, and the interval."""
        import pandas as pd
        stat = "t" if self.distribution == "t" else "z"
        ci = self.conf_int(alpha)
        return pd.DataFrame({"coef": self.effect, "std err": self.sd, stat: self.tvalue, f"P>|{stat}|": np.atleast_1d(self.pvalue),
                             "Conf. Int. Low": ci[:, 0], "Conf. Int. Upp.": ci[:, 1]},
                            index=[f"c{j}" for j in range(len(self.effect))])

    def __str__(self):
        if self.kind == "t":
            return "Test for Constraints\n" + str(self.summary_frame())
        return (f"<{self.distribution} test: {self.distribution}={self.statistic!r}, p={self.pvalue!r}, "
                f"df_denom={self.df_denom!r}, df_num={self.df_num!r}>")

    __repr__ = __str__


def _parts(results, r_matrix, q_matrix):
    R, q = constraints(r_matrix, list(results.names), q_matrix)
    theta = np.asarray(results._fit.params())
    cov = np.asarray(results._fit.cov_params())
    return R, q, R @ theta - q, R @ cov @ R.T


def t_test(results, r_matrix, q_matrix=None):
    """Each restriction's Wald t (or z) test."""
    R, q, diff, v = _parts(results, r_matrix, q_matrix)
    sd = np.sqrt(np.diag(v))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = diff / sd
    df = results._fit.df_inference
    if df is not None:
        pv = np.array([2 * _gradfree.inference_law("t", abs(v_), df) if np.isfinite(v_) else np.nan for v_ in t])
        dist = "t"
    else:
        pv = np.array([2 * _gradfree.inference_law("norm", abs(v_)) if np.isfinite(v_) else np.nan for v_ in t])
        dist = "norm"
    return ContrastResults("t", effect=diff + q, sd=sd, tvalue=t, pvalue=pv[0] if len(pv) == 1 else pv, df_denom=df,
                           distribution=dist, statistic=t, q=q)


def wald_test(results, r_matrix, q_matrix=None, use_f=None):
    """The joint Wald test: F on ``(J, df)`` when ``use_f`` (default: the fit's ``use_t``), else
    chi-squared on ``J``."""
    R, q, diff, v = _parts(results, r_matrix, q_matrix)
    J = R.shape[0]
    try:
        w = float(diff @ np.linalg.solve(v, diff))
    except np.linalg.LinAlgError:
        w = float(diff @ np.linalg.pinv(v) @ diff)
        J = int(np.linalg.matrix_rank(v))
    df = results._fit.df_inference
    if use_f is None:
        use_f = df is not None
    if use_f:
        # statsmodels' F: on the inference degrees of freedom with use_t, else the residual ones.
        denom = df if df is not None else float(results.df_resid)
        f = w / J
        return ContrastResults("F", statistic=f, fvalue=f, pvalue=_gradfree.inference_law("f", f, J, denom),
                               df_num=float(J), df_denom=denom, distribution="F")
    # statsmodels stores the chi-squared's degrees of freedom as df_denom.
    return ContrastResults("chi2", statistic=w, pvalue=_gradfree.inference_law("chi2", w, J), df_num=float(J),
                           df_denom=float(J), distribution="chi2")


def f_test(results, r_matrix, q_matrix=None):
    """The joint Wald test as an F test (statsmodels' ``f_test``)."""
    return wald_test(results, r_matrix, q_matrix, use_f=True)
