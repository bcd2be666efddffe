"""Degenerate data sets from a spec (a JSON object), the same bytes for the same spec.

    python benches/hostile/cases/gen_datasets.py '{"model": "poisson", "n": 50, "p": 3, ...}' d.csv

spec: model (linear, logistic, poisson, mixture), n, p, seed, defects (a list, applied in order),
fmt (csv or npy, from the file name), header (csv: a0,...,y); the response is the last column
(none for mixture, a single column z). Defects:

  y_const:C      every response C              y_scale:E     responses x 10^E (Poisson: rounded counts)
  x_scale:E      every feature x 10^E          col_const:J   feature J constant (1.0)
  col_zero:J     feature J all zero            col_dup:J     feature J a copy of feature 0
  rows_dup       every row the first row       n_eq_p        n = p (+1 with an intercept)
  separated      y = (a0 > 0)                  one_row       a single row
  nan:I:J / inf:I:J / ninf:I:J                 cell (I, J) NaN, +inf or -inf (J = p: the response)
  z_const        mixture: every value 1.0      z_two         mixture: two distinct values
"""
import json
import sys

import numpy as np


def arrays(spec):
    """(X, y) of a spec (y None for the mixture, whose single column is X[:, 0])."""
    rng = np.random.default_rng(spec.get("seed", 0))
    model, n, p = spec.get("model", "logistic"), int(spec.get("n", 100)), int(spec.get("p", 3))
    defects = list(spec.get("defects", []))
    if "n_eq_p" in defects:
        n = p + (1 if spec.get("intercept") else 0)
    if "one_row" in defects:
        n = 1
    if model == "mixture":
        z = np.concatenate([rng.normal(-2, 1, n // 2), rng.normal(2, 1, n - n // 2)])
        X, y = z[:, None], None
    else:
        X = rng.normal(size=(n, p))
        eta = X @ (rng.normal(size=p) * 0.7)
        if model == "logistic":
            y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
        elif model == "poisson":
            y = rng.poisson(np.exp(np.clip(eta, -5, 5))).astype(float)
        else:
            y = eta + rng.normal(size=n)
    for d in defects:
        k, _, arg = d.partition(":")
        if k == "y_const":
            y[:] = float(arg)
        elif k == "y_scale":
            y = np.round(y * 10.0 ** int(arg)) if model == "poisson" else y * 10.0 ** int(arg)
        elif k == "x_scale":
            X = X * 10.0 ** int(arg)
        elif k == "col_const":
            X[:, int(arg) % X.shape[1]] = 1.0
        elif k == "col_zero":
            X[:, int(arg) % X.shape[1]] = 0.0
        elif k == "col_dup":
            X[:, int(arg) % X.shape[1]] = X[:, 0]
        elif k == "rows_dup":
            X[:] = X[0]
        elif k == "separated":
            y = (X[:, 0] > 0).astype(float)
        elif k in ("nan", "inf", "ninf"):
            i, j = (int(v) for v in arg.split(":"))
            v = {"nan": np.nan, "inf": np.inf, "ninf": -np.inf}[k]
            if j >= X.shape[1] and y is not None:
                y[i % len(y)] = v
            else:
                X[i % len(X), j % X.shape[1]] = v
        elif k == "z_const":
            X[:] = 1.0
        elif k == "z_two":
            X[: len(X) // 2] = 0.0
            X[len(X) // 2:] = 1.0
    return X, y


def write(spec, path):
    """Write the data set of a spec to a .csv (header a0..,y or z) or .npy file (the response last)."""
    X, y = arrays(spec)
    M = X if y is None else np.column_stack([X, y])
    if path.endswith(".npy"):
        np.save(path, M)
        return
    names = ["z"] if y is None else [f"a{j}" for j in range(X.shape[1])] + ["y"]
    with open(path, "w") as fh:
        if spec.get("header", True):
            fh.write(",".join(names) + "\n")
        for row in M:
            fh.write(",".join(repr(float(v)) for v in row) + "\n")


def step(spec, path="d.csv"):
    """A genlib setup step writing the data set (its shell form runs this file)."""
    from genlib import Step
    js = json.dumps(spec, sort_keys=True)
    return Step(lambda ctx, folder: write(spec, f"{folder}/{path}"),
                "{PY} {HERE}/cases/gen_datasets.py '" + js + "' " + path)


if __name__ == "__main__":
    write(json.loads(sys.argv[1]), sys.argv[2])
