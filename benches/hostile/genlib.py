"""The machinery of the generated cases (generate.py, cases/gen_*.py) on top of harness.py.

A generated case is a harness.Case with two more attributes: `repro` (how to run it again by hand,
rendered by `reproduction`) and, for the resource-limit cases, `limit` (the limit it runs under).
Three more kinds of case than harness.py's:

  gcli    a command line, as `cli`, run under a resource limit or not; a death by a signal or an
          allocation failure under a limit is `limit-death`
  multi   several command lines started together in one folder (concurrent runs on the same
          files), judged by a function of all their results: `two-owners` when more than one run
          wrote a file they shared, or a file mixes runs
  stdio   one command line with its standard output and error bound as a caller would bind them
          (subprocess.DEVNULL, /dev/null, a file, a pipe read to the end or closed at once,
          `>&-`, /dev/full), judged by what the caller should get

Setup steps carry their shell form (`Step.text`), so a failure's reproduction is complete.
"""
import os
import re
import shlex
import subprocess
import time

import harness
from harness import (Case, Res, crash, finish, judge_message, message_lines, prepare, sha_tree, spawn,
                     _kill_group, _read)

PYPATH = os.environ.get("PYTHONPATH", "")


# ---------------------------------------------------------------- setup steps with a shell form
class Step:
    """A setup step: fn(ctx, folder), and `text`, the shell lines that do the same."""

    def __init__(self, fn, text):
        self.fn, self.text = fn, text

    def __call__(self, ctx, folder):
        self.fn(ctx, folder)


def sh(cmd, timeout=300):
    """Run a bash command (placeholders allowed) in the case folder; it must succeed."""
    def fn(ctx, folder):
        r = subprocess.run(["bash", "-c", ctx.sub(cmd)], cwd=folder, capture_output=True, text=True,
                           timeout=timeout)
        if r.returncode != 0:
            raise harness.SetupError(f"`{cmd[:100]}` exited {r.returncode}: {r.stderr.strip()[-200:]}")
    return Step(fn, cmd)


def text_file(name, content, mode="w"):
    """Write a file (text or bytes) into the case folder."""
    def fn(ctx, folder):
        with open(os.path.join(folder, name), mode) as fh:
            fh.write(content)
    if isinstance(content, bytes):
        text = f"{{PY}} -c {shlex.quote('open(' + repr(name) + ', ' + repr(mode) + ').write(' + repr(content) + ')')}"
    elif "\n" in content.rstrip("\n") or "'" in content:
        text = f"cat > {shlex.quote(name)} <<'EOF'\n{content.rstrip()}\nEOF"
    else:
        text = f"printf '%s' {shlex.quote(content)} > {shlex.quote(name)}"
    return Step(fn, text)


def steps(*ss):
    """Several setup steps in order (None entries skipped), their shell forms joined."""
    ss = [s for s in ss if s is not None]
    return Step(lambda ctx, folder: [s(ctx, folder) for s in ss], "\n".join(s.text for s in ss))


# ---------------------------------------------------------------- making cases
def _case(cid, cat, cmd, expect, kind, setup, owns, timeout, label, extra=None, solo=False):
    c = Case(cid, cat, cmd, expect, kind, (), setup, tuple(owns), timeout, solo, label, ())
    c.sig = extra
    return c


def gcli(cid, cat, cmd, expect, *, setup=None, owns=(), timeout=30, limit=None, label=None):
    """A command line (bash string; {G} the binary); `limit` names the resource limit it runs under."""
    c = _case(cid, cat, cmd, expect, "gcli", setup, owns, timeout, label or _label(cmd))
    c.limit = limit
    return c


def gpy(cid, cat, code, expect, *, setup=None, owns=(), timeout=40, label="python", limit=None):
    """Python code (its last statement sets R), run in its own interpreter by harness.run_py."""
    c = _case(cid, cat, code, expect, "py", setup, owns, timeout, label)
    c.limit = limit
    return c


def gpy_limited(cid, cat, code, expect, prefix, *, setup=None, owns=(), timeout=40, label="python", limit=None):
    """Python code run under a shell prefix (e.g. `prlimit --as=N`): kind gcli running case.py."""
    step = text_file("case.py", code)
    c = gcli(cid, cat, f"{prefix} {{PY}} case.py", expect, setup=steps(setup, step) if setup else step,
             owns=tuple(owns) + ("case.py",), timeout=timeout, limit=limit, label=label)
    c.pyjudge, c.pycode = True, code
    return c


def gmulti(cid, cat, cmds, judge, *, setup=None, owns=(), timeout=60, delays=None, label=None):
    """Command lines started together; judge(results, folder, ctx) -> (verdict, note), where each
    result has rc, out, err, t0, t1 (seconds since the first start)."""
    c = _case(cid, cat, list(cmds), None, "multi", setup, owns, timeout, label or _label(cmds[0]),
              dict(judge=judge, delays=delays or [0.0] * len(cmds)))
    c.expect_text = "one run owns each shared file, the others refuse naming it"
    return c


