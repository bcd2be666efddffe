"""Runs on the same files: two or three processes started together writing the same
--checkpoint, --log, -o or --chains-out (or resuming the same checkpoint), and a run resumed after
another run took its log over.

Right: exactly one run owns each shared file (exit 0, the file holds its run alone: its seed in the
checkpoint, one `start` line and consecutive generations in the log, its own bytes in an output);
every other run refuses with a one-line `error:` naming the file. Two runs exiting 0 on one file is
`two-owners` (one run's data is lost, or the file mixes them). A resumed run whose log another run
has taken over refuses, naming the log, and leaves it as the other run wrote it."""
import json
import os
import subprocess

from cases.gen_common import *
from cases.gen_datasets import step as data

LONG = " --no-convergence --no-target --max-evals 1000000000 --max-seconds {secs}"
BC = {"model": "logistic", "n": 569, "p": 3, "seed": 11}


def _seed_in(d):
    """The run's seed in a checkpoint's meta (optimize, bo: meta.seed; train: meta.run.seed; infer: ...)."""
    if isinstance(d, dict):
        if "seed" in d and isinstance(d["seed"], int):
            return d["seed"]
        for k in ("meta", "run", "spec", "driver"):
            if k in d:
                s = _seed_in(d[k])
                if s is not None:
                    return s
    return None


def ckpt_of(path, seeds):
    """Owner check: the checkpoint holds the winner's seed."""
    def check(runs, win, folder, ctx):
        p = os.path.join(folder, path)
        if not os.path.exists(p):
            return f"{path} does not exist"
        s = _seed_in(json.load(open(p)))
        return None if s == seeds[win.i] else f"{path} holds seed {s}, the owner's is {seeds[win.i]}"
    return check


def log_of(path, with_best=True):
    """Owner check: the log is one run's (its start lines, one per session of a resumed run, all
    name the same run_id; consecutive generations) and its last best_f is the owner's (optimize
    --json)."""
    def check(runs, win, folder, ctx):
        p = os.path.join(folder, path)
        if not os.path.exists(p):
            return f"{path} does not exist"
        recs = [json.loads(l) for l in open(p) if l.strip()]
        starts = [r for r in recs if r.get("type") == "start"]
        gens = [r.get("generation") for r in recs if r.get("type") == "generation"]
        runs_named = {r.get("run_id") for r in starts}
        if not starts or len(runs_named) != 1 or None in runs_named:
            return f"{path} has {len(starts)} start lines of {len(runs_named)} runs {sorted(map(str, runs_named))} (runs mixed)"
        if gens and any(b != a + 1 for a, b in zip(gens, gens[1:])):
            return f"{path}: generations not consecutive (runs mixed): {gens[:12]}..."
        if with_best and win.out.strip().startswith("{"):
            best = json.loads(win.out).get("best_f")
            last = [r for r in recs if r.get("type") == "generation"][-1]["best_f"] if gens else None
            if best is not None and last is not None and last != best:
                return f"{path}'s last best_f {last} is not the owner's {best}"
        return None
    return check


def _runs(rng):
    return rng.choice([2, 2, 3])


