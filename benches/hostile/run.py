#!/usr/bin/env python3
"""Run the hostile-input cases against the gradfree binary and Python package, judge each one by
its stated expectation, and write WORK/cases.tsv and WORK/summary.txt.

    python benches/hostile/run.py [--binary PATH] [--python PATH] [--work DIR] [--only GLOB] [--jobs N] [--keep]

Exit status 1 if any case is panic, abort, hang, silent-wrong-result, damaged-file,
temp-file-left, unexpected-error or setup-failed; else 0. See README.md.
"""
import argparse
import fnmatch
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import genlib  # noqa: E402,F401  (the runners of the gcli, multi and stdio cases: round2.py has some)
from harness import CATEGORIES, FAIL_VERDICTS, VERDICTS, Ctx, run_case, sha_tree  # noqa: E402


def default_binary():
    """target/ci/gradfree, else target/release/gradfree."""
    for p in ("target/ci/gradfree", "target/release/gradfree"):
        if os.path.exists(os.path.join(REPO, p)):
            return os.path.join(REPO, p)
    return os.path.join(REPO, "target/release/gradfree")


def availability(ctx):
    """Optional capabilities some cases need: fashion-mnist, tmpfs, ro-dir."""
    have = set()
    if os.path.isdir("/usr/share/datasets/fashion-mnist"):
        have.add("fashion-mnist")
    probe = os.path.join(ctx.work, "probe-mnt")
    os.makedirs(probe, exist_ok=True)
    if ctx.root and subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", probe],
                                   capture_output=True).returncode == 0:
        subprocess.run(["umount", probe], capture_output=True)
        have.add("tmpfs")
    os.rmdir(probe)
    if not ctx.root:
        have.add("ro-dir")                  # a 555 folder already refuses the current user
    elif shutil.which("setpriv"):
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "test", "-x", ctx.cases],
                           capture_output=True)
        r2 = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "test", "-x", ctx.g],
                            capture_output=True)
        if r.returncode == 0 and r2.returncode == 0:
            have.add("ro-dir")
    return have


def table(recs):
    """Counts by verdict (rows) and category (columns)."""
    cats = [c for c in CATEGORIES if any(r["cat"] == c for r in recs)]
    cats += sorted({r["cat"] for r in recs} - set(cats))
    cnt = Counter((r["verdict"], r["cat"]) for r in recs)
    tot = Counter(r["verdict"] for r in recs)
    w = max(len(v) for v in VERDICTS) + 2
    lines = ["verdict".ljust(w) + "".join(c[:11].rjust(12) for c in cats) + "total".rjust(8)]
    for v in VERDICTS:
        if tot[v]:
            lines.append(v.ljust(w) + "".join(str(cnt[(v, c)] or "").rjust(12) for c in cats) + str(tot[v]).rjust(8))
    lines.append("total".ljust(w) + "".join(str(sum(1 for r in recs if r["cat"] == c)).rjust(12) for c in cats)
                 + str(len(recs)).rjust(8))
    return "\n".join(lines)


def setup_work(binary, python, work):
    """Check the binary and interpreter, make the work folders and the shared data:
    -> (ctx, available capabilities, sha of the data folder)."""
    g = os.path.abspath(binary)
    if not os.access(g, os.X_OK):
        sys.exit(f"no gradfree binary at {g}: build it with `cargo build --profile ci --workspace`, or pass --binary")
    r = subprocess.run([python, "-c", "import gradfree, numpy, sklearn"], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"{python} cannot import gradfree, numpy and sklearn: {r.stderr.strip()[-300:]}")
    work = os.path.abspath(work) if work else tempfile.mkdtemp(prefix="gradfree-hostile-")
    if os.path.exists(os.path.join(work, "cases")):
        subprocess.run(["chmod", "-R", "u+w", os.path.join(work, "cases")])
        shutil.rmtree(os.path.join(work, "cases"))
    ctx = Ctx(g, python, work)
    for d in (ctx.work, ctx.cases, ctx.logs):
        os.makedirs(d, exist_ok=True)
        if ctx.root:
            os.chmod(d, 0o755)
    r = subprocess.run([python, os.path.join(HERE, "data.py"), ctx.data], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"making the data failed: {r.stderr.strip()[-500:]}")
    return ctx, availability(ctx), sha_tree(ctx.data)


