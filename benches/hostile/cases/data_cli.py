"""Hostile data on the command line: malformed CSV/.npy files, non-finite or extreme values,
degenerate responses, argument values that are numbers but not sensible, and flags that do not
apply to the chosen method/kernel/algorithm (which must be refused, naming the flag)."""
import json
import re

from cases.common import *

E, OK = error, success
J = finite_json


def names_are(*names):
    return jq(lambda d: d["names"] == list(names), f"names not {list(names)}")


INF = "{G} infer --quiet --json --data {f} {t} {x}"


def inf(cid, fname, expect, extra="", target="y", timeout=90, cat="data", chains=False):
    """An infer case on one data file. By default the default method (mle for the GLMs), so the
    maximum-likelihood path reads the hostile data; with chains=True, or a chain --method of the
    case's own, 8 chains of 50 steps (MasGrad, the old default, unless the case names its method;
    the case's own --chains/--steps replace these)."""
    t = f"--target {target}" if target else ""
    x = extra
    if chains or ("--method " in extra and "--method mle" not in extra):
        ch = [("--method", "masgrad"), ("--chains", "8"), ("--steps", "50")]
        x = " ".join(f"{f} {v}" for f, v in ch if f + " " not in extra) + " " + extra
    cmd = INF.replace("{f}", fname).replace("{t}", t).replace("{x}", x.strip())
    cli(cid, cat, cmd, expect, files=(fname,), timeout=timeout)


SEP = OK(check=warns("separat"))
# Parsing and validation cases run the default method (mle for the GLMs); the cases on extreme
# values and degenerate designs (chains=True) run MasGrad's chains, as written for them, and the
# d-inf-mle-* cases below give the same data to maximum likelihood.
inf("d-inf-nan", "nan.csv", E("row"))
inf("d-inf-inf", "inf.csv", E("row"))
inf("d-inf-1e999", "overflow.csv", E("row"))
inf("d-inf-empty", "empty.csv", E("empty.csv"))
inf("d-inf-header-only", "header_only.csv", E("rows"))
inf("d-inf-one-row", "one_row.csv", E("row"), "--method sgd")          # needs 2 rows
inf("d-inf-two-rows-masgrad", "two_rows.csv", E("batch"), "--method masgrad --moments batch --batch 4")   # the batch V of 2 rows
inf("d-inf-one-col", "one_col.csv", E("feature"))
inf("d-inf-one-col-intercept", "one_col.csv", E("feature"), "--intercept --method sgd")
inf("d-inf-scaled1e300", "scaled.csv", E("standardize"))
inf("d-inf-scaled1e150", "scaled150.csv", E("standardize the features"), chains=True)   # chains refuse it as mle does
inf("d-inf-tiny1e-300", "tiny.csv", E("underflow"), "--intercept", chains=True)   # chains refuse it as mle does
inf("d-inf-separable", "separable.csv", SEP, "--intercept", chains=True)
inf("d-inf-separable-pop", "separable.csv", SEP, "--intercept --moments population --steps 400", chains=True)
inf("d-inf-separable-rs", "separable.csv", SEP, "--intercept --method random-scaling --batch 1 --chains 1 --steps 2000")
inf("d-inf-ragged-short", "ragged.csv", E("line"))
inf("d-inf-ragged-long", "ragged_long.csv", E("line"))
inf("d-inf-labels2", "labels2.csv", E("{0, 1}"))
inf("d-inf-labelspm1", "labelspm1.csv", E("{0, 1}"))
inf("d-inf-labelsfrac", "labels_frac.csv", E("{0, 1}"))
inf("d-inf-oneclass", "oneclass.csv", either(E("respons"), OK(check=warns())), "--intercept")
inf("d-inf-pois-neg", "pois_neg.csv", E("response", ">= 0"), "--model poisson")
inf("d-inf-pois-frac", "pois_frac.csv", OK(check=J), "--model poisson --method sgd")
inf("d-inf-constcol", "constcol.csv", OK(check=J), chains=True)
inf("d-inf-constcol-intercept", "constcol.csv", OK(), "--intercept", chains=True)
inf("d-inf-dupcol", "dupcol.csv", OK(), chains=True)
inf("d-inf-dupheader", "dupheader.csv", E("header"))                     # duplicate names are refused
inf("d-inf-dupheader-target-a", "dupheader.csv", E(("--target", "header names")), target="a")   # `a` is ambiguous
inf("d-inf-quoted", "quoted.csv", E("line"))
inf("d-inf-crlf", "crlf.csv", OK(check=names_are("a", "b", "c")))
inf("d-inf-bom", "bom.csv", OK(check=names_are("a", "b", "c")))                # BOM not in the name
inf("d-inf-bom-firstcol-target", "bomy.csv", OK(check=names_are("a", "b", "c")))
inf("d-inf-spaces", "spaces.csv", OK(check=names_are("a", "b", "c")))
inf("d-inf-semicolon", "semicolon.csv", E("line"))
inf("d-inf-trailing-comma", "trailing_comma.csv", E("line"))
inf("d-inf-blank-lines", "blank_lines.csv", OK(check=J))
inf("d-inf-noheader-name", "noheader.csv", E("--target"))
inf("d-inf-noheader-num", "noheader.csv", OK(check=names_are("x0", "x1", "x2")), target="-1")
inf("d-inf-text-cell", "text_cell.csv", E("line"))
inf("d-inf-missing-cell", "missing_cell.csv", E("line"))
inf("d-inf-no-final-newline", "nonl_end.csv", OK(check=J))
inf("d-inf-wide-csv", "wide.csv", E("memory"), "--model linear --method sgd", target="-1")
inf("d-inf-wide-npy", "wide.npy", E("memory"), "--model linear --method sgd", target="-1")
inf("d-inf-wide-csv-rs", "wide.csv", E("memory"), "--model linear --method random-scaling --batch 1 --chains 1 --steps 2", target="-1")
cli("d-inf-wide-csv-defaults", "data", "{G} infer --quiet --json --data wide.csv --target -1 --model linear --method sgd",
    E("memory"), files=("wide.csv",), timeout=90)
