"""The top-level namespace holds what its docstring says, and its table of jobs names each job's
command and Python module."""
import importlib.util
import json
import re
import subprocess
import sys
import types

import gradfree
from gradfree import errors, es, qmc


def _table_rows():
    rows = []
    for line in gradfree.__doc__.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) == 3 and cells[2].startswith("gradfree.") and not set(line.strip()) <= {"=", " "}:
            rows.append(cells)
    return rows


def _fresh_dir():
    """`dir(gradfree)` right after `import gradfree` in a fresh interpreter (in this one, other tests'
    imports of submodules such as `gradfree.coco` bind them on the package)."""
    code = "import gradfree, json; print(json.dumps(dir(gradfree)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_the_top_level_holds_what_the_docstring_says():
    public = {n for n in _fresh_dir() if not n.startswith("_") and n != "annotations"}
    assert public == set(gradfree.__all__)
    modules = {n for n in public if isinstance(getattr(gradfree, n), types.ModuleType)}
    exceptions = {n for n in dir(errors) if isinstance(getattr(errors, n), type) and issubclass(getattr(errors, n), Exception)
                  and getattr(errors, n).__module__ == errors.__name__}
    said = (set(es._CLASSES) | {"minimize", "OptimizeResult", "Result", "algorithms"} | set(qmc.__all__) | exceptions
            | {"Problem", "run_builtin"})
    assert public - modules == said, sorted((public - modules) ^ said)
    # every algorithm's class, as the docstring promises; the pycma-compatible names stay in gradfree.es
    assert all(getattr(gradfree, n) is c for n, c in es._CLASSES.items())
    assert not hasattr(gradfree, "fmin2") and hasattr(es, "fmin2")


def test_the_job_table_names_every_job_module_once():
    rows = _table_rows()
    assert len(rows) == 9, rows
    pymods = [r[2] for r in rows]
    assert len(set(pymods)) == len(pymods)
    jobs = {n for n in gradfree.__all__ if isinstance(getattr(gradfree, n), types.ModuleType)} - {"errors"}
    assert {m.removeprefix("gradfree.") for m in pymods} == jobs
    for job, command, module in rows:
        assert importlib.util.find_spec(module) is not None, module
        if command.startswith("python -m "):
            assert importlib.util.find_spec(command.removeprefix("python -m ") + ".__main__") is not None, command
        else:
            assert command.startswith("gradfree "), command