def gstdio(cid, args, out, err, *, setup=None, owns=(), timeout=30, file_output=False):
    """`{G} args` with standard output bound as `out` and standard error as `err` (see STDOUT)."""
    c = _case(cid, "stdio", args, None, "stdio", setup, tuple(owns) + ("out.txt",), timeout, _label(args),
              dict(out=out, err=err, file_output=file_output))
    c.expect_text = ("error(standard output)" if out in ("closed", "full") else "quiet exit" if out == "pipe-closed"
                     else "success, the output whole where kept")
    return c


def _label(cmd):
    m = re.search(r"\{G\}\s+(\S+)", cmd if isinstance(cmd, str) else " ".join(cmd))
    return m.group(1) if m else "python"


# ---------------------------------------------------------------- reproduction
def reproduction(case, ctx):
    """The shell lines that rerun a case by hand in an empty folder."""
    lines = ['cd "$(mktemp -d)"']
    for f in case.files:
        src, dst = (f, os.path.basename(f)) if isinstance(f, str) else f
        lines.append(f"cp {shlex.quote(os.path.join(ctx.data, src))} {shlex.quote(dst)}   # made by benches/hostile/data.py")
    if case.setup is not None and getattr(case.setup, "text", None):
        lines.append(ctx.sub(case.setup.text))
    if case.kind == "gcli":
        lines.append(ctx.sub(case.cmd))
    elif case.kind == "py":
        lines.append(f"{shlex.quote(ctx.py)} - <<'EOF'\n{case.cmd.strip()}\nprint('R =', repr(R)[:300])\nEOF")
    elif case.kind == "multi":
        lines += [f"(sleep {d}; {ctx.sub(c)}) &" if d else f"{ctx.sub(c)} &" for c, d in zip(case.cmd, case.sig["delays"])]
        lines.append("wait")
    elif case.kind == "stdio":
        lines.append(stdio_command(case, ctx))
    text = "\n".join(lines)
    if PYPATH and ctx.py in text:
        text = text.replace('cd "$(mktemp -d)"', f'cd "$(mktemp -d)"\nexport PYTHONPATH={shlex.quote(PYPATH)}', 1)
    return text


# ---------------------------------------------------------------- runners
LIMIT_SIGNALS = {-25: "SIGXFSZ", -6: "SIGABRT", -11: "SIGSEGV", -7: "SIGBUS", -9: "SIGKILL", 153: "SIGXFSZ",
                 134: "SIGABRT", 139: "SIGSEGV", 135: "SIGBUS", 137: "SIGKILL"}


def run_gcli(case, ctx):
    """harness.run_cli (or run_py's judging for gpy_limited), with `limit-death` for a crash under a limit."""
    if getattr(case, "pyjudge", False):
        rec = _run_py_under(case, ctx)
    else:
        rec = harness.run_cli(case, ctx)
    if case.limit and (rec["verdict"] == "abort" or "memory allocation" in rec.get("stderr", "")):
        sig = LIMIT_SIGNALS.get(rec["rc"], f"exit {rec['rc']}")
        rec["verdict"] = "limit-death"
        rec["note"] = f"{sig} under {case.limit}: {rec['note']}"
    return rec


def _run_py_under(case, ctx):
    folder = prepare(case, ctx)
    with open(os.path.join(folder, "case.py"), "w") as fh:
        fh.write(harness.py_body(case.pycode, ctx))
    before = sha_tree(folder)
    rc, out, err, secs = spawn(harness.argv_of(case, ctx), folder, case.timeout, os.path.join(ctx.logs, case.id))
    res = Res(ctx, folder, rc, out, err, secs)
    v = crash(rc, out, err) or harness.judge_py(res, case.expect)
    return finish(case, ctx, folder, before, res, *v)


class Run:
    """One process of a multi case: rc (None if killed at the timeout), out, err, t0, t1."""

    def __init__(self, i, cmd):
        self.i, self.cmd = i, cmd
        self.rc = self.t1 = None
        self.out = self.err = ""
        self.t0 = 0.0

    def message(self):
        return message_lines(self.err)