cli("d-inf-wide-csv-chains1", "data", "{G} infer --quiet --json --data wide.csv --target -1 --model linear --method sgd --chains 1 --steps 1",
    E("memory"), files=("wide.csv",), timeout=90)
inf("d-inf-f32npy", "f32.npy", OK(check=J), target="-1")
inf("d-inf-i64npy", "i64.npy", E("dtype"), "--model poisson --method sgd", target="-1")
inf("d-inf-1dnpy", "one_d.npy", E("feature"), target="-1")
inf("d-inf-3dnpy", "three_d.npy", E("shape"), target="-1")
inf("d-inf-fortran", "fortran.npy", OK(check=J), target="-1")
inf("d-inf-bigendian", "bigendian.npy", E("dtype"), target="-1")
inf("d-inf-objectnpy", "object.npy", E("dtype"), target="-1")
inf("d-inf-complexnpy", "complex.npy", E("dtype"), target="-1")
inf("d-inf-emptynpy", "empty.npy", E("rows"), target="-1")
inf("d-inf-nannpy", "nan.npy", E("NaN"), target="-1")
inf("d-inf-truncnpy", "truncated.npy", E("truncated"), target="-1")
inf("d-inf-garbagenpy", "garbage.npy", E("header"), target="-1")
inf("d-inf-hugeshapenpy", "hugeshape.npy", E("shape"), target="-1")
inf("d-inf-longline", "longline.csv", E("row 0"))
inf("d-inf-stream-nan", "nan.csv", E("row"), "--stream --method sgd --chains 2 --batch 5")
inf("d-inf-stream-ragged", "ragged.csv", E("line"), "--stream --method sgd --chains 2 --batch 5")
inf("d-inf-stream-labels2", "labels2.csv", E("{0, 1}"), "--stream --method random-scaling --chains 1 --batch 1")
inf("d-inf-stream-npy", "f32.npy", E("--data"), "--stream --method sgd", target="-1")
inf("d-inf-stream-empty", "header_only.csv", E("rows"), "--stream --method sgd")
inf("d-mix-const", "mix_const.csv", either(E("data"), OK(check=warns())), "--model mixture --method sgd", target=None)
inf("d-mix-one", "mix_one.csv", E("row"), "--model mixture --method sgd", target=None)
inf("d-mix-with-target", "mix_const.csv", E("--target"), "--model mixture --method sgd", target="z")
inf("d-inf-theta0-nan", "separable.csv", E("--theta0"), "--theta0 nan,0,0", chains=True)
inf("d-inf-theta0-len", "separable.csv", E("--theta0"), "--theta0 1,2", chains=True)
inf("d-inf-relu-linear", "separable.csv", OK(check=J), "--model relu --method sgd")

