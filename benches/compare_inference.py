#!/usr/bin/env python3
"""Time to 95% intervals for logistic regression: gradfree.inference vs statsmodels, in one run,
and peak memory when the rows come from a generator.

  pip install statsmodels numpy
  maturin develop --release -m python/Cargo.toml
  python3 benches/compare_inference.py                 # 10^5 and 10^6 rows x 20
  python3 benches/compare_inference.py --rows 100000   # one size

Data: `gradfree.inference.simulate("identity", 20, "logistic", N)` (Chen et al.'s protocol).
Timed, each the best of --repeat calls after the data are in memory:

- statsmodels: `GLM(y, X, Binomial()).fit()` then `conf_int(0.05)`;
- gradfree, each chain method at the library's defaults (100 chains, 200 steps, batch 25, step
  0.2): `masgrad`, `masgrad-rank-one`, `sgd`, and MasGrad with `moments="independent"`;
- gradfree `random-scaling`: one chain, batch 1, one pass over all N rows (`fit_stream` over the
  in-memory array in chunks of 10^4), the online method's natural use.

The diffusions and `moments="population"` evaluate all N rows at every step of every chain, so
they are tools for the paper's figures on small populations, not for N = 10^6, and are not timed.
Peak memory: a fresh process reads N rows from a generator of 10^4-row chunks (`fit_stream`,
random scaling and MasGrad) or builds the N x 20 array and fits statsmodels, and reports its
peak resident set size (`VmHWM`), for each N. The timings use whatever build of the extension is
installed: `maturin develop --release` for numbers to quote.
"""
import argparse
import json
import subprocess
import sys

import numpy as np

from _timing import best_of

CHILD = r"""
import json, sys
import numpy as np
from gradfree.inference import fit_stream, simulate

what, rows = sys.argv[1], int(sys.argv[2])
chunk = 10000
def batches():
    for k in range(0, rows, chunk):
        X, y, _ = simulate("identity", 20, "logistic", min(chunk, rows - k), seed=1 + k)
        yield X, y
if what == "statsmodels":
    import statsmodels.api as sm
    X, y, _ = simulate("identity", 20, "logistic", rows, seed=1)
    sm.GLM(y, X, family=sm.families.Binomial()).fit().conf_int(0.05)
elif what == "random-scaling":
    fit_stream(batches(), method="random-scaling", batch_size=1, chains=1, step=0.5)
else:
    fit_stream(batches(), method="masgrad", batch_size=25, chains=100)
# VmHWM: this process's peak resident set (ru_maxrss would include the forking parent's, kept across exec).
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({"peak_mb": hwm / 1024}))
"""


def peak(what, rows):
    out = subprocess.run([sys.executable, "-c", CHILD, what, str(rows)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["peak_mb"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, action="append")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    import statsmodels.api as sm
    from gradfree.inference import fit, fit_stream, simulate

    sizes = a.rows or [100_000, 1_000_000]
    print("Time to 95% intervals, logistic regression, d = 20 (best of", a.repeat, "calls; ratio = gradfree / statsmodels)")
    for n in sizes:
        X, y, theta = simulate("identity", 20, "logistic", n, seed=1)
        t_sm, res = best_of(lambda: sm.GLM(y, X, family=sm.families.Binomial()).fit().conf_int(0.05), a.repeat)
        print(f"\nN = {n}:  statsmodels GLM.fit + conf_int  {t_sm:8.3f} s  (covers {np.mean((res[:, 0] <= theta) & (theta <= res[:, 1])):.2f} of theta*)")
        runs = [
            ("masgrad", lambda: fit(X, y, method="masgrad")),
            ("masgrad-rank-one", lambda: fit(X, y, method="masgrad-rank-one")),
            ("masgrad, independent V", lambda: fit(X, y, method="masgrad", moments="independent")),
            ("sgd", lambda: fit(X, y, method="sgd")),
            ("random-scaling, one pass", lambda: fit_stream(((X[k:k + 10000], y[k:k + 10000]) for k in range(0, n, 10000)),
                                                         method="random-scaling", batch_size=1, chains=1, step=0.5)),
        ]
        for name, f in runs:
            try:
                t, r = best_of(f, a.repeat)
            except Exception as e:  # a method that fails on this data is reported, not hidden
                print(f"  gradfree {name:26} failed: {type(e).__name__}: {e}")
                continue
            ci = r.conf_int(0.05)
            covered = np.mean((ci[:, 0] <= theta) & (theta <= ci[:, 1]))
            print(f"  gradfree {name:26} {t:8.3f} s   ratio {t / t_sm:6.3f}   (covers {covered:.2f} of theta*)")
    print("\nPeak resident memory (MB) of a fresh process, rows from a generator of 10^4-row chunks:")
    print(f"  {'rows':>9} {'statsmodels (in memory)':>24} {'gradfree random scaling':>24} {'gradfree masgrad':>18}")
    for n in sizes:
        print(f"  {n:>9} {peak('statsmodels', n):>24.0f} {peak('random-scaling', n):>24.0f} {peak('masgrad', n):>18.0f}")


if __name__ == "__main__":
    main()
