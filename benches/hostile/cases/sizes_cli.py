"""Sizes and counts at and past their limits on every command line (0, 1, 2^64-1, 2^64, ...)."""
from cases.common import *

E, OK = error, success
opt = ["{G}", "optimize", "--quiet", "--problem", "sphere"]
cma = opt + ["--algo", "cmaes", "--dim", "3"]
DIM = ("--dim", "dimension", "dim")
for cid, extra, exp in [
    ("opt-dim0", ["--dim", "0"], E("--dim")),
    ("opt-dimmax", ["--dim", U64], E("dim")),                    # names the dimension (and memory)
    ("opt-dimovf", ["--dim", O64], E("--dim")),
    ("opt-dimneg", ["--dim", "-1"], E("--dim")),
    ("opt-dim1e8-ingo", ["--algo", "ingo", "--dim", "100000000"], E("dim")),
    ("opt-dim1e5-cma", ["--algo", "cmaes", "--dim", "100000"], E("dim")),
    ("opt-ns-huge-dim", ["--algo", "nesterov-spokoiny", "--dim", "4000000000", "--max-gens", "1"], E("dim")),
    ("opt-asebo-d1e6", ["--algo", "asebo", "--dim", "1000000", "--max-gens", "1"], OK()),
]:
    cli(cid, "sizes", opt + extra, exp, timeout=90)
for cid, extra, exp in [
    ("opt-pop0", ["--param", "popsize=0"], E("popsize")),
    ("opt-popmax", ["--param", "popsize=" + U64], E("popsize")),
    ("opt-maxev0", ["--max-evals", "0"], E("--max-evals")),
    ("opt-maxev1", ["--max-evals", "1"], E("--max-evals")),
    ("opt-maxgens0", ["--max-gens", "0"], E("--max-gens")),
    ("opt-maxsec-neg", ["--max-seconds", "-1"], E("--max-seconds")),
    ("opt-maxsec-nan", ["--max-seconds", "nan"], E("--max-seconds")),
    ("opt-tolwin0", ["--tol-f-window", "0"], E("--tol-f-window")),
    ("opt-tolwinmax", ["--tol-f-window", U64, "--max-evals", "500"], OK()),
    ("opt-restartsmax", ["--restarts", "ipop:" + U64, "--max-evals", "3000"], E("--restarts")),
    ("opt-x0-wronglen", ["--x0", "1,2"], E("--x0")),
    ("opt-sigma0-zero", ["--sigma0", "0"], E("--sigma0")),
    ("opt-sigma0-huge", ["--sigma0", "1e308", "--max-evals", "300"], OK()),   # reports the divergence
    ("opt-shift-neg", ["--shift", "-1"], E("shift")),            # names the shift radius, its range
    ("opt-shift-inf", ["--shift", "inf"], E("shift")),
    ("opt-ckevery0", ["--checkpoint", "c.ckpt", "--checkpoint-every", "0"], E("--checkpoint-every")),
    ("opt-cksec-nan", ["--checkpoint", "c.ckpt", "--checkpoint-seconds", "nan"], E("--checkpoint-seconds")),
    ("opt-maxgens-max", ["--max-gens", U64, "--max-evals", "200"], OK()),
    ("opt-maxev-max", ["--max-evals", U64, "--max-gens", "5"], OK()),
]:
    cli(cid, "sizes", cma + extra, exp, owns=("c.ckpt",))
cli("opt-pop1e9", "sizes", opt + ["--algo", "ingo", "--dim", "3", "--param", "popsize=1000000000"], E("popsize"))
cli("opt-fastingo-1e7", "sizes", opt + ["--algo", "fast-ingo", "--dim", "10000000", "--max-gens", "1"], OK(),
    timeout=120)
G = "{G}"
for cid, cmd, exp in [
    ("opt-rosen-d1", [G, "optimize", "--quiet", "--problem", "rosenbrock", "--dim", "1"], E("dim")),
    ("opt-robot-d5", [G, "optimize", "--quiet", "--problem", "robot-push", "--dim", "5"], E("dim")),
    ("opt-ga-cat1", [G, "optimize", "--quiet", "--algo", "ga", "--problem", "onemax", "--dim", "5", "--param", "categories=1"], E("categories")),
    ("opt-ga-elit", [G, "optimize", "--quiet", "--algo", "ga", "--problem", "onemax", "--dim", "5", "--param", "elitism=1000"], E("elitism")),
    ("opt-maxcut-d1", [G, "optimize", "--quiet", "--algo", "ga", "--problem", "maxcut", "--dim", "1"], E("dim")),
    ("opt-binrec-1e9", [G, "optimize", "--quiet", "--algo", "ingo-bernoulli", "--problem", "binary-reconstruction", "--dim", "1000000000"], E("dim")),
]:
    cli(cid, "sizes", cmd, exp, timeout=90)

