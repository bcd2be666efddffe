"""The README's Python examples run as printed and print the numbers their comments state (to
the digits written)."""
import pathlib
import re
import subprocess
import sys

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def _matches(written: str, value: float) -> bool:
    """``value`` rounds to ``written`` at the digits written."""
    mantissa, _, exponent = written.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    unit = 10.0 ** (-decimals + (int(exponent) if exponent else 0))
    return abs(value - float(written)) <= 0.5 * unit * (1 + 1e-9)


def test_readme_python_examples_print_what_they_say():
    blocks = _blocks()
    assert len(blocks) >= 2
    checked = 0
    for code in blocks:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        printed = out.stdout.splitlines()
        claims = [line.split("#", 1)[1] for line in code.splitlines() if line.lstrip().startswith("print(") and "#" in line]
        assert len(claims) == len(printed), (claims, printed)
        for claim, line in zip(claims, printed):
            written = NUMBER.findall(claim.split("(", 1)[0])
            values = [float(v) for v in NUMBER.findall(line)]
            assert written and len(written) == len(values), (claim, line)
            for w, v in zip(written, values):
                assert _matches(w, v), f"README says {w}, the example prints {v} ({line!r})"
                checked += 1
    assert checked >= 4
