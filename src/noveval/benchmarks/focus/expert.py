"""Expert review points by the three-prompt chain of Appendix A.1.1 (Section 3.2).

1. *extract* (Figure 5): the meta-review -> a structured meta-review with headed
   strength and weakness bullets;
2. *augment* (Figure 6): add the concrete details the individual reviews give for
   each bullet, without adding bullets;
3. *paraphrase* (Figure 7): rewrite the headers to summarise each bullet and drop
   any reference to reviewers.

The final text is cut into sections and points with :mod:`.split`. Prompts are in
our own words (``prompts/expert_*.txt``). Rows go to the run's ``expert.jsonl``
(resumable): ``id, steps[3] (raw replies), review_text, strengths, weaknesses,
error, parse_error``. ``error`` is a failed call (redone on a re-run); ``parse_error``
is an answer that yields no point, or a paper without a meta-review (kept: a re-run
would get the same). A paper with either and no point is left out of scoring.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from noveval.benchmarks._contract import client_of
from noveval.benchmarks.focus.annotate import prompt_messages
from noveval.benchmarks.focus.data import FocusPaper, load_papers
from noveval.benchmarks.focus.options import ExpertOptions
from noveval.benchmarks.focus.split import split_points, split_review_sections
from noveval.models.calls import note_answer
from noveval.models.chat import ChatClientProtocol, ChatRequest, GenerationParams
from noveval.models.client import run_async
from noveval.models.types import ModelLike
from noveval.prompts import prompt_hashes
from noveval.runs import RunDir, run_items

__all__ = ["expert_chain", "expert_rows", "run_expert"]

MAX_REVIEW_CHARS = 6000
"""Each individual review is cut to this many characters in the augment prompt."""

DEFAULT_MAX_TOKENS = 1200
"""Output budget of each of the three steps (the paper's expert reviews average 2,640
characters, about 660 tokens, Section 5.2)."""


def _req(messages: list[dict[str, str]], max_tokens: int) -> Any:
    return ChatRequest(
        messages=messages,
        params=GenerationParams(temperature=0.0, max_tokens=max_tokens),
        tag="focus-expert",
    )


async def expert_chain(
    client: ChatClientProtocol, paper: FocusPaper, *, max_tokens: int = DEFAULT_MAX_TOKENS
) -> dict[str, Any]:
    """Run the three prompts for one paper and return its ``expert.jsonl`` row."""
    meta = paper.meta_review.text if paper.meta_review else ""
    row: dict[str, Any] = {"id": paper.id, "steps": [], "strengths": [], "weaknesses": [],
                           "review_text": "", "error": None, "parse_error": None}
    if not meta.strip():
        row["parse_error"] = "no meta-review"
        return row
    reviews = "\n\n".join(
        f"[Review {i + 1}]\n{r.text[:MAX_REVIEW_CHARS]}" for i, r in enumerate(paper.reviews)
    )

    prompts = [prompt_messages("expert_extract", meta_review=meta)]
    replies: list[Any] = []
    text = ""
    for step in range(3):
        if step == 1:
            prompts.append(prompt_messages("expert_augment", reviews=reviews, structured=text))
        elif step == 2:
            prompts.append(prompt_messages("expert_paraphrase", review=text))
        (resp,) = await client.acomplete_many([_req(prompts[step], max_tokens)], progress=None)
        row["steps"].append(resp.text)
        replies.append(resp)
        if not resp.ok or not (resp.text or "").strip():
            note_answer(client, replies, usable=False, role="expert chain")
            row["error"] = f"step {step + 1}: {resp.error or 'empty reply'}"
            return row
        text = resp.text or ""
    sec = split_review_sections(text)
    row["review_text"] = text
    row["strengths"] = split_points(sec.get("strengths"))
    row["weaknesses"] = split_points(sec.get("weaknesses"))
    # the chain is one answer: its final review is parsed; unusable, all three steps are asked again
    note_answer(client, replies, usable=bool(row["strengths"] or row["weaknesses"]), role="expert chain")
    if not row["strengths"] and not row["weaknesses"]:
        row["parse_error"] = "final review has no strengths or weaknesses section"
    return row


async def expert_rows(
    run: Any, client: ChatClientProtocol, papers: list[FocusPaper], *, max_tokens: int = DEFAULT_MAX_TOKENS
) -> list[dict[str, Any]]:
    """Run the chain over papers into ``expert.jsonl`` (resumable); rows in paper order."""
    async def worker(p: FocusPaper) -> dict[str, Any]:
        return await expert_chain(client, p, max_tokens=max_tokens)

    return await run_items(run, "expert", papers, worker, id_of=lambda p: p.id,
                           progress="focus: expert chain", client=client)


def run_expert(model: ModelLike, out: Path, options: ExpertOptions) -> Path:
    """``noveval focus expert``: the chain over ``options.papers`` into the run folder ``out`` (``expert.jsonl``).

    Run it through :func:`~noveval.benchmarks._runner.run_task` (endpoint check, call ledger,
    unusable-answer tally, completeness). Resumable: a re-run redoes only failed calls.

    Raises:
        InputError: bad papers file, or a folder made with other settings (without ``overwrite``).
    """
    ps = load_papers(options.papers, limit=options.limit)
    client = client_of(model, **options.client_kwargs())
    prompts = prompt_hashes("focus", ["expert_extract", "expert_augment", "expert_paraphrase"])
    run = RunDir.create(out, {"benchmark": "focus-expert", "papers": str(options.papers),
                              "paper_ids": [p.id for p in ps], "model": client.model_id, "prompts": prompts},
                        overwrite=options.overwrite)
    run_async(expert_rows(run, client, ps), client)
    return run.path