bo = [G, "bo", "--quiet", "--problem", "ackley"]
for cid, extra, exp in [
    ("bo-dim0", ["--dim", "0"], E("dim")),
    ("bo-dim101", ["--dim", "101"], E("dim")),
    ("bo-dimmax", ["--dim", U64], E("--dim")),
    ("bo-batch0", ["--batch", "0"], E("--batch")),
    ("bo-batchmax", ["--batch", U64], E("--batch")),
    ("bo-batch1e4", ["--batch", "10000", "--rounds", "1"], E("--batch")),
    ("bo-rounds0", ["--dim", "2", "--rounds", "0"], OK()),       # the initial design only
    ("bo-roundsmax", ["--rounds", U64], E("--rounds")),
    ("bo-ninit0", ["--dim", "2", "--n-initial", "0", "--rounds", "2"], E("--n-initial")),
    ("bo-ninit1", ["--dim", "2", "--n-initial", "1", "--rounds", "2"], OK()),
    ("bo-ninitmax", ["--n-initial", U64], E("--n-initial")),
    ("bo-acqstarts0", ["--dim", "2", "--acq-starts", "0", "--rounds", "2"], E("--acq-starts")),
    ("bo-acqstartsmax", ["--dim", "2", "--acq-starts", U64, "--rounds", "2"], E("--acq-starts")),
    ("bo-acqevals0", ["--dim", "2", "--acq-evals", "0", "--rounds", "2"], E("--acq-evals")),
    ("bo-acqevalsmax", ["--dim", "2", "--acq-evals", U64, "--rounds", "2"], E("--acq-evals")),
    ("bo-bull-rounds", ["--dim", "2", "--method", "bull", "--rounds", "0"], OK()),
]:
    cli(cid, "sizes", bo + extra, exp)
cli("bo-robot-d6", "sizes", [G, "bo", "--quiet", "--problem", "robot-push", "--dim", "6"], E("dim"))
cli("bo-sphere-nobox", "sizes", [G, "bo", "--quiet", "--problem", "sphere", "--dim", "2", "--rounds", "2"],
    E("sphere", "box"))

inf = [G, "infer", "--quiet", "--data", "bc3.csv", "--target", "y"]
mg = inf + ["--method", "masgrad"]             # the chain settings' ranges (mle refuses them all)
mix = [G, "infer", "--quiet", "--data", "mix.csv", "--model", "mixture", "--method", "sgd"]
for cid, cmd, exp in [
    ("inf-batch0", mg + ["--batch", "0"], E("--batch")),
    ("inf-chains0", mg + ["--chains", "0"], E("--chains")),
    ("inf-steps0", mg + ["--steps", "0"], E("--steps")),
    ("inf-stepsmax", mg + ["--steps", U64], E("--steps")),
    ("inf-chainsmax", mg + ["--chains", U64], E("--chains")),
    ("inf-chains1", mg + ["--chains", "1", "--steps", "20"], OK(check=warns("chain"))),
    ("inf-batch1-masgrad", mg + ["--moments", "batch", "--batch", "1"], E("--batch")),     # the batch's own V
    ("inf-batch-p-masgrad", mg + ["--moments", "batch", "--batch", "3"], E("--batch")),    # n <= p: singular
    ("inf-batch-p-masgrad-pop", mg + ["--batch", "3", "--chains", "4", "--steps", "20"], OK()),   # the population's V
    ("inf-batch-gt-rows-wo", mg + ["--batch", "100000", "--sampling", "without-replacement", "--chains", "2", "--steps", "3"], E("--batch")),
    ("inf-components0", mix + ["--components", "0"], E("--components")),
    ("inf-componentsmax", mix + ["--components", U64], E("--components")),
    ("inf-hidden0", inf + ["--model", "relu", "--hidden", "0", "--method", "sgd"], E("--hidden")),
    ("inf-rs-batchmax", inf + ["--method", "random-scaling", "--batch", U64], E("--batch")),
    ("inf-stream-chainsmax", inf + ["--stream", "--method", "random-scaling", "--batch", "1", "--chains", U64], E("--chains")),
    ("inf-stream-steps0", inf + ["--stream", "--method", "sgd", "--steps", "0"], E("--steps")),
    ("inf-stream-batchbig", inf + ["--stream", "--method", "sgd", "--batch", "1000", "--chains", "5"], E("batch")),
]:
    cli(cid, "sizes", cmd, exp, files=("bc3.csv", "mix.csv"))
