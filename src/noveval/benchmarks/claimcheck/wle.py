"""Weakness editing, WLE (CLAIMCHECK §4.3 "Results: Edited Weaknesses", Table 6).

1. **Rewrite** a reviewer weakness (target claims, paper context, cited related works).

   * ``noveval`` protocol: a call of its own (prompt ``wle_rewrite``) that asks for
     *more specific* feedback and to keep anchors such as line numbers and quotations
     (labels come from the separate WL task).
   * ``paper`` protocol: the paper's single WLE call (prompt ``wle_paper``,
     :func:`label_and_rewrite`): objectivity, agreement and types *and* a rewrite that
     makes the weakness *more sound*, "if needed"; it also shows the whole review.

2. **Similarity** of revised vs. original: ROUGE-1 F1 (lexical, **R**) and BERTScore
   F1 (semantic, **BS**) from :mod:`noveval.metrics.text`; and ``anchors_kept``
   (:func:`anchor_retention`), the share of the original's line numbers, quotations
   and table/figure/section references still in the revision (the paper saw the
   model strip them, making weaknesses *less* specific).
3. **Pairwise specificity** of (original, revised): a judge sees the target claims and
   the two texts as "A" and "B" -- provenance hidden, order randomised per item with a
   seeded RNG (:func:`presentation_order`) -- and prefers A, B or a tie. Outcomes are
   reported from the revised weakness's side as win / tie / loss (paper: 20.0% win,
   47.8% tie). **The paper's judge was a person** (one author); noveval's default
   judge is the model under test (``options.judge`` names another). Every judgment row
   records its ``judge``, and so do ``per_item.jsonl`` and ``scores.json``.
4. **Humans**: :func:`export_pairs_csv` writes the same blinded pairs for human judges;
   :func:`import_human_choices` reads their A/B/tie choices back and maps them to
   outcomes with the hidden order (``judge: "human"``).
"""

from __future__ import annotations

import csv
import hashlib
import io
import random
import re
from pathlib import Path

from noveval.benchmarks.claimcheck._common import (
    WLEJudgeReply,
    WLEPaperReply,
    WLERewriteReply,
    failure_of,
    format_targets,
    paper_context,
    prompt_messages,
    structured,
)
from noveval.benchmarks.claimcheck.items import WeaknessItem
from noveval.benchmarks.claimcheck.options import ClaimcheckOptions
from noveval.benchmarks.claimcheck.related import format_related
from noveval.errors import InputError
from noveval.io import write_text
from noveval.models.chat import ChatClientProtocol

__all__ = [
    "rewrite_weakness",
    "label_and_rewrite",
    "anchor_retention",
    "anchors",
    "presentation_order",
    "judge_pair",
    "outcome_of",
    "export_pairs_csv",
    "import_human_choices",
    "CSV_FIELDS",
]

CSV_FIELDS = ("pair_id", "target_claims", "weakness_A", "weakness_B", "choice")
"""Columns of the human-judging CSV; judges fill ``choice`` with A, B or tie."""


async def label_and_rewrite(client: ChatClientProtocol, item: WeaknessItem, *, options: ClaimcheckOptions) -> dict:
    """The paper's WLE call: label the weakness and rewrite it to be more sound (App. D).

    One request (prompt ``wle_paper``) with the paper context, the cited related works,
    the whole review, the weakness and its target claims. The WL task under the paper
    protocol sends the same request (same options), so the two tasks share one call.

    Returns:
        ``{"id", "original", "revised", "target_claims", "objectivity", "agreement",
        "types", "no_type", "reasoning", "related_works", "error", "failure"}``; on a
        failed call ``revised`` and the labels are ``None``.
    """
    context = paper_context(item.fulltext, item.text + " " + " ".join(item.gold_targets),
                            options.context_chars)
    messages = prompt_messages("wle_paper", title=item.title, context=context, related=format_related(item.related),
                  review=item.review or item.text, weakness=item.text,
                  targets=format_targets(item.gold_targets))
    res = await structured(client, messages, WLEPaperReply, task="wle", options=options,
                           tag=f"claimcheck.wle.paper:{item.id}")
    row: dict = {"id": item.id, "original": item.text, "revised": None,
                 "target_claims": item.gold_targets, "objectivity": None, "agreement": None,
                 "types": [], "no_type": None, "reasoning": None,
                 "related_works": [w.as_record() for w in item.related], "error": None, "failure": None}
    if not res.ok:
        row.update(error=res.error, failure=failure_of(res))
        return row
    r: WLEPaperReply = res.value
    row.update(objectivity=r.objectivity, agreement=r.agreement, types=r.types.labels(),
               reasoning={"objectivity": r.objectivity_reasoning, "agreement": r.agreement_reasoning,
                          "types": r.types_reasoning, "rewrite": r.rewrite_reasoning})
    row["no_type"] = not row["types"]
    # "If needed" (App. D): an empty rewrite means the weakness stays as it is.
    row["revised"] = r.rewritten_weakness.strip() or item.text
    return row


