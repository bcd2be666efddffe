"""The Python front ends' arguments at their edges: the QMC engines (d, n, bits, seeds), the
evolution strategies and gradfree.minimize (x0 of every shape and type, sigma0 down to subnormals,
popsize), pycma's interface (fmin2, CMAEvolutionStrategy and its options), scikit-optimize's
Space/Real/Integer/Categorical/Optimizer/gp_minimize/use_named_args, inference.fit with pandas
inputs whose index does not match, fit_stream with dict batches whose columns change,
inference.load of any pickle, the kernel samplers and RobustClassifier.

Right: a gradfree.errors exception (or the peer's documented type) naming the argument, or a
result whose properties hold (finite points of the right shape inside the space and of its
dtype; transform and inverse_transform round trips; a result aligned by index or column name;
rows of probabilities summing to 1). Some draws are strict: a 2-D x0, strings as x0, a prior that
is not a distribution, duplicate names, a pickle of another class."""
from cases.gen_common import *

T = ("TypeError", "ValueError", "OverflowError")


def _qmc(rng):
    eng = rng.choice(["sobol", "sobol", "halton", "subgroup", "korobov", "rank1"])
    if eng == "sobol":
        d = rng.choice([0, 1, 2, 64, 21201, 21202, 40000])
        bits = rng.choice([None, 1, 2, 10, 31, 32, 53, 63, 64, 65])
        seed = rng.choice(["0", "2**64 - 1", "2**64", "-1", "np.random.default_rng(1)"])
        kw = f"seed={seed}" + (f", bits={bits}" if bits is not None else "") + rng.choice(["", ", scramble=False"])
        n = rng.choice([0, 1, 2, 3, 2 ** (bits or 32), 2 ** (bits or 32) + 1, 1024])
        n = n if n * max(d, 1) <= 10**7 else max(1, 10**7 // max(d, 1))
        call = rng.choice([f"random({n})", f"random_base2({rng.choice([0, 1, 5, 32, 33, 64])})", f"integers(0, u_bounds={rng.choice([1, 2**62, 2**64])}, n=4)"])
        make = f"e = gradfree.Sobol({d}, {kw})\nP = e.{call}"
        words = ("d", "bits", "seed", "n", "m", "points", "2**", "2^", "u_bounds", "bounds")
    elif eng == "halton":
        d = rng.choice([1, 2, 1000, 20000, 21202, 10**5])
        make = f"e = gradfree.Halton({d}, seed={rng.choice([0, 7])})\nP = e.random({rng.choice([1, 2, 16])})"
        words = ("d", "dimension")
    else:
        d = rng.choice([0, 1, 2, 5, 50, 10**4])
        n = rng.choice([1, 2, 3, 101, 1009, subgroup_n(max(d, 1), 200), 2**31 - 1, 2**61 - 1])
        ctor = {"subgroup": f"SubgroupLattice({d}, {n})", "korobov": f"KorobovLattice({d}, {min(n, 4001 if d <= 50 else 1009)})",
                "rank1": f"Rank1Lattice({rng.choice(['[1, 3, 5]', '[1]', '[0, 1]', '[2**64, 1]', 'np.arange(1, 6)'])}, {n})"}[eng]
        make = f"e = gradfree.{ctor}\nP = e.random({rng.choice([1, 3, 8])})"
        words = ("d", "n", "z", "prime", "dimension", "points")
    code = PY_HEAD + make + ("\nP = np.asarray(P)\nR = ('ok' if P.ndim == 2 and (P.size == 0 or (np.isfinite(P).all() and "
                             "(P.min() >= 0) and (P.max() < 1 or P.dtype.kind in 'iu'))) else f'bad points: shape {P.shape}, "
                             "range {P.min() if P.size else None}..{P.max() if P.size else None}')")
    return eng, code, either(error(tuple(Exact(w) if len(w) == 1 else w for w in words), types=("ValueError",)),
                             success(check=py_ok)), 30


X0 = [("np.zeros(3)", None), ("[0.5, -0.5]", None), ("np.zeros(0)", "x0"), ("np.zeros((2, 2))", "x0"),
      ("[[0.0, 1.0]]", "x0"), ("['a', 'b']", "x0"), ("[1e308, -1e308]", None), ("[np.nan, 0.0]", "x0"),
      ("np.zeros(3, dtype=np.float32)", None), ("np.zeros(3, dtype=int)", None), ("[True, False]", None),
      ("5.0", None), ("range(3)", None), ("[1 + 1j, 2.0]", "x0"), ("np.zeros(100000)", None)]
SIGMA = ["0.5", "5e-324", "1e-300", "1e300", "1e308", "0", "-1", "float('nan')", "float('inf')", "np.array([0.5, 0.5])"]


def _es(rng):
    cls = rng.choice(["CMAES", "INGO", "FastINGO", "XNES", "MiNES", "ARS", "OpenAIES", "LQCMAES"])
    x0, strict = rng.choice(X0)
    sig = rng.choice(SIGMA)
    pop = rng.choice(["", "", ", popsize=1", ", popsize=2", ", popsize=10**6", ", popsize=2**63"])
    code = PY_HEAD + (f"es = gradfree.{cls}({x0}, {sig}, seed=1{pop})\nfor _ in range(2):\n    X = np.asarray(es.ask())\n"
                      "    es.tell(X, [float(np.sum(np.square(x))) for x in X])\n"
                      "R = 'ok' if np.isfinite(X).all() and X.ndim == 2 and X.shape[1] == len(np.atleast_1d(es.result.xbest)) "
                      "else f'bad population {X.shape} finite={np.isfinite(X).all()}'")
    # "stopped": a sigma0 below the tol-x rule ends the run in its first generation; asking again
    # is an error that names the stop rule (the loop here does not check stop()).
    words = ("x0", "sigma0", "popsize", "population size", "dimension", "memory", "objective", "stopped")
    exp = error(words) if strict else either(error(words), success(check=py_ok))
    return cls, code, exp, 30


def _pycma(rng):
    x0, strict = rng.choice(X0[:12])
    if x0 == "[[0.0, 1.0]]":
        strict = None       # pycma flattens an x0 of shape (1, d) or (d, 1) (and warns)
    sig = rng.choice(SIGMA[:7])
    opt = rng.choice(["{}", "{'maxfevals': 0}", "{'maxfevals': 1}", "{'maxfevals': 1e308}", "{'maxfevals': -1}",
                      "{'popsize': 1}", "{'popsize': 2}", "{'popsize': '4 + 3 * np.log(N)'}", "{'bounds': [-1, 1]}",
                      "{'bounds': [1, -1]}", "{'bounds': [None, 0]}", "{'seed': 2**64}", "{'seed': -1}",
                      "{'tolfun': -1}", "{'maxiter': 0}", "{'CMA_diagonal': True}", "{'verb_disp': 0}"])
    how = rng.choice(["fmin2", "es", "big"])
    if how == "big":
        k = rng.choice([6, 7, 8, 9])
        code = PY_HEAD + f"es = gradfree.es.CMAEvolutionStrategy(np.zeros(10**{k}), 0.5)\nR = 'ok' if len(es.ask()) > 0 else 'no population'"
        return "CMAEvolutionStrategy-big", code, either(error(("x0", "dimension", "memory", "N =")), success(check=py_ok)), 25
    if how == "fmin2":
        code = PY_HEAD + (f"opts = dict({opt}, verbose=-9)\nx, es = gradfree.es.fmin2(lambda x: float(np.sum(np.square(x))), {x0}, {sig}, opts)\n"
                          "R = 'ok' if np.isfinite(es.result.fbest) and np.isfinite(x).all() else f'non-finite result {es.result.fbest}'")
    else:
        code = PY_HEAD + (f"opts = dict({opt}, verbose=-9)\nes = gradfree.es.CMAEvolutionStrategy({x0}, {sig}, opts)\n"
                          "while not es.stop() and es.countiter < 5:\n    X = es.ask(); es.tell(X, [float(np.sum(np.square(x))) for x in X])\n"
                          "R = 'ok' if all(np.isfinite(np.asarray(x)).all() for x in X) else 'non-finite points'")
    words = ("x0", "sigma0", "maxfevals", "popsize", "population size", "bounds", "seed", "tolfun", "maxiter", "option",
             "objective")
    return how, code, (error(words) if strict else either(error(words), success(check=py_ok))), 40


def _minimize(rng):
    x0, strict = rng.choice(X0[:14])
    meth = rng.choice(["None", "'cmaes'", "'ingo'", "'fast-ingo'", "'ga'", "'ingo-bernoulli'", "'xnes'", "'nesterov-spokoiny'"])
    extra = rng.choice(["", ", max_evals=1", ", max_evals=3", ", max_evals=10**18, max_gens=3", ", sigma0=5e-324",
                        ", bounds=([-1e308] * 2, [1e308] * 2)", ", bounds=([0, 0], [0, 1])", ", seed=2**64"])
    if "max_evals" not in extra:
        extra += ", max_evals=300"
    code = PY_HEAD + (f"r = gradfree.minimize(lambda x: float(np.sum(np.square(x))), {x0}, method={meth}{extra})\n"
                      "R = 'ok' if np.isfinite(r.x).all() and np.isfinite(r.fun) else f'non-finite result {r.x}, {r.fun}'")
    words = ("x0", "method", "max_evals", "sigma0", "bounds", "seed", "dimension", "population size", "objective")
    return "minimize", code, (error(words) if strict else either(error(words), success(check=py_ok))), 40


def _space(rng):
    kind = rng.choice(["real", "integer", "categorical"])
    if kind == "real":
        lo, hi = rng.choice([("0", "10"), ("0", "0"), ("1", "0"), ("5e-324", "1e308"), ("-np.inf", "0"), ("np.nan", "1"),
                             ("0", "1e308"), ("1e-300", "1e300")])
        prior = rng.choice(["'uniform'", "'log-uniform'"])
        dtype = rng.choice(["float", "int", "np.float32", "'int'", "str"])
        dim = f"bo.Real({lo}, {hi}, prior={prior}, dtype={dtype}, transform={rng.choice(['None', repr('normalize')])})"
        strict = "dtype" if dtype == "str" else None
        lo_hi = f"{lo}, {hi}"
        prop = (f"lo, hi = {lo_hi}\nok = all(lo <= v <= hi for v in vals) and all(isinstance(v, (int, np.integer)) for v in vals) "
                f"if {dtype!r} in ('int', \"'int'\") else all(lo <= v <= hi for v in vals)")
    elif kind == "integer":
        lo, hi = rng.choice([("0", "2**70"), ("-2**63", "2**63 - 1"), ("5", "5"), ("5", "4"), ("0.5", "3"), ("0", "10"),
                             ("-10**30", "10**30"), ("0", "2**53 + 1")])
        dim = f"bo.Integer({lo}, {hi}{rng.choice(['', ', prior=' + repr('log-uniform'), ', transform=' + repr('normalize')])})"
        strict = None
        prop = f"lo, hi = {lo}, {hi}\nok = all(float(lo) <= v <= float(hi) and float(v) == int(v) for v in vals)"
    else:
        cats = rng.choice(["['a', 'b', 'c']", "['a']", "[]", "['a', 'a']", "[1, '1']", "[None, 'x']", "[1.0, 1]",
                           "[True, 1]", "list(range(1000))"])
        prior = rng.choice(["None", "None", "[1.5, -0.5, 0.0]", "[0.2, 0.3, 0.5]", "[0.0, 1.0, 0.0]",
                            "[np.nan, 0.5, 0.5]", "[0.5, 0.5]"])
        dim = f"bo.Categorical({cats}, prior={prior})"
        ncat = {"['a', 'b', 'c']": 3, "['a']": 1, "[]": 0, "['a', 'a']": 2, "[1, '1']": 2, "[None, 'x']": 2, "[1.0, 1]": 2,
                "[True, 1]": 2, "list(range(1000))": 1000}[cats]
        bad_prior = prior != "None" and (prior in ("[1.5, -0.5, 0.0]", "[np.nan, 0.5, 0.5]") or prior.count(",") + 1 != ncat)
        # no categories is refused; equal categories ([1.0, 1]) scikit-optimize accepts and gradfree
        # refuses: either is right, and with a bad prior either refusal is
        dup = cats in ("['a', 'a']", "[1.0, 1]")
        strict = "categor" if cats == "[]" else (("prior", "categor") if bad_prior and dup else "prior" if bad_prior else None)
        prop = f"ok = all(any(v is c or (type(v) is type(c) and v == c) for c in {cats}) for v in vals)"
    code = PY_HEAD + ("from gradfree import bo\n" + f"d = {dim}\nsp = bo.Space([d])\nvals = [p[0] for p in sp.rvs(20, random_state=3)]\n"
                      + prop + "\nback = [p[0] for p in sp.inverse_transform(sp.transform([[v] for v in vals]))]\n"
                      "same = all(a == b or (a != a and b != b) for a, b in zip(back, vals)) and "
                      "all(type(a) is type(b) for a, b in zip(back, vals))\n"
                      "R = 'ok' if ok and same else f'bad draws or round trip: {vals[:4]} -> {back[:4]} (in space {ok}, round trip {same})'")
    words = ("low", "high", "bound", "prior", "dtype", "categor", "transform", "base", "dimension")
    exp = error(strict, types=("ValueError",)) if strict else either(error(words, types=("ValueError",)), success(check=py_ok))
    return f"bo-{kind}", code, exp, 30


def _bo_run(rng):
    how = rng.choice(["gp_minimize", "Optimizer", "use_named_args"])
    if how == "use_named_args":
        names = rng.choice([("'a'", "'b'"), ("'a'", "'a'"), ("'a'", "None"), ("'a b'", "'c'"), ("''", "'c'"), ("'x'", "'y'")])
        code = PY_HEAD + ("from gradfree import bo\n" + f"sp = [bo.Real(0, 1, name={names[0]}), bo.Integer(0, 5, name={names[1]})]\n"
                          "@bo.use_named_args(sp)\ndef f(**kw):\n    return kw\nkw = f([0.25, 3])\n"
                          f"R = 'ok' if list(kw.values()) == [0.25, 3] and len(kw) == 2 else f'arguments lost or merged: {{kw}}'")
        strict = "name" if names in (("'a'", "'a'"), ("'a'", "None")) else None
        return how, code, (error(strict) if strict else either(error(("name",), types=T), success(check=py_ok))), 30
    dims = rng.choice(["[(-2.0, 2.0)]", "[(-2.0, 2.0), (0, 5)]", "[bo.Real(-1, 1), bo.Categorical(['a', 'b'])]",
                       "[(0.0, 1e308)]", "[(-5e-324, 5e-324)]", "[(0, 2**70)]"])
    if how == "gp_minimize":
        kw = rng.choice(["n_calls=12", "n_calls=1", "n_calls=3, n_initial_points=5", "n_calls=12, n_jobs=-1", "n_calls=12, n_jobs=0",
                         "n_calls=12, n_jobs=10**9", "n_calls=12, random_state=2**64", "n_calls=12, acq_func='PI'",
                         "n_calls=12, x0=[[0.0]], y0=[1.0, 2.0]", "n_calls=12, noise=1e-300"])
        code = PY_HEAD + ("from gradfree import bo\ndef f(x):\n    return float(sum(abs(float(v)) if not isinstance(v, str) else 1.0 for v in x))\n"
                          f"sp = bo.Space({dims})\nr = bo.gp_minimize(f, {dims}, {kw})\n"
                          "R = 'ok' if r.fun == min(r.func_vals) and all(p in sp for p in r.x_iters) else f'bad result {r.x}, {r.fun}'")
        words = ("n_calls", "n_initial_points", "n_jobs", "random_state", "acq_func", "x0", "y0", "noise", "dimension", "bound")
        strict = "n_jobs" if "n_jobs=0" in kw else ("y0" if "y0=[1.0, 2.0]" in kw else None)
        if strict and dims == "[(0, 2**70)]":
            strict = (strict, "high")     # two wrong arguments: either refusal names one
    else:
        kw = rng.choice(["", "n_initial_points=0", "n_initial_points=1", "n_initial_points=10**6", "random_state=-1",
                         "acq_func='LCB', acq_func_kwargs={'kappa': -1}", "base_estimator='RF'", "n_jobs=10**9"])
        code = PY_HEAD + ("from gradfree import bo\ndef f(x):\n    return float(sum(abs(float(v)) if not isinstance(v, str) else 1.0 for v in x))\n"
                          f"o = bo.Optimizer({dims}{', ' + kw if kw else ''})\nfor _ in range(3):\n    x = o.ask(); o.tell(x, f(x))\n"
                          "R = 'ok' if all(p in o.space for p in o.Xi) else f'points outside the space: {o.Xi}'")
        words = ("n_initial_points", "random_state", "kappa", "base_estimator", "n_jobs", "dimension", "bound", "high", "low")
        strict = None
    return how, code, (error(strict) if strict else either(error(words, types=("ValueError",)), success(check=py_ok))), 60


PANDAS = '''import pandas as pd
from gradfree.inference import fit, fit_stream
rng = np.random.default_rng({s}); n = 120
X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
yv = (rng.random(n) < 1 / (1 + np.exp(-X.values @ [1.0, -0.5, 0.3]))).astype(float)
'''


def _pandas(rng):
    s = rng.randrange(999)
    how = rng.choice(["index", "index", "stream-dict", "load"])
    if how == "index":
        name, idx = rng.choice([("same", "X.index"), ("reversed", "X.index[::-1]"), ("shifted", "X.index + 1000"),
                                ("permuted", "rng.permutation(n)"), ("labels", "[f'r{i}' for i in range(n)]")])
        code = PY_HEAD + PANDAS.format(s=s) + (
            f"y = pd.Series(yv, index={idx})\n" + ("X.index = y.index\n" if name == "labels" else "") +
            "r = fit(X, y)\npos = fit(X.values, y.values)\n"
            "if y.index.isin(X.index).all():\n    ref = fit(X.values, y.reindex(X.index).values)\n"
            "    R = 'ok' if np.allclose(r.params, ref.params) else ('y fitted by position: its index does not match X' "
            "if np.allclose(r.params, pos.params) else 'another result')\n"
            "else:\n    R = 'y fitted by position although no label of its index is in X'")
        return f"fit-pandas-index-{name}", code, either(error(("index", "align")), success(check=py_ok)), 40
    if how == "stream-dict":
        change = rng.choice(["same", "renamed", "reordered", "extra", "missing"])
        code = PY_HEAD + PANDAS.format(s=s) + (
            "def batches():\n    for i in range(0, n, 40):\n        d = {k: X[k].values[i:i+40] for k in X}\n"
            "        d['y'] = yv[i:i+40]\n        if i >= 40:\n"
            + {"same": "            pass\n", "renamed": "            d['z'] = d.pop('c')\n",
               "reordered": "            d = {k: d[k] for k in ['c', 'a', 'y', 'b']}\n",
               "extra": "            d['w'] = d['a'] * 2\n", "missing": "            del d['b']\n"}[change]
            + "        yield d\nr = fit_stream(batches(), target='y')\nref = fit(X.values, yv)\n"
            "R = 'ok' if np.allclose(r.params, ref.params, rtol=1e-6) else 'columns merged by position or lost: ' + str(np.round(r.params, 3))")
        exp = either(error(("column", "name", "key")), success(check=py_ok)) if change in ("same", "reordered") else error(("column", "name", "key"))
        return f"fit_stream-dict-{change}", code, exp, 40
    obj = rng.choice(["{'a': 1}", "[1, 2, 3]", "np.arange(4)", "gradfree.Sobol(2, seed=1)", "gradfree.CMAES([0.0, 0.0], 0.5)"])
    code = PY_HEAD + (f"from gradfree import inference\nwith open('r.pkl', 'wb') as fh:\n    pickle.dump({obj}, fh)\n"
                      "R = type(inference.load('r.pkl')).__name__")
    return "inference-load", code, error(("r.pkl", "result", "InferenceResults", "not a")), 30


def _sampler(rng):
    cls = rng.choice(["IIDSampler", "OrthogonalSampler", "CirculantSampler", "QMCSampler", "SSFSampler"])
    nc = rng.choice([0, 1, 2, 3, 17, 64, 10**9])
    g = rng.choice(["'scale'", "1.0", "5e-324", "1e-320", "1e300", "-1.0", "0.0", "float('nan')"])
    kern = rng.choice(["'rbf'", "'rbf'", "'arccos0'", "'arccos1'", "'poly'"])
    code = PY_HEAD + (f"from gradfree.kernel_approximation import {cls}\nX = np.random.default_rng(1).normal(size=(30, 8))\n"
                      f"Z = {cls}(kernel={kern}, gamma={g}, n_components={nc}, random_state=0).fit_transform(X)\n"
                      f"R = 'ok' if Z.shape == (30, {nc}) and np.isfinite(Z).all() else f'bad features: shape {{Z.shape}}, finite {{np.isfinite(Z).all()}}'")
    return cls, code, either(error(("n_components", "gamma", "kernel", "memory"), types=("ValueError",)), success(check=py_ok)), 40


def _robust(rng):
    kw = rng.choice(["learning_rate=5e-324", "learning_rate=1e-300", "batch_size=10**9", "batch_size=1", "noise_rate=0.0",
                     "noise_rate=0.999", "hidden_layer_sizes=(1,)", "loss='hinge'", "loss='gce'", "optimizer='sgd'",
                     "burn_in=10**9", "random_state=2**32"])
    code = PY_HEAD + ("from gradfree.robust import RobustClassifier\nfrom sklearn.datasets import load_digits\n"
                      "X, y = load_digits(return_X_y=True); X, y = X[:300] / 16, y[:300]\n"
                      f"P = RobustClassifier(epochs=2, {kw}).fit(X, y).predict_proba(X[:20])\n"
                      "R = 'ok' if np.isfinite(P).all() and np.allclose(P.sum(1), 1) else f'bad probabilities: {P[0][:4]}'")
    words = ("learning_rate", "batch_size", "noise_rate", "hidden_layer_sizes", "loss", "optimizer", "burn_in", "random_state", "seed")
    return "RobustClassifier", code, either(error(words, types=("ValueError",)), success(check=py_ok)), 60


def draw(rng, cid):
    """One case of this kind drawn from rng (see the module docstring)."""
    kind = weighted(rng, [(3, _qmc), (3, _es), (3, _pycma), (2, _minimize), (3, _space), (3, _bo_run), (3, _pandas),
                          (2, _sampler), (1, _robust)])
    name, code, exp, timeout = kind(rng)
    return gpy(f"{cid}-{name}", "pyapi", code, exp, timeout=timeout, label=name.split("-")[0])
