"""Checkpoints: resumed with changed flags, truncated, not JSON, hand-edited (with a recomputed
checksum, so the edit reaches the validation), counters at 2^64-1, data changed under a run,
and each command's checkpoint resumed by each other command."""
import json
import os

from cases.common import *

E, OK = error, success
MK_OPT = sh("{G} optimize --quiet --algo cmaes --problem sphere --dim 3 --max-evals 300 --checkpoint o.ckpt --log o.jsonl")
MK_OPT_LONG = sh("{G} optimize --quiet --algo ingo --problem ellipsoid --dim 4 --max-evals 2000 --no-convergence --checkpoint o.ckpt --log o.jsonl")
MK_BO = sh("{G} bo --quiet --problem ackley --dim 2 --rounds 2 --checkpoint b.ckpt --log b.jsonl")
MK_TR = sh("{G} train --quiet --data digits --epochs 3 --hidden 8 --checkpoint t.ckpt --log t.jsonl")
MK_INF = sh("{G} infer --quiet --data d.csv --target y --method masgrad --chains 4 --steps 40 --checkpoint i.ckpt")
MK_INF_SGD = sh("{G} infer --quiet --data d.csv --target y --chains 4 --steps 40 --method sgd --checkpoint i.ckpt")
RES_OPT = "{G} optimize --quiet --resume o.ckpt --json"
RES_OPT6 = "{G} optimize --quiet --resume o.ckpt --max-evals 600 --json"
RES_BO = "{G} bo --quiet --resume b.ckpt --rounds 4 --json"
RES_TR = "{G} train --quiet --resume t.ckpt --json"
RES_INF = "{G} infer --quiet --resume i.ckpt --steps 60 --json"
OWN_O, OWN_B, OWN_T = ("o.ckpt", "o.jsonl"), ("b.ckpt", "b.jsonl"), ("t.ckpt", "t.jsonl")
OWN_I = ("i.ckpt", "i.ckpt.records-*")
RNG = ("rng", "generator")
JE = lambda name: error(name, json_ok=True)                  # not JSON: the parse position is fine


def c(cid, cmd, setup, expect, *, files=(), owns=(), timeout=60, solo=False):
    cli(cid, "checkpoints", cmd, expect, setup=setup, files=files, owns=owns, timeout=timeout, solo=solo)


def opt(cid, cmd, setup, expect, **kw):
    c(cid, cmd, setup, expect, owns=OWN_O, **kw)


def oedit(fn, mk=MK_OPT, checksum=True):
    return seq(mk, edit("o.ckpt", fn, checksum))


def put(*path_value):
    """Edit: set d[k1][k2]... = value."""
    *path, value = path_value

    def fn(d):
        for k in path[:-1]:
            d = d[k]
        d[path[-1]] = value
    return fn


def save_evals(ckpt):
    """Setup step: note the evaluations the saved run has done (in saved_evals)."""
    def st(ctx, folder):
        d = json.load(open(os.path.join(folder, ckpt)))
        open(os.path.join(folder, "saved_evals"), "w").write(str(d["driver"]["evaluations"]))
    return st


def evals_at_most(n):
    """A resumed run spends nothing past the budget asked (or past what the saved run had done)."""
    def check(res):
        p = os.path.join(res.folder, "saved_evals")
        limit = max(n, int(open(p).read())) if os.path.exists(p) else n
        d = json_out(res)
        return None if d["evaluations"] <= limit else f"{d['evaluations']} evaluations, budget {n} (saved run: {limit})"
    return check


def torn_removed(log):
    def check(res):
        lines = open(os.path.join(res.folder, log)).read().splitlines()
        return None if all(l.strip().endswith("}") for l in lines) else "the torn line remains in the log"
    return check


# ---- optimize
opt("ck-opt-resume-ok", RES_OPT6, MK_OPT_LONG, OK())
opt("ck-opt-resume-smaller-budget", "{G} optimize --quiet --resume o.ckpt --max-evals 100 --json", seq(MK_OPT_LONG, save_evals("o.ckpt")),
    either(E("--max-evals"), OK(check=evals_at_most(100))))
