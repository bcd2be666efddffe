"""Paths: an output that is an input (same file, ./, absolute, symbolic or hard link), devices,
FIFOs, folders, missing or read-only folders, bad extensions; standard output closed (`>&-`),
full (/dev/full) or a closed pipe, for every command and its --help."""
from cases.common import *

E, OK = error, success
INF = "{G} infer --quiet --data d.csv --target y --method masgrad --chains 4 --steps 10"   # chains: --chains-out, --checkpoint
INF_MLE = "{G} infer --quiet --data d.csv --target y"                                     # the default (mle)
RO = "chmod 777 . && mkdir ro && chmod 555 ro && {NOBODY}"
RO_REQ = ("ro-dir",)


def mklog(ctx, folder):
    sh("{G} optimize --quiet --algo cmaes --problem sphere --dim 3 --max-evals 300 --log a.jsonl --checkpoint a.ckpt")(ctx, folder)


def c(cid, cmd, expect, *, files=D, owns=(), setup=None, timeout=30, requires=()):
    cli(cid, "paths", cmd, expect, files=files, owns=owns, setup=setup, timeout=timeout, requires=requires)


# ---- infer
c("inf-co-same", INF + " --chains-out d.csv", E("--data", "--chains-out"))
c("inf-co-dot", INF + " --chains-out ./././d.csv", E("--chains-out"))
c("inf-co-abs", INF + " --chains-out $PWD/../$(basename $PWD)/d.csv", E("--chains-out"))
c("inf-co-symlink", INF + " --chains-out l.csv", E("--chains-out"), setup=sh("ln -s d.csv l.csv"))
c("inf-co-hardlink", INF + " --chains-out h.csv", E("--chains-out"), setup=sh("ln d.csv h.csv"))
c("inf-ck-hardlink", INF + " --checkpoint h.ckpt", E("--checkpoint"), setup=sh("ln d.csv h.ckpt"))
c("inf-ck-symlink-dangling", INF + " --checkpoint l.ckpt", E("--checkpoint"), setup=sh("ln -s nowhere.ckpt l.ckpt"))
c("inf-data-symlink", "{G} infer --quiet --data l.csv --target y", OK(), setup=sh("ln -s d.csv l.csv"))
c("inf-data-fifo", "{G} infer --quiet --data p.csv --target y", E("--data"), files=(), setup=sh("mkfifo p.csv"))
c("inf-data-devzero", "{G} infer --quiet --data /dev/zero --target y", E("--data"), files=())
c("inf-data-folder", "{G} infer --quiet --data sub --target y", E("--data"), files=(), setup=sh("mkdir sub"))
c("inf-data-missing", "{G} infer --quiet --data nope.csv --target y", E("--data"), files=())
c("inf-data-noext", "{G} infer --quiet --data d --target y", E(("--data d", "read d:")), files=[("bc3.csv", "d")])
c("inf-co-devfull", INF + " --chains-out /dev/full", E("--chains-out"))
c("inf-co-missingdir", INF + " --chains-out no/such/c.csv", E("--chains-out"))
c("inf-co-folder", INF + " --chains-out sub", E("--chains-out"), setup=sh("mkdir sub"))
c("inf-co-rodir", RO + INF + " --chains-out ro/c.npy", E("ro/c.npy", "Permission denied"), owns=("ro",), requires=RO_REQ)
c("inf-ck-rodir", RO + INF + " --checkpoint ro/c.ckpt", E("ro/c.ckpt", "Permission denied"), owns=("ro",), requires=RO_REQ)
c("inf-co-badext", INF + " --chains-out c.txt", E("--chains-out"))
c("inf-ck-eq-co", INF + " --chains-out c.npy --checkpoint ./c.npy", E("--checkpoint", "--chains-out"))
c("inf-resume-eq-data", "{G} infer --quiet --resume d.csv", error("d.csv", json_ok=True))
c("inf-stream-fifo", "(exec >/dev/null 2>&1 </dev/null; cat d.csv > p.csv &) ; {G} infer --quiet --data p.csv --target y --stream --method sgd --chains 2 --batch 5",
  E("--data"), setup=sh("mkfifo p.csv"))
c("inf-co-devnull", INF + " --chains-out /dev/null", E("--chains-out"))
c("inf-co-existing-ro-file", "chmod 777 . && touch c.npy && chmod 444 c.npy && {NOBODY}" + INF + " --chains-out c.npy",
  OK(check=has_file("c.npy")), owns=("c.npy",), requires=RO_REQ)

