#!/usr/bin/env python3
"""The anytime table of several `coco_side_by_side.py --out` files pooled (e.g. one per seed).

  python3 benches/coco_table.py benches/results/bbob_box_1e4d_seed{1,2,3}.json.gz
  python3 benches/coco_table.py FILES --ref pycma+box --methods default+box --markdown

For each dimension, each method's share of the (run, target) pairs reached by 10 d, 30 d, ...
evaluations (COCO's 51 targets f_opt + 10^{2 .. -8}, every run of every file counted once) and
the final targets (1e-8) hit by 10^3 d, 3 10^3 d and 10^4 d. A cell of a method is marked `*`
where it is below the reference method's (`--ref`), and also `!` where it is significantly
below: the 95% interval of a paired bootstrap over the problems (file, function, instance; the
two methods' runs on one problem are a pair; 2000 resamples, seeded) lies wholly below 0. The
runs of each file are keyed by (method, d, f, instance); a file's seed is its own, so the same key
in two files is two runs.
"""
from __future__ import annotations

import argparse
import gzip
import json
from collections import defaultdict

import numpy as np

from coco_side_by_side import BUDGETS, finals, share

FINALS = (1000, 3000, 10000)


def load(paths):
    runs = []
    for i, path in enumerate(paths):
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as fh:
            data = json.load(fh)
        runs.extend(dict(r, _file=i) for r in (data["records"] if isinstance(data, dict) else data))
    return runs


def significantly_below(sel, ref, score, resamples: int = 2000) -> bool:
    """Whether the paired bootstrap's 95% interval of mean(score(run) - score(ref run)) over the
    problems both methods ran lies wholly below 0."""
    key = lambda r: (r["_file"], r["function"], r["instance"])
    a = {key(r): score(r) for r in sel}
    b = {key(r): score(r) for r in ref}
    diff = np.array([a[k] - b[k] for k in sorted(a.keys() & b.keys())], dtype=float)
    if len(diff) < 2:
        return False
    rng = np.random.default_rng(2009)
    means = diff[rng.integers(0, len(diff), (resamples, len(diff)))].mean(axis=1)
    return bool(np.quantile(means, 0.975) < 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--ref", default="pycma+box", help="the method the others are compared with")
    ap.add_argument("--methods", default=None, help="comma-separated (default: every method but --ref)")
    ap.add_argument("--markdown", action="store_true", help="a markdown table (the user guide)")
    args = ap.parse_args()
    runs = load(args.files)
    by = defaultdict(list)
    for r in runs:
        by[(r["method"], r["dim"])].append(r)
    methods = args.methods.split(",") if args.methods else sorted({m for m, _ in by} - {args.ref})
    dims = sorted({d for _, d in by})
    budgets = [b for b in BUDGETS if any(r["evals"] >= 0.5 * b * r["dim"] for r in runs)]
    head = ["d", "method", "runs"] + [f"{b}d" for b in budgets] + [f"1e-8 by {b}d" for b in FINALS if b in budgets]
    rows = []
    for d in dims:
        ref = by.get((args.ref, d), [])
        for m in [args.ref] + [m for m in methods if m != args.ref]:
            sel = by.get((m, d), [])
            if not sel:
                continue
            cells = [str(d), m, str(len(sel))]
            for b in budgets:
                v, w = share(sel, b * d), share(ref, b * d)
                below = m != args.ref and ref and v < w - 1e-12
                sig = below and significantly_below(sel, ref, lambda r, e=b * d: share([r], e))
                cells.append(f"{v:.3f}" + ("*" if below else "") + ("!" if sig else ""))
            for b in FINALS:
                if b in budgets:
                    v, w = finals(sel, b * d), finals(ref, b * d)
                    below = m != args.ref and ref and v < w
                    sig = below and significantly_below(sel, ref, lambda r, e=b * d: finals([r], e))
                    cells.append(f"{v}/{len(sel)}" + ("*" if below else "") + ("!" if sig else ""))
            rows.append(cells)
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" for _ in head) + "|")
        for c in rows:
            print("| " + " | ".join(c) + " |")
    else:
        widths = [max(len(c[i]) for c in [head] + rows) for i in range(len(head))]
        for c in [head] + rows:
            print("  ".join(x.rjust(w) for x, w in zip(c, widths)))
    print(f"\n{len(runs)} runs from {len(args.files)} file(s); * below {args.ref}; ! significantly below "
          "(95% paired bootstrap interval over the problems below 0)")


if __name__ == "__main__":
    main()
