"""Second-pass regressions: one fixed case per failure the second hostile pass found (callers'
standard output, resource limits, hangs, lost data, silent wrong results, misleading errors), each
with the correct behaviour as its expectation. Ids start with `r2-`; generate.py runs them with
the generated cases, run.py with the first pass's."""
import genlib
from cases import common
from cases.common import *
from cases.gen_common import MEM_WORDS, npy_finite, py_ok
from cases.gen_concurrent import ckpt_of
from cases.gen_datasets import step as data_step
from cases.gen_params import opt_check

E, OK = error, success
CAT = "round2"


def g(case):
    """Register a genlib case (gcli, multi) in the shared list."""
    return common._add(case)


def p(cid, code, expect, timeout=60, label="python"):
    """A Python regression case."""
    py(cid, CAT, code, expect, label=label, timeout=timeout)


SPHERE = "optimize --quiet --algo cmaes --problem sphere --dim 3 --max-evals 300"
# ---- callers' standard output: discarded output is not an error
cli("r2-stdout-subprocess-devnull", CAT,
    "{PY} -c \"import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode)\" {G} " + SPHERE,
    OK())
cli("r2-stdout-list-rw-devnull", CAT, "exec {G} list 1<>/dev/null", OK())

# ---- file-size limit: every writer refuses in one line, no temporary file, no SIGXFSZ
ELL = "{G} optimize --quiet --algo cmaes --problem ellipsoid --no-convergence --no-target"
MKLOG = ELL + " --dim 10 --max-evals 20000 --log l.jsonl"
for cid, cmd, target, setup, files in [
    ("log", MKLOG, "l.jsonl", None, ()),
    ("checkpoint", ELL + " --dim 100 --max-evals 2000 --checkpoint c.ckpt --checkpoint-every 1", "c.ckpt", None, ()),
    ("sample-o", "{G} sample --method mc --dim 4 --n 10000 -o x.npy", "x.npy", None, ()),
    ("features-o", "{G} features --data d.csv --dim-out 512 -o z.npy", "z.npy", None, D),
    ("infer-chains-out", "{G} infer --quiet --data d.csv --target y --method sgd --chains 8 --steps 2000 --chains-out c.npy",
     "c.npy", None, D),
    ("plot", "{G} plot l.jsonl -o x.png", "x.png", genlib.sh(MKLOG), ()),
    ("reproduce", "{G} reproduce test-functions --quick -o out", "out", None, ()),
]:
    c = genlib.gcli(f"r2-fsize-{cid}", CAT, "ulimit -f 4; exec " + cmd, E((target, "limit", "too large")), setup=setup,
                    owns=("l.jsonl", "c.ckpt", "x.npy", "z.npy", "c.npy", "x.png", "out", "out/*"), limit="ulimit -f 4 (KiB)")
    c.files = tuple(files)
    g(c)

# ---- address-space limit: a refusal naming the size and the memory, never "memory allocation failed"
BIG = data_step({"model": "linear", "n": 2000, "p": 8, "seed": 1}, "big.csv")      # 2000 x 9: 4096 features are 62.5 MiB
for cid, cmd, mb, setup in [
    ("sample-o", "{G} sample --method sobol --dim 64 --n 4000000 -o s.npy", 64, None),
    ("features", "{G} features --data big.csv --dim-out 4096 -o f.npy", 64, BIG),
    ("lattice-korobov-o", "{G} lattice --quiet --method korobov --dim 50 --n 100003 -o k.npy", 64, None),
    ("integrate", "{G} integrate --dim 500 --n 100001 --method sobol --json", 64, None),
]:
    g(genlib.gcli(f"r2-as-{cid}", CAT, f"prlimit --as={mb << 20} {cmd}", either(E(MEM_WORDS), OK()), setup=setup,
                  owns=("s.npy", "f.npy", "k.npy"), limit=f"prlimit --as={mb} MB", timeout=60))

