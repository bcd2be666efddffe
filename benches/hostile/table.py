"""The Markdown table of a generated hostile pass, from its stored record.

    python benches/hostile/table.py benches/results/hostile_generated_SEED.tsv

The record is `generate.py`'s ``cases.jsonl`` cut to the columns id, kind, front end and verdict
(``store`` below writes it from a work folder:
``python benches/hostile/table.py --store WORK/cases.jsonl benches/results/hostile_generated_SEED.tsv``).
docs/reliability.md holds the table this prints, between the lines ``<!-- hostile-generated RECORD -->``
and ``<!-- /hostile-generated -->``; ``python/tests/test_docs.py`` checks that they agree.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from collections import Counter, defaultdict

#: Kinds in the order of the table (generate.py's KINDS, then the fixed regression cases).
KINDS = ("stdio", "limits", "concurrent", "pickles", "degenerate", "params", "pyapi", "logs", "regression")
#: Verdict groups: (column title, verdicts).
GROUPS = (("clear error", ("ok-error",)), ("success, check held", ("ok-success",)),
          ("panic, abort, hang, silent wrong, damaged file", ("panic", "abort", "hang", "limit-death", "two-owners",
                                                              "damaged-file", "temp-file-left", "silent-wrong-result",
                                                              "unexpected-error", "setup-failed")),
          ("wrong message", ("wrong-message",)), ("skipped", ("skipped",)))


def load(path: str) -> list[dict]:
    """The rows of a stored record (id, kind, front_end, verdict)."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def store(cases_jsonl: str, out: str) -> None:
    """Cut generate.py's cases.jsonl to the stored record: id, kind, front end (``cli:COMMAND`` or
    ``py:NAME``, Python where the reproduction runs a Python snippet) and verdict."""
    rows = []
    with open(cases_jsonl) as f:
        for line in f:
            c = json.loads(line)
            py = "import gradfree" in c["repro"] or "from gradfree" in c["repro"]
            rows.append([c["id"], c["kind"], ("py:" if py else "cli:") + c["label"], c["verdict"]])
    tmp = f"{out}.tmp-{os.getpid()}"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["id", "kind", "front_end", "verdict"])
        w.writerows(rows)
    os.replace(tmp, out)


def _scope(labels: Counter) -> str:
    cli = sorted(x[4:] for x in labels if x.startswith("cli:"))
    py = sorted(x[3:] for x in labels if x.startswith("py:"))
    parts = []
    if cli:
        parts.append("CLI: " + ", ".join(f"`{x}`" for x in cli))
    if py:
        shown = ", ".join(f"`{x}`" for x in py[:5])
        parts.append("Python: " + shown + (f" and {len(py) - 5} more" if len(py) > 5 else ""))
    return "; ".join(parts)


def table(rows: list[dict]) -> str:
    """The Markdown table: one row per kind (its cases, front ends and verdicts), then the total."""
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(r)
    unknown = sorted(set(by_kind) - set(KINDS))
    head = "| kind | cases | front ends | " + " | ".join(t for t, _ in GROUPS) + " |"
    lines = [head, "|" + "---|" * (3 + len(GROUPS))]
    for kind in [k for k in KINDS if k in by_kind] + unknown:
        rs = by_kind[kind]
        v = Counter(r["verdict"] for r in rs)
        counts = [sum(v[x] for x in vs) for _, vs in GROUPS]
        name = "regression (fixed cases of cases/round2.py)" if kind == "regression" else kind
        lines.append(f"| {name} | {len(rs)} | {_scope(Counter(r['front_end'] for r in rs))} | "
                     + " | ".join(str(c) for c in counts) + " |")
    v = Counter(r["verdict"] for r in rows)
    lines.append(f"| total | {len(rows)} | | " + " | ".join(str(sum(v[x] for x in vs)) for _, vs in GROUPS) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("record", nargs="+", help="a stored record (or, with --store, cases.jsonl then the record)")
    ap.add_argument("--store", action="store_true", help="write the record from a work folder's cases.jsonl")
    a = ap.parse_args(argv)
    if a.store:
        if len(a.record) != 2:
            ap.error("--store takes WORK/cases.jsonl and the record to write")
        store(*a.record)
        return 0
    print(table([r for p in a.record for r in load(p)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
