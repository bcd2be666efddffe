import pathlib

import pytest


@pytest.fixture
def gradfree_bin() -> str:
    """The CLI binary built by cargo (the test, release or debug profile)."""
    exe = newest_binary()
    if exe is None:
        pytest.skip("no gradfree binary under target/ (cargo build first)")
    return str(exe)


def newest_binary():
    """The most recently built ``target/{release,ci,debug}/gradfree`` (``--profile test`` builds
    into debug, CI's ``--profile ci`` into ci), or None."""
    root = pathlib.Path(__file__).resolve().parents[2] / "target"
    found = [root / p / "gradfree" for p in ("release", "ci", "debug") if (root / p / "gradfree").exists()]
    return max(found, key=lambda p: p.stat().st_mtime) if found else None
