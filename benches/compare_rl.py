#!/usr/bin/env python3
"""Policy-search throughput of `gradfree.rl` (thesis sec. 3.7.2): rollouts per second with 1 and 2
workers, ES time against rollout time, reward against wall-clock time, and the observation-
normalization choice.

  pip install ./python "gymnasium[mujoco]" [ray]
  python3 benches/compare_rl.py [--part 1|2|3|4] [--env HalfCheetah-v5] [--method asebo]

(1) Rollouts per second: one generation's population (the thesis' MLP, N = 20 + 4 floor(floor(3 ln d)/2)
    perturbations of the zero policy, full 1,000-step episodes) evaluated serially in this process,
    by a spawn process pool of 1 and 2 workers and by a local Ray pool of 1 and 2 workers. Pool
    start-up is timed apart; every executor must return the same rewards (they are seeded per
    rollout), which the script checks.
(2) ES time per generation as a fraction of rollout time, for each method at each Fig. 3.2 task's
    policy dimension: the mean time of ask + tell over 30 generations after 80 (ASEBO's subspace
    is in use; values from a fixed random stream) against the rollout time of the task's N + 1 full episodes at the serial steps/s of part
    (1)'s measurement for that task.
(3) Reward vs wall-clock: --method (default ASEBO, the one that moves in 8 generations) on --env for
    8 generations with sequential evaluation and with a 2-worker process pool: the same rewards
    generation by generation, reached sooner.
(4) Observation normalization (ARS V2 running statistics) off vs on: --norm-methods (default
    Fast-INGO and ASEBO), 3 seeds, reward of the mean policy after 15 generations on --env
    (2 workers; HalfCheetah-v5: 5.5 minutes per method).

All in this process and its pools, on this machine's cores.
"""
import argparse
import statistics
import time

import numpy as np

import gradfree.rl as rl
from gradfree import es

TASKS = ["Swimmer-v5", "HalfCheetah-v5", "HumanoidStandup-v5", "InvertedDoublePendulum-v5"]


def population_tasks(env_id: str, seed: int = 0):
    """Generation 1 of a Fast-INGO run on env_id: its tasks (N perturbations and the mean)."""
    run = rl.PolicySearch(env_id, "fast-ingo", seed)
    X = run.es.ask()
    return run, run.tasks(X)


def evaluate(executor, tasks):
    t = time.perf_counter()
    outs = list(executor.map(rl.run_task, tasks)) if executor is not None else [rl.run_task(x) for x in tasks]
    return time.perf_counter() - t, outs


def part1(env_id: str) -> dict:
    run, tasks = population_tasks(env_id)
    print(f"(1) {env_id}: d = {run.policy.n_params}, {len(tasks)} rollouts of at most {run.max_steps} steps")
    print(f"    {'executor':<18} {'start-up s':>10} {'seconds':>8} {'rollouts/s':>10} {'steps/s':>8} {'speed-up':>8}")
    ref = None
    base = None
    configs = [("serial", 1), ("process", 1), ("process", 2), ("ray", 1), ("ray", 2)]
    for kind, workers in configs:
        t0 = time.perf_counter()
        try:
            if kind == "serial":
                ex = None
            elif kind == "process" and workers == 1:
                import multiprocessing
                from concurrent.futures import ProcessPoolExecutor
                ex = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
            else:
                ex = rl.make_executor(kind, workers)
        except rl.MissingDependencyError as e:
            print(f"    {kind + ' ' + str(workers):<18} skipped: {e}")
            continue
        if ex is not None:  # start the workers and build their environments
            list(ex.map(rl.run_task, [tasks[0]] * workers))
        startup = time.perf_counter() - t0
        secs, outs = evaluate(ex, tasks)
        if ex is not None:
            ex.shutdown()
        rewards = [o.reward for o in outs]
        steps = sum(o.steps for o in outs)
        if ref is None:
            ref, base = rewards, secs
        assert rewards == ref, f"{kind} x{workers} returned different rewards"
        print(f"    {kind + ' x' + str(workers):<18} {startup:>10.2f} {secs:>8.2f} {len(tasks) / secs:>10.1f} {steps / secs:>8.0f} "
              f"{base / secs:>8.2f}")
    print("    rewards identical across executors: yes")
    return {"steps_per_s": steps / base}


def serial_steps_per_second(env_id: str, rollouts: int = 4) -> float:
    _, tasks = population_tasks(env_id)
    secs, outs = evaluate(None, tasks[:rollouts])
    return sum(o.steps for o in outs) / secs


