"""Python front end: QMC engines and functions, evolution strategies (ask/tell, optimize, pickles),
minimize, Problem, bo; tampered pickled states (the Python form of a checkpoint)."""
from cases.common import *

E, OK = error, success
D_, N_, M_, Z_ = SYM("d") + (Exact("its d,"),), SYM("n"), SYM("m"), SYM("z")
OBJ = ("objective", "f(x)")
UNPICKLE = ("UnpicklingError",)
L = "qmc"
for cid, cat, code, exp in [
    ("py-sobol-d0", "sizes", "R = gradfree.Sobol(0, seed=1).random(4).shape", OK(check=py_is("(4, 0)"))),
    ("py-sobol-dneg", "sizes", "R = gradfree.Sobol(-1)", E(D_)),
    ("py-sobol-dmax", "sizes", "R = gradfree.Sobol(21202)", E(D_)),
    ("py-sobol-bits0", "sizes", "R = gradfree.Sobol(2, bits=0)", E("bits")),
    ("py-sobol-bits65", "sizes", "R = gradfree.Sobol(2, bits=65)", E("bits")),
    ("py-sobol-n-neg", "sizes", "R = gradfree.Sobol(2, seed=1).random(-1)", E(N_)),
    ("py-sobol-n-2^32+1", "sizes", "R = gradfree.Sobol(1, seed=1).random(2**32 + 1)", E("2**32")),
    ("py-sobol-n-huge-mem", "sizes", "R = gradfree.Sobol(64, seed=1, bits=64).random(2**40)", E("points")),
    ("py-sobol-base2-neg", "sizes", "R = gradfree.Sobol(2, seed=1).random_base2(-1)", E(M_)),
    ("py-sobol-base2-40", "sizes", "R = gradfree.Sobol(2, seed=1).random_base2(40)", E("2**32")),
    ("py-sobol-ff-neg", "sizes", "s = gradfree.Sobol(2, seed=1)\nR = s.fast_forward(-1)", E(N_)),
    ("py-sobol-ff-huge", "sizes", "s = gradfree.Sobol(2, seed=1)\ns.fast_forward(2**40)\nR = s.random(2)", E("2^32")),
    ("py-sobol-integers-bad", "data", "R = gradfree.Sobol(2, seed=1).integers(l_bounds=5, u_bounds=1, n=4)", E("bounds", types=("ValueError",))),
    ("py-sobol-seed-and-rng", "data", "R = gradfree.Sobol(2, seed=1, rng=1)", E("seed", types=("TypeError",))),
    ("py-sobol-seed-neg", "data", "R = gradfree.Sobol(2, seed=-1)", E("seed")),
    ("py-sobol-seed-2^64", "data", "R = gradfree.Sobol(2, seed=2**64).random(2).shape", OK()),    # a SeedSequence entropy, as in scipy
    ("py-sobol-rng-str", "data", "R = gradfree.Sobol(2, rng='abc')", E("rng")),
    ("py-sobol-method-bad", "data", "R = gradfree.Sobol(2, method='nus')", E("method")),
    ("py-sobol-optimization-bad", "data", "R = gradfree.Sobol(2, optimization='annealing')", E("optimization", types=("ValueError",))),
    ("py-sobol-lloyd-d1", "data", "R = gradfree.Sobol(1, seed=1, optimization='lloyd').random(8).ravel().round(3).tolist()", E("lloyd")),
    ("py-sobol-pickle-tamper", "checkpoints", "import pickle\nb = bytearray(pickle.dumps(gradfree.Sobol(3, seed=1)))\ni = len(b) // 2\n"
     "b[i] ^= 0xFF\nR = pickle.loads(bytes(b)).random(2)", E(types=UNPICKLE)),
    ("py-halton-d0", "sizes", "R = gradfree.Halton(0, seed=1).random(3).shape", OK()),
    ("py-halton-dhuge", "sizes", "R = gradfree.Halton(10**6, seed=1)", E(D_)),
    ("py-subgroup-bad-n", "sizes", "R = gradfree.SubgroupLattice(50, 100)", E(N_)),
    ("py-subgroup-d0", "sizes", "R = gradfree.SubgroupLattice(0, 5)", E(D_)),
    ("py-subgroup-n-huge-prime", "sizes", "R = gradfree.SubgroupLattice(1, 2**61 - 1).random(2)", OK()),
    ("py-subgroup-random-more-than-n", "sizes", "l = gradfree.SubgroupLattice(5, 101)\nR = l.random(303).shape", E(N_)),
    ("py-korobov-huge", "sizes", "R = gradfree.KorobovLattice(50, 10**9)", E(N_)),
    ("py-rank1-n0", "sizes", "R = gradfree.Rank1Lattice([1, 2], 0)", E(N_)),
    ("py-rank1-z-empty", "sizes", "R = gradfree.Rank1Lattice([], 7).random(3).shape", E(Z_)),
    ("py-rank1-z-neg", "data", "R = gradfree.Rank1Lattice([1, -3], 7).random(7).round(3).tolist()", E(Z_)),
    ("py-rank1-z-float", "data", "R = gradfree.Rank1Lattice([1, 2.5], 7).random(7)", E(Z_)),
    ("py-mindist-bad-metric", "data", "R = gradfree.qmc.min_distance([1, 3], 101, metric='linf')", E("metric")),
    ("py-mindist-huge", "sizes", "R = gradfree.qmc.min_distance(list(range(1, 100001)), 10**9)", E(("2^36", "n d"))),
    ("py-disc-outside", "data", "R = gradfree.qmc.discrepancy(np.array([[0.5, 1.5], [0.2, 0.1]]))", E("sample")),
    ("py-disc-nan", "data", "R = gradfree.qmc.discrepancy(np.array([[0.5, np.nan], [0.2, 0.1]]))", E("sample")),
    ("py-disc-empty", "data", "R = gradfree.qmc.discrepancy(np.zeros((0, 2)))", E("points")),
    ("py-disc-method-bad", "data", "R = gradfree.qmc.discrepancy(gradfree.Sobol(2, seed=0).random(8), method='XX')", E("method")),
    ("py-disc-workers0", "data", "R = gradfree.qmc.discrepancy(gradfree.Sobol(2, seed=0).random(8), workers=0)", E("workers")),
    ("py-disc-1d", "data", "R = gradfree.qmc.discrepancy(gradfree.Sobol(1, seed=0).random(8).ravel())", E("2D")),
    ("py-lattice-search-bad", "data", "R = gradfree.qmc.lattice_search(10, 1000, method='alg11', top=0)", E("top")),
    ("py-korobov-fn-n1", "data", "R = gradfree.qmc.korobov(2, 1)", E(N_)),
]:
    py(cid, cat, code, exp, label=L, timeout=120 if "mindist" in cid else 60)

