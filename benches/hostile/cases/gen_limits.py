"""Resource limits: every writer under a file-size limit (`ulimit -f N`, N KiB below its output's
size) and a small open-file limit (`ulimit -n K`), every size-driven command (and the Python
engines) under an address-space limit (`prlimit --as=N`, 64 MB-2 GB) at drawn sizes.

Right: a one-line `error:` naming the file (or the limit, `File too large`), or the size and the
memory, exit 2, no temporary file left, a target that existed before untouched; or, where the
limit leaves room, success. Never a death by SIGXFSZ/SIGABRT/SIGSEGV nor "memory allocation
failed" (verdict limit-death)."""
from cases.gen_common import *
from cases.gen_datasets import step as data

BC = {"model": "logistic", "n": 569, "p": 3, "seed": 7}
ELL = "{G} optimize --quiet --algo cmaes --problem ellipsoid --no-convergence --no-target"
# name -> (command, target, max KiB the output surely exceeds, setup, pre-existing target)
WRITERS = {
    "optimize-log": (ELL + " --dim 10 --max-evals 20000 --log l.jsonl", "l.jsonl", 64, None, False),
    "optimize-ckpt": (ELL + " --dim 100 --max-evals 2000 --checkpoint c.ckpt --checkpoint-every 1", "c.ckpt", 64, None, False),
    "optimize-resume": ("{G} optimize --quiet --resume c.ckpt --max-evals 4000 --checkpoint-every 1", "c.ckpt", 64,
                        sh(ELL + " --dim 100 --max-evals 500 --checkpoint c.ckpt"), False),     # the saved run is the target
    "bo-log": ("{G} bo --quiet --problem ackley --dim 4 --rounds 6 --log b.jsonl", "b.jsonl", 1, None, False),
    "bo-ckpt": ("{G} bo --quiet --problem ackley --dim 4 --rounds 4 --checkpoint b.ckpt", "b.ckpt", 4, None, False),
    "train-log": ("{G} train --quiet --data digits --epochs 5 --hidden 8 --log t.jsonl", "t.jsonl", 1, None, False),
    "train-ckpt": ("{G} train --quiet --data digits --epochs 2 --hidden 64 --checkpoint t.ckpt", "t.ckpt", 64, None, False),
    "infer-chains-npy": ("{G} infer --quiet --data d.csv --target y --method sgd --chains 8 --steps 2000 --chains-out c.npy",
                         "c.npy", 64, data(BC), True),
    "infer-chains-csv": ("{G} infer --quiet --data d.csv --target y --method sgd --chains 8 --steps 2000 --chains-out c.csv",
                         "c.csv", 64, data(BC), True),
    "infer-ckpt": ("{G} infer --quiet --data d.csv --target y --method masgrad --chains 4 --steps 400 --checkpoint i.ckpt "
                   "--checkpoint-every 10", "i.ckpt", 1, data(BC), False),
    "sample-npy": ("{G} sample --method sobol --dim 16 --n 65536 -o x.npy", "x.npy", 64, None, True),
    "sample-csv": ("{G} sample --method mc --dim 8 --n 20000 -o x.csv", "x.csv", 64, None, True),
    "sample-stdout": ("{G} sample --method mc --dim 8 --n 20000 -o - > out.csv", "standard output", 64, None, False),
    "lattice-npy": ("{G} lattice --quiet --dim 16 --n 65537 -o x.npy", "x.npy", 64, None, True),
    "lattice-korobov": ("{G} lattice --quiet --method korobov --dim 8 --n 40009 -o x.csv", "x.csv", 64, None, True),
    "features-npy": ("{G} features --data d.csv --dim-out 512 -o z.npy", "z.npy", 64, data(BC), True),
    "features-csv": ("{G} features --data d.csv --dim-out 256 -o z.csv", "z.csv", 64, data(BC), True),
    "plot-png": ("{G} plot l.jsonl -o x.png", "x.png", 16, sh(ELL + " --dim 10 --max-evals 20000 --log l.jsonl"), True),
    "plot-svg": ("{G} plot l.jsonl -o x.svg", "x.svg", 16, sh(ELL + " --dim 10 --max-evals 20000 --log l.jsonl"), True),
    "reproduce": ("{G} reproduce test-functions --quick -o out", "out", 16, None, False),
    "json-stdout": ("{G} optimize --quiet --algo cmaes --problem sphere --dim 3000 --max-gens 1 --json > out.json",
                    "standard output", 16, None, False),
}
KEPT = "an earlier file that must stay as it was\n"


