"""The hostile cases, by theme. Each module registers its cases in common.CASES on import."""
import importlib

MODULES = ["sizes_cli", "paths", "data_cli", "checkpoints", "signals", "disk", "py_infer_robust", "py_qmc_es", "round2"]


def load():
    from cases import common
    if not common.CASES:
        for m in MODULES:
            importlib.import_module(f"cases.{m}")
    return common.CASES
