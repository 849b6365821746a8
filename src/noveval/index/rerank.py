"""Listwise LLM reranking of retrieved candidates (one call orders the whole list).

The model sees the query and the top ``depth`` candidates (numbered, title + the start
of the abstract) and returns ``{"ranking": [numbers, closest first]}``, decoded under the
JSON schema. Parsing keeps the valid numbers in the model's order (each once) and appends
the candidates it left out in their retrieval order, so a partial answer still reorders
what it mentions; a call that fails or returns no valid number leaves the retrieval
order unchanged and records the error (never silently). Calls go through the cached chat
client (:func:`noveval.models.client.get_client`), so repeating a run costs no calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel

from noveval.index.search import Hit
from noveval.models.chat import ChatClientProtocol, ChatRequest, GenerationParams
from noveval.models.structured import complete_structured_many, schema_of
from noveval.prompts import load

__all__ = ["RerankResult", "parse_ranking", "rerank_request", "rerank_hits", "rerank_many"]


class _Ranking(BaseModel):
    ranking: list[int]


@dataclass
class RerankResult:
    """Reranked hits and what the model did.

    Attributes:
        hits: Reranked top ``depth`` followed by the rest in retrieval order (ranks renumbered).
        order: 0-based positions of the reranked candidates, in the new order.
        mentioned: Valid candidate numbers the model returned (the rest were appended).
        error: Why the retrieval order was kept, or None.
    """

    hits: list[Hit]
    order: list[int] = field(default_factory=list)
    mentioned: int = 0
    error: str | None = None


def parse_ranking(numbers: Sequence[Any], n: int) -> tuple[list[int], int]:
    """0-based order from the model's 1-based numbers: valid ones first (once each), then the rest.

    Returns:
        ``(order, mentioned)`` with ``order`` a permutation of ``range(n)``.
    """
    seen: list[int] = []
    for x in numbers:
        if isinstance(x, bool):
            continue
        try:
            i = int(x) - 1
        except (TypeError, ValueError):
            continue
        if 0 <= i < n and i not in seen:
            seen.append(i)
    mentioned = len(seen)
    return seen + [i for i in range(n) if i not in seen], mentioned


def _candidates(papers: Sequence[dict[str, Any]], max_chars: int) -> str:
    rows = []
    for i, p in enumerate(papers, 1):
        a = " ".join(str(p.get("abstract") or "").split())
        a = a if len(a) <= max_chars else a[:max_chars].rstrip() + " ..."
        rows.append(f"[{i}] {p['title']} ({p.get('year') or 'n.d.'}): {a}")
    return "\n".join(rows)


def rerank_request(query: str, papers: Sequence[dict[str, Any]], *, max_chars: int = 200,
                   query_chars: int = 1500, seed: int = 0) -> Any:
    """The chat request asking the model to order ``papers`` for ``query``."""
    q = " ".join(query.split())[:query_chars]
    msgs = load("index", "rerank").render(query=q, candidates=_candidates(papers, max_chars),
                                          n=str(len(papers))).messages()
    params = GenerationParams(temperature=0.0, max_tokens=8 * len(papers) + 32, seed=seed, json_schema=schema_of(_Ranking))
    return ChatRequest(messages=msgs, params=params, tag="index:rerank")


def _apply(hits: Sequence[Hit], depth: int, res: Any) -> RerankResult:
    head, tail = list(hits[:depth]), list(hits[depth:])
    if res.value is None:
        return RerankResult([replace(h) for h in hits], list(range(len(head))), 0, res.error or "no valid ranking")
    order, mentioned = parse_ranking(res.value.ranking, len(head))
    if mentioned == 0:
        return RerankResult([replace(h) for h in hits], list(range(len(head))), 0, "the ranking named no candidate")
    new = [head[i] for i in order] + tail
    return RerankResult([replace(h, rank=r) for r, h in enumerate(new, 1)], order, mentioned, None)


def rerank_many(client: ChatClientProtocol, queries: Sequence[str], hit_lists: Sequence[Sequence[Hit]],
                paper_lists: Sequence[Sequence[dict[str, Any]]], *, depth: int = 30, max_chars: int = 200,
                seed: int = 0, progress: str | None = "rerank") -> list[RerankResult]:
    """Rerank many hit lists concurrently (one model call each, cached).

    Args:
        client: Chat client.
        queries: Query texts.
        hit_lists: Each query's hits, best first.
        paper_lists: Each query's papers, aligned with its hits.
        depth: Candidates shown to the model (the rest keep their order after them).
        max_chars: Abstract characters shown per candidate.
        seed: Generation seed.
        progress: Progress label.
    """
    reqs = [rerank_request(q, list(p)[:depth], max_chars=max_chars, seed=seed) for q, p in zip(queries, paper_lists)]
    results = complete_structured_many(client, reqs, _Ranking, progress=progress, role="reranker")
    return [_apply(h, depth, r) for h, r in zip(hit_lists, results)]


def rerank_hits(client: ChatClientProtocol, query: str, hits: Sequence[Hit], papers: Sequence[dict[str, Any]], *,
                depth: int = 30, max_chars: int = 200, seed: int = 0) -> RerankResult:
    """Rerank one query's hits (see :func:`rerank_many`)."""
    return rerank_many(client, [query], [hits], [papers], depth=depth, max_chars=max_chars, seed=seed, progress=None)[0]
