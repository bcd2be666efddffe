"""Disk space: outputs larger than the free space are refused up front (naming the size and the
free space) and leave nothing behind; writes that run out of space midway (standard output,
logs, checkpoint records, on a small tmpfs mounted for the case) fail with one message and leave
no temporary file. The tmpfs cases need root (mount); the others use sizes past any disk."""
import subprocess

from cases.common import *
from harness import SetupError

E, OK = error, success
CAT = "disk space"
for cid, cmd, exp, req in [
    ("smp-disk", "{G} sample --method sobol --dim 64 --n 4294967296 -o x.npy", E(" free"), ()),
    ("smp-disk-csv", "{G} sample --method mc --dim 64 --n 100000000000 -o x.csv", E(" free"), ()),
    ("lat-o-disk", "{G} lattice --quiet --dim 64 --n 1073741441 -o x.npy", E(("--n", " free")), ()),   # n d > 2^33 first
    ("fea-o-disk-csv", "{G} features --dataset fashion-mnist --dim-out 1000000 --method iid -o z.csv", E(" free"), ("fashion-mnist",)),
    ("smp-o-shm-full", "{G} sample --method mc --dim 64 --n 200000000000 -o /dev/shm/hostile_x.npy", E(" free"), ()),
]:
    cli(cid, CAT, cmd, exp, owns=("x.npy", "x.csv", "z.csv"), requires=req, timeout=120)


def tmpfs(size):
    """Setup: mount a tmpfs of `size` at ./mnt (root only); the teardown unmounts it."""
    def st(ctx, folder):
        sh("mkdir -p mnt")(ctx, folder)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", "mnt"], cwd=folder,
                           capture_output=True, text=True)
        if r.returncode:
            raise SetupError(f"mount tmpfs: {r.stderr.strip()}")
    return st


def t(cid, cmd, exp, size="8m", setup=None, files=(), timeout=120):
    st = tmpfs(size) if setup is None else seq(tmpfs(size), setup)
    cli(cid, CAT, cmd, exp, setup=st, files=files, owns=("mnt", "mnt/*"), requires=("tmpfs",), timeout=timeout, solo=True)


# refused up front: the file would not fit
t("disk-tmpfs-sample-npy", "{G} sample --method sobol --dim 64 --n 65536 -o mnt/x.npy", E(" free"))
t("disk-tmpfs-sample-csv", "{G} sample --method mc --dim 16 --n 200000 -o mnt/x.csv", E("mnt/x.csv"))     # up front or midway
t("disk-tmpfs-sample-owen", "{G} sample --method sobol --scramble owen --dim 64 --n 65536 -o mnt/x.npy", E(" free"))
t("disk-tmpfs-lattice", "{G} lattice --quiet --dim 32 --n 65537 -o mnt/x.npy", E(" free"))
t("disk-tmpfs-features", "{G} features --data d.csv --dim-out 8192 -o mnt/z.npy", E(" free"), files=F)
t("disk-tmpfs-features-csv", "{G} features --data d.csv --dim-out 8192 -o mnt/z.csv", E("mnt/z.csv"), files=F)
t("disk-tmpfs-infer-chainsout", "{G} infer --quiet --data d.csv --target y --chains 64 --steps 20000 --method sgd --chains-out mnt/c.npy",
  E("mnt/c.npy"), files=D)
# fits: written whole, no temporary file left
t("disk-tmpfs-sample-fits", "{G} sample --method sobol --dim 8 --n 65536 -o mnt/x.npy",
  OK(check=lambda res: None if __import__("os").listdir(res.folder + "/mnt") == ["x.npy"] else "mnt: " + str(__import__("os").listdir(res.folder + "/mnt"))))
# the space runs out midway: a stream the command cannot size in advance
t("disk-tmpfs-stdout-full", "{G} sample --method mc --dim 16 --n 2000000 -o - > mnt/x.csv", E("standard output"), size="1m")
t("disk-tmpfs-opt-log", "{G} optimize --quiet --algo cmaes --problem ellipsoid --dim 10 --no-convergence --no-target --max-evals 400000 --log mnt/l.jsonl",
  E("mnt/l.jsonl"), size="256k")
t("disk-tmpfs-train-log", "{G} train --quiet --data digits --epochs 3000 --hidden 4 --log mnt/t.jsonl",
  E("mnt/t.jsonl"), size="64k", timeout=300)
t("disk-tmpfs-infer-records", "{G} infer --quiet --data d.csv --target y --method masgrad --chains 4 --steps 3000000 --checkpoint-every 10 --checkpoint mnt/i.ckpt",
  E("mnt/i.ckpt"), size="1m", files=D, timeout=300)
t("disk-tmpfs-opt-ckpt", "{G} optimize --quiet --algo cmaes --problem ellipsoid --dim 200 --max-evals 2000 --checkpoint mnt/o.ckpt --checkpoint-every 1",
  E("mnt/o.ckpt"), size="256k")