L = "es"
C2 = "gradfree.CMAES([0.0, 0.0], 0.5"
ES = "es = gradfree.CMAES([0.0, 0.0], 0.5, seed=1)\n"
NF = E("on_nonfinite")
for cid, cat, code, exp in [
    ("py-es-x0-empty", "sizes", "R = gradfree.INGO(np.zeros(0), 0.5)", E("x0")),
    ("py-es-x0-huge", "sizes", "R = gradfree.INGO(np.zeros(200000), 0.5)", E("dimension")),
    ("py-es-x0-nan", "data", "R = gradfree.CMAES([0.0, np.nan], 0.5)", E("x0")),
    ("py-es-x0-1e300", "data", "es = gradfree.CMAES([1e300, 0.0], 0.5, seed=1)\nX = es.ask(); R = X[:2].tolist()", OK()),
    ("py-es-x0-2d", "data", "R = gradfree.CMAES(np.zeros((2, 2)), 0.5)", E("x0")),
    ("py-es-sigma0-zero", "data", "R = gradfree.CMAES([0.0, 0.0], 0.0)", E("sigma0")),
    ("py-es-sigma0-nan", "data", "R = gradfree.CMAES([0.0, 0.0], float('nan'))", E("sigma0")),
    ("py-es-popsize0", "sizes", f"R = {C2}, popsize=0)", E("popsize")),
    ("py-es-popsize-huge", "sizes", f"R = {C2}, popsize=2**63)", E("popsize")),
    ("py-es-popsize-neg", "sizes", f"R = {C2}, popsize=-4)", E("popsize")),
    ("py-es-tell-nan", "data", ES + "X = es.ask()\nv = [1.0] * len(X); v[2] = float('nan')\nR = es.tell(X, v)", NF),
    ("py-es-tell-retry", "data", ES + "X = es.ask()\nv = [1.0] * len(X); v[2] = float('nan')\ntry: es.tell(X, v)\n"
     "except E.NonFiniteError: pass\nes.tell(X, [float(sum(x*x)) for x in X])\nR = es.result.evaluations", OK(check=py_is("6"))),
    ("py-es-tell-short", "data", ES + "X = es.ask()\nR = es.tell(X, [1.0])", E("values")),
    ("py-es-tell-before-ask", "data", ES + "R = es.tell(np.zeros((6, 2)), [1.0] * 6)", E("ask")),
    ("py-es-tell-other-X", "data", ES + "X = es.ask()\nR = es.tell(X + 1, [1.0] * len(X))", E("ask")),
    ("py-es-ask-twice", "data", ES + "es.ask()\nR = es.ask().shape", OK()),
    ("py-es-tell-strings", "data", ES + "X = es.ask()\nR = es.tell(X, ['a'] * len(X))", E("values")),
    ("py-es-options-unknown", "data", f"R = {C2}, {{'maxfevals': 100, 'tolfunhist': 3}})", E("tolfunhist")),
    ("py-es-options-bad-type", "data", f"R = {C2}, {{'popsize': 'abc'}})", E("popsize")),
    ("py-es-options-maxfevals-neg", "data", f"R = {C2}, {{'maxfevals': -1}})", E(("maxfevals", "max_evals"))),
    ("py-es-bounds-reversed", "data", f"R = {C2}, bounds=([1, 1], [-1, -1]))", E("bounds")),
    ("py-es-bounds-nan", "data", f"R = {C2}, bounds=([np.nan, -1], [1, 1]))", E("bounds")),
    ("py-es-bounds-shape", "data", f"R = {C2}, bounds=([-1, -1, -1], [1, 1, 1]))", E("bounds")),
    ("py-es-bounds-zero-width", "data", f"es = {C2}, bounds=([0, -1], [0, 1]))\nR = es.ask()[:2].tolist()", E("bounds")),
    ("py-es-restarts-neg", "data", f"R = {C2}, restarts=-1)", E("restarts")),
    ("py-es-restarts-str", "data", f"R = {C2}, restarts='forever')", E("restarts")),
    ("py-es-param-unknown", "data", "R = gradfree.INGO([0.0, 0.0], 0.5, betta=0.1)", E("betta")),
    ("py-es-param-beta-1", "data", "R = gradfree.INGO([0.0, 0.0], 0.5, beta=1.0)", E("beta")),
    ("py-es-optimize-f-nan", "data", ES + "R = es.optimize(lambda x: float('nan'))", NF),
    ("py-es-optimize-f-raises", "data", ES + "def f(x): raise ZeroDivisionError('user f')\nR = es.optimize(f)", E("user f", types=("ZeroDivisionError",))),
    ("py-es-optimize-f-none", "data", ES + "R = es.optimize(lambda x: None)", E(OBJ, "None")),
    ("py-es-optimize-f-array", "data", ES + "R = es.optimize(lambda x: x)", E(OBJ)),
    ("py-es-optimize-f-complex", "data", ES + "R = es.optimize(lambda x: complex(1, 1))", E(OBJ)),
    ("py-es-pickle-tamper", "checkpoints", "import pickle\n" + ES + "X = es.ask(); es.tell(X, [float(sum(x*x)) for x in X])\n"
     "b = pickle.dumps(es)\nb2 = b.replace(b'\"sigma\":', b'\"sigma\":-', 1)\no = pickle.loads(b2)\n"
     "R = (b2 != b, o.ask()[:1].tolist() if isinstance(o, gradfree.es.CMAES) else type(o).__name__)",
     # A byte inserted into the checked envelope's payload breaks pickle's own stream (its length
     # prefix), so pickle itself returns a fragment or fails: never a working optimizer.
     either(E(types=UNPICKLE), OK(check=lambda res: None if "'bytes'" in res.out or "bytes" in res.out else "loaded: " + res.out[:120]))),
    ("py-es-pickle-trunc", "checkpoints", "import pickle\nes = gradfree.INGO([0.0, 0.0], 0.5, seed=1)\nb = pickle.dumps(es)\nR = pickle.loads(b[:len(b)//2])",
     E(types=UNPICKLE)),
    ("py-es-pickle-between", "checkpoints", "import pickle\nes = gradfree.INGO([0.0, 0.0], 0.5, seed=1)\nX = es.ask(); es2 = pickle.loads(pickle.dumps(es))\n"
     "es.tell(X, [float(sum(x*x)) for x in X]); es2.tell(X, [float(sum(x*x)) for x in X])\nR = es.ask().tolist() == es2.ask().tolist()",
     OK(check=py_is("True"))),
    ("py-bern-d0", "sizes", "R = gradfree.BernoulliINGO(0)", E("dim")),
    ("py-cat-k1", "sizes", "R = gradfree.CategoricalINGO(5, categories=1)", E("categories")),
    ("py-cat-k-huge", "sizes", "R = gradfree.CategoricalINGO(5, categories=10**9)", E("categories")),
    ("py-ga-pop1", "sizes", "R = gradfree.GA(5, popsize=1)", E("popsize")),
]:
    py(cid, cat, code, exp, label=L)

