"""scikit-learn is optional: without it (simulated in a child interpreter whose imports of it fail)
``gradfree``, ``gradfree.robust`` and ``gradfree.kernel_approximation`` import, their functions
that need no estimator work, and creating an estimator raises an ``ImportError`` that says what
to install. With it, the estimators are scikit-learn's."""
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

# The child: a meta-path finder in front of the others makes every import of the blocked packages
# fail as a missing package does; then it reports what worked as one JSON line.
CHILD = textwrap.dedent("""
    import importlib.abc, json, sys

    BLOCKED = set(sys.argv[1].split(","))

    class Missing(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Missing())

    import numpy as np
    import gradfree, gradfree.robust, gradfree.kernel_approximation
    from gradfree import _sklearn, kernel_approximation, robust

    X = np.arange(12.0).reshape(4, 3) / 10
    out = {
        "available": _sklearn.AVAILABLE,
        "kernel_matrix": kernel_approximation.kernel_matrix(X).tolist(),
        "gram_errors": list(kernel_approximation.gram_errors(np.eye(2), np.eye(2))),
        "methods": len(kernel_approximation.methods()),
        "flip_labels": robust.flip_labels(np.arange(20) % 4, "symmetric", 0.5, seed=0)[0].tolist(),
        "npcl_threshold": robust.npcl_threshold(100, 10, 0.2),
        "nok_kernel": robust.nok_kernel(X, random_state=np.random.RandomState(3)).tolist(),
        "nok_kernel_shape": list(robust.nok_kernel(X).shape),
        "errors": {},
        "loaded": sorted(m for m in BLOCKED if m in sys.modules),
    }
    for cls in (robust.RobustClassifier, robust.NOKDenoiser, kernel_approximation.SSFSampler,
                kernel_approximation.IIDSampler):
        try:
            cls()
        except ImportError as e:
            out["errors"][cls.__name__] = str(e)
    print(json.dumps(out))
""")


def _without(*packages):
    proc = subprocess.run([sys.executable, "-c", CHILD, ",".join(packages)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("missing", [("sklearn",), ("sklearn", "scipy")], ids=["no-sklearn", "no-sklearn-no-scipy"])
def test_the_modules_import_and_their_functions_work_without_scikit_learn(missing):
    import gradfree.kernel_approximation as ka
    import gradfree.robust as robust
    out = _without(*missing)
    assert out["available"] is False and out["loaded"] == []
    X = np.arange(12.0).reshape(4, 3) / 10
    assert out["kernel_matrix"] == ka.kernel_matrix(X).tolist()
    assert out["gram_errors"] == [0.0, 0.0] and out["methods"] == len(ka.methods())
    assert out["flip_labels"] == robust.flip_labels(np.arange(20) % 4, "symmetric", 0.5, seed=0)[0].tolist()
    assert out["npcl_threshold"] == robust.npcl_threshold(100, 10, 0.2)
    # nok_kernel seeds through check_random_state: the stand-in gives the same generator.
    assert out["nok_kernel"] == robust.nok_kernel(X, random_state=np.random.RandomState(3)).tolist()
    assert out["nok_kernel_shape"] == [4, 4]


def test_creating_an_estimator_without_scikit_learn_says_what_to_install():
    errors = _without("sklearn")["errors"]
    assert errors == {
        "RobustClassifier": "gradfree.robust.RobustClassifier needs scikit-learn: pip install scikit-learn",
        "NOKDenoiser": "gradfree.robust.NOKDenoiser needs scikit-learn: pip install scikit-learn",
        "SSFSampler": "gradfree.kernel_approximation.SSFSampler needs scikit-learn: pip install scikit-learn",
        "IIDSampler": "gradfree.kernel_approximation.IIDSampler needs scikit-learn: pip install scikit-learn",
    }


def test_with_scikit_learn_the_estimators_are_scikit_learns():
    sklearn_base = pytest.importorskip("sklearn.base")
    from gradfree import _sklearn, kernel_approximation, robust
    assert _sklearn.AVAILABLE and _sklearn.BaseEstimator is sklearn_base.BaseEstimator
    assert issubclass(robust.RobustClassifier, sklearn_base.ClassifierMixin)
    for cls in (robust.RobustClassifier, robust.NOKDenoiser, kernel_approximation.SSFSampler):
        assert issubclass(cls, sklearn_base.BaseEstimator)
        cls()