def run_multi(case, ctx):
    """Runner of a multi case: start every command (after its delay), wait for all, judge."""
    folder = prepare(case, ctx)
    before = sha_tree(folder)
    base = os.path.join(ctx.logs, case.id)
    runs, procs, files = [Run(i, c) for i, c in enumerate(case.cmd)], [], []
    start = time.time()
    order = sorted(range(len(runs)), key=lambda i: case.sig["delays"][i])
    for i in order:
        wait = case.sig["delays"][i] - (time.time() - start)
        if wait > 0:
            time.sleep(wait)
        fo, fe = open(f"{base}.{i}.out", "wb"), open(f"{base}.{i}.err", "wb")
        files += [fo, fe]
        runs[i].t0 = time.time() - start
        procs.append((i, subprocess.Popen(["bash", "-c", "exec " + ctx.sub(runs[i].cmd)], cwd=folder, stdout=fo,
                                          stderr=fe, stdin=subprocess.DEVNULL, start_new_session=True)))
    live = dict(procs)
    while live and time.time() - start < case.timeout:
        for i, p in list(live.items()):
            if p.poll() is not None:
                runs[i].rc, runs[i].t1 = p.returncode, time.time() - start
                del live[i]
        time.sleep(0.01)
    for i, p in procs:
        _kill_group(p.pid)
        p.wait()
    for f in files:
        f.close()
    for r in runs:
        r.out, r.err = _read(f"{base}.{r.i}.out"), _read(f"{base}.{r.i}.err")
    hung = [r.i for r in runs if r.rc is None]
    res = Res(ctx, folder, ",".join(str(r.rc) for r in runs),
              "\n".join(f"--- run {r.i} stdout:\n{r.out}" for r in runs),
              "\n".join(f"--- run {r.i} (exit {r.rc}, {r.t0:.2f}-{r.t1 if r.t1 is None else round(r.t1, 2)} s):\n{r.err}"
                        for r in runs), time.time() - start)
    v = None
    if hung:
        v = ("hang", f"run(s) {hung} still running after {case.timeout} s")
    for r in runs:
        v = v or (lambda c: (c[0], f"run {r.i}: {c[1]}") if c else None)(crash(r.rc, r.out, r.err))
    if v is None:
        try:
            v = case.sig["judge"](runs, folder, ctx)
        except Exception as x:  # a judge that cannot read the files: the files are wrong
            v = ("silent-wrong-result", f"judge failed: {type(x).__name__}: {str(x)[:200]}")
    return finish(case, ctx, folder, before, res, *v)


def overlapped(runs):
    """Every run started before every other had ended."""
    return all(a.t0 < (b.t1 if b.t1 is not None else 1e9) for a in runs for b in runs if a is not b)


def exclusive(paths, owner_check=None):
    """Judge of runs started together on shared `paths`: exactly one run exits 0 (owns them), each
    other one refuses with a one-line `error:` naming a shared path; owner_check(runs, winner,
    folder, ctx) -> None or what is wrong with the files (they must hold the winner's run alone)."""
    names = tuple(dict.fromkeys(list(paths) + [os.path.basename(p) for p in paths]))

    def judge(runs, folder, ctx):
        ok = [r for r in runs if r.rc == 0]
        if len(ok) > 1:
            if not overlapped(ok):
                return "setup-failed", f"runs {[r.i for r in ok]} did not overlap in time (no race)"
            held = [r.i for r in ok if owner_check is None or owner_check(runs, r, folder, ctx) is None]
            state = (f"the files hold run {held[0]}'s data, the other runs' is lost" if len(held) == 1 else
                     "the files hold no single run's data (mixed or damaged)" if not held else
                     f"the files are consistent with runs {held}: all but one run's data is lost")
            return "two-owners", f"runs {[r.i for r in ok]} all exited 0 on {list(paths)}; {state}"
        if not ok:
            return "unexpected-error", "every run refused: " + " || ".join(" | ".join(r.message())[:150] for r in runs)
        notes = []
        for r in runs:
            if r.rc == 0:
                continue
            msg = r.message()
            if len(msg) != 1 or not msg[0].startswith("error:"):
                return "wrong-message", f"run {r.i} exit {r.rc}, {len(msg)} message lines: {' | '.join(msg)[:250]}"
            v, note = judge_message(msg[0], harness.error(names))
            if v != "ok-error":
                return v, f"run {r.i}: {note}"
            notes.append(msg[0][:150])
        bad = owner_check(runs, ok[0], folder, ctx) if owner_check else None
        if bad:
            return "silent-wrong-result", f"run {ok[0].i} owns {list(paths)} but {bad}"
        return "ok-error", f"run {ok[0].i} owns; " + " || ".join(notes)
    return judge


# ---------------------------------------------------------------- standard streams
# how a caller binds standard output: a shell redirection (or a pipe, or a Python caller)
STDOUT = {
    "devnull": None,                  # subprocess.run(..., stdout=subprocess.DEVNULL): /dev/null read-write
    "null-w": ">/dev/null",
    "null-rw": "1<>/dev/null",
    "file": ">out.txt",
    "append": ">>out.txt",
    "pipe-read": "| cat >out.txt",    # a pipe read to the end
    "pipe-closed": "| true",          # a pipe whose reader exits at once
    "closed": ">&-",
    "full": ">/dev/full",
}
STDERR = {"capture": "", "closed": "2>&-", "full": "2>/dev/full", "null": "2>/dev/null", "null-rw": "2<>/dev/null",
          "merged": "2>&1"}
