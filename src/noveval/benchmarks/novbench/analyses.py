"""NovBench analyses (Appendix H) and the Table-2-shaped result table.

* :func:`perturb_records` — input perturbation of the novelty description
  (Appendix H.1, Table 5): ``"change"`` paraphrases every sentence with an LLM,
  ``"del"`` deletes a fraction of the sentences (at least one is kept).
* :func:`aclassify_paper_types` — method vs resource papers from title + abstract
  with an LLM (Appendix H.2, Tables 6-7); :func:`group_scores` averages per-item
  scores per group.
* :func:`render_table` — rows = models (plus the Human row), columns =
  Rel./Cov./Clarity/DistAcc per prompting strategy, like Table 2.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from noveval.benchmarks.novbench._prompts import messages
from noveval.benchmarks.novbench.data import NovBenchRecord, load_records, parse_list_field
from noveval.benchmarks.novbench.scoring import aggregate
from noveval.errors import InputError
from noveval.io import read_json, read_jsonl
from noveval.models import ChatRequest, GenerationParams
from noveval.models.calls import note_answer
from noveval.models.chat import ChatClientProtocol

__all__ = [
    "perturb_records",
    "delete_sentences",
    "aclassify_paper_types",
    "parse_paper_type",
    "group_scores",
    "render_table",
    "load_comments",
]


def delete_sentences(
    sentences: Sequence[str], *, fraction: float = 0.3, seed: int = 0, key: str = ""
) -> list[str]:
    """Drop ``round(fraction * n)`` sentences at seeded positions, keeping at least one.

    Args:
        sentences: The novelty description.
        fraction: Share of sentences removed, in [0, 1).
        seed: Seed; with ``key`` (the record id) it fixes which sentences go.
        key: Extra seed material so each record loses different positions.

    Returns:
        The remaining sentences in their original order.
    """
    if not 0.0 <= fraction < 1.0:
        raise ValueError("fraction must be in [0, 1)")
    n = len(sentences)
    k = min(round(fraction * n), n - 1)
    if k <= 0:
        return list(sentences)
    digest = hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()
    drop = set(random.Random(int(digest[:16], 16)).sample(range(n), k))
    return [s for i, s in enumerate(sentences) if i not in drop]


async def perturb_records(
    records: Sequence[NovBenchRecord],
    mode: Literal["change", "del"],
    *,
    client: ChatClientProtocol | None = None,
    fraction: float = 0.3,
    seed: int = 0,
    progress: str | None = "perturb",
) -> list[NovBenchRecord]:
    """Perturbed copies of the records (Appendix H.1).

    Args:
        records: Originals.
        mode: ``"change"`` (LLM paraphrase of each sentence; needs ``client``) or
            ``"del"`` (partial deletion, :func:`delete_sentences`).
        client: Chat client for ``"change"``.
        fraction: Deleted share for ``"del"``.
        seed: Seed.
        progress: Progress label.

    Returns:
        New records with ``paper_novelty`` replaced (a failed or empty paraphrase
        keeps the original sentence).
    """
    if mode == "del":
        return [
            r.model_copy(
                update={"paper_novelty": delete_sentences(r.paper_novelty, fraction=fraction, seed=seed, key=r.id)}
            )
            for r in records
        ]
    if mode != "change":
        raise ValueError("mode must be 'change' or 'del'")
    if client is None:
        raise ValueError("paraphrasing ('change') needs a chat client")

    params = GenerationParams(temperature=0.0, max_tokens=160, seed=seed)
    flat = [(i, s) for i, r in enumerate(records) for s in r.paper_novelty]
    reqs = [
        ChatRequest(messages=messages("perturb_paraphrase", sentence=s), params=params, tag="paraphrase")
        for _, s in flat
    ]
    resps = await client.acomplete_many(reqs, progress=progress)

    new: list[list[str]] = [[] for _ in records]
    for (i, s), resp in zip(flat, resps, strict=True):
        text = (resp.text or "").strip().strip('"').strip() if resp.ok else ""
        text = text.splitlines()[0].strip() if text else ""
        note_answer(client, resp, usable=len(text) >= 10, role="paraphraser")
        new[i].append(text if len(text) >= 10 else s)
    return [r.model_copy(update={"paper_novelty": new[i]}) for i, r in enumerate(records)]


def parse_paper_type(text: str | None) -> str | None:
    """``"method"`` / ``"resource"`` from a classifier reply, None when neither appears."""
    if not text:
        return None
    m = re.search(r"\b(method|resource)s?\b", text, re.IGNORECASE)
    return m.group(1).lower() if m else None


async def aclassify_paper_types(
    client: ChatClientProtocol, records: Sequence[NovBenchRecord], *, seed: int = 0, progress: str | None = "paper type"
) -> dict[str, str | None]:
    """Method vs resource paper from title + abstract (Appendix H.2).

    Returns:
        Record id -> ``"method"``, ``"resource"`` or None (unparsed reply).
    """
    params = GenerationParams(temperature=0.0, max_tokens=8, seed=seed)
    reqs = [
        ChatRequest(
            messages=messages("paper_type", title=r.title, abstract=r.abstract),
            params=params,
            tag="paper_type",
        )
        for r in records
    ]
    resps = await client.acomplete_many(reqs, progress=progress)

    out = {r.id: parse_paper_type(x.text if x.ok else None) for r, x in zip(records, resps, strict=True)}
    for r, x in zip(records, resps, strict=True):
        note_answer(client, x, usable=out[r.id] is not None, role="classifier")
    return out


def group_scores(
    per_item: Sequence[dict[str, Any]], groups: dict[str, str | None], *, seed: int = 0
) -> dict[str, dict[str, Any]]:
    """Aggregate per-item scores within each group (e.g. paper type; Tables 6-7).

    Returns:
        Group name -> ``{metric: {mean, ci_low, ci_high, n}}``; items whose group is
        None are left out.
    """
    by: dict[str, list[dict[str, Any]]] = {}
    for row in per_item:
        g = groups.get(row["id"])
        if g is not None:
            by.setdefault(g, []).append(row)
    return {g: aggregate(rows, seed=seed) for g, rows in sorted(by.items())}


_COLS = (("relevance", "Rel."), ("coverage", "Cov."), ("clarity", "Clarity"), ("dist_acc", "DistAcc"))


def _fmt(m: dict[str, Any] | None) -> str:
    if not m or m.get("mean") is None:
        return "-"
    return f"{m['mean']:.4f}"


def render_table(results: Sequence[dict[str, Any]], *, clarity: str = "paper") -> str:
    """A plain-text table shaped like Table 2.

    Args:
        results: ``scores.json`` dicts (``model``, ``metrics``, ``extra.prompting``,
            ``extra.human``).
        clarity: Which Clarity column to show: ``paper`` or ``reference``.

    Returns:
        The table: one row per model plus a ``Human`` row; column groups per prompting;
        below it, the embedders and perplexity model of each distinct set-up
        (``extra.models_note``) and which Clarity variant is comparable with the paper.
    """
    cols = [(k if k != "clarity" or clarity == "paper" else "clarity_reference", h) for k, h in _COLS]
    promptings = list(dict.fromkeys(r.get("extra", {}).get("prompting") or "-" for r in results))
    models = list(dict.fromkeys(r.get("model") or "?" for r in results))
    cell: dict[tuple[str, str], dict[str, Any]] = {}
    human: dict[str, dict[str, Any]] = {}
    for r in results:
        p = r.get("extra", {}).get("prompting") or "-"
        cell[(r.get("model") or "?", p)] = r["metrics"]
        human.setdefault(p, r.get("extra", {}).get("human") or {})
    header1 = ["Model"] + [p for p in promptings for _ in cols]
    header2 = [""] + [h for _ in promptings for _, h in cols]
    body = []
    for m in models:
        row = [m]
        for p in promptings:
            met = cell.get((m, p), {})
            row += [_fmt(met.get(k)) for k, _ in cols]
        body.append(row)
    hrow = ["Human"]
    for p in promptings:
        met = human.get(p, {})
        hrow += [_fmt(met.get("relevance"))] + ["-"] * (len(cols) - 1)
    body.append(hrow)
    table = [header1, header2, *body]
    widths = [max(len(str(row[i])) for row in table) for i in range(len(header1))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)) for row in table]
    lines.insert(2, "-" * len(lines[0]))
    notes = list(dict.fromkeys(str(r.get("extra", {}).get("models_note")) for r in results if r.get("extra", {}).get("models_note")))
    lines += [f"Models: {n}" for n in notes]
    if clarity == "paper":
        lines.append("Clarity: Eq. 7 (KC + LS + FS)/3, the variant comparable with the paper's Table 2.")
    else:
        lines.append("Clarity: the released comment_evaluate.py formula (0.5 KC + 0.5 LS); the paper's "
                     "Table 2 and result files follow Eq. 7 instead (clarity paper).")
    return "\n".join(lines)


def load_comments(path: str | Path) -> dict[str, list[str]]:
    """Per-paper novelty comments for stage 3.

    Accepts NovBench records (``review_novelty``) or JSON/JSONL rows
    ``{id, comments: [...]}``.

    Raises:
        InputError: neither format fits.
    """
    p = Path(path)
    name = p.name[:-3] if p.name.endswith(".gz") else p.name
    rows = read_jsonl(p) if name.endswith(".jsonl") else read_json(p)
    if not isinstance(rows, list) or not rows or not isinstance(rows[0], dict):
        raise InputError(p, None, None, "expected a list of records")
    if "paper_novelty" in rows[0]:
        return {r.id: r.review_novelty for r in load_records(p)}
    out: dict[str, list[str]] = {}
    for i, r in enumerate(rows):
        if "id" not in r or "comments" not in r:
            raise InputError(p, i + 1 if name.endswith(".jsonl") else None, f"[{i}]", "needs id and comments")
        try:
            out[str(r["id"])] = parse_list_field(r["comments"])
        except ValueError as e:
            raise InputError(p, None, f"[{i}].comments", str(e)) from e
    return out