# ---- maximum likelihood (the default for the GLMs) on the same hostile data
inf("d-inf-mle-separable", "separable.csv", OK(check=all_of(warns("Perfect separation"), J)), "--intercept")
inf("d-inf-mle-separable-noint", "separable.csv", OK(check=warns("Perfect separation")), "--method mle")
inf("d-inf-mle-dupcol", "dupcol.csv", E(("singular", "collinear")))                # a column twice
inf("d-inf-mle-constcol-intercept", "constcol.csv", E(("singular", "collinear")), "--intercept")   # const twice
inf("d-inf-mle-two-rows", "two_rows.csv", E("rows", "parameters"))                  # 2 rows, 3 parameters
inf("d-inf-mle-one-row-linear", "one_row.csv", E("rows", "parameters"), "--model linear")
inf("d-inf-mle-scaled1e150", "scaled150.csv", either(E("standardize"), OK(check=J)))
# x 1e-300: the squares underflow; the refusal must name the scale, not collinearity
inf("d-inf-mle-tiny1e-300", "tiny.csv", either(E(("standardize", "scale", "small")), OK(check=J)), "--intercept")
inf("d-inf-mle-stream-nan", "nan.csv", E("row"), "--stream")
inf("d-inf-mle-stream-ragged", "ragged.csv", E("line"), "--stream")
inf("d-inf-mle-stream-labels2", "labels2.csv", E("{0, 1}"), "--stream")
inf("d-inf-mle-stream-empty", "header_only.csv", E("rows"), "--stream")
inf("d-inf-mle-stream-hc0", "bc3.csv", OK(check=all_of(J, jq(lambda d: d["glm"]["cov_type"] == "HC0", "not HC0"))), "--stream --cov-type HC0")
inf("d-inf-mle-mixture", "mix.csv", E("--method", "mixture"), "--model mixture --method mle", target=None)
inf("d-inf-mle-relu", "bc3.csv", E("--method", "relu"), "--model relu --method mle")
# the default runs of the mixture and the ReLU network (random scaling from the origin):
# components (units) that start equal stay equal; identical means (weights) with tight intervals
# must at least be warned about
DISTINCT = jq(lambda d: len(set(d["params"])) == len(d["params"]), "identical parameters (the components/units never split)")
inf("d-mix-default", "mix.csv", OK(check=any_of(warns(), DISTINCT)), "--model mixture", target=None)
inf("d-relu-default", "bc3.csv", OK(check=any_of(warns(), DISTINCT)), "--model relu")      # likewise the 2 hidden units

FE = "{G} features --dim-out 16 --report --data {f} {x}"


def fea(cid, fname, expect, extra="", timeout=90):
    cmd = FE.replace("{f}", fname).replace("{x}", extra)
    if "--dim-out " in extra:
        cmd = cmd.replace(" --dim-out 16", "", 1)
    cli(cid, "data", cmd, expect, files=(fname,), timeout=timeout)


fea("d-fea-nan", "nan.csv", E("row"))
fea("d-fea-inf", "inf.csv", E("row"))
fea("d-fea-empty", "empty.csv", E("empty.csv"))
fea("d-fea-header-only", "header_only.csv", E("rows"))
fea("d-fea-one-row", "one_row.csv", OK())
fea("d-fea-one-col", "one_col.csv", OK())
fea("d-fea-const", "mix_const.csv", OK())
def gram_max_below(limit):
    """The report's relative max Gram error must stay below `limit` (1.5 when sigma fell back)."""
    def check(res):
        m = re.search(r"relative max ([0-9.e+-]+)", res.out)
        if not m:
            return "no Gram error in the report"
        return None if float(m.group(1)) < limit else f"relative max Gram error {m.group(1)} (>= {limit})"
    return check


