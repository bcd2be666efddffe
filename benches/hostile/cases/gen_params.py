"""Command-line values drawn near their edges (dimensions, counts, bits, primes, popsize, budgets,
scales and bandwidths down to subnormals and up to 1e308, seeds at 2^64-1) on every command; the
same flag given twice (`--param popsize=5 --param popsize=9`, `--seed 1 --seed 2`); valid command
lines with their flags in a drawn order.

Right: an error naming one of the flags drawn (or the size and memory), or success whose output
holds: finite numbers, points in [0, 1), a best point inside the problem's domain ({0,1}^d for the
binary problems) whose value is the reported best f. A cheap size (n d <= 10^7) must finish in
the time limit (else `hang`); a flag given twice is refused, naming it; flags in another order give
the same output."""
import json
import os
import re

from cases.gen_common import *
from cases.gen_datasets import step as data

SUB = ["5e-324", "1e-320", "2.2250738585072014e-308", "1e-300"]
HUGE = ["1e300", "1e308", "1.7976931348623157e308"]
COUNTS = [0, 1, 2, 3, 7, 64, 1000, 2**31 - 1, 2**32, 2**53 + 1, U64]
ALGOS = ["ingo", "ingostep", "fast-ingo", "igo", "cmaes", "lq-cmaes", "mines", "xnes", "openai-es", "asebo", "ars",
         "nesterov-spokoiny", "ingo-bernoulli", "ingo-categorical", "ga"]
PROBLEMS = ["sphere", "ellipsoid", "discus", "l1-ellipsoid", "levy", "rastrigin10", "rosenbrock", "nesterov",
            "different-powers", "dixon-price", "ackley", "ssphere", "quadratic", "logistic", "binary-reconstruction",
            "categorical-reconstruction", "onemax", "leadingones", "maxcut", "rastrigin", "griewank", "robot-push"]
BINARY = ("onemax", "leadingones", "binary-reconstruction", "maxcut")
BOX = {"levy": 10, "rosenbrock": 2, "nesterov": 2, "different-powers": 2, "dixon-price": 2, "ackley": 2,
       "rastrigin": 5.12, "griewank": 600}


def _json(res):
    return json.loads(res.out)


def opt_check(problem, cmd):
    """The best point is in the domain and its value is the reported best f (sphere, onemax)."""
    def check(res):
        bad = no_nonfinite(res.out)
        if bad:
            return bad
        d = _json(res)
        x, f = d.get("best_x"), d.get("best_f")
        if x is None or f is None:
            return f"best_x/best_f missing or null: {res.out[:150]}"
        if problem in BINARY and any(v not in (0, 1) for v in x):
            return f"{problem}: best_x outside {{0,1}}^d: {x[:6]}"
        if problem == "categorical-reconstruction" and any(v not in (0, 1, 2, 3) for v in x):
            return f"best_x outside {{0..3}}^d: {x[:6]}"
        if problem in BOX and any(abs(v) > BOX[problem] * (1 + 1e-12) for v in x) and "--bounds none" not in cmd:
            return f"best_x outside the domain [-{BOX[problem]}, {BOX[problem]}]^d: {[v for v in x if abs(v) > BOX[problem]][:3]}"
        if problem == "onemax" and all(v in (0, 1) for v in x) and f != len(x) - sum(x):
            return f"best_f {f} is not onemax(best_x) = {len(x) - sum(x)}"
        if problem == "sphere" and "--shift" not in cmd and "--rotate" not in cmd:
            s = sum(v * v for v in x)
            if abs(s - f) > 1e-9 * max(1.0, abs(f)):
                return f"best_f {f} is not sphere(best_x) = {s}"
        return None
    return check


