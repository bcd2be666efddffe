"""Corrupted pickles: every picklable gradfree object (each evolution strategy, pycma's
CMAEvolutionStrategy, the BO Optimizer and gp_minimize's result, the inference results, the QMC
engines, the kernel samplers, RobustClassifier and NOKDenoiser), advanced a little, pickled, then
damaged (a bit flipped, a byte replaced, inserted or deleted, the stream truncated, a digit of a
number or the last bit of a float changed, several bits flipped), loaded and continued.

Right: an exception at load (any: the stream is broken), or at the next use a gradfree.errors
exception, or an object whose continuation equals the undamaged one's. A different state loaded
silently is `silent-wrong-result`; a damaged state that loads and then fails with a foreign
exception is `wrong-message`."""
from cases.gen_common import *

CONT = "np.linspace(-1, 1, {d}) * {scale}"
ES = ["INGO", "INGOstep", "FastINGO", "IGO", "CMAES", "LQCMAES", "MiNES", "XNES", "OpenAIES", "ASEBO", "ARS",
      "NesterovSpokoiny"]
DISCRETE = ["BernoulliINGO", "CategoricalINGO", "GA"]
XY = ("rng = np.random.default_rng({s}); X = rng.normal(size=({n}, 3)); "
      "y = (rng.random({n}) < 1 / (1 + np.exp(-X @ [1.0, -0.5, 0.3]))).astype(float)\n")
RESULT_FP = '''def fp(r):
    out = [np.asarray(r.params).tobytes()]
    for name in ("bse", "process_sd", "nobs", "llf"):
        try:
            out.append(repr(np.asarray(getattr(r, name)).tolist()))
        except Exception as e:
            out.append(type(e).__name__)
    for call in (lambda: r.conf_int(), lambda: r.bands(0.1)[0]):
        try:
            out.append(np.asarray(call()).tobytes())
        except Exception as e:
            out.append(type(e).__name__)
    return out
'''


