"""Callers' standard streams: each command with its standard output bound as a caller may bind it
(subprocess.DEVNULL, which opens /dev/null read-write; `>/dev/null`; `1<>/dev/null`; a regular
file, new or appended to; a pipe read to the end; a pipe whose reader exits at once; `>&-`;
/dev/full) and its standard error captured, closed, full, discarded or merged.

Right: success wherever the caller can take the output (exit 0; a file or pipe read to the end
holds the whole output, an appended file keeps its earlier lines), the output lost only where the
caller discarded it; an error only where a write really fails: standard output closed or full ->
exit != 0 and (when standard error is visible) one `error:` line naming standard output; a pipe
closed by its reader -> a quiet exit (0 or 141, no error message). Standard error closed or full
never turns a success into a failure."""
from cases.gen_common import *
from cases.gen_datasets import step as data

LOG = sh("{G} optimize --quiet --algo cmaes --problem sphere --dim 3 --max-evals 300 --log a.jsonl --checkpoint a.ckpt")
D = data({"model": "logistic", "n": 200, "p": 3, "seed": 5})
# (args, setup, files the command writes)
COMMANDS = [
    ("{G} list", None, ()),
    ("{G} list --json", None, ()),
    ("{G} --help", None, ()),
    ("{G} --version", None, ()),
    ("{G} optimize --help", None, ()),
    ("{G} params cmaes", None, ()),
    ("{G} params ingo --json", None, ()),
    ("{G} optimize --quiet --algo cmaes --problem sphere --dim 3 --max-evals 300", None, ()),
    ("{G} optimize --quiet --algo ingo --problem ellipsoid --dim 4 --max-evals 400 --json", None, ()),
    ("{G} optimize --algo cmaes --problem sphere --dim 3 --max-evals 3000", None, ()),      # progress bar on stderr
    ("{G} optimize --problem sphere --dim 2 --max-evals 2000 --json", None, ()),
    ("{G} bo --quiet --problem ackley --dim 2 --rounds 1", None, ()),
    ("{G} bo --quiet --problem ackley --dim 2 --rounds 1 --json", None, ()),
    ("{G} infer --quiet --data d.csv --target y", D, ()),
    ("{G} infer --quiet --data d.csv --target y --json", D, ()),
    ("{G} infer --data d.csv --target y --method sgd --chains 4 --steps 30", D, ()),
    ("{G} train --quiet --data digits --epochs 1 --hidden 8", None, ()),
    ("{G} train --quiet --data digits --epochs 1 --hidden 8 --json", None, ()),
    ("{G} sample --method sobol --dim 2 --n 8", None, ()),
    ("{G} sample --method sobol --dim 4 --n 1024 -o -", None, ()),
    ("{G} sample --method mc --dim 8 --n 100000 -o -", None, ()),                             # 7 MB of CSV
    ("{G} sample --method halton --dim 3 --n 16 --json", None, ()),
    ("{G} sample --method sobol --dim 2 --n 8 -o x.npy", None, ("x.npy",)),
    ("{G} lattice --quiet --dim 5 --n 101", None, ()),
    ("{G} lattice --quiet --dim 5 --n 101 --json", None, ()),
    ("{G} lattice --dim 8 --n 401 --method korobov", None, ()),
    ("{G} integrate --dim 3 --n 101 --method mc", None, ()),
    ("{G} integrate --dim 10 --n 1021 --json", None, ()),
    ("{G} features --data d.csv --dim-out 8 --report", D, ()),
    ("{G} features --data d.csv --dim-out 8 --report --json", D, ()),
    ("{G} features --data d.csv --dim-out 8 -o z.npy", D, ("z.npy",)),
    ("{G} plot a.jsonl -o x.png", LOG, ("x.png",)),
    ("{G} plot a.jsonl -o x.svg --json", LOG, ("x.svg",)),
    ("{G} reproduce --list", None, ()),
    ("{G} reproduce test-functions --quick -o out", None, ("out", "out/*", "out/*/*")),
]
OUT_W = [(3, "devnull"), (2, "null-w"), (3, "null-rw"), (2, "file"), (1, "append"), (2, "pipe-read"),
         (1, "pipe-closed"), (1, "closed"), (1, "full")]
ERR_W = [(6, "capture"), (1, "closed"), (1, "full"), (1, "null"), (1, "null-rw"), (1, "merged")]


def draw(rng, cid):
    """One case of this kind drawn from rng (see the module docstring)."""
    args, setup, writes = pick(rng, COMMANDS)
    out, err = weighted(rng, OUT_W), weighted(rng, ERR_W)
    if err == "merged" and out in ("closed",):
        err = "capture"
    name = args.split()[1].lstrip("-")
    # a command whose output is a file (-o without --json) loses nothing when stdout fails: either is right
    file_output = bool(writes) and "--json" not in args
    return gstdio(f"{cid}-{name}-out-{out}-err-{err}", args, out, err, setup=setup,
                  owns=tuple(writes) + ("a.jsonl", "a.ckpt", "d.csv"), timeout=60, file_output=file_output)
