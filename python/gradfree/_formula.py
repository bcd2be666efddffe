"""Formulas for :mod:`gradfree.inference`, read as statsmodels' formula API reads them (patsy).

``fit("y ~ x1 + C(g) + np.log(x2)", data=df)`` builds the response and the design matrix with
patsy, the formula library statsmodels' formula API uses by default, so the columns have
statsmodels' names in statsmodels' order (``Intercept``, ``C(g)[T.b]``, ``np.log(x2)``,
``x1:x2``). The design's description (:class:`FormulaSpec`) is kept with the result and
transforms new data with the same categorical levels and the same stateful transforms
(``center``, ``standardize``, ``bs``, fixed from the rows the model was built on): for
``predict`` and for the later chunks of :func:`gradfree.inference.fit_stream`.

Rows with a missing value (NaN, None) in any variable of the formula are dropped, as
statsmodels' formula API does by default (``missing="drop"``, patsy's ``NA_action="drop"``);
``predict`` gives NaN for them, as statsmodels' ``predict`` does.

patsy is optional (``pip install patsy``, or the ``formula`` extra of gradfree); without it a
formula raises :class:`gradfree.errors.MissingDependencyError`.
"""
from __future__ import annotations

import collections
import importlib
import numbers
import types

import numpy as np

from .errors import InvalidParameterError, MissingDependencyError, NotOfferedError

#: What to install for formulas.
INSTALL = "pip install patsy (or pip install 'gradfree[formula]')"
#: Modules whose names a saved formula may refer to (``np.log``, ``math.sqrt``); anything else of
#: the session it was fitted in is not saved with a result.
_MODULES = ("numpy", "math", "scipy", "pandas", "patsy")


def _patsy():
    try:
        import patsy
    except ImportError as e:
        raise MissingDependencyError(f"formulas need patsy, the formula library of statsmodels' formula API: {INSTALL} "
                                     f"({e})") from None
    return patsy


def environment(depth: int):
    """The namespace a formula's names are looked up in (after the data's columns): the frame
    ``depth`` levels above the caller, then NumPy as ``np`` (as statsmodels' formula API, which
    evaluates in the caller's frame)."""
    patsy = _patsy()
    return patsy.EvalEnvironment.capture(depth + 1).with_outer_namespace({"np": np, "numpy": np})


def _frame_like(data, where: str):
    if data is None:
        raise InvalidParameterError(f"invalid parameter `{where}` = None: a formula needs the data its names refer to "
                                    "(a DataFrame, or a dict of columns)")
    if not hasattr(data, "keys") or not hasattr(data, "__getitem__") or isinstance(data, (str, bytes)):
        raise InvalidParameterError(f"invalid parameter `{where}`: expected a DataFrame (or a dict of columns) for the "
                                    f"formula, got {type(data).__name__}")
    import pandas as pd
    if isinstance(data, pd.DataFrame):
        return data
    try:        # columns as a DataFrame holds them (levels 2.0, not NumPy's np.float64(2.0), in the names)
        return pd.DataFrame({k: np.asarray(v) if np.ndim(v) else [v] for k, v in data.items()})
    except ValueError as e:
        raise InvalidParameterError(f"invalid parameter `{where}`: its columns do not make a table ({e})") from None


def _is_missing(v) -> bool:
    if v is None:
        return True
    try:
        return bool(v != v)
    except (TypeError, ValueError):
        return False