def _maker(rng):
    """(name, code defining obj and fp(o), the continuation's fingerprint)."""
    kind = weighted(rng, [(5, "es"), (2, "discrete"), (2, "pycma"), (3, "bo"), (1, "bo-result"), (3, "result"),
                          (3, "qmc"), (2, "sampler"), (1, "robust"), (1, "nok")])
    s = rng.randrange(1, 1000)
    if kind == "es":
        cls, d, g = rng.choice(ES), rng.choice([2, 3, 5, 10]), rng.choice([0, 1, 3])
        code = (f"obj = gradfree.{cls}({CONT.format(d=d, scale=rng.choice([1, 1e-3, 1e3]))}, 0.5, seed={s})\n"
                f"for _ in range({g}):\n    X = obj.ask(); obj.tell(X, [float(x @ x) for x in X])\n"
                "def fp(o):\n    X = np.asarray(o.ask()); o.tell(X, [float(x @ x) for x in X])\n"
                "    return (X.tobytes(), np.asarray(o.ask()).tobytes(), repr(o.result.fbest))\n")
        return cls, code
    if kind == "discrete":
        cls, d = rng.choice(DISCRETE), rng.choice([4, 10, 30])
        code = (f"obj = gradfree.{cls}({d}, seed={s})\nX = obj.ask(); obj.tell(X, [float(np.sum(x)) for x in X])\n"
                "def fp(o):\n    X = np.asarray(o.ask()); o.tell(X, [float(np.sum(x)) for x in X])\n"
                "    return (X.tobytes(), np.asarray(o.ask()).tobytes())\n")
        return cls, code
    if kind == "pycma":
        d = rng.choice([2, 4, 8])
        code = (f"obj = gradfree.es.CMAEvolutionStrategy(np.full({d}, 0.3), 0.5, {{'seed': {s}, 'verbose': -9}})\n"
                f"for _ in range({rng.choice([1, 3])}):\n    X = obj.ask(); obj.tell(X, [float(np.sum(np.square(x))) for x in X])\n"
                "def fp(o):\n    X = np.asarray(o.ask()); o.tell(list(X), [float(x @ x) for x in X])\n"
                "    return (X.tobytes(), np.asarray(o.ask()).tobytes(), repr(o.result.fbest), o.countiter)\n")
        return "CMAEvolutionStrategy", code
    if kind == "bo":
        told = rng.choice([0, 2, 5, 8])
        code = ("from gradfree import bo\n"
                f"obj = bo.Optimizer([bo.Real(-2, 2), bo.Integer(0, 5), bo.Categorical(['a', 'b', 'c'])], random_state={s}, "
                f"n_initial_points=4)\nfor _ in range({told}):\n    x = obj.ask(); obj.tell(x, float(x[0] ** 2 + x[1] + (x[2] == 'b')))\n"
                "def fp(o):\n    return repr((o.Xi, o.yi, o.ask()))\n")
        return "bo.Optimizer", code
    if kind == "bo-result":
        code = ("from gradfree import bo\ndef f(x):\n    return float(x[0] ** 2 + abs(x[1] - 1))\n"
                f"obj = bo.gp_minimize(f, [(-2.0, 2.0), (0, 4)], n_calls=12, n_initial_points=6, random_state={s})\n"
                "def fp(r):\n    return repr((r.x, r.fun, r.x_iters, list(r.func_vals)))\n")
        return "bo.OptimizeResult", code
    if kind == "result":
        how = rng.choice(["fit(X, y)", "fit(X, y, intercept=True, cov_type='HC0')", "fit(X, y, model='linear')",
                          "fit(X, y, method='masgrad', steps=20, chains=4)", "fit(X, y, method='sgd', steps=20, chains=4)",
                          "fit(X, y, method='random-scaling', steps=50, chains=2)", "fit_stream(((X[i:i+50], y[i:i+50]) for i in range(0, len(X), 50)))"])
        code = ("from gradfree.inference import fit, fit_stream\n" + XY.format(s=s, n=rng.choice([60, 300]))
                + f"obj = {how}\n" + RESULT_FP)
        return "inference." + how.split("(")[0], code
    if kind == "qmc":
        eng = rng.choice(["Sobol({d}, seed={s})", "Sobol({d}, seed={s}, scramble=False)", "Halton({d}, seed={s})",
                          "SubgroupLattice(5, 101)", "KorobovLattice(4, 101)", "Rank1Lattice([1, 3, 5], 31)",
                          "SearchedLattice(4, 101)"])
        code = (f"obj = gradfree.{eng.format(d=rng.choice([1, 3, 16]), s=s)}\nobj.random({rng.choice([0, 3, 8])})\n"
                "def fp(o):\n    return o.random(4).tobytes()\n")
        return eng.split("(")[0], code
    if kind == "sampler":
        cls = rng.choice(["IIDSampler", "OrthogonalSampler", "CirculantSampler", "QMCSampler", "SSFSampler"])
        code = (f"from gradfree.kernel_approximation import {cls}\nrng = np.random.default_rng({s}); X = rng.normal(size=(40, 8))\n"
                f"obj = {cls}(n_components=16, random_state={s}).fit(X)\n"
                "def fp(o):\n    return o.transform(X).tobytes()\n")
        return cls, code
    if kind == "robust":
        code = ("from gradfree.robust import RobustClassifier\nfrom sklearn.datasets import load_digits\n"
                "X, y = load_digits(return_X_y=True); X, y = X[:200] / 16, y[:200]\n"
                f"obj = RobustClassifier(epochs=1, hidden_layer_sizes=(8,), random_state={s}).fit(X, y)\n"
                "def fp(o):\n    return o.predict_proba(X[:20]).tobytes()\n")
        return "RobustClassifier", code
    code = ("from gradfree.robust import NOKDenoiser\nrng = np.random.default_rng(%d); X = rng.normal(size=(30, 8))\n"
            "obj = NOKDenoiser(n_components=16).fit(X)\ndef fp(o):\n    return o.transform(X).tobytes()\n") % s
    return "NOKDenoiser", code