fea("d-fea-scaled", "scaled.csv", either(E(("--gamma", "--sigma", "scale", "finite")), OK(check=any_of(warns(), gram_max_below(1.0)))))
fea("d-fea-ragged", "ragged.csv", E("line"))
fea("d-fea-wide", "wide.csv", OK(), "--method iid")
fea("d-fea-wide-ssf", "wide.npy", either(E(("--method", "--dim-out", "ssf", "operations")), OK()), "--method ssf", timeout=120)
fea("d-fea-gamma0", "crlf.csv", E("gamma"), "--gamma 0")
fea("d-fea-gammaneg", "crlf.csv", E("gamma"), "--gamma -1")
fea("d-fea-gammanan", "crlf.csv", E("gamma"), "--gamma nan")
fea("d-fea-sigma0", "crlf.csv", E("sigma"), "--sigma 0")
fea("d-fea-sigmainf", "crlf.csv", E("sigma"), "--sigma inf")
fea("d-fea-sigma-and-gamma", "crlf.csv", E("--sigma", "--gamma"), "--sigma 1 --gamma 2")
fea("d-fea-1dnpy", "one_d.npy", OK())
fea("d-fea-i64npy", "i64.npy", E("dtype"))
fea("d-fea-radial0", "crlf.csv", E("radial"), "--radial-points 0")
fea("d-fea-radialmax", "crlf.csv", E("radial"), "--radial-points " + U64)
fea("d-fea-arccos-gamma", "crlf.csv", E("--gamma"), "--kernel arccos1 --gamma 5")        # ignored
fea("d-fea-subgroup-freq-bad", "crlf.csv", OK(), "--frequencies subgroup --dim-out 6")

TR = "{G} train --quiet --epochs 1 --json "
for cid, extra, exp, req in [
    ("d-tr-data-path", "--data {DATA}/bc3.csv", E("--data"), ()),
    ("d-tr-data-unknown", "--data mnist", E("--data"), ()),
    ("d-tr-fmnist-missing", "--data fashion-mnist", OK(), ("fashion-mnist",)),
    ("d-tr-noise-sym09", "--data digits --noise symmetric:0.9", E("--noise"), ()),
    ("d-tr-noise-sym0899", "--data digits --noise symmetric:0.899", OK(), ()),
    ("d-tr-noise-pair05", "--data digits --noise pair:0.5", E("--noise"), ()),
    ("d-tr-noise-neg", "--data digits --noise symmetric:-0.1", E("--noise"), ()),
    ("d-tr-noise-nan", "--data digits --noise symmetric:nan", E("--noise"), ()),
    ("d-tr-noise-garbage", "--data digits --noise gaussian:0.1", E("--noise"), ()),
    ("d-tr-noise-norate", "--data digits --noise symmetric", E("--noise"), ()),
    ("d-tr-noiserate-1", "--data digits --noise-rate 1", E("--noise-rate"), ()),
    ("d-tr-noiserate-nan", "--data digits --noise-rate nan", E("--noise-rate"), ()),
    ("d-tr-noiserate-ce", "--data digits --loss ce --noise-rate 0.3", E("--noise-rate"), ()),   # eps of npcl/coteaching only
    ("d-tr-lr0", "--data digits --lr 0", E("--lr"), ()),
    ("d-tr-lrneg", "--data digits --lr -1", E("--lr"), ()),
    ("d-tr-lrinf", "--data digits --lr inf", E("--lr"), ()),
    ("d-tr-lrhuge", "--data digits --lr 1e30", E("lr"), ()),                  # diverges: lower lr
    ("d-tr-lrtiny", "--data digits --lr 1e-300", OK(), ()),
    ("d-tr-noise-none-npcl", "--data digits --noise none", OK(), ()),
]:
    cli(cid, "data", TR + extra, exp, requires=req, timeout=90)

def hc0_applied(res):
    """--cov-type HC0: the same estimates as the default (nonrobust) run, other standard errors."""
    a = json_out(res)
    b = res.run("{G} infer --quiet --data d.csv --target y --json")
    if b.returncode:
        return f"the nonrobust run failed: {b.stderr.strip()[:150]}"
    b = json.loads(b.stdout)
    if a["glm"]["cov_type"] != "HC0":
        return f"cov_type {a['glm']['cov_type']}"
    if a["params"] != b["params"] or a["bse"] == b["bse"]:
        return f"params or bse not as expected: HC0 bse {a['bse']} vs nonrobust {b['bse']}"
    return None