cli("inf-chainsout-npy-big", "sizes", "{G} infer --quiet --data d.csv --target y --chains 1048576 --steps 1073741 -o x.npy",
    E("-o"), files=D)
# 100000 chains written out: 200 steps make a 0.8 GB file (1000 steps made 4 GB and 10 GB of
# memory, 3 min alone on one core: a timeout, not a hang)
cli("inf-chainsout-huge", "sizes", "{G} infer --quiet --data d.csv --target y --chains 100000 --steps 200 --method sgd --chains-out c.npy",
    either(E("--chains"), OK(check=has_file("c.npy"))), files=D, owns=("c.npy",), timeout=180)

tr = [G, "train", "--quiet", "--data", "digits"]
for cid, extra, exp in [
    ("tr-epochs0", ["--epochs", "0"], E("--epochs")),
    ("tr-epochs100001", ["--epochs", "100001"], E("--epochs")),
    ("tr-epochsmax", ["--epochs", U64], E("--epochs")),
    ("tr-batch0", ["--epochs", "1", "--batch-size", "0"], E("--batch-size")),
    ("tr-hidden0", ["--epochs", "1", "--hidden", "0"], E("--hidden")),
    ("tr-hidden-empty", ["--epochs", "1", "--hidden", ""], E("--hidden")),
    ("tr-hidden-1-0", ["--epochs", "1", "--hidden", "1,0"], E("--hidden")),
    ("tr-hidden-huge2", ["--epochs", "1", "--hidden", "100000,100000"], E("--hidden")),
    ("tr-hidden-many", ["--epochs", "1", "--hidden", ",".join(["1"] * 5000)], OK()),
    ("tr-hidden-neg", ["--epochs", "1", "--hidden", "-5"], E("--hidden")),
    ("tr-burnin-max", ["--epochs", "2", "--burn-in", U64], OK()),
    ("tr-cnn-hidden", ["--epochs", "1", "--model", "cnn", "--hidden", "64"], E("--hidden")),
    ("tr-nok-width0", ["--epochs", "1", "--model", "cnn", "--block", "nok", "--block-param", "width=0"], E("width")),
    ("tr-nok-widthhuge", ["--epochs", "1", "--model", "cnn", "--block", "nok", "--block-param", "width=1000000000"], E("width")),
    ("tr-nok-layers0", ["--epochs", "1", "--model", "cnn", "--block", "nok", "--block-param", "layers=0"], E("layers")),
    ("tr-nok-layersmax", ["--epochs", "1", "--model", "cnn", "--block", "nok", "--block-param", "layers=" + U64], E("layers")),
    ("tr-nok-patch0", ["--epochs", "1", "--model", "cnn", "--block", "nok", "--block-param", "patch=0"], E("patch")),
    ("tr-nok-patch100", ["--epochs", "1", "--model", "cnn", "--block", "nok", "--block-param", "patch=100"], E("patch")),
    ("tr-nok-patch3", ["--epochs", "1", "--model", "cnn", "--block", "nok", "--block-param", "patch=3"], E("patch")),
    ("tr-seedmax", ["--epochs", "1", "--seed", U64, "--json"], OK(check=jq(lambda d: d["run"]["seed"] == int(U64), "seed not kept"))),
]:
    cli(cid, "sizes", tr + extra, exp)

