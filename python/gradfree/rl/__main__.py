"""``python -m gradfree.rl``: train, resume and replay policies (see :mod:`gradfree.rl`)."""
from __future__ import annotations

import json
import math
import os
import sys
import time
from typing import Optional, Sequence

from .. import _gradfree, _util
from ..errors import CheckpointError, GradfreeError, InvalidParameterError
from . import METHODS, Generation, PolicySearch, evaluate_policy, make_executor


def _progress_message(rec: Generation) -> str:
    """What the progress bar says after a generation."""
    rate = rec.steps / rec.eval_seconds if rec.eval_seconds > 0 else float("inf")
    mean = "" if rec.reward_of_mean is None else f"  policy {rec.reward_of_mean:.2f}"
    return f"best {rec.best_reward:.2f}{mean}  {rate:.0f} steps/s  ES {1000 * rec.es_seconds:.1f} ms"


def main(argv: Optional[Sequence[str]] = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m gradfree.rl", description="Policy search with gradfree's evolution strategies (thesis sec. 3.7.2)",
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", help="Gymnasium environment id, e.g. CartPole-v1, Pendulum-v1, HalfCheetah-v5")
    ap.add_argument("--method", default="fast-ingo", help=f"one of {', '.join(METHODS)} (default fast-ingo)")
    ap.add_argument("--generations", type=int, default=100, help="generations to run in all (default 100)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="rollout workers (default: the CPU count)")
    ap.add_argument("--executor", default="process", choices=["process", "ray", "serial"])
    ap.add_argument("--episodes", type=int, help="episodes per evaluation (default 1; with --replay 5)")
    ap.add_argument("--max-steps", type=int, help="steps per episode (default: the environment's limit)")
    ap.add_argument("--policy", default="mlp", choices=["mlp", "linear"], help="one hidden tanh layer (thesis) or linear (ARS)")
    ap.add_argument("--hidden", type=int, default=16, help="hidden units of the mlp policy (default 16, the thesis')")
    ap.add_argument("--popsize", type=int, help="evaluations per generation (default 20 + 4 floor(floor(3 ln d)/2))")
    ap.add_argument("--sigma0", type=float, default=0.1, help="initial (or fixed) noise scale (default 0.1, the thesis')")
    ap.add_argument("--obs-norm", action="store_true", help="normalize observations by running statistics (ARS V2)")
    ap.add_argument("--log", help="JSON-lines log of every generation (gradfree plot --linear draws it)")
    ap.add_argument("--checkpoint", help="checkpoint file, written atomically after every generation")
    ap.add_argument("--resume", help="resume a run from its checkpoint (its settings are kept)")
    ap.add_argument("--overwrite", action="store_true",
                    help="let a new run replace an existing --checkpoint (refused otherwise: it is another run's)")
    ap.add_argument("--save-policy", help="the best policy as .npz (default: <checkpoint or env>.policy.npz)")
    ap.add_argument("--replay", help="evaluate a saved policy instead of training")
    ap.add_argument("--render", help="with --replay: write the first episode's frames as PNGs into this folder")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    try:
        if a.replay:
            out = evaluate_policy(a.replay, episodes=5 if a.episodes is None else a.episodes, seed=a.seed, render_dir=a.render)
            print(json.dumps(out))
            return 0
        return _train(a)
    except (GradfreeError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


def _train(a) -> int:
    if a.resume:
        try:
            run = PolicySearch.load_checkpoint(a.resume)
        except CheckpointError as e:
            raise CheckpointError(f"--resume: not a gradfree.rl checkpoint: {e}") from None
    else:
        if not a.env:
            raise InvalidParameterError("give --env ID (or --resume FILE, or --replay FILE)")
        _util.count("generations", a.generations, 1)
        run = PolicySearch(a.env, a.method, a.seed, a.policy, a.hidden, 1 if a.episodes is None else a.episodes, a.max_steps, a.sigma0, a.popsize, a.obs_norm)
    checkpoint = a.checkpoint or a.resume
    policy_path = a.save_policy or f"{checkpoint or run.env_id}.policy.npz"
    # A resumed run keeps writing the log its checkpoint names unless --log says otherwise; one
    # that is gone is not re-created with the rest of the run only.
    log_path = a.log
    if a.resume and not a.log and run.log_path:
        if os.path.exists(run.log_path):
            log_path = run.log_path
            print(f"note: logging to {log_path} (the run's log; --log FILE to log elsewhere)", file=sys.stderr)
        else:
            print(f"note: the run's log {run.log_path} is gone; this part of the run is not logged (--log FILE logs it)",
                  file=sys.stderr)
    # The files this run writes are taken for it, as the command line takes its own: two runs on
    # one checkpoint, log or policy file are refused, and a new run does not replace another run's
    # checkpoint unless --overwrite.
    files = []
    if a.resume and a.checkpoint and not (os.path.exists(a.checkpoint) and os.path.samefile(a.resume, a.checkpoint)):
        files += [("input", "--resume", a.resume), ("checkpoint", "--checkpoint", a.checkpoint)]
    elif a.resume:
        files.append(("resumed", "--resume", a.resume))
    elif a.checkpoint:
        files.append(("checkpoint", "--checkpoint", a.checkpoint))
    if log_path:
        files.append(("log", "--log", log_path))
    files.append(("output", "--save-policy", policy_path))
    with _gradfree.FileClaim(files, a.overwrite):
        return _run(a, run, checkpoint, policy_path, log_path)


def _run(a, run: PolicySearch, checkpoint: Optional[str], policy_path: str, log_path: Optional[str]) -> int:
    run.log_path = os.path.abspath(log_path) if log_path else None
    # The core's log: a resumed run's log loses the records written after its checkpoint.
    log = _gradfree.RunLog(log_path, run.generation if a.resume else None, getattr(run, "run_id", None)) if log_path else None
    if log:
        log.start(json.dumps(run.start_line()))
    executor = make_executor(a.executor, a.workers)
    # The command line's progress bar (drawn on a terminal only).
    bar = None if a.quiet else _gradfree.Progress(a.generations, "{spinner} [{elapsed_precise}] {bar:24} gen {pos}/{len}  {msg}")
    if bar:
        bar.update(run.generation)
    t0 = time.perf_counter()
    try:
        while run.generation < a.generations:
            rec = run.step(executor)
            if rec is None:      # the evolution strategy stopped (diverged, say): end, keeping what was found
                break
            if log:
                log.generation(json.dumps(run.log_line(rec)))
            if checkpoint:
                run.save_checkpoint(checkpoint)
            if bar:
                bar.update(rec.generation, _progress_message(rec))
    except KeyboardInterrupt:
        print("\ninterrupted" + (f"; resume with --resume {checkpoint}" if checkpoint else ""))
    finally:
        if bar:
            bar.finish()
        if executor is not None:
            executor.shutdown()
    run.save_policy(policy_path)
    secs = time.perf_counter() - t0
    stopped = next(iter(run.es.stop()), None)
    if stopped is not None:
        print(f"warning: the evolution strategy stopped ({stopped}) after {run.generation} of {a.generations} generations: "
              f"{run.es.stop_message}", file=sys.stderr)
    summary = {"env": run.env_id, "method": run.method, "generations": run.generation, "parameters": run.policy.n_params,
               "popsize": run.es.popsize, "best_reward": run.best_reward, "total_steps": run.total_steps,
               "seconds": secs, "policy": policy_path, "checkpoint": checkpoint, "stop_reason": stopped,
               "message": run.es.stop_message or None}
    # Values that are not finite (no generation ran: best_reward -inf) are left out of the log's
    # last record and null in the printed summary (JSON has no -Infinity).
    if log:
        log.finish(json.dumps({k: v for k, v in summary.items() if not (isinstance(v, float) and not math.isfinite(v))}))
    print(json.dumps({k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in summary.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
