"""Signals: SIGINT/SIGTERM/SIGHUP (and SIGINT twice) during long runs and streamed writes must
exit 130 leaving no temporary file and, for checkpointed runs, a checkpoint whose resumed run
equals the uninterrupted one; SIGKILL leaves a temporary file the next run removes. Python calls
must raise KeyboardInterrupt on SIGINT. These cases run alone."""
import json
import os
import subprocess
import time

from cases.common import *

E, OK = error, success
INF_BASE = "--data d.csv --target y --method masgrad --chains 4"      # a chain run (mle has no checkpoints)
INF_CMD = "{G} infer " + INF_BASE + " --steps 3000000 --checkpoint-every 100 --checkpoint i.ckpt --json --quiet"
OWN_I = ("i.ckpt", "i.ckpt.records-*")
TR = "{G} train --quiet --data digits --epochs 40 --json"
OPT = ("{G} optimize --quiet --algo cmaes --problem ellipsoid --dim 30 --no-convergence --no-target "
       "--max-evals 30000000 --checkpoint o.ckpt --checkpoint-every 20 --log o.jsonl --json")
BIG = "{G} sample --method sobol --dim 64 --n 4194304 -o big.npy"
FM = ("fashion-mnist",)


def cmp_infer(res):
    """Resume the checkpoint for 50 more steps; it must equal an uninterrupted run bit for bit."""
    at = json.load(open(os.path.join(res.folder, "i.ckpt")))["driver"]["generations"]
    if at <= 0:
        return "silent-wrong-result", f"checkpoint at step {at}"
    r = res.run(f"{{G}} infer --quiet --resume i.ckpt --steps {at + 50} --json")
    w = res.run(f"{{G}} infer {INF_BASE} --steps {at + 50} --json --quiet")
    if r.returncode != 0:
        return "silent-wrong-result", f"resume failed: {r.stderr.strip()[:200]}"
    a, b = json.loads(r.stdout), json.loads(w.stdout)
    if all(a[k] == b[k] for k in ("params", "process_sd", "bands")):
        return "ok-success", f"checkpoint at step {at}; resumed = uninterrupted bit for bit"
    return "silent-wrong-result", f"checkpoint at step {at}; resumed differs: {a['params']} vs {b['params']}"


def cmp_train(extra=""):
    def after(res):
        f = res.folder
        at = json.load(open(os.path.join(f, "t.ckpt")))["driver"]["generations"]
        r = res.run(f"{{G}} train --quiet --resume t.ckpt --json {extra}", timeout=300)
        os.makedirs(os.path.join(f, "whole"), exist_ok=True)
        w = res.run("{G} train --quiet --data digits --epochs 40 --json " + extra.replace("t.jsonl", "whole/t.jsonl"), timeout=300)
        if r.returncode != 0:
            return "silent-wrong-result", f"resume failed: {r.stderr.strip()[:200]}"
        a, b = json.loads(r.stdout), json.loads(w.stdout)
        strip = lambda h: [{k: v for k, v in x.items() if "second" not in k} for x in h]
        keys = [k for k in a if k not in ("seconds", "resumed", "time", "run", "history") and not k.endswith("seconds")]
        diff = [k for k in keys if a.get(k) != b.get(k)]
        if "--log" in extra:
            la = strip(json.loads(l) for l in open(os.path.join(f, "t.jsonl")))
            lb = strip(json.loads(l) for l in open(os.path.join(f, "whole/t.jsonl")))
            if la != lb:
                return "silent-wrong-result", f"checkpoint at epoch {at}; log differs: {len(la)} vs {len(lb)} lines"
        if diff or strip(a.get("history", [])) != strip(b.get("history", [])):
            return "silent-wrong-result", f"checkpoint at epoch {at}; resumed differs in {diff or 'history'}"
        return "ok-success", f"checkpoint at epoch {at}; resumed = uninterrupted"
    return after


def cmp_opt(res):
    if not os.path.exists(os.path.join(res.folder, "o.ckpt")):
        return "silent-wrong-result", "no checkpoint after the signal"
    r = res.run("{G} optimize --quiet --resume o.ckpt --json --max-evals 60000")
    w = res.run("{G} optimize --quiet --algo cmaes --problem ellipsoid --dim 30 --no-convergence --no-target --max-evals 60000 --json")
    if r.returncode:
        return "silent-wrong-result", f"resume failed: {r.stderr.strip()[:200]}"
    a, b = json.loads(r.stdout), json.loads(w.stdout)
    if a["best_f"] == b["best_f"] and a["evaluations"] == b["evaluations"]:
        return "ok-success", "resumed = uninterrupted"
    return "silent-wrong-result", f"resumed {a['best_f']} vs uninterrupted {b['best_f']}"


