#!/usr/bin/env python3
"""gradfree against pycma's BIPOP-CMA-ES on COCO's bbob suite, on the same machine, instances,
budget and start rule.

  pip install coco-experiment cma numpy   (matplotlib for the figure)
  maturin develop --release -m python/Cargo.toml
  python3 benches/coco_side_by_side.py --dims 2,5,10,20 --instances 1-15 --budget-mult 10000
  python3 benches/coco_side_by_side.py --quick          # d = 2, 5; 3 instances; budget 1000 d

Every run starts from a uniform point of [-4, 4]^d (numpy, seeded per problem) with sigma0 = 2
(a fifth of the [-5, 5]^d domain) and restarts from fresh uniform points of [-4, 4]^d; it stops
at the final target f_opt + 1e-8 or when `budget-mult * d` evaluations are spent, whatever the
method's own rules say (the objective refuses evaluations past the budget). pycma runs
`cma.fmin2(f, x0, 2, restarts=9, bipop=True)`, COCO's reference setting.

Methods (`--methods`, comma-separated):
  pycma             pycma BIPOP-CMA-ES
  pycma+box         the same with BBOB's [-5, 5]^d as bounds (pycma's BoundTransform)
  pycma-lq[+box]    pycma's lq-CMA-ES, `cma.fmin_lq_surr2(f, x0, 2, restarts=9)` (IPOP restarts,
                    a fresh model each)
  default           gradfree.minimize(f, x0, sigma0=2) with its defaults (the recommended method)
  default+opts      the same with options joined by '+': settle=K|off (minimize's settle_runs: the
                    restarts' settle rule) | box (BBOB's [-5, 5]^d as bounds, as a user with a
                    box would pass them) | notarget (no target is passed, and the objective goes
                    on past the final target until the method stops or the budget is spent: the
                    hits are the same first-hit times, `evals` is what the method used on its own) |
                    key=value (an algorithm parameter on top of the preset's, JSON value or string),
                    e.g. default+settle=off, default+settle=2+notarget, default+box+damping=pycma.
  surrogate[+opts]  gradfree.minimize(f, x0, method="surrogate", sigma0=2) (lq-CMA-ES with BIPOP
                    restarts), with the options of `default`
  NAME[+opts]       a gradfree ES class by registry name with options joined by '+':
                    bipop | ipop | box (BBOB's [-5, 5]^d as bounds, pycma's BoundTransform) |
                    clip (the box, clipping) | penalty (the box, clipping plus a quadratic penalty
                    on the distance) | reflect (the box, mirrored at its faces) | key=value (an
                    algorithm parameter, JSON value) | beta_d=c (INGO's beta = min(c / d, 0.5) at
                    each dimension d),
                    e.g. cmaes+bipop, cmaes+ipop+box, ingo+bipop+step_size="csa"+beta_d=1.5.

For every (run, target) pair of COCO's 51 targets f_opt + 10^{2, 1.8, ..., -8} the script records
the evaluations at which the target was first reached. Per method and dimension it prints the
fraction of pairs reached and the area under the runtime ECDF (COCO's empirical cumulative
distribution of evaluations / d on a log scale, from 1 to the budget, normalized to [0, 1]: 1 is
every target at the first evaluation); per function at each dimension, the median evaluations to
1e-8 (or the median fraction of targets reached when a method solves fewer than half the
instances). `--out FILE.json` keeps every record (rewritten every 50 runs or 2 minutes, so a run stopped
half-way goes on with `--load FILE.json`); the figure (ECDF per dimension) goes to
`--figure` (default coco_side_by_side.png). `--cocopp DIR` also logs every run with COCO's
observer and runs COCO's post-processing (`pip install cocopp`) on them: its figures and tables,
comparable with COCO's published data sets, go to DIR/ppdata/index.html (its runtime ECDFs over all
functions, one panel per dimension, also to DIR/ppdata/ecdf_by_dimension.png).
"""
from __future__ import annotations

import argparse
import gzip
import json
import math
import multiprocessing as mp
import os

