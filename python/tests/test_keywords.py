"""The Python keywords of the front ends are the library's, read from the Rust specs' fields: for
inference (``gradfree.inference.KEYWORDS``) each keyword is a parameter of ``fit`` and
``fit_stream`` and the docstring's default and accepted values are the library's; the ES classes
take every stop rule; ``gradfree.bo.Optimizer`` takes and hands on every BO keyword."""
import ast
import json
import inspect
import re

import numpy as np
import pytest

from gradfree import inference
from gradfree.errors import InvalidParameterError

#: Keywords of the library's run that a function does not take, and why.
NOT_TAKEN = {
    "level": "the coverage is chosen on the results (conf_int(alpha=...), summary(alpha=...))",
}
NOT_STREAMED = {"sampling": "a stream's rows are read once, fresh, as they come",
                "passes": "a stream is one pass: its rows come once"}


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


def test_every_restart_setting_reaches_python():
    """Each restart setting of the library (``RestartSpec``) is a keyword of ``gradfree.es.minimize``
    or of the ES classes (which ``minimize`` passes its other keywords to), under its Python name;
    ``incpopsize`` grows the restarts' populations by its factor."""
    from gradfree import _gradfree, es

    settings = json.loads(_gradfree.restart_keywords())
    taken = set(inspect.signature(es.minimize).parameters) | set(inspect.signature(es._ES.__init__).parameters)
    for k in settings:
        assert k["python"] in taken, f"no Python keyword {k['python']} for the restart setting {k['name']}"

    def sizes(**kw):
        opt = es.CMAES([3.0, -2.0], 1.0, seed=1, max_evals=5000, restarts=2, **kw)
        seen = []
        while not opt.stop():
            X = opt.ask()
            seen.append(len(X))
            opt.tell(X, [float(np.sum(x * x) + 10 * np.sum(1 - np.cos(2 * np.pi * x))) for x in X])
        return sorted(set(seen)), opt.restarts_done

    assert sizes() == ([6, 12, 24], 2)
    assert sizes(incpopsize=3) == ([6, 18, 54], 2)


#: Keywords of the library's BO run that ``gradfree.bo.Optimizer`` takes under scikit-optimize's
#: name, and the name.
BO_SKOPT_NAMES = {"n_initial": "n_initial_points", "budget": "n_calls", "design_seed": "random_state"}


def _bo_keywords():
    from gradfree.bo import optimizer
    return [k for k in optimizer.KEYWORDS.values() if k["python"]]


def test_the_bo_optimizer_takes_every_keyword_and_hands_them_on(monkeypatch):
    """Each BO keyword Python takes is a parameter of ``Optimizer`` (under scikit-optimize's name
    where it has one), and ``Optimizer`` hands the library exactly those keywords."""
    from gradfree import _gradfree
    from gradfree.bo import Optimizer, optimizer

    params = inspect.signature(Optimizer).parameters
    for k in _bo_keywords():
        name = BO_SKOPT_NAMES.get(k["name"], k["python"])
        assert name in params, f"Optimizer has no keyword {name}"
    handed = []

    class Recording:
        @staticmethod
        def from_spec(lo, hi, kinds, seed, params_json):
            handed.append(json.loads(params_json))
            return _gradfree.BatchBO.from_spec(lo, hi, kinds, seed, params_json)

    class Proxy:
        BatchBO = Recording

        def __getattr__(self, name):
            return getattr(_gradfree, name)

    monkeypatch.setattr(optimizer, "_gradfree", Proxy())
    Optimizer([(0.0, 1.0), (-2.0, 2.0)], random_state=3, n_calls=30, kernel="rbf", on_nonfinite="treat-as-inf")
    assert set(handed[0]) == {k["python"] for k in _bo_keywords()}
    assert handed[0]["kernel"] == "rbf" and handed[0]["design_seed"] == 3 and handed[0]["budget"] == 30


