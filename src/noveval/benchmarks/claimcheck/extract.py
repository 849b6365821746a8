"""Claim extraction from a paper's full text (CLAIMCHECK §3.2, Appendix D "Claim Extraction").

The text (References section removed) is split into chunks; for each chunk the model
lists the claims about findings, contributions, results and relation to prior work,
copied verbatim. Every returned claim is verified as a substring of the paper after
whitespace normalisation (:func:`~noveval.benchmarks.claimcheck.data.find_span`):
verified claims get character offsets into the full text, the others are kept in
``unverified`` (never silently dropped) together with per-chunk call failures. A
failed chunk contributes no claims (the empty answer) and is counted.

Progress is shown per chunk (``claimcheck extract <paper id>: chunks``), so a long paper
is never silent between its start and its end.
"""

from __future__ import annotations

import asyncio
from typing import Any

from noveval.benchmarks.claimcheck._common import (
    ExtractReply,
    failure_of,
    prompt_messages,
    split_chunks,
    strip_references,
    structured,
)
from noveval.benchmarks.claimcheck.data import PaperText, find_span, normalize_ws
from noveval.benchmarks.claimcheck.options import ClaimcheckOptions
from noveval.models.chat import ChatClientProtocol
from noveval.progress import track

__all__ = ["verify_claims", "extract_claims"]


def verify_claims(fulltext: str, claims: list[str], *, chunk_offset: int = 0) -> tuple[list[dict], list[str]]:
    """Locate claims in the full text; split them into verified and unverified.

    A claim is verified when its whitespace-normalised text is a substring of the
    whitespace-normalised paper (case and punctuation must match exactly). The search
    prefers a match at or after ``chunk_offset`` (the chunk it came from), then anywhere.
    Duplicates (same offsets) are kept once.

    Args:
        fulltext: The paper text the offsets refer to.
        claims: Claim texts as returned by the model.
        chunk_offset: Offset of the source chunk in ``fulltext``.

    Returns:
        ``(verified, unverified)``: verified as ``{"text", "start", "end"}`` dicts with
        ``text == fulltext[start:end]``, unverified as the raw strings.
    """
    verified: list[dict] = []
    unverified: list[str] = []
    seen: set[tuple[int, int]] = set()
    for claim in claims:
        if not normalize_ws(claim):
            continue
        span = find_span(fulltext, claim, start_at=chunk_offset) or find_span(fulltext, claim)
        if span is None:
            unverified.append(claim)
            continue
        if span in seen:
            continue
        seen.add(span)
        verified.append({"text": fulltext[span[0]:span[1]], "start": span[0], "end": span[1]})
    return verified, unverified


async def extract_claims(client: ChatClientProtocol, paper: PaperText, *, options: ClaimcheckOptions) -> dict:
    """Extract claims from one paper (one structured call per chunk).

    Args:
        client: A chat client (``noveval.models.get_client``).
        paper: The paper (full text in ``paper.fulltext``).
        options: Chunk size, chunk limit, generation settings.

    Returns:
        A prediction row ``{"id", "paper_id", "claims": [{"id", "text", "start", "end",
        "chunk"}], "unverified": [{"chunk", "text"}], "failures": [{"chunk", "error",
        "failure"}], "n_chunks", "n_chunks_total", "error", "failure"}``; claim ids are
        ``c1, c2, ...`` in text order. ``error``/``failure`` are set when a chunk failed
        (a re-run redoes the paper; the chunks that worked come from the cache).
    """
    body = strip_references(paper.fulltext)
    chunks = split_chunks(body, options.chunk_chars)
    used = chunks[: options.max_chunks] if options.max_chunks else chunks

    async def one(k: int, offset: int, chunk: str, tr: Any) -> Any:
        messages = prompt_messages("extract", title=paper.title, abstract=paper.abstract, chunk=chunk)
        res = await structured(client, messages, ExtractReply, task="extract", options=options,
                               tag=f"claimcheck.extract:{paper.id}:{k}")
        tr.advance()
        return res

    with track(len(used), f"claimcheck extract {paper.id}: chunks", client=client) as tr:
        results = await asyncio.gather(*(one(k, o, c, tr) for k, (o, c) in enumerate(used)))
    claims: list[dict] = []
    unverified: list[dict] = []
    failures: list[dict] = []
    seen: set[tuple[int, int]] = set()
    for k, ((offset, _chunk), res) in enumerate(zip(used, results, strict=True)):
        if not res.ok:
            failures.append({"chunk": k, "error": res.error, "failure": failure_of(res)})
            continue
        ok, bad = verify_claims(paper.fulltext, res.value.claims, chunk_offset=offset)
        for c in ok:
            if (c["start"], c["end"]) not in seen:
                seen.add((c["start"], c["end"]))
                claims.append({**c, "chunk": k})
        unverified.extend({"chunk": k, "text": t} for t in bad)
    claims.sort(key=lambda c: c["start"])
    for i, c in enumerate(claims, 1):
        c["id"] = f"c{i}"
    return {
        "id": paper.id,
        "paper_id": paper.id,
        "claims": [{"id": c["id"], **{k: v for k, v in c.items() if k != "id"}} for c in claims],
        "unverified": unverified,
        "failures": failures,
        "n_chunks": len(used),
        "n_chunks_total": len(chunks),
        "error": f"{len(failures)} of {len(used)} chunks failed; first: {failures[0]['error']}" if failures else None,
        "failure": failures[0]["failure"] if failures else None,
    }
