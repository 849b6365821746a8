"""Each pool manipulation builds exactly the pool its axiom describes, with the skip rules."""

from __future__ import annotations

import numpy as np
import pytest

from noveval.benchmarks.axioms.axioms import AXIOMS, check, decide
from noveval.benchmarks.axioms.pools import (
    SAMPLE_TASKS,
    PoolRules,
    base_pool,
    build_task,
    cited_split,
    distant_pool,
    newest_slice,
    oldest_slice,
    select_focals,
)
from noveval.benchmarks.axioms.runner import build_variants
from noveval.corpus import match_reference_to_title, normalize_title, parse_references

RULES = PoolRules(min_refs=20, min_cited=5, ax7_min_pool=40, ax8_min_newer=10, slice_size=20)


@pytest.fixture(scope="module")
def task_items(sample):
    corpus, refs = sample
    by = {t.name: t for t in SAMPLE_TASKS}
    spec = by["graph learning"]
    task = build_task(corpus, spec, by[spec.distant], refs, seed=0)
    items = select_focals(corpus, task, refs, n=10, seed=0, min_base=20)
    return corpus, refs, task, items


def test_reference_title_matching():
    titles = ["Attention Is All You Need", "Deep Residual Learning for Image Recognition",
              "Residual Learning", "On the Semantics of Differential Privacy: A Bayesian Formulation"]
    assert match_reference_to_title(
        "- [3] K. He et al. Deep residual learning for image recognition. In CVPR, 2016.", titles) == 1
    assert match_reference_to_title("[1] A. Vaswani. Attention is all you need. NeurIPS 2017", titles) == 0
    # punctuation / quotes from PDF conversion, hyphen splits
    assert match_reference_to_title(
        "S. Kasiviswanathan. On the'semantics' of differential privacy: A bayesian formulation. JPC", titles) == 3
    # short titles (< 4 words) never match by chance; no match -> None
    assert match_reference_to_title("We use residual learning everywhere.", titles) is None
    assert match_reference_to_title("Something else entirely, 2020.", titles) is None
    assert normalize_title("Pre-Trained  'Models'!") == "pre trained models"


def test_parse_references_stops_at_next_heading():
    md = "## Intro\ntext\n## References\n\n- [1] A. B. Title one. 2020.\n- [2] C. D. Title two.\n  continued.\n## Appendix\n- not a ref"
    assert parse_references(md) == ["- [1] A. B. Title one. 2020.", "- [2] C. D. Title two. continued."]
    assert parse_references("no refs") == []


def test_base_pool_is_strictly_earlier_task_papers(task_items):
    corpus, refs, task, items = task_items
    assert len(items) == 10
    for it in items:
        expect = set(task.members[task.years[task.members] < it.year].tolist())
        expect |= {int(r) for r in it.refs if task.years[r] <= it.year}
        assert set(it.base.tolist()) == expect
        assert it.local not in set(it.base.tolist())
        assert np.array_equal(base_pool(task, it.year, it.refs), it.base)


def test_variants_build_the_described_pools(task_items):
    corpus, refs, task, items = task_items
    para = {it.item_id: ("T " + task.titles[it.local], "A " + task.abstracts[it.local]) for it in items}
    variants, extra = build_variants(task, items, RULES, para)
    for it in items:
        vs, ex, base = variants[it.item_id], extra[it.item_id], set(it.base.tolist())
        assert set(vs["copy"].tolist()) == base | {it.local} and len(vs["copy"]) == len(base) + 1
        assert set(vs["paraphrase"].tolist()) == base | {ex["paraphrase"]}
        assert task.texts[ex["paraphrase"]].startswith("T ")
        if "cov1" in vs:  # same size, nearest neighbour swapped for its extended text
            for k in (1, 2, 4):
                assert len(vs[f"cov{k}"]) == len(base)
                assert set(vs[f"cov{k}"].tolist()) == (base - {ex["nn"]}) | {ex[f"cov{k}"]}
                assert task.abstracts[ex[f"cov{k}"]].startswith(task.abstracts[ex["nn"]].rstrip())
            assert len(task.abstracts[ex["cov4"]]) > len(task.abstracts[ex["cov2"]]) > len(task.abstracts[ex["cov1"]])
        d = vs.get("distant")
        if d is not None:
            assert set(d.tolist()) <= set(task.distant.tolist())
            assert (task.years[d] < it.year).all()
            assert not set(d.tolist()) & set(task.members.tolist()) - set(task.distant.tolist())
        if "oldest" in vs:
            assert len(base) > RULES.ax7_min_pool and len(vs["oldest"]) == RULES.slice_size
            assert set(vs["oldest"].tolist()) <= base
            assert task.years[vs["oldest"]].max() <= np.sort(task.years[it.base])[RULES.slice_size]
        else:
            assert len(base) <= RULES.ax7_min_pool
        newer = task.members[task.years[task.members] > it.year]
        if "newest" in vs:
            assert len(newer) > RULES.ax8_min_newer and len(vs["newest"]) == RULES.slice_size
            assert (task.years[vs["newest"]] > it.year).all()
            assert task.years[vs["newest"]].min() >= np.sort(task.years[newer])[::-1][RULES.slice_size - 1]
        else:
            assert len(newer) <= RULES.ax8_min_newer
        if "minus_cited" in vs:
            cited = set(vs["cited_only"].tolist())
            assert cited == base & set(it.refs.tolist()) and len(cited) >= RULES.min_cited
            assert set(vs["minus_cited"].tolist()) == base - cited
            assert it.n_refs >= RULES.min_refs
        else:
            assert cited_split(it, RULES) is None