opt("ck-opt-resume-algo-changed", RES_OPT + " --algo ingo", MK_OPT, E("--algo"))
opt("ck-opt-resume-dim-changed", RES_OPT + " --dim 4", MK_OPT, E("--dim"))
opt("ck-opt-resume-same-dim", RES_OPT + " --dim 3 --max-evals 400", MK_OPT, OK())
opt("ck-opt-truncated", RES_OPT, seq(MK_OPT, sh("head -c 1000 o.ckpt > t && mv t o.ckpt")), JE("o.ckpt"))
opt("ck-opt-empty", RES_OPT, sh("touch o.ckpt"), JE("o.ckpt"))
opt("ck-opt-null", RES_OPT, sh("echo null > o.ckpt"), E("o.ckpt"))
opt("ck-opt-array", RES_OPT, sh("echo '[1,2,3]' > o.ckpt"), E("o.ckpt"))
opt("ck-opt-nested-bomb", RES_OPT, write("o.ckpt", "[" * 200000 + "]" * 200000), JE("o.ckpt"))
opt("ck-opt-nested-obj-bomb", RES_OPT, write("o.ckpt", '{"a":' * 100000 + "1" + "}" * 100000), JE("o.ckpt"))


def byteflip(ctx, folder):
    p = os.path.join(folder, "o.ckpt")
    b = open(p, "rb").read()
    open(p, "wb").write(b.replace(b'"sigma":0', b'"sigma":1', 1))


opt("ck-opt-byteflip", RES_OPT, seq(MK_OPT, byteflip), E("checksum"))
opt("ck-opt-sigma-neg", RES_OPT, oedit(put("optimizer", "sigma", -1.0)), E("sigma"))
opt("ck-opt-sigma-zero", RES_OPT, oedit(put("optimizer", "sigma", 0.0)), E("sigma"))
opt("ck-opt-sigma-1e308", RES_OPT6, oedit(put("optimizer", "sigma", 1e308)), E("--on-nonfinite"))
opt("ck-opt-mean-short", RES_OPT, oedit(put("optimizer", "m", [0.0, 0.0])), E("o.ckpt"))


def mean_1e999(ctx, folder):
    p = os.path.join(folder, "o.ckpt")
    t = open(p).read()
    open(p, "w").write(t.replace('"m":[', '"m":[1e999,', 1))


opt("ck-opt-mean-1e999", RES_OPT, seq(MK_OPT, mean_1e999), JE("o.ckpt"))
opt("ck-opt-gen-huge", RES_OPT, oedit(lambda d: (put("optimizer", "generation", 2**63)(d), put("driver", "generations", 2**63)(d))), E("generation"))
opt("ck-opt-evals-u64max", "{G} optimize --quiet --resume o.ckpt --max-evals " + U64 + " --json",
    oedit(put("driver", "evaluations", 2**64 - 1)), E("evaluations"))