# ---- hangs
# A scrambled Halton sequence in d = 20000 would hold 8.3e9 permutation entries (31 GiB): refused
# at once with its cost (scipy's Halton builds the same permutations), never a run of minutes.
cli("r2-hang-halton-d20000", CAT, "{G} sample --method halton --dim 20000 --n 2", E("--dim", "7458"), timeout=20)
p("r2-hang-py-halton-20000", "R = gradfree.Halton(20000).random(2).shape", E("7458"), timeout=20)
cli("r2-hang-infer-mixture-const", CAT, "{G} infer --quiet --json --data mix_const.csv --model mixture",
    either(E(("constant", "spread", "variance", "identif", "data")), OK(check=warns())), files=("mix_const.csv",), timeout=30)

# ---- lost data
O2 = "{G} optimize --quiet --json --algo cmaes --problem ellipsoid --dim 5 --no-convergence --no-target --max-evals 1000000000 --max-seconds 1.5"
g(genlib.gmulti("r2-lost-two-runs-one-checkpoint", CAT, [O2 + " --seed 1 --checkpoint c.ckpt", O2 + " --seed 2 --checkpoint c.ckpt"],
                genlib.exclusive(["c.ckpt"], ckpt_of("c.ckpt", [1, 2])), owns=("c.ckpt",)))
RUN = "{G} optimize --quiet --algo cmaes --problem ellipsoid --dim 5 --no-convergence --no-target --max-evals 400"
g(genlib.gcli("r2-lost-resume-after-log-takeover", CAT, "{G} optimize --quiet --resume a.ckpt --max-evals 800", E("l.jsonl"),
              setup=genlib.steps(genlib.sh(RUN + " --seed 1 --log l.jsonl --checkpoint a.ckpt"),
                                 genlib.sh(RUN + " --seed 2 --log l.jsonl --checkpoint b.ckpt --overwrite")),
              owns=("a.ckpt",)))

# ---- silent wrong results
p("r2-poisson-counts-1e15-slope", "from gradfree.inference import fit\nrng = np.random.default_rng(0); x = rng.normal(size=(300, 1))\n"
  "y = np.round(1e15 * np.exp(0.5 * x[:, 0]))\nr = fit(x, y, model='poisson', intercept=True)\n"
  "R = 'ok' if abs(r.params[1] - 0.5) < 0.05 else f'slope {r.params[1]} (true 0.5), converged'",
  either(E(("response", "count", "large", "scale")), OK(check=lambda res: None if res.r.strip("'") == "ok" else res.r)))
cli("r2-features-sigma-1e-320", CAT, "{G} features --data d.csv --dim-out 16 --sigma 1e-320 -o z.npy",
    either(E("--sigma"), OK(check=npy_finite("z.npy"))), files=F, owns=("z.npy",))
cli("r2-cmaes-onemax-binary", CAT, "{G} optimize --quiet --json --algo cmaes --problem onemax --dim 5 --max-evals 100",
    either(E(("--algo", "binary", "onemax")), OK(check=opt_check("onemax", ""))))
cli("r2-bo-onemax-binary", CAT, "{G} bo --quiet --json --problem onemax --dim 5 --rounds 1",
    either(E(("--problem", "binary", "onemax")), OK(check=opt_check("onemax", ""))))
UNP = ("UnpicklingError",)
p("r2-pickle-cmaevolutionstrategy-digit", "import pickle\nes = gradfree.es.CMAEvolutionStrategy(np.zeros(3), 0.5, {'seed': 1, 'verbose': -9})\n"
  "X = es.ask(); es.tell(X, [float(np.sum(np.square(x))) for x in X])\nb = pickle.dumps(es)\n"
  "i = b.index(b'\"sigma\":') + 8\nwhile not 48 <= b[i] <= 57: i += 1\nb2 = b[:i] + bytes([48 + (b[i] - 47) % 10]) + b[i + 1:]\n"
  "R = np.asarray(pickle.loads(b2).ask()).tolist()[:1]", E(types=UNP))