# ---- flags that do not apply: refused, naming the flag
INF2 = "{G} infer --quiet --data d.csv --target y "
CH2 = "--chains 4 --steps 5 "
for cid, extra, exp in [
    ("ig-inf-lambda-masgrad", "--method masgrad " + CH2 + "--lambda 0.5", E("--lambda")),
    ("ig-inf-decay-sgd", "--method sgd " + CH2 + "--decay 0.7", E("--decay")),
    ("ig-inf-components-logistic", "--components 4", E("--components")),
    ("ig-inf-hidden-logistic", "--hidden 5", E("--hidden")),
    ("ig-inf-sigma-logistic", "--sigma 2", E("--sigma")),
    ("ig-inf-proxmetric-sgd", "--method sgd " + CH2 + "--prox-metric full", E("--prox-metric")),
    ("ig-inf-moments-sgd", "--method sgd " + CH2 + "--moments population", E("--moments")),
    ("ig-inf-ckevery-nockpt", "--method masgrad " + CH2 + "--checkpoint-every 5", E("--checkpoint")),
    ("ig-inf-overwrite-nockpt", "--overwrite", OK()),                     # harmless
    # maximum likelihood runs no chains: every chain setting is refused (named), not ignored
    ("ig-inf-mle-chains", "--method mle --chains 4", E("--chains", "chain method")),
    ("ig-inf-mle-default-steps", "--steps 5", E("--steps", "chain method")),
    ("ig-inf-mle-batch", "--batch 10", E("--batch")),
    ("ig-inf-mle-step", "--step 0.1", E("--step")),
    ("ig-inf-mle-seed", "--method mle --seed 3", E("--seed")),
    ("ig-inf-mle-interval", "--interval normal", E("--interval")),
    ("ig-inf-mle-sampling", "--sampling without-replacement", E("--sampling")),
    ("ig-inf-mle-theta0", "--theta0 0,0,0", E("--theta0")),
    ("ig-inf-mle-chainsout", "--chains-out c.npy", E("--chains-out")),
    ("ig-inf-mle-checkpoint", "--method mle --checkpoint c.ckpt", E("--checkpoint")),
    ("ig-inf-mle-ckseconds", "--checkpoint-seconds 5", E("--checkpoint")),
    ("ig-inf-mle-moments", "--moments population", E("--moments")),
    ("ig-inf-mle-stream-steps", "--stream --steps 5", E("--steps")),
    # --cov-type: mle only, nonrobust or HC0
    ("ig-inf-covtype-bad", "--cov-type HC1", E("--cov-type", "HC0")),
    ("ig-inf-covtype-case", "--cov-type hc0", E("--cov-type", "HC0")),
    ("ig-inf-covtype-masgrad", "--method masgrad " + CH2 + "--cov-type HC0", E("--cov-type", "mle")),
    ("ig-inf-covtype-rs", "--method random-scaling --cov-type nonrobust", E("--cov-type", "mle")),
    ("ig-inf-covtype-hc0", "--cov-type HC0 --json", OK(check=all_of(finite_json, hc0_applied))),
]:
    cli(cid, "data", INF2 + extra, exp, files=D)
SM = "{G} sample --dim 2 "
for cid, extra, exp in [
    ("ig-smp-scramble-mc", "--n 8 --method mc --scramble owen", E("--scramble")),
    ("ig-smp-bits-lhs", "--n 8 --method lhs --bits 64", E("--bits")),
    ("ig-smp-a-subgroup", "--method subgroup --n 5 --a 3", E("--a")),
    ("ig-smp-shift-sobol", "--n 8 --method sobol --random-shift", E("--random-shift")),
    ("ig-smp-skip-halton", "--n 8 --method halton --skip 5", OK(check=differs_from("{G} sample --dim 2 --n 8 --method halton"))),
    ("ig-smp-seed-sobol-none", "--n 8 --method sobol --scramble none --seed 7", OK()),
]:
    cli(cid, "data", SM + extra, exp)