def draw(rng, cid):
    """One case of this kind drawn from rng (see the module docstring)."""
    kind = weighted(rng, [(3, "ckpt"), (3, "log"), (2, "ckpt-other"), (2, "output"), (2, "resume-same"), (3, "takeover")])
    k = _runs(rng)
    seeds = rng.sample(range(1, 1000), k)
    secs = rng.choice([1.0, 1.5, 2.0])
    if kind in ("ckpt", "log"):
        algo = rng.choice(["cmaes", "ingo", "fast-ingo", "xnes", "openai-es"])
        prob = rng.choice(["sphere", "ellipsoid", "rastrigin10"])
        base = f"{{G}} optimize --quiet --json --algo {algo} --problem {prob} --dim {rng.choice([3, 5, 10])}" + LONG.format(secs=secs)
        if kind == "ckpt":
            path = rng.choice(["c.ckpt", "sub/c.ckpt"])
            logs = rng.choice([True, False])
            cmds = [f"{base} --seed {s} --checkpoint {path if j == 0 or rng.random() < .7 else './' + path}"
                    + (f" --log l{j}.jsonl" if logs else "") for j, s in enumerate(seeds)]
            judge = exclusive([path], ckpt_of(path, seeds))
        else:
            path = "l.jsonl"
            cmds = [f"{base} --seed {s} --log {path}" + (f" --checkpoint c{j}.ckpt" if rng.random() < .5 else "")
                    for j, s in enumerate(seeds)]
            judge = exclusive([path], log_of(path))
        setup = sh("mkdir -p sub") if "sub/" in " ".join(cmds) else None
        return gmulti(f"{cid}-{kind}-optimize-x{k}", "concurrent", cmds, judge, setup=setup,
                      owns=("*.ckpt", "*.jsonl", "sub/*"), timeout=60)
    if kind == "ckpt-other":
        what = rng.choice(["bo", "train", "infer"])
        if what == "bo":
            cmds = [f"{{G}} bo --quiet --problem ackley --dim 3 --rounds 12 --seed {s} --checkpoint c.ckpt" for s in seeds]
        elif what == "train":
            cmds = [f"{{G}} train --quiet --data digits --epochs 400 --hidden 16 --seed {s} --checkpoint c.ckpt" for s in seeds]
        else:
            cmds = [f"{{G}} infer --quiet --data d.csv --target y --method masgrad --chains 4 --steps 4000 --seed {s} "
                    f"--checkpoint c.ckpt --checkpoint-every 100" for s in seeds]
        if rng.random() < .5:
            cmds = [c + f" --log l.jsonl" if what != "infer" else c for c in cmds]
        judge = exclusive(["c.ckpt"] + (["l.jsonl"] if "--log" in cmds[0] else []), ckpt_of("c.ckpt", seeds))
        return gmulti(f"{cid}-ckpt-{what}-x{k}", "concurrent", cmds, judge, setup=data(BC) if what == "infer" else None,
                      owns=("c.ckpt", "c.ckpt.records-*", "l.jsonl"), timeout=90)
    if kind == "output":
        what = rng.choice(["sample", "lattice", "features", "chains-out"])
        ext = rng.choice([".npy", ".csv"])
        path = ("c" if what == "chains-out" else "x") + ext
        cmd = {"sample": "{G} sample --method mc --dim 32 --n 1000000 --seed SEED -o " + path,
               "lattice": "{G} lattice --quiet --dim DIM --n 640001 -o " + path,     # runs differ by d (no seed)
               "features": "{G} features --data d.csv --dim-out 4096 --method iid --seed SEED -o " + path,
               "chains-out": "{G} infer --quiet --data d.csv --target y --method sgd --chains 64 --steps 3000 --seed SEED "
                             "--chains-out " + path}[what]
        if ext == ".csv" and what in ("sample", "lattice"):
            cmd = cmd.replace("1000000", "200000").replace("640001", str(subgroup_n(32, 160000)))
        cmd = cmd.replace("640001", str(subgroup_n(32, 640000)))
        cmds = [cmd.replace("SEED", str(s)).replace("DIM", str(32 >> j)) for j, s in enumerate(seeds)]
        judge = exclusive([path], _same_bytes(path))
        return gmulti(f"{cid}-output-{what}-x{k}", "concurrent", cmds, judge,
                      setup=data(dict(BC, n=3000, p=16)) if what in ("features", "chains-out") else None,
                      owns=(path,), timeout=90)
    if kind == "resume-same":
        what = rng.choice(["optimize", "optimize", "bo", "train", "infer"])
        mk, res = {
            "optimize": ("{G} optimize --quiet --algo cmaes --problem ellipsoid --dim 8 --no-convergence --no-target "
                         "--max-evals 400 --checkpoint c.ckpt --log l.jsonl",
                         "{G} optimize --quiet --json --resume c.ckpt --max-evals 1000000000 --max-seconds " + str(secs)),
            "bo": ("{G} bo --quiet --problem ackley --dim 3 --rounds 1 --checkpoint c.ckpt --log l.jsonl",
                   "{G} bo --quiet --resume c.ckpt --rounds 12"),
            # train resumes to its saved epochs: the saved run is one of 400 epochs stopped by SIGINT after 0.5 s
            "train": ("timeout -s INT 0.5 {G} train --quiet --data digits --epochs 400 --hidden 16 --checkpoint c.ckpt "
                      "--log l.jsonl; test -s c.ckpt", "{G} train --quiet --resume c.ckpt"),
            "infer": ("{G} infer --quiet --data d.csv --target y --method masgrad --chains 4 --steps 100 --checkpoint c.ckpt",
                      "{G} infer --quiet --resume c.ckpt --steps 4000"),
        }[what]
        setup = steps(data(BC) if what == "infer" else None, sh(mk))
        paths = ["c.ckpt"] + (["l.jsonl"] if what != "infer" else [])
        return gmulti(f"{cid}-resume-same-{what}-x{k}", "concurrent", [res] * k,
                      exclusive(paths, log_of("l.jsonl", with_best=False) if what != "infer" else None),
                      setup=setup, owns=("c.ckpt", "c.ckpt.records-*", "l.jsonl"), timeout=90)
    return _takeover(rng, cid)