def _writer_case(rng, cid, kind):
    name, (cmd, target, kib, setup, pre) = pick(rng, WRITERS)
    pre_step = text_file(target, KEPT) if pre and target not in ("standard output", "out") else None
    owns = ["*.jsonl", "*.records-*", "out", "out/*", "out/*/*", "out.csv", "out.json", "*.ckpt", "*.npy", "*.csv",
            "*.png", "*.svg"]
    if kind == "fsize" and (pre_step is not None or name == "optimize-resume"):   # must fail: the target stays
        owns = [o for o in owns if not __import__("fnmatch").fnmatch(target, o)]
        owns += [f for f in ("l.jsonl", "d.csv") if f != target]
    words = (target, "limit", "too large") if target != "standard output" else ("standard output",)
    if kind == "fsize":
        n = rng.choice([k for k in (1, 2, 4, 8, 16, 32, 64) if k <= kib])
        prefix, lim, exp = f"ulimit -f {n}; ", f"ulimit -f {n} (KiB)", error(words)
    else:
        k = rng.choice([4, 5, 6, 8, 12])
        prefix, lim = f"ulimit -n {k}; ", f"ulimit -n {k}"
        exp = either(error((target, "open files", "descriptor") if target != "standard output" else ("open files", "standard output")),
                     success())
    body = cmd if ">" in cmd else "exec " + cmd
    return gcli(f"{cid}-{kind}-{name}", "limits", prefix + body, exp, setup=steps(setup, pre_step),
                owns=owns, timeout=40, limit=lim, label=name.split("-")[0])


AS_LEVELS = [64, 128, 256, 512, 1024, 2048]


def _sizes(rng):
    """A size-driven command line, its memory estimate in MiB and the words its refusal may use."""
    what = rng.choice(["sample", "sample-o", "lattice", "korobov", "integrate", "features", "infer", "optimize", "bo",
                       "train", "halton"])
    if what in ("sample", "sample-o"):
        d, n = rng.choice([16, 64, 256, 1024]), 2 ** rng.choice([12, 16, 18, 20, 22, 24])
        while d * n > 2 ** 27:
            n //= 4
        m = rng.choice(["sobol", "mc", "lhs", "halton"])
        o = " -o x.npy" if what == "sample-o" else ""
        return f"{{G}} sample --method {m} --dim {d} --n {n}{o}", d * n * 8 / 2**20, ("--n", "--dim")
    if what == "halton":
        d = rng.choice([1000, 5000, 20000, 21201])
        return f"{{G}} sample --method halton --dim {d} --n {rng.choice([2, 16, 256])}", d * 300 * 8 / 2**20, ("--dim",)
    if what == "lattice":
        d = rng.choice([8, 32, 128])
        n = subgroup_n(d, rng.choice([10**4, 10**5, 10**6]))
        return f"{{G}} lattice --quiet --dim {d} --n {n} -o x.npy", d * n * 8 / 2**20, ("--n", "--dim")
    if what == "korobov":
        d = rng.choice([4, 8, 16])
        n = rng.choice([1009, 4001, 10007, 20011])
        return f"{{G}} lattice --quiet --method korobov --dim {d} --n {n} -o x.npy", d * n * 8 / 2**20, ("--n", "--dim")
    if what == "integrate":
        m = rng.choice(["sobol", "mc", "halton", "sobol-owen", "subgroup"])
        d = rng.choice([100, 500, 2000])
        n = subgroup_n(d, rng.choice([2000, 20000, 100000])) if m == "subgroup" else rng.choice([1024, 16384, 131072])
        r = rng.choice([2, 4, 50])
        # At most ~10 s of work: Halton and Owen's scrambling generate about 1e7 coordinates a
        # second on 2 cores, the others 30 times more.
        budget = 10**8 if m in ("halton", "sobol-owen") else 3 * 10**8
        while d * n * r > budget and r > 2:
            r //= 2
        while d * n * r > budget and m != "subgroup" and n > 1024:
            n //= 2
        return (f"{{G}} integrate --method {m} --dim {d} --n {n} --replicates {r} --json", d * n * 8 / 2**20,
                ("--n", "--dim", "--replicates"))
    if what == "features":
        out = rng.choice([256, 2048, 16384])
        o = rng.choice([" -o z.npy", " --report --report-rows 500"])
        return (f"{{G}} features --data d.csv --dim-out {out} --method {rng.choice(['ssf', 'iid', 'orf', 'sobol'])}{o}",
                2000 * out * 8 / 2**20, ("--dim-out",))
    if what == "infer":
        k, t = rng.choice([100, 1000, 10000]), rng.choice([200, 2000])
        return (f"{{G}} infer --quiet --data d.csv --target y --method sgd --chains {k} --steps {t} --chains-out c.npy",
                k * t * 5 * 8 / 2**20, ("--chains", "--steps"))
    if what == "optimize":
        d = rng.choice([100, 1000, 3000, 10000])
        a = rng.choice(["cmaes", "ingo", "xnes", "fast-ingo"])
        return (f"{{G}} optimize --quiet --algo {a} --problem sphere --dim {d} --max-gens 2", d * d * 8 * 4 / 2**20,
                ("--dim", "dimension"))
    if what == "bo":
        d = rng.choice([2, 6, 20])
        return (f"{{G}} bo --quiet --problem ackley --dim {d} --rounds {rng.choice([1, 4])} --batch {rng.choice([1, 5, 20])}",
                50, ("--dim", "--batch"))
    h = rng.choice(["64", "1024,1024", "8192", "20000"])
    return f"{{G}} train --quiet --data digits --epochs 1 --hidden {h}", sum(int(x) for x in h.split(",")) ** 2 * 8 / 2**20, ("--hidden",)