# ---- features
FE = "{G} features --data d.csv --dim-out 8"
c("fea-o-same", FE + " -o d.csv", E("--data", "-o"), files=F)
c("fea-o-symlink", FE + " -o l.csv", E("-o"), files=F, setup=sh("ln -s d.csv l.csv"))
c("fea-o-hardlink", FE + " -o h.csv", E("-o"), files=F, setup=sh("ln d.csv h.csv"))
c("fea-data-fifo", "{G} features --data p.csv --dim-out 8 --report", E("p.csv"), files=(), setup=sh("mkfifo p.csv"))
c("fea-data-devzero", "{G} features --data /dev/zero --dim-out 8 --report", E("/dev/zero"), files=())
c("fea-o-devfull", FE + " -o /dev/full", E("/dev/full"), files=F)
c("fea-o-rodir", RO + FE + " -o ro/z.npy", E("ro/z.npy", "Permission denied"), files=F, owns=("ro",), requires=RO_REQ)
c("fea-data-npy-as-csv", "{G} features --data x.csv --dim-out 8 --report", E("x.csv"), files=[("digits.npy", "x.csv")])

# ---- sample / lattice
SM = "{G} sample --method sobol --dim 2 --n 8"
c("smp-o-symlink", SM + " -o l.npy", E("-o"), files=("bc3.csv",), setup=sh("ln -s bc3.csv l.npy"))
c("smp-o-hardlink-existing", SM + " -o h.npy", OK(check=has_file("h.npy")), files=("bc3.csv",), setup=sh("ln bc3.csv h.npy"), owns=("h.npy",))
c("smp-o-folder", SM + " -o sub", E("sub"), files=(), setup=sh("mkdir sub"))
c("smp-o-devfull", SM + " -o /dev/full", E("/dev/full"), files=())
c("smp-o-fifo", SM + " -o p.csv", E("-o"), files=(), setup=sh("mkfifo p.csv"))
c("smp-o-empty", SM + " -o ''", E("--output"), files=())
c("smp-o-badext", SM + " -o x.txt", E("x.txt"), files=())
c("smp-o-missingdir", SM + " -o no/x.npy", E("-o"), files=())
c("smp-o-rodir", RO + SM + " -o ro/x.npy", E("ro/x.npy", "Permission denied"), files=(), owns=("ro",), requires=RO_REQ)
c("smp-o-devnull", SM + " -o /dev/null", E("/dev/null"), files=())
c("smp-stdout-pipe-head", "{G} sample --method mc --dim 4 --n 5000000 -o - | head -c 100 >/dev/null; echo \"status ${PIPESTATUS[0]}\" >&2; exit ${PIPESTATUS[0]}", OK(), files=())
c("smp-json-and-stdout", "{G} sample --method sobol --dim 2 --n 4 -o - --json", OK(), files=())
c("lat-o-devfull", "{G} lattice --quiet --dim 5 --n 101 -o /dev/full", E("/dev/full"), files=())
c("lat-o-symlink-to-data", "{G} lattice --quiet --dim 5 --n 101 -o l.csv", E("-o"), files=("bc3.csv",), setup=sh("ln -s bc3.csv l.csv"))
c("lat-o-overwrite-regular", "{G} lattice --quiet --dim 5 --n 101 -o keep.csv", OK(), files=[("bc3.csv", "keep.csv")], owns=("keep.csv",))

