#!/usr/bin/env python3
"""gradfree's random features next to scikit-learn's RBFSampler and Nystroem, in one run.

  apt-get install dataset-fashion-mnist        # the real data of parts (1) and (3)
  pip install ./python scikit-learn numpy
  python3 benches/compare_kernel.py [--part 1|2|3] [--threads N]

(1) Fashion-MNIST, 20,000 rows of the central 16 x 16 pixels (d = 256, pixel / 255), 1,024
    Gaussian-kernel features (gamma = "scale"): time of fit_transform for SSFSampler,
    IIDSampler, OrthogonalSampler and scikit-learn's RBFSampler and Nystroem, and the relative
    Frobenius / max Gram error on 2,000 of the rows (mean over 3 seeds).
(2) Scaling with d: 16,384 rows, 8,192 features, d = 256 ... 4,096 (Gaussian test inputs: this part
    measures time only): SSF (random DFT rows; Algorithm 12 is a one-off per size) vs RBFSampler,
    and the ratio at each d.
(3) Downstream: RidgeClassifier on 2,048 features of the full Fashion-MNIST (60,000 train /
    10,000 test, 784 pixels), SSF vs RBFSampler vs IID, test accuracy and feature time.

Times are the best of --repeat calls in this process, with all cores unless --threads is given
(gradfree's rayon pool; numpy's BLAS follows OMP_NUM_THREADS). Memory: part (2) at d = 4,096
holds two 16,384 x 8,192 float64 arrays (2 GB).
"""
import argparse
import gzip
import os
import sys
import time
from pathlib import Path

import numpy as np

from _timing import best_of

FASHION = Path(os.environ.get("GRADFREE_FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist"))


def idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def fashion():
    if not (FASHION / "train-images-idx3-ubyte.gz").exists():
        sys.exit(f"Fashion-MNIST not found in {FASHION}: apt-get install dataset-fashion-mnist")
    xtr = idx(FASHION / "train-images-idx3-ubyte.gz").astype(np.float64) / 255.0
    xte = idx(FASHION / "t10k-images-idx3-ubyte.gz").astype(np.float64) / 255.0
    return xtr, idx(FASHION / "train-labels-idx1-ubyte.gz"), xte, idx(FASHION / "t10k-labels-idx1-ubyte.gz")


def part1(repeat):
    from sklearn.kernel_approximation import Nystroem, RBFSampler
    from gradfree.kernel_approximation import IIDSampler, OrthogonalSampler, SSFSampler, gram_errors, kernel_matrix

    xtr, _, _, _ = fashion()
    X = np.ascontiguousarray(xtr[:20000, 6:22, 6:22].reshape(20000, 256))
    gamma = 1.0 / (X.shape[1] * X.var())
    rows = np.random.default_rng(0).choice(len(X), 2000, replace=False)
    K = kernel_matrix(X[rows], "rbf", gamma)
    q = 1024
    makers = {
        "gradfree SSFSampler": lambda s: SSFSampler(n_components=q, gamma=gamma, random_state=s),
        "gradfree IIDSampler": lambda s: IIDSampler(n_components=q, gamma=gamma, random_state=s),
        "gradfree OrthogonalSampler": lambda s: OrthogonalSampler(n_components=q, gamma=gamma, random_state=s),
        "sklearn RBFSampler": lambda s: RBFSampler(n_components=q, gamma=gamma, random_state=s),
        "sklearn Nystroem": lambda s: Nystroem(n_components=q, gamma=gamma, random_state=s),
    }
    print(f"(1) Fashion-MNIST 20,000 x 256 (central 16 x 16 pixels) -> {q} RBF features, gamma = {gamma:.4g}")
    print(f"{'method':<28} {'fit_transform s':>16} {'vs RBFSampler':>14} {'rel. Frobenius':>15} {'rel. max':>10}")
    times, errs = {}, {}
    for name, make in makers.items():
        t, _ = best_of(lambda: make(0).fit_transform(X), repeat)
        e = []
        for s in range(3):
            Z = make(s).fit(X).transform(X[rows])
            e.append(gram_errors(K, Z @ Z.T))
        times[name], errs[name] = t, np.mean(e, axis=0)
    for name in makers:
        print(f"{name:<28} {times[name]:>16.3f} {times[name] / times['sklearn RBFSampler']:>13.2f}x "
              f"{errs[name][0]:>15.4f} {errs[name][1]:>10.4f}")


def part2(repeat):
    from sklearn.kernel_approximation import RBFSampler
    from gradfree.kernel_approximation import SSFSampler

    rows, q = 16384, 8192
    print(f"\n(2) {rows} Gaussian test rows -> {q} RBF features: time vs d (best of {repeat})")
    print(f"{'d':>6} {'SSF s':>8} {'RBFSampler s':>13} {'SSF / RBFSampler':>17}")
    for d in (256, 512, 1024, 2048, 4096):
        X = np.random.default_rng(d).standard_normal((rows, d))
        ts, _ = best_of(lambda: SSFSampler(n_components=q, gamma=1.0 / d, frequencies="random", random_state=0).fit_transform(X), repeat)
        tr, _ = best_of(lambda: RBFSampler(n_components=q, gamma=1.0 / d, random_state=0).fit_transform(X), repeat)
        print(f"{d:>6} {ts:>8.3f} {tr:>13.3f} {ts / tr:>16.2f}x")
        del X


def part3():
    from sklearn.kernel_approximation import RBFSampler
    from sklearn.linear_model import RidgeClassifier
    from gradfree.kernel_approximation import IIDSampler, SSFSampler

    xtr, ytr, xte, yte = fashion()
    Xtr, Xte = xtr.reshape(len(xtr), -1), xte.reshape(len(xte), -1)
    q = 2048
    gamma = 1.0 / (Xtr.shape[1] * Xtr.var())
    print(f"\n(3) RidgeClassifier(alpha=1) on {q} RBF features of Fashion-MNIST (60,000 / 10,000), gamma = {gamma:.4g}")
    print(f"{'features':<24} {'feature s':>10} {'test accuracy':>14}")
    lin = RidgeClassifier(alpha=1.0).fit(Xtr, ytr).score(Xte, yte)
    print(f"{'none (linear, 784 px)':<24} {'':>10} {lin:>14.4f}")
    for name, s in (("gradfree SSFSampler", SSFSampler(n_components=q, gamma=gamma, random_state=0)),
                    ("gradfree IIDSampler", IIDSampler(n_components=q, gamma=gamma, random_state=0)),
                    ("sklearn RBFSampler", RBFSampler(n_components=q, gamma=gamma, random_state=0))):
        t = time.perf_counter()
        Ztr = s.fit_transform(Xtr)
        Zte = s.transform(Xte)
        t = time.perf_counter() - t
        acc = RidgeClassifier(alpha=1.0).fit(Ztr, ytr).score(Zte, yte)
        print(f"{name:<24} {t:>10.2f} {acc:>14.4f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=["1", "2", "3", "all"], default="all")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None, help="RAYON_NUM_THREADS for gradfree")
    args = ap.parse_args()
    if args.threads:
        os.environ["RAYON_NUM_THREADS"] = str(args.threads)
    import sklearn
    print(f"numpy {np.__version__}, scikit-learn {sklearn.__version__}, {os.cpu_count()} cores")
    if args.part in ("1", "all"):
        part1(args.repeat)
    if args.part in ("2", "all"):
        part2(args.repeat)
    if args.part in ("3", "all"):
        part3()


if __name__ == "__main__":
    main()