class FormulaSpec:
    """A formula and the description of its design: what :func:`gradfree.inference.fit` built
    from ``data``, reusable on new data (patsy's ``DesignInfo``, as statsmodels keeps it in
    ``model.data.design_info``).

    Parameters
    ----------
    formula : str
        The formula, ``"y ~ x1 + C(g)"`` (patsy's syntax, as statsmodels' formula API).
    y_info, x_info : patsy.DesignInfo
        The response's and the design's descriptions.

    Attributes
    ----------
    formula : str
    endog_name : str
        The response's name (the formula's left-hand side).
    exog_names : list of str
        The design's column names, statsmodels' (``Intercept`` first unless ``- 1``).
    """

    def __init__(self, formula, y_info=None, x_info=None, *, state=None, levels=None):
        self.formula = formula
        self._infos = None if y_info is None else (y_info, x_info)
        self._state = state
        self.levels = levels
        self.kept, self.rows = None, None       # build's: the positions of the rows kept, of how many
        if self._infos is not None:
            self.endog_name = y_info.column_names[0]
            self.exog_names = list(x_info.column_names)
        else:
            self.endog_name = state["endog_name"]
            self.exog_names = list(state["x"]["column_names"])

    @property
    def intercept(self) -> bool:
        return "Intercept" in self.exog_names

    def _lost(self):
        """The names of the fitting session a saved spec did not keep."""
        if self._state is None:
            return ()
        return {n for part in ("y", "x") for f in self._state[part]["factors"].values()
                for n, how in f["env"]["names"].items() if _restored(how) is None}

    def _design_infos(self):
        if self._infos is None:
            self._infos = (_rebuild(self._state["y"]), _rebuild(self._state["x"]))
        return self._infos

    # --- building -----------------------------------------------------------------------------

    @classmethod
    def build(cls, formula, data, eval_env, levels=None, where="data"):
        """The spec of ``formula`` on ``data`` and the frames it gives: ``(spec, y, X)``, ``y`` a
        Series named by the left-hand side, ``X`` a DataFrame with statsmodels' column names,
        both without the rows that have a missing value."""
        patsy = _patsy()
        if "~" not in formula:
            raise InvalidParameterError(f"invalid parameter `formula` = {formula!r}: no response: write it as "
                                        "'y ~ x1 + x2' (statsmodels' formula API needs one too)")
        data = _with_levels(_frame_like(data, where), levels, where)
        index = data.index
        data = data.reset_index(drop=True)        # positions as the index, so the rows kept are known
        try:
            y, X = patsy.dmatrices(formula, data, eval_env=eval_env, NA_action="drop", return_type="dataframe")
        except patsy.PatsyError as e:
            raise _explained(e, formula, data, where, None) from None
        kept = X.index.to_numpy()
        X.index = y.index = index[kept]
        if y.shape[1] != 1:
            raise InvalidParameterError(f"invalid parameter `formula` = {formula!r}: the response evaluates to "
                                        f"{y.shape[1]} columns {list(y.columns)} (a categorical or boolean column); "
                                        "make it numbers, e.g. data['y'].astype(float)")
        spec = cls(formula, y.design_info, X.design_info, levels=levels)
        spec.kept, spec.rows = kept, len(index)
        return spec, y.iloc[:, 0], X

    def kept_rows(self, value):
        """``value`` (an offset, an exposure, cluster labels: one per row of the data) on the rows
        the design kept; anything else unchanged (the fit then refuses its length)."""
        if value is None or getattr(self, "kept", None) is None:
            return value
        arr = np.asarray(value)
        return arr[self.kept] if arr.ndim >= 1 and arr.shape[0] == self.rows else value

    def frames(self, data, where="data"):
        """``(y, X)`` of new rows (a stream's later chunk) through this spec: the same levels and
        stateful transforms; rows with a missing value dropped."""
        patsy = _patsy()
        y_info, x_info = self._design_infos()
        data = _with_levels(_frame_like(data, where), self.levels, where)
        try:
            y, X = patsy.build_design_matrices([y_info, x_info], data, NA_action="drop", return_type="dataframe")
        except patsy.PatsyError as e:
            raise _explained(e, self.formula, data, where, (y_info, x_info), self._lost()) from None
        return y.iloc[:, 0].rename(self.endog_name), X

    def design(self, data, where="exog"):
        """The design matrix of new rows (a DataFrame, statsmodels' column names); rows with a
        missing value dropped (their index labels are absent)."""
        patsy = _patsy()
        _, x_info = self._design_infos()
        data = _with_levels(_frame_like(data, where), self.levels, where)
        try:
            (X,) = patsy.build_design_matrices([x_info], data, NA_action="drop", return_type="dataframe")
        except patsy.PatsyError as e:
            raise _explained(e, self.formula, data, where, (x_info,), self._lost()) from None
        return X

    def predict(self, results, exog, which, **per_row):
        """``results.predict(exog)`` for a DataFrame of the formula's variables: transformed by the
        spec, then the linear predictor or the mean; NaN for rows with a missing value, indexed as
        ``exog`` (statsmodels' ``predict`` on a formula model). ``per_row`` (``offset``,
        ``exposure``: one per row of ``exog``) are taken on the rows kept."""
        import pandas as pd
        frame = _frame_like(exog, "exog")
        X = self.design(frame.reset_index(drop=True))
        kept = X.index.to_numpy()
        given = {}
        for name, v in per_row.items():
            if v is not None:
                arr = np.asarray(v, dtype=np.float64).ravel()
                given[name] = arr[kept] if arr.shape[0] == len(frame) else arr
        out = np.asarray(results.predict(X.to_numpy(dtype=np.float64), which=which, **given))
        return pd.Series(out, index=frame.index[kept]).reindex(frame.index)

    # --- pickling -----------------------------------------------------------------------------

    def to_state(self) -> dict:
        """What rebuilds the spec after a pickle (patsy's objects do not pickle): plain data,
        and the names the formula refers to, by module."""
        if self._state is None:
            y_info, x_info = self._infos
            self._state = {"endog_name": self.endog_name, "y": _recipe(y_info), "x": _recipe(x_info)}
        return {"formula": self.formula, "levels": self.levels, **self._state}

    @classmethod
    def from_state(cls, state):
        """The spec of :meth:`to_state`'s dict; patsy is needed only once it transforms data."""
        return cls(state["formula"], state=state, levels=state.get("levels"))

    def __repr__(self):
        return f"<FormulaSpec {self.formula!r}: {len(self.exog_names)} columns>"


