"""Task items built from annotation records: one per weakness (CA, WL, WLE) or per
(weakness, focal claim) pair (CV)."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from noveval.benchmarks.claimcheck.data import PaperText, ReviewAnnotation
from noveval.benchmarks.claimcheck.related import MatchedReference, RelatedCorpus, mentioned_works
from noveval.records import Weakness

__all__ = ["WeaknessItem", "weakness_items", "focal_items", "attach_related"]


class WeaknessItem(Weakness):
    """One annotated weakness with everything a task prompt needs.

    The weakness itself is the :class:`~noveval.records.Weakness` part: its span of the
    review (``start``, ``end``), its ``text`` (the prompts' ``weakness`` variable) and its
    ``groundedness``; the fields below add where it comes from, the context the prompts
    show and the gold answers. Built in code only, so unknown fields are refused.
    """

    model_config = ConfigDict(extra="forbid")

    text: str = Field(default="", description="The weakness text (the prompts' ``weakness``).")
    id: str = Field(description="Item id ``<review_id>/<annotator>/<weakness_id>`` (CV: ``/<claim id>`` added).")
    paper_id: str = Field(description="Id of the reviewed paper.")
    review_id: str = Field(description="Id of the review the weakness comes from.")
    annotator: str = Field(description="Annotator of the record.")
    weakness_id: str = Field(description="The weakness's id in the record.")
    title: str = Field(description="The paper's title (empty when the paper is missing).")
    fulltext: str = Field(description="The paper's full text (empty when the paper is missing).")
    candidates: list[tuple[str, str]] = Field(description="Candidate claims ``(id, text)`` in list order.")
    gold_target_ids: list[str] = Field(default_factory=list, description="Gold target-claim ids (``custom`` last).")
    gold_targets: list[str] = Field(default_factory=list,
                                    description="Gold target-claim texts (candidates then custom).")
    gold_labels: dict = Field(default_factory=dict, description="Gold WL labels: objectivity, agreement, types.")
    focal_claim: str | None = Field(default=None, description="CV only: the focal claim's text.")
    review: str = Field(default="", description="The whole review the weakness comes from.")
    related: list[MatchedReference] = Field(default_factory=list,
                                            description="Cited related works the prompt shows (:func:`attach_related`).")


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
                start=w.start,
                end=w.end,
                text=w.text or "",
                groundedness=w.groundedness,
                id=f"{rec.key}/{rec.annotator}/{w.id}",
                paper_id=rec.paper_id,
                review_id=rec.key,
                annotator=rec.annotator,
                weakness_id=w.id,
                title=paper.title if paper else "",
                fulltext=paper.fulltext if paper else "",
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
            out.append(it.model_copy(update={"id": f"{it.id}/{cid}", "focal_claim": text}))
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
        texts = [it.text]
        if task == "cv":
            texts.append(it.focal_claim or "")
        elif task in ("wl", "wle"):
            texts += it.gold_targets
        works = mentioned_works(texts, references.get(it.paper_id, []), max_works=max_works)
        if corpus is not None:
            have = {w.corpus_id for w in works}
            works += [w for w in corpus.cited_titles(it.text) if w.corpus_id not in have]
        out.append(it.model_copy(update={"related": works[:max_works]}))
    return out
