#!/usr/bin/env python3
"""gradfree's batch Bayesian optimization next to egobox, scikit-optimize and BoTorch, in one run.

  pip install ./python egobox scikit-optimize [botorch]
  python3 benches/compare_bo.py [--part 1|2] [--seeds 10] [--skip skopt]

(1) Sequential BO of the 6-d Ackley function on [-2, 2]^6 (thesis Table 4.4, with its minimizer
    moved from the centre to SHIFT so that no design finds it by symmetry): 20 initial points and
    40 iterations (60 evaluations), 10 seeds. Time per iteration (wall time of the run / 40; the
    objective costs microseconds, so this is the model fit plus the acquisition search) and the
    median final simple regret with a 90% bootstrap interval, for gradfree (`bkop` with batch size
    1 = the thesis' sequential rule, Matérn 5/2 ARD; with the learned noise of its default and with
    a fixed tiny noise, since Ackley is deterministic; and gradfree's log-EI), egobox's `Egor` (default: log-EI, Kriging) and skopt's `gp_minimize`
    (default: Matérn 5/2 GP, gp_hedge).
(2) One batch of q = 5 on the same function with 60 observations (the same for both: gradfree's
    one-point design, the box's centre, and 59 uniform points per seed): time to
    fit the GP and choose the batch, and the simple regret of the batch (its best value), gradfree's
    BKOP vs BoTorch's qUCB (`SingleTaskGP`, `fit_gpytorch_mll`, `qUpperConfidenceBound(beta=1)`,
    `optimize_acqf` with 10 restarts and 512 raw samples) if BoTorch is installed.

(3) The ask/tell interface at scale: 500 uniform points of the same function told to a fresh
    `Optimizer`, then `ask(n_points=16)` (the first ask fits the GP from cold) and a second
    `ask(n_points=16)`, for each of gradfree's rules; skopt's `Optimizer.ask(n_points=5)` at 400
    points beside it (`--skip skopt` leaves it out: it takes minutes).

All runs in this process, on all cores.
"""
import argparse
import math
import statistics
import sys
import time

import numpy as np

D = 6
BOUNDS = [(-2.0, 2.0)] * D


# The minimizer is moved off the box's centre (and off any design's symmetric points), so no method
# finds it by sampling the centre: f(x) = Ackley(x - SHIFT), minimum 0 at SHIFT.
SHIFT = np.array([0.71, -0.43, 1.13, -1.27, 0.19, 0.88])


def ackley(x):
    x = np.asarray(x, dtype=float) - SHIFT
    return float(-20 * math.exp(-0.2 * math.sqrt(np.mean(x * x))) - math.exp(np.mean(np.cos(2 * math.pi * x))) + 20 + math.e)


def run_gradfree(seed, **kw):
    from gradfree.bo import minimize
    t = time.perf_counter()
    kw.setdefault("method", "bkop")
    res = minimize(ackley, BOUNDS, n_calls=60, n_initial_points=20, batch_size=1, random_state=seed, **kw)
    return time.perf_counter() - t, res.fun


def run_gradfree_ei(seed):
    return run_gradfree(seed, method="ei")


def run_gradfree_deterministic(seed):
    # Ackley is deterministic; egobox's Kriging assumes so by default, gradfree learns the noise
    # unless told. This row tells it (a fixed standardized noise variance of 1e-6).
    return run_gradfree(seed, noise=1e-6)


def run_skopt(seed):
    from skopt import gp_minimize
    t = time.perf_counter()
    res = gp_minimize(ackley, BOUNDS, n_calls=60, n_initial_points=20, random_state=seed)
    return time.perf_counter() - t, res.fun


def run_egobox(seed):
    import egobox as egx
    f = lambda X: np.array([[ackley(x)] for x in np.atleast_2d(X)])
    t = time.perf_counter()
    res = egx.Egor([[-2.0, 2.0]] * D, n_doe=20, seed=seed).minimize(f, max_iters=40)
    return time.perf_counter() - t, float(np.min(res.y_doe[:, 0]))


def part1(seeds, skip=()):
    print(f"(1) sequential BO, 6-d Ackley, 20 initial + 40 iterations, {seeds} seeds")
    rows = {}
    runs = [("gradfree bkop (L=1)", run_gradfree), ("gradfree, noise=1e-6", run_gradfree_deterministic), ("gradfree ei", run_gradfree_ei),
            ("egobox Egor", run_egobox), ("skopt gp_minimize", run_skopt)]
    for name, fn in runs:
        if any(k in name for k in skip):
            continue
        try:
            out = [fn(s) for s in range(seeds)]
        except ImportError as e:
            print(f"  {name}: not installed ({e})")
            continue
        per_iter = statistics.median(t for t, _ in out) / 40
        regret = statistics.median(f for _, f in out)
        rows[name] = (per_iter, regret)
        lo, hi = bootstrap_median([f for _, f in out])
        print(f"  {name:<22} {per_iter * 1000:8.1f} ms per iteration   median final regret {regret:.4f}  (90% bootstrap {lo:.2f}-{hi:.2f})")
        sys.stdout.flush()
    ours = rows.get("gradfree bkop (L=1)")
    if ours:
        for name, (t, _) in rows.items():
            if not name.startswith("gradfree"):
                print(f"  gradfree / {name}: {ours[0] / t:.3f}x the time per iteration")