opt("ck-opt-meta-dim-mismatch", RES_OPT, oedit(put("meta", "dim", 5)), E("dim"))
opt("ck-opt-meta-algo-mismatch", RES_OPT, oedit(put("meta", "algorithm", "ingo")), E("ingo"))
opt("ck-opt-lambda-huge", RES_OPT, oedit(put("optimizer", "k", "lambda", 10**12)), E("o.ckpt"))
opt("ck-opt-cov-notpd", RES_OPT6, oedit(put("optimizer", "c", [-1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0])), OK())
opt("ck-opt-cov-negdiag-big", RES_OPT6, oedit(put("optimizer", "c", [-1e10, 0, 0, 0, 1.0, 0, 0, 0, 1.0])), OK())
opt("ck-opt-dvals-neg", RES_OPT6, oedit(put("optimizer", "dvals", [-1.0, 1.0, 1.0])), E("dvals"))
opt("ck-opt-b-notortho", RES_OPT6, oedit(put("optimizer", "b", [5.0] * 9)), OK())
opt("ck-opt-problem-unknown", RES_OPT, oedit(put("meta", "problem", "nope")), E("nope"))
opt("ck-opt-version3", RES_OPT, oedit(put("version", 3)), E("version"))
opt("ck-opt-format-other", RES_OPT, oedit(put("format", "pickle")), E("format"))
V1 = lambda d: (d.pop("checksum"), d.__setitem__("version", 1))
opt("ck-opt-v1-nochecksum-valid", RES_OPT6, oedit(V1, checksum=False), OK())
opt("ck-opt-v1-nochecksum-sigma-neg", RES_OPT, oedit(lambda d: (V1(d), put("optimizer", "sigma", -3.0)(d)), checksum=False), E("sigma"))
opt("ck-opt-stop-maxevals-zero", RES_OPT, oedit(put("meta", "stop", "max_evaluations", 0)), E("max_evaluations"))
opt("ck-opt-tolf-nan-string", RES_OPT, oedit(put("meta", "stop", "tol_f", "NaN")), E("tol_f"))
opt("ck-opt-resume-log-torn", "{G} optimize --quiet --resume o.ckpt --max-evals 600 --log o.jsonl --json",
    seq(MK_OPT_LONG, sh("printf '{\"generation\": 9999, \"best' >> o.jsonl")), OK(check=torn_removed("o.jsonl")))
c("ck-opt-resume-log-other", "{G} optimize --quiet --resume o.ckpt --max-evals 600 --log other.jsonl --json", MK_OPT_LONG, OK(),
  owns=OWN_O + ("other.jsonl",))
c("ck-opt-resume-ck-other-name", "{G} optimize --quiet --resume o.ckpt --max-evals 600 --checkpoint new.ckpt --json", MK_OPT_LONG,
  OK(check=has_file("new.ckpt")), owns=OWN_O + ("new.ckpt",))
c("ck-opt-resume-ck-onto-data", "{G} optimize --quiet --resume o.ckpt --max-evals 600 --checkpoint d.csv --json", MK_OPT_LONG,
  E("--checkpoint"), files=D, owns=OWN_O)
opt("ck-opt-rng-zero", RES_OPT6, oedit(put("optimizer", "rng", "s", [0, 0, 0, 0])), E(RNG), timeout=30)
opt("ck-opt-ingo-chol-negdiag", "{G} optimize --quiet --resume o.ckpt --max-evals 4000 --json",
    oedit(lambda d: d["optimizer"]["l"].__setitem__(0, -abs(d["optimizer"]["l"][0])), MK_OPT_LONG), E("l:"))
opt("ck-opt-ingo-chol-upper", "{G} optimize --quiet --resume o.ckpt --max-evals 4000 --json",
    oedit(lambda d: d["optimizer"]["l"].__setitem__(1, 0.5), MK_OPT_LONG), OK())
opt("ck-opt-ingo-chol-upper2", "{G} optimize --quiet --resume o.ckpt --max-evals 4000 --json",
    oedit(lambda d: d["optimizer"]["l"].__setitem__(4, 0.5), MK_OPT_LONG), E("l:"))
opt("ck-opt-optgen-u64max", RES_OPT6, oedit(put("optimizer", "generation", 2**64 - 1)), either(E("generation"), OK()))
opt("ck-opt-eigengen-u64max", RES_OPT6, oedit(put("optimizer", "eigen_generation", 2**64 - 1)), E("generation"))

# ---- bo
BE = lambda fn: seq(MK_BO, edit("b.ckpt", fn))


def bo(cid, cmd, setup, expect, **kw):
    c(cid, cmd, setup, expect, owns=OWN_B, **kw)


bo("ck-bo-resume-ok", RES_BO, MK_BO, OK())
bo("ck-bo-resume-fewer-rounds", "{G} bo --quiet --resume b.ckpt --rounds 1 --json", seq(MK_BO, save_evals("b.ckpt")),
   either(E("--rounds"), OK(check=evals_at_most(10 + 5 * 1))))