p("r2-pickle-bo-optimizer-digit", "import pickle\nfrom gradfree import bo\no = bo.Optimizer([(-2.0, 2.0)], random_state=0)\n"
  "for _ in range(3):\n    x = o.ask(); o.tell(x, float(x[0] ** 2))\nb = pickle.dumps(o)\ni = b.index(b'\"best_f\":') + 9\n"
  "while not 48 <= b[i] <= 57: i += 1\nb2 = b[:i] + bytes([48 + (b[i] - 47) % 10]) + b[i + 1:]\nR = pickle.loads(b2).ask()", E(types=UNP))
p("r2-fmin2-x0-2d", "x, es = gradfree.es.fmin2(lambda x: float(np.sum(x * x)), np.zeros((2, 2)), .5, {'maxfevals': 200, 'verbose': -9})\n"
  "R = np.shape(x)", E("x0"))
p("r2-bo-real-dtype-int", "from gradfree import bo\nv = bo.Real(0, 10, dtype=int).rvs(5, random_state=1)\n"
  "R = 'ok' if all(isinstance(a, (int, np.integer)) for a in v) else f'floats: {list(v)}'",
  either(E("dtype"), OK(check=lambda res: None if res.r.strip("'") == "ok" else res.r)))
p("r2-bo-use-named-args-duplicate", "from gradfree import bo\nsp = [bo.Real(0, 1, name='a'), bo.Integer(0, 5, name='a')]\n"
  "@bo.use_named_args(sp)\ndef f(**kw):\n    return kw\nR = f([0.25, 3])", E("name"))
p("r2-fit-y-series-index", "import pandas as pd\nfrom gradfree.inference import fit\nX, y = bc3()\nXd = pd.DataFrame(X, columns=list('abc'))\n"
  "ys = pd.Series(y, index=Xd.index + 1000)\nR = fit(Xd, ys).params.tolist()", E(("index", "align")))
p("r2-fit-stream-dict-renamed", "from gradfree.inference import fit_stream\nX, y = bc3()\ndef g():\n"
  "    for i in range(0, len(X), 100):\n        d = {'a': X[i:i+100, 0], 'b': X[i:i+100, 1], ('c' if i < 100 else 'z'): X[i:i+100, 2], 'y': y[i:i+100]}\n"
  "        yield d\nR = fit_stream(g(), target='y').params.tolist()", E(("column", "name")))
p("r2-inference-load-any-pickle", "import pickle\nfrom gradfree import inference\npickle.dump({'a': 1}, open('r.pkl', 'wb'))\n"
  "R = inference.load('r.pkl')", E(("r.pkl", "result", "InferenceResults", "not a")))
cli("r2-param-popsize-twice", CAT, "{G} " + SPHERE + " --param popsize=5 --param popsize=9", E("popsize"))

# ---- misleading errors: the message names the cause
p("r2-poisson-counts-1e300-message", "from gradfree.inference import fit\nrng = np.random.default_rng(0); x = rng.normal(size=(300, 1))\n"
  "y = np.round(1e300 * np.exp(0.5 * x[:, 0]))\nR = fit(x, y, model='poisson', intercept=True).params.tolist()",
  E(("response", "count", "large", "overflow")))
cli("r2-plot-opt-and-train-logs", CAT, "{G} plot o.jsonl t.jsonl -o x.png", E("t.jsonl"), owns=("x.png",),
    setup=seq(sh("{G} optimize --quiet --algo cmaes --problem sphere --dim 3 --max-evals 300 --log o.jsonl"),
              sh("{G} train --quiet --data digits --epochs 2 --hidden 8 --log t.jsonl")))
GEN = '{"type":"generation","generation":%d,"evaluations":%d,"best_f":%s,"gen_best_f":1.0,"gen_median_f":1.0,"scale":1.0,"seconds":0.1}\n'
cli("r2-plot-nan-line", CAT, "{G} plot a.jsonl -o x.png", either(E("a.jsonl"), OK(check=warns())), owns=("x.png",),
    setup=write("a.jsonl", GEN % (1, 10, "2.0") + GEN % (2, 20, "NaN") + GEN % (3, 30, "0.5")))