L = "minimize"
SQ = "lambda x: float(x @ x), [1.0, 1.0]"
for cid, cat, code, exp in [
    ("py-min-x0-empty", "sizes", "R = gradfree.minimize(lambda x: 0.0, [])", E("x0")),
    ("py-min-method-bad", "data", f"R = gradfree.minimize({SQ}, method='nelder-mead')", E("method")),
    ("py-min-maxevals0", "sizes", f"R = gradfree.minimize({SQ}, max_evals=0)", E("max_evals")),
    ("py-min-maxevals-neg", "sizes", f"R = gradfree.minimize({SQ}, max_evals=-10)", E("max_evals")),
    ("py-min-bounds-reversed", "data", f"R = gradfree.minimize({SQ}, bounds=([1, 1], [0, 0]))", E("bounds")),
    ("py-min-executor-bad", "data", f"R = gradfree.minimize({SQ}, executor=1, max_evals=200)", E("executor")),
    ("py-min-sigma0-neg", "data", f"R = gradfree.minimize({SQ}, sigma0=-1)", E("sigma0")),
    ("py-min-f-nan", "data", "R = gradfree.minimize(lambda x: float('nan'), [1.0, 1.0], max_evals=200)", NF),
    ("py-min-x0-2d", "data", "R = gradfree.minimize(lambda x: float(np.sum(x*x)), [[1.0, 1.0]], max_evals=200).x.shape", E("x0")),
    ("py-min-ok-1d", "data", "r = gradfree.minimize(lambda x: float((x[0]-3)**2), [0.0], max_evals=2000, seed=1)\nR = (round(float(r.x[0]), 4), r.success)",
     OK(check=lambda res: None if res.r.startswith("(3.0,") else f"x = {res.r}, not 3")),
    ("py-min-target-nan", "data", f"R = gradfree.minimize({SQ}, target=float('nan'))", E("target")),
    ("py-prob-unknown", "data", "R = gradfree.Problem('nope', 3)", E("nope")),
    ("py-prob-dim0", "sizes", "R = gradfree.Problem('sphere', 0)", E("dimension")),
    ("py-prob-wrong-point", "data", "R = gradfree.Problem('sphere', 3)(np.zeros(2))", E("shape")),
    ("py-prob-evaluate-shape", "data", "R = gradfree.Problem('sphere', 3).evaluate(np.zeros((4, 2)))", E("shape")),
    ("py-prob-dim-huge", "sizes", "R = gradfree.Problem('quadratic', 10**6)", E("dimension")),
]:
    py(cid, cat, code, exp, label=L if cid.startswith("py-min") else "Problem")