def _with_levels(data, levels, where):
    """``data`` with the columns of ``levels`` as categoricals of exactly those levels (patsy
    reads a pandas Categorical's categories as the levels); a value that is not one of them is
    refused, naming the column and the value."""
    if not levels:
        return data
    import pandas as pd
    out = pd.DataFrame(data) if not isinstance(data, pd.DataFrame) else data.copy()
    for column, allowed in levels.items():
        if column not in out.columns:
            raise InvalidParameterError(f"invalid parameter `levels`: {where} has no column `{column}`; columns: "
                                        f"{', '.join(map(str, out.columns))}")
        values = out[column]
        bad = [v for v in pd.unique(values.to_numpy(dtype=object)) if not _is_missing(v) and v not in set(allowed)]
        if bad:
            raise InvalidParameterError(f"{where}: column `{column}` has the level {bad[0]!r}, not among the levels "
                                        f"{list(allowed)} given by levels=")
        out[column] = pd.Categorical(values, categories=list(allowed))
    return out


def _explained(e, formula, data, where, infos, lost=()):
    """A typed error, naming what patsy could not do: a column the formula names that ``data``
    lacks, a level not among those the spec was built with, or patsy's own message."""
    patsy = _patsy()
    cause = e.__cause__
    columns = list(data.keys())
    if isinstance(cause, NameError):
        name = getattr(cause, "name", None) or str(cause)
        if name in lost:
            return NotOfferedError(f"the formula {formula!r} uses `{name}` of the session the model was fitted in, which a "
                                   "saved result does not keep (only modules, such as numpy, and patsy's functions): "
                                   "fit the model again in a session that has it to predict")
        return InvalidParameterError(f"invalid parameter `{where}`: no column `{name}`, which the formula {formula!r} "
                                     f"names; columns: {', '.join(map(str, columns))}")
    for info in infos or ():
        for factor, fi in info.factor_infos.items():
            if fi.type != "categorical":
                continue
            try:
                values = factor.eval(fi.state, data)
            except Exception:
                continue
            values = getattr(values, "data", values)      # patsy's C(...) box
            seen = set(fi.categories)
            bad = [v for v in np.asarray(values, dtype=object).ravel() if not _is_missing(v) and v not in seen]
            if bad:
                names = [n for n in patsy.eval.ast_names(factor.code) if n in columns] or [factor.code]
                return InvalidParameterError(
                    f"{where}: column `{names[0]}` has the level {bad[0]!r}, which `{factor.code}` did not have where the "
                    f"model was built (levels {list(fi.categories)}); a design for it would be wrong. Give every level "
                    f"up front: fit_stream(..., levels={{{names[0]!r}: [...]}}) or C({names[0]}, levels=[...]) in the "
                    "formula")
    return InvalidParameterError(f"invalid parameter `formula` = {formula!r} on {where}: {e}")


# --- patsy's DesignInfo as plain data, and back -------------------------------------------------