async def rewrite_weakness(client: ChatClientProtocol, item: WeaknessItem, *, options: ClaimcheckOptions) -> dict:
    """Rewrite one weakness (``noveval``: for specificity; ``paper``: :func:`label_and_rewrite`).

    Returns:
        ``{"id", "original", "revised", "target_claims", "related_works", "reasoning",
        "error", "failure"}`` (plus the labels under the paper protocol); on a failed
        call ``revised`` is ``None``.
    """
    if options.paper:
        return await label_and_rewrite(client, item, options=options)
    context = paper_context(item.fulltext, item.text + " " + " ".join(item.gold_targets),
                            options.context_chars)
    res = await structured(
        client, prompt_messages("wle_rewrite", title=item.title, context=context, related=format_related(item.related),
                       targets=format_targets(item.gold_targets), weakness=item.text),
        WLERewriteReply, task="wle", options=options, tag=f"claimcheck.wle.rewrite:{item.id}")
    row = {"id": item.id, "original": item.text, "revised": None,
           "target_claims": item.gold_targets, "related_works": [w.as_record() for w in item.related],
           "reasoning": None, "error": None, "failure": None}
    if res.ok and res.value.revised_weakness.strip():
        row.update(revised=res.value.revised_weakness.strip(), reasoning=res.value.reasoning)
    else:
        row["error"] = res.error or "empty rewrite"
        row["failure"] = failure_of(res) or "unparseable"
    return row


_ANCHORS = (
    re.compile(r"\b(?:lines?|l\.|ll\.)\s*\d+(?:\s*[-–]\s*\d+)?", re.I),
    re.compile(r"\b(?:table|tab\.|figure|fig\.|section|sec\.|eq\.|equation|appendix|algorithm)\s*[A-Z]?\d+(?:\.\d+)*", re.I),
    re.compile(r"[\"“”]([^\"“”]{8,})[\"“”]"),
    re.compile(r"(?<![\w])'([^']{8,})'(?![\w])"),
)


def anchors(text: str) -> list[str]:
    """Textual anchors in a weakness: line numbers, table/figure/section/equation
    references, and quotations of 8+ characters, lower-cased and whitespace-normalised."""
    out: list[str] = []
    for pat in _ANCHORS:
        for m in pat.finditer(text):
            a = " ".join((m.group(1) if m.groups() else m.group(0)).lower().split())
            if a not in out:
                out.append(a)
    return out


def anchor_retention(original: str, revised: str | None) -> float | None:
    """Share of the original's anchors (:func:`anchors`) found in the revision.

    Range [0, 1], best 1; ``None`` when the original has no anchor. A missing revision
    keeps none (0.0). Matching is on lower-cased, whitespace-normalised text.
    """
    found = anchors(original)
    if not found:
        return None
    if not revised:
        return 0.0
    rev = " ".join(revised.lower().split())
    return sum(a in rev for a in found) / len(found)


def presentation_order(item_id: str, seed: int) -> bool:
    """Whether the *revised* weakness is shown as "A" for this item.

    Deterministic per ``(seed, item_id)`` and independent of item order, so a resumed
    or re-scored run shows every pair the same way.
    """
    digest = hashlib.sha256(f"{seed}:{item_id}".encode()).digest()
    return random.Random(digest).random() < 0.5


def outcome_of(choice: str, revised_is_a: bool) -> str:
    """Map an A/B/tie choice to ``"win"``/``"tie"``/``"loss"`` for the revised text."""
    c = choice.strip().lower()
    if c == "tie":
        return "tie"
    if c not in ("a", "b"):
        raise ValueError(f"choice must be A, B or tie, got {choice!r}")
    return "win" if (c == "a") == revised_is_a else "loss"