def _same_bytes(path):
    """Owner check: the output is the bytes the owner's command writes alone (rerun to ref.*)."""
    def check(runs, win, folder, ctx):
        ref = "ref" + os.path.splitext(path)[1]
        r = subprocess.run(["bash", "-c", ctx.sub(win.cmd.replace(" " + path, " " + ref))], cwd=folder,
                           capture_output=True, timeout=120)
        a, b = os.path.join(folder, path), os.path.join(folder, ref)
        if r.returncode or not os.path.exists(b):
            return f"the owner's command alone failed: {r.stderr[-150:]!r}"
        same = open(a, "rb").read() == open(b, "rb").read()
        os.unlink(b)
        return None if same else f"{path} is not the owner's output (mixed or another run's)"
    return check


def _takeover(rng, cid):
    """Run A (log l.jsonl, checkpoint a.ckpt) ends; run B takes l.jsonl over; A is resumed."""
    what = rng.choice(["optimize", "optimize", "bo", "train"])
    seeds = rng.sample(range(1, 1000), 2)
    over = "--overwrite"                      # B may take the log over: A's resume must then refuse
    spell = rng.choice(["l.jsonl", "./l.jsonl", "$PWD/l.jsonl"])
    explicit = rng.random() < 0.3             # the resume names the log again
    if what == "optimize":
        run = "{G} optimize --quiet --algo cmaes --problem ellipsoid --dim 5 --no-convergence --no-target --max-evals 400"
        a = f"{run} --seed {seeds[0]} --log l.jsonl --checkpoint a.ckpt"
        b = f"{run} --seed {seeds[1]} --log {spell} --checkpoint b.ckpt {over}"
        res = "{G} optimize --quiet --resume a.ckpt --max-evals 800"
    elif what == "bo":
        run = "{G} bo --quiet --problem ackley --dim 2 --rounds 1"
        a = f"{run} --seed {seeds[0]} --log l.jsonl --checkpoint a.ckpt"
        b = f"{run} --seed {seeds[1]} --log {spell} --checkpoint b.ckpt {over}"
        res = "{G} bo --quiet --resume a.ckpt --rounds 2"
    else:                                     # train resumes to its saved epochs: A is stopped by SIGINT
        run = "{G} train --quiet --data digits --hidden 8"
        a = f"timeout -s INT 0.5 {run} --epochs 400 --seed {seeds[0]} --log l.jsonl --checkpoint a.ckpt; test -s a.ckpt"
        b = f"{run} --epochs 2 --seed {seeds[1]} --log {spell} --checkpoint b.ckpt {over}"
        res = "{G} train --quiet --resume a.ckpt"
    if explicit:
        res += " --log l.jsonl"
    setup = steps(sh(a), sh(b.strip()))
    return gcli(f"{cid}-takeover-{what}", "concurrent", res, error("l.jsonl"), setup=setup,
                owns=("a.ckpt", "a.ckpt.*"), timeout=60)
