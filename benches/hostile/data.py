"""Inputs of the hostile cases, made deterministically (no downloads, no random numbers).

Real data come from scikit-learn's bundled data sets:
  bc3.csv         breast cancer: standardized mean radius, mean texture, mean smoothness + y
  stream_big.csv  bc3.csv's rows 2000 times (a long stream for the Ctrl-C case)
  digits_feat.csv digits: the first 300 images' first 16 pixels / 16 + the digit
  digits.npy      digits: all 1797 images / 16
  mix.csv         iris: standardized petal length (a classic two-group 1-D sample)
  real.npz        arrays for the Python cases (bc3X, bcX, bcy, dX, dy, iX, iy)

Synthetic files exist only as malformed or extreme inputs; each is bc3 (header a,b,c,y) with one
defect, or a minimal file with the defect alone:
  nan/inf/overflow.csv (one cell NaN, inf, 1e999), labels2/labelspm1/labels_frac.csv (y not in
  {0, 1}), oneclass.csv, separable.csv (y = a > 0), pois_neg/pois_frac.csv, ragged/ragged_long.csv,
  missing_cell/text_cell.csv, dupheader/dupcol/constcol.csv, quoted/crlf/bom/bomy/spaces/
  semicolon/trailing_comma/blank_lines/noheader/nonl_end.csv, scaled (x 1e300)/scaled150/tiny
  (x 1e-300).csv, empty/header_only/one_row/two_rows/one_col.csv, longline.csv (a 10^7-digit
  number), wide.csv/.npy (2 rows x 10^6 columns), mix_const/mix_one.csv (a constant and a
  one-value sample); .npy: f32, i64, one_d, three_d, fortran, bigendian, object, complex, empty,
  nan, truncated, garbage (broken header), hugeshape (a 2^62-row header without data).
"""
import os
import sys

import numpy as np


def _csv(path, header, rows, sep=",", eol="\n", final_eol=True, quote=False, bom=False):
    def f(v):
        s = repr(float(v)) if isinstance(v, (float, np.floating)) else str(v)
        return f'"{s}"' if quote else s
    lines = []
    if header is not None:
        lines.append(sep.join(f'"{h}"' if quote else h for h in header))
    lines += [sep.join(f(v) for v in r) for r in rows]
    text = eol.join(lines) + (eol if final_eol else "")
    with open(path, "w", encoding="utf-8-sig" if bom else "utf-8", newline="") as fh:
        fh.write(text)


def _rows(X, y, ycast=int):
    return [list(x) + [ycast(v)] for x, v in zip(X, y)]


def _npy_raw(path, header, data=b""):
    """A .npy file with a hand-written version-1 header (for broken headers)."""
    h = header.encode("latin1")
    pad = 64 - (10 + len(h) + 1) % 64
    h = h + b" " * (pad % 64) + b"\n"
    with open(path, "wb") as fh:
        fh.write(b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h + data)


def standardize(X):
    return (X - X.mean(0)) / X.std(0)


