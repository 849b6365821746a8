"""The transcribed published rows (issue 29) against the paper texts in ../shared/seeds/.

Every row carries the number as printed (``printed``); it must appear in the paper text
within its table (the lines around the table's caption), on a line that names the row's
model where the table prints model names on its rows, and ``value`` must be ``printed``
on scores.json's scale (as printed, or divided by 100 for percentages).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from noveval.benchmarks import BENCHMARKS
from noveval.benchmarks._benchmark import published_rows

SEEDS = Path(__file__).resolve().parents[2].parent / "shared" / "seeds"
SEED_OF = {"novbench": "000_c0472c20e276c434.txt", "rinobench": "001_9cd95c0d65cd3d41.txt",
           "focus": "002_351465a7da69f6e9.txt", "axioms": "003_1f4de31ceaa2d369.txt",
           "claimcheck": "004_a9d5f2edb8b15f5c.txt"}
WINDOW = 45  # lines around a caption that hold its table (captions come before or after their tables)


def _lines(name: str) -> list[str]:
    f = SEEDS / SEED_OF[name]
    if not f.is_file():
        pytest.skip(f"the paper text {f} is absent (../shared/seeds is not in a fresh clone)")
    return f.read_text(encoding="utf-8").splitlines()


def _caption(lines: list[str], table: str) -> int:
    hits = [i for i, line in enumerate(lines) if line.startswith(f"{table}:")]
    assert hits, f"no caption '{table}:' in the paper text"
    return hits[0]


def _tokens(line: str) -> list[str]:
    return re.findall(r"-?\d+(?:\.\d+)?", re.sub(r"</?[bu]>", "", line))


@pytest.mark.parametrize("name", sorted(SEED_OF))
def test_every_published_cell_is_in_the_paper_text(name: str) -> None:
    lines = _lines(name)
    rows = published_rows(BENCHMARKS[name])
    assert rows
    checked = 0
    for row in rows:
        printed = str(row["printed"])
        v = float(printed)
        assert row["value"] == pytest.approx(v) or row["value"] == pytest.approx(v / 100), row
        c = _caption(lines, row["table"])
        window = lines[max(0, c - WINDOW): c + WINDOW]
        model = str(row["model"]).lower()
        named = [ln for ln in window if model in ln.lower()]
        pool = named or window  # tables printing only numbers (CLAIMCHECK Tables 5, 6)
        assert any(printed in _tokens(ln) for ln in pool), f"{row['table']} {row['model']} {row['metric']} {printed}"
        checked += 1
    assert checked == len(rows)


def test_rinobench_table_3_in_the_papers_column_order() -> None:
    """Each model's 14 numbers are its Table 3 line, in the paper's column order."""
    lines = _lines("rinobench")
    order = ["f1_macro", "f1_1", "f1_2", "f1_3", "f1_4", "f1_5", "mean_absolute_error", "mean_alignment",
             "mean_known_aspects_recall", "mean_novelty_aspects_recall", "mean_additional_known_aspects_ratio",
             "mean_additional_novelty_aspects_ratio", "mean_known_aspects_hallucination_rate",
             "mean_novelty_aspects_hallucination_rate"]
    rows = published_rows(BENCHMARKS["rinobench"])
    models = list(dict.fromkeys(r["model"] for r in rows))
    assert len(models) == 7 and len(rows) == 7 * 14
    for m in models:
        line = next(ln for ln in lines if ln.startswith(f"| {m} |"))
        got = {r["metric"]: r["printed"] for r in rows if r["model"] == m}
        assert [got[k] for k in order] == _tokens(line.split("|", 2)[2]), m


def test_a_sample_of_cells_by_hand() -> None:
    """Cells read off the papers by eye (scores.json scale)."""
    want = {
        ("rinobench", "GPT-5", "f1_macro"): 0.172,
        ("rinobench", "GPT-5", "mean_absolute_error"): 0.93,
        ("rinobench", "o3", "mean_novelty_aspects_recall"): 0.856,
        ("focus", "gpt-4o (FT)", "kl_mean"): 0.022,
        ("focus", "DeepSeek-R1", "f1_overall"): 0.373,
        ("axioms", "RND", "RND"): 71.5,
        ("axioms", "SemNovel", "SemNovel"): 46.5,
        ("claimcheck", "GPT-4o", "alpha_novelty"): 0.739,
        ("claimcheck", "GPT-4o", "win"): 0.2,
    }
    for (system, model, metric), value in want.items():
        rows = [r for r in published_rows(BENCHMARKS[system], metric=metric, detail=False) if r["model"] == model]
        assert [r["value"] for r in rows] == [pytest.approx(value)], (system, model, metric)
    gpt4o = published_rows(BENCHMARKS["novbench"], metric="relevance", scores={"extra": {"prompting": "zero-shot"}})
    assert {(r["model"], r["table"], r["value"]) for r in gpt4o} >= {("GPT-4o", "Table 2", 3.6983),
                                                                      ("GPT-4o", "Table 4", 3.762),
                                                                      ("Human", "Table 2", 2.7899)}
    assert all(r["match"]["prompting"] == "zero-shot" for r in gpt4o)


def test_every_row_names_its_dataset_and_protocol_and_a_data_file_an_eval_reads() -> None:
    """Issue 37: each row says what it was measured on, so tables show it only beside runs on the same data."""
    from noveval.benchmarks.claimcheck.suite import ANNOTATIONS
    from noveval.benchmarks.novbench.suite import RECORDS
    from noveval.benchmarks.rinobench.suite import GOLD

    read = {RECORDS.as_posix(), GOLD.as_posix(), ANNOTATIONS.as_posix()}  # the files the systems' evals read
    files = set()
    for bench in BENCHMARKS.values():
        for row in published_rows(bench):
            assert row.get("dataset") and row.get("protocol") == "paper", (bench.name, row)
            if row.get("data_file"):
                files.add(row["data_file"])
    assert files == read
    novbench = {r["table"]: r for r in published_rows(BENCHMARKS["novbench"])}
    assert "data_file" not in novbench["Table 2"] and novbench["Table 4"]["data_file"] == "novbench/coling2020.json"
