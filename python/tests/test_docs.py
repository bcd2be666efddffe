"""Documentation where people look: every public name of the package has a numpydoc docstring;
callables that take arguments document them in a Parameters section; the ES classes list their
algorithm's parameters from the Rust registry (the same source as ``gradfree params``)."""
import inspect
import json
import subprocess

import pytest

import gradfree
import gradfree.errors
import gradfree.es
import gradfree.experiments
import gradfree.kernel_approximation
import gradfree.qmc
import gradfree.robust

MODULES = [gradfree, gradfree.es, gradfree.qmc, gradfree.experiments, gradfree.errors, gradfree.kernel_approximation,
           gradfree.robust]


def _ours(obj) -> bool:
    mod = getattr(obj, "__module__", None) or ""
    return mod.startswith("gradfree")


def _public():
    for mod in MODULES:
        for name in mod.__all__:
            obj = getattr(mod, name)
            if not inspect.ismodule(obj):
                yield f"{mod.__name__}.{name}", obj


def _takes_arguments(obj) -> bool:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return False
    return any(p not in ("self", "cls") for p in sig.parameters)


def test_every_public_name_has_a_numpydoc_docstring():
    problems = []
    for name, obj in _public():
        doc = inspect.getdoc(obj) or ""
        if not doc:
            problems.append(f"{name}: no docstring")
            continue
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and _ours(obj) and _takes_arguments(obj) \
                and not issubclass_safe(obj, BaseException) and "Parameters\n----------" not in doc \
                and "Attributes\n----------" not in doc:
            problems.append(f"{name}: no Parameters section")
        if inspect.isclass(obj):
            for attr, member in vars_of(obj):
                if not (inspect.getdoc(member) or "").strip():
                    problems.append(f"{name}.{attr}: no docstring")
    assert not problems, "\n".join(problems)


def issubclass_safe(obj, base) -> bool:
    return inspect.isclass(obj) and issubclass(obj, base)


def vars_of(cls):
    """Public methods and properties defined by the package (not inherited from builtins)."""
    for klass in cls.__mro__:
        if not _ours(klass):
            continue
        for attr, member in vars(klass).items():
            if attr.startswith("_") or not (callable(member) or isinstance(member, property)):
                continue
            yield attr, member


def test_es_class_docs_list_the_algorithm_parameters_from_the_registry():
    for entry in gradfree.es.REGISTRY:
        cls = getattr(gradfree.es, entry["class_name"])
        doc = inspect.getdoc(cls)
        assert doc.splitlines()[0].rstrip(".").lower() == entry["summary"].lower(), entry["name"]
        assert entry["source"] in doc and "Other Parameters" in doc
        assert entry["params"], entry["name"]
        for p in entry["params"]:
            assert f"{p['name']} : {p['kind']}, optional" in doc, (entry["name"], p["name"])
            assert p["doc"], (entry["name"], p["name"])


def test_listed_parameters_are_the_ones_the_parser_accepts():
    """Each listed key is known to the Rust parser (a wrong value gives a value error, not an
    unknown-field error), and an unlisted key is refused."""
    import numpy as np
    for entry in gradfree.es.REGISTRY:
        cls = getattr(gradfree.es, entry["class_name"])
        make = (lambda **kw: cls(4, **kw)) if entry["discrete"] else (lambda **kw: cls(np.zeros(4), 0.5, **kw))
        for p in entry["params"]:
            with pytest.raises(gradfree.InvalidParameterError) as e:
                make(**{p["name"]: {"not": "valid"}})
            assert "unknown field" not in str(e.value), (entry["name"], p["name"], str(e.value))
        with pytest.raises(gradfree.InvalidParameterError, match="unknown field"):
            make(no_such_parameter=1)


def test_cli_lists_the_same_parameters(gradfree_bin):
    for entry in gradfree.es.REGISTRY:
        out = subprocess.run([gradfree_bin, "params", entry["name"], "--json"], capture_output=True, text=True, check=True)
        assert json.loads(out.stdout) == entry["params"]
    text = subprocess.run([gradfree_bin, "params", "cmaes"], capture_output=True, text=True, check=True).stdout
    assert "popsize (int)" in text and "Default" in text
    bad = subprocess.run([gradfree_bin, "params", "nope"], capture_output=True, text=True)
    assert bad.returncode == 2 and "known algorithms" in bad.stderr


