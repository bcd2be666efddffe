"""Registry and helpers shared by the case modules.

cli(id, cat, cmd, expect, ...)   a command line: a list (argv, no shell) or a bash string; {G} is
                                 the gradfree binary, {PY} the Python interpreter, {DATA} the data
                                 folder, {NOBODY} `setpriv` to uid 65534 when run as root
py(id, cat, code, expect, ...)   Python code run in its own interpreter; its last statement sets R
sig(id, cmd, ...)                a command interrupted by a signal (runs alone)
pysig(id, code, ...)             Python code interrupted by a signal (runs alone)
"""
import json
import os
import re
import signal as S
import subprocess

from harness import (Case, after_secs, either, error, Exact, exists_then, has_tmp, O64, SetupError,
                     success, U64)

CASES = []
IDS = set()

__all__ = ["CASES", "cli", "py", "sig", "pysig", "error", "success", "either", "sh", "seq", "edit",
           "write", "U64", "O64", "has_tmp", "exists_then", "after_secs", "S", "warns", "jq",
           "finite_json", "py_is", "differs_from", "all_of", "any_of", "no_file", "has_file", "json_out",
           "label_of", "D", "F", "Exact", "SYM"]

D = [("bc3.csv", "d.csv")]                 # breast cancer (3 features + y) as d.csv
F = [("digits_feat.csv", "d.csv")]         # digits (16 pixels + y) as d.csv


def SYM(name):
    """A one-letter parameter named in a message: `X:`, `X =`, `X[`, ... (case-sensitive)."""
    return tuple(Exact(name + t) for t in (":", " =", "[", " has", " must", " is")) + (Exact(f"`{name}`"),)


def label_of(cmd):
    s = cmd if isinstance(cmd, str) else " ".join(map(str, cmd))
    m = re.search(r"\{G\}\s+(\S+)", s)
    return m.group(1) if m else s.split()[0]


def _add(case):
    if case.id in IDS:
        raise ValueError(f"duplicate case id {case.id}")
    IDS.add(case.id)
    CASES.append(case)
    return case


def cli(id, cat, cmd, expect, *, files=(), setup=None, owns=(), timeout=60, solo=False, label=None,
        requires=()):
    return _add(Case(id, cat, cmd, expect, "cli", tuple(files), setup, tuple(owns), timeout, solo,
                     label or label_of(cmd), tuple(requires)))


def py(id, cat, code, expect, *, label="python", timeout=60, setup=None, files=(), owns=(), solo=False,
       requires=()):
    return _add(Case(id, cat, code, expect, "py", tuple(files), setup, tuple(owns), timeout, solo,
                     label, tuple(requires)))


def sig(id, cmd, *, signal, ready, second=None, after=None, rc=130, allow_tmp=False, files=(),
        setup=None, owns=(), timeout=60, wait=60, requires=(), cat="signals"):
    return _add(Case(id, cat, cmd, None, "sig", tuple(files), setup, tuple(owns), timeout, True,
                     label_of(cmd), tuple(requires),
                     dict(sig=signal, ready=ready, second=second, after=after, rc=rc,
                          allow_tmp=allow_tmp, wait=wait)))


def pysig(id, code, *, signal, delay=1.0, limit=30, refusal_ok=False):
    return _add(Case(id, "signals", code, None, "pysig", (), None, (), limit + 30, True, "python",
                     (), dict(sig=signal, delay=delay, limit=limit, refusal_ok=refusal_ok)))


# ---------------------------------------------------------------- setup steps: step(ctx, folder)
def sh(cmd):
    """Setup step: run a bash command (placeholders allowed) in the folder; it must succeed."""
    def st(ctx, folder):
        r = subprocess.run(["bash", "-c", ctx.sub(cmd)], cwd=folder, capture_output=True, text=True,
                           timeout=300)
        if r.returncode != 0:
            raise SetupError(f"`{cmd[:80]}` exited {r.returncode}: {r.stderr.strip()[-200:]}")
    return st