def select(cases, only):
    """The cases whose id or category matches one of the comma-separated globs."""
    if not only:
        return cases
    globs = only.split(",")
    return [c for c in cases if any(fnmatch.fnmatch(c.id, p) or fnmatch.fnmatch(c.cat, p) for p in globs)]


def execute(cases, ctx, have, jobs, keep):
    """Run the cases (`solo` ones alone, after the others), print one line per case; -> records
    in the cases' order."""
    order = {c.id: i for i, c in enumerate(cases)}
    recs = []

    def show(rec):
        recs.append(rec)
        if not keep and rec["verdict"] in ("ok-error", "ok-success", "skipped"):
            d = os.path.join(ctx.cases, rec["id"])           # its log keeps the details
            subprocess.run(["chmod", "-R", "u+w", d], capture_output=True)
            shutil.rmtree(d, ignore_errors=True)
        mark = "  " if rec["verdict"] in ("ok-error", "ok-success", "skipped") else "!!"
        print(f"{mark} {rec['id']:38} {rec['verdict']:19} {rec.get('wall', 0):6.1f}s  {str(rec['note'])[:110]}", flush=True)

    par = [c for c in cases if not c.solo]
    solo = [c for c in cases if c.solo]
    with ThreadPoolExecutor(max(1, jobs)) as ex:
        futs = [ex.submit(run_case, c, ctx, have) for c in par]
        for f in as_completed(futs):
            show(f.result())
    for c in solo:
        show(run_case(c, ctx, have))
    recs.sort(key=lambda r: order[r["id"]])
    return recs


def clean(s):
    """A note on one line (tabs and newlines as spaces)."""
    return str(s).replace("\t", " ").replace("\n", " ")


def write_reports(recs, ctx, wall, jobs, head=(), data_before=None):
    """Write WORK/cases.tsv and WORK/summary.txt (head: lines put first, e.g. the seed) and print
    the summary; -> True if any case failed or the shared data changed."""
    bad_data = data_before is not None and sha_tree(ctx.data) != data_before
    if bad_data:
        print(f"!! the shared data folder {ctx.data} changed during the run", flush=True)
    with open(os.path.join(ctx.work, "cases.tsv"), "w") as fh:
        fh.write("id\tcategory\tcommand\texit_code\tverdict\tnote\n")
        for r in recs:
            fh.write("\t".join([r["id"], r["cat"], r["label"], str(r["rc"]), r["verdict"], clean(r["note"])[:400]]) + "\n")
    fails = [r for r in recs if r["verdict"] in FAIL_VERDICTS]
    wrong = [r for r in recs if r["verdict"] == "wrong-message"]
    summary = [f"gradfree hostile run: {len(recs)} cases in {wall / 60:.1f} min (jobs {jobs})", *head,
               f"binary {ctx.g}", f"python {ctx.py}", f"work {ctx.work}", "", table(recs), ""]
    for title, group in (("failures", fails), ("wrong messages", wrong)):
        if group:
            summary.append(f"{title} ({len(group)}):")
            summary += [f"  {r['id']:38} {r['verdict']:19} {r['label']:12} {clean(r['note'])[:200]}" for r in group]
            summary.append("")
    if bad_data:
        summary.append(f"the shared data folder {ctx.data} changed during the run")
    text = "\n".join(summary)
    with open(os.path.join(ctx.work, "summary.txt"), "w") as fh:
        fh.write(text + "\n")
    print("\n" + text, flush=True)
    return bool(fails) or bad_data


def main():
    """Run the hand-listed cases (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=default_binary())
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--work", default=None, help="work folder (default: a fresh temporary one)")
    ap.add_argument("--only", default=None, help="comma-separated globs of case ids (or categories)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true", help="keep the folders of the cases that passed too")
    a = ap.parse_args()

    t0 = time.time()
    ctx, have, data_before = setup_work(a.binary, a.python, a.work)
    from cases import load
    cases = select(load(), a.only)
    print(f"gradfree hostile cases: {len(cases)} | binary {ctx.g} | python {ctx.py} | work {ctx.work} | "
          f"jobs {a.jobs} | available: {', '.join(sorted(have)) or 'none'}", flush=True)
    recs = execute(cases, ctx, have, a.jobs, a.keep)
    failed = write_reports(recs, ctx, time.time() - t0, a.jobs, data_before=data_before)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