sm = [G, "sample"]
N_ = ("--n", "n = ")
for cid, extra, exp in [
    ("smp-dim0", ["--method", "sobol", "--dim", "0", "--n", "4"], E("--dim")),
    ("smp-n0", ["--method", "sobol", "--dim", "2", "--n", "0"], E("--n")),
    ("smp-sobol-maxdim", ["--method", "sobol", "--dim", "21202", "--n", "4", "-o", "x.npy"], E(("--dim", "d = "))),
    ("smp-sobol-2^32+1", ["--method", "sobol", "--dim", "1", "--n", "4294967297", "-o", "x.npy"], E("--n")),
    ("smp-bits0", ["--method", "sobol", "--dim", "2", "--n", "4", "--bits", "0"], E("--bits")),
    ("smp-bits65", ["--method", "sobol", "--dim", "2", "--n", "4", "--bits", "65"], E("--bits")),
    ("smp-bits1-n3", ["--method", "sobol", "--dim", "2", "--n", "3", "--bits", "1"], E("--n")),
    ("smp-skipmax", ["--method", "sobol", "--dim", "2", "--n", "4", "--skip", U64], E("--skip")),
    ("smp-nmax-stdout", ["--method", "mc", "--dim", "2", "--n", U64], E("--n")),
    ("smp-subgroup-bad-n", ["--method", "subgroup", "--dim", "5", "--n", "100"], E(N_)),
    ("smp-korobov-noa", ["--method", "korobov", "--dim", "5", "--n", "101"], E("--a")),
    ("smp-korobov-a0", ["--method", "korobov", "--dim", "5", "--n", "101", "--a", "0"], E("--a")),
    ("smp-korobov-amax", ["--method", "korobov", "--dim", "5", "--n", "101", "--a", U64], OK()),
    ("smp-halton-dim1e6", ["--method", "halton", "--dim", "1000000", "--n", "2", "-o", "x.npy"], E(("--dim", "d = "))),
    ("smp-lhs-n1", ["--method", "lhs", "--dim", "3", "--n", "1"], OK()),
    ("smp-dimmax", ["--method", "mc", "--dim", U64, "--n", "2", "-o", "x.npy"], E("--dim")),
    ("smp-nmax-npy", ["--method", "mc", "--dim", "2", "--n", U64, "-o", "x.npy"], E("--n")),
]:
    cli(cid, "sizes", sm + extra, exp, owns=("x.npy",))

la = [G, "lattice", "--quiet"]
for cid, extra, exp in [
    ("lat-dim0", ["--dim", "0", "--n", "101"], E("--dim")),
    ("lat-n0", ["--dim", "2", "--n", "0"], E(N_)),
    ("lat-n1", ["--dim", "2", "--n", "1", "--method", "korobov"], E(N_)),
    ("lat-n2-kor", ["--dim", "2", "--n", "2", "--method", "korobov"], E(N_)),
    ("lat-sub-nonprime", ["--dim", "50", "--n", "1600"], E(N_)),
    ("lat-kor-huge", ["--dim", "50", "--n", "1000000000", "--method", "korobov"], E("--n")),
    ("lat-primes0", ["--dim", "10", "--n", "1000", "--method", "alg10", "--primes", "0"], E(("--primes", "m = "))),
    ("lat-sweeps0", ["--dim", "10", "--n", "1000", "--method", "alg11", "--sweeps", "0"], OK()),
    ("lat-top0", ["--dim", "10", "--n", "1000", "--method", "alg11", "--top", "0"], E("top")),
    ("lat-primesmax", ["--dim", "10", "--n", "1000", "--method", "alg10", "--primes", U64], E("--primes")),
    ("lat-hua-dimmax", ["--dim", U64, "--n", "1000", "--method", "hua"], E("--dim")),
    ("lat-sub-bign", ["--dim", "1", "--n", "18446744073709551557"], E("--n")),
    ("lat-sub-bigdim", ["--dim", "65536", "--n", "786433"], E("--n", "--dim")),   # n d > 2^33
]:
    cli(cid, "sizes", la + extra, exp, timeout=90)

