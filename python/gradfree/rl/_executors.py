"""Where :mod:`gradfree.rl` runs its rollouts: a process pool, a Ray pool, or this process."""
from __future__ import annotations

from .. import _util
from ..errors import InvalidParameterError
from ._rollout import MissingDependencyError


def make_executor(kind: str, workers: int):
    """``"process"``: a process pool of ``workers``; ``"ray"``: Ray's multiprocessing ``Pool`` on a
    local (or ``RAY_ADDRESS``) cluster; ``"serial"``: ``None`` (this process)."""
    workers = _util.count("workers", workers, 1)
    if kind == "serial" or (kind == "process" and workers == 1):
        return None
    if kind == "process":
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    if kind == "ray":
        try:
            import ray
            from ray.util.multiprocessing import Pool
        except ImportError as e:
            raise MissingDependencyError(f"executor 'ray' needs Ray: pip install ray ({e})") from None
        started = not ray.is_initialized()
        return _RayPool(Pool(workers), ray if started else None)
    raise InvalidParameterError(f"executor: expected process, ray or serial, got {kind!r}")


class _RayPool:
    """Ray's Pool with the ``map``/``shutdown`` of a ``concurrent.futures`` executor; shutting
    it down also stops the local Ray instance the pool started (so a later pool of another size
    starts afresh), never a cluster it joined."""

    def __init__(self, pool, started_ray=None):
        self.pool = pool
        self.started_ray = started_ray

    def map(self, fn, items):
        return self.pool.map(fn, list(items))

    def shutdown(self, wait=True):
        self.pool.terminate()
        if self.started_ray is not None:
            self.started_ray.shutdown()
            self.started_ray = None
