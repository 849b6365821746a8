"""The focus system's planned work (``noveval eval --plan``): expert side, reviews, annotation.

The papers are the run's (the protocol's selection, then ``--limit``:
:func:`~noveval.benchmarks.focus.pipeline.selected_papers`). Counted per paper, every prompt
rendered by the run's own builders:

- the expert chain (route ``chain``, the paper protocol; Appendix A.1.1): three calls, the
  second and third holding the previous step's answer, counted at its cap
  (``expert_max_tokens``); a paper without a meta-review makes none;
- one review (:func:`~noveval.benchmarks.focus.generate.review_request`, cap ``max_tokens``);
- two annotation calls (target, aspect; ``samples`` times each) per point
  (:func:`~noveval.benchmarks.focus.annotate.annotation_requests`). The human points of the
  split route are the reviews' own; the points of answers not given yet (the model's review,
  the chain's final review) are counted as many as the paper's human reviews hold per review,
  each as long as their mean point: an estimate, said in the notes.

Scoring loads the bundled MiniLM for BERTScore when ``text_metrics`` is on.
"""

from __future__ import annotations

from noveval.benchmarks.focus.annotate import annotation_requests, prompt_messages
from noveval.benchmarks.focus.data import points_from_lists, points_from_sections
from noveval.benchmarks.focus.expert import MAX_REVIEW_CHARS
from noveval.benchmarks.focus.generate import review_request
from noveval.benchmarks.focus.options import FocusOptions
from noveval.plan import PlannedCall, SystemPlan, capped, prompt_tokens, request_call

__all__ = ["plan"]


def _points_per_review(papers: list) -> tuple[float, str]:
    """Mean points per human review of ``papers`` (split by the run's splitter) and a point of mean length."""
    pts = [pt for p in papers for pt in points_from_sections(p)]
    reviews = sum(len(p.reviews) for p in papers) or 1
    mean_chars = int(sum(len(pt.text) for pt in pts) / len(pts)) if pts else 200
    return len(pts) / reviews, "x" * mean_chars


def plan(options: FocusOptions) -> SystemPlan:
    """The run's requests (expert chain, reviews, annotation), no model call."""
    from noveval.benchmarks.focus.pipeline import checked_protocol, selected_papers

    o = options
    proto, expert = checked_protocol(o)
    papers, _ = selected_papers(o, proto)
    gen = o.generation()
    ann = o.annotator  # None: the model under test annotates (its generation controls then hold)
    ann_gen = gen if ann is None else {}
    per_review, typical = _points_per_review(papers)
    calls: list[PlannedCall] = []
    points = []
    for p in papers:
        if expert == "chain":
            cap = o.expert_max_tokens
            meta = p.meta_review.text if p.meta_review else ""
            if meta.strip():
                reviews = "\n\n".join(f"[Review {i + 1}]\n{r.text[:MAX_REVIEW_CHARS]}" for i, r in enumerate(p.reviews))
                who = o.expert_model or ann
                calls += [PlannedCall("expert chain", prompt_tokens(m) + extra, capped(ann_gen, cap), who)
                          for m, extra in ((prompt_messages("expert_extract", meta_review=meta), 0),
                                           (prompt_messages("expert_augment", reviews=reviews, structured=""), cap),
                                           (prompt_messages("expert_paraphrase", review=""), cap))]
                points += [typical] * round(per_review)
        else:
            points += [pt.text for pt in points_from_sections(p, max_reviews=o.max_reviews)]
        req, _ = review_request(p, source=o.source, max_input_tokens=o.max_input_tokens, max_tokens=o.max_tokens,
                                seed=o.seed)
        calls.append(request_call(req, gen))
        points += [typical] * round(per_review)
    for pt in points_from_lists("plan", "human", points, []):
        for _ in range(max(1, o.samples)):
            calls += [request_call(r, ann_gen, "annotator", model=ann) for r in annotation_requests(pt).values()]
    notes = [f"points of answers not given yet (model reviews{', the expert chain' if expert == 'chain' else ''}) "
             f"counted at {per_review:.1f} per review (the human reviews' mean), each {len(typical)} characters"]
    models = ["local (MiniLM: BERTScore)"] if o.text_metrics else []
    return SystemPlan("focus", items=len(papers), calls=calls, local_models=models, notes=notes)