def bootstrap_median(v, reps=2000):
    """A 90% bootstrap interval of the median: with 10 seeds it is wide, so compare with care."""
    rng = np.random.default_rng(0)
    meds = np.median(rng.choice(np.asarray(v), size=(reps, len(v))), axis=1)
    return np.percentile(meds, 5), np.percentile(meds, 95)


def part2(seeds):
    from gradfree.bo import Optimizer
    print(f"(2) one batch of q = 5 on the 6-d Ackley with 60 observations, {seeds} seeds")
    ours, theirs = [], []
    for s in range(seeds):
        rng = np.random.default_rng(s)
        opt = Optimizer(BOUNDS, batch_size=5, n_initial_points=1, random_state=s)
        X = np.vstack([opt._bo.ask(None), rng.uniform(-2, 2, size=(59, D))])   # the design point, then uniform
        y = [ackley(x) for x in X]
        opt._bo.tell(np.ascontiguousarray(X), y)
        t = time.perf_counter()
        batch = opt._bo.ask(5)
        ours.append((time.perf_counter() - t, min(ackley(x) for x in batch)))
        if theirs is not None:
            try:
                theirs.append(botorch_batch(X, np.array(y), s))
            except ImportError as e:
                print(f"  BoTorch not installed ({e}): gradfree alone")   # every seed still runs for gradfree
                theirs = None
    med = lambda v, k: statistics.median(x[k] for x in v)
    print(f"  gradfree BKOP      {med(ours, 0):.3f} s   median batch regret {med(ours, 1):.4f}")
    if theirs:
        print(f"  BoTorch qUCB       {med(theirs, 0):.3f} s   median batch regret {med(theirs, 1):.4f}")
        print(f"  gradfree / BoTorch: {med(ours, 0) / med(theirs, 0):.3f}x the time")


def botorch_batch(X, y, seed):
    import torch
    from botorch.acquisition import qUpperConfidenceBound
    from botorch.fit import fit_gpytorch_mll
    from botorch.models import SingleTaskGP
    from botorch.models.transforms import Normalize, Standardize
    from botorch.optim import optimize_acqf
    from gpytorch.mlls import ExactMarginalLogLikelihood
    torch.manual_seed(seed)
    t = time.perf_counter()
    tx = torch.tensor(X, dtype=torch.double)
    ty = -torch.tensor(y, dtype=torch.double).unsqueeze(-1)          # BoTorch maximizes
    gp = SingleTaskGP(tx, ty, input_transform=Normalize(d=D), outcome_transform=Standardize(m=1))
    fit_gpytorch_mll(ExactMarginalLogLikelihood(gp.likelihood, gp))
    bounds = torch.tensor([[-2.0] * D, [2.0] * D], dtype=torch.double)
    cand, _ = optimize_acqf(qUpperConfidenceBound(gp, beta=1.0), bounds=bounds, q=5, num_restarts=10, raw_samples=512)
    secs = time.perf_counter() - t
    return secs, min(ackley(x) for x in cand.numpy())


def part3(skip=()):
    from gradfree.bo import Optimizer
    rng = np.random.default_rng(0)
    X = rng.uniform(-2.0, 2.0, (500, D))
    y = [ackley(x) for x in X]
    print("ask(n_points=16) with 500 points told, 6-d (seconds):")
    for method in ("bkop", "ucb", "ei", "gp-bucb", "gp-ucb-pe"):
        opt = Optimizer(BOUNDS, n_initial_points=1, random_state=0, method=method)
        opt.tell(X.tolist(), y)
        t = time.perf_counter()
        opt.ask(n_points=16)
        first = time.perf_counter() - t
        t = time.perf_counter()
        opt.ask(n_points=16)
        print(f"  gradfree {method:10s} first {first:6.2f}   again {time.perf_counter() - t:6.2f}", flush=True)
    if not any("skopt" in s for s in skip):
        from skopt import Optimizer as SkOptimizer
        opt = SkOptimizer(BOUNDS, n_initial_points=1, random_state=0)
        opt.tell(X[:400].tolist(), y[:400])
        t = time.perf_counter()
        opt.ask(n_points=5)
        print(f"  skopt ask(n_points=5) with 400 points: {time.perf_counter() - t:6.2f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", type=int, choices=[1, 2, 3])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--skip", action="append", default=[], help="leave out the rows whose name contains this (e.g. skopt)")
    a = ap.parse_args()
    if a.part in (None, 1):
        part1(a.seeds, a.skip)
    if a.part in (None, 2):
        part2(a.seeds)
    if a.part in (None, 3):
        part3(a.skip)


if __name__ == "__main__":
    main()