bo("ck-bo-resume-dim-given", RES_BO + " --dim 2", MK_BO, E("--resume", "--dim"))
bo("ck-bo-resume-method-given", RES_BO + " --method ei", MK_BO, E("--resume", "--method"))
bo("ck-bo-truncated", RES_BO, seq(MK_BO, sh("head -c 700 b.ckpt > t && mv t b.ckpt")), JE("b.ckpt"))
bo("ck-bo-x-outside-box", RES_BO, BE(put("optimizer", "x", 0, 1e6)), E("b.ckpt"))
bo("ck-bo-y-len-mismatch", RES_BO, BE(lambda d: d["optimizer"].__setitem__("y", d["optimizer"]["y"][:5])), E("b.ckpt"))
bo("ck-bo-hyper-neg", RES_BO, BE(put("optimizer", "hyper", "length", [-1.0, -1.0])), E("b.ckpt"))
bo("ck-bo-batch-huge", RES_BO, BE(lambda d: (put("meta", "batch", 10**9)(d), put("optimizer", "params", "batch_size", 10**9)(d))), E("batch"))
bo("ck-bo-lower-gt-upper", RES_BO, BE(put("optimizer", "space", "lower", [5.0, 5.0])), E("lower"))
bo("ck-bo-dim-mismatch", RES_BO, BE(put("meta", "dim", 3)), E("dim"))
bo("ck-bo-roundsmax", "{G} bo --quiet --resume b.ckpt --rounds " + U64 + " --json", MK_BO, E("--rounds"))
bo("ck-bo-seed-huge-edit", RES_BO, BE(put("optimizer", "round", 2**62)), OK())
bo("ck-bo-rng-zero", RES_BO, BE(put("optimizer", "rng", "s", [0, 0, 0, 0])), either(E(RNG), OK()))
bo("ck-bo-round-u64max", RES_BO, BE(put("optimizer", "round", 2**64 - 1)), E("round"))
bo("ck-bo-designused-huge", RES_BO, BE(put("optimizer", "design_used", 2**64 - 1)), E("design"))


