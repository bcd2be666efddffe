"""An INGO variant on the thesis' functions at d = 100, with the thesis' protocol.

Thesis sec. 3.7.1 (Fig. 3.1): mu_1 ~ U[0, 1]^d, sigma_1 = 0.5, runs stop at f <= 1e-10, budget
3.6e6 evaluations. `gradfree reproduce ingo-synthetic` runs the thesis' methods this way; this
script runs any `gradfree optimize` configuration the same way, e.g. INGO with two-point step-size
adaptation (user guide, docs/results/optimizers.md, "Options that measurably help INGO"):

    python3 benches/ingo_thesis_d100.py --param step_size=tpa --param beta=0.02 \
        --param sampling=sphere-qmc --restarts bipop

prints, per function, the runs that reached 1e-10 and their median evaluations, and writes every
run to --out (JSON). Runs are independent `gradfree optimize` processes, `--jobs` at a time;
run k uses seed k and the start point drawn from numpy's `default_rng(k)`.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

FUNCTIONS = ["ellipsoid", "discus", "l1-ellipsoid", "lhalf-ellipsoid", "levy"]


def binary(given):
    if given:
        return given
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "gradfree")
    found = shutil.which("gradfree")
    if os.path.exists(here):
        return here
    if found:
        return found
    sys.exit("no gradfree binary: run `cargo build --release -p gradfree-cli` first")


def one(exe, args, function, seed):
    x0 = np.random.default_rng(seed).uniform(0.0, 1.0, args.dim)
    cmd = [exe, "optimize", "--algo", args.algo, "--problem", function, "--dim", str(args.dim),
           "--seed", str(seed), "--max-evals", str(args.budget), "--sigma0", "0.5", "--sequential",
           "--x0", ",".join(repr(float(v)) for v in x0), "--json", "-q"]
    for p in args.param:
        cmd += ["--param", p]
    if args.restarts:
        cmd += ["--restarts", args.restarts]
    else:
        cmd += ["--no-convergence"]
    t = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    r = json.loads(out)
    return {"function": function, "seed": seed, "success": r["success"], "evaluations": r["evaluations"],
            "best_f": r["best_f"], "stop": r["stop_reason"], "restarts": r.get("restarts", 0),
            "seconds": time.perf_counter() - t}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--algo", default="ingo")
    ap.add_argument("--param", action="append", default=[], help="KEY=VALUE, as for gradfree optimize")
    ap.add_argument("--restarts", default=None, help="ipop or bipop (default: one run to the budget)")
    ap.add_argument("--functions", default=",".join(FUNCTIONS))
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--dim", type=int, default=100)
    ap.add_argument("--budget", type=int, default=3_600_000)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default="ingo_thesis_d100.json")
    ap.add_argument("--binary", default=None, help="the gradfree executable (default: target/release/gradfree, else PATH)")
    args = ap.parse_args()
    exe = binary(args.binary)
    tasks = [(f, s) for f in args.functions.split(",") for s in range(1, args.runs + 1)]
    results = []
    with ThreadPoolExecutor(args.jobs) as pool:
        for i, r in enumerate(pool.map(lambda t: one(exe, args, *t), tasks), 1):
            results.append(r)
            print(f"  {i}/{len(tasks)} {r['function']} seed {r['seed']}: "
                  + (f"{r['evaluations']} evaluations" if r["success"] else f"f = {r['best_f']:.2e} ({r['stop']})")
                  + f", {r['restarts']} restarts, {r['seconds']:.0f} s", flush=True)
    tmp = args.out + ".tmp"
    with open(tmp, "w") as fh:
        json.dump({"args": vars(args), "runs": results}, fh, indent=1)
    os.replace(tmp, args.out)
    print(f"\n{args.algo} {' '.join(args.param)} restarts={args.restarts}, d = {args.dim}, budget {args.budget}")
    print(f"{'function':<18}{'reached 1e-10':>15}{'median evals':>14}")
    for f in args.functions.split(","):
        rs = [r for r in results if r["function"] == f]
        ok = [r["evaluations"] for r in rs if r["success"]]
        med = f"{statistics.median(ok):.0f}" if ok else "-"
        print(f"{f:<18}{len(ok):>9}/{len(rs):<5}{med:>14}")


if __name__ == "__main__":
    main()
