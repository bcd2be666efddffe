"""The machinery of the hostile-input harness: cases, expectations, running and judging.

A case runs in its own fresh folder under WORK/cases/<id>. The folder is hashed (sha256 of every
file) before and after the command; a file the command does not own (`owns` globs) that changed
or vanished makes the case `damaged-file`, and any `.tmp-` file left behind `temp-file-left`.
Every case states its expected outcome, so the verdict needs no review:

  error(*subs)      the command must fail with a one-line message holding every substring
                    (case-insensitive); Python: a gradfree.errors.* exception (or a listed type)
  success(check=)   exit 0 (Python: no exception); `check(res)` returns None or what is wrong
  either(a, b)      either outcome is right (machine-dependent sizes)
  signal(...)       see run_sig / run_pysig: exit 130, no temporary file, a resumable checkpoint

Verdicts: ok-error, ok-success, panic, abort, hang, silent-wrong-result, wrong-message,
damaged-file, temp-file-left, plus unexpected-error (a refusal where success is right),
setup-failed (the case's own preparation failed) and skipped (a requirement is missing); the
generated cases (genlib.py) add limit-death and two-owners.
"""
import fnmatch
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import time
from dataclasses import dataclass

FAIL_VERDICTS = ("panic", "abort", "limit-death", "hang", "silent-wrong-result", "two-owners", "damaged-file",
                 "temp-file-left", "unexpected-error", "setup-failed")
VERDICTS = ("ok-error", "ok-success", "panic", "abort", "limit-death", "hang", "silent-wrong-result", "two-owners",
            "wrong-message", "damaged-file", "temp-file-left", "unexpected-error", "setup-failed", "skipped")
CATEGORIES = ("sizes", "paths", "data", "checkpoints", "signals", "disk space")
U64 = "18446744073709551615"
O64 = "18446744073709551616"


class Ctx:
    """Where things are: the binary, the Python interpreter, the work and data folders."""

    def __init__(self, g, py, work):
        self.g, self.py, self.work = g, py, work
        self.data = os.path.join(work, "data")
        self.cases = os.path.join(work, "cases")
        self.logs = os.path.join(work, "logs")
        self.root = os.geteuid() == 0
        self.here = os.path.dirname(os.path.abspath(__file__))

    def sub(self, s):
        """Replace the placeholders {G}, {PY}, {DATA}, {HERE}, {NOBODY} in a command."""
        nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups " if self.root else ""
        return (s.replace("{G}", shlex.quote(self.g)).replace("{PY}", shlex.quote(self.py))
                .replace("{DATA}", shlex.quote(self.data)).replace("{HERE}", shlex.quote(self.here))
                .replace("{NOBODY}", nobody))


# ---------------------------------------------------------------- expectations
@dataclass
class Expect:
    kind: str                      # error | success | either | signal
    subs: tuple = ()
    json_ok: bool = False          # a JSON parse position is acceptable (the file is not JSON)
    types: tuple = ()              # Python: accepted exception types besides gradfree.errors.*
    check: object = None
    alts: tuple = ()


class Exact(str):
    """A substring matched with its case (one-letter names such as `X`, `d`, `n`)."""


def error(*subs, json_ok=False, types=()):
    """Each sub is a string, or a tuple of alternatives of which one must appear."""
    return Expect("error", tuple(subs), json_ok, tuple(types))


def success(check=None):
    return Expect("success", check=check)


def either(*alts):
    return Expect("either", alts=tuple(alts))


def describe(e):
    if e.kind == "error":
        return "error(" + ", ".join("|".join(s) if isinstance(s, tuple) else s for s in e.subs) + ")"
    if e.kind == "success":
        return "success" + ("(check)" if e.check else "")
    if e.kind == "either":
        return " | ".join(describe(a) for a in e.alts)
    return e.kind