async def judge_pair(judge: ChatClientProtocol, row: dict, *, options: ClaimcheckOptions) -> dict:
    """Blinded pairwise specificity judgment of (original, revised).

    Returns:
        ``{"id", "judge", "revised_is_a", "preference": "A"|"B"|"tie"|None,
        "outcome": "win"|"tie"|"loss"|None, "reasoning", "raw", "error", "failure"}``;
        ``judge`` is the judge's model id.
    """
    revised_is_a = presentation_order(row["id"], options.seed)
    a, b = (row["revised"], row["original"]) if revised_is_a else (row["original"], row["revised"])
    out: dict = {"id": row["id"], "judge": getattr(judge, "model_id", str(judge)),
                 "revised_is_a": revised_is_a, "preference": None,
                 "outcome": None, "reasoning": None, "raw": [], "error": None, "failure": None}
    if row.get("revised") is None:
        out["error"] = "no revised weakness"
        out["failure"] = row.get("failure") or "unparseable"
        return out
    res = await structured(
        judge, prompt_messages("wle_judge", targets=format_targets(row.get("target_claims") or []), a=a, b=b),
        WLEJudgeReply, task="wle", options=options, tag=f"claimcheck.wle.judge:{row['id']}", role="judge")
    out["raw"] = res.raw
    if res.ok:
        out.update(preference=res.value.preference, reasoning=res.value.reasoning,
                   outcome=outcome_of(res.value.preference, revised_is_a))
    else:
        out["error"] = res.error
        out["failure"] = failure_of(res)
    return out


def export_pairs_csv(rows: list[dict], path: str | Path, *, seed: int = 0) -> tuple[Path, Path]:
    """Write blinded (A, B) pairs for human judges, plus a private key file.

    The CSV (``CSV_FIELDS``) shows neither provenance nor the order; the key
    (``<path>.key.csv``: ``pair_id, revised_is_a``) must be kept from the judges.
    Rows without a revision are skipped.

    Returns:
        ``(csv_path, key_path)``.
    """
    path = Path(path)
    key_path = path.with_suffix(".key.csv")

    body, key = io.StringIO(), io.StringIO()
    w = csv.writer(body)
    k = csv.writer(key)
    w.writerow(CSV_FIELDS)
    k.writerow(("pair_id", "revised_is_a"))
    for row in rows:
        if row.get("revised") is None:
            continue
        rev_a = presentation_order(row["id"], seed)
        a, b = (row["revised"], row["original"]) if rev_a else (row["original"], row["revised"])
        w.writerow((row["id"], " | ".join(row.get("target_claims") or []), a, b, ""))
        k.writerow((row["id"], "1" if rev_a else "0"))
    write_text(path, body.getvalue())
    write_text(key_path, key.getvalue())
    return path, key_path


def import_human_choices(csv_path: str | Path, key_path: str | Path | None = None) -> list[dict]:
    """Read human A/B/tie choices and map them to win/tie/loss for the revision.

    Args:
        csv_path: The exported CSV with the ``choice`` column filled in.
        key_path: The key file (default ``<csv_path>.key.csv``).

    Returns:
        Judgment rows ``{"id", "revised_is_a", "preference", "outcome", "judge": "human"}``
        for every row with a choice (blank choices are skipped).

    Raises:
        InputError: Missing columns, unknown pair ids, or a choice other than A/B/tie.
    """
    csv_path = Path(csv_path)
    key_path = Path(key_path) if key_path else csv_path.with_suffix(".key.csv")
    key: dict[str, bool] = {}
    for _line, rec in _read_csv(key_path, ("pair_id", "revised_is_a")):
        key[rec["pair_id"]] = rec["revised_is_a"].strip() in ("1", "true", "True")
    out = []
    for line, rec in _read_csv(csv_path, ("pair_id", "choice")):
        choice = (rec["choice"] or "").strip()
        if not choice:
            continue
        if rec["pair_id"] not in key:
            raise InputError(csv_path, line, "pair_id", f"{rec['pair_id']!r} is not in the key file")
        try:
            outcome = outcome_of(choice, key[rec["pair_id"]])
        except ValueError as e:
            raise InputError(csv_path, line, "choice", str(e)) from None
        pref = {"a": "A", "b": "B", "tie": "tie"}[choice.lower()]
        out.append({"id": rec["pair_id"], "revised_is_a": key[rec["pair_id"]], "preference": pref,
                    "outcome": outcome, "judge": "human"})
    return out


def _read_csv(path: Path, required: tuple[str, ...]) -> list[tuple[int, dict]]:
    if not path.exists():
        raise InputError(path, None, None, "file not found")
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in required if c not in (reader.fieldnames or [])]
        if missing:
            raise InputError(path, 1, missing[0], "required column is missing")
        return [(i, rec) for i, rec in enumerate(reader, 2)]