L = "bo"
BO = "from gradfree import bo\n"
for cid, cat, code, exp in [
    ("py-bo-ncalls0", "sizes", "R = bo.minimize(lambda x: x[0]**2, [(-2.0, 2.0)], n_calls=0)", E("n_calls")),
    ("py-bo-ncalls-neg", "sizes", "R = bo.minimize(lambda x: x[0]**2, [(-2.0, 2.0)], n_calls=-1)", E("n_calls")),
    ("py-bo-bounds-reversed", "data", "R = bo.minimize(lambda x: x[0]**2, [(2.0, -2.0)], n_calls=12)", E("bounds")),
    ("py-bo-bounds-equal", "data", "R = bo.minimize(lambda x: x[0]**2, [(1.0, 1.0)], n_calls=12)", E("bounds")),
    ("py-bo-cat-empty", "data", "R = bo.Optimizer([[]])", E("dimension")),
    ("py-bo-batch0", "sizes", "R = bo.Optimizer([(-2.0, 2.0)], batch_size=0)", E("batch_size")),
    ("py-bo-tell-nan", "data", "o = bo.Optimizer([(-2.0, 2.0)], random_state=0)\nX = o.ask(n_points=3)\nR = o.tell(X, [float('nan')] * len(X))", NF),
    ("py-bo-tell-nan-one", "data", "o = bo.Optimizer([(-2.0, 2.0)], random_state=0)\nR = o.tell(o.ask(), float('nan'))", NF),
    ("py-bo-tell-outside", "data", "o = bo.Optimizer([(-2.0, 2.0)], random_state=0)\nR = o.tell([[50.0]], [1.0])", E("outside")),
    ("py-bo-f-raises", "data", "def f(x): raise OSError('sim crashed')\nR = bo.minimize(f, [(-2.0, 2.0)], n_calls=12)", E("sim crashed", types=("OSError",))),
    ("py-bo-dims-101", "sizes", "R = bo.Optimizer([(-1.0, 1.0)] * 101)", E("dim")),
]:
    py(cid, cat, BO + code, exp, label=L)

