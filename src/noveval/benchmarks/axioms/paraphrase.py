"""Axiom 2 paraphrases by a chat model (Liu & Zhai 2026, §3 and Appendix A.1), cached.

The prompt asks for what Appendix A.1 describes, in our own words; the input is the title
and abstract, the reply is parsed back into a title and an abstract
(:func:`parse_paraphrase`) and kept only when it is :func:`usable`. Responses are cached
by the chat client, so a re-run makes no model calls.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from noveval.benchmarks._contract import client_of
from noveval.benchmarks.axioms.options import AX2_MAX_TOKENS
from noveval.models import ChatRequest, GenerationParams
from noveval.models.types import ModelLike
from noveval.prompts import load, prompt_hashes


def make_messages(title: str, abstract: str) -> list[dict[str, str]]:
    """Chat messages for one paraphrase request (``prompts/paraphrase.txt``, overridable, see
    :mod:`noveval.prompts`): our wording of what Appendix A.1 asks for -- a deep rewrite (new
    structure and vocabulary, no shared run of more than four words, voice changes where
    natural, technical proper nouns kept), output only the rewritten text.

    Raises:
        InputError: the template (e.g. an override) uses a variable other than ``title``
            and ``abstract``.
    """
    return load("axioms", "paraphrase").render(title=title, abstract=abstract).messages()


def prompt_hash() -> str:
    """Content hash of the paraphrase template in effect, checked (for the run's config)."""
    return prompt_hashes("axioms", ["paraphrase"])["paraphrase"]


_TITLE = re.compile(r"^[\W_]*title[\W_]*:\s*(.*)$", re.IGNORECASE)
_ABSTRACT = re.compile(r"^[\W_]*abstract[\W_]*:?\s*(.*)$", re.IGNORECASE)


def _clean(text: str) -> str:
    return text.strip().strip("*#_ ").strip()


def parse_paraphrase(text: str, *, fallback_title: str = "") -> tuple[str, str] | None:
    """Split a reply into (title, abstract); None when no abstract text is left.

    Labelled replies (``Title: ...`` and ``Abstract: ...`` lines, in any case, with
    Markdown emphasis) are read by their labels wherever they stand; a line above the
    labels (small models often echo the original title first) is dropped. Unlabelled
    replies: the first line is the title when more lines follow, else the whole reply
    is the abstract and ``fallback_title`` the title.
    """
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return None
    t_at = next((i for i, ln in enumerate(lines) if _TITLE.match(ln)), None)
    a_at = next((i for i, ln in enumerate(lines) if _ABSTRACT.match(ln) and (
        ln.rstrip().endswith(":") or ":" in ln[:12])), None)
    if t_at is not None or a_at is not None:
        title, after_title = "", 0
        if t_at is not None:
            t_match = _TITLE.match(lines[t_at])
            assert t_match is not None  # t_at was chosen by this pattern
            title, after_title = _clean(t_match.group(1)), t_at + 1
            if not title and after_title < len(lines) and after_title != a_at:  # "Title:" alone on its line
                title, after_title = _clean(lines[after_title]), after_title + 1
        if a_at is not None:
            a_match = _ABSTRACT.match(lines[a_at])
            assert a_match is not None  # a_at was chosen by this pattern
            body = [a_match.group(1), *lines[a_at + 1:]]
        else:
            body = lines[after_title:]
        abstract = " ".join(b for b in (_clean(x) for x in body) if b and not _TITLE.match(b))
        if not abstract:
            return None
        return (title or fallback_title or abstract[:120]), abstract
    if len(lines) == 1:
        return (fallback_title or lines[0][:120]), lines[0]
    return _clean(lines[0]) or fallback_title, " ".join(lines[1:])


def usable(original: str, rewritten: str, *, min_len_ratio: float = 0.4, min_distinct: float = 0.35) -> bool:
    """Whether a rewritten abstract can stand in for a paraphrase of ``original``.

    Small models sometimes stop after a few words or loop on one sentence; such output
    is not a paraphrase, and checking Ax2 with it would test something else. Rejected:
    fewer than ``min_len_ratio`` times the original's words, or (at 50+ words) a share
    of distinct words below ``min_distinct`` (real abstracts are about 0.5-0.7).
    """
    words = rewritten.lower().split()
    if len(words) < min_len_ratio * len(original.split()):
        return False
    return len(words) < 50 or len(set(words)) / len(words) >= min_distinct


def paraphrase_many(papers: Sequence[tuple[str, str]], *, model: ModelLike = "local",
                    max_tokens: int = AX2_MAX_TOKENS, seed: int = 0, progress: str | None = "paraphrase",
                    ) -> list[tuple[str, str] | None]:
    """Paraphrase (title, abstract) pairs with a chat model.

    None where a call failed or the reply is not :func:`usable` (Ax2 is then not
    evaluated for that paper; the run's ``task_stats`` count them). ``model``: a spec or
    a chat client.
    """
    client = client_of(model)
    reqs = [ChatRequest(messages=make_messages(t, a),
                        params=GenerationParams(temperature=0.0, max_tokens=max_tokens, seed=seed),
                        tag="axioms-paraphrase") for t, a in papers]
    out = client.complete_many(reqs, progress=progress)
    res = []
    for r, (t, a) in zip(out, papers, strict=True):
        p = parse_paraphrase(r.text, fallback_title=t) if r.ok and r.text else None
        res.append(p if p is not None and usable(a, p[1]) else None)
    return res
