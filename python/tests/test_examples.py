"""Every example in README.md and docs/**/*.md runs as printed and prints what the text says.

Conventions (the runner below implements exactly these):

1. Pages: README.md, then docs/**/*.md sorted; each page is one test case with its relative path
   as id, so a failure names the page. Each page's seconds are printed (``pytest -s`` shows them).
2. ```python blocks run each in a fresh process (``sys.executable -c code``, timeout 600 s), with
   cwd = the page's temp dir. Unless a ```text output block follows it (rule 4), a python block's
   ``print(...)  # comment`` lines claim numbers: the claims map in order to the printed lines and
   there must be exactly as many claims as printed lines; the numbers of each comment (up to its
   first "(") must equal, in count and to the digits written, the numbers on its printed line
   (``_matches``: the value rounds to the written number at the written digits); ``a|b`` claims
   either, for a number whose last digits depend on the CPU (float32 matrix kernels).
3. ```bash blocks of one page run in document order in ONE temp dir per page (shared with its
   python blocks, so later blocks see earlier files), each as ``bash -euo pipefail -c code``
   (timeout 900 s), with PATH = dir of the ``gradfree`` binary (the conftest ``gradfree_bin``
   fixture) + dir of sys.executable + PATH, GRADFREE_PYTHON = sys.executable, MPLBACKEND = Agg.
   A line that starts ``cargo run --release --`` runs the ``gradfree`` binary CI built (the same
   program, so the page need not compile it again). Python blocks get the same environment. A block that fails (non-zero exit, or a timeout, which
   kills its whole process group) fails the page with its text, stdout and stderr; the page's later
   blocks are not run.
4. A ```text block that immediately follows a bash or python block (only blank lines between) is
   that block's whole expected stdout, compared doctest-ELLIPSIS style: ``...`` matches any run of
   characters (none, or across lines), all else literal; trailing whitespace on each line and
   leading/trailing blank lines are ignored on both sides. Any other ```text block is just text.
5. Blocks of other languages (rust, toml, yaml, json, text that is not an output, no language)
   are not run here (the rust examples are compiled as Rust doctests). A bash or python block
   directly preceded (blank lines allowed) by ``<!-- not run: REASON -->`` is skipped, but the page
   fails if the skipped block has any line other than blank lines, comments, continuation lines
   and the set-up commands of ``ALLOWED_NOT_RUN`` (each part of an ``a && b`` chain must be one).
   A ``<!-- not run`` comment without a reason, or not directly before a bash/python block, fails.
6. A guard test: at least one page; README.md runs at least one bash block, at least two python
   blocks, and claims at least four numbers in print comments (the old test_readme.py's guards).
"""
import os
import pathlib
import re
import signal
import subprocess
import sys
import time
from typing import List, NamedTuple, Optional

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
#: A claimed number, or alternatives ``a|b`` (rule 2).
CLAIM = re.compile(NUMBER.pattern + r"(?:\|" + NUMBER.pattern + r")*")
FENCE = re.compile(r"^([ \t]*)(`{3,})[ \t]*([^`\s]*)[^`]*$")
NOT_RUN = re.compile(r"<!--\s*not run:\s*\S.*?-->", re.S)
ALLOWED_NOT_RUN = ("cargo install", "cargo build", "pip install", "python3 -m venv", "python -m venv",
                   "apt-get install", "sudo apt-get install", "bash .ci/test.sh", "bash .ci/run",
                   "git clone", "cd ", "source ", ". .venv/bin/activate", "maturin ", "mkdocs build",
                   "mkdocs serve")
RUNNABLE = ("bash", "python")
#: ``cargo run --release --`` at the start of a line is the ``gradfree`` binary (rule 3).
CARGO_RUN = re.compile(r"^cargo run --release -- ", re.M)
TIMEOUT = {"bash": 900, "python": 600}  # seconds per block


class Block(NamedTuple):
    lang: str  # first word of the info string, "" if none
    code: str
    line: int  # 1-based line of the opening fence
    before: str  # the Markdown between the previous block's closing fence and this opening fence


def pages(root: pathlib.Path = ROOT) -> List[pathlib.Path]:
    """README.md, then every docs/**/*.md sorted."""
    readme = [root / "README.md"] if (root / "README.md").exists() else []
    return readme + sorted((root / "docs").rglob("*.md"))


