"""The Python keywords of the inference front end are the library's (``gradfree.inference.KEYWORDS``,
read from the Rust specs' fields): each keyword is a parameter of ``fit`` and ``fit_stream``, and
the docstring's default and accepted values are the library's."""
import ast
import inspect
import re

import pytest

from gradfree import inference
from gradfree.errors import InvalidParameterError

#: Keywords of the library's run that a function does not take, and why.
NOT_TAKEN = {
    "level": "the coverage is chosen on the results (conf_int(alpha=...), summary(alpha=...))",
}
NOT_STREAMED = {"sampling": "a stream's rows are read once, fresh, as they come"}


def _keywords():
    return inference.KEYWORDS["model"] + inference.KEYWORDS["run"]


def _documented(func) -> dict:
    """``name -> header line`` of each parameter in a numpydoc Parameters section."""
    doc = inspect.getdoc(func) or ""
    return {m.group(1): m.group(2) for m in re.finditer(r"^(\w+) : (.*)$", doc, re.M)}


@pytest.mark.parametrize("func, skipped", [(inference.fit, NOT_TAKEN), (inference.fit_stream, {**NOT_TAKEN, **NOT_STREAMED})])
def test_every_keyword_is_a_parameter(func, skipped):
    params = inspect.signature(func).parameters
    for k in _keywords():
        if k["python"] not in skipped:
            assert k["python"] in params, f"{func.__name__} has no keyword {k['python']}"
            # The library decides every default: the signature's is None (or the flag's False).
            assert params[k["python"]].default in (None, False, k.get("default")), k["python"]


def test_the_docstring_states_the_librarys_defaults_and_values():
    documented = _documented(inference.fit)
    checked = 0
    for k in _keywords():
        header = documented.get(k["python"])
        if header is None:
            assert k["python"] in NOT_TAKEN, f"fit's docstring does not document {k['python']}"
            continue
        choices = re.match(r"\{(.*)\}", header)
        if k["values"] and choices:
            assert set(ast.literal_eval(f"[{choices.group(1)}]")) == set(k["values"]), k["python"]
            checked += 1
        default = re.search(r", default (.+)$", header)
        if default and k.get("default") is not None:
            assert ast.literal_eval(default.group(1)) == k["default"], (k["python"], default.group(1), k["default"])
            checked += 1
    assert checked >= 15


def test_rules_are_the_librarys():
    """Each keyword with a rule is refused where it would be ignored, and taken where it applies."""
    X = [[0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [1.0, 1.0]]
    y = [0, 1, 0, 1]
    with pytest.raises(InvalidParameterError, match=r"`cov_type` = 'HC0': only with method='mle'"):
        inference.fit(X, y, method="sgd", cov_type="HC0")
    with pytest.raises(InvalidParameterError, match=r"`lam` = 0.5: only with method='madprox'"):
        inference.fit(X, y, method="sgd", lam=0.5)
    with pytest.raises(InvalidParameterError, match=r"`interval`.*a chain method with bands"):
        inference.fit(X, y, method="random-scaling", interval="normal")
    with pytest.raises(InvalidParameterError, match=r"`batch_size` = 5: only with a chain method"):
        inference.fit(X, y, batch_size=5)
    with pytest.raises(InvalidParameterError, match=r"`hidden`.*model='relu'"):
        inference.fit(X, y, model="linear", hidden=3)
    with pytest.raises(InvalidParameterError, match=r"`cov_type` = 'HC9': must be one of nonrobust, HC0"):
        inference.fit(X, y, cov_type="HC9")
    rules = [k for k in _keywords() if k["applies"]]
    assert {k["python"] for k in rules} >= {"cov_type", "lam", "decay", "moments", "hidden", "components", "chains"}


def test_the_es_classes_take_every_stop_rule():
    """The ES classes' stop keywords are the library's stop rules (``StopSpec``), under their Python
    names, each documented in the class docstring."""
    import json

    from gradfree import _gradfree, es

    rules = json.loads(_gradfree.stop_keywords())
    params = inspect.signature(es._ES.__init__).parameters
    documented = _documented(es._ES)
    assert {k["python"] for k in rules} >= {"max_evals", "max_gens", "tol_fun", "tol_fun_window", "target"}
    for k in rules:
        assert k["python"] in params, f"the ES classes have no keyword {k['python']}"
        assert k["python"] in documented, f"the ES docstring does not document {k['python']}"
