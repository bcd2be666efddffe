"""Run a gradfree evolution strategy on the COCO ``bbob`` suite (24 noiseless functions).

    python -m gradfree.coco --dims 2,5,10 --budget-mult 1000            # the recommended method
    python -m gradfree.coco --algo ingo --restarts ipop --dims 2,5,10

Needs ``cocoex`` (``pip install coco-experiment``). Each problem gets ``budget-mult * d``
evaluations. The run starts from the problem's initial solution (the origin) with ``sigma0 = 2``
(a fifth of the [-5, 5]^d domain, pycma's BBOB setting) and restarts (``--restarts ipop|bipop|none``,
default BIPOP for the recommended method and IPOP for a named one; restarts draw their start
uniformly in [-4, 4]^d). The default ``--algo default`` is ``gradfree.es.RECOMMENDED`` (CMA-ES with
BIPOP restarts and sphere-QMC directions); ``benches/coco_side_by_side.py`` compares it with pycma. It stops early once COCO reports
the final target (f - f_opt <= 1e-8) hit.

COCO's observer writes the standard result folder ``exdata/<name>`` under the current directory
(``<name>`` is ``--output-folder``, default ``gradfree-<algo>``; COCO appends ``-001``, ``-002``
... rather than overwrite), which ``python -m cocopp exdata/<name>`` post-processes. The runner then prints
and writes (``summary.csv`` in that folder) a table per function and dimension: the fraction of the
51 standard targets f_opt + 10^{2, 1.8, ..., -8} reached, averaged over instances, and the
instances solved to 1e-8. It reads the final precisions from the observer's ``.info`` files.
"""
from __future__ import annotations

import argparse
import csv
import os
import re
import time
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _METHODS

#: The 51 standard bbob targets, as precisions f - f_opt.
TARGETS = 10.0 ** np.arange(2.0, -8.0 - 1e-9, -0.2)