def blocks(path: pathlib.Path) -> List[Block]:
    """The fenced code blocks of a Markdown file, in order (indented fences are dedented)."""
    found, before, lines, i = [], [], path.read_text(encoding="utf-8").splitlines(), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            before.append(lines[i])
            i += 1
            continue
        indent, ticks, lang = m.group(1), m.group(2), m.group(3).lower()
        start, body, i = i + 1, [], i + 1
        while i < len(lines) and not re.match(r"^[ \t]*" + ticks + r"`*[ \t]*$", lines[i]):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        found.append(Block(lang, "\n".join(body) + "\n", start, "\n".join(before)))
        before, i = [], i + 1
    return found


def output_of(bs: List[Block], k: int) -> Optional[str]:
    """The expected stdout of runnable block ``k``: the ```text block right after it, if any."""
    nxt = bs[k + 1] if k + 1 < len(bs) else None
    return nxt.code if nxt and nxt.lang == "text" and not nxt.before.strip() else None


def not_run_problem(block: Block) -> Optional[str]:
    """Why a skipped block may not be skipped (a line that is not a set-up command), or None."""
    logical = re.sub(r"\\\n", " ", block.code)  # join continuation lines
    for line in logical.splitlines():
        for part in re.split(r"\s*&&\s*", line.strip()):
            if part and not part.startswith("#") and not part.startswith(ALLOWED_NOT_RUN):
                return f"line {block.line}: 'not run' block has a line that is not set-up: {part!r}"
    return None


def marker(block: Block) -> Optional[str]:
    """The ``<!-- not run ... -->`` comment that is the last thing before ``block``, or None."""
    tail = block.before.rstrip()
    start = tail.rfind("<!--")
    return tail[start:] if start >= 0 and tail.endswith("-->") and "not run" in tail[start:] else None


def _matches(written: str, value: float) -> bool:
    """``value`` rounds to ``written`` at the digits written."""
    mantissa, _, exponent = written.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    unit = 10.0 ** (-decimals + (int(exponent) if exponent else 0))
    return abs(value - float(written)) <= 0.5 * unit * (1 + 1e-9)


def claims_of(code: str) -> List[str]:
    """The comments of the ``print(...)  # ...`` lines, in order."""
    return [ln.split("#", 1)[1] for ln in code.splitlines() if ln.lstrip().startswith("print(") and "#" in ln]


def claim_problems(code: str, stdout: str) -> List[str]:
    """Where the printed numbers differ from the print comments (rule 2); [] if they agree."""
    claims, printed = claims_of(code), stdout.splitlines()
    if len(claims) != len(printed):
        return [f"{len(claims)} print comments but {len(printed)} printed lines: {claims} vs {printed}"]
    problems = []
    for claim, line in zip(claims, printed):
        written = CLAIM.findall(claim.split("(", 1)[0])
        values = [float(v) for v in NUMBER.findall(line)]
        if not written or len(written) != len(values):
            problems.append(f"comment {claim.strip()!r} vs printed {line!r}: numbers do not pair up")
        problems += [f"says {w}, prints {v} ({line!r})" for w, v in zip(written, values)
                     if not any(_matches(a, v) for a in w.split("|"))]
    return problems