def _optimize(rng):
    algo, prob = rng.choice(ALGOS + ["cmaes", "cmaes", None]), rng.choice(PROBLEMS)
    dim = rng.choice([1, 2, 3, 5, 10, 40] + ([4] if prob == "robot-push" else []))
    f = {"--problem": prob, "--dim": str(dim)}
    if algo:
        f["--algo"] = algo
    flags = ["--problem", "--dim"] + (["--algo"] if algo else [])
    for flag, vals in rng.sample([
            ("--param", [f"popsize={v}" for v in (1, 2, 3, 4, 5, 1000, 10**6, U64)] + ["beta=5e-324", "beta=1e308",
                                                                                      "step_size=1e-300", "elitism=0"]),
            ("--max-evals", ["1", "2", "3", "10", "100", f"{U64} --max-gens 5"]), ("--max-gens", ["1", "2", f"{U64} --max-evals 3000"]),
            ("--sigma0", SUB + HUGE + ["0.5"]), ("--seed", ["0", str(U64), str(2**63)]),
            ("--bounds", ["none", "clip", "reflect", "penalty", "transform"]), ("--restarts", ["ipop", "bipop:0", "3", "max", "bipop"]),
            ("--target", ["-1e308", "1e308", "0", "5e-324"]), ("--x0", None), ("--shift", ["0", "5e-324", "1e300"]),
            ("--tol-f", ["0", "5e-324", "off"]), ("--max-seconds", ["0.05", "5e-324", "1e-300"])], rng.choice([1, 2, 3])):
        if flag == "--x0":
            v = ",".join(rng.choice(["0", "1e308", "-1e308", "5e-324", "1", "2"]) for _ in range(dim))
        else:
            v = rng.choice(vals)
        f[flag] = v
        flags.append(flag)
    if "--max-evals" not in f and "--max-gens" not in f and "--max-seconds" not in f:
        f["--max-evals"] = str(rng.choice([200, 2000]))
        flags.append("--max-evals")
    cmd = "{G} optimize --quiet --json " + " ".join(f"{k} {v}" for k, v in f.items())
    return (cmd, tuple(flags) + ("popsize", "population size", "beta", "step_size", "elitism", "dimension", "objective"),
            opt_check(prob, cmd), "optimize")


def _bo(rng):
    prob = rng.choice(["ackley", "rosenbrock", "levy", "rastrigin", "griewank", "robot-push", "onemax", "dixon-price"])
    f = {"--problem": prob, "--dim": str(4 if prob == "robot-push" else rng.choice([1, 2, 3, 6])),
         "--rounds": str(rng.choice([0, 1, 2])), "--method": rng.choice(["bkop", "ucb", "gp-bucb", "gp-ucb-pe", "bull", "ei"])}
    for flag, vals in rng.sample([("--batch", ["1", "2", "20", "64"]), ("--n-initial", ["1", "2", "3", "200"]),
                                  ("--kernel", ["matern52", "se"]), ("--noise", ["0", SUB[0], "1e-300", "1e300"]),
                                  ("--weight", ["0", "1e308", "5e-324"]), ("--beta", ["0", "5e-324", "1e308"]),
                                  ("--acq-starts", ["1", "100"]), ("--acq-evals", ["1", "1000"]),
                                  ("--acq-max-evals", ["1", "2", str(U64)]), ("--seed", [str(U64)]),
                                  ("--on-nonfinite", ["treat-as-inf"])], rng.choice([1, 2, 3])):
        f[flag] = rng.choice(vals)
    cmd = "{G} bo --quiet --json " + " ".join(f"{k} {v}" for k, v in f.items())
    return cmd, tuple(f) + ("dimension", "box"), opt_check(prob, cmd), "bo"