LA = "{G} lattice --quiet --dim 5 --n 101 "
cli("ig-lat-metric-subgroup", "data", LA + "--metric l1", E("--metric"))
cli("ig-lat-primes-korobov", "data", LA + "--method korobov --primes 7", E("--primes"))
cli("ig-lat-sweeps-alg10", "data", LA + "--method alg10 --sweeps 9", E("--sweeps"))
FE2 = "{G} features --data d.csv --dim-out 16 "
for cid, extra, exp in [
    ("ig-fea-radial-arccos", "--report --kernel arccos1 --radial-points 4", E("--radial-points")),
    ("ig-fea-freq-iid", "--report --method iid --frequencies random", E("--frequencies")),
    ("ig-fea-rotation-iid", "--report --method iid --rotation haar", E("--rotation")),
    ("ig-fea-sigma-arccos", "--report --kernel arccos0 --sigma 3", E("--sigma")),
    ("ig-fea-reportrows-noreport", "--report-rows 5 -o z.npy", E("--report-rows")),
]:
    cli(cid, "data", FE2 + extra, exp, files=F, owns=("z.npy",))
BO = "{G} bo --quiet --problem ackley --dim 2 --rounds 1 "
for cid, extra, exp in [
    ("ig-bo-beta-bkop", "--beta 3", E("--beta")),
    ("ig-bo-weight-gpbucb", "--method gp-bucb --weight 5", E("--weight")),
    ("ig-bo-weight-ei", "--method ei --weight 5", E("--weight")),
    ("ig-bo-ninit-bull", "--method bull --n-initial 5", E("--n-initial")),
]:
    cli(cid, "data", BO + extra, exp)
# Bull's last point is the posterior mean's minimizer, found by the same CMA-ES starts: the flag
# applies, so the result must differ from the run with one start (3 rounds: with 1, the 15-point
# budget's last point does not beat the design's best either way).
BULL = "{G} bo --quiet --problem ackley --dim 2 --rounds 3 --method bull --acq-evals 3 --acq-starts "
cli("ig-bo-acq-bull", "data", BULL + "9", OK(check=differs_from(BULL + "1")))
TR2 = "{G} train --quiet --data digits --epochs 1 "
for cid, extra, exp in [
    ("ig-tr-burnin-ce", "--loss ce --burn-in 3", E("--burn-in")),
    ("ig-tr-blockparam-noblock", "--block-param layers=3", E("--block-param")),
    ("ig-tr-blockparam-mean", "--model cnn --block mean --block-param layers=3", E("--block-param")),
    ("ig-tr-noiserate-gce", "--loss gce --noise-rate 0.3", E("--noise-rate")),
]:
    cli(cid, "data", TR2 + extra, exp)
OPT = "{G} optimize --quiet --algo cmaes --problem sphere --dim 3 --max-evals 300 "
for cid, extra, exp in [
    ("ig-opt-restartfrom-norestarts", "--restart-from uniform", E("--restart-from")),
    ("ig-opt-ckevery-nockpt", "--checkpoint-every 5", E("--checkpoint")),
    ("ig-opt-tolwin-noconv", "--no-convergence --tol-f-window 5", E("--tol-f-window")),
    ("ig-opt-target-notarget", "--target 1 --no-target", E("--target", "--no-target")),
    ("ig-opt-shift-discrete", "--shift 2", OK(check=differs_from(OPT))),
    ("ig-opt-param-cmaes-beta", "--param beta=0.1", E("beta")),
]:
    cli(cid, "data", OPT + extra, exp)
cli("ig-opt-rotate-onemax", "data", "{G} optimize --quiet --algo ga --problem onemax --dim 5 --rotate --max-evals 2000",
    E(("--rotate", "rotated")))
cli("ig-int-b-sobol", "data", "{G} integrate --dim 3 --n 101 --method mc --b 0",
    OK(check=differs_from("{G} integrate --dim 3 --n 101 --method mc")))

# ---- plot: hostile logs
GEN = '{"type":"generation","generation":%d,"evaluations":%d,"best_f":%r,"gen_best_f":%r,"gen_median_f":%r,"scale":1.0,"seconds":0.1}\n'


def log(*recs):
    return write("a.jsonl", "".join(r if isinstance(r, str) else GEN % (r[0], r[1], r[2], r[2], r[2]) for r in recs))


