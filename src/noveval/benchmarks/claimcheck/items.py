"""Task items built from annotation records: one per weakness (CA, WL, WLE) or per
(weakness, focal claim) pair (CV)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from noveval.benchmarks.claimcheck.data import PaperText, ReviewAnnotation
from noveval.benchmarks.claimcheck.related import MatchedReference, RelatedCorpus, mentioned_works

__all__ = ["WeaknessItem", "weakness_items", "focal_items", "attach_related"]


@dataclass
class WeaknessItem:
    """One annotated weakness with everything a task prompt needs."""

    id: str
    paper_id: str
    review_id: str
    annotator: str
    weakness_id: str
    title: str
    fulltext: str
    weakness: str
    groundedness: int | None
    candidates: list[tuple[str, str]]
    """Candidate claims ``(id, text)`` in list order."""
    gold_target_ids: list[str] = field(default_factory=list)
    gold_targets: list[str] = field(default_factory=list)
    """Gold target-claim texts (candidates then custom)."""
    gold_labels: dict = field(default_factory=dict)
    """Gold WL labels: objectivity, agreement, types."""
    focal_claim: str | None = None
    """CV only: the focal claim's text."""
    review: str = ""
    """The whole review the weakness comes from."""
    related: list[MatchedReference] = field(default_factory=list)
    """Cited related works the prompt shows (:func:`attach_related`)."""


def weakness_items(
    annotations: list[ReviewAnnotation],
    papers: dict[str, PaperText] | None = None,
    *,
    require_targets: bool = False,
) -> list[WeaknessItem]:
    """One item per weakness of every record (id ``<review_id>/<annotator>/<weakness_id>``).

    Args:
        annotations: Resolved annotation records.
        papers: Papers by id (title and full text); missing papers give empty context.
        require_targets: Keep only weaknesses with at least one gold target claim (the
            WLE and CV subsets, §4.2-4.3).
    """
    out = []
    for rec in annotations:
        paper = (papers or {}).get(rec.paper_id)
        for w in rec.weaknesses:
            targets = rec.target_texts(w)
            if require_targets and not targets:
                continue
            out.append(WeaknessItem(
                id=f"{rec.key}/{rec.annotator}/{w.id}",
                paper_id=rec.paper_id,
                review_id=rec.key,
                annotator=rec.annotator,
                weakness_id=w.id,
                title=paper.title if paper else "",
                fulltext=paper.fulltext if paper else "",
                weakness=w.text or "",
                groundedness=w.groundedness,
                candidates=[(c.id, c.text or "") for c in rec.claims],
                gold_target_ids=list(w.target_claims) + (["custom"] if w.custom_claim else []),
                gold_targets=targets,
                gold_labels={"objectivity": w.objectivity, "agreement": w.agreement,
                             "types": list(w.types)},
                review=rec.review_text or "",
            ))
    return out


def focal_items(items: list[WeaknessItem]) -> list[WeaknessItem]:
    """Split each weakness into one CV item per target claim (the focal claim, §4.2)."""
    out = []
    for it in items:
        for cid, text in zip(it.gold_target_ids, it.gold_targets, strict=True):
            out.append(WeaknessItem(**{**it.__dict__, "id": f"{it.id}/{cid}", "focal_claim": text}))
    return out


def attach_related(
    items: list[WeaknessItem], references: dict[str, list[MatchedReference]], task: str, *, max_works: int = 3,
    corpus: RelatedCorpus | None = None,
) -> list[WeaknessItem]:
    """Give each item the related works its texts mention (see :mod:`.related`).

    Searched texts: the weakness (``ca``), the weakness and its gold target claims
    (``wl``, ``wle``), the weakness and the focal claim (``cv``). The paper's own
    references come first; then, with ``corpus``, works whose title the weakness quotes.

    Args:
        items: Task items.
        references: Matched references per paper id.
        task: ``ca``, ``wl``, ``cv`` or ``wle``.
        max_works: At most this many works per item.
        corpus: The corpus, to find titles the weakness cites (``None``: skip that).

    Returns:
        New items with ``related`` set.
    """
    out = []
    for it in items:
        texts = [it.weakness]
        if task == "cv":
            texts.append(it.focal_claim or "")
        elif task in ("wl", "wle"):
            texts += it.gold_targets
        works = mentioned_works(texts, references.get(it.paper_id, []), max_works=max_works)
        if corpus is not None:
            have = {w.corpus_id for w in works}
            works += [w for w in corpus.cited_titles(it.weakness) if w.corpus_id not in have]
        out.append(replace(it, related=works[:max_works]))
    return out