def _mutation(rng):
    """(label, code changing the bytearray m of length n)."""
    u, v = round(rng.random(), 6), rng.randrange(256)
    kind = weighted(rng, [(4, "bitflip"), (1, "byte"), (2, "truncate"), (1, "insert"), (1, "delete"), (3, "digit"),
                          (3, "float"), (1, "flips")])
    if kind == "bitflip":
        return kind, f"m[int({u} * len(m))] ^= 1 << {v % 8}"
    if kind == "byte":
        return kind, f"i = int({u} * len(m)); m[i] = {v} if m[i] != {v} else {v ^ 0xFF}"
    if kind == "truncate":
        return kind, f"del m[max(1, int({u} * len(m))):]"
    if kind == "insert":
        return kind, f"i = int({u} * len(m)); m[i:i] = bytes([{v}])"
    if kind == "delete":
        return kind, f"del m[int({u} * len(m))]"
    if kind == "digit":        # a digit of a number in a text field (JSON state): still parses, other value
        return kind, (f"ds = [i for i, c in enumerate(m) if 48 <= c <= 57]\ni = ds[int({u} * len(ds))]\n"
                      f"m[i] = 48 + (m[i] - 48 + 1 + {v % 8}) % 10")
    if kind == "float":        # the last mantissa bit of a binary float (pickle BINFLOAT or array data)
        return kind, (f"fs = [i + 8 for i, c in enumerate(m[:-8]) if c == 0x47] or list(range(len(m) - 8, len(m)))\n"
                      f"m[fs[int({u} * len(fs))]] ^= 1")
    k = rng.choice([2, 3, 8])
    pos = [round(rng.random(), 6) for _ in range(k)]
    return kind, f"for p in {pos}:\n    m[int(p * len(m))] ^= 1 << {v % 8}"


TEMPLATE = '''class _Refused(Exception):
    """The damaged stream did not load (any exception: the stream is broken)."""
warnings.simplefilter("ignore")
{make}b = pickle.dumps(obj, protocol={proto})
ref = fp(pickle.loads(b))
m = bytearray(b)
{mutate}
m = bytes(m)
if m == b:
    R = "ok: the damage left the bytes as they were"
else:
    try:
        o2 = pickle.loads(m)
    except Exception as e:
        raise _Refused(f"{{type(e).__name__}}: {{str(e)[:300]}}")
    if type(o2) is not type(obj):
        # A damaged stream that no longer reaches the class's restore (e.g. a STOP opcode
        # inserted after the state's bytes): Python's pickle returns that fragment and gradfree's
        # code never runs, so no state of the class was loaded; a type check sees it at once.
        raise _Refused(f"pickle.loads returned a {{type(o2).__name__}}, not a {{type(obj).__name__}}")
    try:
        got = fp(o2)
    except E.GradfreeError:
        raise
    except Exception as e:
        raise RuntimeError(f"the damaged state loaded, then failed outside gradfree.errors: {{type(e).__name__}}: {{e}}")
    R = "ok: the same state" if got == ref else "DIFFERENT state loaded silently ({label})"
'''


def draw(rng, cid):
    """One case of this kind drawn from rng (see the module docstring)."""
    name, make = _maker(rng)
    label, mutate = _mutation(rng)
    proto = rng.choice([2, 4, 5])
    code = PY_HEAD + TEMPLATE.format(make=make, proto=proto, mutate=mutate, label=f"{name}, {label}")
    exp = either(error(types=("_Refused",), json_ok=True), success(check=py_ok))
    return gpy(f"{cid}-{name.replace('.', '-')}-{label}", "pickles", code, exp, timeout=60, label=name)
