#!/usr/bin/env python3
"""Side-by-side comparison of gradfree's CMA-ES and INGO family with pycma (PyPI `cma`), in one run.

  pip install cma numpy
  cargo build --release
  python3 benches/compare_pycma.py            # all three parts, reduced seeds/budgets
  python3 benches/compare_pycma.py --part a   # just the per-generation overhead

(a) wall time per generation with a trivial objective (sphere) at d = 100 and 1000;
(b) evaluations to f < 1e-8 on sphere, ellipsoid, rosenbrock at d = 10 and 40 (median over seeds);
(c) evaluations to f < 1e-10 of INGO, INGOstep, Fast-INGO and pycma on the thesis Table 3.1 functions.

Both sides start from the same x0 ~ U[0,1]^d (numpy, per seed) with sigma0 = 0.5; gradfree runs
through its CLI (`--json`, time measured inside the run, so process start-up is excluded).
"""
import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

try:
    import cma
except ImportError:  # pragma: no cover
    sys.exit("pip install cma")

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "target" / "release" / "gradfree"  # replaced by --bin


def weights(d, e):
    return 10.0 ** (e * np.arange(d) / max(d - 1, 1))


FUNCS = {
    "sphere": lambda x: float(np.dot(x, x)),
    "ellipsoid": lambda x: float(np.dot(weights(len(x), 6.0), x * x)),
    "discus": lambda x: float(1e6 * x[0] ** 2 + np.dot(x[1:], x[1:])),
    "l1-ellipsoid": lambda x: float(np.dot(weights(len(x), 6.0), np.abs(x))),
    "lhalf-ellipsoid": lambda x: float(np.dot(weights(len(x), 6.0), np.sqrt(np.abs(x)))),
    "levy": None,
    "rastrigin10": None,
    "rosenbrock": lambda x: float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)),
}


def levy(x):
    w = 1.0 + (x - 1.0) / 4.0
    s = np.sin(np.pi * w[0]) ** 2
    s += np.sum((w[:-1] - 1.0) ** 2 * (1.0 + 10.0 * np.sin(np.pi * w[:-1] + 1.0) ** 2))
    return float(s + (w[-1] - 1.0) ** 2 * (1.0 + np.sin(2.0 * np.pi * w[-1]) ** 2))


def rastrigin10(x):
    y = weights(len(x), 1.0) * x
    return float(10.0 * len(x) + np.sum(y * y - 10.0 * np.cos(2.0 * np.pi * y)))


FUNCS["levy"] = levy
FUNCS["rastrigin10"] = rastrigin10


def set_bin(path):
    global BIN
    BIN = path


def x0_for(d, seed):
    return np.random.default_rng(seed).uniform(0.0, 1.0, d)


def gradfree(algo, problem, d, seed, x0, extra):
    cmd = [str(BIN), "optimize", "--algo", algo, "--problem", problem, "--dim", str(d), "--seed", str(seed),
           "--bounds", "none", "--sigma0", "0.5", "--x0", ",".join(repr(float(v)) for v in x0), "--json", "-q"] + extra
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def pycma(problem, d, x0, target, budget, seed, max_gens=None):
    f = FUNCS[problem]
    opts = {"verbose": -9, "seed": seed + 1, "maxfevals": budget, "tolfun": 0, "tolx": 0, "tolfunhist": 0,
            "tolstagnation": int(1e9), "tolflatfitness": int(1e9)}
    if target is not None:
        opts["ftarget"] = target
    if max_gens is not None:
        opts["maxiter"] = max_gens
    es = cma.CMAEvolutionStrategy(list(x0), 0.5, opts)
    t = time.perf_counter()
    while not es.stop():
        X = es.ask()
        es.tell(X, [f(np.asarray(x)) for x in X])
    return {"seconds": time.perf_counter() - t, "evaluations": es.countevals, "generations": es.countiter,
            "best_f": es.result.fbest}


def part_a(args):
    print("\n(a) per-generation wall time, trivial objective (sphere), sigma0 = 0.5")
    print(f"{'d':>5} {'method':<12} {'gens':>6} {'ms/gen':>10} {'pycma ms/gen':>13} {'ratio':>7}")
    for d, gens in ((100, 400), (1000, 60)):
        x0 = x0_for(d, 0)
        p = pycma("sphere", d, x0, None, 10**12, 0, max_gens=gens)
        ref = 1e3 * p["seconds"] / p["generations"]
        for algo in ("cmaes", "ingo"):
            r = gradfree(algo, "sphere", d, 0, x0, ["--max-gens", str(gens), "--no-target", "--sequential"])
            ms = 1e3 * r["seconds"] / r["generations"]
            print(f"{d:>5} {algo:<12} {gens:>6} {ms:>10.3f} {ref:>13.3f} {ms / ref:>7.3f}")