# ---- plot
PL = "{G} plot"
c("plt-o-same", PL + " a.jsonl -o a.jsonl", E("--output"), files=(), setup=mklog, owns=("a.ckpt",))
c("plt-o-symlink-to-log", PL + " a.jsonl -o l.png", E("--output"), files=(), setup=seq(mklog, sh("ln -s a.jsonl l.png")))
c("plt-o-hardlink-to-log", PL + " a.jsonl -o h.svg", E("--output"), files=(), setup=seq(mklog, sh("ln a.jsonl h.svg")))
c("plt-in-fifo", PL + " p.jsonl -o x.png", E("p.jsonl"), files=(), setup=sh("mkfifo p.jsonl"))
c("plt-in-devzero", PL + " /dev/zero -o x.png", E("/dev/zero"), files=())
c("plt-in-folder", PL + " sub -o x.png", E("sub"), files=(), setup=sh("mkdir sub"))
c("plt-in-empty", PL + " e.jsonl -o x.png", E("e.jsonl"), files=(), setup=sh("touch e.jsonl"))
c("plt-in-ckpt", PL + " a.ckpt -o x.png", E("a.ckpt"), files=(), setup=mklog)
c("plt-o-badext", PL + " a.jsonl -o x.gif", E("x.gif"), files=(), setup=mklog)
c("plt-o-devfull", PL + " a.jsonl -o /dev/full", E("/dev/full"), files=(), setup=mklog)
c("plt-o-missingdir", PL + " a.jsonl -o no/x.png", E("--output"), files=(), setup=mklog)
c("plt-o-rodir", RO + PL + " a.jsonl -o ro/x.png", E("ro/x.png"), files=(), setup=mklog, owns=("ro",), requires=RO_REQ)
c("plt-same-log-twice", PL + " a.jsonl ./a.jsonl -o x.png", E("a.jsonl"), files=(), setup=mklog, owns=("x.png",))
c("plt-o-is-second-log", PL + " a.jsonl b.svg -o b.svg", E("--output"), files=(), setup=seq(mklog, sh("cp a.jsonl b.svg")))

# ---- optimize / bo / train files
OPT = "{G} optimize --quiet --algo cmaes --problem sphere --dim 3 --max-evals 300"
c("opt-log-eq-ck-hard", OPT + " --log l.jsonl --checkpoint h.ckpt", E("--log", "--checkpoint"), files=(), setup=sh("touch l.jsonl && ln l.jsonl h.ckpt"))
c("opt-log-devfull", OPT + " --log /dev/full", E("--log"), files=())
c("opt-ck-folder", OPT + " --checkpoint sub", E("--checkpoint"), files=(), setup=sh("mkdir sub"))
c("opt-ck-foreign", OPT + " --checkpoint a.ckpt", E("--overwrite"), files=(), setup=mklog)
c("opt-ck-foreign-data", OPT + " --checkpoint d.csv", E("--checkpoint"))
c("opt-log-over-data", OPT + " --log d.csv", E("--log"))      # a log replaces only a gradfree log
c("opt-resume-fifo", "{G} optimize --quiet --resume p.ckpt", E("--resume"), files=(), setup=sh("mkfifo p.ckpt"))
c("opt-resume-devzero", "{G} optimize --quiet --resume /dev/zero", E("--resume"), files=())
c("opt-resume-folder", "{G} optimize --quiet --resume sub", E("--resume"), files=(), setup=sh("mkdir sub"))
c("opt-resume-missing", "{G} optimize --quiet --resume no.ckpt", E("no.ckpt"), files=())
c("opt-resume-eq-log", "{G} optimize --quiet --resume a.ckpt --log a.ckpt", E("--log"), files=(), setup=mklog)
c("opt-log-rodir", RO + OPT + " --log ro/l.jsonl", E("ro/l.jsonl", "Permission denied"), files=(), owns=("ro",), requires=RO_REQ)
BO = "{G} bo --quiet --problem ackley --dim 2 --rounds 2"
c("bo-log-eq-ck-dot", BO + " --log b.x --checkpoint ./b.x", E("--log", "--checkpoint"), files=())
c("bo-log-symlink", BO + " --log l.jsonl", E("--log"), files=("bc3.csv",), setup=sh("ln -s bc3.csv l.jsonl"))
c("bo-ck-devfull", BO + " --checkpoint /dev/full", E("--checkpoint"), files=())
TR = "{G} train --quiet --data digits --epochs 1"
c("tr-log-symlink", TR + " --log l.jsonl", E("--log"), files=("bc3.csv",), setup=sh("ln -s bc3.csv l.jsonl"))
c("tr-ck-hardlink-log", TR + " --log l.jsonl --checkpoint h.ckpt", E("--log", "--checkpoint"), files=(), setup=sh("echo old > l.jsonl && ln l.jsonl h.ckpt"))
c("tr-log-missingdir", TR + " --log no/l.jsonl", E("--log"), files=())
c("tr-ck-rodir", RO + TR + " --checkpoint ro/c.ckpt", E("ro/c.ckpt", "Permission denied"), files=(), owns=("ro",), requires=RO_REQ)
c("tr-log-devnull", TR + " --log /dev/null", E("--log"), files=())