@dataclass
class Case:
    id: str
    cat: str
    cmd: object                    # str: run by bash; list: argv; kind py/pysig: Python code
    expect: Expect = None
    kind: str = "cli"              # cli | py | sig | pysig
    files: tuple = ()              # data files copied in: name or (name, new name)
    setup: object = None           # setup(ctx, folder)
    owns: tuple = ()               # globs of the files the command may create, change or remove
    timeout: float = 60
    solo: bool = False             # run alone (signals, timing, disk fill)
    label: str = ""
    requires: tuple = ()           # fashion-mnist | root | tmpfs
    sig: dict = None               # signal cases: sig, ready, second, after, rc, allow_tmp, ...


@dataclass
class Res:
    ctx: Ctx
    folder: str
    rc: object
    out: str
    err: str
    secs: float = 0.0

    def run(self, cmd, timeout=120):
        """Run a follow-up command (bash) in the case folder."""
        return subprocess.run(["bash", "-c", self.ctx.sub(cmd)], cwd=self.folder, capture_output=True,
                              text=True, timeout=timeout)


class SetupError(Exception):
    """The case's own preparation failed (verdict setup-failed)."""


# ---------------------------------------------------------------- folder state
def sha_tree(folder, only=None):
    """{relative path: sha256 | 'special' | 'link->target' | 'dir'}; hashes only `only` if given."""
    out = {}
    for dp, dn, fn in os.walk(folder):
        for d in dn:
            p = os.path.join(dp, d)
            if os.path.islink(p):
                out[os.path.relpath(p, folder)] = "link->" + os.readlink(p)
        for f in fn:
            p = os.path.join(dp, f)
            rel = os.path.relpath(p, folder)
            try:
                if os.path.islink(p):
                    out[rel] = "link->" + os.readlink(p)
                    continue
                st = os.stat(p)
                if not stat.S_ISREG(st.st_mode):
                    out[rel] = "special"
                    continue
                if only is not None and rel not in only:
                    out[rel] = "new"
                    continue
                h = hashlib.sha256()
                with open(p, "rb") as fh:
                    for chunk in iter(lambda: fh.read(1 << 20), b""):
                        h.update(chunk)
                out[rel] = h.hexdigest()
            except OSError as e:
                out[rel] = f"err:{e.errno}"
    return out


def tmp_files(folder):
    return sorted(k for k in sha_tree(folder, only=set()) if ".tmp-" in os.path.basename(k))


def damage(before, after, owns):
    bad = []
    for k, v in before.items():
        if after.get(k) != v and not any(fnmatch.fnmatch(k, pat) for pat in owns):
            bad.append(f"{k} {'vanished' if k not in after else 'changed'}")
    return bad


def make_folder(case, ctx):
    d = os.path.join(ctx.cases, case.id)
    if os.path.exists(d):
        subprocess.run(["chmod", "-R", "u+w", d])
        shutil.rmtree(d)
    os.makedirs(d)
    if ctx.root:
        os.chmod(d, 0o777)
    for f in case.files:
        src, dst = (f, os.path.basename(f)) if isinstance(f, str) else f
        shutil.copy(os.path.join(ctx.data, src), os.path.join(d, dst))
    return d


