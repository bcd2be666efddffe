#!/usr/bin/env python3
"""The pilot that chose the NOK block's settings for `gradfree train --block nok` (thesis sec. 7.6
leaves them open): one CNN per setting on Fashion-MNIST, test accuracy on clean inputs and with
Gaussian noise of std 1.0 (normalized units), next to the CNN without the block.

  apt-get install dataset-fashion-mnist
  maturin develop --release -m python/Cargo.toml
  python3 benches/nok/pilot.py                       # the settings below, about 4 min each on 2 cores
  python3 benches/nok/pilot.py --settings layers=1 layers=4 activation=relu

Protocol: 12,000 training images (a seeded subset), the first 2,000 test images, pixels
standardized by the training mean and std, Adam at 1e-3, batches of 128, 6 epochs at a constant
rate, seed 1 (`--seeds` for more); each setting changes one option of the default block (at=input, 4x4 patches,
activation l1, lambda 0.5 sqrt(d), width 2, layers 2), `none` is the CNN alone. The noise is drawn
once (seed 0) and shared by all settings.
"""
import argparse
import gzip
import time

import numpy as np

DATA = "/usr/share/datasets/fashion-mnist"
DEFAULT_SETTINGS = ["none", "default", "layers=1", "layers=4", "width=4", "activation=l0", "activation=relu",
                    "learn_rotation=false"]


def idx(name, offset, shape):
    with gzip.open(f"{DATA}/{name}") as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset).reshape(shape)


def parse(setting):
    if setting in ("none", "default"):
        return setting
    key, value = setting.split("=", 1)
    if value in ("true", "false"):
        return {key: value == "true"}
    for cast in (int, float):
        try:
            return {key: cast(value)}
        except ValueError:
            pass
    return {key: value}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--settings", nargs="+", default=DEFAULT_SETTINGS, help="none, default, or KEY=VALUE of the block")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--rows", type=int, default=12000)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1], help="training seeds (the mean and std over them are printed)")
    a = ap.parse_args()
    from gradfree.robust import RobustClassifier

    x = idx("train-images-idx3-ubyte.gz", 16, (-1, 784)).astype(np.float32)
    y = idx("train-labels-idx1-ubyte.gz", 8, (-1,)).astype(np.int64)
    xt = idx("t10k-images-idx3-ubyte.gz", 16, (-1, 784))[:2000].astype(np.float32)
    yt = idx("t10k-labels-idx1-ubyte.gz", 8, (-1,))[:2000].astype(np.int64)
    rows = np.random.default_rng(1).permutation(len(y))[: a.rows]
    x, y = x[rows], y[rows]
    mean, sd = x.mean(), x.std()
    x, xt = (x - mean) / sd, (xt - mean) / sd
    noisy = (xt + np.random.default_rng(0).standard_normal(xt.shape)).astype(np.float32)
    print(f"{'setting':18s} {'clean %':>12s} {'noise 1.0 %':>12s} {'s/epoch':>8s}")
    for setting in a.settings:
        opts = parse(setting)
        block = None if opts == "none" else ({} if opts == "default" else opts)
        clean, noise, secs = [], [], []
        for seed in a.seeds:
            t = time.perf_counter()
            clf = RobustClassifier(loss="ce", model="cnn", block=block, epochs=a.epochs, batch_size=128, schedule="constant",
                                   random_state=seed).fit(x, y)
            secs.append((time.perf_counter() - t) / a.epochs)
            clean.append(100 * np.mean(clf.predict(xt) == yt))
            noise.append(100 * np.mean(clf.predict(noisy) == yt))
        show = (lambda v: f"{np.mean(v):.1f} ± {np.std(v):.1f}") if len(a.seeds) > 1 else (lambda v: f"{v[0]:.1f}")
        print(f"{setting:18s} {show(clean):>12s} {show(noise):>12s} {np.mean(secs):8.1f}", flush=True)


if __name__ == "__main__":
    main()
