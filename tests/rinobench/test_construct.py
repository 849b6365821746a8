"""Dataset construction (Section 4.1): pure stages, then the whole pipeline with the local model."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from noveval.benchmarks.rinobench import load_items
from noveval.benchmarks.rinobench.construct import (
    FIXED_BIN_EDGES,
    agreement_ok,
    bin_edges,
    bin_score,
    construct,
    has_numeric_score,
    mean_rating,
    parse_rating,
    stratified_split,
)
from noveval.errors import InputError

from .conftest import SAMPLES


@pytest.mark.parametrize(("v", "out"), [(3, 3), ("2: marginal", 2), ("N/A", None), (None, None), (5, None), ("0: x", None)])
def test_parse_rating(v: object, out: int | None) -> None:
    assert parse_rating(v) == out  # type: ignore[arg-type]


def test_agreement_filter_within_and_across() -> None:
    assert agreement_ok([2, 3], [3, 3])
    assert not agreement_ok([1, 3], [2])  # within technical
    assert not agreement_ok([3], [1, 3])  # within empirical
    assert not agreement_ok([2, 2], [3, 3, 1])
    assert not agreement_ok([2], [3, 4])
    assert agreement_ok([4], [])
    assert not agreement_ok([], [])


def test_mean_and_fixed_bins() -> None:
    assert mean_rating([2, 2], [2, 1]) == pytest.approx(1.75)
    assert [bin_score(v) for v in (1.0, 1.6, 1.61, 2.2, 2.5, 2.8, 3.0, 3.4, 3.5, 4.0)] == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert bin_edges([1.5, 3.0]) == list(FIXED_BIN_EDGES)


def test_blended_edges_match_formula() -> None:
    import numpy as np

    means = [1.0, 1.5, 2.0, 2.25, 2.5, 3.0, 3.0, 3.5, 4.0]
    e = bin_edges(means, binning="blended")
    ref = 0.7 * np.quantile(means, np.linspace(0, 1, 6)) + 0.3 * np.linspace(1, 4, 6)
    assert e == pytest.approx(ref.tolist())
    assert bin_score(min(means), e) == 1 and bin_score(max(means), e) == 5


def test_stratified_split() -> None:
    scores = [1] * 10 + [2] * 20 + [3] * 35 + [4] * 25 + [5] * 10
    train, test = stratified_split(scores, seed=3)
    assert len(test) == 20 and len(train) == 80 and not set(train) & set(test)
    c = Counter(scores[i] for i in test)
    assert c == {1: 2, 2: 4, 3: 7, 4: 5, 5: 2}
    assert stratified_split(scores, seed=3) == (train, test)
    tr, te = stratified_split([1, 3, 4, 5], test_size=0.2)
    assert len(te) == 1 and len(tr) == 3


def test_numeric_score_regex() -> None:
    assert has_numeric_score("Reviewers gave a novelty score of 3.")
    assert has_numeric_score("The idea is rated 4/5.")
    assert not has_numeric_score("We train 3 models on 2 datasets.")


def test_bad_records_raise_before_writing(tmp_path: Path) -> None:
    bad = tmp_path / "reviews.jsonl"
    bad.write_text('{"id": "a", "title": "t", "reviews": []}\n{"id": "b", "reviews": []}\n')
    with pytest.raises(InputError) as e:
        construct(bad, tmp_path / "out", model="local")
    assert ":2:" in str(e.value) and "title" in str(e.value)
    assert not (tmp_path / "out").exists()


@pytest.mark.integration
def test_construct_pipeline_with_local_model(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    # two papers reach the LLM stages (keeps the test short), two are filtered before
    lines = (SAMPLES / "reviews.jsonl").read_text().splitlines()
    sub = tmp_path / "reviews.jsonl"
    sub.write_text("\n".join(ln for ln in lines if json.loads(ln)["id"] in {"smp-a", "smp-c", "smp-e", "smp-f"}))
    m = construct(sub, out, model="local", check_grounding=False, max_tokens=200, test_size=0.5)
    assert m["counts"]["input_papers"] == 4
    assert m["drops"]["smp-e"] == "reviewer_disagreement"
    assert m["drops"]["smp-f"] == "too_few_related_works"
    # binned scores of every paper past the agreement filter (by hand, edges 1,1.6,2.2,2.8,3.4,4
    # right-closed): smp-a mean(2,2,2,1)=1.75 -> 2; smp-c mean(4,3,4,4)=3.75 -> 5; smp-f 2.0 -> 2
    assert m["scores"] == {"smp-a": 2, "smp-c": 5, "smp-f": 2}
    assert m["bin_edges"] == list(FIXED_BIN_EDGES)
    for name in ("train.json", "test.json", "label_descriptions.json", "manifest.json", "judgments.jsonl"):
        assert (out / name).exists()
    kept = json.loads((out / "train.json").read_text()) + json.loads((out / "test.json").read_text())
    assert len(kept) == m["counts"]["final"]
    if (out / "test.json").read_text().strip() != "[]":
        items = load_items(out / "test.json", require_gold=True)  # published format round-trips
        assert all(it.research_idea.objective for it in items)
    # every LLM reply is kept per paper, with the reason of any drop
    rows = [json.loads(x) for x in (out / "judgments.jsonl").read_text().splitlines()]
    assert {r["id"] for r in rows} == {"smp-a", "smp-c"}
    assert all(r["calls"] and r["calls"][0]["raw"] for r in rows)


def _construct_cli(tmp_path: Path, spec: str):
    from cli_helpers import cli

    lines = (SAMPLES / "reviews.jsonl").read_text().splitlines()
    sub = tmp_path / "reviews.jsonl"
    sub.write_text("\n".join(ln for ln in lines if json.loads(ln)["id"] in {"smp-a", "smp-c"}))
    return cli("rinobench", "construct", "-r", str(sub), "-o", str(tmp_path / "ds"), "-m", spec, "--skip-grounding")


def test_construct_command_checks_the_endpoint_first(tmp_path: Path) -> None:
    """``rinobench construct`` goes through the runner (issue 38): a refused endpoint is exit 2, nothing written."""
    from cli_helpers import closed_port

    res = _construct_cli(tmp_path, f"openai-compatible/m@http://127.0.0.1:{closed_port()}/v1")
    assert res.exit_code == 2, res.output
    assert "127.0.0.1" in res.stderr and not (tmp_path / "ds").exists()


def test_construct_command_with_unusable_answers_is_not_a_result(tmp_path: Path) -> None:
    """Answers no parser reads: the runner's unusable tally makes the command exit 3 (it printed counts, exit 0, before)."""
    from fake_openai import FakeOpenAIServer

    with FakeOpenAIServer(responder=lambda prompt: "I cannot help with that.") as server:
        res = _construct_cli(tmp_path, f"openai-compatible/m@{server.base_url}")
        assert server.total > 1
    assert res.exit_code == 3, res.output
    assert "not a result" in res.stderr and '"final"' not in res.stdout