def _tail(s, n=6000):
    return s if len(s) <= n else s[:n // 2] + "\n...[truncated]...\n" + s[-n // 2:]


def _kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _read(path, limit=16 << 20):
    with open(path, "rb") as fh:
        b = fh.read(limit + 1)
    os.unlink(path)
    return b[:limit].decode("utf-8", "replace")


def spawn(argv, folder, timeout, outbase):
    """Run argv in its own session with stdout/stderr in files (so a background child holding
    them cannot stall the harness); on timeout kill its process group.
    -> (rc | None, out, err, secs)"""
    t0 = time.time()
    with open(outbase + ".out", "wb") as fo, open(outbase + ".err", "wb") as fe:
        p = subprocess.Popen(argv, cwd=folder, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(p.pid)
            p.wait()
            rc = None
    secs = time.time() - t0
    _kill_group(p.pid)                       # strays the command left (background writers)
    return rc, _read(outbase + ".out"), _read(outbase + ".err"), secs


# ---------------------------------------------------------------- judging
CLAP_TAIL = re.compile(r"^(Usage:|For more information, try|\s+tip:)")
JSON_POS = re.compile(r"(line \d+ column \d+)")


def message_lines(err):
    """The error message of a CLI run: stderr without warnings and without clap's standard
    usage/help lines; a clap error with indented continuation lines counts as one line."""
    lines = [l.rstrip() for l in err.splitlines() if l.strip()]
    if any(l.startswith("For more information, try") for l in lines):
        msg = []
        for l in lines:
            if l.startswith("Usage:") or l.startswith("For more information, try"):
                break
            if msg and (l.startswith("  ") or l.startswith("\t")):
                msg[-1] += " " + l.strip()
            else:
                msg.append(l)
        return [l for l in msg if not l.startswith(("warning:", "note:"))]
    return [l for l in lines if not l.startswith(("warning:", "note:", "usage: gradfree"))]


def judge_message(msg, e):
    """(verdict, note) for one error message against error(...) expectation e."""
    low = msg.lower()
    found = lambda a: (a in msg) if isinstance(a, Exact) else (a.lower() in low)
    missing = [s for s in e.subs if not any(found(a) for a in (s if isinstance(s, tuple) else (s,)))]
    if JSON_POS.search(msg) and not e.json_ok:
        return "wrong-message", f"JSON position instead of the field: {msg[:300]}"
    if missing:
        return "wrong-message", f"missing {missing}: {msg[:300]}"
    return "ok-error", msg[:300]


def run_check(check, res):
    try:
        return check(res)
    except Exception as x:  # a check that cannot read the output: the output is wrong
        return f"check failed: {type(x).__name__}: {str(x)[:200]}"


def judge_cli(res, e):
    rc, err = res.rc, res.err
    if e.kind == "either":
        alts = [a for a in e.alts if (a.kind == "success") == (rc == 0)]
        if alts:
            v = [judge_cli(res, a) for a in alts]
            return next((x for x in v if x[0].startswith("ok")), v[0])
        return judge_cli(res, e.alts[0])
    if rc == 0:
        if e.kind == "error":
            last = (res.out.strip().splitlines() or [""])[-1]
            return "silent-wrong-result", f"exit 0 where {describe(e)} was expected: {last[:200]}"
        if e.check:
            bad = run_check(e.check, res)
            if bad:
                return "silent-wrong-result", bad
        warn = [l for l in err.splitlines() if l.startswith("warning:")]
        last = (res.out.strip().splitlines() or ["(no stdout)"])[-1]
        return "ok-success", ((" | ".join(warn)[:200] + " :: ") if warn else "") + last[:200]
    msg = message_lines(err)
    if e.kind == "success":
        return "unexpected-error", f"exit {rc}: {' | '.join(msg)[:300]}"
    if len(msg) != 1 or not msg[0].startswith("error:"):
        return "wrong-message", f"exit {rc}, {len(msg)} message lines: {' | '.join(msg)[:300]}"
    return judge_message(msg[0], e)


def crash(rc, out, err):
    """panic / abort / hang verdicts common to every kind of case, or None."""
    errl = [l for l in err.splitlines() if l.strip()]
    if rc is None:
        return "hang", "timed out"
    if "panicked" in err or rc == 101 or "PanicException" in err or "PanicException" in out:
        line = next((l for l in errl if "panicked" in l or "Panic" in l), (errl or [""])[0])
        return "panic", line[:300]
    if rc < 0 or rc in (134, 135, 137, 139, 152, 153) or "memory allocation" in err:
        return "abort", f"signal/exit {rc}: {' | '.join(errl[-2:])[:300]}"
    return None


# ---------------------------------------------------------------- runners
def prepare(case, ctx):
    folder = make_folder(case, ctx)
    if case.setup:
        case.setup(ctx, folder)
    return folder


def finish(case, ctx, folder, before, res, verdict, note):
    after = sha_tree(folder, only=set(before))
    bad = damage(before, after, case.owns)
    tmps = tmp_files(folder)
    if verdict not in ("hang", "panic", "abort"):
        if bad:
            verdict, note = "damaged-file", f"{bad}; " + note
        elif tmps and not (case.sig or {}).get("allow_tmp"):
            verdict, note = "temp-file-left", f"{tmps}; " + note
    rec = dict(id=case.id, cat=case.cat, label=case.label, rc=res.rc, secs=round(res.secs, 2),
               verdict=verdict, note=note, expect=describe(case.expect) if case.expect else "signal",
               cmd=case.cmd if isinstance(case.cmd, str) else " ".join(map(str, case.cmd)),
               stdout=_tail(res.out), stderr=_tail(res.err), files=sorted(after))
    return rec


def argv_of(case, ctx):
    if isinstance(case.cmd, str):
        return ["bash", "-c", ctx.sub(case.cmd)]
    return [ctx.sub(a) if isinstance(a, str) else str(a) for a in case.cmd]


def run_cli(case, ctx):
    folder = prepare(case, ctx)
    before = sha_tree(folder)
    rc, out, err, secs = spawn(argv_of(case, ctx), folder, case.timeout, os.path.join(ctx.logs, case.id))
    res = Res(ctx, folder, rc, out, err, secs)
    v = crash(rc, out, err) or judge_cli(res, case.expect)
    return finish(case, ctx, folder, before, res, *v)


PY_PRE = r'''import sys, json, math, warnings
import numpy as np
import gradfree
from gradfree import errors as E
_R = np.load(%(data)r + "/real.npz")
def bc3(): return _R["bc3X"].copy(), _R["bcy"].copy()
def bc(): return _R["bcX"].copy(), _R["bcy"].copy()
def digits(n=None):
    X, y = _R["dX"].copy(), _R["dy"].copy()
    return (X, y) if n is None else (X[:n], y[:n])
def iris(): return _R["iX"].copy(), _R["iy"].copy()
def petal(): return _R["iX"][:, 2:3].copy()
def _report(e):
    t = type(e)
    print("EXC", t.__module__ + "." + t.__qualname__, "|", str(e).replace("\n", " ")[:800], flush=True)
'''


def py_body(code, ctx):
    body = "\n".join("    " + l for l in code.strip().splitlines())
    return (PY_PRE % {"data": ctx.data} + "try:\n" + body +
            "\n    print('OKR', repr(R)[:2000], flush=True)\nexcept BaseException as e:\n    _report(e)\n")


def exc_ok(typ, e):
    if typ.startswith("gradfree."):
        return True
    return any(typ == t or typ.endswith("." + t) for t in e.types)


def judge_py(res, e):
    lines = res.out.splitlines()
    exc = next((l for l in lines if l.startswith("EXC ")), None)
    okr = next((l for l in lines if l.startswith("OKR ")), None)
    if e.kind == "either":
        alts = [a for a in e.alts if (a.kind == "success") == (okr is not None)]
        v = [judge_py(res, a) for a in (alts or e.alts[:1])]
        return next((x for x in v if x[0].startswith("ok")), v[0])
    if res.rc != 0 and not exc and not okr:
        errl = res.err.strip().splitlines()
        return "abort", f"interpreter died rc={res.rc}: {' | '.join(errl[-2:])[:300]}"
    if exc:
        typ, _, msg = exc[4:].partition(" | ")
        if e.kind == "success":
            return "unexpected-error", exc[4:300]
        if not exc_ok(typ, e):
            return "wrong-message", f"raised {typ} (not a gradfree error): {msg[:250]}"
        v, note = judge_message(msg, e)
        return v, f"{typ.split('.')[-1]}: {note}"
    if okr:
        r = okr[4:]
        if e.kind == "error":
            return "silent-wrong-result", f"no exception where {describe(e)} was expected: R = {r[:200]}"
        res.r = r
        if e.check:
            bad = run_check(e.check, res)
            if bad:
                return "silent-wrong-result", bad
        warn = [l.strip() for l in res.err.splitlines() if "Warning" in l]
        return "ok-success", ((" | ".join(warn)[:150] + " :: ") if warn else "") + r[:200]
    return "abort", f"no result, rc={res.rc}"


def run_py(case, ctx):
    folder = prepare(case, ctx)
    with open(os.path.join(folder, "case.py"), "w") as fh:
        fh.write(py_body(case.cmd, ctx))
    case.owns = tuple(case.owns) + ("case.py", "__pycache__*")
    before = sha_tree(folder)
    rc, out, err, secs = spawn([ctx.py, "-W", "default", "case.py"], folder, case.timeout,
                               os.path.join(ctx.logs, case.id))
    res = Res(ctx, folder, rc, out, err, secs)
    v = crash(rc, out, err) or judge_py(res, case.expect)
    return finish(case, ctx, folder, before, res, *v)


# ---------------------------------------------------------------- signal cases
def has_tmp(minsize=0):
    """Ready when a temporary file of at least minsize bytes exists."""
    def r(folder, t):
        for n in os.listdir(folder):
            if ".tmp-" in n:
                try:
                    if os.path.getsize(os.path.join(folder, n)) >= minsize:
                        return True
                except OSError:
                    pass
        return False
    return r


def exists_then(name, delay=0.3):
    """Ready `delay` seconds after `name` appears."""
    st = {}

    def r(folder, t):
        if os.path.exists(os.path.join(folder, name)):
            st.setdefault("t", t)
            return t - st["t"] >= delay
        return False
    return r


def after_secs(s):
    return lambda folder, t: t >= s


def run_sig(case, ctx):
    """Start the command, wait until ready(folder, elapsed), send the signal (and `second` 50 ms
    later), then expect exit `rc` (130), no .tmp- file, no foreign file changed, and
    after(res) -> None or (verdict, note) (e.g. the checkpoint resumes to the uninterrupted run)."""
    s = case.sig
    folder = prepare(case, ctx)
    before = sha_tree(folder)
    p = subprocess.Popen(["bash", "-c", "exec " + ctx.sub(case.cmd)], cwd=folder, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
    t0 = time.time()
    fired = None
    while time.time() - t0 < s.get("wait", 60):
        if p.poll() is not None:
            break
        if s["ready"](folder, time.time() - t0):
            p.send_signal(s["sig"])
            fired = time.time() - t0
            if s.get("second"):
                time.sleep(0.05)
                p.send_signal(s["second"])
            break
        time.sleep(0.02)
    never_ready = fired is None and p.poll() is None
    if never_ready:
        _kill_group(p.pid)
    try:
        out, err = p.communicate(timeout=case.timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        _kill_group(p.pid)
        out, err = p.communicate()
        rc = None
    _kill_group(p.pid)
    res = Res(ctx, folder, rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
              time.time() - t0)
    errs = " | ".join(l for l in res.err.splitlines() if l.strip())[-200:]
    note = (f"signal {s['sig'].name} after {fired:.1f}s" if fired is not None
            else "signal NOT sent") + f"; stderr: {errs}"
    exp_rc = s.get("rc", 130)
    tmps = tmp_files(folder)
    if never_ready:
        v = ("silent-wrong-result", f"not ready after {s.get('wait', 60)} s (no checkpoint/progress); " + note)
    elif fired is None:
        v = ("setup-failed", "the command ended before the signal; " + note)
    elif rc is None:
        v = ("hang", f"still running {case.timeout} s after the signal; " + note)
    elif rc == 0:
        v = ("silent-wrong-result", "exit 0: the run went on to the end despite the signal; " + note)
    elif rc != exp_rc:
        v = crash(rc, res.out, res.err) or ("wrong-message", f"exit {rc}, expected {exp_rc}; " + note)
    elif "panicked" in res.err:
        v = crash(101, res.out, res.err)
    elif tmps and not s.get("allow_tmp"):
        v = ("temp-file-left", f"{tmps}; " + note)
    else:
        v = ("ok-success", note)
        if s.get("after"):
            r = s["after"](res)
            if r:
                v = (r[0], note + "; " + r[1])
    return finish(case, ctx, folder, before, res, *v)


def run_pysig(case, ctx):
    """Python code that prints READY then works; after `delay` s send the signal and expect
    KeyboardInterrupt (SIGINT) or death by SIGTERM within `limit` seconds."""
    s = case.sig
    folder = prepare(case, ctx)
    code = (PY_PRE % {"data": ctx.data} + "print('READY', flush=True)\n" + case.cmd.strip() +
            "\nprint('DONE', flush=True)\n")
    with open(os.path.join(folder, "case.py"), "w") as fh:
        fh.write(code)
    case.owns = tuple(case.owns) + ("case.py",)
    before = sha_tree(folder)
    p = subprocess.Popen([ctx.py, "case.py"], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    t0 = time.time()
    p.stdout.readline()
    time.sleep(s.get("delay", 1.0))
    p.send_signal(s["sig"])
    ts = time.time()
    try:
        out, err = p.communicate(timeout=s.get("limit", 30))
        rc, dt = p.returncode, time.time() - ts
    except subprocess.TimeoutExpired:
        _kill_group(p.pid)
        out, err = p.communicate()
        rc, dt = None, None
    _kill_group(p.pid)
    res = Res(ctx, folder, rc, out.decode(), err.decode(), time.time() - t0)
    last = (res.err.strip().splitlines() or [""])[-1][:200]
    if rc is None:
        v = ("hang", f"still running {s.get('limit', 30)} s after {s['sig'].name}")
    elif "PanicException" in res.err or "panicked" in res.err:
        v = ("panic", last)
    elif "DONE" in res.out:
        v = ("hang", f"ran to completion ignoring {s['sig'].name} (rc {rc}, {dt:.1f} s)")
    elif s["sig"] == signal.SIGINT and "KeyboardInterrupt" in res.err:
        v = ("ok-success", f"KeyboardInterrupt {dt:.2f} s after SIGINT")
    elif s["sig"] == signal.SIGTERM and rc in (-15, 143):
        v = ("ok-success", f"terminated {dt:.2f} s after SIGTERM")
    elif "gradfree.errors" in res.err:
        v = ("ok-error", f"refused before the signal: {last}")
    else:
        v = ("wrong-message", f"rc {rc} after {dt:.2f} s: {last}")
    if v[0] == "ok-error" and not s.get("refusal_ok"):
        v = ("setup-failed", v[1])
    return finish(case, ctx, folder, before, res, *v)


RUNNERS = {"cli": run_cli, "py": run_py, "sig": run_sig, "pysig": run_pysig}


def unmount_under(folder):
    """Unmount what a case mounted inside its folder (tmpfs for the disk-space cases)."""
    try:
        mounts = [l.split()[1] for l in open("/proc/mounts")]
    except OSError:
        return
    for m in sorted((m for m in mounts if m.startswith(folder + "/")), reverse=True):
        subprocess.run(["umount", "-l", m], capture_output=True)


def run_case(case, ctx, available):
    missing = [r for r in case.requires if r not in available]
    if missing:
        return dict(id=case.id, cat=case.cat, label=case.label, rc=None, secs=0, verdict="skipped",
                    note=f"needs {', '.join(missing)}", expect="")
    t0 = time.time()
    try:
        rec = RUNNERS[case.kind](case, ctx)
    except SetupError as x:
        rec = dict(id=case.id, cat=case.cat, label=case.label, rc=None, secs=0,
                   verdict="setup-failed", note=str(x)[:300], expect=describe(case.expect) if case.expect else "")
    except Exception as x:  # the harness's own failure is reported as the case's
        rec = dict(id=case.id, cat=case.cat, label=case.label, rc=None, secs=0,
                   verdict="setup-failed", note=f"harness: {type(x).__name__}: {str(x)[:250]}", expect="")
    finally:
        unmount_under(os.path.join(ctx.cases, case.id))
    rec["wall"] = round(time.time() - t0, 2)
    with open(os.path.join(ctx.logs, case.id + ".json"), "w") as fh:
        json.dump(rec, fh, indent=1, default=str)
    return rec