# ---- reproduce output folder
RP = "{G} reproduce --quick test-functions"
OUT = ("out/*", "out/*/*", "out/*/*/*")
c("rep-o-file", RP + " -o f", E(("-o", "--out", "f/", "f:")), files=(), setup=sh("echo keep > f"))
c("rep-o-devfull", RP + " -o /dev/full", E("/dev/full"), files=())
c("rep-o-rodir", RO + RP + " -o ro/out", E("ro"), files=(), owns=("ro",), requires=RO_REQ)
c("rep-o-symlink-dir", RP + " -o lk", OK(), files=(), setup=sh("mkdir real && ln -s real lk"), owns=("real/*", "real/*/*", "real/*/*/*"))
c("rep-o-data-dir", RP + " -o .", OK(), files=("bc3.csv",), owns=("test-functions/*", "test-functions/*/*"))

# ---- standard output: closed (>&-), full (/dev/full), a pipe closed early; every command
STDOUT = {
    "list": ("{G} list", ()), "list-json": ("{G} list --json", ()), "params": ("{G} params ingo", ()),
    "params-json": ("{G} params ingo --json", ()),
    "opt": (OPT + " --json", ()), "opt-text": (OPT, ()), "bo": (BO, ()), "bo-json": (BO + " --json", ()),
    "tr": (TR + " --json", ()), "inf": (INF_MLE + " --json", D), "inf-text": (INF, D),
    "int": ("{G} integrate --dim 3 --n 101 --method mc", ()), "fea": (FE + " --report", F),
    "smp": (SM + " -o -", ()), "smp-plain": (SM, ()), "lat": ("{G} lattice --quiet --dim 5 --n 101", ()),
    "plt-json": (PL + " a.jsonl -o x.png --json", ()), "rep-json": (RP + " -o out --json", ()),
    "rep": (RP + " -o out", ()),
}
OLD_ID = {"plt-json-stdout-closed": "plt-stdout-closed-json", "list-json-stdout-closed": "list-json-closed",
          "help-top-devfull": "help-stdout-devfull"}          # ids of the first pass
for name, (cmd, files) in STDOUT.items():
    setup = mklog if name.startswith("plt") else None
    owns = ("x.png",) + OUT
    for how, redir in (("closed", " >&-"), ("devfull", " > /dev/full")):
        cid = f"{name}-stdout-{how}"
        exp = E("standard output")
        if cid == "rep-stdout-closed":           # the table is also in out/: nothing is lost
            exp = either(exp, OK(check=has_file("out/test-functions")))
        c(OLD_ID.get(cid, cid), cmd + redir, exp, files=files, setup=setup, owns=owns)
c("smp-stdout-csv-devfull", "{G} sample --method sobol --dim 2 --n 100000 -o - > /dev/full", E("standard output"), files=())
c("list-pipe-head", "{G} list | head -1 > /dev/null; echo status ${PIPESTATUS[0]} >&2; exit ${PIPESTATUS[0]}", OK(), files=())
HELP = {"top": "--help", "list": "list --help", "optimize": "optimize --help", "params": "params --help",
        "plot": "plot --help", "reproduce": "reproduce --help", "lattice": "lattice --help", "sample": "sample --help",
        "integrate": "integrate --help", "features": "features --help", "bo": "bo --help", "infer": "infer --help",
        "train": "train --help", "help": "help", "help-infer": "help infer", "short-h": "optimize -h"}
for name, args in HELP.items():
    c(OLD_ID.get(f"help-{name}-devfull", f"help-{name}-devfull"), f"{{G}} {args} > /dev/full", E("standard output"), files=())
    c(f"help-{name}-closed", f"{{G}} {args} >&-", E("standard output"), files=())
c("version-devfull", "{G} --version > /dev/full", E("standard output"), files=())
c("version-closed", "{G} --version >&-", E("standard output"), files=())

# ---- Python front end
py("py-exp-unknown", "paths", "import gradfree.experiments as X\nR = X.run('nope', quick=True)", E("nope"), label="experiments")
# a result saved into a read-only folder (as uid 65534 when root): refused, naming the file, and
# no temporary file left (the harness looks for .tmp- files everywhere in the case folder)
py("py-save-rodir", "paths", "import os\nfrom gradfree.inference import fit\nX, y = bc3()\nr = fit(X, y)\n"
   "if os.geteuid() == 0:\n    os.setgid(65534); os.setuid(65534)\nR = r.save('ro/r.pkl')",
   E("ro/r.pkl", "Permission denied", types=("PermissionError",)), label="results.save",
   setup=sh("chmod 777 . && mkdir ro && chmod 555 ro"), owns=("ro",), requires=RO_REQ)
