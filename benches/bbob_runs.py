#!/usr/bin/env python3
"""Where a cell of the anytime table comes from: single CMA-ES runs and BIPOP run sequences on one
bbob function, gradfree against pycma on the same problems.

  pip install coco-experiment cma numpy
  maturin develop --release -m python/Cargo.toml
  # single runs (no restarts): how often each reaches f_opt + 1e-8, at given populations and sigma0
  python3 benches/bbob_runs.py single --function 4 --dim 2 --popsizes 6,12 --sigmas 0.2,2 --reps 30
  # whole BIPOP runs: the population and start (evaluations) of every run, and the result
  python3 benches/bbob_runs.py bipop --function 7 --dim 40 --budget-mult 4000 --seeds 1-2

Both use COCO's protocol of `coco_side_by_side.py`: BBOB's [-5, 5]^d as bounds (pycma's
BoundTransform in both programs), start points uniform in [-4, 4]^d. Methods (`--methods`,
separated by '|'): `pycma`; `default`, the recommended method's algorithm and parameters
(`gradfree.es.RECOMMENDED`, its restarts with their worse-optimum rule; in `single` mode without
restarts); or a JSON object of parameters on top of the default's, e.g. `{"sampling": "iid"}` or
`{"worse_runs": false}` (the restarts' rule off).

`single`: run r of instance i starts from `default_rng(1000 i + r).uniform(-4, 4, d)` with seed
`7919 r + i` (pycma: seed + 1) and ends at the target, at the method's own stopping rules or at
`--budget` evaluations (`--first-rep` numbers the runs on from another r). `bipop`: problem (seed s, instance i) starts from `default_rng(s)`, later
runs from the same generator (pycma's callable x0), budget `--budget-mult * d`; with `-v` every
problem's runs are listed as (population, evaluations when the run started).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
from collections import defaultdict

# One BLAS thread per worker process (set before numpy loads).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

from coco_side_by_side import BudgetSpent, Recorder


def _problem(f: int, d: int, inst: int):
    import cocoex
    suite = cocoex.Suite("bbob", f"instances: {inst}", f"dimensions: {d} function_indices: {f}")
    return next(iter(suite))


def _ours(method: str) -> tuple[str, dict]:
    import gradfree.es
    rec = gradfree.es.RECOMMENDED
    params = dict(rec["params"])
    if method != "default":
        params.update(json.loads(method))
    return rec["algorithm"], params


def _single(args) -> tuple:
    method, f, d, inst, popsize, sigma0, rep, budget = args
    problem = _problem(f, d, inst)
    rec = Recorder(problem, budget)
    x0 = np.random.default_rng(1000 * inst + rep).uniform(-4, 4, d)
    seed = 7919 * rep + inst
    try:
        if method == "pycma":
            import cma
            opts = {"verbose": -9, "seed": seed + 1, "ftarget": rec.fopt + 1e-8, "maxfevals": budget,
                    "bounds": [-5, 5], "popsize": popsize}
            es = cma.CMAEvolutionStrategy(x0, sigma0, opts)
            while not es.stop():
                X = es.ask()
                es.tell(X, [rec(x) for x in X])
        else:
            import gradfree.es
            algo, params = _ours(method)
            params.pop("worse_runs", None)  # a restart rule: single runs have no restarts
            es = gradfree.es._METHODS[algo](x0, sigma0, seed=seed, max_evals=budget, target=rec.fopt + 1e-8,
                                            popsize=popsize, bounds=(np.full(d, -5.0), np.full(d, 5.0)),
                                            on_nonfinite="treat-as-inf", **params)
            while not es.stop() and rec.evals + es.popsize <= budget:
                X = es.ask()
                es.tell(X, [rec(x) for x in X])
    except BudgetSpent:
        pass
    problem.free()
    return method, popsize, sigma0, rec.solved, rec.evals


def _bipop(args) -> tuple:
    method, f, d, inst, seed, budget = args
    problem = _problem(f, d, inst)
    rec = Recorder(problem, budget)
    rng = np.random.default_rng(seed)
    x0 = rng.uniform(-4, 4, d)
    runs = []
    try:
        if method == "pycma":
            import cma
            init = cma.CMAEvolutionStrategy.__init__

            def logged_init(self, x, s, opts=None, **kw):
                init(self, x, s, opts, **kw)
                runs.append((int(self.popsize), rec.evals))

            cma.CMAEvolutionStrategy.__init__ = logged_init
            opts = {"verbose": -9, "seed": seed + 1, "ftarget": rec.fopt + 1e-8, "maxfevals": budget, "bounds": [-5, 5]}
            cma.fmin2(rec, lambda: rng.uniform(-4, 4, d), 2.0, opts, restarts=9, bipop=True)
        else:
            import gradfree.es
            algo, params = _ours(method)
            # The restarts' worse-optimum rule: the recommended method's unless the JSON sets it.
            worse = params.pop("worse_runs", gradfree.es.RECOMMENDED["worse_runs"])
            box = (np.full(d, -4.0), np.full(d, 4.0))
            es = gradfree.es._METHODS[algo](x0, 2.0, seed=seed, max_evals=budget, target=rec.fopt + 1e-8,
                                            restarts="bipop", restart_bounds=box,
                                            bounds=(np.full(d, -5.0), np.full(d, 5.0)), on_nonfinite="treat-as-inf",
                                            **params)
            es._run.set_worse_runs(float(worse) if worse else None)
            runs.append((es.popsize, 0))
            while not es.stop():
                X = es.ask()
                es.tell(X, [rec(x) for x in X])
                if any("restart" in kind for kind, _ in es.events()):
                    runs.append((es.popsize, rec.evals))
    except BudgetSpent:
        pass
    problem.free()
    return method, inst, seed, rec.solved, rec.evals, runs


def _span(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=("single", "bipop"))
    ap.add_argument("--function", type=int, required=True)
    ap.add_argument("--dim", type=int, required=True)
    ap.add_argument("--instances", default="1-15")
    ap.add_argument("--methods", default='pycma|default|{"sampling": "iid"}')
    ap.add_argument("--popsizes", default="", help="single: comma-separated (default: the default population)")
    ap.add_argument("--sigmas", default="2", help="single: comma-separated sigma0")
    ap.add_argument("--reps", type=int, default=10, help="single: runs per instance and setting")
    ap.add_argument("--first-rep", type=int, default=0, help="single: number of the first run (new runs for more)")
    ap.add_argument("--budget", type=int, default=0, help="single: evaluations per run (default 10^4 d)")
    ap.add_argument("--seeds", default="1-3", help="bipop: seeds, e.g. 1-3")
    ap.add_argument("--budget-mult", type=int, default=10000, help="bipop: budget / d")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("-v", "--verbose", action="store_true", help="bipop: list every problem's runs")
    a = ap.parse_args()
    d, f, methods, instances = a.dim, a.function, a.methods.split("|"), _span(a.instances)
    with mp.Pool(a.workers) as pool:
        if a.mode == "single":
            pops = [int(p) for p in a.popsizes.split(",")] if a.popsizes else [4 + int(3 * np.log(d))]
            budget = a.budget or 10000 * d
            tasks = [(m, f, d, i, p, float(s), r, budget) for m in methods for p in pops
                     for s in a.sigmas.split(",") for i in instances for r in range(a.first_rep, a.first_rep + a.reps)]
            agg = defaultdict(list)
            for m, p, s, ok, ev in pool.imap(_single, tasks, chunksize=4):
                agg[(p, s, m)].append((ok, ev))
            print(f"f{f}, d = {d}, instances {a.instances}, {a.reps} runs each, budget {budget}")
            for (p, s, m), v in sorted(agg.items(), key=lambda t: (t[0][0], t[0][1])):
                ev = sorted(e for _, e in v)
                print(f"  popsize {p:4d}  sigma0 {s:5.2f}  {m:28s} solved {sum(o for o, _ in v):4d} of {len(v)}"
                      f"   evaluations per run: mean {np.mean(ev):8.0f}, median {ev[len(ev) // 2]}")
        else:
            tasks = [(m, f, d, i, s, a.budget_mult * d) for m in methods for s in _span(a.seeds) for i in instances]
            agg = defaultdict(list)
            for m, i, s, ok, ev, runs in pool.imap(_bipop, tasks):
                agg[m].append((ok, ev, len(runs)))
                if a.verbose:
                    print(f"{m} seed {s} instance {i}: {'solved' if ok else 'not solved'} at {ev}; runs {runs}")
            print(f"f{f}, d = {d}, instances {a.instances}, seeds {a.seeds}, budget {a.budget_mult} d")
            for m, v in agg.items():
                print(f"  {m:28s} solved {sum(o for o, _, _ in v)} of {len(v)}, runs per problem "
                      f"{np.mean([n for _, _, n in v]):.1f}, evaluations {np.mean([e for _, e, _ in v]):.0f}")


if __name__ == "__main__":
    main()