def _indices(text: str) -> List[int]:
    """``"1-5,7"`` -> [1, 2, 3, 4, 5, 7]."""
    out: List[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


def read_info(folder: str) -> Dict[Tuple[int, int], Dict[int, Tuple[int, float]]]:
    """Final precisions from COCO's ``.info`` files: ``{(function, dim): {instance: (evals, f - f_opt)}}``.

    An ``.info`` block names the function and dimension in its header line (``funcId = 3, DIM =
    5, ...``); its data line lists ``instance:evaluations|precision`` entries.
    """
    out: Dict[Tuple[int, int], Dict[int, Tuple[int, float]]] = {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".info"):
            continue
        key = None
        with open(os.path.join(folder, name)) as fh:
            for line in fh:
                m = re.search(r"funcId\s*=\s*'?(\d+)'?.*DIM\s*=\s*'?(\d+)'?", line)
                if m:
                    key = (int(m.group(1)), int(m.group(2)))
                    continue
                if key is None or ".dat" not in line:
                    continue
                runs = out.setdefault(key, {})
                for inst, evals, prec in re.findall(r"(\d+):(\d+)\|([-+0-9.eE]+|inf|nan)", line):
                    runs[int(inst)] = (int(evals), float(prec))
    return out


def run_problem(problem, cls, budget: int, sigma0: float, seed: int, restarts, params: dict) -> None:
    """Runs one ES (with ``restarts``: False, "ipop" or "bipop") on one COCO problem until the
    budget is spent or the final target is hit."""
    x0 = np.asarray(problem.initial_solution, dtype=np.float64)
    d = len(x0)
    es = cls(x0, sigma0, seed=seed, max_evals=budget, restarts=restarts,
             restart_bounds=(np.full(d, -4.0), np.full(d, 4.0)) if restarts else None, **params)
    while not es.stop() and not problem.final_target_hit and problem.evaluations + es.popsize <= budget:
        X = es._ask_or_none()      # None: the run stopped while sampling (diverged)
        if X is None:
            break
        es.tell(X, [problem(x) for x in X])


def main(argv: Optional[Sequence[str]] = None) -> List[dict]:
    try:
        import cocoex  # deferred: an optional dependency
    except ImportError:
        raise SystemExit("python -m gradfree.coco needs COCO's Python module: pip install coco-experiment") from None

    ap = argparse.ArgumentParser(prog="python -m gradfree.coco", description=__doc__.splitlines()[0])
    ap.add_argument("--algo", default="default", choices=["default", *sorted(_METHODS)],
                    help="gradfree ES (default: the recommended method, gradfree.es.RECOMMENDED)")
    ap.add_argument("--dims", default="2,5,10", help="comma-separated dimensions (bbob has 2,3,5,10,20,40)")
    ap.add_argument("--budget-mult", type=float, default=1000, help="evaluations per problem = this * d")
    ap.add_argument("--functions", default="1-24", help="function indices, e.g. 1-24 or 1,8,10")
    ap.add_argument("--instances", default="1-15", help="instance indices, e.g. 1-15")
    ap.add_argument("--sigma0", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=1, help="base seed; problem k uses seed + k")
    ap.add_argument("--restarts", choices=["ipop", "bipop", "none"], default=None,
                    help="restart scheme (default: bipop for the recommended method, ipop otherwise)")
    ap.add_argument("--no-restarts", action="store_true", help="one run per problem (as --restarts none)")
    ap.add_argument("--output-folder", default=None, help="result folder name under exdata/ (default gradfree-<algo>)")
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                    help="algorithm parameter (JSON value), repeatable, e.g. --param beta=0.02")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)

    import json

    params = {}
    for kv in args.param:
        if "=" not in kv:
            ap.error(f"--param {kv!r}: expected KEY=VALUE")
        k, v = kv.split("=", 1)
        try:
            params[k] = json.loads(v)
        except json.JSONDecodeError:
            params[k] = v
    # A diverging run can overflow a bbob function; rank such values last instead of stopping.
    params.setdefault("on_nonfinite", "treat-as-inf")
    if args.budget_mult <= 0:
        ap.error(f"--budget-mult {args.budget_mult}: expected > 0")
    dims, funcs, insts = _indices(args.dims), _indices(args.functions), _indices(args.instances)
    bad = [f for f in funcs if not 1 <= f <= 24]
    if bad:
        ap.error(f"--functions: {bad} outside 1-24")
    from ._es_minimize import RECOMMENDED
    algo = RECOMMENDED["algorithm"] if args.algo == "default" else args.algo
    if args.algo == "default":
        for k, v in RECOMMENDED["params"].items():
            params.setdefault(k, v)
    scheme = args.restarts or ("none" if args.no_restarts else RECOMMENDED["restarts"] if args.algo == "default" else "ipop")
    restarts = False if scheme == "none" else scheme
    cls = _METHODS[algo]
    folder = args.output_folder or f"gradfree-{args.algo}"
    suite = cocoex.Suite("bbob", "", f"dimensions: {','.join(map(str, dims))} "
                                    f"function_indices: {','.join(map(str, funcs))} "
                                    f"instance_indices: {','.join(map(str, insts))}")
    observer = cocoex.Observer("bbob", f"result_folder: {folder} algorithm_name: gradfree-{args.algo}")
    t0 = time.time()
    for k, problem in enumerate(suite):
        problem.observe_with(observer)
        budget = int(args.budget_mult * problem.dimension)
        run_problem(problem, cls, budget, args.sigma0, args.seed + k, restarts, params)
        if not args.quiet:
            print(f"{problem.id}: {problem.evaluations} evaluations, final target {'hit' if problem.final_target_hit else 'missed'}",
                  flush=True)
        problem.free()
    result_folder = observer.result_folder
    del observer  # flushes the .info files
    info = read_info(result_folder)
    rows = []
    for (f, d), runs in sorted(info.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        precs = np.array([p for _, p in runs.values()])
        hit = np.mean([(TARGETS >= p).mean() for p in precs])
        rows.append({"function": f, "dim": d, "instances": len(precs), "targets_hit": float(hit),
                     "solved": int((precs <= 1e-8).sum()), "median_precision": float(np.median(precs))})
    with open(os.path.join(result_folder, "summary.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["function"])
        w.writeheader()
        w.writerows(rows)
    print(f"\ngradfree-{args.algo} on bbob, budget {args.budget_mult:g} d, {time.time() - t0:.1f} s; results in {result_folder}")
    print(f"{'f':>3} {'d':>3} {'targets hit':>12} {'solved':>8} {'median f-fopt':>14}")
    for r in rows:
        print(f"{r['function']:>3} {r['dim']:>3} {r['targets_hit']:>12.3f} {r['solved']:>4}/{r['instances']:<3} {r['median_precision']:>14.3e}")
    for d in sorted({r["dim"] for r in rows}):
        sel = [r for r in rows if r["dim"] == d]
        print(f"all {d:>3} {np.mean([r['targets_hit'] for r in sel]):>12.3f} {sum(r['solved'] for r in sel):>4}/{sum(r['instances'] for r in sel):<3}")
    print(f"post-process with: python -m cocopp {result_folder}")
    return rows


if __name__ == "__main__":
    main()