def test_the_library_reads_the_bo_keywords_by_name():
    """An unknown keyword is refused with the known ones listed; the Python kernel names and the
    library's non-finite policies are accepted, an ill-typed value is named."""
    from gradfree import _gradfree
    from gradfree.bo import optimizer

    box = ([0.0, 0.0], [1.0, 1.0], ["continuous", "continuous"], 0)
    with pytest.raises(InvalidParameterError, match="unknown keyword batch: expected one of .*batch_size"):
        _gradfree.BatchBO.from_spec(*box, json.dumps({"batch": 3}))
    with pytest.raises(InvalidParameterError, match="acq_starts"):
        _gradfree.BatchBO.from_spec(*box, json.dumps({"acq_starts": "four"}))
    with pytest.raises(InvalidParameterError, match="acq_starts"):
        _gradfree.BatchBO.from_spec(*box, json.dumps({"acq_starts": 0}))
    for kernel in ("matern52", "rbf"):
        _gradfree.BatchBO.from_spec(*box, json.dumps({"kernel": kernel}))
    for policy in optimizer.KEYWORDS["on_nonfinite"]["values"]:
        _gradfree.BatchBO.from_spec(*box, json.dumps({"on_nonfinite": policy}))
    bo = _gradfree.BatchBO.from_spec(*box, json.dumps({"method": "ucb", "batch_size": 2}))
    assert (bo.method, bo.batch_size) == ("ucb", 2)


def test_the_robust_classifier_takes_every_training_keyword():
    """Each keyword of the library's training run that Python takes is a parameter of
    ``RobustClassifier`` (scikit-learn's names where the keyword declares one), the classifier
    hands the library only keywords of the run, and an error of the library names the Python
    keyword, also for a part of one (``eps`` of the loss is ``noise_rate``)."""
    from gradfree import robust

    params = inspect.signature(robust.RobustClassifier).parameters
    taken = {k["python"]: k["name"] for k in robust.KEYWORDS.values() if k["python"]}
    for python in taken:
        assert python in params, f"RobustClassifier has no keyword {python}"
    spec = robust.RobustClassifier(hidden_layer_sizes=(4,), epochs=1, burn_in=0, optimizer="sgd", learning_rate=0.1,
                                   schedule="constant", block="mean", random_state=2)._spec()
    assert set(spec) <= set(robust.KEYWORDS), set(spec) - set(robust.KEYWORDS)
    assert robust.LOSSES == tuple(robust.KEYWORDS["loss"]["values"])
    X = np.random.default_rng(0).normal(size=(20, 4)).astype(np.float32)
    y = np.arange(20) % 2
    # Checked by the library (not by Python first): its name for the widths is `hidden`.
    for given, named in [({"model": "cnn", "hidden_layer_sizes": (4,)}, "`hidden_layer_sizes`"),
                         ({"optimizer": "lbfgs"}, "optimizer"), ({"schedule": "cosine"}, "schedule")]:
        with pytest.raises(InvalidParameterError, match=named):
            robust.RobustClassifier(epochs=1, **given).fit(X, y)


def test_the_ssf_sampler_takes_every_feature_map_keyword():
    """Each keyword of the library's feature map that Python takes is a parameter of
    ``SSFSampler`` (the method is the class; the other samplers take those that are not SSF's)."""
    from gradfree import _gradfree, kernel_approximation as ka

    keywords = json.loads(_gradfree.features_keywords())
    ssf = inspect.signature(ka.SSFSampler).parameters
    for k in keywords:
        if k["python"]:
            assert k["python"] in ssf, f"SSFSampler has no keyword {k['python']}"
    for cls in (ka.IIDSampler, ka.OrthogonalSampler, ka.CirculantSampler, ka.QMCSampler):
        params = inspect.signature(cls).parameters
        for name in ("kernel", "n_components", "random_state"):
            assert name in params, f"{cls.__name__} has no keyword {name}"