fe = [G, "features", "--data", "digits_feat.csv"]
fer = fe + ["--report"]
for cid, extra, exp in [
    ("fea-dimout0", ["--dim-out", "0"], E("--dim-out")),
    ("fea-dimoutmax", ["--dim-out", U64, "-o", "z.npy"], E(("--dim-out", "z.npy"))),
    ("fea-dimout1e9", ["--dim-out", "1000000000", "-o", "z.npy"], E(("--dim-out", "z.npy"))),
    ("fea-dimout1", ["--report", "--dim-out", "1", "--method", "iid"], OK()),
    ("fea-radial0", ["--report", "--dim-out", "64", "--radial-points", "0"], E("radial")),
    ("fea-radialmax", ["--report", "--dim-out", "64", "--radial-points", U64], E("radial")),
    ("fea-reportrows0", ["--dim-out", "64", "--report", "--report-rows", "0"], E("--report-rows")),
    ("fea-reportrowsmax", ["--dim-out", "64", "--report", "--report-rows", U64], OK()),
    ("fea-arccos11", ["--dim-out", "64", "--kernel", "arccos11"], E(("--kernel", "order"))),
    ("fea-arccos10", ["--report", "--dim-out", "64", "--kernel", "arccos10", "--method", "iid"], OK()),
    ("fea-dimoutmax-report", ["--report", "--dim-out", U64], E(("--dim-out", "projections"))),
    ("fea-dimout1e9-report", ["--report", "--dim-out", "1000000000", "--method", "iid"], E(("--dim-out", "projections"))),
]:
    cli(cid, "sizes", fe + extra, exp, files=("digits_feat.csv",), owns=("z.npy",))

it = [G, "integrate"]
for cid, extra, exp in [
    ("int-dim0", ["--dim", "0", "--n", "101", "--method", "mc"], E("--dim")),
    ("int-n0", ["--dim", "2", "--n", "0", "--method", "mc"], E("--n")),
    ("int-rep0", ["--dim", "2", "--n", "101", "--method", "mc", "--replicates", "0"], E("replicates")),
    ("int-rep1", ["--dim", "2", "--n", "101", "--method", "mc", "--replicates", "1"],
     either(E("--replicates"), OK(check=warns()))),         # no standard error from one replicate
    ("int-repmax", ["--dim", "2", "--n", "101", "--method", "mc", "--replicates", U64], E("--replicates")),
    ("int-cost", ["--dim", "100000", "--n", "100000000", "--method", "mc"], E("--n")),
    ("int-kor-huge", ["--dim", "50", "--n", "100000007", "--method", "korobov", "--replicates", "2"], E("--n")),
    ("int-sobol-dim-too-big", ["--dim", "30000", "--n", "16", "--method", "sobol"], E(("--dim", "d = "))),
    ("int-halton-n1", ["--dim", "3", "--n", "1", "--method", "halton"], OK()),
]:
    cli(cid, "sizes", it + extra, exp)

rp = [G, "reproduce", "--quick", "-o", "out"]
for cid, extra, exp in [
    ("rep-runs0", ["test-functions", "--runs", "0"], E("--runs")),
    ("rep-runsmax", ["mines-synthetic", "--runs", U64], E("--runs")),
    ("rep-unknown", ["no-such-exp"], E("no-such-exp")),
]:
    cli(cid, "sizes", rp + extra, exp, owns=("out", "out/*", "out/*/*", "out/*/*/*"))
cli("rep-noarg", "sizes", [G, "reproduce", "--quick"], E("experiment"))

# plot: big inputs
GEN = '{"type":"generation","generation":%d,"evaluations":%d,"best_f":%r,"gen_best_f":%r,"gen_median_f":%r,"scale":1.0,"seconds":0.1}\n'


def genlog(n, name="a.jsonl", f=lambda i: 1.0 / (i + 1)):
    return write(name, lambda: "".join(GEN % (i, 10 * i, f(i), f(i), f(i)) for i in range(1, n + 1)))


cli("plt-log-million-lines", "sizes", "{G} plot a.jsonl -o x.png", OK(check=has_file("x.png")), setup=genlog(1000000),
    owns=("x.png",), timeout=120)
cli("plt-title-huge", "sizes", "{G} plot a.jsonl -o x.png --title \"$(head -c 100000 /dev/zero | tr '\\0' 'x')\"",
    OK(check=has_file("x.png")), setup=genlog(2), owns=("x.png",))
cli("plt-many-logs", "sizes", "{G} plot " + " ".join(f"l{i}.jsonl" for i in range(300)) + " -o x.svg",
    OK(check=has_file("x.svg")), owns=("x.svg",),
    setup=seq(*[genlog(1, f"l{i}.jsonl", lambda j, i=i: 1.0 + i) for i in range(300)]))