def seq(*steps):
    def st(ctx, folder):
        for s in steps:
            s(ctx, folder)
    return st


def write(name, content, mode="w"):
    def st(ctx, folder):
        with open(os.path.join(folder, name), mode) as fh:
            fh.write(content() if callable(content) else content)
    return st


def edit(path, fn, checksum=True):
    """Setup step: edit a JSON checkpoint with fn(doc) and store it with a recomputed checksum."""
    from ckptsum import dump, resum

    def st(ctx, folder):
        p = os.path.join(folder, path)
        with open(p) as fh:
            d = json.load(fh)
        r = fn(d)
        d = r if isinstance(r, dict) else d
        if checksum:
            resum(d)
        with open(p, "w") as fh:
            fh.write(dump(d))
    return st


# ---------------------------------------------------------------- success checks
def warns(*subs):
    """A `warning:` line on stderr (Python: a *Warning) holding every substring."""
    def c(res):
        lines = [l for l in res.err.splitlines() if l.startswith("warning:") or "Warning" in l]
        if any(all(s.lower() in l.lower() for s in subs) for l in lines):
            return None
        return f"no warning {list(subs)} (stderr: {' | '.join(lines)[:150] or 'none'})"
    return c


def json_out(res):
    return json.loads(res.out)


def jq(pred, what):
    """pred(stdout as JSON) must hold."""
    def c(res):
        d = json_out(res)
        return None if pred(d) else f"{what}: {res.out[:200]}"
    return c


def finite_json(res):
    """--json output without NaN/inf and without zero-width intervals: `conf_int` (mle, random
    scaling) or `bands` (the chain methods' process bands), and no `process_sd` of 0 where the
    band has a width (a spread computed as 0)."""
    s = res.out
    if "NaN" in s or "Infinity" in s:
        return f"NaN/inf in the JSON: {s[:200]}"
    d = json.loads(s)
    if not isinstance(d, dict):
        return None
    for key in ("conf_int", "bands"):
        ci = d.get(key)
        if ci and any(abs(b - a) == 0 for a, b in ci):
            return f"zero-width {key}: {s[:200]}"
    sd, bands = d.get("process_sd"), d.get("bands")
    if sd and bands:
        bad = [j for j, (v, (a, b)) in enumerate(zip(sd, bands)) if v == 0 and b != a]
        if bad:
            return f"process_sd 0 in coordinate(s) {bad} whose band has a width: {[bands[j] for j in bad]}"
    return None


def py_is(expected):
    """Python: repr(R) must equal `expected`."""
    def c(res):
        return None if res.r == expected else f"R = {res.r[:200]}, expected {expected}"
    return c


def _norm(s):
    s = re.sub(r"[-+]?\d+(\.\d+)?(e[-+]?\d+)?\s*(s|ms|GB/s)\b", "T", s)
    return re.sub(r"\(this session [^)]*\)", "", s)


def differs_from(base_cmd):
    """The output must differ from the run without the argument under test (it was applied)."""
    def c(res):
        b = res.run(base_cmd)
        if b.returncode != 0:
            return f"the baseline `{base_cmd}` failed: {b.stderr.strip()[:150]}"
        if _norm(b.stdout) == _norm(res.out):
            return "output identical with and without the argument (ignored)"
        return None
    return c


def any_of(*checks):
    """One of the checks must hold."""
    def c(res):
        bad = [ch(res) for ch in checks]
        return None if any(b is None for b in bad) else " and ".join(bad)
    return c


def all_of(*checks):
    def c(res):
        for ch in checks:
            bad = ch(res)
            if bad:
                return bad
        return None
    return c


def no_file(name):
    def c(res):
        return f"{name} exists" if os.path.exists(os.path.join(res.folder, name)) else None
    return c


def has_file(name):
    def c(res):
        return None if os.path.exists(os.path.join(res.folder, name)) else f"{name} missing"
    return c
