"""Degenerate data sets (cases/gen_datasets.py): constant or all-zero responses, one class,
separated classes, constant, zero or duplicated columns, identical rows, n = p, one row, features
or responses at 1e+-150..1e+-320 (down to subnormals), counts up to 1e300, NaN/inf in any cell;
for `infer` (every model, maximum likelihood and the chain methods, in memory and streamed),
`features` (every kernel and projection, -o and --report), and in Python for inference.fit /
fit_stream, RobustClassifier, NOKDenoiser and the kernel samplers.

Right: an error naming the cause (one of the words of the defects present: `row`/`NaN`,
`response`/`class`, `singular`/`collinear`, `scale`/`standardize`, `rows`/`parameters`, ...), or a
finite result: no NaN/inf in the output, an interval of width 0 only with a warning, and a
warning where the estimates are undefined (separated or one-class responses with an intercept, a
mixture on constant data). Never NaN with exit 0, never a hang."""
import json

from cases.gen_common import *
from cases.gen_datasets import step as data

WORDS = {
    "nan": ("row", "nan", "finite", "inf"), "inf": ("row", "nan", "finite", "inf"), "ninf": ("row", "nan", "finite", "inf"),
    "y_const": ("respons", "class", "constant", "separat", "zero", "variance", "identif", "singular", "converge"),
    "col_const": ("singular", "collinear", "constant", "column", "rank", "spread", "variance", "separat"),
    "col_zero": ("singular", "collinear", "constant", "column", "rank", "spread", "variance", "zero"),
    "col_dup": ("singular", "collinear", "column", "rank", "spread", "duplicate"),
    "rows_dup": ("singular", "collinear", "row", "rank", "spread", "constant", "variance", "separat"),
    "n_eq_p": ("rows", "row", "parameters", "observations", "batch", "singular", "residual", "separat"),
    "one_row": ("rows", "row", "parameters", "observations", "batch", "one value"),
    "x_scale": ("standardize", "scale", "overflow", "small", "large", "finite", "range", "underflow", "singular",
                "separat", "spread"),
    "y_scale": ("respons", "count", "overflow", "large", "scale", "gradient", "finite", "range"),
    "separated": ("separat",),
    "z_const": ("constant", "spread", "variance", "identif", "distinct", "data", "value"),
    "z_two": ("constant", "spread", "variance", "identif", "distinct", "data", "value"),
}
GLM = ["linear", "logistic", "poisson"]
CHAIN = ["random-scaling", "masgrad", "masgrad-rank-one", "sgd", "diff-masgrad", "diff-sgd", "madprox"]


def _defects(rng, model):
    if model == "mixture":
        return [rng.choice(["z_const", "z_two", "x_scale:300", "x_scale:-320", "nan:3:0", "one_row", "inf:0:0"])]
    pool = [(4, "y_const"), (2, "col_const"), (2, "col_zero"), (2, "col_dup"), (1, "rows_dup"), (2, "n_eq_p"),
            (1, "one_row"), (3, "x_scale"), (2, "y_scale"), (2, "separated"), (2, "nan"), (1, "inf"), (1, "ninf")]
    out = []
    for _ in range(rng.choice([1, 1, 1, 2])):
        k = weighted(rng, pool)
        if k == "y_const":
            k += ":" + rng.choice({"logistic": ["0", "1"], "poisson": ["0", "0", "3", "1e15"],
                                   "linear": ["0", "1", "-7.5", "1e300"], "relu": ["0", "1"]}[model])
        elif k in ("col_const", "col_zero", "col_dup"):
            k += f":{rng.randrange(1, 4)}"
        elif k == "x_scale":
            k += ":" + rng.choice(["300", "200", "150", "-150", "-300", "-310", "-320"])
        elif k == "y_scale":
            k += ":" + (rng.choice(["15", "16", "30", "300"]) if model == "poisson" else rng.choice(["150", "300", "-300"]))
        elif k in ("nan", "inf", "ninf"):
            k += f":{rng.randrange(0, 50)}:{rng.randrange(0, 5)}"
        if model == "relu" and k.startswith("y_scale"):
            continue
        out.append(k)
    return out or ["y_const:0"]


def _undefined(model, defects, intercept):
    """The estimates do not exist: a warning is owed with a finite answer."""
    names = [d.split(":")[0] for d in defects]
    if model == "mixture":
        return "z_const" in names
    if not intercept:
        return False
    return (model == "logistic" and ("separated" in names or any(d in ("y_const:0", "y_const:1") for d in defects))) or \
        (model == "poisson" and "y_const:0" in defects)


