"""The experiments of ``gradfree reproduce``, from Python.

``experiments.list()`` names them; ``experiments.run(name, quick=True)`` runs one in Rust and
returns a :class:`Report`: its tables (the CSVs ``gradfree reproduce`` writes), its figures as
data (line charts of ``(x, y)`` series, heat maps) and its notes. Finished optimization runs are
kept in ``<out>/<name>/runs/`` as the command line keeps them, so a rerun reuses them.

    from gradfree import experiments
    rep = experiments.run("qmc-integration", quick=True)
    print(rep.tables[0])            # Fig. 5.1's errors, as the CLI prints them
    rep.plot("fig.png")             # the figure, with matplotlib (if installed)
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from . import _gradfree, _util
from .errors import InvalidParameterError


@dataclass
class Table:
    """A table of an experiment, as ``gradfree reproduce`` prints it and writes its CSV.

    Attributes
    ----------
    title : str
        What the table shows (and which table of which work it reproduces).
    slug : str
        The stem of its CSV file.
    headers : list of str
        Column names.
    rows : list of list of str
        Formatted cells.
    """

    title: str
    slug: str
    headers: List[str]
    rows: List[List[str]]

    def __str__(self) -> str:
        widths = [max(len(h), *(len(r[i]) for r in self.rows)) if self.rows else len(h) for i, h in enumerate(self.headers)]
        line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths))  # noqa: E731
        return "\n".join([self.title, line(self.headers), "  ".join("-" * w for w in widths), *map(line, self.rows)])

    def to_records(self) -> List[Dict[str, str]]:
        """The rows as dicts keyed by header (``pandas.DataFrame(table.to_records())``)."""
        return [dict(zip(self.headers, r)) for r in self.rows]


@dataclass
class Report:
    """What an experiment produced.

    Attributes
    ----------
    name : str
        The experiment.
    tables : list of Table
        Its tables.
    figures : list of dict
        Its figures as data: ``kind`` ``"charts"`` with ``charts`` of ``title``, ``x_label``,
        ``y_label``, ``log_y`` and ``series`` of ``label`` and ``points``; or ``kind``
        ``"heatmaps"``.
    notes : list of str
        What was measured, chosen or corrected, in sentences.
    """

    name: str
    tables: List[Table] = field(default_factory=list)
    figures: List[dict] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)

    def plot(self, path: Optional[str] = None, index: int = 0):
        """Draws figure ``index`` with matplotlib (saved to ``path`` if given); returns the figure."""
        import matplotlib.pyplot as plt

        fig_data = self.figures[index]
        if fig_data["kind"] != "charts":
            raise InvalidParameterError(f"index: figure {index} is a {fig_data['kind']} figure; only line charts are drawn here")
        charts, cols = fig_data["charts"], max(1, fig_data["cols"])
        rows = -(-len(charts) // cols)
        fig, axes = plt.subplots(rows, cols, figsize=(6 * cols, 4.2 * rows), squeeze=False)
        for ax, chart in zip(axes.flat, charts):
            for s in chart["series"]:
                xs, ys = zip(*s["points"]) if s["points"] else ((), ())
                ax.plot(xs, ys, label=s["label"])
            ax.set(title=chart["title"], xlabel=chart["x_label"], ylabel=chart["y_label"])
            if chart["log_y"]:
                ax.set_yscale("log")
            ax.legend(fontsize=8)
        fig.tight_layout()
        if path is not None:
            fig.savefig(path)
        return fig


def list() -> List[dict]:  # noqa: A001 (the natural name in this namespace)
    """The experiments: dicts with ``name``, ``source`` (what it reproduces) and ``summary``."""
    return json.loads(_gradfree.registries_json())["experiments"]


def run(name: str, quick: bool = False, seed: int = 0, runs: Optional[int] = None, out: str = "out",
        reuse_runs: bool = True) -> Report:
    """Runs an experiment of ``gradfree reproduce`` in Rust.

    Parameters
    ----------
    name : str
        One of :func:`list`'s names.
    quick : bool, default False
        Small budgets (seconds), as ``--quick``.
    seed : int, default 0
        Base seed.
    runs : int, optional
        Runs per method (default: the document's).
    out : str, default "out"
        Finished optimization runs are kept under ``<out>/<name>/runs`` and reused.
    reuse_runs : bool, default True
        ``False`` recomputes them.

    Returns
    -------
    Report
    """
    if runs is not None:
        runs = _util.count("runs", runs, 1)
    folder = os.path.join(os.fspath(out), name)
    raw = json.loads(_gradfree.run_experiment(name, folder, bool(quick), _util.seed(seed), runs, bool(reuse_runs)))
    return Report(name, [Table(**t) for t in raw["tables"]], raw["figures"], raw["notes"])


__all__ = ["Report", "Table", "list", "run"]
