#!/usr/bin/env python3
"""Draw new hostile cases from a seed, run them against the gradfree binary and Python package, and
judge each one by its stated expectation (the verdicts of harness.py).

    python benches/hostile/generate.py [--seed S] [--cases N] [--kinds K,K] [--only GLOB] [--list]
                                       [--no-regressions] [--jobs N] [--binary PATH] [--python PATH]
                                       [--work DIR] [--keep]

Every run draws N new cases (default 600) from a seed (default a fresh one, printed first and
written to WORK/summary.txt); `--seed S` with the same --cases/--kinds replays the run case for case
(case i depends only on the seed and i). The kinds and what each draws are in README.md; the fixed
regression cases (cases/round2.py) run too unless --no-regressions. WORK/failures.md lists every
failing case with its reproduction (the shell lines or the Python snippet that rerun it by hand).
Exit status 1 if any case failed.
"""
import argparse
import json
import os
import random
import sys
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import genlib  # noqa: E402  (registers the gcli, multi and stdio runners)
import run  # noqa: E402
from harness import FAIL_VERDICTS, describe  # noqa: E402

#: kind -> (weight, module under cases/); a case's kind is drawn with these weights
KINDS = {
    "limits": (16, "gen_limits"),            # ulimit -f, prlimit --as, ulimit -n
    "concurrent": (7, "gen_concurrent"),     # runs started together on the same files; log takeovers
    "stdio": (17, "gen_stdio"),              # every binding of stdout/stderr a caller may use
    "pickles": (9, "gen_pickles"),           # bit flips, truncations, insertions of every pickle
    "degenerate": (16, "gen_degenerate"),    # degenerate data sets for infer, features, Python fits
    "params": (17, "gen_params"),            # CLI flags at the edges, repeated, in every order
    "pyapi": (8, "gen_pyapi"),               # the Python front ends' arguments at the edges
    "logs": (8, "gen_logs"),                 # one command's logs and checkpoints fed to another
}


def draw(seed, n, kinds):
    """The n cases of a seed: case i from random.Random(f"{seed}/{i}"), its kind first."""
    import importlib
    mods = {k: importlib.import_module(f"cases.{KINDS[k][1]}") for k in kinds}
    weights = [KINDS[k][0] for k in kinds]
    out = []
    for i in range(n):
        rng = random.Random(f"{seed}/{i}")
        kind = rng.choices(kinds, weights)[0]
        c = mods[kind].draw(rng, f"g{i:04d}-{kind}")
        c.gen_kind = kind
        out.append(c)
    return out


def regressions():
    """The fixed regression cases of the generated passes (ids r2-* and r3-*), kind `regression`."""
    from cases import common, round2  # noqa: F401  (registers the r2- and r3- cases)
    out = [c for c in common.CASES if c.id.startswith(("r2-", "r3-"))]
    for c in out:
        c.gen_kind = "regression"
    return out


def repro_of(c, ctx):
    """The shell lines (or Python snippet) that rerun a case by hand."""
    if getattr(c, "repro", None):
        return ctx.sub(c.repro)
    if c.kind in ("gcli", "py", "multi", "stdio"):
        return genlib.reproduction(c, ctx)
    cmd = c.cmd if isinstance(c.cmd, str) else " ".join(map(str, c.cmd))
    files = [f if isinstance(f, str) else f"{f[0]} as {f[1]}" for f in c.files]
    return (f"# files from {ctx.data}: {', '.join(files)}\n" if files else "") + \
        (f"{ctx.py} - <<'EOF'\n{cmd.strip()}\nEOF" if c.kind == "py" else ctx.sub(cmd))


