"""One command's logs and checkpoints fed to another: `plot` on optimize, bo and train logs (alone,
together, mixed kinds), on logs with a NaN/null value, a torn last line, a torn or foreign line in
the middle, CRLF or a BOM, on checkpoints and data files; each command's checkpoint resumed by
another command; logs and checkpoints given as data.

Right: `plot` draws logs of one kind (best f vs evaluations: optimize and bo; training: train) and
refuses a mix, a checkpoint or a data file with a one-line error naming the file (not a missing
field, not a JSON parse position); a damaged line is refused naming the file (or skipped with a
warning); a torn last line (a run killed mid-write) may be skipped with a warning. A checkpoint
resumed by another command, or a log given as data, is refused naming the file."""
from cases.gen_common import *
from cases.gen_datasets import step as data

MAKE = {
    "opt": "{{G}} optimize --quiet --algo {algo} --problem {prob} --dim 3 --max-evals {evals} --log {name}.jsonl --checkpoint {name}.ckpt",
    "bo": "{{G}} bo --quiet --problem ackley --dim 2 --rounds {rounds} --log {name}.jsonl --checkpoint {name}.ckpt",
    "train": "{{G}} train --quiet --data digits --epochs {epochs} --hidden 8 --log {name}.jsonl --checkpoint {name}.ckpt",
    "infer": "{{G}} infer --quiet --data d.csv --target y --method masgrad --chains 4 --steps 40 --checkpoint {name}.ckpt",
}
FAMILY = {"opt": "f", "bo": "f", "train": "t"}
DAMAGE = {
    "nan": "s = open('{f}').read().splitlines(); i = {i} % (len(s) - 1) + 1; s[i] = s[i].replace('\"best_f\":', '\"best_f\":NaN,\"x\":', 1)"
           ".replace('\"test_accuracy\":', '\"test_accuracy\":NaN,\"x\":', 1); open('{f}', 'w').write('\\n'.join(s) + '\\n')",
    # null in a drawn record (a generation or epoch: plot reads no other record's values)
    "null": "s = open('{f}').read().splitlines(); g = [k for k, l in enumerate(s) if '\"type\":\"generation\"' in l] or [1]; i = g[{i} % len(g)]; s[i] = s[i].replace('\"best_f\":', '\"best_f\":null,\"x\":', 1)"
            ".replace('\"test_accuracy\":', '\"test_accuracy\":null,\"x\":', 1); open('{f}', 'w').write('\\n'.join(s) + '\\n')",
    "torn-last": "b = open('{f}', 'rb').read().rstrip(b'\\n'); open('{f}', 'wb').write(b[:len(b) - 1 - {i} % 20])",
    "torn-middle": "s = open('{f}').read().splitlines(); i = {i} % (len(s) - 2) + 1; s[i] = s[i][:len(s[i]) // 2]; "
                   "open('{f}', 'w').write('\\n'.join(s) + '\\n')",
    "foreign-line": "s = open('{f}').read().splitlines(); s.insert({i} % len(s) + 1, '{{\"type\":\"epoch\",\"loss\":1.5}}'); "
                    "open('{f}', 'w').write('\\n'.join(s) + '\\n')",
    "crlf": "open('{f}', 'w', newline='').write(open('{f}').read().replace('\\n', '\\r\\n'))",
    "bom": "open('{f}', 'w', encoding='utf-8-sig').write(open('{f}').read())",
    "duplicate": "s = open('{f}').read().splitlines(); i = {i} % len(s); s.insert(i, s[i]); open('{f}', 'w').write('\\n'.join(s) + '\\n')",
    "blank": "s = open('{f}').read().splitlines(); s.insert({i} % len(s) + 1, ''); open('{f}', 'w').write('\\n'.join(s) + '\\n')",
}


def _make(rng, kind, name):
    return MAKE[kind].format(algo=rng.choice(["cmaes", "ingo", "xnes"]), prob=rng.choice(["sphere", "ellipsoid"]),
                             evals=rng.choice([200, 600]), rounds=rng.choice([1, 2]), epochs=rng.choice([2, 3]), name=name)