def test_front_end_defaults_are_the_librarys():
    """A keyword default of the Python front ends is None (the Rust library decides) or, where
    Python must show a value, the library's own; a default written here that drifts from the
    library's (or a new one that is neither) fails."""
    from gradfree import _gradfree, _nok, bo, es, inference, qmc, robust

    lib = json.loads(_gradfree.defaults_json())
    infer = {**lib["inference"]["run"], "model": lib["inference"]["model"]["model"],
             "intercept": lib["inference"]["model"]["intercept"]}
    # (function, {keyword: the library's value}, keywords that are the front end's own choice).
    cases = [
        # bipop=False: pycma's keyword; bounds_handling: pycma's BoundTransform by name.
        (es._ES.__init__, {"convergence": lib["es"]["stop"]["convergence"], "restarts": False},
         {"bounds_handling", "bipop"}),
        # method=None and restarts=None: the library's recommended method (gradfree.es.RECOMMENDED).
        (es.minimize, {}, set()),
        # scikit-optimize's keywords with its values (the string spellings of its defaults), and
        # initial_point_generator="lattice": the thesis' design, named where skopt names "random".
        (bo.Optimizer.__init__, {}, {"base_estimator", "initial_point_generator", "n_jobs", "acq_optimizer",
                                     "avoid_duplicates"}),
        (bo.minimize, {}, {"n_calls", "initial_point_generator", "n_jobs", "acq_optimizer", "noise", "verbose"}),
        (bo.gp_minimize, {}, {"n_calls", "initial_point_generator", "n_jobs", "acq_optimizer", "noise", "verbose"}),
        (qmc.lattice_search, {}, {"method"}),
        (qmc.SearchedLattice.__init__, {}, {"method", "shift"}),
        (inference.fit, infer, {"progress"}),
        (inference.fit_stream, infer, {"progress"}),
        # noise_rate=0.2 is the example value; the command line's default is the injected rate.
        (robust._Classifier.__init__, lib["robust"], {"noise_rate", "verbose"}),
        (_nok._Denoiser.__init__, lib["nok"], set()),
        # One ReLU layer: the kernel whose limit is the arc-cosine kernel (thesis sec. 7.5).
        (robust.nok_kernel, lib["nok"], {"activation", "layers"}),
    ]
    assert lib["es"]["restarts"] is None  # restarts=False: no restarts, the library's default
    for fn, library, own in cases:
        for name, p in inspect.signature(fn).parameters.items():
            if p.default is inspect.Parameter.empty or p.default is None or name in own:
                continue
            assert name in library, f"{fn.__qualname__}({name}={p.default!r}) is a default of its own; pass None to the library"
            assert p.default == library[name], f"{fn.__qualname__}({name}={p.default!r}) drifted from the library's {library[name]!r}"
    # The documented defaults are the library's.
    assert lib["bo"]["batch_size"] == 5 and "batch_size : int, default 5" in bo.Optimizer.__doc__
    assert lib["es"]["sigma0"] == 0.5 and "sigma0 : float, default 0.5" in es._ES.__doc__
    nok = lib["nok"]
    doc = robust.NOKDenoiser.__doc__
    assert (nok["lambda"], nok["layers"], nok["alternations"], nok["structure"], nok["rotation"]) == (0.1, 3, 2, "auto", "phase")
    assert "(default 0.1;" in doc and "(default 3)" in doc and "(default 2)" in doc and '``"auto"`` (default)' in doc
    assert (lib["lattice_search"]["primes"], lib["lattice_search"]["sweeps"], lib["lattice_search"]["top"]) == (50, 3, 64)


def test_reliability_table_is_the_stored_record():
    """docs/reliability.md's table of the generated hostile pass is what benches/hostile/table.py
    prints from the record it names (benches/results/hostile_generated_SEED.tsv)."""
    import importlib.util
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[2]
    text = (root / "docs" / "reliability.md").read_text()
    m = re.search(r"<!-- hostile-generated (\S+) -->\n(.*?)\n\s*<!-- /hostile-generated -->", text, re.S)
    assert m, "docs/reliability.md has no <!-- hostile-generated RECORD --> table"
    spec = importlib.util.spec_from_file_location("hostile_table", root / "benches" / "hostile" / "table.py")
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    shown = "\n".join(line.strip() for line in m.group(2).splitlines())
    assert shown == table.table(table.load(str(root / m.group(1))))
