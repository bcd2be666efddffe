"""Test functions under pycma's names (``cma.ff``), so that pycma's examples run with
``import gradfree.es as cma``: ``gradfree.es.ff.rosen`` etc. Written from the textbook formulas
(Hansen's CMA-ES test suite; pycma's ``cma.fitness_functions`` has the same definitions), for one
point ``x`` of shape (d,); each returns a float. Also importable as ``gradfree.es.ff`` and
``gradfree.es.fitness_functions`` (``from gradfree.es.fitness_functions import elli``).
"""
from __future__ import annotations

import numpy as np

__all__ = ["sphere", "elli", "cigar", "tablet", "rosen", "grad_rosen", "rastrigin", "somenan"]


def _vec(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64).ravel()


def sphere(x) -> float:
    """Sphere, ``sum(x_i^2)``."""
    x = _vec(x)
    return float(np.dot(x, x))


def elli(x, cond: float = 1e6) -> float:
    """Ellipsoid, ``sum(cond^((i-1)/(d-1)) x_i^2)`` (condition number ``cond``; ``x_1^2`` in 1-D)."""
    x = _vec(x)
    d = x.size
    if d == 1:
        return float(x[0] ** 2)
    return float(np.sum(cond ** (np.arange(d) / (d - 1.0)) * x * x))


def cigar(x, cond: float = 1e6) -> float:
    """Cigar, ``x_1^2 + cond * sum_{i>1} x_i^2``."""
    x = _vec(x)
    return float(x[0] ** 2 + cond * np.dot(x[1:], x[1:]))


def tablet(x, cond: float = 1e6) -> float:
    """Tablet, ``cond * x_1^2 + sum_{i>1} x_i^2``."""
    x = _vec(x)
    return float(cond * x[0] ** 2 + np.dot(x[1:], x[1:]))


def rosen(x, alpha: float = 1e2) -> float:
    """Rosenbrock, ``sum_{i<d} alpha (x_i^2 - x_{i+1})^2 + (1 - x_i)^2`` (minimum 0 at all ones)."""
    x = _vec(x)
    return float(np.sum(alpha * (x[:-1] ** 2 - x[1:]) ** 2 + (1.0 - x[:-1]) ** 2))


def grad_rosen(x, *args) -> np.ndarray:
    """Gradient of ``rosen`` (``alpha = 100``)."""
    x = _vec(x)
    g = np.zeros_like(x)
    t = x[:-1] ** 2 - x[1:]
    g[:-1] = 400.0 * x[:-1] * t - 2.0 * (1.0 - x[:-1])
    g[1:] += -200.0 * t
    return g


def rastrigin(x) -> float:
    """Rastrigin, ``10 d + sum(x_i^2 - 10 cos(2 pi x_i))`` (minimum 0 at the origin)."""
    x = _vec(x)
    return float(10.0 * x.size + np.sum(x * x - 10.0 * np.cos(2.0 * np.pi * x)))


def somenan(x, fun, p: float = 0.1) -> float:
    """``fun(x)``, or NaN with probability ``p`` (drawn from ``numpy.random``), as pycma's
    ``ff.somenan``: an objective that sometimes fails."""
    if np.random.rand() < p:
        return np.nan  # the object np.nan: pycma's examples test `f in (None, np.nan)`
    return fun(x)
