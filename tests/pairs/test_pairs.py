"""novelty-pairs: pair construction on a hand-made fixture, parsing, hand-computed metrics,
and a run through a real HTTP server (tests/fake_openai.py) with scripted answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fake_openai import FakeOpenAIServer
from noveval.benchmarks.pairs.data import (
    Pair,
    PairSide,
    build_pairs,
    load_neurips,
    neurips_pairs,
    rinobench_sides,
    sample_pairs,
)
from noveval.benchmarks.pairs.task import parse_choice, score_pairs
from noveval.errors import InputError


def _paper(pid: str, keywords: list[str], orig: list[int]) -> dict:
    return {"id": pid, "title": f"Title {pid}", "abstract": f"Abstract {pid}.", "keywords": keywords,
            "reviews": [{"text": "", "scores": {"originality": o, "clarity": 3}} for o in orig]}


@pytest.fixture
def neurips_file(tmp_path: Path) -> Path:
    rows = [
        _paper("p1", ["RL"], [4, 4]),            # mean 4
        _paper("p2", ["rl ", "GNN"], [2, 2]),    # mean 2; 'rl ' normalises to 'rl'
        _paper("p3", ["gnn"], [3, 2]),           # mean 2.5
        _paper("p4", ["rl"], [3]),               # one review: dropped at min_reviews=2
        _paper("p5", ["vision"], [1, 1]),        # no partner sharing a keyword
        _paper("p6", [], [4, 4]),                # no keywords: dropped
    ]
    f = tmp_path / "neurips.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return f


def _ids(cands: list) -> set[tuple[str, str, str]]:
    return {(x.id, y.id, k) for x, y, k in cands}


def test_neurips_candidates_by_hand(neurips_file: Path) -> None:
    papers = load_neurips(neurips_file)
    assert [(s.id, s.gold) for s, _ in papers] == [("p1", 4.0), ("p2", 2.0), ("p3", 2.5), ("p5", 1.0)]
    # p1-p2 share 'rl' (|4-2| = 2); p2-p3 share 'gnn' but differ by 0.5 only
    assert _ids(neurips_pairs(papers)) == {("p1", "p2", "rl")}
    assert _ids(neurips_pairs(papers, min_diff=0.5)) == {("p1", "p2", "rl"), ("p2", "p3", "gnn")}
    # with single-review papers p4 (3.0) joins 'rl': p1-p4 and p2-p4 differ by exactly 1
    more = load_neurips(neurips_file, min_reviews=1)
    assert _ids(neurips_pairs(more)) == {("p1", "p2", "rl"), ("p1", "p4", "rl"), ("p2", "p4", "rl")}


def test_sampling_never_reuses_an_item_and_is_seeded(neurips_file: Path) -> None:
    cands = neurips_pairs(load_neurips(neurips_file, min_reviews=1))
    for seed in range(10):
        pairs = sample_pairs(cands, kind="paper", seed=seed)
        assert len(pairs) == 1  # all three candidates share an item, so only one fits
        p = pairs[0]
        assert p.gold == ("a" if p.a.gold > p.b.gold else "b") and p.area == "rl"
        assert sample_pairs(cands, kind="paper", seed=seed) == pairs
    sides = [PairSide(id=f"s{i:02d}", text=f"idea {i}", gold=float(i)) for i in range(40)]
    all_pairs = [(x, y, None) for i, x in enumerate(sides) for y in sides[i + 1:]]
    pairs = sample_pairs(all_pairs, kind="research idea", seed=3)
    used = [s for p in pairs for s in (p.a.id, p.b.id)]
    assert len(pairs) == 20 and len(set(used)) == 40
    assert 5 <= sum(p.gold == "a" for p in pairs) <= 15, "the gold side is drawn into slot a about half the time"
    assert len(sample_pairs(all_pairs, kind="research idea", seed=3, limit=7)) == 7


def test_rinobench_sample_gives_two_pairs_with_gold() -> None:
    from noveval.benchmarks._contract import sample_file

    sides = rinobench_sides(sample_file("rinobench", "test.json"))
    assert sorted(s.gold for s in sides) == [2.0, 3.0, 4.0, 5.0]
    assert "Problem statement:" in sides[0].text and "Solution approach:" in sides[0].text
    pairs = build_pairs("rinobench", sample_file("rinobench", "test.json"))
    assert len(pairs) == 2 and len({s.id for p in pairs for s in (p.a, p.b)}) == 4


def test_bad_inputs_name_file_line_and_field(tmp_path: Path, neurips_file: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(_paper("p1", ["x"], [4])) + "\n" + json.dumps(_paper("p2", ["x"], [7, 1])) + "\n",
                   encoding="utf-8")
    with pytest.raises(InputError) as e:
        build_pairs("neurips", bad)
    assert f"{bad}:2: " in str(e.value) and "originality" in str(e.value)
    same = tmp_path / "same.json"
    same.write_text(json.dumps([{"research_idea": {"problem_statement": "p", "objective": "o", "solution_approach": "s"},
                                 "novelty_score": 3}] * 2), encoding="utf-8")
    with pytest.raises(InputError, match="two different gold"):
        build_pairs("rinobench", same)
    with pytest.raises(InputError, match="no pair"):
        build_pairs("neurips", neurips_file, min_diff=3.5)


@pytest.mark.parametrize(("text", "want"), [
    ('{"more_novel": "A"}', "A"),
    ('{"more_novel": "tie"}', "tie"),
    ('Sure. {"more_novel": "b"} because', "B"),
    ('"more_novel": "B", "reason": ...', "B"),
    ("Paper B is more novel.", "B"),
    ("Idea A.", "A"),
    ("A", "A"),
    (" tie ", "tie"),
    ("A new method is proposed in both.", None),
    ("", None),
    (None, None),
    ('{"more_novel": "C"}', None),
])
def test_parse_choice(text: str | None, want: str | None) -> None:
    assert parse_choice(text) == want


def test_tie_is_unparseable_when_ties_are_not_allowed() -> None:
    assert parse_choice('{"more_novel": "tie"}', allow_tie=False) is None


def _pair(pid: str, ga: float, gb: float) -> Pair:
    return Pair(id=pid, a=PairSide(id=f"{pid}a", text="x", gold=ga), b=PairSide(id=f"{pid}b", text="y", gold=gb),
                kind="paper")


def _pred(pid: str, order: str, choice: str | None, status: str = "ok") -> tuple[str, dict]:
    return f"{pid}:{order}", {"id": f"{pid}:{order}", "choice": choice, "parse_status": status}


def test_metrics_by_hand_on_scripted_answers() -> None:
    pairs = [_pair("P1", 3, 1), _pair("P2", 1, 4), _pair("P3", 2, 5), _pair("P4", 4, 2)]
    preds = dict([
        _pred("P1", "ab", "A"), _pred("P1", "ba", "A"),               # gold a: right, then wrong (always A)
        _pred("P2", "ab", "B"), _pred("P2", "ba", "A"),               # gold b: right twice
        _pred("P3", "ab", "tie"), _pred("P3", "ba", None, "unparseable"),  # gold b: tie, unparseable
        _pred("P4", "ab", None, "call_failed"), _pred("P4", "ba", "B"),    # gold a: failed call, right
    ])
    rows, m = score_pairs(pairs, preds)
    assert [r["accuracy"] for r in rows] == [0.5, 1.0, 0.0, 1.0]
    assert [r["failed"] for r in rows] == [False, False, False, True]
    want = {  # metric: (mean, n), worked out from the answers above
        "accuracy": (2.5 / 4, 4),
        "accuracy_gold_first": (2 / 3, 3),      # P1 ab=1, P2 ba=1, P3 ba=0; P4's ab failed
        "accuracy_gold_second": (0.5, 4),       # P1 ba=0, P2 ab=1, P3 ab=0, P4 ba=1
        "consistent_accuracy": (1 / 3, 3),      # P1 0, P2 1, P3 0
        "position_consistency": (0.5, 2),       # P1 a vs b: 0; P2 b, b: 1
        "first_slot_rate": (0.5, 3),            # P1 1.0, P2 0.5, P4 0.0 (P3 has no A/B answer)
        "tie_rate": (0.25, 4),
        "unparseable_rate": (0.125, 4),
    }
    for name, (mean, n) in want.items():
        assert m[name]["mean"] == pytest.approx(mean), name
        assert m[name]["n"] == n, name
        assert m[name]["ci_low"] <= m[name]["mean"] <= m[name]["ci_high"], name


def test_always_A_model_over_http_scores_chance_with_full_position_bias(tmp_path: Path) -> None:
    from noveval.api import run
    from noveval.models.calls import ledger_scope
    from noveval.scores import read_scores

    asked: list[str] = []

    def always_a(prompt: str) -> dict:
        if prompt != "Reply with OK.":  # the endpoint check before the first item
            asked.append(prompt)
        return {"more_novel": "A"}

    with FakeOpenAIServer(responder=always_a) as server:
        model = f"openai-compatible/scripted@{server.base_url}"
        opts = {"no_cache": True}
        out = run("novelty-pairs", model=model, out=tmp_path / "run", options=opts).path
        assert len(asked) == 4  # 2 pairs x 2 orders
        with ledger_scope() as ledger:
            run("novelty-pairs", model=model, out=tmp_path / "run", options=opts)
        assert ledger.totals()["requests"] == 0
    # each pair was shown both ways: the two prompts of a pair hold the same two ideas, swapped
    a0, b0 = asked[0].split("\nA:\n")[1].split("\nB:\n")
    assert any(p.split("\nA:\n")[1].split("\nB:\n")[0].strip() == b0.split("\n\n")[0].strip() for p in asked[1:])
    s = read_scores(out)
    assert s.primary_metric == "accuracy"
    assert s.metrics["accuracy"].mean == pytest.approx(0.5) and s.metrics["accuracy"].n == 2
    assert s.metrics["first_slot_rate"].mean == 1.0
    assert s.metrics["position_consistency"].mean == 0.0 and s.metrics["consistent_accuracy"].mean == 0.0
    assert s.metrics["accuracy_gold_first"].mean == 1.0 and s.metrics["accuracy_gold_second"].mean == 0.0
    per_item = [json.loads(line) for line in (out / "per_item.jsonl").read_text().splitlines()]
    assert len(per_item) == 2 and {r["id"] for r in per_item} == {json.loads(p)["id"] for p in (out / "pairs.jsonl").read_text().splitlines()}


def test_neurips_2025_pair_counts(data_dir: Path) -> None:
    """Real data: how many papers and candidate pairs the defaults give (cheap; no model)."""
    papers = load_neurips(data_dir / "reviews" / "neurips-2025.jsonl.gz")
    cands = neurips_pairs(papers)
    assert len(papers) > 4000
    assert all(abs(x.gold - y.gold) >= 1 for x, y, _ in cands)
    pairs = sample_pairs(cands, kind="paper", limit=100, seed=0)
    assert len(pairs) == 100 and len({s.id for p in pairs for s in (p.a, p.b)}) == 200