def _sample(rng):
    m = rng.choice(["sobol", "subgroup", "korobov", "halton", "mc", "lhs"])
    d = rng.choice([0, 1, 2, 3, 7, 64, 1111, 21201, 21202, 40000, 10**6, 2**32, U64])
    n = rng.choice([0, 1, 2, 3, 5, 8, 1024, 65537, 2**20, 2**32 - 1, 2**32, 2**32 + 1, 2**40, U64])
    if m == "subgroup" and 0 < d <= 1000 and rng.random() < .6:
        n = subgroup_n(d, rng.choice([2, 100, 10**4]))
    if 10**7 < n * d < 10**13:
        n = max(1, 10**7 // max(d, 1))
    extra = ""
    if m == "sobol":
        extra += rng.choice(["", f" --bits {rng.choice([0, 1, 2, 10, 31, 32, 52, 53, 54, 63, 64, 65])}",
                             f" --skip {rng.choice([1, 2**31, 2**32, U64])}", f" --scramble {rng.choice(['none', 'owen'])}"])
    if m == "korobov":
        extra += f" --a {rng.choice([0, 1, 2, 3, max(n - 1, 0), n, n + 1, U64])}"
    if m in ("subgroup", "korobov") and rng.random() < .3:
        extra += " --random-shift"
    extra += rng.choice(["", f" --seed {U64}"])
    small = n * d < 10**13                   # beyond: refused up front (hours, or more memory than any machine)
    out = rng.choice([" --json", " -o x.npy"] if n * d <= 10**6 else [" --json"])
    return (f"{{G}} sample --method {m} --dim {d} --n {n}{extra}{out}", ("--dim", "--n", "--bits", "--skip", "--a", "--method",
                                                                       "n =", "d =", "bits =", "a =")
            + MEM_WORDS, sample_check(n, d, "x.npy" if "-o" in out else None), "sample", small)


def sample_check(n, d, npy):
    """The points are finite, of shape (n, d) and in [0, 1) (the .npy), or their mean is in [0, 1]."""
    def check(res):
        bad = no_nonfinite(res.out)
        if bad:
            return bad
        if npy:
            import numpy as np
            a = np.load(os.path.join(res.folder, npy))
            if a.shape != (n, d):
                return f"{npy} has shape {a.shape}, not ({n}, {d})"
            if a.size and not (np.all(a >= 0) and np.all(a < 1)):
                return f"{npy} has points outside [0, 1): min {a.min()}, max {a.max()}"
        else:
            m = _json(res).get("mean_coordinate", _json(res).get("mean"))
            if isinstance(m, (int, float)) and n * d > 0 and not 0 <= m <= 1:
                return f"mean coordinate {m} outside [0, 1]"
        return None
    return check


def _lattice(rng):
    m = rng.choice(["subgroup", "korobov", "hua", "alg10", "alg11"])
    d = rng.choice([1, 2, 3, 8, 50, 500])
    n = subgroup_n(d, rng.choice([3, 101, 2000])) if m == "subgroup" and rng.random() < .7 else \
        rng.choice([1, 2, 3, 4, 101, 1009, 4001, 2**32 + 15, U64])
    if m == "korobov" and n * n * d > 4e9 and n < 2**32:
        n = 1009
    extra = ""
    if m in ("alg10", "alg11"):
        n = min(n, 2003) if n < 2**32 else n
        extra += rng.choice(["", f" --primes {rng.choice([0, 1, 2, 500, U64])}"])
        if m == "alg11":
            extra += rng.choice(["", f" --sweeps {rng.choice([0, 1, U64])}", f" --top {rng.choice([0, 1, U64])}"])
    if m == "korobov":
        extra += rng.choice(["", " --metric l1"])
    return (f"{{G}} lattice --quiet --json --method {m} --dim {d} --n {n}{extra}",
            ("--dim", "--n", "--primes", "--sweeps", "--top", "operations", "n =", "d ="), lambda res: no_nonfinite(res.out), "lattice",
            n * n * d <= 4e9 or m == "subgroup")


def _integrate(rng):
    m = rng.choice(["mc", "subgroup", "korobov", "hua", "sobol", "sobol-owen", "halton", "sobol-shifted", "halton-shifted"])
    d = rng.choice([0, 1, 2, 10, 100, 1000, 10**5, U64])
    n = subgroup_n(d, rng.choice([3, 1000, 10**5])) if m == "subgroup" and 0 < d < 10**5 and rng.random() < .7 else \
        rng.choice([0, 1, 2, 101, 1021, 2**20, 2**40, U64])
    r = rng.choice([0, 1, 2, 50, U64])
    cost = n * max(d, 1) * max(r, 1)
    if 10**7 < cost < 10**15:
        r = 1
        n = min(n, 10**7 // max(d, 1)) if n * max(d, 1) > 10**7 else n
    extra = ""
    for flag, vals in rng.sample([("--b", ["0", "-0.0", "-1"] + SUB + HUGE), ("--c", ["0", "-1", "10", "100"] + SUB + HUGE),
                                  ("--seed", [str(U64)])], rng.choice([0, 1, 2])):
        extra += f" {flag} {rng.choice(vals)}"
    small = n * max(d, 1) * max(r, 1) <= 10**7
    return (f"{{G}} integrate --json --method {m} --dim {d} --n {n} --replicates {r}{extra}",
            ("--dim", "--n", "--replicates", "--b", "--c", "b =", "c =", "n =", "d =") + MEM_WORDS, lambda res: no_nonfinite(res.out),
            "integrate", small)


def _features(rng):
    kern = rng.choice(["gaussian", "arccos0", "arccos1", "arccos2", "arccos10", "arccos11"])
    f = {"--kernel": kern, "--method": rng.choice(["iid", "orf", "circulant", "halton", "sobol", "lattice", "ssf"]),
         "--dim-out": str(rng.choice([0, 1, 2, 3, 17, 64, 2**20, U64]))}
    for flag, vals in rng.sample([("--sigma", SUB + HUGE), ("--gamma", SUB + HUGE + ["scale"]),
                                  ("--radial-points", ["0", "1", "2", "64", str(U64)]),
                                  ("--frequencies", ["optimized", "subgroup", "random"]), ("--rotation", ["signs", "haar", "phase"]),
                                  ("--report-rows", ["0", "1", str(U64)]), ("--seed", [str(U64)])], rng.choice([0, 1, 2])):
        f[flag] = rng.choice(vals)
    out = rng.choice(["-o z.npy", "--report --json"])
    check = npy_finite("z.npy") if "-o" in out else (lambda res: no_nonfinite(res.out))
    cheap = int(f["--dim-out"]) <= 2**20
    return ("{G} features --data d.csv " + " ".join(f"{k} {v}" for k, v in f.items()) + " " + out, tuple(f) + MEM_WORDS,
            check, "features", cheap)


def _infer(rng):
    model = rng.choice(["logistic", "linear", "poisson", "mixture", "relu"])
    method = rng.choice(["mle", "random-scaling", "masgrad", "sgd", "madprox", "diff-sgd"]) if model in ("logistic", "linear", "poisson") \
        else rng.choice(["random-scaling", "sgd"])
    f = {"--model": model, "--method": method}
    chain = method != "mle"
    pool = [("--level", ["0", "5e-324", "0.5", "0.9999999999999999", "1"]), ("--cov-type", ["HC0"])] if not chain else [
        ("--level", ["5e-324", "0.9999999999999999", "1"]), ("--step", SUB + ["1e10", "1e300"]),
        ("--batch", ["1", "2", "200", "201", "1000000000"]), ("--chains", ["1", "2"]), ("--steps", ["1", "2", "3"]),
        ("--seed", [str(U64)]), ("--interval", ["normal"]), ("--theta0", None)]
    if method == "random-scaling":
        pool.append(("--decay", ["0.5", "0.5000000000000001", "0.9999999999999999", "1"]))
    if method == "madprox":
        pool.append(("--lambda", ["0"] + SUB + HUGE))
    if model == "mixture":
        pool += [("--components", ["1", "2", "100"]), ("--sigma", SUB + HUGE)]
    if model == "relu":
        pool.append(("--hidden", ["1", "64"]))
    for flag, vals in rng.sample(pool, min(len(pool), rng.choice([1, 2, 3]))):
        f[flag] = rng.choice(vals) if vals else ",".join(rng.choice(["0", "1e308", "-1e308", "5e-324"]) for _ in range(3))
    if chain:
        f.setdefault("--chains", "4")
        f.setdefault("--steps", "40")
    tgt, dat = (" --data m.csv", "") if model == "mixture" else (" --data d.csv", " --target y")
    return ("{G} infer --quiet --json" + tgt + dat + " " + " ".join(f"{k} {v}" for k, v in f.items()),
            tuple(f) + ("theta0",), sane_json(zero_width_ok=True), "infer")


def _train(rng):
    f = {"--epochs": rng.choice(["1", "2"]), "--hidden": rng.choice(["1", "1,1,1", "8", "512"])}
    for flag, vals in rng.sample([("--batch-size", ["1", "2", "1400", "1401", "1000000", str(U64)]),
                                  ("--lr", SUB + ["10", "1e10"]), ("--noise", ["none", "symmetric:0", "symmetric:1e-300",
                                                                             "symmetric:0.89", "pair:0", "pair:0.49"]),
                                  ("--noise-rate", ["0", "5e-324", "0.99"]), ("--burn-in", ["0", "1", str(U64)]),
                                  ("--loss", ["npcl", "cl", "ce", "gce", "coteaching", "hinge", "hinge-hard"]),
                                  ("--optimizer", ["sgd"]), ("--schedule", ["constant"]), ("--seed", [str(U64)]),
                                  ("--model", ["cnn"]), ("--block", ["mean", "median", "nok"])], rng.choice([1, 2, 3])):
        f[flag] = rng.choice(vals)
    if f.get("--block") == "nok" and rng.random() < .7:
        f["--block-param"] = rng.choice(["width=0", "layers=0", "lambda=1e308", "patch=1", "patch=100", "width=1e-300"])
    return ("{G} train --quiet --json --data digits " + " ".join(f"{k} {v}" for k, v in f.items()),
            tuple(f) + ("width", "layers", "lambda", "patch", "lr", "diverge"), lambda res: no_nonfinite(res.out), "train")


REPEAT = [("{G} optimize --quiet --algo cmaes --problem sphere --dim 3 --max-evals 300 --param {a} --param {b}",
           [("popsize=5", "popsize=9", "popsize"), ("sampling=iid", "sampling=sphere-qmc", "sampling"),
            ("damping=pycma", "damping=tutorial", "damping")]),
          ("{G} optimize --quiet --algo ingo --problem sphere --dim 3 --max-evals 300 --param {a} --param {b}",
           [("beta=0.1", "beta=0.2", "beta"), ("popsize=6", "popsize=12", "popsize")]),
          ("{G} train --quiet --data digits --epochs 1 --block nok --block-param {a} --block-param {b}",
           [("layers=1", "layers=2", "layers"), ("width=1", "width=2", "width")]),
          ("{G} optimize --quiet --problem sphere --dim 3 --max-evals 300 {a} {b}",
           [("--seed 1", "--seed 2", "--seed"), ("--dim 3", "--dim 4", "--dim"), ("--sigma0 1", "--sigma0 2", "--sigma0")]),
          ("{G} sample --method sobol --dim 2 --n 8 {a} {b}", [("--n 8", "--n 16", "--n"), ("--seed 1", "--seed 2", "--seed")]),
          ("{G} integrate --dim 3 --n 101 --method mc {a} {b}", [("--b 1", "--b 2", "--b")]),
          ("{G} infer --quiet --data d.csv --target y {a} {b}", [("--target y", "--target a0", "--target"),
                                                                 ("--model linear", "--model poisson", "--model")])]
ORDERED = ["{G} optimize --quiet --json --algo cmaes --problem ellipsoid --dim 4 --max-evals 400 --seed 3 --sigma0 0.7 --param popsize=6",
           "{G} sample --method sobol --dim 3 --n 16 --seed 5 --scramble owen --json",
           "{G} lattice --quiet --json --method korobov --dim 4 --n 401 --metric l1",
           "{G} integrate --json --method sobol --dim 5 --n 1024 --replicates 4 --b 3 --c 0.5 --seed 2",
           "{G} infer --quiet --json --data d.csv --target y --model poisson --intercept --cov-type HC0",
           "{G} infer --quiet --json --data d.csv --target y --method sgd --chains 4 --steps 30 --seed 9 --batch 10",
           "{G} features --data d.csv --dim-out 16 --method iid --seed 4 --report --json --sigma 2",
           "{G} bo --quiet --json --problem ackley --dim 2 --rounds 1 --batch 2 --seed 7 --method ucb",
           "{G} train --quiet --json --data digits --epochs 1 --hidden 8 --seed 4 --loss ce --noise none"]
D = {"model": "logistic", "n": 200, "p": 3, "seed": 21}        # 0/1 responses: linear, logistic and Poisson alike


def _pairs(cmd):
    """(head words, [flag with its value words])."""
    w = cmd.split()
    i = next(j for j, x in enumerate(w) if x.startswith("-") and j > 1)
    head, out, cur = w[:i], [], []
    for x in w[i:]:
        if x.startswith("--") and cur:
            out.append(cur)
            cur = []
        cur.append(x)
    out.append(cur)
    return head, out


def draw(rng, cid):
    """One case of this kind drawn from rng (see the module docstring)."""
    kind = weighted(rng, [(4, "optimize"), (2, "bo"), (3, "sample"), (2, "lattice"), (2, "integrate"), (2, "features"),
                          (3, "infer"), (2, "train"), (2, "repeat"), (2, "order")])
    setup = steps(data(D), data({"model": "mixture", "n": 300, "seed": 4}, "m.csv")) if kind == "infer" else data(D)
    if kind == "repeat":
        tmpl, variants = pick(rng, REPEAT)
        a, b, name = rng.choice(variants)
        if rng.random() < .5:
            a, b = b, a
        return gcli(f"{cid}-repeat-{name.lstrip('-')}", "params", tmpl.replace("{a}", a).replace("{b}", b), error(name), setup=setup, timeout=30)
    if kind == "order":
        cmd = rng.choice(ORDERED)
        head, pairs = _pairs(cmd)
        shuffled = pairs[:]
        while len(pairs) > 1 and shuffled == pairs:
            rng.shuffle(shuffled)
        new = " ".join(head + [x for p in shuffled for x in p])
        return gcli(f"{cid}-order-{head[1]}", "params", new, success(check=same_as(cmd)), setup=setup, owns=("z.npy",),
                    timeout=40)
    made = {"optimize": _optimize, "bo": _bo, "sample": _sample, "lattice": _lattice, "integrate": _integrate,
            "features": _features, "infer": _infer, "train": _train}[kind](rng)
    cmd, flags, check, label = made[:4]
    flags = tuple(flags) + tuple(f[2:] for f in flags if f.startswith("--") and len(f) >= 5)  # `shift radius`, `top = 0`
    cheap = made[4] if len(made) > 4 else True
    exp = either(error(tuple(flags)), success(check=check)) if cheap else error(tuple(flags))
    name = "-".join(re.findall(r"--([a-z0-9-]+)", cmd)[:4])
    return gcli(f"{cid}-{label}-{name}"[:90], "params", cmd, exp, setup=setup, owns=("x.npy", "z.npy"), timeout=20)


def same_as(canonical):
    """The output equals the canonical order's (numbers of timings aside)."""
    from genlib import shape_of

    def check(res):
        b = res.run(canonical)
        if b.returncode:
            return f"the canonical order failed: {b.stderr.strip()[:150]}"
        strip = lambda s: re.sub(r'"\w*(seconds|time|secs)":\s*[-0-9.e]+', "", s)
        if strip(b.stdout) != strip(res.out) and shape_of(b.stdout) != shape_of(res.out):
            return f"output differs from the canonical order's: {res.out[:120]} vs {b.stdout[:120]}"
        if strip(b.stdout) != strip(res.out):
            return f"numbers differ from the canonical order's: {res.out[:120]} vs {b.stdout[:120]}"
        return None
    return check