def _png_check(out):
    def check(res):
        import os
        p = os.path.join(res.folder, out)
        return None if os.path.exists(p) and os.path.getsize(p) > 100 else f"{out} not written"
    return check


def _plot(rng, cid):
    kinds = [rng.choice(["opt", "bo", "train"]) for _ in range(rng.choice([1, 2, 3]))]
    names = [f"{k}{i}" for i, k in enumerate(kinds)]
    setup = [sh(_make(rng, k, n)) for k, n in zip(kinds, names)]
    out = rng.choice(["x.png", "x.svg"])
    damage = rng.choice([None, None] + list(DAMAGE))
    target = rng.choice(names)
    if damage:
        setup.append(sh("{PY} -c " + __import__("shlex").quote(DAMAGE[damage].format(f=target + ".jsonl", i=rng.randrange(100)))))
    flags = rng.choice(["", " --linear", " --f-star 0", " --json", " --title t"])
    cmd = "{G} plot " + " ".join(n + ".jsonl" for n in names) + f" -o {out}{flags}"
    fam = {FAMILY[k] for k in kinds}
    ok = success(check=_png_check(out))
    if len(fam) > 1:
        exp, why = error(tuple(n + ".jsonl" for n in names)), f"mixed-{'+'.join(kinds)}"
    elif damage in ("crlf", "bom", "blank", "duplicate", "foreign-line"):   # a record of an unknown type may be skipped
        exp, why = either(ok, error(target + ".jsonl")), damage
    elif damage == "torn-last":              # a run killed mid-line: the torn line may be dropped
        exp, why = either(error(target + ".jsonl"), ok), damage
    elif damage in ("nan", "null"):
        exp, why = either(error(target + ".jsonl"), success(check=all_checks(_png_check(out), _warned))), damage
    elif damage:
        exp, why = error(target + ".jsonl"), damage
    else:
        exp, why = ok, "+".join(kinds)
    return gcli(f"{cid}-plot-{why}", "logs", cmd, exp, setup=steps(*setup), owns=(out, "*.jsonl", "*.ckpt"), timeout=60)


def _warned(res):
    return None if any(l.startswith("warning:") for l in res.err.splitlines()) else "a damaged line was read silently (no warning)"


def _cross(rng, cid):
    src = rng.choice(["opt", "bo", "train", "infer"])
    setup = [data({"model": "logistic", "n": 300, "p": 3, "seed": 2}), sh(_make(rng, src, "a"))]
    use = rng.choice(["resume", "plot-ckpt", "data", "features"])
    f = rng.choice(["a.ckpt", "a.jsonl"] if src != "infer" else ["a.ckpt"])
    if use == "resume":
        dst = rng.choice([k for k in ("optimize", "bo", "train", "infer") if not (k == {"opt": "optimize"}.get(src, src))] + [None])
        if dst is None:                      # the own command, given its log instead of its checkpoint
            dst, f = {"opt": "optimize"}.get(src, src), "a.jsonl" if src != "infer" else "d.csv"
        cmd = f"{{G}} {dst} --quiet --resume {f}"
    elif use == "plot-ckpt":
        f = "a.ckpt"
        cmd = f"{{G}} plot {f} -o x.png"
    elif use == "data":
        cmd = f"{{G}} infer --quiet --data {f} --target y"
    else:
        cmd = f"{{G}} features --data {f} --dim-out 8 --report"
    # a file that is no checkpoint (a log given to --resume) may be refused with its parse position
    json_ok = use == "resume" and f.endswith(".jsonl")
    return gcli(f"{cid}-{use}-{src}-{f.replace('.', '')}", "logs", cmd, error(f, json_ok=json_ok), setup=steps(*setup),
                owns=("a.*", "x.png", "a.ckpt.records-*"), timeout=60)


def draw(rng, cid):
    """One case of this kind drawn from rng (see the module docstring)."""
    return _plot(rng, cid) if rng.random() < 0.6 else _cross(rng, cid)