PY_AS = [
    ("sobol", "R = gradfree.Sobol({d}, seed=1).random({n}).shape"),
    ("halton", "R = gradfree.Halton({d}, seed=1).random({n}).shape"),
    ("cmaes", "es = gradfree.CMAES(np.zeros({d}), 0.5, seed=1)\nX = es.ask(); R = X.shape"),
    ("fit", "rng = np.random.default_rng(0); X = rng.normal(size=({n} // 64, 64)); y = (X[:, 0] > 0).astype(float)\n"
            "from gradfree.inference import fit\nR = fit(X, y, model='linear').params.shape"),
]


def draw(rng, cid):
    """One case of this kind drawn from rng (see the module docstring)."""
    kind = weighted(rng, [(5, "fsize"), (2, "nofile"), (5, "as"), (1, "py-as")])
    if kind in ("fsize", "nofile"):
        return _writer_case(rng, cid, kind)
    mb = rng.choice(AS_LEVELS)
    if kind == "py-as":
        name, code = pick(rng, PY_AS)
        d, n = rng.choice([8, 64, 1000, 20000]), 2 ** rng.choice([10, 16, 20, 24])
        while d * n > 2 ** 28:
            n //= 4
        mb = rng.choice([512, 1024, 2048])
        # (a fit of n // d rows: with fewer rows than parameters, maximum likelihood refuses naming them)
        exp = either(error(MEM_WORDS + ("rows",), types=("MemoryError",)), success())
        return gpy_limited(f"{cid}-py-as{mb}-{name}", "limits", PY_HEAD + code.format(d=d, n=n), exp,
                           f"prlimit --as={mb << 20}", limit=f"prlimit --as={mb} MB", timeout=60)
    cmd, need, words = _sizes(rng)
    exp = either(error(MEM_WORDS + words), success())
    setup = data({"model": "logistic", "n": 2000 if "features" in cmd else 569, "p": 4, "seed": 3})
    return gcli(f"{cid}-as{mb}-{cmd.split()[1]}", "limits", f"prlimit --as={mb << 20} " + cmd, exp, setup=setup,
                owns=("x.npy", "z.npy", "c.npy"), timeout=60, limit=f"prlimit --as={mb} MB (need ~{need:.0f} MiB)")
