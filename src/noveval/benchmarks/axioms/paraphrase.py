"""Axiom 2 paraphrases by a chat model (Liu & Zhai 2026, §3 and Appendix A.1), cached.

The prompt asks for what Appendix A.1 describes, in our own words; the input is the title and abstract, and the
reply is parsed back into a title (first line, ``Title:`` prefix removed) and an abstract
(the rest). Responses are cached by the chat client, so a re-run makes no model calls.
"""

from __future__ import annotations

from collections.abc import Sequence


def paraphrase_prompt() -> str:
    """The system prompt (``prompts/paraphrase.txt``, overridable, see :mod:`noveval.prompts`).

    Our wording of what Appendix A.1 asks for: a deep rewrite (new structure and
    vocabulary, no shared run of more than four words, voice changes where natural,
    technical proper nouns kept), output only the rewritten text.
    """
    from noveval.prompts import read_prompt

    return read_prompt("axioms", "paraphrase.txt").strip()


def make_messages(title: str, abstract: str) -> list[dict[str, str]]:
    """Chat messages for one paraphrase request."""
    body = f"Title: {title}\n\nAbstract: {abstract}\n\nRewrite the title on the first line, then the abstract."
    return [{"role": "system", "content": paraphrase_prompt()}, {"role": "user", "content": body}]


def parse_paraphrase(text: str, *, fallback_title: str = "") -> tuple[str, str] | None:
    """Split a reply into (title, abstract); None when it is empty."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return None
    first = lines[0]
    for pre in ("title:", "**title:**", "# "):
        if first.lower().startswith(pre):
            first = first[len(pre):].strip()
    rest = " ".join(lines[1:])
    if rest.lower().startswith("abstract:"):
        rest = rest[9:].strip()
    if not rest:  # one paragraph: keep the original title slot filled
        return (fallback_title or first[:120], first)
    return first.strip("*# "), rest


def paraphrase_many(papers: Sequence[tuple[str, str]], *, model: str = "local",
                    max_tokens: int = 400, seed: int = 0, progress: str | None = "paraphrase",
                    ) -> list[tuple[str, str] | None]:
    """Paraphrase (title, abstract) pairs with a chat model; None where a call failed."""
    from noveval.models import ChatRequest, GenerationParams, get_client

    client = get_client(model)
    reqs = [ChatRequest(messages=make_messages(t, a),
                        params=GenerationParams(temperature=0.0, max_tokens=max_tokens, seed=seed),
                        tag="axioms-paraphrase") for t, a in papers]
    out = client.complete_many(reqs, progress=progress)
    return [parse_paraphrase(r.text, fallback_title=t) if r.ok and r.text else None
            for r, (t, _a) in zip(out, papers, strict=True)]