def part2() -> None:
    print("(2) ES time per generation vs rollout time (serial rollouts of full episodes)")
    print(f"    {'task':<26} {'d':>5} {'N':>3} {'rollouts s':>10}  " + "  ".join(f"{m:>16}" for m in rl.METHODS))
    for env_id in TASKS:
        run = rl.PolicySearch(env_id, "fast-ingo", 0)
        d, n = run.policy.n_params, run.es.popsize
        sps = serial_steps_per_second(env_id, 2 if d > 1000 else 4)
        rollout = (n + 1) * run.max_steps / sps
        cells = []
        for method, (cls, params) in rl.METHODS.items():
            opt = getattr(es, cls)(np.zeros(d), 0.1, seed=1, popsize=n, max_evals=2 ** 62, convergence=False, **params)
            rng = np.random.default_rng(0)
            for _ in range(80):  # past ASEBO's warm-up (min(70, d) generations of plain ES)
                X = opt.ask()
                opt.tell(X, rng.standard_normal(len(X)))
            t = time.perf_counter()
            gens = 30
            for _ in range(gens):
                X = opt.ask()
                opt.tell(X, rng.standard_normal(len(X)))
            es_s = (time.perf_counter() - t) / gens
            cells.append(f"{es_s * 1e3:7.2f} ms {es_s / rollout:7.1e}")
        print(f"    {env_id:<26} {d:>5} {n:>3} {rollout:>10.2f}  " + "  ".join(f"{c:>16}" for c in cells))
    print("    (each method: ES ms per generation and its fraction of the rollout time)")


def part3(env_id: str, method: str, generations: int = 8) -> None:
    print(f"(3) {env_id}: {method}, reward vs wall-clock seconds")
    curves = {}
    for label, workers in [("sequential", 1), ("2 workers", 2)]:
        run = rl.PolicySearch(env_id, method, 7)
        ex = rl.make_executor("process", workers)
        t0 = time.perf_counter()
        pts = []
        for _ in range(generations):
            rec = run.step(ex)
            pts.append((time.perf_counter() - t0, rec.reward_of_mean, rec.best_reward))
        if ex is not None:
            ex.shutdown()
        curves[label] = pts
    print(f"    {'generation':>10} {'mean policy':>12} {'best so far':>12} {'sequential s':>13} {'2 workers s':>12}")
    for g, (a, b) in enumerate(zip(curves["sequential"], curves["2 workers"]), 1):
        assert a[1:] == b[1:], "parallel evaluation changed the rewards"
        print(f"    {g:>10} {a[1]:>12.1f} {a[2]:>12.1f} {a[0]:>13.1f} {b[0]:>12.1f}")
    print(f"    same rewards; wall-clock speed-up {curves['sequential'][-1][0] / curves['2 workers'][-1][0]:.2f}x "
          "(the 2-worker time includes the pool's start-up)")


def part4(env_id: str, methods, generations: int = 15, seeds: int = 3) -> None:
    print(f"(4) {env_id}, observation normalization: reward of the mean policy after {generations} generations, "
          f"mean ± std over {seeds} seeds")
    print(f"    {'method':<10} {'off':>18} {'on':>18}")
    ex = rl.make_executor("process", 2)
    try:
        for method in methods:
            cells = []
            for norm in [False, True]:
                finals = []
                for s in range(seeds):
                    run = rl.PolicySearch(env_id, method, 100 + s, obs_norm=norm)
                    for _ in range(generations):
                        rec = run.step(ex)
                    finals.append(rec.reward_of_mean)
                cells.append(f"{statistics.mean(finals):8.1f} ± {statistics.stdev(finals):6.1f}")
            print(f"    {method:<10} {cells[0]:>18} {cells[1]:>18}")
    finally:
        ex.shutdown()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", type=int, choices=[1, 2, 3, 4])
    ap.add_argument("--env", default="HalfCheetah-v5")
    ap.add_argument("--method", default="asebo", choices=list(rl.METHODS), help="the method of part (3)")
    ap.add_argument("--norm-methods", default="fast-ingo,asebo", help="the methods of part (4), comma-separated")
    a = ap.parse_args()
    if a.part in (None, 1):
        part1(a.env)
    if a.part in (None, 2):
        part2()
    if a.part in (None, 3):
        part3(a.env, a.method)
    if a.part in (None, 4):
        part4(a.env, a.norm_methods.split(","))


if __name__ == "__main__":
    main()