# One BLAS thread per worker process, set before numpy loads: `--workers` processes already use
# the cores, and OpenBLAS's own threads on pycma's small products (its eigendecompositions, lq's
# model fits) oversubscribe them (pycma's lq-CMA-ES at d = 20 ran 5.7x slower with two workers).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
import sys
import textwrap
import time
from typing import Dict, List, Tuple

import numpy as np

TARGETS = 10.0 ** np.arange(2.0, -8.0 - 1e-9, -0.2)
#: Budgets (multiples of d) at which the anytime table reads the runtime ECDF.
BUDGETS = (10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000)


class BudgetSpent(Exception):
    """Raised by the objective once the budget is spent."""


class Recorder:
    """The objective as the methods see it: counts evaluations, records when each target is first
    reached, and refuses evaluations past the budget or after the final target."""

    def __init__(self, problem, budget: int, stop_at_target: bool = True, fopt: float | None = None):
        self.problem = problem
        self.stop_at_target = stop_at_target
        self.fopt = optimal_value(problem) if fopt is None else fopt
        self.budget = budget
        self.evals = 0
        self.hits = np.full(TARGETS.size, np.inf)
        self.best = math.inf

    @property
    def solved(self) -> bool:
        return self.best <= 1e-8

    def __call__(self, x) -> float:
        if self.evals >= self.budget or (self.stop_at_target and self.solved):
            raise BudgetSpent()
        v = float(self.problem(np.asarray(x, dtype=np.float64)))
        self.evals += 1
        prec = v - self.fopt
        if prec < self.best:
            self.best = prec
            new = (TARGETS >= prec) & np.isinf(self.hits)
            self.hits[new] = self.evals
        return v


def optimal_value(problem) -> float:
    """f_opt of a bbob problem: its value at x_opt, which cocoex writes to a file in the current
    directory (``Problem._best_parameter("print")``; read in a private folder). It evaluates the
    problem: call it before an observer is attached."""
    import tempfile
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            problem._best_parameter("print")
            with open("._bbob_problem_best_parameter.txt") as fh:
                xopt = np.array([float(v) for v in fh.read().split()])
        finally:
            os.chdir(here)
    return float(problem(xopt))


def _param(option: str):
    """`key=value` of a method spec: the value as JSON, or as a bare string when it is not JSON."""
    k, v = option.split("=", 1)
    try:
        return k, json.loads(v)
    except json.JSONDecodeError:
        return k, v


def _parse_default(text: str):
    """`default[+settle=K|off][+notarget][+box][+key=value]`: minimize's keywords and whether a target is
    passed (`box`: BBOB's [-5, 5]^d as ``bounds``, filled in by `run_one`)."""
    name, *opts = text.split("+")
    kw, target = {}, True
    for o in opts:
        if o == "notarget":
            target = False
        elif o == "box":
            kw["bounds"] = "box"
        elif o.startswith("settle="):
            v = o.split("=", 1)[1]
            kw["settle_runs"] = False if v == "off" else int(v)
        elif "=" in o:
            # An algorithm parameter on top of the preset's.
            k, v = _param(o)
            kw[k] = v
        else:
            raise SystemExit(f"--methods {text}: unknown option {o!r}")
    return kw, target


def _parse_method(text: str):
    name, *opts = text.split("+")
    cfg = {"name": name, "restarts": False, "bounds": None, "params": {}}
    for o in opts:
        if o in ("bipop", "ipop"):
            cfg["restarts"] = o
        elif o in ("box", "clip", "penalty", "reflect"):
            cfg["bounds"] = "transform" if o == "box" else o
        elif "=" in o:
            k, v = _param(o)
            cfg["params"][k] = v
        else:
            raise SystemExit(f"--methods {text}: unknown option {o!r}")
    return cfg


#: The pycma runs: BIPOP-CMA-ES and lq-CMA-ES, each without and with BBOB's box as bounds.
PYCMA_METHODS = ("pycma", "pycma+box", "pycma-lq", "pycma-lq+box")


