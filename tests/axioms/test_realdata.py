"""Real-data checks on ../shared/data (skipped when absent): reference matching and pools."""

from __future__ import annotations

import numpy as np
import pytest

from noveval.benchmarks.axioms.pools import (
    DEFAULT_TASKS,
    PoolRules,
    build_task,
    cited_split,
    load_references,
    newest_slice,
    select_focals,
)
from noveval.corpus import load_corpus

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def real(data_dir):
    corpus = load_corpus(data_dir / "corpus" / "papers.jsonl.gz")
    return corpus, load_references(data_dir / "fulltext" / "neurips-2025-fulltext.jsonl.gz", corpus)


def test_references_are_matched(real):
    corpus, refs = real
    assert len(refs.matched) == 400  # every full-text paper is found in the corpus by title
    assert sum(n >= 20 for n in refs.n_parsed.values()) > 350
    matched = [len(v) for v in refs.matched.values()]
    assert np.median(matched) >= 3
    # a matched reference is an earlier-or-same-year paper (citations point backwards)
    for i, js in list(refs.matched.items())[:50]:
        assert all(corpus.years[j] <= corpus.years[i] for j in js)


def test_default_tasks_pools(real):
    corpus, refs = real
    by = {t.name: t for t in DEFAULT_TASKS}
    assert len(DEFAULT_TASKS) >= 6 and len({t.field for t in DEFAULT_TASKS}) >= 2
    spec = by["adversarial"]
    task = build_task(corpus, spec, by[spec.distant], refs)
    assert 800 <= len(task.members) <= 2000
    assert {corpus.fields[int(task.rows[i])] for i in task.distant} == {by[spec.distant].field}
    items = select_focals(corpus, task, refs, n=100)
    assert len(items) == 100 and all(len(it.base) >= 100 for it in items)
    assert sum(cited_split(it, PoolRules()) is not None for it in items) >= 5


def test_small_focal_samples_span_years_so_ax8_applies(real):
    # issue 14: with --focal <= 20 all focal papers used to be NeurIPS 2025 full texts
    corpus, refs = real
    by = {t.name: t for t in DEFAULT_TASKS}
    task = build_task(corpus, by["adversarial"], by["slam"], refs)
    items = select_focals(corpus, task, refs, n=10)
    assert len({it.year for it in items}) > 2
    assert sum(int(task.rows[it.local]) in refs for it in items) < 10
    assert any(newest_slice(task, it.year, PoolRules()) is not None for it in items)
