#!/usr/bin/env python3
"""gradfree's QMC generators next to scipy.stats.qmc and qmcpy, in one run.

  pip install scipy qmcpy numpy
  cargo build --release
  python3 benches/compare_qmc.py

(1) 2^20 scrambled Sobol points in d = 64: gradfree (LMS + digital shift, scipy's default
    randomization; also Owen) vs scipy.stats.qmc.Sobol(scramble=True).random.
(1b) Owen's nested uniform scrambling: gradfree vs qmcpy.DigitalNetB2(randomize="NUS"), 2^12
    points (qmcpy's runs in Python loops).
(2) 2^20 randomly shifted rank-1 lattice points in d = 64: gradfree vs qmcpy.Lattice (shifted).
(3) subgroup lattice construction for d = 1000, n = 96001.

gradfree times are measured inside the binary around generation only (no process start, no file
writing), once with one thread (RAYON_NUM_THREADS=1, as scipy and qmcpy use one core) and once
with all threads. Python times are the best of `--repeat` calls.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def gradfree(bin_, args, threads=None):
    env = dict(os.environ)
    if threads is not None:
        env["RAYON_NUM_THREADS"] = str(threads)
    out = subprocess.run([str(bin_)] + args + ["--json"], capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout)


def best_of(f, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "gradfree")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--log2n", type=int, default=20)
    ap.add_argument("--dim", type=int, default=64)
    args = ap.parse_args()
    if not args.bin.exists():
        sys.exit(f"{args.bin} not found: run `cargo build --release` first")
    import numpy as np
    from scipy.stats import qmc
    import scipy
    try:
        import qmcpy
    except ImportError:
        qmcpy = None

    n, d = 2 ** args.log2n, args.dim
    gb = n * d * 8 / 1e9
    print(f"scipy {scipy.__version__}, qmcpy {qmcpy.__version__ if qmcpy else 'not installed'}, numpy {np.__version__}; "
          f"n = 2^{args.log2n}, d = {d}")

    def ours(extra, threads):
        return min(gradfree(args.bin, ["sample", "--dim", str(d), "--n", str(n)] + extra, threads)["seconds"] for _ in range(args.repeat))

    print("\n(1) scrambled Sobol")
    t_scipy = best_of(lambda: qmc.Sobol(d=d, scramble=True, seed=0).random(n), args.repeat)
    print(f"{'generator':<40} {'seconds':>9} {'GB/s':>7} {'ratio to scipy':>15}")
    print(f"{'scipy Sobol(scramble=True)':<40} {t_scipy:>9.4f} {gb / t_scipy:>7.2f} {1.0:>15.3f}")
    for label, extra in (("gradfree sobol lms-shift", ["--method", "sobol", "--scramble", "lms-shift"]),
                         ("gradfree sobol owen", ["--method", "sobol", "--scramble", "owen"])):
        for threads in (1, None):
            t = ours(extra, threads)
            name = f"{label} ({'1 thread' if threads == 1 else 'all threads'})"
            print(f"{name:<40} {t:>9.4f} {gb / t:>7.2f} {t / t_scipy:>15.3f}")

    # The Python engine, in this process, as a scipy user calls it (numpy allocates the array,
    # which gets transparent huge pages; the CLI instead reuses one cached buffer per piece).
    import importlib.util
    if importlib.util.find_spec("gradfree") is not None:
        for threads in (1, None):
            code = (f"import time, gradfree; t = min((lambda t0: (gradfree.Sobol({d}, seed=0).random({n}), "
                    f"time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range({args.repeat})); print(t)")
            env = dict(os.environ, **({"RAYON_NUM_THREADS": "1"} if threads == 1 else {}))
            t = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout)
            name = f"gradfree.Sobol(d).random ({'1 thread' if threads == 1 else 'all threads'})"
            print(f"{name:<40} {t:>9.4f} {gb / t:>7.2f} {t / t_scipy:>15.3f}")

    if qmcpy is None:
        print("\n(1b), (2) skipped: pip install qmcpy")
        return
    # Owen's nested uniform scrambling has no scipy counterpart; qmcpy's is "NUS", in Python
    # loops, so it is timed on fewer points (both sides on the same n).
    n_nus = 2 ** min(args.log2n, 12)
    print(f"\n(1b) Owen-scrambled Sobol, n = {n_nus}, d = {d}")
    t_nus = best_of(lambda: qmcpy.DigitalNetB2(d, seed=0, randomize="NUS")(n_nus), 1)
    print(f"{'generator':<40} {'seconds':>9} {'ratio to qmcpy':>15}")
    print(f"{'qmcpy DigitalNetB2(randomize=NUS)':<40} {t_nus:>9.4f} {1.0:>15.3f}")
    if importlib.util.find_spec("gradfree") is not None:
        import gradfree as gf
        t = best_of(lambda: gf.Sobol(d, seed=0, method="owen").random(n_nus), args.repeat)
        print(f"{'gradfree.Sobol(d, method=owen).random':<40} {t:>9.4f} {t / t_nus:>15.5f}")
    print("\n(2) randomly shifted rank-1 lattice")
    t_qmcpy = best_of(lambda: qmcpy.Lattice(dimension=d, seed=0).gen_samples(n), args.repeat)
    print(f"{'qmcpy Lattice (shifted)':<40} {t_qmcpy:>9.4f} {gb / t_qmcpy:>7.2f} {1.0:>15.3f}")
    # An odd multiplier: every a^k is a unit mod 2^m, so the lattice has n distinct points.
    extra = ["--method", "korobov", "--a", "1296917", "--random-shift"]
    for threads in (1, None):
        t = ours(extra, threads)
        name = f"gradfree rank-1 lattice ({'1 thread' if threads == 1 else 'all threads'})"
        print(f"{name:<40} {t:>9.4f} {gb / t:>7.2f} {t / t_qmcpy:>15.3f}")

    print("\n(3) subgroup construction, d = 1000, n = 96001")
    r = min((gradfree(args.bin, ["lattice", "--dim", "1000", "--n", "96001"]) for _ in range(args.repeat)), key=lambda r: r["seconds"])
    print(f"gradfree subgroup: {r['seconds'] * 1e3:.4f} ms (min l2 distance {r['min_dist_l2']:.4f})")


if __name__ == "__main__":
    main()
