"""Timing helper shared by the comparison scripts of benches/."""
import time


def best_of(f, repeat):
    """The shortest of `repeat` wall times of `f()`, and its last result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t)
    return best, out