def _normalize(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")


def ellipsis_match(expected: str, actual: str) -> bool:
    """doctest-ELLIPSIS matching of whole outputs (rule 4)."""
    pieces, got = _normalize(expected).split("..."), _normalize(actual)
    if len(pieces) == 1:
        return pieces[0] == got
    head, tail = pieces[0], pieces[-1]
    if not got.startswith(head) or not got.endswith(tail) or len(head) + len(tail) > len(got):
        return False
    pos, end = len(head), len(got) - len(tail)
    for piece in pieces[1:-1]:  # leftmost placement of each middle piece is always best
        pos = got.find(piece, pos, end)
        if pos < 0:
            return False
        pos += len(piece)
    return True


def environment(bin_dir: Optional[str]) -> dict:
    """The examples' environment (rule 3)."""
    path = [d for d in (bin_dir, os.path.dirname(sys.executable), os.environ.get("PATH", "")) if d]
    return dict(os.environ, PATH=os.pathsep.join(path), GRADFREE_PYTHON=sys.executable, MPLBACKEND="Agg")


def run_block(argv: List[str], cwd: pathlib.Path, env: dict, timeout: float) -> subprocess.CompletedProcess:
    """Run one block in its own process group; on timeout the whole group (children too) is killed."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def check_page(path: pathlib.Path, workdir: pathlib.Path, bin_dir: Optional[str] = None) -> List[str]:
    """Run the page's bash and python blocks in ``workdir``; the list of problems ([] = passes)."""
    bs, problems, env = blocks(path), [], environment(bin_dir)
    for k, b in enumerate(bs):
        comment = marker(b)
        if re.search(r"<!--\s*not run", b.before) and comment is None:
            problems.append(f"line {b.line}: a 'not run' comment that is not right before this block")
        if comment is not None and not NOT_RUN.fullmatch(comment):
            problems.append(f"line {b.line}: {comment!r} has no reason ('<!-- not run: REASON -->')")
        if comment is not None and b.lang not in RUNNABLE:
            problems.append(f"line {b.line}: 'not run' before a {b.lang or 'plain'} block, which is never run")
        if b.lang not in RUNNABLE:
            continue
        if comment is not None:
            problems += [p for p in [not_run_problem(b)] if p]
            continue
        code = CARGO_RUN.sub("gradfree ", b.code) if b.lang == "bash" else b.code
        argv = ["bash", "-euo", "pipefail", "-c", code] if b.lang == "bash" else [sys.executable, "-c", code]
        try:
            out = run_block(argv, workdir, env, TIMEOUT[b.lang])
        except subprocess.TimeoutExpired as e:
            return problems + [f"line {b.line}: {b.lang} block timed out after {e.timeout} s:\n{b.code}"]
        if out.returncode != 0:
            return problems + [f"line {b.line}: {b.lang} block exited {out.returncode}:\n{b.code}"
                               f"--- stdout:\n{out.stdout}--- stderr:\n{out.stderr}"]
        expected = output_of(bs, k)
        if expected is not None:
            if not ellipsis_match(expected, out.stdout):
                problems.append(f"line {b.line}: {b.lang} block's output differs from the text below it:\n"
                                f"{b.code}--- expected:\n{expected}--- got:\n{out.stdout}")
        elif b.lang == "python":
            problems += [f"line {b.line}: {p}" for p in claim_problems(b.code, out.stdout)]
    if re.search(r"<!--\s*not run", path.read_text(encoding="utf-8").split("```")[-1]):
        problems.append("a 'not run' comment after the last block")
    return problems


# --- the pages ---------------------------------------------------------------------------------

@pytest.mark.parametrize("page", [str(p.relative_to(ROOT)) for p in pages()] or ["README.md"])
def test_examples_run_and_print_what_the_text_says(page, gradfree_bin, tmp_path):
    start = time.perf_counter()
    problems = check_page(ROOT / page, tmp_path, os.path.dirname(gradfree_bin))
    print(f"\n{page}: {time.perf_counter() - start:.1f} s")
    assert not problems, f"{page}:\n" + "\n\n".join(problems)


def test_pages_are_found_and_readme_has_examples_that_run():
    assert pages(), "no README.md or docs/**/*.md found"
    bs = blocks(ROOT / "README.md")
    run = [(k, b) for k, b in enumerate(bs) if b.lang in RUNNABLE and marker(b) is None]
    assert any(b.lang == "bash" for _, b in run), "README.md has no bash block that runs"
    assert sum(b.lang == "python" for _, b in run) >= 2, "README.md has fewer than two python blocks that run"
    claimed = sum(len(NUMBER.findall(c.split("(", 1)[0])) for k, b in run
                  if b.lang == "python" and output_of(bs, k) is None for c in claims_of(b.code))
    assert claimed >= 4, f"README.md's python print comments claim only {claimed} numbers"


# --- the runner itself (no gradfree binary needed) ----------------------------------------------

def _page(tmp_path, text: str) -> pathlib.Path:
    (tmp_path / "work").mkdir(exist_ok=True)
    path = tmp_path / "page.md"
    path.write_text(text)
    return path


def _check(tmp_path, text: str) -> List[str]:
    return check_page(_page(tmp_path, text), tmp_path / "work")


def test_runner_ellipsis_matching():
    assert ellipsis_match("a\n...\nz\n", "a\nb\nc\nz  \n\n")
    assert ellipsis_match("\nx = 1...5 s\n", "x = 1.2345 s")
    assert ellipsis_match("ab...", "ab") and ellipsis_match("...", "anything\nat all")
    assert not ellipsis_match("a\n...\nz", "a\nb\ny")
    assert not ellipsis_match("abc", "abcd") and not ellipsis_match("a...a", "a")
    assert not ellipsis_match("x ... y ... z", "x z y")


def test_runner_print_claims(tmp_path):
    assert _matches("0.96", 0.9649) and not _matches("0.96", 0.9651) and _matches("1e-3", 0.0012)
    ok = "```python\nprint(0.9649, 12)  # 0.96 12 (note: 5)\nprint(1.54e-5)  # 1.5e-5\n```\n"
    assert _check(tmp_path, ok) == []
    assert "says 0.97" in "".join(_check(tmp_path, ok.replace("# 0.96", "# 0.97")))
    assert "printed lines" in "".join(_check(tmp_path, "```python\nprint(1)\n```\n"))
    assert "pair up" in "".join(_check(tmp_path, "```python\nprint(1, 2)  # 1\n```\n"))


def test_runner_bash_blocks_share_a_directory(tmp_path):
    page = "```bash\necho hello > note.txt\n```\n\nThen:\n\n```bash\ncat note.txt\n```\n```text\nhello\n```\n"
    assert _check(tmp_path, page) == []
    assert (tmp_path / "work" / "note.txt").read_text() == "hello\n"


def test_runner_output_blocks_belong_to_the_block_right_above(tmp_path):
    page = ("```python\nprint('a')\nprint('b')\n```\n\n```text\na\n...\n```\n\n"
            "```bash\nprintf 'x\\n'\n```\nprose\n```text\nnot an output\n```\n")
    bs = blocks(_page(tmp_path, page))
    assert output_of(bs, 0) == "a\n...\n" and output_of(bs, 2) is None
    assert _check(tmp_path, page) == []
    assert "differs" in "".join(_check(tmp_path, page.replace("a\n...", "b\n...")))


def test_runner_not_run_blocks(tmp_path):
    allowed = ("<!-- not run: needs network -->\n\n```bash\n# set up\ncd python && maturin develop \\\n"
               "  --release\npip install numpy\n```\n")
    assert _check(tmp_path, allowed) == []
    bad = allowed.replace("pip install numpy", "rm -rf /nonexistent-example")
    problems = _check(tmp_path, bad)
    assert len(problems) == 1 and "rm -rf" in problems[0]
    assert not_run_problem(blocks(_page(tmp_path, "```bash\ncd x && ls\n```\n"))[0])
    assert "no reason" in "".join(_check(tmp_path, allowed.replace("not run: needs network", "not run")))
    assert "not right before" in "".join(_check(tmp_path, allowed.replace("-->\n", "-->\ntext\n")))
    assert "after the last block" in "".join(_check(tmp_path, "```bash\ntrue\n```\n<!-- not run: x -->\n"))


def test_runner_reports_a_failing_bash_block_with_its_text(tmp_path):
    problems = _check(tmp_path, "```bash\necho out; echo err >&2\nfalse\n```\n```bash\necho never\n```\n")
    assert len(problems) == 1
    assert "exited 1" in problems[0] and "false" in problems[0] and "out" in problems[0] and "err" in problems[0]


def test_runner_times_out_and_kills_the_block_s_children(tmp_path, monkeypatch):
    monkeypatch.setitem(TIMEOUT, "bash", 1)
    start = time.perf_counter()
    problems = _check(tmp_path, "```bash\nsleep 30 &\necho $! > pid\nwait\n```\n")
    assert len(problems) == 1 and "timed out" in problems[0] and time.perf_counter() - start < 10
    pid = int((tmp_path / "work" / "pid").read_text())
    time.sleep(0.2)
    assert not pathlib.Path(f"/proc/{pid}").exists() or "Z" in pathlib.Path(f"/proc/{pid}/stat").read_text().split()[2]


def test_runner_cargo_run_is_the_built_binary(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "gradfree"
    fake.write_text("#!/bin/sh\necho gradfree \"$@\"\n")
    fake.chmod(0o755)
    page = _page(tmp_path, "```bash\ncargo run --release -- list --json\n```\n\n```text\ngradfree list --json\n```\n")
    assert check_page(page, tmp_path / "work", str(bin_dir)) == []


def test_runner_other_languages_are_not_run(tmp_path):
    page = "```rust\nfn main() {}\n```\n```\nexit 1\n```\n```toml\n[a]\n```\n```text\nloose\n```\n"
    assert [b.lang for b in blocks(_page(tmp_path, page))] == ["rust", "", "toml", "text"]
    assert _check(tmp_path, page) == []
