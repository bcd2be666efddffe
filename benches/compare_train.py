#!/usr/bin/env python3
"""Epoch time of gradfree's training stack (burn, flex CPU backend) vs PyTorch on CPU, in one run.

  apt-get install dataset-fashion-mnist           # /usr/share/datasets/fashion-mnist
  pip install torch --index-url https://download.pytorch.org/whl/cpu
  maturin develop --release -m python/Cargo.toml
  python3 benches/compare_train.py                          # MLP and CNN, 1 and 2 threads
  python3 benches/compare_train.py --torch-python /path/to/venv-with-torch/bin/python

Same network, batch size, optimizer and data on both sides: Fashion-MNIST's 60,000 training
images (pixels / 255), cross-entropy, Adam at lr 1e-3, batches of 128 in a seeded random order;
the MLP 784-256-256-10 (ReLU) and the CNN conv3x3(32)-ReLU-maxpool2-conv3x3(64)-ReLU-maxpool2-
dense(128)-ReLU-dense(10) with 'same' padding. One epoch is timed after one warm-up epoch
(`--epochs` timed epochs, the best is reported); the CNN uses the first `--cnn-rows` images
(default all); `cnn+nok` and `cnn+nok2` time our CNN with the neural optimization kernel block
(thesis ch. 7) at the input, or at the input and after the first convolution, against PyTorch's
plain CNN. Each measurement runs in a fresh process with the thread count set
(`RAYON_NUM_THREADS` for gradfree, `torch.set_num_threads` and `OMP_NUM_THREADS` for PyTorch).
gradfree's epoch is `RobustClassifier(loss="ce").fit(...)`'s per-epoch time (`history_`), which
includes its per-epoch bookkeeping (selection masks, training accuracy); PyTorch's is the bare
loop. The ratio is gradfree's time over PyTorch's: below 1 we are faster.
"""
import argparse
import json
import os
import subprocess
import sys

DATA = "/usr/share/datasets/fashion-mnist"

LOAD = f"""
import gzip, numpy as np
def load(rows):
    with gzip.open("{DATA}/train-images-idx3-ubyte.gz") as f:
        x = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784)[:rows].astype(np.float32) / 255.0
    with gzip.open("{DATA}/train-labels-idx1-ubyte.gz") as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8)[:rows].astype(np.int64)
    return np.ascontiguousarray(x), y
"""

GRADFREE = LOAD + r"""
import json, sys
from gradfree.robust import RobustClassifier
model, rows, epochs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
block = {"cnn+nok": {"at": "input"}, "cnn+nok2": {"at": "both"}}.get(model)
x, y = load(rows)
clf = RobustClassifier(loss="ce", model=model.split("+")[0], block=block, epochs=epochs + 1, batch_size=128, schedule="constant",
                       random_state=0).fit(x, y)
print(json.dumps([r["seconds"] for r in clf.history_[1:]]))
"""

TORCH = LOAD + r"""
import json, sys, time, torch
from torch import nn
model, rows, epochs, threads = sys.argv[1].split("+")[0], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
torch.set_num_threads(threads)
torch.manual_seed(0)
x, y = load(rows)
x, y = torch.from_numpy(x), torch.from_numpy(y)
if model == "mlp":
    net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
else:
    x = x.reshape(-1, 1, 28, 28)
    net = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(),
                        nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()
g = torch.Generator().manual_seed(0)
out = []
for e in range(epochs + 1):
    t = time.perf_counter()
    for idx in torch.randperm(len(y), generator=g).split(128):
        opt.zero_grad()
        loss_fn(net(x[idx]), y[idx]).backward()
        opt.step()
    if e > 0:
        out.append(time.perf_counter() - t)
print(json.dumps(out))
"""


def run(python, code, args, threads):
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    out = subprocess.run([python, "-c", code, *map(str, args)], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit(f"{python}: {out.stderr.strip().splitlines()[-1] if out.stderr.strip() else 'failed'}")
    return min(json.loads(out.stdout.strip().splitlines()[-1]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--torch-python", default=sys.executable, help="an interpreter with torch (default: this one)")
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    ap.add_argument("--epochs", type=int, default=1, help="timed epochs after one warm-up (best is reported)")
    ap.add_argument("--cnn-rows", type=int, default=60000)
    ap.add_argument("--models", default="mlp,cnn",
                    help="comma-separated: mlp, cnn, cnn+nok (the NOK block on the input patches), cnn+nok2 (input and "
                         "after the first convolution); PyTorch always runs the plain network")
    a = ap.parse_args()
    if not os.path.exists(f"{DATA}/train-images-idx3-ubyte.gz"):
        sys.exit(f"{DATA}: not found; install the Debian package dataset-fashion-mnist")
    rows = {"mlp": 60000, "cnn": a.cnn_rows, "cnn+nok": a.cnn_rows, "cnn+nok2": a.cnn_rows}
    print(f"{'model':5s} {'rows':>6s} {'threads':>7s} {'gradfree s/epoch':>17s} {'PyTorch s/epoch':>16s} {'ratio':>6s}")
    for model in a.models.split(","):
        for threads in map(int, a.threads.split(",")):
            ours = run(sys.executable, GRADFREE, [model, rows[model], a.epochs], threads)
            theirs = run(a.torch_python, TORCH, [model, rows[model], a.epochs, threads], threads)
            print(f"{model:5s} {rows[model]:6d} {threads:7d} {ours:17.2f} {theirs:16.2f} {ours / theirs:6.2f}", flush=True)


if __name__ == "__main__":
    main()
