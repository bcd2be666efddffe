"""Evaluate populations in parallel with ``concurrent.futures``: threads for objectives that
release the GIL (numpy, I/O, subprocesses), processes for pure-Python ones.

    python python/examples/futures_es.py --workers 4
"""
import argparse
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np

import gradfree


def simulate(x: np.ndarray) -> float:
    """A pure-Python stand-in for a simulator: the Rosenbrock function, slowly."""
    return sum(100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2 for i in range(len(x) - 1))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dim", type=int, default=10)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--max-evals", type=int, default=20000)
    args = ap.parse_args(argv)
    out = {}
    for name, pool in (("threads", ThreadPoolExecutor(args.workers)), ("processes", ProcessPoolExecutor(args.workers))):
        with pool:
            t = time.time()
            r = gradfree.minimize(simulate, np.zeros(args.dim), method="cmaes", seed=1, max_evals=args.max_evals,
                                  target=1e-8, executor=pool)
            print(f"{name:<9}: f = {r.fun:.3e} after {r.nfev} evaluations ({time.time() - t:.1f} s)")
            out[name] = r
    return out


if __name__ == "__main__":
    main()