def resumes(cmd, grace=10):
    """The checkpoint must resume: the resumed run ends well or is still running after `grace` s."""
    def after(res):
        p = subprocess.Popen(["bash", "-c", "exec " + res.ctx.sub(cmd)], cwd=res.folder, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, start_new_session=True)
        try:
            _, err = p.communicate(timeout=grace)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            return "ok-success", f"the resumed run was running after {grace} s"
        if p.returncode == 0:
            return "ok-success", "the checkpoint resumed to the end"
        return "silent-wrong-result", f"resume failed: {err.decode().strip()[:200]}"
    return after


def absent(name):
    def after(res):
        return ("damaged-file", f"{name} present after the signal") if os.path.exists(os.path.join(res.folder, name)) else None
    return after


def interrupted(cmd, signal, ready, wait=60):
    """Setup step: run cmd, send `signal` when ready(folder, t), wait for it to end."""
    def st(ctx, folder):
        p = subprocess.Popen(["bash", "-c", "exec " + ctx.sub(cmd)], cwd=folder, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        t0 = time.time()
        while p.poll() is None and time.time() - t0 < wait:
            if ready(folder, time.time() - t0):
                p.send_signal(signal)
                break
            time.sleep(0.02)
        p.kill() if p.poll() is None and time.time() - t0 >= wait else None
        p.wait()
    return st


# ---- streamed writes
sig("sig-sample-int-npy", BIG, signal=S.SIGINT, ready=has_tmp(20 << 20), owns=("big.npy",), after=absent("big.npy"))
sig("sig-sample-term-npy", BIG, signal=S.SIGTERM, ready=has_tmp(20 << 20), owns=("big.npy",), after=absent("big.npy"))
sig("sig-sample-int-csv", "{G} sample --method mc --dim 16 --n 40000000 -o big.csv", signal=S.SIGINT, ready=has_tmp(20 << 20),
    owns=("big.csv",), after=absent("big.csv"))
sig("sig-sample-term-owen", "{G} sample --method sobol --scramble owen --dim 64 --n 4194304 -o big.npy", signal=S.SIGTERM,
    ready=has_tmp(1 << 20), owns=("big.npy",), after=absent("big.npy"))
sig("sig-sample-int-replace-existing", "{G} sample --method sobol --dim 64 --n 4194304 -o old.npy", signal=S.SIGINT,
    ready=has_tmp(20 << 20), setup=sh("{G} sample --method sobol --dim 2 --n 8 -o old.npy"))
sig("sig-sample-hup", BIG, signal=S.SIGHUP, ready=has_tmp(20 << 20), owns=("big.npy",), after=absent("big.npy"))


def kill_left_tmp(res):
    tmps = [n for n in os.listdir(res.folder) if ".tmp-" in n]
    if os.path.exists(os.path.join(res.folder, "big.npy")):
        return "damaged-file", "big.npy written although the run was killed"
    return None if tmps else ("silent-wrong-result", "no temporary file after SIGKILL (was the write streamed?)")


sig("sig-sample-kill-then-rerun", BIG, signal=S.SIGKILL, rc=-9, allow_tmp=True, ready=has_tmp(20 << 20),
    owns=("big.npy", ".big.npy.tmp-*"), after=kill_left_tmp)
NO_TMP = lambda res: (f"temporary files left: {[n for n in os.listdir(res.folder) if '.tmp-' in n]}"
                      if any(".tmp-" in n for n in os.listdir(res.folder)) else None)
cli("sig-sample-kill-rerun-cleans", "signals", "{G} sample --method sobol --dim 2 --n 8 -o big.npy", OK(check=NO_TMP),
    setup=interrupted(BIG, S.SIGKILL, has_tmp(20 << 20)), owns=("big.npy", ".big.npy.tmp-*"), solo=True)
cli("sig-sample-hup-rerun-cleans", "signals", "{G} sample --method sobol --dim 2 --n 8 -o big.npy", OK(check=NO_TMP),
    setup=interrupted(BIG, S.SIGHUP, has_tmp(20 << 20)), owns=("big.npy",), solo=True)

# ---- checkpointed runs
sig("sig-infer-int-ckpt", INF_CMD, signal=S.SIGINT, ready=exists_then("i.ckpt"), files=D, owns=OWN_I, after=cmp_infer)
sig("sig-infer-term-ckpt", INF_CMD, signal=S.SIGTERM, ready=exists_then("i.ckpt"), files=D, owns=OWN_I, after=cmp_infer)
sig("sig-infer-int-early", INF_CMD.replace("--checkpoint-every 100", "--checkpoint-every 100000"), signal=S.SIGINT,
    ready=after_secs(0.15), files=D, owns=OWN_I, after=cmp_infer)
sig("sig-infer-double-int", INF_CMD, signal=S.SIGINT, second=S.SIGINT, ready=exists_then("i.ckpt"), files=D, owns=OWN_I,
    after=cmp_infer)
sig("sig-infer-int-chainsout", INF_CMD + " --chains-out c.npy", signal=S.SIGINT, ready=exists_then("i.ckpt"), files=D,
    owns=OWN_I + ("c.npy",))
# a checkpointed run must stop promptly whatever --steps is (not only once steps/50 more are done)
sig("sig-infer-int-many-steps", "{G} infer " + INF_BASE + " --steps 30000000 --checkpoint i.ckpt --json --quiet", signal=S.SIGINT,
    ready=after_secs(1.0), files=D, owns=OWN_I, timeout=10)
sig("sig-infer-int-nockpt", "{G} infer " + INF_BASE + " --steps 3000000 --json --quiet", signal=S.SIGINT,
    ready=after_secs(1.0), files=D)
sig("sig-infer-int-stream", "{G} infer --data s.csv --target y --stream --model relu --hidden 200 --method sgd --chains 8 --batch 16 --json --quiet",
    signal=S.SIGINT, ready=after_secs(0.3), files=[("stream_big.csv", "s.csv")])
sig("sig-infer-term-resumed-run", "{G} infer --resume i.ckpt --steps 3000000 --json --quiet", signal=S.SIGTERM,
    ready=after_secs(1.0), files=D, owns=OWN_I, after=cmp_infer,
    setup=sh("{G} infer " + INF_BASE + " --steps 50 --checkpoint-every 100 --checkpoint i.ckpt --quiet"))
sig("sig-train-int-ckpt", TR + " --checkpoint t.ckpt", signal=S.SIGINT, ready=exists_then("t.ckpt", 0.15),
    owns=("t.ckpt", "whole/*"), after=cmp_train(), timeout=300)
sig("sig-train-term-ckpt-log", TR + " --checkpoint t.ckpt --log t.jsonl", signal=S.SIGTERM, ready=exists_then("t.ckpt", 0.15),
    owns=("t.ckpt", "t.jsonl", "whole/*"), after=cmp_train("--log t.jsonl"), timeout=300)
sig("sig-train-int-nockpt", TR + " --log t.jsonl", signal=S.SIGINT, ready=exists_then("t.jsonl", 0.1), owns=("t.jsonl",))
sig("sig-train-double-int", TR + " --checkpoint t.ckpt", signal=S.SIGINT, second=S.SIGINT, ready=exists_then("t.ckpt", 0.15),
    owns=("t.ckpt", "whole/*"), after=cmp_train(), timeout=300)
sig("sig-train-cnn-int", "{G} train --quiet --data digits --model cnn --epochs 50 --json --checkpoint t.ckpt", signal=S.SIGINT,
    ready=after_secs(1.0), owns=("t.ckpt",))
def log_kept(res):
    a, b = (open(os.path.join(res.folder, n), "rb").read() for n in ("t.jsonl", "prev.jsonl"))
    return ("ok-success", "the previous log is intact") if a == b else \
        ("damaged-file", "the previous run's log was replaced by a run interrupted before its first epoch")


sig("sig-train-int-before-first-epoch", "{G} train --quiet --data fashion-mnist --epochs 2 --checkpoint t.ckpt --log t.jsonl",
    signal=S.SIGINT, ready=after_secs(0.5), setup=sh("{G} train --quiet --data digits --epochs 2 --log t.jsonl && cp t.jsonl prev.jsonl"),
    owns=("t.ckpt", "t.jsonl"), after=log_kept, requires=FM)
sig("sig-opt-int-ckpt", OPT, signal=S.SIGINT, ready=exists_then("o.ckpt", 0.3), owns=("o.ckpt", "o.jsonl"), after=cmp_opt)
sig("sig-opt-term-ckpt", OPT, signal=S.SIGTERM, ready=exists_then("o.ckpt", 0.3), owns=("o.ckpt", "o.jsonl"), after=cmp_opt)
sig("sig-bo-int-ckpt", "{G} bo --quiet --problem ackley --dim 6 --rounds 200 --checkpoint b.ckpt --log b.jsonl", signal=S.SIGINT,
    ready=exists_then("b.ckpt", 0.5), owns=("b.ckpt", "b.jsonl"),
    after=resumes("{G} bo --quiet --resume b.ckpt --rounds 200"))
sig("sig-bo-term", "{G} bo --quiet --problem ackley --dim 6 --rounds 100 --checkpoint b.ckpt", signal=S.SIGTERM,
    ready=lambda f, t: os.path.exists(os.path.join(f, "b.ckpt")) and t > 1.0, owns=("b.ckpt",))

# ---- other long commands
sig("sig-lattice-int", "{G} lattice --dim 40 --n 300007 --method korobov", signal=S.SIGINT, ready=after_secs(1.5))
sig("sig-integrate-int", "{G} integrate --dim 1000 --n 1000003 --method mc --replicates 50", signal=S.SIGINT, ready=after_secs(1.0))
sig("sig-features-int-o", "{G} features --dataset fashion-mnist --dim-out 8192 --method iid -o z.npy", signal=S.SIGINT,
    ready=has_tmp(10 << 20), owns=("z.npy",), after=absent("z.npy"), requires=FM, wait=120)
sig("sig-features-term-dataset", "{G} features --dataset fashion-mnist --dim-out 4096 --method ssf --report", signal=S.SIGTERM,
    ready=after_secs(1.0), requires=FM)
sig("sig-reproduce-int", "{G} reproduce --quick ingo-synthetic --runs 20 -o out", signal=S.SIGINT, ready=after_secs(1.5),
    owns=("out", "out/*", "out/*/*", "out/*/*/*", "out/*/*/*/*"),
    after=resumes("{G} reproduce --quick ingo-synthetic --runs 20 -o out", grace=60))

# ---- Python: KeyboardInterrupt
pysig("pysig-korobov-int", "gradfree.qmc.korobov(40, 300007)", signal=S.SIGINT)
pysig("pysig-mindist-int", "gradfree.qmc.min_distance([1, 3], 2**34)", signal=S.SIGINT)
pysig("pysig-fit-int", "from gradfree.inference import fit\nX, y = bc3()\nfit(X, y, chains=2000, steps=200000, method='sgd')", signal=S.SIGINT)
pysig("pysig-fit-stream-int", "from gradfree.inference import fit_stream\nX, y = bc3()\nimport itertools\n"
      "fit_stream(((X, y) for _ in itertools.count()), method='sgd', chains=1, batch_size=1)", signal=S.SIGINT)
pysig("pysig-rc-fit-int", "from gradfree.robust import RobustClassifier\nX, y = digits()\nRobustClassifier(epochs=3000, random_state=0).fit(X, y)",
      signal=S.SIGINT, delay=1.5)
pysig("pysig-nok-fit-int", "from gradfree.robust import NOKDenoiser\nX, y = digits()\nX = np.tile(X, (10, 4))\n"
      "NOKDenoiser(n_components=4096, layers=50, alternations=50).fit(X)", signal=S.SIGINT, delay=1.5)
pysig("pysig-sobol-big-int", "gradfree.Sobol(64, seed=1, method='owen').random(2**22)", signal=S.SIGINT, delay=0.3)
pysig("pysig-es-optimize-int", "es = gradfree.CMAES(np.zeros(50), 0.5, seed=1, max_evals=10**9, convergence=False)\n"
      "es.optimize(lambda x: float(np.sum(x*x)))", signal=S.SIGINT)
# settle_runs=False: the default stops once its restarts settle, which on a sphere is before the signal.
pysig("pysig-minimize-int", "gradfree.minimize(lambda x: float(np.sum(x*x)), np.ones(30), max_evals=10**9, settle_runs=False)",
      signal=S.SIGINT)
pysig("pysig-bo-int", "from gradfree import bo\nbo.minimize(lambda x: float(np.sum(np.asarray(x)**2)), [(-2.0, 2.0)] * 6, n_calls=2000)",
      signal=S.SIGINT, delay=2.0)
pysig("pysig-fit-term", "from gradfree.inference import fit\nX, y = bc3()\nfit(X, y, chains=2000, steps=200000, method='sgd')", signal=S.SIGTERM)
pysig("pysig-lattice-search-int", "gradfree.qmc.lattice_search(50, 3001, method='alg11', primes=5000, top=5000)", signal=S.SIGINT,
      refusal_ok=True)