# ---- tampered pickled states (the `_run` JSON of an optimizer, the `_recipe` of a Sobol engine)
PRE = """import pickle
def tampered(es, fn):
    # The state inside the pickle's checked envelope, tampered, then read by the class's own checks
    # (a tampered pickle itself fails its checksum: py-es-pickle-* and the generated pickle cases).
    state = es._pickle_state()
    run = json.loads(state['_run']); fn(run); state['_run'] = json.dumps(run)
    obj = type(es).__new__(type(es))
    obj._unpickle_state(state)
    return obj
es = gradfree.CMAES([0.0, 0.0, 0.0], 0.5, seed=1)
X = es.ask(); es.tell(X, [float(x @ x) for x in X])
"""
L = "es pickle"
TELL = "X = o.ask(); o.tell(X, [float(x @ x) for x in X])\n"
for cid, code, exp in [
    ("pyck-es-sigma-neg", "o = tampered(es, lambda r: r['optimizer'].__setitem__('sigma', -1.0))\nR = o.ask()[:1].tolist()", E("sigma")),
    ("pyck-es-m-short", "o = tampered(es, lambda r: r['optimizer'].__setitem__('m', [0.0]))\nR = o.ask()[:1].tolist()", E("run state")),
    ("pyck-es-gen-huge", "o = tampered(es, lambda r: r['optimizer'].__setitem__('generation', 2**63))\nR = o.ask()[:1].tolist()", either(E("generation"), OK())),
    ("pyck-es-rng-zero", "o = tampered(es, lambda r: r['optimizer']['rng'].__setitem__('s', [0, 0, 0, 0]))\nR = o.ask()[:2].tolist()", E(("rng", "generator"))),
    ("pyck-es-run-notjson", "state = es._pickle_state(); state['_run'] = '{not json'\n"
     "o = type(es).__new__(type(es)); o._unpickle_state(state)\nR = o.ask()", error("run state", json_ok=True)),
    ("pyck-es-driver-evals-neg", "o = tampered(es, lambda r: r['driver'].__setitem__('evaluations', -5))\nR = o.ask()[:1].tolist()", E("evaluations")),
    ("pyck-es-pending-mismatch", "X2 = es.ask()\no = tampered(es, lambda r: r.__setitem__('pending', None))\nR = o.tell(X2, [float(x @ x) for x in X2])", E("ask")),
    ("pyck-es-gen-u64max-tell", "o = tampered(es, lambda r: r['optimizer'].__setitem__('generation', 2**64 - 1))\n" + TELL + "R = o.result.evaluations",
     either(E("generation"), OK())),
    ("pyck-es-eigen-gen-u64max", "o = tampered(es, lambda r: r['optimizer'].__setitem__('eigen_generation', 2**64 - 1))\n"
     "for _ in range(3):\n    " + TELL.replace("\n", "\n    ") + "R = o.result.evaluations", E("generation")),
]:
    py(cid, "checkpoints", PRE + code, exp, label=L, timeout=30)