def evals_to(results, budget):
    return [r if r is not None else float("inf") for r in results]


def part_b(args):
    print(f"\n(b) evaluations to f < 1e-8, median over {args.seeds} seeds (inf: not reached within the budget)")
    print(f"{'problem':<11} {'d':>3} {'gradfree cmaes':>15} {'pycma':>10} {'ratio':>7}")
    for problem in ("sphere", "ellipsoid", "rosenbrock"):
        for d in (10, 40):
            budget = 4000 * d * (10 if problem == "rosenbrock" else 1)
            ours, theirs = [], []
            for s in range(args.seeds):
                x0 = x0_for(d, s)
                r = gradfree("cmaes", problem, d, s, x0, ["--target", "1e-8", "--max-evals", str(budget)])
                ours.append(r["evaluations"] if r["best_f"] <= 1e-8 else float("inf"))
                p = pycma(problem, d, x0, 1e-8, budget, s)
                theirs.append(p["evaluations"] if p["best_f"] <= 1e-8 else float("inf"))
            mo, mt = statistics.median(ours), statistics.median(theirs)
            print(f"{problem:<11} {d:>3} {mo:>15.0f} {mt:>10.0f} {mo / mt:>7.3f}")


# Columns of part (c): label, algorithm, extra CLI arguments.
C_METHODS = (
    ("ingo", "ingo", []),
    ("ingostep", "ingostep", []),
    ("fast-ingo", "fast-ingo", []),
    ("ingo+csa", "ingo", ["--param", "step_size=csa"]),
)


def part_c(args):
    print(f"\n(c) evaluations to f < 1e-10, median over {args.seeds_c} seeds, budget {args.budget_c} (inf: not reached)")
    names = args.functions_c
    labels = [m[0] for m in C_METHODS] + ["pycma"]
    print(f"{'problem':<16} {'d':>4} " + " ".join(f"{k:>10}" for k in labels))
    for d in args.dims_c:
        for problem in names:
            cols = {}
            for label, algo, extra in C_METHODS:
                v = []
                for s in range(args.seeds_c):
                    r = gradfree(algo, problem, d, s, x0_for(d, s), ["--target", "1e-10", "--max-evals", str(args.budget_c)] + extra)
                    v.append(r["evaluations"] if r["best_f"] <= 1e-10 else float("inf"))
                cols[label] = statistics.median(v)
            v = []
            for s in range(args.seeds_c):
                p = pycma(problem, d, x0_for(d, s), 1e-10, args.budget_c, s)
                v.append(p["evaluations"] if p["best_f"] <= 1e-10 else float("inf"))
            cols["pycma"] = statistics.median(v)
            print(f"{problem:<16} {d:>4} " + " ".join(f"{cols[k]:>10.0f}" for k in labels), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=["a", "b", "c", "all"], default="all")
    ap.add_argument("--seeds", type=int, default=11)
    ap.add_argument("--seeds-c", type=int, default=3)
    ap.add_argument("--dims-c", type=int, nargs="+", default=[50, 100])
    ap.add_argument("--budget-c", type=int, default=1_000_000)
    ap.add_argument("--functions-c", nargs="+", default=["ellipsoid", "discus", "l1-ellipsoid", "lhalf-ellipsoid", "levy", "rastrigin10"],
                    choices=sorted(FUNCS), help="functions of part (c) (default: thesis Table 3.1)")
    ap.add_argument("--bin", type=Path, default=BIN, help="gradfree binary (default: target/release/gradfree)")
    args = ap.parse_args()
    set_bin(args.bin)
    if not BIN.exists():
        sys.exit(f"{BIN} not found: run `cargo build --release` first")
    print(f"pycma {cma.__version__}, numpy {np.__version__}")
    if args.part in ("a", "all"):
        part_a(args)
    if args.part in ("b", "all"):
        part_b(args)
    if args.part in ("c", "all"):
        part_c(args)


if __name__ == "__main__":
    main()
