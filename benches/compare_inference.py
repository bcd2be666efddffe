#!/usr/bin/env python3
"""Time to 95% confidence intervals for logistic regression, gradfree.inference next to
statsmodels in one run, and peak memory when the rows stream.

  pip install statsmodels numpy
  maturin develop --release -m python/Cargo.toml && cargo build --release
  python3 benches/compare_inference.py                  # 10^5 and 10^6 rows x 20; memory to 10^7
  python3 benches/compare_inference.py --rows 100000    # one size

Data: `gradfree.inference.simulate("identity", 20, "logistic", N)` (Chen et al.'s protocol).
Timed, each the best of --repeat calls after the data are in memory:

- statsmodels: `GLM(y, X, Binomial()).fit()` then `conf_int(0.05)`;
- gradfree's default, `fit(X, y)`: maximum likelihood by Newton's method, Wald intervals (the
  same numbers as statsmodels');
- gradfree's default streamed, `fit_stream(batches)`: one pass over the rows in chunks of 10^4
  (cumulatively updated estimating equations, Schifano et al. 2016);
- gradfree `random-scaling`: one chain, batch 1, one pass, for comparison.

Each line says how many coordinates of theta* its intervals cover. Peak memory: a fresh process
reads N rows from a generator of 10^4-row chunks (`fit_stream`, the default) or builds the N x 20
array and fits statsmodels (up to 10^6 rows: at 10^7 the array alone is 1.6 GB and statsmodels'
copies several times that), and reports its peak resident set size (`VmHWM`); and the command
line streams a CSV of 10^7 rows (`gradfree infer --stream`; a temporary file of about 2 GB,
removed afterwards) and reports the command's peak. The timings use
whatever build of the extension is installed: `maturin develop --release` for numbers to quote.
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

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
else:
    r = fit_stream(batches())
    assert r.nobs == rows
# VmHWM: this process's peak resident set (ru_maxrss would include the forking parent's, kept across exec).
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({"peak_mb": hwm / 1024}))
"""

WRITER = r"""
import sys
import numpy as np
from gradfree.inference import simulate
path, rows = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    f.write(",".join([f"x{j}" for j in range(20)] + ["y"]) + "\n")
    for k in range(0, rows, 100000):
        X, y, _ = simulate("identity", 20, "logistic", min(100000, rows - k), seed=7 + k)
        np.savetxt(f, np.column_stack([X, y]), fmt="%.6g", delimiter=",")
"""


def peak(what, rows):
    out = subprocess.run([sys.executable, "-c", CHILD, what, str(rows)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["peak_mb"]


def cli_peak(binary, rows):
    """`gradfree infer --stream` on a CSV file of `rows` rows: (peak MB, seconds, the command's
    JSON)."""
    folder = tempfile.mkdtemp()
    try:
        csv_path = os.path.join(folder, "rows.csv")
        subprocess.run([sys.executable, "-c", WRITER, csv_path, str(rows)], check=True)
        # A wrapper process whose only child is the command, so its children's peak is the command's.
        wrap = ("import json, resource, subprocess, sys, time; t = time.perf_counter(); "
                "o = subprocess.run(sys.argv[1:], capture_output=True, text=True, check=True); "
                "print(json.dumps({'peak_mb': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, "
                "'seconds': time.perf_counter() - t, 'out': json.loads(o.stdout)}))")
        out = subprocess.run([sys.executable, "-c", wrap, binary, "infer", "--data", csv_path, "--target", "y", "--stream",
                              "--json", "--quiet"], capture_output=True, text=True, check=True)
        doc = json.loads(out.stdout)
        return doc["peak_mb"], doc["seconds"], doc["out"]
    finally:
        shutil.rmtree(folder)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, action="append")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cli-rows", type=int, default=10_000_000, help="rows of the streamed CSV (0: skip)")
    ap.add_argument("--binary", default=None, help="the gradfree binary (default target/release, else target/ci)")
    a = ap.parse_args()
    import statsmodels.api as sm
    from gradfree.inference import fit, fit_stream, simulate

    sizes = a.rows or [100_000, 1_000_000]
    print("Time to 95% intervals, logistic regression, d = 20 (best of", a.repeat, "calls; ratio = gradfree / statsmodels)")
    for n in sizes:
        X, y, theta = simulate("identity", 20, "logistic", n, seed=1)
        t_sm, res = best_of(lambda: sm.GLM(y, X, family=sm.families.Binomial()).fit().conf_int(0.05), a.repeat)
        print(f"\nN = {n}:  statsmodels GLM.fit + conf_int  {t_sm:8.3f} s  (covers {np.mean((res[:, 0] <= theta) & (theta <= res[:, 1])):.2f} of theta*)")
        chunks = lambda: ((X[k:k + 10000], y[k:k + 10000]) for k in range(0, n, 10000))
        runs = [
            ("default, in memory (mle)", lambda: fit(X, y).conf_int(0.05)),
            ("default, one pass (mle)", lambda: fit_stream(chunks()).conf_int(0.05)),
            ("random-scaling, one pass", lambda: fit_stream(chunks(), method="random-scaling", batch_size=1, chains=1,
                                                         step=0.5).conf_int(0.05)),
        ]
        for name, f in runs:
            t, ci = best_of(f, a.repeat)
            covered = np.mean((ci[:, 0] <= theta) & (theta <= ci[:, 1]))
            same = np.max(np.abs(ci - res)) / np.max(res[:, 1] - res[:, 0])
            print(f"  gradfree {name:26} {t:8.3f} s   ratio {t / t_sm:6.3f}   (covers {covered:.2f} of theta*; "
                  f"ends differ from statsmodels' by {same:.1e} of a width)")
    print("\nPeak resident memory (MB) of a fresh process, rows from a generator of 10^4-row chunks:")
    print(f"  {'rows':>9} {'statsmodels (in memory)':>24} {'gradfree fit_stream (default)':>30}")
    for n in sorted(set(sizes) | {10_000_000}):
        sm_peak = f"{peak('statsmodels', n):24.0f}" if n <= 1_000_000 else f"{'(cannot hold the data)':>24}"
        print(f"  {n:>9} {sm_peak} {peak('gradfree', n):>30.0f}")
    if a.cli_rows:
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        binary = a.binary or next((p for p in (os.path.join(here, "target", d, "gradfree") for d in ("release", "ci"))
                                   if os.path.exists(p)), None)
        if binary is None:
            print("\n(no gradfree binary: cargo build --release)")
            return
        mb, seconds, out = cli_peak(binary, a.cli_rows)
        print(f"\ngradfree infer --stream, {a.cli_rows} CSV rows x 21: peak {mb:.0f} MB, {seconds:.1f} s "
              f"(parsing the text included), {out['glm']['nobs']} rows fitted")


if __name__ == "__main__":
    main()