def bo_partial(ctx, folder):
    """A 30-round run stopped by SIGINT soon after its first checkpoint."""
    import signal
    import subprocess
    import time
    p = subprocess.Popen(["bash", "-c", "exec " + ctx.sub("{G} bo --quiet --problem ackley --dim 2 --rounds 30 --checkpoint b.ckpt")],
                         cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.time()
    while not os.path.exists(os.path.join(folder, "b.ckpt")) and time.time() - t0 < 60:
        time.sleep(0.01)
    time.sleep(0.15)
    p.send_signal(signal.SIGINT)
    p.wait()


bo("ck-bo-resume-rounds-below-done", "{G} bo --quiet --resume b.ckpt --rounds 3 --json", seq(bo_partial, save_evals("b.ckpt")),
   either(E("--rounds"), OK(check=evals_at_most(10 + 5 * 3))), timeout=120, solo=True)

# ---- train
TE = lambda fn: seq(MK_TR, edit("t.ckpt", fn))


def tr(cid, cmd, setup, expect, **kw):
    c(cid, cmd, setup, expect, owns=OWN_T, **kw)


TSTATE = ("t.ckpt", "training state")
tr("ck-tr-resume-ok", RES_TR, MK_TR, OK())
tr("ck-tr-resume-fewer-epochs", "{G} train --quiet --resume t.ckpt --epochs 1 --json", MK_TR, E("--resume", "--epochs"))
tr("ck-tr-resume-loss-changed", RES_TR + " --loss ce", MK_TR, E("--resume", "--loss"))
tr("ck-tr-resume-data-changed", RES_TR + " --data fashion-mnist", MK_TR, E("--resume", "--data"))
tr("ck-tr-datahash-edit", RES_TR, TE(put("meta", "data", "hash", "crc32:00000000")), E("changed"))
tr("ck-tr-params-short", RES_TR, TE(lambda d: d["optimizer"]["params"].__setitem__(0, d["optimizer"]["params"][0][:10])), E("param"))
tr("ck-tr-lr-huge", RES_TR, TE(put("optimizer", "spec", "optimizer", "lr", 1e300)), E(TSTATE))
tr("ck-tr-lr-neg", RES_TR, TE(put("optimizer", "spec", "optimizer", "lr", -0.1)), E("lr"))
tr("ck-tr-hidden-mismatch", RES_TR, TE(put("optimizer", "spec", "arch", "hidden", [9])), E(TSTATE))
tr("ck-tr-hidden-huge", RES_TR, TE(lambda d: (put("optimizer", "spec", "arch", "hidden", [10**6, 10**6])(d),
                                               put("meta", "run", "hidden", [10**6, 10**6])(d))), E("hidden"))
tr("ck-tr-selected-short", RES_TR, TE(lambda d: d["optimizer"].__setitem__("selected", d["optimizer"]["selected"][:3])), E("selection"))
tr("ck-tr-epoch-beyond", RES_TR, TE(put("optimizer", "epoch", 10**6)), E("epoch"))
tr("ck-tr-eps-1", RES_TR, TE(put("optimizer", "spec", "method", "eps", 1.5)), E(("eps", "noise_rate")))
tr("ck-tr-batch-zero", RES_TR, TE(lambda d: (put("optimizer", "spec", "batch_size", 0)(d), put("meta", "run", "batch_size", 0)(d))), E("batch"))
tr("ck-tr-k-edit", RES_TR, TE(put("optimizer", "k", 3)), E("parameters"))
tr("ck-tr-truncated", RES_TR, seq(MK_TR, sh("head -c 20000 t.ckpt > x && mv x t.ckpt")), JE("t.ckpt"))
tr("ck-tr-resume-log-torn", RES_TR.replace("--json", "--log t.jsonl --json"), seq(MK_TR, sh("printf '{\"epoch\": 99, \"tes' >> t.jsonl")),
   OK(check=torn_removed("t.jsonl")))
tr("ck-tr-rng-zero", RES_TR, TE(put("optimizer", "rng", "s", [0, 0, 0, 0])), either(E(RNG), OK()))
ADAM_T = ("step count", "`t`", "adam")
tr("ck-tr-adam-t-u64max", RES_TR, TE(lambda d: d["optimizer"]["optim"][0].__setitem__("t", 2**64 - 1)), either(E(ADAM_T), OK()))


def tr_partial(fn):
    """A 40-epoch run stopped by SIGINT after its first checkpoint, then edited."""
    def st(ctx, folder):
        import signal
        import subprocess
        import time
        p = subprocess.Popen(["bash", "-c", "exec " + ctx.sub("{G} train --quiet --data digits --epochs 40 --hidden 8 --checkpoint t.ckpt")],
                             cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t0 = time.time()
        while not os.path.exists(os.path.join(folder, "t.ckpt")) and time.time() - t0 < 60:
            time.sleep(0.01)
        time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        p.wait()
        edit("t.ckpt", fn)(ctx, folder)
    return st


tr("ck-tr-partial-adam-t-u64max", RES_TR, tr_partial(lambda d: d["optimizer"]["optim"][0].__setitem__("t", 2**64 - 1)), E(ADAM_T), solo=True)
tr("ck-tr-partial-rng-zero", RES_TR, tr_partial(put("optimizer", "rng", "s", [0, 0, 0, 0])), either(E(RNG), OK()), solo=True)
tr("ck-tr-partial-params-nan-ish", RES_TR, tr_partial(lambda d: d["optimizer"]["params"].__setitem__(0, [1e300] * len(d["optimizer"]["params"][0]))),
   E("param"), solo=True)
tr("ck-tr-partial-adam-v-neg", RES_TR, tr_partial(lambda d: d["optimizer"]["optim"][0].__setitem__("v", [-1.0] * len(d["optimizer"]["optim"][0]["v"]))),
   E(("second moment", "`v`")), solo=True)
tr("ck-tr-partial-selected-all-false", RES_TR, tr_partial(lambda d: d["optimizer"].__setitem__("selected", [False] * len(d["optimizer"]["selected"]))),
   OK(), solo=True)

# ---- infer
IE = lambda fn, mk=MK_INF: seq(mk, edit("i.ckpt", fn))


def inf(cid, cmd, setup, expect, owns=OWN_I, **kw):
    c(cid, cmd, setup, expect, files=D, owns=owns, **kw)


def st0(key, value):
    return put("optimizer", "states", 0, key, value)


inf("ck-inf-resume-ok", RES_INF, MK_INF, OK(check=finite_json))
inf("ck-inf-resume-steps-smaller", RES_INF.replace("--steps 60", "--steps 10"), MK_INF, E("--steps"))
inf("ck-inf-resume-steps-equal", RES_INF.replace("--steps 60", "--steps 40"), MK_INF, OK())
inf("ck-inf-data-value-changed", RES_INF, seq(MK_INF, sh("sed -i '5s/5/6/' d.csv")), E("changed"), owns=OWN_I + ("d.csv",))
inf("ck-inf-data-deleted", RES_INF, seq(MK_INF, sh("rm d.csv")), E("d.csv"))
inf("ck-inf-data-touched-same", RES_INF, seq(MK_INF, sh("touch -d '2001-01-01' d.csv")), OK(), owns=OWN_I + ("d.csv",))
inf("ck-inf-data-replaced-fifo", RES_INF, seq(MK_INF, sh("rm d.csv && mkfifo d.csv")), E("d.csv"), owns=OWN_I + ("d.csv",), timeout=30)
inf("ck-inf-data-replaced-dir", RES_INF, seq(MK_INF, sh("rm d.csv && mkdir d.csv")), E("d.csv"))
inf("ck-inf-records-deleted", RES_INF, seq(MK_INF, sh("rm i.ckpt.records-*")), E("records"))
inf("ck-inf-records-truncated", RES_INF, seq(MK_INF, sh("f=$(ls i.ckpt.records-*); head -c 100 $f > x && mv x $f")), E("records"))
inf("ck-inf-records-appended", RES_INF, seq(MK_INF, sh("f=$(ls i.ckpt.records-*); head -c 777 {DATA}/digits.npy >> $f")), OK())
inf("ck-inf-records-corrupted", RES_INF, seq(MK_INF, sh("f=$(ls i.ckpt.records-*); printf 'XXXXXXXX' | dd of=$f bs=1 seek=50 conv=notrunc status=none")),
    E("records"))
inf("ck-inf-records-name-edit", RES_INF, IE(put("meta", "records", "file", "../../../etc/passwd")), E("records"))
inf("ck-inf-records-name-data", RES_INF, IE(put("meta", "records", "file", "d.csv")), E("records"))
inf("ck-inf-theta-1e308", RES_INF, IE(st0("theta", [1e308] * 3)), E("chain 0"))
inf("ck-inf-theta-short", RES_INF, IE(st0("theta", [0.0])), E("chain 0"))
inf("ck-inf-chains-dropped", RES_INF, IE(lambda d: d["optimizer"].__setitem__("states", d["optimizer"]["states"][:2])), E("chain"))
inf("ck-inf-chain-dup", RES_INF, IE(lambda d: d["optimizer"]["states"].__setitem__(1, d["optimizer"]["states"][0])), E("chain"))
inf("ck-inf-steps-mismatch", RES_INF, IE(st0("steps", 39)), E("chain"))
inf("ck-inf-rows-edit", RES_INF, IE(put("optimizer", "rows", 568)), E("rows"))
inf("ck-inf-p-edit", RES_INF, IE(put("optimizer", "p", 4)), E("chain"))
SPEC = lambda k, v: lambda d: (put("optimizer", "spec", k, v)(d), put("meta", "run", "spec", k, v)(d))
inf("ck-inf-step-neg", RES_INF, IE(SPEC("step", -0.2)), E("step"))
inf("ck-inf-level-2", RES_INF, IE(SPEC("level", 2.0)), E("level"))
inf("ck-inf-method-swap", RES_INF, IE(SPEC("method", "random-scaling")), E("chain"))
inf("ck-inf-model-swap", RES_INF, IE(lambda d: (put("optimizer", "model", "poisson")(d), put("meta", "run", "model", "model", "poisson")(d))), OK())
inf("ck-inf-data-path-edit", RES_INF, seq(MK_INF, sh("cp d.csv e.csv"), edit("i.ckpt", put("meta", "run", "data", "e.csv"))), OK())
inf("ck-inf-data-path-to-self", RES_INF, IE(put("meta", "run", "data", "i.ckpt")), E("i.ckpt"))
inf("ck-inf-cadence-zero", RES_INF, IE(put("meta", "cadence", "seconds", 0.0)), OK())
inf("ck-inf-rng-zero", RES_INF, IE(put("optimizer", "states", 0, "rng", "s", [0, 0, 0, 0])), E(RNG))
inf("ck-inf-rng-zero-sgd", RES_INF, IE(lambda d: [s["rng"].__setitem__("s", [0, 0, 0, 0]) for s in d["optimizer"]["states"]], MK_INF_SGD),
    E(RNG))
inf("ck-inf-truncated", RES_INF, seq(MK_INF, sh("head -c 1500 i.ckpt > x && mv x i.ckpt")), JE("i.ckpt"))
inf("ck-inf-resume-with-data-flag", RES_INF + " --data d.csv", MK_INF, E("--resume", "--data"))
inf("ck-inf-resume-with-chains-out", RES_INF.replace("--json", "--chains-out c.npy --json"), MK_INF, OK(check=has_file("c.npy")),
    owns=OWN_I + ("c.npy",))
inf("ck-inf-new-run-over-ckpt", "{G} infer --quiet --data d.csv --target y --method masgrad --chains 4 --steps 5 --checkpoint i.ckpt", MK_INF, E("--overwrite"))
inf("ck-inf-overwrite-records", "{G} infer --quiet --data d.csv --target y --method masgrad --chains 4 --steps 5 --checkpoint i.ckpt --overwrite", MK_INF, OK())
inf("ck-inf-stream-ckpt", "{G} infer --quiet --data d.csv --target y --stream --method sgd --chains 2 --batch 10 --steps 5 --checkpoint s.ckpt",
    None, E("--stream", "--checkpoint"), owns=("s.ckpt",))
inf("ck-inf-steps-u64max", RES_INF, IE(lambda d: [s.__setitem__("steps", 2**64 - 1) for s in d["optimizer"]["states"]]), E("steps"))
# mle refuses --checkpoint before touching the chain run's checkpoint (it owns nothing)
inf("ck-inf-mle-over-ckpt", "{G} infer --quiet --data d.csv --target y --checkpoint i.ckpt", MK_INF, E("--checkpoint", "chain method"), owns=())
inf("ck-inf-resume-cov-type", RES_INF + " --cov-type HC0", MK_INF, E("--cov-type"))     # a masgrad run: no --cov-type
inf("ck-inf-moments-edit", RES_INF, IE(SPEC("moments", "both")), E("moments"))
inf("ck-inf-method-mle-edit", RES_INF, IE(SPEC("method", "mle")), E("i.ckpt", "mle"))        # names the checkpoint, not a flag

# ---- each command's checkpoint resumed by each other command: refused, naming the writer;
# the foreign checkpoint must stay as it was (owns nothing)
WRITERS = {"opt": ("o.ckpt", MK_OPT), "bo": ("b.ckpt", MK_BO), "train": ("t.ckpt", MK_TR), "infer": ("i.ckpt", MK_INF)}
READERS = {"opt": "{G} optimize --quiet --resume {f}", "bo": "{G} bo --quiet --resume {f} --rounds 4",
           "tr": "{G} train --quiet --resume {f}", "inf": "{G} infer --quiet --resume {f}"}
SAME = {"opt": "opt", "bo": "bo", "tr": "train", "inf": "infer"}
for r, rcmd in READERS.items():
    for w, (f, mk) in WRITERS.items():
        if SAME[r] == w:
            continue
        c(f"ck-{r}-{w}-ckpt", rcmd.replace("{f}", f), mk, E("written by"), files=D if w == "infer" else ())
