#!/usr/bin/env python3
"""statsmodels' Wald intervals in the coverage study of `gradfree reproduce inference-coverage`.

  pip install statsmodels numpy
  maturin develop --release -m python/Cargo.toml     # the gradfree package
  python3 benches/inference_coverage_statsmodels.py            # 200 replications, N = 20000
  python3 benches/inference_coverage_statsmodels.py --quick    # 8 replications, N = 2000

The same rows as the experiment: replication r of configuration c (linear then logistic; identity,
Toeplitz, equicorrelation; d = 5 then 20) is `gradfree.inference.simulate(design, d, model, N,
seed + 1000 c + r)`. statsmodels fits `GLM(y, X, family)` (Gaussian: scale estimated; Binomial)
and its `conf_int(0.05)` is scored against theta*: coverage averaged over coordinates, with the
Monte Carlo standard error of the per-replication averages, and the mean width. With --compare
CSV (the experiment's `inference_coverage.csv`) the experiment's own Wald rows (gradfree's
`inference::mle`, the same formula) are printed alongside.
"""
import argparse
import csv
import time

import numpy as np


def configurations():
    out = []
    for model in ("linear", "logistic"):
        for design in ("identity", "toeplitz", "equicorrelation"):
            for d in (5, 20):
                out.append((model, design, d))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int)
    ap.add_argument("--rows", type=int)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--compare", help="the experiment's inference_coverage.csv, to print its Wald rows next to statsmodels'")
    a = ap.parse_args()
    import statsmodels.api as sm
    from gradfree.inference import simulate

    reps = a.reps or (8 if a.quick else 200)
    rows = a.rows or (2000 if a.quick else 20000)
    ours = {}
    if a.compare:
        with open(a.compare) as f:
            for r in csv.DictReader(f):
                if r["method"].startswith("Wald"):
                    ours[(r["model"], r["design"], r["d"])] = (r["coverage"], r["mean width"])
    print(f"statsmodels GLM Wald 95% intervals, {reps} replications of N = {rows} rows")
    print(f"{'model':9} {'design':16} {'d':>3} {'coverage':>16} {'mean width':>11}" + ("   gradfree Wald (experiment)" if ours else ""))
    start = time.perf_counter()
    for c, (model, design, d) in enumerate(configurations()):
        cov, width = [], []
        for r in range(reps):
            X, y, theta = simulate(design, d, model, rows, a.seed + 1000 * c + r)
            family = sm.families.Gaussian() if model == "linear" else sm.families.Binomial()
            ci = sm.GLM(y, X, family=family).fit().conf_int(0.05)
            cov.append(np.mean((ci[:, 0] <= theta) & (theta <= ci[:, 1])))
            width.append(np.mean(ci[:, 1] - ci[:, 0]))
        cov = np.array(cov)
        se = cov.std(ddof=1) / np.sqrt(reps) if reps > 1 else float("nan")
        extra = ""
        if ours:
            o = ours.get((model, design, str(d)))
            extra = f"   {o[0]} (width {o[1]})" if o else "   -"
        print(f"{model:9} {design:16} {d:>3} {cov.mean():>8.3f} +- {se:.3f} {np.mean(width):>11.4f}{extra}")
    print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
