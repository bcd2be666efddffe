"""Recompute a gradfree checkpoint's checksum, so a case can edit a checkpoint and still get past
the checksum to the validation it wants to test.

The binary stores "checksum": "crc32:%08x" over serde_json's compact serialization of the
document without that key: keys sorted, no spaces, floats in ryu's shortest round-trip form. That
form differs from Python's json.dumps for some floats (1e-05 is "1e-5", 1e+16 is "1e16"), so
floats are formatted here from their shortest digits.
"""
import json
import math
import zlib


def _exp(e):
    return ("e+" if e >= 0 else "e") + str(e)


def fmt_float(x):
    """serde_json's (ryu's) text for a finite float: shortest digits, plain notation for
    exponents -5 < k <= 16 of the leading digit position, else d.ddde+NN / d.ddde-NN."""
    if x == 0:
        return "-0.0" if math.copysign(1, x) < 0 else "0.0"
    neg = x < 0
    r = repr(abs(x))                       # shortest round-trip digits (same digits as ryu)
    mant, _, exp = r.partition("e")
    exp = int(exp or 0)
    ip, _, fp = mant.partition(".")
    digits = (ip + fp).lstrip("0")
    k = exp - len(fp)                      # value = int(digits) * 10^k
    stripped = digits.rstrip("0")
    k += len(digits) - len(stripped)
    digits = stripped
    n = len(digits)
    kk = n + k                             # position of the decimal point
    if 0 <= k and kk <= 16:
        s = digits + "0" * k + ".0"
    elif 0 < kk <= 16:
        s = digits[:kk] + "." + digits[kk:]
    elif -5 < kk <= 0:
        s = "0." + "0" * (-kk) + digits
    elif n == 1:
        s = digits + _exp(kk - 1)
    else:
        s = digits[0] + "." + digits[1:] + _exp(kk - 1)
    return ("-" if neg else "") + s


def ser(v):
    """serde_json::to_string of a parsed document, with sorted keys."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return fmt_float(v) if math.isfinite(v) else "null"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(ser(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + ser(v[k]) for k in sorted(v)) + "}"
    raise TypeError(f"cannot serialize {type(v).__name__}")


def checksum(doc):
    body = {k: v for k, v in doc.items() if k != "checksum"}
    return "crc32:%08x" % zlib.crc32(ser(body).encode("utf-8"))


def resum(doc):
    """Replace the document's checksum by the one of its current content (in place)."""
    doc.pop("checksum", None)
    doc["checksum"] = checksum(doc)
    return doc


def dump(doc):
    return ser(doc)


def verify(path):
    """True if the checkpoint file's stored checksum matches its content."""
    with open(path) as fh:
        d = json.load(fh)
    return d.get("checksum") == checksum(d)