p("r2-bo-integer-2-70", "from gradfree import bo\nR = bo.Integer(0, 2**70).rvs(2, random_state=0)", E(("high", "2**70", "bound", "range")))
p("r2-bo-categorical-prior-negative", "from gradfree import bo\nR = bo.Categorical(['a', 'b'], prior=[1.5, -0.5]).rvs(3, random_state=0)", E("prior"))
p("r2-gp-minimize-n-jobs-huge", "from gradfree import bo\nR = bo.gp_minimize(lambda x: x[0] ** 2, [(-1.0, 1.0)], n_calls=12, n_jobs=10**9)", E("n_jobs"))
p("r2-minimize-x0-strings", "R = gradfree.minimize(lambda x: float(np.sum(x)), ['a', 'b'])", E("x0"))
p("r2-cmaevolutionstrategy-1e9", "R = gradfree.es.CMAEvolutionStrategy(np.zeros(10**9), .5)", E(("x0", "dimension", "memory", "N =")), timeout=60)

# ---- third pass (a fresh seed of generate.py): its failures and misleading messages
SEP = data_step({"defects": ["separated"], "intercept": True, "model": "logistic", "n": 600, "p": 3, "seed": 537})
cli("r3-infer-stream-separated-warns", CAT, "{G} infer --quiet --json --data d.csv --model logistic --method mle --intercept --stream --target y",
    OK(check=warns("separation")), setup=SEP)
ZERO = data_step({"defects": ["y_scale:300", "y_const:0"], "intercept": True, "model": "poisson", "n": 5, "p": 5, "seed": 715})
cli("r3-infer-chains-zero-counts-warn", CAT,
    "{G} infer --quiet --json --data d.csv --model poisson --method diff-masgrad --chains 8 --steps 60 --intercept --target y",
    either(E(("count", "rows", "parameters")), OK(check=warns("identified"))), setup=ZERO)
cli("r3-optimize-start-overflows", CAT,
    "{G} optimize --quiet --json --problem dixon-price --dim 3 --algo ars --sigma0 1e308 --x0 1,2,1e308 --max-evals 2000",
    E(("--sigma0", "--x0")))
cli("r3-integrate-halton-hours", CAT, "{G} integrate --method halton --dim 20000 --n 1000000 --replicates 8 --json",
    E(("--n", "--dim", "--replicates")), timeout=20)
cli("r3-lattice-hua-composite-n", CAT, "{G} lattice --quiet --json --method hua --dim 1 --n 4", E("--n"))
cli("r3-resume-a-data-file", CAT, "{G} infer --quiet --resume d.csv", E(("d.csv", "starts with")),
    setup=data_step({"model": "logistic", "n": 300, "p": 3, "seed": 2}))
p("r3-bo-categorical-equal-categories", "from gradfree import bo\nR = bo.Categorical([1.0, 1]).rvs(3, random_state=0)", E("categor"))
p("r3-gp-minimize-values-near-1e308", "from gradfree import bo\nr = bo.gp_minimize(lambda x: abs(float(x[0])), [(0.0, 1e308)], n_calls=12)\n"
  "R = 'ok' if r.fun == min(r.func_vals) and len(r.func_vals) == 12 else f'bad result {r.fun}'", OK(check=py_ok))
cli("r3-integrate-as64-threads", CAT, "prlimit --as=67108864 {G} integrate --method subgroup --dim 500 --n 21001 --replicates 2 --json",
    either(E(("memory", "threads", "limit")), OK()))
cli("r3-infer-chains-tiny-features", CAT, "{G} infer --quiet --json --data d.csv --model logistic --method diff-sgd --chains 8 --steps 60 --intercept --target y",
    E(("standardize", "underflow", "scale")),
    setup=data_step({"defects": ["x_scale:-300", "separated"], "intercept": True, "model": "logistic", "n": 600, "p": 3, "seed": 669}))
cli("r3-sample-korobov-huge-dim-one-point", CAT, "{G} sample --method korobov --dim 4294967296 --n 1 --a 1 --json", E("--n"), timeout=10)