def run_one(method: str, rec: Recorder, d: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x0 = rng.uniform(-4, 4, d)
    box = (np.full(d, -4.0), np.full(d, 4.0))
    try:
        if method in PYCMA_METHODS:
            import cma
            opts = {"verbose": -9, "seed": seed + 1, "ftarget": rec.fopt + 1e-8, "maxfevals": rec.budget}
            if method.endswith("+box"):
                opts["bounds"] = [-5, 5]          # pycma's default handler, BoundTransform
            if method.startswith("pycma-lq"):
                # lq-CMA-ES (Hansen 2019) with IPOP restarts, each with a fresh model.
                cma.fmin_lq_surr2(rec, lambda: rng.uniform(-4, 4, d), 2.0, opts, restarts=9)
            else:
                cma.fmin2(rec, lambda: rng.uniform(-4, 4, d), 2.0, opts, restarts=9, bipop=True)
            return
        import gradfree
        if method.split("+")[0] in ("default", "surrogate"):
            kw, with_target = _parse_default(method)
            if kw.get("bounds") == "box":
                kw["bounds"] = (np.full(d, -5.0), np.full(d, 5.0))
            if method.startswith("surrogate"):
                kw["method"] = "surrogate"
            # Restarts start from [-4, 4]^d, as pycma's (its callable x0) and COCO's protocol.
            gradfree.minimize(rec, x0, sigma0=2.0, seed=seed, max_evals=rec.budget, restart_bounds=box,
                              target=rec.fopt + 1e-8 if with_target else None, on_nonfinite="treat-as-inf", **kw)
            return
        cfg = _parse_method(method)
        cls = gradfree.es._METHODS[cfg["name"]]
        kw = dict(cfg["params"])
        if "beta_d" in kw:
            kw["beta"] = min(float(kw.pop("beta_d")) / d, 0.5)
        kw.setdefault("on_nonfinite", "treat-as-inf")
        if cfg["bounds"]:
            kw.update(bounds=(np.full(d, -5.0), np.full(d, 5.0)), bounds_handling=cfg["bounds"])
        es = cls(x0, 2.0, seed=seed, max_evals=rec.budget, target=rec.fopt + 1e-8,
                 restarts=cfg["restarts"] or False, restart_bounds=box if cfg["restarts"] else None, **kw)
        while not es.stop() and rec.evals + es.popsize <= rec.budget:
            X = es.ask()
            es.tell(X, [rec(x) for x in X])
    except BudgetSpent:
        pass


_COCO_DIR = None  # --cocopp: where this worker's COCO observers write
_OBSERVERS: Dict[str, object] = {}


def _init_worker(coco_dir) -> None:
    global _COCO_DIR
    _COCO_DIR = coco_dir
    if coco_dir is not None:
        # cocoex writes below ./exdata whatever the folder: work from coco_dir.
        os.makedirs(coco_dir, exist_ok=True)
        os.chdir(coco_dir)


def _folder(method: str) -> str:
    """A file-system-safe folder name for a method."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in method)


def _observer(method: str):
    """This worker's COCO observer for `method`: one folder per method and worker process, below
    ``coco_dir/exdata/<method>`` (cocopp reads every .info file below the method's folder)."""
    import cocoex
    if method not in _OBSERVERS:
        folder = os.path.join(_folder(method), f"worker{os.getpid()}")
        _OBSERVERS[method] = cocoex.Observer("bbob", f"result_folder: {folder} algorithm_name: {method}")
    return _OBSERVERS[method]


def task(args) -> dict:
    method, d, f, inst, budget_mult, seed = args
    import cocoex
    suite = cocoex.Suite("bbob", f"instances: {inst}", f"dimensions: {d} function_indices: {f}")
    problem = next(iter(suite))
    # f_opt first: it evaluates x_opt, which an observer attached before would log as the run's
    # first evaluation (every logged run would then "solve" the problem at evaluation 1).
    fopt = optimal_value(problem)
    if _COCO_DIR is not None:
        problem.observe_with(_observer(method))
    rec = Recorder(problem, int(budget_mult * d), stop_at_target="notarget" not in method.split("+"), fopt=fopt)
    t0 = time.time()
    run_one(method, rec, d, seed)
    out = {"method": method, "dim": d, "function": f, "instance": inst, "evals": rec.evals, "fopt": rec.fopt,
           "precision": rec.best, "hits": [None if math.isinf(h) else int(h) for h in rec.hits],
           "seconds": time.time() - t0}
    problem.free()
    return out


def run_cocopp(coco_dir: str, methods: List[str]) -> None:
    """COCO's own post-processing of the logged runs: runtime ECDFs, scaling and per-function
    figures, in ``coco_dir/ppdata`` (its index.html lists them)."""
    import glob
    try:
        import cocopp
    except ImportError:
        print("(no cocopp: pip install cocopp for COCO's figures)")
        return
    folders = [os.path.join(coco_dir, "exdata", _folder(m)) for m in methods]
    folders = [f for f in folders if glob.glob(os.path.join(f, "**", "*.info"), recursive=True)]
    if not folders:
        print("(cocopp: no logged runs)")
        return
    out = os.path.join(coco_dir, "ppdata")
    # PNG besides cocopp's SVG and PDF, for pages that show pictures (the user guide).
    cocopp.genericsettings.figure_file_formats = ["svg", "pdf", "png"]
    cocopp.main(["-o", out] + folders)
    print(f"cocopp figures: {out}/index.html")
    strip = ecdf_strip(out, methods)
    if strip:
        print(f"cocopp's runtime ECDFs side by side: {strip}")


def ecdf_strip(ppdata: str, methods: List[str]) -> str | None:
    """cocopp's runtime ECDFs over all functions (its ``pprldmany_<d>D_noiselessall.png`` of the
    newest comparison below `ppdata`), one panel per dimension in one figure,
    ``ppdata/ecdf_by_dimension.png``; None without matplotlib or figures."""
    import glob
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    found = sorted(glob.glob(os.path.join(ppdata, "**", "pprldmany_*D_noiselessall.png"), recursive=True),
                   key=os.path.getmtime)
    newest = {}
    for path in found:  # the last written per dimension
        newest[os.path.basename(path)] = path
    panels = [newest[k] for k in sorted(newest)]
    if not panels:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(4.8 * len(panels), 4.0), squeeze=False)
    for ax, path in zip(axes[0], panels):
        ax.imshow(plt.imread(path))
        ax.axis("off")
    fig.suptitle("cocopp runtime ECDFs, bbob f1-f24: " + ", ".join(methods))
    fig.tight_layout()
    path = os.path.join(ppdata, "ecdf_by_dimension.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def share(records: List[dict], evals: float) -> float:
    """Share of the (run, target) pairs of `records` reached within `evals` evaluations: COCO's
    runtime ECDF read at a fixed budget."""
    pairs = [h for r in records for h in r["hits"]]
    return sum(h is not None and h <= evals for h in pairs) / max(len(pairs), 1)


def finals(records: List[dict], evals: float) -> int:
    """Runs of `records` at the final target (1e-8, the last of TARGETS) within `evals`."""
    return sum(r["hits"][-1] is not None and r["hits"][-1] <= evals for r in records)


def ecdf_area(records: List[dict], budget: float, d: int) -> float:
    """Normalized area under the runtime ECDF over log10(evals / d) in [0, log10(budget / d)]."""
    span = math.log10(budget / d)
    total = 0.0
    n = 0
    for r in records:
        for h in r["hits"]:
            n += 1
            if h is not None:
                total += 1.0 - math.log10(max(h, d) / d) / span
    return total / max(n, 1)


def save_records(args, records: List[dict]) -> None:
    """Writes every record so far to ``--out`` (if given; gzip-compressed when its name ends in
    ``.gz``, as ``--load`` and ``coco_table.py`` read it), atomically: a temporary file in the same
    folder renamed over the old one."""
    if not args.out:
        return
    tmp = f"{args.out}.tmp{os.getpid()}"
    with (gzip.open(tmp, "wt") if args.out.endswith(".gz") else open(tmp, "w")) as fh:
        json.dump({"args": vars(args), "records": records}, fh)
    os.replace(tmp, args.out)


def _indices(text: str) -> List[int]:
    out: List[int] = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        elif part.strip():
            out.append(int(part))
    return out


def summarize(records: List[dict], methods: List[str], dims: List[int], budget_mult: float) -> Dict:
    summary: Dict = {}
    for d in dims:
        budget = budget_mult * d
        print(f"\n== d = {d}, budget {budget:g} evaluations, {len({(r['function'], r['instance']) for r in records if r['dim'] == d})} problems")
        print(f"{'method':<28} {'pairs reached':>14} {'ECDF area':>10} {'solved':>8} {'seconds':>8}")
        for m in methods:
            sel = [r for r in records if r["dim"] == d and r["method"] == m]
            if not sel:
                continue
            reached = np.mean([h is not None for r in sel for h in r["hits"]])
            area = ecdf_area(sel, budget, d)
            solved = sum(r["precision"] <= 1e-8 for r in sel)
            secs = sum(r["seconds"] for r in sel)
            summary[(m, d)] = {"reached": float(reached), "area": area, "solved": int(solved), "runs": len(sel)}
            print(f"{m:<28} {reached:>14.3f} {area:>10.3f} {solved:>4}/{len(sel):<3} {secs:>8.1f}")
        # Anytime: the share of (run, target) pairs reached within each budget, and the runs that
        # reached the final target, as COCO's runtime ECDF read at fixed budgets.
        mults = [b for b in BUDGETS if b <= budget_mult]
        print(f"{'share of targets by budget':<28} " + " ".join(f"{format(b, 'g') + 'd':>7}" for b in mults)
              + "   final target by " + ", ".join(f"{b:g}d" for b in mults if b >= 1000))
        for m in methods:
            sel = [r for r in records if r["dim"] == d and r["method"] == m]
            if not sel:
                continue
            shares = [share(sel, b * d) for b in mults]
            hit = [finals(sel, b * d) for b in mults if b >= 1000]
            summary[("shares", m, d)] = dict(zip(mults, shares))
            print(f"{m:<28} " + " ".join(f"{v:>7.3f}" for v in shares) + "   " + ", ".join(f"{k}/{len(sel)}" for k in hit))
        # Per function: median evaluations to 1e-8, or the median reached fraction.
        funcs = sorted({r["function"] for r in records if r["dim"] == d})
        print(f"{'f':>3} " + " ".join(f"{m[:16]:>16}" for m in methods))
        per_f = {}
        for f in funcs:
            cells = []
            for m in methods:
                sel = [r for r in records if r["dim"] == d and r["method"] == m and r["function"] == f]
                if not sel:
                    cells.append((math.nan, math.nan))
                    continue
                ev = sorted(r["hits"][-1] if r["hits"][-1] is not None else math.inf for r in sel)
                med = float(np.median(ev))
                frac = float(np.median([np.mean([h is not None for h in r["hits"]]) for r in sel]))
                cells.append((med, frac))
            per_f[f] = cells
            print(f"{f:>3} " + " ".join(f"{c[0]:>16.0f}" if math.isfinite(c[0]) else f"{'reach ' + format(c[1], '.2f'):>16}" for c in cells))
        summary[("per_function", d)] = per_f
        # Functions on which each method is no worse than the first (the reference): fewer or
        # equal median evaluations to 1e-8, or, where neither solves, as many targets reached.
        ref = methods[0]
        for k, m in enumerate(methods[1:], start=1):
            wins = 0
            for f, cells in per_f.items():
                (e0, r0), (e1, r1) = cells[0], cells[k]
                if math.isfinite(e1) and math.isfinite(e0):
                    wins += e1 <= e0
                elif math.isfinite(e1) or not math.isfinite(e0):
                    wins += math.isfinite(e1) or r1 >= r0
            print(f"  {m}: no worse than {ref} on {wins} of {len(per_f)} functions")
            summary[("no_worse", m, d)] = wins
    return summary


def figure(records: List[dict], methods: List[str], dims: List[int], budget_mult: float, path: str) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no matplotlib: figure skipped)")
        return
    fig, axes = plt.subplots(1, len(dims), figsize=(4.2 * len(dims), 3.6), squeeze=False)
    for ax, d in zip(axes[0], dims):
        budget = budget_mult * d
        grid = np.logspace(0, math.log10(budget / d), 200)
        for m in methods:
            sel = [r for r in records if r["dim"] == d and r["method"] == m]
            if not sel:
                continue
            hits = np.array([h / d if h is not None else np.inf for r in sel for h in r["hits"]])
            # Long method specs wrap, so the legend stays inside the (empty) upper left.
            label = textwrap.fill(f"{m} ({ecdf_area(sel, budget, d):.3f})", 32)
            ax.step(grid, [(hits <= g).mean() for g in grid], where="post", label=label)
        ax.set_xscale("log")
        ax.set_ylim(0, 1)
        ax.set_xlabel("evaluations / d")
        ax.set_title(f"bbob f1-f24, d = {d}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6, loc="upper left")
    axes[0][0].set_ylabel("fraction of (run, target) pairs")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"figure: {path}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", default="pycma,default,cmaes+bipop,cmaes+ipop")
    ap.add_argument("--dims", default="2,5,10")
    ap.add_argument("--functions", default="1-24")
    ap.add_argument("--instances", default="1-15")
    ap.add_argument("--budget-mult", type=float, default=1e4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="d = 2, 5; instances 1-3; budget 1000 d")
    ap.add_argument("--out", default=None, help="write every record to this JSON file")
    ap.add_argument("--figure", default="coco_side_by_side.png")
    ap.add_argument("--cocopp", default=None, metavar="DIR",
                    help="also log every run with COCO's observer under DIR/<method>/ and run cocopp "
                         "(pip install cocopp) on them, writing its figures and tables to DIR/ppdata "
                         "(runs reused from --load are not logged)")
    ap.add_argument("--load", default=None,
                    help="comma-separated JSON files (.json or .json.gz) of earlier runs (--out): their records are reused, "
                         "and only the (method, problem) pairs they lack are run")
    args = ap.parse_args(argv)
    if args.quick:
        args.dims, args.instances, args.budget_mult = "2,5", "1-3", 1000.0
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    for m in methods:
        if m.split("+")[0] in ("default", "surrogate"):
            _parse_default(m)
        elif m not in PYCMA_METHODS:
            _parse_method(m)
    dims, funcs, insts = _indices(args.dims), _indices(args.functions), _indices(args.instances)
    tasks = [(m, d, f, i, args.budget_mult, args.seed + 1000 * d + 50 * f + i)
             for d in dims for f in funcs for i in insts for m in methods]
    t0 = time.time()
    records = []
    for path in (args.load or "").split(","):
        if path:
            with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as fh:
                old = json.load(fh)["records"]
            wanted = {(m, d, f, i) for (m, d, f, i, _, _) in tasks}
            have = {(r["method"], r["dim"], r["function"], r["instance"]) for r in records}
            records.extend(r for r in old if (r["method"], r["dim"], r["function"], r["instance"]) in wanted - have)
    done = {(r["method"], r["dim"], r["function"], r["instance"]) for r in records}
    tasks = [t for t in tasks if t[:4] not in done]
    coco_dir = None
    if args.cocopp:
        coco_dir = os.path.abspath(args.cocopp)
    saved = time.time()
    with mp.Pool(args.workers, initializer=_init_worker, initargs=(coco_dir,)) as pool:
        for k, r in enumerate(pool.imap_unordered(task, tasks, chunksize=1)):
            records.append(r)
            if (k + 1) % 50 == 0:
                print(f"  {k + 1}/{len(tasks)} runs, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
            if (k + 1) % 50 == 0 or time.time() - saved > 120:
                # A long run stopped half-way keeps what it did: `--load` the file to go on.
                save_records(args, records)
                saved = time.time()
    summarize(records, methods, dims, args.budget_mult)
    save_records(args, records)
    figure(records, methods, dims, args.budget_mult, args.figure)
    if coco_dir is not None:
        run_cocopp(coco_dir, methods)
    print(f"\n{len(records)} runs in {time.time() - t0:.0f} s")
    return records


if __name__ == "__main__":
    main()
