"""Policy search (gradfree.rl): reproducible rollouts whatever the worker count, the policy
network against a hand-written reference, resume, a classic-control task that improves, and clear
errors for missing packages."""
import importlib.util
import math
import pickle

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

import gradfree  # noqa: E402
from gradfree import _gradfree, rl  # noqa: E402
from gradfree.rl.__main__ import main as rl_main  # noqa: E402


def test_thesis_population_and_policy_shapes():
    # N = 20 + 4 floor(floor(3 ln d)/2): d = 114 -> floor(14.2) = 14 -> 20 + 28 = 48.
    assert rl.thesis_population(114) == 48
    assert rl.thesis_population(3) == 20 + 4 * (math.floor(3 * math.log(3)) // 2)
    spec = rl.PolicySpec("mlp", obs_dim=5, act_dim=2, hidden=3, low=(-1.0, -1.0), high=(1.0, 1.0))
    assert spec.n_params == 3 * 5 + 3 + 2 * 3 + 2
    rng = np.random.default_rng(0)
    p = rng.normal(size=spec.n_params)
    s = rng.normal(size=5)
    # Hand-written reference: h = tanh(W1 s + b1), out = W2 h + b2, with the documented layout.
    W1, b1 = p[:15].reshape(3, 5), p[15:18]
    W2, b2 = p[18:24].reshape(2, 3), p[24:26]
    ref = W2 @ np.tanh(W1 @ s + b1) + b2
    assert np.allclose(spec.forward(p, s), ref, rtol=0, atol=1e-14)
    assert np.allclose(spec.act(p, s), np.clip(ref, -1, 1))
    lin = rl.PolicySpec("linear", obs_dim=5, act_dim=2)
    assert lin.n_params == 10
    assert np.allclose(lin.forward(p[:10], s), p[:10].reshape(2, 5) @ s)
    disc = rl.PolicySpec("mlp", obs_dim=4, act_dim=2, hidden=16, discrete=True)
    env = gym.make("CartPole-v1")
    assert rl.policy_for(env, "mlp", 16) == disc and disc.n_params == 114
    assert disc.act(np.ones(114), np.zeros(4)) in (0, 1)
    with pytest.raises(gradfree.InvalidParameterError, match="policy"):
        rl.PolicySpec("cnn", 4, 2)


def _history(run):
    return [(g.reward_mean, g.reward_max, g.reward_of_mean, g.steps) for g in run.history]


def test_same_seed_same_rewards_with_one_and_two_workers():
    def go(executor):
        run = rl.PolicySearch("CartPole-v1", "fast-ingo", seed=3, popsize=8, max_steps=200, episodes=2)
        for _ in range(3):
            run.step(executor)
        return _history(run), run.es.mean.copy()
    serial = go(None)
    pool = rl.make_executor("process", 2)
    try:
        two = go(pool)
    finally:
        pool.shutdown()
    assert serial[0] == two[0]
    assert np.array_equal(serial[1], two[1])
    # Ray pools of one and then two workers in one process (the first pool's local Ray instance
    # must not pin the second to one CPU) give the same rewards as well.
    if importlib.util.find_spec("ray") is not None:
        for workers in (1, 2):
            ray_pool = rl.make_executor("ray", workers)
            try:
                assert go(ray_pool)[0] == serial[0]
            finally:
                ray_pool.shutdown()
    other = rl.PolicySearch("CartPole-v1", "fast-ingo", seed=4, popsize=8, max_steps=200, episodes=2)
    other.step(None)
    assert _history(other)[0] != serial[0][0]


def test_checkpoint_resumes_exactly(tmp_path):
    full = rl.PolicySearch("Pendulum-v1", "asebo", seed=1, popsize=6, max_steps=50, obs_norm=True)
    for _ in range(4):
        full.step()
    half = rl.PolicySearch("Pendulum-v1", "asebo", seed=1, popsize=6, max_steps=50, obs_norm=True)
    for _ in range(2):
        half.step()
    path = tmp_path / "run.ckpt"
    path.write_bytes(pickle.dumps(half))
    resumed = pickle.loads(path.read_bytes())
    for _ in range(2):
        resumed.step()
    assert _history(resumed) == _history(full)
    assert np.array_equal(resumed.es.mean, full.es.mean)


def test_checkpoint_files_are_gradfree_checkpoints(tmp_path):
    """The runner's checkpoint is the core's format (as gradfree optimize --checkpoint): a loaded
    run continues bit for bit, and a corrupt or foreign file is a CheckpointError."""
    import json
    full = rl.PolicySearch("Pendulum-v1", "fast-ingo", seed=2, popsize=6, max_steps=40, obs_norm=True)
    half = rl.PolicySearch("Pendulum-v1", "fast-ingo", seed=2, popsize=6, max_steps=40, obs_norm=True)
    for _ in range(4):
        full.step()
    for _ in range(2):
        half.step()
    path = tmp_path / "run.ckpt"
    half.save_checkpoint(str(path))
    doc = json.loads(path.read_text())
    assert doc["format"] == "gradfree-checkpoint" and doc["checksum"].startswith("crc32:")
    assert doc["meta"]["caller"]["kind"] == "gradfree.rl" and doc["optimizer"]["algorithm"] == "fast-ingo"
    resumed = rl.PolicySearch.load_checkpoint(str(path))
    for _ in range(2):
        resumed.step()
    assert _history(resumed) == _history(full)
    assert np.array_equal(resumed.es.mean, full.es.mean) and resumed.stats.n == full.stats.n
    doc["meta"]["caller"]["state"]["total_steps"] += 1          # any edit breaks the checksum
    path.write_text(json.dumps(doc))
    with pytest.raises(gradfree.CheckpointError, match="checksum"):
        rl.PolicySearch.load_checkpoint(str(path))
    other = tmp_path / "es.ckpt"
    es = gradfree.CMAES(np.zeros(3), 0.5, seed=1)
    es._run.save_checkpoint(str(other), json.dumps({"kind": "something else"}))
    with pytest.raises(gradfree.CheckpointError, match="not a gradfree.rl checkpoint"):
        rl.PolicySearch.load_checkpoint(str(other))


@pytest.mark.parametrize("method", ["fast-ingo", "ars"])
def test_cartpole_improves_in_a_small_budget(method):
    # The mean policy starts near zero parameters (reward about 9-10: it always pushes one way).
    run = rl.PolicySearch("CartPole-v1", method, seed=0, max_steps=500, episodes=2, popsize=16)
    first = None
    for _ in range(25):
        g = run.step()
        first = g.reward_of_mean if first is None else first
    last = np.mean([g.reward_of_mean for g in run.history[-5:]])
    assert first < 50 and last > 4 * first, f"{method}: mean-policy reward {first} -> {last}"


def test_command_line_runs_logs_and_replays(tmp_path, capsys):
    log, ck, pol = tmp_path / "run.jsonl", tmp_path / "run.ckpt", tmp_path / "best.npz"
    args = ["--env", "CartPole-v1", "--method", "openai-es", "--generations", "3", "--workers", "1", "--popsize", "6",
            "--max-steps", "100", "--log", str(log), "--checkpoint", str(ck), "--save-policy", str(pol), "--quiet"]
    assert rl_main(args) == 0
    # A record written after the last checkpoint (a run killed before its next checkpoint) is
    # dropped when the run resumes: the log reads as the uninterrupted run's.
    import json
    last = [l for l in log.read_text().splitlines() if '"type":"generation"' in l][-1]
    with open(log, "a") as f:
        f.write(last.replace('"generation":3', '"generation":4') + "\n")
    # Without --log, the resumed run keeps writing the log its checkpoint names.
    capsys.readouterr()
    assert rl_main(["--resume", str(ck), "--generations", "5", "--quiet"]) == 0
    assert f"logging to {log} (the run's log" in capsys.readouterr().err
    records = [json.loads(l) for l in log.read_text().splitlines()]
    assert [r["generation"] for r in records if r["type"] == "generation"] == [1, 2, 3, 4, 5]
    assert [r["type"] for r in records].count("finish") == 2 and records[0]["type"] == "start"
    assert all(r["best_f"] == -r["best_reward"] for r in records if r["type"] == "generation")
    capsys.readouterr()
    assert rl_main(["--replay", str(pol), "--episodes", "3"]) == 0
    out = capsys.readouterr().out
    assert '"episodes": 3' in out
    assert rl_main(["--replay", str(pol), "--episodes", "1"]) == 0
    assert '"episodes": 1' in capsys.readouterr().out
    # Frames need a renderer (pygame for classic control): either PNG frames or one clear error.
    frames = tmp_path / "frames"
    code = rl_main(["--replay", str(pol), "--episodes", "1", "--render", str(frames)])
    if code == 0:
        assert len(list(frames.glob("frame*.png"))) >= 1
    else:
        assert code == 2 and "needs a working renderer" in capsys.readouterr().err
    for bad, needle in [(["--env", "NoSuchEnv-v0", "--quiet"], "unknown Gymnasium environment"),
                        (["--env", "CartPole-v1", "--method", "sgd", "--quiet"], "method"),
                        (["--env", "CartPole-v1", "--episodes", "0", "--quiet"], "episodes"),
                        (["--resume", str(log), "--quiet"], "not a gradfree.rl checkpoint")]:
        assert rl_main(bad) == 2
        assert needle in capsys.readouterr().err


def test_command_line_owns_its_files(tmp_path, capsys):
    """Two runs on one checkpoint cannot both write it, and a new run does not replace another
    run's checkpoint unless --overwrite, as with the command line's runs."""
    import subprocess, sys
    ck, pol = tmp_path / "run.ckpt", tmp_path / "run.npz"
    args = ["--env", "CartPole-v1", "--method", "openai-es", "--generations", "1", "--workers", "1", "--popsize", "4",
            "--max-steps", "20", "--checkpoint", str(ck), "--save-policy", str(pol), "--quiet"]
    assert rl_main(args) == 0
    before = ck.read_bytes()
    capsys.readouterr()
    assert rl_main(args) == 2
    assert "exists already" in capsys.readouterr().err and ck.read_bytes() == before
    # Another process holding the checkpoint (a run in progress): refused, naming that process.
    holder = subprocess.Popen([sys.executable, "-c",
                               "import sys; from gradfree import _gradfree\n"
                               f"c = _gradfree.FileClaim([('resumed', '--resume', {str(ck)!r})])\n"
                               "print('held', flush=True); sys.stdin.read()"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert rl_main(args + ["--overwrite"]) == 2
        err = capsys.readouterr().err
        assert f"in use by another run (process {holder.pid})" in err, err
        assert rl_main(["--resume", str(ck), "--generations", "2", "--quiet"]) == 2
        assert "in use by another run" in capsys.readouterr().err and ck.read_bytes() == before
    finally:
        holder.stdin.close()
        holder.wait()
    # Once the other run has ended, the file is free again (and its lock file gone).
    assert rl_main(args + ["--overwrite"]) == 0
    assert not list(tmp_path.glob(".*.lock"))
    with pytest.raises(gradfree.InvalidParameterError, match="role"):
        _gradfree.FileClaim([("temp", "--x", str(ck))])


def test_missing_mujoco_names_the_package(monkeypatch):
    import importlib.util
    if importlib.util.find_spec("mujoco") is None:      # the real thing, where MuJoCo is absent
        with pytest.raises(rl.MissingDependencyError, match=r'gymnasium\[mujoco\]'):
            rl.make_env("Swimmer-v5")
    def fail(*a, **k):
        raise gym.error.DependencyNotInstalled("No module named 'mujoco'")
    monkeypatch.setattr(gym, "make", fail)
    with pytest.raises(rl.MissingDependencyError, match=r'gymnasium\[mujoco\]'):
        rl.make_env("HalfCheetah-v5")
    assert issubclass(rl.MissingDependencyError, ImportError)