def kind_table(recs):
    """Counts by verdict (rows) and kind (columns)."""
    kinds = list(dict.fromkeys(r["kind"] for r in recs))
    cnt = Counter((r["verdict"], r["kind"]) for r in recs)
    verdicts = [v for v in run.VERDICTS if any(r["verdict"] == v for r in recs)]
    lines = ["verdict".ljust(21) + "".join(k[:11].rjust(12) for k in kinds) + "total".rjust(8)]
    for v in verdicts:
        lines.append(v.ljust(21) + "".join(str(cnt[(v, k)] or "").rjust(12) for k in kinds)
                     + str(sum(cnt[(v, k)] for k in kinds)).rjust(8))
    lines.append("total".ljust(21) + "".join(str(sum(1 for r in recs if r["kind"] == k)).rjust(12) for k in kinds)
                 + str(len(recs)).rjust(8))
    return "\n".join(lines)


def main():
    """Draw, run, judge and report (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=None, help="replay this seed (default: a fresh one)")
    ap.add_argument("--cases", type=int, default=600, help="generated cases to draw (default 600)")
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds to draw from")
    ap.add_argument("--only", default=None, help="run only the drawn cases whose id matches these globs")
    ap.add_argument("--list", action="store_true", help="print the drawn cases' reproductions, run nothing")
    ap.add_argument("--no-regressions", action="store_true", help="leave out the fixed cases of cases/round2.py")
    ap.add_argument("--binary", default=run.default_binary())
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--work", default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4), "little")
    kinds = [k for k in a.kinds.split(",") if k]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        sys.exit(f"unknown kind(s) {unknown}; the kinds are {', '.join(KINDS)}")
    replay = f"--seed {seed} --cases {a.cases}" + (f" --kinds {a.kinds}" if a.kinds != ",".join(KINDS) else "")
    print(f"seed {seed} (replay: generate.py {replay})", flush=True)

    t0 = time.time()
    if a.list:
        from harness import Ctx
        ctx = Ctx(os.path.abspath(a.binary), a.python, os.path.abspath(a.work or "WORK"))
        for c in run.select(draw(seed, a.cases, kinds), a.only):
            print(f"### {c.id} [{c.gen_kind}] expect {getattr(c, 'expect_text', None) or describe(c.expect)}\n{repro_of(c, ctx)}\n")
        return
    ctx, have, data_before = run.setup_work(a.binary, a.python, a.work)
    cases = run.select(draw(seed, a.cases, kinds) + ([] if a.no_regressions else regressions()), a.only)
    print(f"gradfree hostile generated cases: {len(cases)} | seed {seed} | binary {ctx.g} | work {ctx.work} | "
          f"jobs {a.jobs}", flush=True)
    recs = run.execute(cases, ctx, have, a.jobs, a.keep)
    by_id = {c.id: c for c in cases}
    for r in recs:
        c = by_id[r["id"]]
        r["kind"] = c.gen_kind
        r["repro"] = repro_of(c, ctx)
        if getattr(c, "expect_text", None):
            r["expect"] = c.expect_text
    with open(os.path.join(ctx.work, "cases.jsonl"), "w") as fh:
        for r in recs:
            fh.write(json.dumps({k: r.get(k) for k in ("id", "kind", "cat", "label", "rc", "verdict", "note", "expect", "repro")},
                                default=str) + "\n")
    fails = [r for r in recs if r["verdict"] in FAIL_VERDICTS or r["verdict"] == "wrong-message"]
    with open(os.path.join(ctx.work, "failures.md"), "w") as fh:
        fh.write(f"# Failing cases, seed {seed} ({replay})\n\n")
        for r in fails:
            fh.write(f"## {r['id']} [{r['kind']}] {r['verdict']}\n\nexpected {r['expect']}; got: {run.clean(r['note'])[:600]}\n\n"
                     f"```\n{r['repro']}\n```\n\n")
    head = [f"seed {seed} (replay: python benches/hostile/generate.py {replay})", "", "by kind:", kind_table(recs),
            "", "by category:"]
    failed = run.write_reports(recs, ctx, time.time() - t0, a.jobs, head=head, data_before=data_before)
    print(f"\nseed {seed}; reproductions of the {len(fails)} failing/wrong-message cases in {ctx.work}/failures.md")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