def test_skip_rules_thresholds(task_items):
    corpus, refs, task, items = task_items
    it = max(items, key=lambda x: len(x.base))
    assert oldest_slice(task, it.base, PoolRules(ax7_min_pool=len(it.base))) is None
    assert oldest_slice(task, it.base, PoolRules(ax7_min_pool=len(it.base) - 1, slice_size=5)) is not None
    n_newer = int((task.years[task.members] > it.year).sum())
    assert newest_slice(task, it.year, PoolRules(ax8_min_newer=n_newer)) is None
    assert distant_pool(task, 1900) is None
    with_refs = [x for x in items if len(x.refs)]
    assert with_refs, "sample ML task has focal papers with references"
    x = with_refs[0]
    assert cited_split(x, PoolRules(min_refs=x.n_refs + 1, min_cited=1)) is None
    assert cited_split(x, PoolRules(min_refs=x.n_refs, min_cited=1)) is not None


def test_focal_sampling_is_reproducible(sample):
    corpus, refs = sample
    by = {t.name: t for t in SAMPLE_TASKS}
    t = build_task(corpus, by["motion planning"], by["graph learning"], refs, seed=3)
    a = [i.item_id for i in select_focals(corpus, t, refs, n=7, seed=3, min_base=20)]
    b = [i.item_id for i in select_focals(corpus, t, refs, n=7, seed=3, min_base=20)]
    assert a == b and len(set(a)) == 7


def test_checks():
    s = {"base": 1.0, "copy": 0.5, "paraphrase": 1.0, "cov1": 0.9, "cov2": 0.8, "cov4": 0.85,
         "distant": 2.0, "minus_cited": 1.1, "cited_only": 0.2, "oldest": 1.0, "newest": 0.1}
    d = decide(s)
    assert d == {"Ax1": True, "Ax2": False, "Ax3grad": False, "Ax3<base": True, "Ax4": True,
                 "Ax5": True, "Ax6": True, "Ax7": False, "Ax8": True}
    assert decide(s, title_only=True)["Ax3grad"] is None
    assert check("Ax5", {"base": 1.0}) is None
    assert check("Ax1", {"base": 1.0, "copy": float("nan")}) is None
    assert list(d) == list(AXIOMS)


def test_ax3_prepend_option(task_items):
    corpus, refs, task, items = task_items
    variants, extra = build_variants(task, items[:3], RULES, {}, ax3_position="prepend")
    for it in items[:3]:
        ex = extra[it.item_id]
        if "cov1" in ex:
            assert task.abstracts[ex["cov1"]].endswith(task.abstracts[ex["nn"]].strip())
            assert "paraphrase" not in variants[it.item_id]


def test_decision_agreement_counts_only_checks_both_sides_made():
    from noveval.benchmarks.axioms.axioms import agreement

    a = {"p1": {"Ax1": True, "Ax2": False, "Ax4": None}, "p2": {"Ax1": True}, "only_a": {"Ax1": True}}
    b = {"p1": {"Ax1": True, "Ax2": True, "Ax4": True}, "p2": {"Ax1": False}, "only_b": {"Ax1": False}}
    res = agreement(a, b)
    assert res["Ax1"] == (0.5, 2)  # p1 same, p2 differs; only_a / only_b ignored
    assert res["Ax2"] == (0.0, 1)
    assert res["Ax4"] == (None, 0)  # a did not evaluate it
    assert res["all"] == (1 / 3, 3)
