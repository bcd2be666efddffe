"""Evaluate an evolution strategy's populations on a Ray cluster through ask/tell.

On this machine ``ray.init()`` starts a local cluster. To scale out, start Ray on the machines
(``ray start --head`` on one, ``ray start --address=<head>:6379`` on the others) and run this
script anywhere in the cluster with ``RAY_ADDRESS=auto``: the code is the same, the workers are
the cluster's CPUs. The optimizer itself stays in this process; only points and values travel.

    python python/examples/ray_es.py --dim 20 --delay 0.01

Two ways are shown: a remote task per point with the pycma-style loop (full control, e.g. for
asynchronous bookkeeping), and ``gradfree.minimize`` with Ray's ``multiprocessing.Pool``, which has
the ``map`` that ``minimize(executor=...)`` expects.
"""
import argparse
import os
import time

import numpy as np
import ray
from ray.util.multiprocessing import Pool

import gradfree


def rollout(x: np.ndarray, delay: float) -> float:
    """Stands in for an expensive evaluation (an RL rollout, a training run): waits ``delay``
    seconds, then returns the Rosenbrock value."""
    time.sleep(delay)
    return float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2))


@ray.remote
def rollout_remote(x: np.ndarray, delay: float) -> float:
    return rollout(x, delay)


def ask_tell_on_ray(dim: int, delay: float, max_evals: int, seed: int):
    """The pycma-style loop with one Ray task per point of the population."""
    es = gradfree.CMAES(np.zeros(dim), 0.5, seed=seed, max_evals=max_evals, target=1e-8)
    while not es.stop():
        X = es.ask()
        values = ray.get([rollout_remote.remote(x, delay) for x in X])
        es.tell(X, values)
    return es.result


def minimize_on_ray(dim: int, delay: float, max_evals: int, seed: int):
    """``gradfree.minimize`` with a Ray pool as the executor."""
    with Pool() as pool:
        return gradfree.minimize(lambda x: rollout(x, delay), np.zeros(dim), method="cmaes", seed=seed,
                                 max_evals=max_evals, target=1e-8, executor=pool)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dim", type=int, default=10)
    ap.add_argument("--delay", type=float, default=0.0, help="seconds each evaluation waits")
    ap.add_argument("--max-evals", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--num-cpus", type=int, default=None, help="local cluster size (ignored with RAY_ADDRESS)")
    args = ap.parse_args(argv)
    address = os.environ.get("RAY_ADDRESS")
    ray.init(address=address, num_cpus=None if address else args.num_cpus, include_dashboard=False,
             ignore_reinit_error=True, log_to_driver=False)
    print(f"Ray cluster: {ray.cluster_resources().get('CPU', 0):.0f} CPUs")
    t = time.time()
    r = ask_tell_on_ray(args.dim, args.delay, args.max_evals, args.seed)
    print(f"ask/tell + ray.remote: f = {r.fbest:.3e} after {r.evaluations} evaluations ({time.time() - t:.1f} s)")
    t = time.time()
    m = minimize_on_ray(args.dim, args.delay, args.max_evals, args.seed)
    print(f"minimize(executor=Pool()): f = {m.fun:.3e} after {m.nfev} evaluations ({time.time() - t:.1f} s)")
    return r, m


if __name__ == "__main__":
    main()