def _words(defects):
    """The words an error may name: a cause among the defects, or the rows (small n is drawn too)."""
    out = ["rows", "parameters", "observations"]
    for d in defects:
        out += [w for w in WORDS[d.split(":")[0]] if w not in out]
    return tuple(out)


def _spec(rng, model, defects, intercept):
    return {"model": "mixture" if model == "mixture" else ("logistic" if model == "relu" else model),
            "n": rng.choice([5, 20, 200, 600]), "p": rng.choice([1, 2, 3, 5]), "seed": rng.randrange(1000),
            "defects": defects, "intercept": intercept}


def _infer(rng, cid):
    model = weighted(rng, [(3, "logistic"), (2, "linear"), (3, "poisson"), (1, "mixture"), (1, "relu")])
    mle = model in GLM and rng.random() < 0.5
    method = "mle" if mle else rng.choice(["random-scaling", "sgd"] if model in ("mixture", "relu") else CHAIN)
    intercept = model in GLM and rng.random() < 0.6
    defects = _defects(rng, model)
    spec = _spec(rng, model, defects, intercept)
    stream = rng.random() < 0.2 and method in ("mle", "sgd", "random-scaling")
    fmt = "npy" if (not stream and rng.random() < 0.25) else "csv"
    f = "d." + fmt
    chains = "" if method == "mle" else (" --chains 2 --steps 300" if method == "random-scaling" else " --chains 8 --steps 60")
    if stream and method != "mle":
        chains = " --chains 2 --batch 5"
    cmd = (f"{{G}} infer --quiet --json --data {f} --model {model} --method {method}{chains}"
           + (" --intercept" if intercept else "") + (" --stream" if stream else "")
           + ("" if model == "mixture" else " --target " + ("y" if fmt == "csv" else "-1")))
    exp = either(error(_words(defects)), success(check=sane_json(_undefined(model, defects, intercept))))
    return gcli(f"{cid}-infer-{model}-{method}-{'+'.join(d.split(':')[0] for d in defects)}", "degenerate", cmd, exp,
                setup=data(spec, f), timeout=40)


def _features(rng, cid):
    defects = [rng.choice(["col_const:1", "col_zero:2", "rows_dup", "x_scale:300", "x_scale:-300", "x_scale:-320",
                           "x_scale:150", "one_row", "nan:2:1", "inf:0:0", "col_dup:1"])]
    spec = {"model": "linear", "n": rng.choice([1, 2, 30, 300]), "p": rng.choice([1, 2, 7, 16]), "seed": rng.randrange(999),
            "defects": defects}
    kern = rng.choice(["gaussian", "gaussian", "arccos0", "arccos1", "arccos2"])
    meth = rng.choice(["ssf", "iid", "orf", "circulant", "halton", "sobol", "lattice"])
    out = rng.choice([" -o z.npy", " -o z.csv", " --report --json"])
    bw = rng.choice(["", "", " --gamma scale", " --sigma 1", " --gamma 1e-300", " --sigma 1e300"]) if kern == "gaussian" else ""
    cmd = f"{{G}} features --data d.csv --kernel {kern} --method {meth} --dim-out {rng.choice([2, 8, 64])}{bw}{out}"
    check = npy_finite(out.split()[-1]) if " -o " in out else sane_json()
    exp = either(error(_words(defects) + ("--gamma", "--sigma", "--data")), success(check=check))
    return gcli(f"{cid}-features-{kern}-{meth}-{defects[0].split(':')[0]}", "degenerate", cmd, exp, setup=data(spec),
                owns=("z.npy", "z.csv"), timeout=40)


PY_FIT = '''sys.path.insert(0, {here!r} + "/cases")
from gen_datasets import arrays
from gradfree.inference import fit, fit_stream
X, y = arrays({spec!r})
with warnings.catch_warnings(record=True) as W:
    warnings.simplefilter("always")
    r = {call}
warned = [str(w.message)[:80] for w in W]
vals = {{"params": r.params}}
for name in ("bse", "process_sd"):
    try:
        vals[name] = getattr(r, name)
    except AttributeError:
        pass
for name, call in (("conf_int", lambda: r.conf_int()), ("bands", lambda: r.bands(0.1)[0])):
    try:
        vals[name] = call()
    except AttributeError:
        pass
bad = [k for k, v in vals.items() if not np.all(np.isfinite(np.asarray(v, dtype=float)))]
zero = [k for k in ("conf_int",) if k in vals and np.any(np.ptp(np.asarray(vals[k], dtype=float), axis=-1) == 0)]
R = (f"NaN/inf in {{bad}} (warnings: {{warned}})" if bad else
     f"no warning where the estimates are undefined: {{np.asarray(r.params).tolist()}}" if {need_warn} and not warned else
     f"zero-width {{zero}} without a warning" if zero and not warned else "ok: finite" + (" (warned)" if warned else ""))
'''