py("pyck-ingo-upper", "checkpoints", "es = gradfree.INGO([0.0, 0.0, 0.0], 0.5, seed=1)\nX = es.ask(); es.tell(X, [float(x @ x) for x in X])\n"
   "cls, args, state = es.__reduce_ex__(4)[:3]\nstate = dict(state); run = json.loads(state['_run']); run['optimizer']['l'][3] = 0.7; "
   "state['_run'] = json.dumps(run)\no = args[0].__new__(args[0]); o.__setstate__(state)\nR = o.ask()[:1].tolist()", E("l:"), label=L)
py("pyck-es-class-swap", "checkpoints", "es = gradfree.INGO([0.0, 0.0, 0.0], 0.5, seed=1)\ncls, args, state = es.__reduce_ex__(4)[:3]\n"
   "o = gradfree.CMAES.__new__(gradfree.CMAES); o.__setstate__(dict(state))\nR = type(o).__name__ + ' ' + str(o.ask().shape)", E("ingo"), label=L)
L = "qmc pickle"
SOB = "s = gradfree.Sobol(3, seed=1)\ns.random(5)\ncls, args, state = s.__reduce_ex__(4)[:3]\nstate = dict(state)\n"
NEW = "o = args[0].__new__(args[0]); o.__setstate__(state)\n"
for cid, code, exp in [
    ("pyck-sobol-recipe-d-neg", "state['_recipe'] = ('sobol', -1, 1, 'lms-shift', 32)\n" + NEW + "R = o.random(2)", E(D_)),
    ("pyck-sobol-recipe-bits99", "state['_recipe'] = ('sobol', 3, 1, 'lms-shift', 99); state['bits'] = 99\n" + NEW + "R = o.random(2)", E("bits")),
    ("pyck-sobol-e-huge", "state['_e'] = 2**40\n" + NEW + "R = o.random(2)", E("2^32")),
    ("pyck-sobol-d-mismatch", "state['d'] = 7\n" + NEW + "R = o.random(2).shape", E(D_)),
    ("pyck-sobol-d-mismatch-attr", "state['d'] = 7\n" + NEW + "R = (o.d, o.random(2).shape)", E(D_)),
]:
    py(cid, "checkpoints", SOB + code, exp, label=L)
py("pyck-sobol-deepcopy-continues", "checkpoints", "s = gradfree.Sobol(3, seed=1)\ns.random(5)\nimport copy\nc = copy.deepcopy(s)\n"
   "R = bool(np.array_equal(s.random(4), c.random(4)))", OK(check=py_is("True")), label=L)