PL = "{G} plot a.jsonl -o x.png"
PNG = OK(check=has_file("x.png"))
for cid, cmd, setup, exp in [
    ("plt-log-negative-logscale", PL, log((1, 10, -5.0), (2, 20, -7.0)), E("--linear")),
    ("plt-log-zero-logscale", PL, log((1, 10, 1.0), (2, 20, 0.0)), PNG),
    ("plt-log-nan-string", PL, log('{"type":"generation","generation":1,"evaluations":10,"best_f":NaN}\n', (2, 20, 1.0)),
     error("a.jsonl", json_ok=True)),
    ("plt-log-1e308", PL, log((1, 10, 1e308), (2, 20, 5e-324)), PNG),
    ("plt-log-huge-evals", PL, log((1, 2**63, 1.0), (2, 2**64 - 1, 0.5)), PNG),
    ("plt-log-decreasing-evals", PL, log((1, 100, 1.0), (2, 10, 0.5)), PNG),
    ("plt-log-binary-garbage", PL, write("a.jsonl", bytes(range(256)) * 16, "wb"), E("a.jsonl")),
    ("plt-fstar-nan", PL + " --f-star nan", log((1, 10, 1.0), (2, 20, 0.5)), E("--f-star")),
    ("plt-fstar-above", PL + " --f-star 10", log((1, 10, 1.0), (2, 20, 0.5)), E("--linear")),
]:
    cli(cid, "data", cmd, exp, setup=setup, owns=("x.png",))
cli("plt-log-mixed-train-opt", "data", "{G} plot t.jsonl o.jsonl -o x.png", E("o.jsonl"), owns=("x.png",),
    setup=seq(sh("{G} train --quiet --data digits --epochs 2 --log t.jsonl"),
              sh("{G} optimize --quiet --algo cmaes --problem sphere --dim 3 --max-evals 300 --log o.jsonl")))

# ---- integrate / optimize / params: hostile values
NOINF = lambda res: ("inf/nan in the result: " + res.out[:200]) if any(w in res.out.lower() for w in ("inf", "nan", "null")) else None
for cid, cmd, exp in [
    ("int-c-overflow", "{G} integrate --dim 100 --n 101 --method mc --c 1000 --json", E(("--c", "c = "))),
    ("int-b-nan", "{G} integrate --dim 3 --n 101 --method mc --b nan", E(("--b", "b = "))),
    ("int-c-inf", "{G} integrate --dim 3 --n 101 --method mc --c inf", E(("--c", "c = "))),
    ("int-b-neg-huge", "{G} integrate --dim 1000 --n 1201 --method subgroup --b -50 --json", either(E(("--b", "b = ")), OK(check=NOINF))),   # parsed as --b's value
    ("opt-x0-nan", OPT + "--x0 nan,0,0", E("x0")),
    ("opt-x0-inf", OPT + "--x0 inf,0,0", E("x0")),
    ("opt-target-nan", OPT + "--target nan", E("--target")),
    ("opt-param-nan", "{G} optimize --quiet --algo ingo --problem sphere --dim 3 --param beta=nan", E("beta")),
    ("opt-param-1e999", "{G} optimize --quiet --algo ingo --problem sphere --dim 3 --param beta=1e999", E("beta")),
    ("opt-param-abc", OPT + "--param popsize=abc", E("popsize")),
    ("opt-param-noeq", OPT + "--param popsize", E("--param")),
    ("opt-param-json-inject", OPT + "--param 'popsize=5,\"sampling\":\"orthogonal\"'", E("popsize")),
    ("opt-param-dup", OPT + "--param popsize=5 --param popsize=9 --json", OK()),
    ("opt-tolf-nan", OPT + "--tol-f nan", E("--tol-f")),
    ("opt-tolx-neg", OPT + "--tol-x -1", E("--tol-x")),
    ("opt-failing-sphere", "{G} optimize --quiet --algo cmaes --problem failing-sphere --dim 3 --max-evals 300", E("--on-nonfinite")),
    ("opt-failing-sphere-inf", "{G} optimize --quiet --algo cmaes --problem failing-sphere --dim 3 --max-evals 300 --on-nonfinite treat-as-inf --json", OK()),
    ("opt-restarts-bipop0", "{G} optimize --quiet --algo cmaes --problem sphere --dim 3 --max-evals 3000 --restarts bipop:0 --json", OK()),
    ("params-unknown", "{G} params nope", E("nope")),
    ("params-empty", "{G} params ''", E("algorithm")),
]:
    cli(cid, "data", cmd, exp)
