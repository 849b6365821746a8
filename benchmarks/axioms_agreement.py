"""Agreement of two axioms runs, e.g. the exact default against ``--semnovel approx
--fasttext approx`` on the same configuration.

For every metric in both runs: the fraction of equal pass/fail decisions per axiom and
over all checks (:func:`noveval.benchmarks.axioms.axioms.agreement`), the overall pass
rates of each run, and each run's metric time from ``scores.json`` (``timings_s``;
note that a run whose fits came from the fit cache reports cache-read time).

Usage: python benchmarks/axioms_agreement.py RUN_A RUN_B [--out result.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from noveval.benchmarks.axioms.axioms import AXIOMS, agreement
from noveval.io import read_jsonl


def load(run: Path) -> tuple[dict, dict]:
    rows = {r["id"]: r for r in read_jsonl(run / "per_item.jsonl")}
    return rows, json.loads((run / "scores.json").read_text())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("run_a", type=Path)
    ap.add_argument("run_b", type=Path)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    rows_a, sc_a = load(a.run_a)
    rows_b, sc_b = load(a.run_b)
    metrics = [m for m in sc_a["extra"]["table"]["overall"] if m in sc_b["extra"]["table"]["overall"]]
    res: dict = {"a": str(a.run_a), "b": str(a.run_b), "focal_in_both": len(rows_a.keys() & rows_b.keys())}
    for m in metrics:
        agr = agreement({i: r["checks"][m] for i, r in rows_a.items()},
                        {i: r["checks"][m] for i, r in rows_b.items()})
        res[m] = {
            "agreement": {k: v[0] for k, v in agr.items()}, "checks": {k: v[1] for k, v in agr.items()},
            "overall_a": sc_a["extra"]["table"]["overall"][m], "overall_b": sc_b["extra"]["table"]["overall"][m],
            "time_a_s": sc_a["extra"].get("timings_s", {}).get(m), "time_b_s": sc_b["extra"].get("timings_s", {}).get(m),
        }
        cells = " ".join(f"{ax}={'–' if agr[ax][0] is None else f'{100 * agr[ax][0]:.0f}'}" for ax in AXIOMS)
        print(f"{m}: agreement {100 * (agr['all'][0] or 0):.1f}% of {agr['all'][1]} checks; {cells}")
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
