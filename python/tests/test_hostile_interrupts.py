"""Ctrl-C during large draws of the QMC engines: a ``KeyboardInterrupt`` within about a second
(the draw runs in pieces, Python handling the signal between two), and an interrupted draw
draws nothing. The pieces give the same points as one draw."""
from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import gradfree.qmc as qmc

_CHILD = r"""
import sys, time
import numpy as np
import gradfree.qmc as qmc
make = lambda: {make}
e = make()
e.random(4)
print("ready", flush=True)
try:
    e.random({n})
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", e.num_generated, flush=True)
    print("same", bool(np.array_equal(e.random(4), make().random(8)[4:])), flush=True)
"""


def _lines(proc, deadline):
    """Lines of the child's stdout until ``deadline`` (a time.monotonic value)."""
    buf = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(proc.stdout.fileno(), 4096)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            yield line.decode(), time.monotonic()


# Each draw takes several seconds here (512 MB of points; Owen's scrambling is the slowest).
@pytest.mark.parametrize("make, n", [
    ("qmc.Sobol(64, method='owen', seed=1)", 2**20),
    ("qmc.Sobol(512, seed=1, bits=64)", 2**17),
    ("qmc.Halton(64, seed=1)", 2**20),
])
def test_ctrl_c_ends_a_large_draw_within_a_second_and_draws_nothing(make, n):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (os.path.dirname(os.path.dirname(qmc.__file__)),
                                                                   os.environ.get("PYTHONPATH")) if p))
    proc = subprocess.Popen([sys.executable, "-W", "ignore", "-c", _CHILD.format(make=make, n=n)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        lines = _lines(proc, time.monotonic() + 120)
        assert next(lines)[0] == "ready"
        time.sleep(0.5)            # inside the draw (which takes seconds)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        line, when = next(lines)
        assert line == "interrupted 4", line          # nothing of the interrupted draw counted
        assert when - sent < 1.5, f"KeyboardInterrupt {when - sent:.2f} s after SIGINT"
        assert next(lines)[0] == "same True"          # the engine goes on where it was
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("make", [
    lambda: qmc.Sobol(5, seed=3), lambda: qmc.Sobol(5, seed=3, method="owen", bits=40), lambda: qmc.Sobol(3, scramble=False),
    lambda: qmc.Halton(7, seed=2), lambda: qmc.Halton(4, scramble=False), lambda: qmc.KorobovLattice(3, 1009, seed=1),
    lambda: qmc.Rank1Lattice([1, 182, 449], 1009),
])
def test_a_draw_in_pieces_equals_one_draw(monkeypatch, make):
    whole = make()
    whole.random(4)
    expected = whole.random(300)
    monkeypatch.setattr(qmc, "_PIECE", 17)       # pieces of 17 // d rows (at least one)
    pieced = make()
    pieced.random(4)
    got = pieced.random(300)
    assert np.array_equal(got, expected) and pieced.num_generated == whole.num_generated == 304
    assert np.array_equal(pieced.random(5), whole.random(5))


def test_a_lattice_draw_past_its_points_is_refused_whole(monkeypatch):
    monkeypatch.setattr(qmc, "_PIECE", 17)
    lat = qmc.KorobovLattice(3, 1009, seed=1)
    lat.random(1000)
    with pytest.raises(qmc.InvalidParameterError, match="only 9 of the lattice's 1009 points are left"):
        lat.random(10)
    assert lat.num_generated == 1000
