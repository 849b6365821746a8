"""The request that asks a model to judge an item's novelty (RINoBench, Schopf & Färber 2026, Section 5).

The model gets the rubric (Table 1), the research idea (problem statement, objective,
solution approach) and the titles and abstracts of its related works (the zero-shot setup
of Section 5 / Figure 6; the wording is ours). The templates (``judge_novelty``, and
``judge_novelty_paper`` for the released code's protocol) ship with RINoBench's prompts and
are read by the system name :data:`JUDGE_SYSTEM` through :mod:`noveval.prompts` (no import
of the rinobench package): an override is ``$NOVEVAL_PROMPTS_DIR/rinobench/judge_novelty.txt``
for every system that sends this request, and runs record its hash under ``rinobench/``.
"""

from __future__ import annotations

from typing import Any

from noveval.judging.items import RINoBenchItem
from noveval.judging.rubric import JUDGMENT_SCHEMA, rubric_text
from noveval.models.chat import ChatRequest, GenerationParams
from noveval.prompts import SystemPrompts

__all__ = ["JUDGE_SYSTEM", "build_request", "format_related_works"]

JUDGE_SYSTEM = "rinobench"
"""The prompt catalogue's system that holds the judging templates."""

_PROMPTS = SystemPrompts(JUDGE_SYSTEM)


def format_related_works(
    item: RINoBenchItem, *, max_related_works: int | None = None, max_abstract_chars: int | None = None
) -> str:
    """Render the related works as numbered ``[i] title: abstract`` entries.

    Args:
        item: The item.
        max_related_works: Keep only the first N related works (None: all).
        max_abstract_chars: Cut each abstract to this many characters (None: whole).
    """
    works = item.related_works[:max_related_works] if max_related_works else item.related_works
    lines = []
    for i, w in enumerate(works, start=1):
        abstract = (w.abstract or "").strip()
        if max_abstract_chars and len(abstract) > max_abstract_chars:
            abstract = abstract[:max_abstract_chars].rstrip() + " ..."
        lines.append(f"[{i}] {w.title.strip()}: {abstract}" if abstract else f"[{i}] {w.title.strip()}")
    return "\n".join(lines) if lines else "(none given)"


def build_request(
    item: RINoBenchItem,
    rubric: dict[int, str],
    *,
    structured: bool = True,
    max_tokens: int = 512,
    temperature: float = 0.0,
    seed: int = 0,
    max_related_works: int | None = None,
    max_abstract_chars: int | None = None,
    prompt: str = "judge_novelty",
) -> Any:
    """Build the :class:`~noveval.models.chat.ChatRequest` that judges one item (tag ``rinobench:<id>``).

    ``prompt`` names the template (``judge_novelty`` or ``judge_novelty_paper``, see
    :func:`noveval.benchmarks.rinobench.generate.protocol_params`); ``structured`` asks for
    JSON constrained to :data:`~noveval.judging.rubric.JUDGMENT_SCHEMA`; the other arguments
    are the generation settings.
    """
    idea = item.research_idea
    messages = _PROMPTS.render_messages(
        prompt,
        rubric=rubric_text(rubric),
        problem_statement=idea.problem_statement,
        objective=idea.objective,
        solution_approach=idea.solution_approach,
        related_works=format_related_works(
            item, max_related_works=max_related_works, max_abstract_chars=max_abstract_chars
        ),
    )
    params = GenerationParams(
        temperature=temperature,
        max_tokens=max_tokens,
        seed=seed,
        json_schema=JUDGMENT_SCHEMA if structured else None,
    )
    return ChatRequest(messages=messages, params=params, tag=f"rinobench:{item.id}")
