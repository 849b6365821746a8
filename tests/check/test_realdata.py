"""Real-data check with the bundled models: a copy in the corpus is found and lowers novelty.

Corpus: the first 300 NLP papers (with abstracts) of ``corpus/papers.jsonl.gz``; the
focal paper is the next NLP paper. Retrieval and metrics only (no chat model).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from noveval.check import CheckOptions, check_idea

pytestmark = pytest.mark.realdata

N = 300

@pytest.fixture(scope="module")
def slice_(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    rows = []
    with gzip.open(data_dir / "corpus" / "papers.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r.get("field") == "NLP" and (r.get("abstract") or "").strip():
                rows.append({k: r[k] for k in ("id", "title", "abstract", "year")})
                if len(rows) > N:
                    break
    d = tmp_path_factory.mktemp("check-real")
    focal, base = rows[N], rows[:N]
    (d / "focal.json").write_text(json.dumps({"title": focal["title"], "abstract": focal["abstract"],
                                              "year": focal["year"]}))
    return {"dir": d, "focal": focal, "base": base}


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def _check(s: dict[str, Any], name: str, rows: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    return check_idea(s["dir"] / "focal.json", _write(s["dir"] / f"{name}.jsonl", rows),
                      options=CheckOptions(judge=False, **kw))


@pytest.fixture(scope="module")
def with_copy(slice_: dict[str, Any]) -> dict[str, Any]:
    return _check(slice_, "with", [*slice_["base"], {**slice_["focal"], "id": "copy"}])


@pytest.fixture(scope="module")
def without_copy(slice_: dict[str, Any]) -> dict[str, Any]:
    return _check(slice_, "without", slice_["base"])


def test_copy_is_top_retrieved(with_copy: dict[str, Any]) -> None:
    top = with_copy["neighbours"][0]
    assert top["id"] == "copy" and top["similarity"] > 0.99
    assert with_copy["verdict"]["near_duplicate"]["id"] == "copy"
    assert "near-identical" in with_copy["verdict"]["summary"]


def test_copy_is_least_novel(with_copy: dict[str, Any], without_copy: dict[str, Any]) -> None:
    m_with = {m["name"]: m for m in with_copy["metrics"]}
    m_without = {m["name"]: m for m in without_copy["metrics"]}
    assert set(m_with) == {"Yin", "RND", "SemNovel", "FastTextLOF"}
    # Yin: distance 0 to the copy, the least novel any paper of the corpus can be.
    assert m_with["Yin"]["score"] == pytest.approx(0.0, abs=1e-5)
    assert m_with["Yin"]["percentile"] < 1.0
    # Axiom 1 (adding the paper itself lowers its score) holds for the metrics that pass it
    # reliably in Liu & Zhai's benchmark. SemNovel passes it in only 44% of their checks
    # (t-SNE does not keep distances) and fails on this paper: reported, not asserted.
    for name in ("Yin", "RND", "FastTextLOF"):
        assert m_with[name]["score"] < m_without[name]["score"], name
        assert m_with[name]["percentile"] <= m_without[name]["percentile"], name
    assert m_with["SemNovel"]["score"] is not None and "axioms 1/2" in m_with["SemNovel"]["failure_modes"]


PARAPHRASE = {
    "title": "Letting a translation decoder learn from a helper that can see the whole target",
    "abstract": (
        "Neural machine translation models are normally trained by conditioning every predicted word "
        "on the words before it, so the decoder never learns to plan ahead. We add a second decoder "
        "during training that is allowed to look at the future part of the target sentence. The "
        "ordinary left-to-right decoder is then trained to imitate this forward-looking decoder by "
        "distillation, so at test time it behaves like it although the helper is removed. On "
        "Chinese-English, English-German and English-Romanian translation the method clearly beats "
        "strong baselines, with larger gains on larger data, and distillation transfers the helper's "
        "knowledge better than adversarial training or an L2 penalty."
    ),
}
"""Our own paraphrase of the focal paper ("Guiding Teacher Forcing with Seer Forcing ...")."""


def test_paraphrase_in_top3(slice_: dict[str, Any]) -> None:
    f = slice_["focal"]
    assert f["title"].startswith("Guiding Teacher Forcing with Seer Forcing"), "the corpus changed"
    para = {"id": "para", "year": f["year"], **PARAPHRASE}
    res = _check(slice_, "para", [*slice_["base"], para], metrics=("Yin",))
    ids = [n["id"] for n in res["neighbours"][:3]]
    assert "para" in ids, [(n["title"], n["similarity"]) for n in res["neighbours"][:5]]