def _pyfit(rng, cid, here):
    model = weighted(rng, [(3, "logistic"), (2, "linear"), (3, "poisson"), (1, "mixture")])
    method = rng.choice(["'mle'", "'mle'", "'sgd'", "'masgrad'", "'random-scaling'"]) if model != "mixture" else rng.choice(["None", "'sgd'"])
    intercept = model != "mixture" and rng.random() < 0.6
    defects = _defects(rng, model)
    spec = _spec(rng, model, defects, intercept)
    kw = f"model={model!r}, method={method}" + (", intercept=True" if intercept else "")
    if method not in ("'mle'", "None"):
        kw += ", chains=4, steps=60" if method != "'random-scaling'" else ", chains=2, steps=200"
    stream = model != "mixture" and method == "'mle'" and rng.random() < 0.3
    call = (f"fit_stream(((X[i:i+7], y[i:i+7]) for i in range(0, len(X), 7)), {kw})" if stream else
            f"fit(X, {'None' if model == 'mixture' else 'y'}, {kw})")
    code = PY_HEAD + PY_FIT.format(here=here, spec=spec, call=call, need_warn=_undefined(model, defects, intercept))
    exp = either(error(_words(defects), types=("ValueError",)), success(check=py_ok))
    return gpy(f"{cid}-py-{'fit_stream' if stream else 'fit'}-{model}-{'+'.join(d.split(':')[0] for d in defects)}",
               "degenerate", code, exp, label="inference.fit")


PY_EST = '''sys.path.insert(0, {here!r} + "/cases")
from gen_datasets import arrays
X, _ = arrays({spec!r})
{make}
out = np.asarray(out, dtype=float)
R = "ok: finite" if np.all(np.isfinite(out)) else f"NaN/inf in the output ({{int((~np.isfinite(out)).sum())}} of {{out.size}})"
'''
ESTIMATORS = {
    "RobustClassifier": "from gradfree.robust import RobustClassifier\nyc = (np.arange(len(X)) % 3)\n"
                        "out = RobustClassifier(epochs=2, hidden_layer_sizes=(8,), random_state=0).fit(X, yc).predict_proba(X)",
    "NOKDenoiser": "from gradfree.robust import NOKDenoiser\nout = NOKDenoiser(n_components=8).fit(X).transform(X)",
    "IIDSampler": "from gradfree.kernel_approximation import IIDSampler\nout = IIDSampler(n_components=8, random_state=0).fit_transform(X)",
    "SSFSampler": "from gradfree.kernel_approximation import SSFSampler\nout = SSFSampler(n_components=8, random_state=0).fit_transform(X)",
    "QMCSampler": "from gradfree.kernel_approximation import QMCSampler\nout = QMCSampler(n_components=8, random_state=0).fit_transform(X)",
    "OrthogonalSampler": "from gradfree.kernel_approximation import OrthogonalSampler\nout = OrthogonalSampler(n_components=8, random_state=0, gamma={g}).fit_transform(X)",
}


def _pyest(rng, cid, here):
    name, make = pick(rng, ESTIMATORS)
    defects = [rng.choice(["col_const:1", "col_zero:0", "rows_dup", "x_scale:300", "x_scale:-320", "x_scale:200", "one_row",
                           "nan:1:1", "col_dup:1"])]
    spec = {"model": "linear", "n": rng.choice([1, 3, 40]), "p": rng.choice([1, 4, 8]), "seed": rng.randrange(999), "defects": defects}
    code = PY_HEAD + PY_EST.format(here=here, spec=spec, make=make.format(g=rng.choice(["'scale'", "1e-320", "1e300", "1.0"])))
    exp = either(error(_words(defects) + ("gamma", "sample", "class", "feature", "n_components"), types=("ValueError",)),
                 success(check=py_ok))
    return gpy(f"{cid}-py-{name}-{defects[0].split(':')[0]}", "degenerate", code, exp, label=name)


def draw(rng, cid):
    """One case of this kind drawn from rng (see the module docstring)."""
    import os
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    kind = weighted(rng, [(6, "infer"), (2, "features"), (2, "pyfit"), (1, "pyest")])
    if kind == "infer":
        return _infer(rng, cid)
    if kind == "features":
        return _features(rng, cid)
    return _pyfit(rng, cid, here) if kind == "pyfit" else _pyest(rng, cid, here)