def make(out):
    from sklearn.datasets import load_breast_cancer, load_digits, load_iris

    os.makedirs(out, exist_ok=True)
    bc = load_breast_cancer()
    bcX = standardize(bc.data)
    bcy = bc.target.astype(float)
    bc3X = bcX[:, [0, 1, 4]]
    dg = load_digits()
    dX, dy = dg.data / 16.0, dg.target
    ir = load_iris()
    np.savez(os.path.join(out, "real.npz"), bc3X=bc3X, bcX=bcX, bcy=bcy, dX=dX, dy=dy,
             iX=ir.data, iy=ir.target)
    p = lambda n: os.path.join(out, n)

    # ---- real data
    y = bc.target
    _csv(p("bc3.csv"), ["radius", "texture", "smooth", "y"], _rows(bc3X, y))
    with open(p("bc3.csv")) as fh:
        head, body = fh.readline(), fh.read()
    with open(p("stream_big.csv"), "w") as fh:
        fh.write(head)
        for _ in range(2000):
            fh.write(body)
    _csv(p("digits_feat.csv"), [f"p{i}" for i in range(16)] + ["y"], _rows(dX[:300, :16], dy[:300]))
    np.save(p("digits.npy"), dX)
    _csv(p("mix.csv"), ["z"], [[v] for v in standardize(ir.data[:, 2:3])[:, 0]])

    # ---- hostile CSV variants of bc3 (header a,b,c,y)
    H = ["a", "b", "c", "y"]
    X = bc3X.copy()
    rows = lambda X=X, y=y, yc=int: _rows(X, y, yc)
    _csv(p("crlf.csv"), H, rows(), eol="\r\n")

    def one_cell(name, r, c, v):
        R = rows()
        R[r][c] = v
        _csv(p(name), H, R)
    one_cell("nan.csv", 10, 1, "nan")
    one_cell("inf.csv", 20, 0, "inf")
    one_cell("overflow.csv", 20, 0, "1e999")
    one_cell("missing_cell.csv", 7, 0, "")
    one_cell("text_cell.csv", 7, 0, "x")
    R = rows()
    R[5] = R[5][:2]
    _csv(p("ragged.csv"), H, R)
    R = rows()
    R[5] = R[5] + [7]
    _csv(p("ragged_long.csv"), H, R)
    _csv(p("labels2.csv"), H, rows(y=np.where(y == 1, 2, 0)))
    _csv(p("labelspm1.csv"), H, rows(y=2 * y - 1))
    _csv(p("labels_frac.csv"), H, rows(y=0.5 * y, yc=float))
    _csv(p("oneclass.csv"), H, rows(y=0 * y))
    _csv(p("separable.csv"), H, rows(y=(X[:, 0] > 0).astype(int)))
    _csv(p("pois_neg.csv"), H, rows(y=-y))
    _csv(p("pois_frac.csv"), H, rows(y=y + 0.5, yc=float))
    _csv(p("dupheader.csv"), ["a", "a", "a", "y"], rows())
    Xd = X.copy()
    Xd[:, 2] = Xd[:, 0]
    _csv(p("dupcol.csv"), H, rows(X=Xd))
    Xc = X.copy()
    Xc[:, 2] = 1.0
    _csv(p("constcol.csv"), H, rows(X=Xc))
    _csv(p("quoted.csv"), H, rows(), quote=True)
    _csv(p("bom.csv"), H, rows(), bom=True)
    _csv(p("bomy.csv"), ["y", "a", "b", "c"], [[int(v)] + list(x) for x, v in zip(X, y)], bom=True)
    _csv(p("spaces.csv"), H, rows(), sep=", ")
    _csv(p("semicolon.csv"), H, rows(), sep=";")
    _csv(p("trailing_comma.csv"), H + [""], [r + [""] for r in rows()])
    R = rows()
    lines = [",".join(H)] + [",".join(repr(float(v)) if i < 3 else str(v) for i, v in enumerate(r)) for r in R]
    with open(p("blank_lines.csv"), "w") as fh:
        for i, l in enumerate(lines):
            fh.write(l + "\n" + ("\n" if i % 50 == 1 else ""))
    _csv(p("noheader.csv"), None, rows())
    _csv(p("nonl_end.csv"), H, rows(), final_eol=False)
    _csv(p("scaled.csv"), H, rows(X=X * 1e300))
    _csv(p("scaled150.csv"), H, rows(X=X * 1e150))
    _csv(p("tiny.csv"), H, rows(X=X * 1e-300))
    open(p("empty.csv"), "w").close()
    _csv(p("header_only.csv"), H, [])
    _csv(p("one_row.csv"), H, rows()[:1])
    _csv(p("two_rows.csv"), H, rows()[:2])
    _csv(p("one_col.csv"), ["y"], [[v] for v in y])
    with open(p("longline.csv"), "w") as fh:
        fh.write("a,y\n" + "1" * 10_000_000 + ",1\n0.5,0\n")
    with open(p("wide.csv"), "w") as fh:
        for lab in (0, 1):
            fh.write("0.5," * 1_000_000 + f"{lab}\n")
    W = np.full((2, 1_000_001), 0.5)
    W[:, -1] = [0, 1]
    np.save(p("wide.npy"), W)
    _csv(p("mix_const.csv"), ["z"], [[1.0]] * 500)
    _csv(p("mix_one.csv"), ["z"], [[1.0]])

    # ---- hostile .npy variants of bc3 with y as the last column
    B = np.column_stack([X, y.astype(float)])
    np.save(p("f32.npy"), B.astype(np.float32))
    np.save(p("i64.npy"), np.round(B * 10).astype(np.int64))
    np.save(p("one_d.npy"), B[:, 0].copy())
    np.save(p("three_d.npy"), B.reshape(569, 2, 2))
    np.save(p("fortran.npy"), np.asfortranarray(B))
    np.save(p("bigendian.npy"), B.astype(">f8"))
    np.save(p("object.npy"), np.array([[1, "a"]], dtype=object), allow_pickle=True)
    np.save(p("complex.npy"), B.astype(np.complex128))
    np.save(p("empty.npy"), np.zeros((0, 4)))
    Bn = B.copy()
    Bn[1, 3] = np.nan
    np.save(p("nan.npy"), Bn)
    with open(p("f32.npy"), "rb") as fh:
        raw = fh.read()
    with open(p("truncated.npy"), "wb") as fh:
        fh.write(raw[:len(raw) // 2])
    with open(p("garbage.npy"), "wb") as fh:
        fh.write(b"\x93NUMPY\x01\x00\xff\xff{'descr': '<f8', 'fortran_order': False, "
                 b"'shape': (99999999999, 99999999999), }")
    _npy_raw(p("hugeshape.npy"), "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }",
             b"\0" * 64)
    return out


if __name__ == "__main__":
    print(make(sys.argv[1] if len(sys.argv) > 1 else "hostile-data"))
