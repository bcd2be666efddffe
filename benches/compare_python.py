"""Python-level overhead of the gradfree package next to its Python peers, in one process run.

    pip install ./python cma scipy
    python3 benches/compare_python.py

(a) Time per generation of the pycma-style loop (``ask``; values of a trivial objective computed
    in numpy; ``tell``) for ``gradfree.CMAES`` and ``gradfree.INGO`` against
    ``cma.CMAEvolutionStrategy`` at d = 100 and 1000. Each side runs the same number of
    generations from the same x0 with sigma0 = 0.5; the objective's own time is the same numpy
    call on both sides.
(b) 2^20 scrambled Sobol points in 64 dimensions: ``gradfree.Sobol(64).random(2**20)`` against
    ``scipy.stats.qmc.Sobol(64).random(2**20)`` (best of 3).
"""
import argparse
import time

import numpy as np


def per_generation(make, gens, warmup=3):
    es = make()
    for _ in range(warmup):
        X = np.asarray(es.ask())
        es.tell(X, np.sum(X * X, axis=1).tolist())
    t = time.perf_counter()
    for _ in range(gens):
        X = np.asarray(es.ask())
        es.tell(X, np.sum(X * X, axis=1).tolist())
    return 1e3 * (time.perf_counter() - t) / gens


def part_a():
    import cma

    import gradfree

    print(f"(a) ms per generation of the ask/tell loop (pycma {cma.__version__})")
    print(f"{'d':>5} {'method':<8} {'gens':>5} {'ms/gen':>9} {'pycma':>9} {'ratio':>7}")
    for d, gens in ((100, 300), (1000, 100)):
        x0 = np.random.default_rng(0).random(d)
        opts = {"seed": 1, "verbose": -9, "maxfevals": 10**12, "tolx": 0, "tolfun": 0, "tolflatfitness": 10**9,
                "tolstagnation": 10**9}
        ref = per_generation(lambda: cma.CMAEvolutionStrategy(x0, 0.5, opts), gens)
        for name, cls in (("cmaes", gradfree.CMAES), ("ingo", gradfree.INGO)):
            ms = per_generation(lambda: cls(x0, 0.5, seed=1, max_evals=10**12), gens)
            print(f"{d:>5} {name:<8} {gens:>5} {ms:>9.3f} {ref:>9.3f} {ms / ref:>7.3f}")


def part_b():
    import scipy
    from scipy.stats import qmc

    import gradfree

    n, d = 2**20, 64

    def best(f, reps=3):
        out = []
        for _ in range(reps):
            t = time.perf_counter()
            f()
            out.append(time.perf_counter() - t)
        return min(out)

    ours = best(lambda: gradfree.Sobol(d, seed=1).random(n))
    theirs = best(lambda: qmc.Sobol(d, seed=1).random(n))
    print(f"\n(b) Sobol 2^20 x 64, LMS + digital shift (scipy {scipy.__version__})")
    print(f"gradfree {ours:.3f} s   scipy {theirs:.3f} s   ratio {ours / theirs:.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["a", "b", "all"], default="all")
    args = ap.parse_args()
    if args.part in ("a", "all"):
        part_a()
    if args.part in ("b", "all"):
        part_b()


if __name__ == "__main__":
    main()