KEEPS = ("file", "append", "pipe-read")          # the caller keeps the output: it must be whole


def stdio_command(case, ctx):
    """The bash command line of a stdio case: `{G} args` with its streams bound."""
    s = case.sig
    args, o, e = ctx.sub(case.cmd), s["out"], STDERR[s["err"]]
    if o == "devnull":
        code = ("import subprocess, sys; r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL"
                + {"capture": "", "closed": ", stderr=subprocess.DEVNULL", "full": ", stderr=open('/dev/full', 'w')",
                   "null": ", stderr=subprocess.DEVNULL", "null-rw": ", stderr=subprocess.DEVNULL",
                   "merged": ", stderr=subprocess.STDOUT"}[s["err"]]
                + ").returncode; sys.exit(128 - r if r < 0 else r)")
        return f"{shlex.quote(ctx.py)} -c {shlex.quote(code)} {args}"
    if o.startswith("pipe"):
        return f"{args} {e} {STDOUT[o]}; exit ${{PIPESTATUS[0]}}"
    if s["err"] == "merged":
        return f"exec {args} {STDOUT[o]} 2>&1"
    return f"exec {args} {STDOUT[o]} {e}".rstrip()


def shape_of(text):
    """Output with every number replaced (timings differ between runs): its shape."""
    return re.sub(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", "#", text).strip()


def run_stdio(case, ctx):
    """Runner of a stdio case: run the command with its streams bound, judge by the binding."""
    s = case.sig
    folder = prepare(case, ctx)
    before = sha_tree(folder)
    if s["out"] == "append":
        with open(os.path.join(folder, "out.txt"), "w") as fh:
            fh.write("line kept from before\n")
    cmd = stdio_command(case, ctx)
    rc, out, err, secs = spawn(["bash", "-c", cmd], folder, case.timeout, os.path.join(ctx.logs, case.id))
    res = Res(ctx, folder, rc, out, err, secs)
    v = crash(rc, out, err) or _judge_stdio(case, res, folder)
    return finish(case, ctx, folder, before, res, *v)


def _judge_stdio(case, res, folder):
    s, rc = case.sig, res.rc
    o, seen = s["out"], s["err"] in ("capture",)
    msg = message_lines(res.err) if seen else []
    if o in ("closed", "full"):
        if rc == 0 and s.get("file_output"):
            return "ok-success", "exit 0: the output went to a file, standard output only said so"
        if rc == 0:
            return "silent-wrong-result", f"exit 0 with standard output {'closed' if o == 'closed' else 'on a full device'}: the output is lost silently"
        if not seen:
            return "ok-error", f"exit {rc} (standard error not visible)"
        if len(msg) != 1 or not msg[0].startswith("error:"):
            return "wrong-message", f"exit {rc}, {len(msg)} message lines: {' | '.join(msg)[:250]}"
        return judge_message(msg[0], harness.error("standard output"))
    if o == "pipe-closed":
        if rc in (0, 141) and not [l for l in msg if not l.startswith("warning:")]:
            return "ok-success", f"quiet exit {rc}"
        return ("unexpected-error" if rc else "wrong-message"), f"exit {rc} writing to a pipe closed by its reader: {' | '.join(msg)[:250]}"
    if rc != 0:
        return "unexpected-error", f"exit {rc} with stdout {o}, stderr {s['err']}: {' | '.join(msg)[:250] or res.err[:200]}"
    if o in KEEPS:
        ref = subprocess.run(["bash", "-c", res.ctx.sub(case.cmd)], cwd=folder, capture_output=True, text=True,
                             timeout=120)
        got = open(os.path.join(folder, "out.txt"), errors="replace").read()
        if o == "append":
            if not got.startswith("line kept from before\n"):
                return "silent-wrong-result", "the file's earlier content was not kept (>> truncated it)"
            got = got[len("line kept from before\n"):]
        want = ref.stdout + (ref.stderr if s["err"] == "merged" else "")
        if s["err"] == "merged":
            ok = all(l in shape_of(got) for l in shape_of(ref.stdout).splitlines())
        else:
            ok = shape_of(got) == shape_of(want)
        if not ok:
            return "silent-wrong-result", f"output kept by the caller differs from a plain run: {len(got)} bytes vs {len(want)}: {got[-120:]!r}"
    return "ok-success", f"exit 0 (stdout {o}, stderr {s['err']})"


harness.RUNNERS.update(gcli=run_gcli, multi=run_multi, stdio=run_stdio)