def _recipe(info) -> dict:
    factors = {}
    for factor, fi in info.factor_infos.items():
        state = fi.state
        factors[factor.code] = {
            "type": fi.type, "num_columns": fi.num_columns,
            "categories": None if fi.categories is None else list(fi.categories),
            "eval_code": state["eval_code"],
            "transforms": {name: (type(obj).__module__, type(obj).__qualname__, dict(vars(obj)))
                           for name, obj in state["transforms"].items()},
            "env": _env_recipe(state["eval_env"], state["eval_code"])}
    terms = []
    for term, subterms in info.term_codings.items():
        terms.append(([f.code for f in term.factors],
                      [([f.code for f in s.factors],
                        {f.code: (np.asarray(m.matrix), list(m.column_suffixes)) for f, m in s.contrast_matrices.items()},
                        s.num_columns) for s in subterms]))
    return {"column_names": list(info.column_names), "factors": factors, "terms": terms}


def _env_recipe(env, eval_code) -> dict:
    """The names ``eval_code`` looks up in ``env`` (beside the data's columns), each as how to find
    it again: a module, an attribute of one, patsy's builtins, a number or a string."""
    from patsy.eval import _builtins_dict, ast_names
    namespace = env.namespace
    names = {}
    for name in set(ast_names(eval_code)):
        if name not in namespace:
            continue
        value = namespace[name]
        names[name] = ("builtin", name) if _builtins_dict.get(name, None) is value else _value_recipe(value)
    return {"flags": env.flags, "names": names}


def _value_recipe(value):
    if isinstance(value, types.ModuleType):
        if value.__name__.split(".")[0] in _MODULES:
            return ("module", value.__name__)
    elif isinstance(value, (bool, numbers.Number, str)):
        return ("value", value)
    else:
        module, qualname = getattr(value, "__module__", None) or "", getattr(value, "__qualname__", None)
        if module.split(".")[0] in _MODULES and qualname and _resolve(module, qualname) is value:
            return ("attr", module, qualname)
    return ("lost", type(value).__name__)


def _resolve(module, qualname):
    if module.split(".")[0] not in _MODULES:
        return None
    try:
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
        return obj
    except (ImportError, AttributeError):
        return None


def _restored(how):
    """A name of :func:`_env_recipe`, found again (None when it was the session's own)."""
    from patsy.eval import _builtins_dict
    kind = how[0]
    if kind == "builtin":
        return _builtins_dict.get(how[1])
    if kind == "module" and how[1].split(".")[0] in _MODULES:
        return importlib.import_module(how[1])
    if kind == "attr":
        return _resolve(how[1], how[2])
    return how[1] if kind == "value" else None


def _rebuild(recipe):
    """patsy's DesignInfo from :func:`_recipe`'s data. A name of the fitting session that is not
    a module's (a function defined there) is not restored; evaluating it then raises, naming it."""
    _patsy()
    from patsy.contrasts import ContrastMatrix
    from patsy.design_info import DesignInfo, FactorInfo, SubtermInfo
    from patsy.desc import Term
    from patsy.eval import EvalEnvironment, EvalFactor
    factors, infos = {}, {}
    for code, f in recipe["factors"].items():
        factor = factors[code] = EvalFactor(code)
        # A name of the session that is not restored is left out: a column of the data of that name
        # still serves; else evaluating it raises, and _explained says it was the session's.
        names = {name: value for name, value in ((n, _restored(how)) for n, how in f["env"]["names"].items())
                 if value is not None}
        transforms, lost = {}, []
        for name, (module, qualname, attrs) in f["transforms"].items():
            cls = _resolve(module, qualname) if module.startswith("patsy") else None
            if cls is None:
                lost.append(name.split("__")[1] if name.startswith("_patsy_stobj") else name)
                continue
            obj = cls.__new__(cls)
            obj.__dict__.update(attrs)
            transforms[name] = obj
        if lost:
            raise NotOfferedError(f"the formula's term `{code}` uses the stateful transform {', '.join(lost)} of the "
                                  "session the model was fitted in, which a saved result does not keep (patsy's own "
                                  "transforms it does): fit it again to predict")
        state = {"eval_env": EvalEnvironment([names], f["env"]["flags"]), "eval_code": f["eval_code"],
                 "transforms": transforms}
        infos[factor] = FactorInfo(factor, f["type"], state, num_columns=f["num_columns"],
                                   categories=None if f["categories"] is None else tuple(f["categories"]))
    codings = collections.OrderedDict()
    for term_codes, subterms in recipe["terms"]:
        codings[Term([factors[c] for c in term_codes])] = [
            SubtermInfo([factors[c] for c in codes], {factors[c]: ContrastMatrix(m, s) for c, (m, s) in matrices.items()}, n)
            for codes, matrices, n in subterms]
    return DesignInfo(recipe["column_names"], factor_infos=infos, term_codings=codings)
