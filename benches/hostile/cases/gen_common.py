"""Shared pieces of the generators (cases/gen_*.py): edge values, primes, expectations and checks.

Every generator module has `draw(rng, cid) -> Case`: it draws one case of its kind from `rng`
(a random.Random seeded with the run's seed and the case's index)."""
import json
import math
import os

from genlib import exclusive, gcli, gmulti, gpy, gpy_limited, gstdio, sh, steps, text_file  # noqa: F401
from harness import Exact, either, error, success  # noqa: F401

U64 = 2**64 - 1
MEM_WORDS = ("memory", "MiB", "GiB", "KiB", "too large", "TB", "GB")


def pick(rng, table):
    """One entry of a list, or of a dict's items (key, value)."""
    items = list(table.items()) if isinstance(table, dict) else list(table)
    return items[rng.randrange(len(items))]


def weighted(rng, pairs):
    """pairs: [(weight, value)] -> a value."""
    return rng.choices([v for _, v in pairs], [w for w, _ in pairs])[0]


def is_prime(n):
    """Deterministic Miller-Rabin for n < 3.3e24."""
    if n < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def subgroup_n(d, near):
    """The smallest prime n >= near with 2d | n - 1 (a subgroup lattice's admissible n)."""
    k = max(1, -(-(near - 1) // (2 * d)))
    while not is_prime(2 * d * k + 1):
        k += 1
    return 2 * d * k + 1


def fnum(x):
    """A float as a command-line word (repr keeps subnormals and 1e308 exact)."""
    return repr(float(x)) if not isinstance(x, str) else x


def no_nonfinite(text):
    """What is wrong with a JSON text that holds NaN/inf (None if nothing)."""
    for w in ("NaN", "Infinity"):
        if w in text:
            i = text.index(w)
            return f"{w} in the output: ...{text[max(0, i - 80):i + 20]}..."
    return None


def sane_json(need_warning=False, zero_width_ok=False):
    """Success check of a --json run: finite numbers; intervals of width 0 only with a warning;
    `need_warning`: the numbers are undefined on this data, so a `warning:` line is required."""
    def check(res):
        warned = any(l.startswith("warning:") for l in res.err.splitlines())
        bad = no_nonfinite(res.out)
        if bad:
            return bad + (" (with a warning)" if warned else " with no warning")
        if len(res.out) >= 16 << 20:         # the harness keeps 16 MiB of stdout: too long to parse
            return None
        d = json.loads(res.out)
        if need_warning and not warned:
            return "no warning where the estimates are undefined: " + res.out[:150]
        if isinstance(d, dict) and not zero_width_ok and not warned:
            for key in ("conf_int", "bands"):
                ci = d.get(key)
                if ci and any(abs(b - a) == 0 for a, b in ci):
                    return f"zero-width {key} without a warning: {str(ci)[:150]}"
        return None
    return check


def npy_finite(name):
    """The written .npy (or .csv) file holds only finite numbers."""
    def check(res):
        import numpy as np
        p = os.path.join(res.folder, name)
        if not os.path.exists(p):
            return f"{name} was not written"
        a = np.load(p) if name.endswith(".npy") else np.loadtxt(p, delimiter=",", ndmin=2,
                                                                 skiprows=1 if _has_header(p) else 0)
        if a.size and not np.isfinite(a).all():
            return f"{name} holds {int((~np.isfinite(a)).sum())} non-finite of {a.size} values (exit 0)"
        return None
    return check


def _has_header(p):
    with open(p) as fh:
        first = fh.readline()
    return any(c.isalpha() and c not in "eE" for c in first.replace("nan", "").replace("inf", ""))


def all_checks(*cs):
    """Success check: the first failing check of several (None entries skipped)."""
    def check(res):
        for c in cs:
            if c:
                bad = c(res)
                if bad:
                    return bad
        return None
    return check


def py_ok(res):
    """Python cases that set R to 'ok...' when every property held, else to what went wrong."""
    return None if res.r.strip("'\"").startswith("ok") else res.r[:300]


PY_HEAD = "import sys, json, math, warnings, pickle\nimport numpy as np\nimport gradfree\nfrom gradfree import errors as E\n"
