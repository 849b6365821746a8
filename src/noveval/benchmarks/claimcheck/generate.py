"""Run a CLAIMCHECK task into a resumable run directory (Python API behind the CLI).

Inputs by task:

* ``extract``: papers (shared full texts or a papers file) -> claims per paper.
* ``wi``: reviews of those papers, or the reviews named in an annotation file.
* ``ca``, ``wl``, ``cv``, ``wle``: weaknesses from an annotation file (gold, or the
  output of :func:`wi_to_annotations`); CV and WLE use only weaknesses with at least
  one target claim (§4.2-4.3).

Every task writes ``config.json`` and ``predictions.jsonl`` (CV and WLE also
``judgments.jsonl``) and is resumable: re-running finishes what is missing and makes no
model call for what is done (the client cache answers repeats).
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from noveval.benchmarks.claimcheck._common import TaskOptions, prompt_hashes
from noveval.benchmarks.claimcheck.data import (
    PaperText,
    ReviewAnnotation,
    load_annotations,
    load_fulltext_papers,
    load_papers_file,
)
from noveval.errors import InputError
from noveval.models.client import run_async

__all__ = ["TASKS", "load_inputs", "run_task", "arun_task", "wi_to_annotations", "predictions_to_annotations"]

Task = Literal["extract", "wi", "ca", "wl", "cv", "wle"]
TASKS: tuple[str, ...] = ("extract", "wi", "ca", "wl", "cv", "wle")
_PROMPTS = {
    "extract": ["extract"], "wi": ["wi"], "ca": ["ca"], "wl": ["wl"],
    "cv": ["cv_distill", "cv_generate", "cv_judge"], "wle": ["wle_rewrite", "wle_judge"],
}


def load_inputs(
    *,
    data_dir: str | Path | None = None,
    papers_file: str | Path | None = None,
    annotations: str | Path | None = None,
    paper_ids: list[str] | None = None,
    limit: int | None = None,
) -> tuple[dict[str, PaperText], list[ReviewAnnotation] | None]:
    """Load papers (and annotations) and validate them before any run starts.

    Args:
        data_dir: Shared data folder (for NeurIPS 2025 full texts and reviews).
        papers_file: A papers file instead (see :func:`load_papers_file`).
        annotations: Annotation file (format in :mod:`~noveval.benchmarks.claimcheck.data`).
        paper_ids: Restrict to these papers.
        limit: At most this many papers (when no annotation file names them).

    Returns:
        ``(papers_by_id, annotations_or_None)``.

    Raises:
        InputError: Missing inputs or any invalid record.
    """
    from noveval.settings import data_dir as find_data_dir

    if papers_file is not None:
        papers = load_papers_file(papers_file)
        if paper_ids:
            papers = {k: v for k, v in papers.items() if k in set(paper_ids)}
    else:
        root = find_data_dir(data_dir)
        if root is None:
            raise InputError(data_dir, None, "data_dir", "shared data folder not found; pass "
                             "--data-dir or --papers")
        ids = paper_ids
        if annotations is not None and not ids:
            from noveval.io import read_records

            ids = sorted({r.paper_id for r in read_records(annotations, _PaperIdOnly)})
        papers = {p.id: p for p in load_fulltext_papers(root, ids=ids, limit=None if ids else limit)}
    anns = None
    if annotations is not None:
        anns = load_annotations(annotations, papers=papers)
        if limit is not None and not paper_ids:
            keep = list(dict.fromkeys(a.paper_id for a in anns))[:limit]
            anns = [a for a in anns if a.paper_id in keep]
    elif limit is not None:
        papers = dict(list(papers.items())[:limit])
    if not papers:
        raise InputError(papers_file or data_dir, None, "paper_ids", "no paper selected")
    return papers, anns


class _PaperIdOnly(BaseModel):
    model_config = ConfigDict(extra="allow")
    paper_id: str


def wi_to_annotations(
    wi_rows: list[dict], *, annotator: str, claims_by_paper: dict[str, list[dict]] | None = None
) -> list[dict]:
    """Turn WI prediction rows into annotation records (to chain WI -> CA/WL/CV/WLE).

    Args:
        wi_rows: Rows of a WI ``predictions.jsonl``.
        annotator: Name to record (e.g. the model id).
        claims_by_paper: Candidate claims per paper, e.g. from an extract run
            (``{"id", "text", "start", "end"}`` dicts).

    Returns:
        Records in the annotation format (texts included).
    """
    out = []
    for row in wi_rows:
        claims = [{"id": c["id"], "text": c["text"]} for c in (claims_by_paper or {}).get(row["paper_id"], [])]
        out.append({
            "paper_id": row["paper_id"], "review_index": row["review_index"], "annotator": annotator,
            "claims": claims,
            "weaknesses": [{"id": w["id"], "start": w["start"], "end": w["end"], "text": w["text"],
                            "groundedness": w["groundedness"]} for w in row["weaknesses"]],
        })
    return out


def _config(task: str, model: str, judge: str | None, options: TaskOptions, inputs: dict) -> dict:
    return {"benchmark": "claimcheck", "task": task, "model": model, "judge": judge,
            "options": asdict(options), "prompts": prompt_hashes(_PROMPTS[task]), "inputs": inputs}


async def arun_task(
    task: Task,
    *,
    out: str | Path,
    papers: dict[str, PaperText],
    annotations: list[ReviewAnnotation] | None = None,
    client: Any,
    judge: Any | None = None,
    options: TaskOptions | None = None,
    inputs: dict | None = None,
    overwrite: bool = False,
    limit_items: int | None = None,
) -> Path:
    """Async :func:`run_task` on loaded inputs and ready clients.

    Args:
        task: One of :data:`TASKS`.
        out: Run directory.
        papers: Papers by id.
        annotations: Annotation records (required for ca/wl/cv/wle; optional for wi).
        client: Model under evaluation.
        judge: Judge client for CV/WLE (default ``client``).
        options: Task options.
        inputs: Input description stored in ``config.json``.
        overwrite: Replace a run with another config in ``out``.
        limit_items: Run at most this many items.

    Returns:
        The run directory.
    """
    from noveval.runs import RunDir, run_items

    if task not in TASKS:
        raise InputError(None, None, "task", f"unknown task {task!r}; choose from {', '.join(TASKS)}")
    options = options or TaskOptions()
    judge_id = getattr(judge or client, "model_id", None) if task in ("cv", "wle") else None
    if task in ("ca", "wl", "cv", "wle") and annotations is None:
        raise InputError(None, None, "annotations", f"task {task} needs an annotation file "
                         "(--annotations): gold, or WI output converted with wi_to_annotations")
    cfg = _config(task, client.model_id, judge_id, options,
                  {**(inputs or {}), "limit_items": limit_items})
    run = RunDir.create(out, cfg, overwrite=overwrite)

    def cap(items: list) -> list:
        return items[:limit_items] if limit_items else items

    if task == "extract":
        from noveval.benchmarks.claimcheck.extract import extract_claims

        items = cap(list(papers.values()))
        await run_items(run, "predictions", items,
                        lambda p: extract_claims(client, p, options=options),
                        id_of=lambda p: p.id, progress="claimcheck extract", client=client)
        return run.path
    if task == "wi":
        from noveval.benchmarks.claimcheck.wi import identify_weaknesses

        if annotations is not None:
            pairs = list(dict.fromkeys((a.paper_id, a.review_index or 0, a.review_text or "", a.key)
                                       for a in annotations))
        else:
            pairs = [(p.id, i, r, f"{p.id}#{i}") for p in papers.values() for i, r in enumerate(p.reviews)]
        pairs = cap(pairs)
        await run_items(run, "predictions", pairs,
                        lambda t: identify_weaknesses(
                            client, paper_id=t[0], review_index=t[1], review_text=t[2],
                            title=papers[t[0]].title if t[0] in papers else "", options=options),
                        id_of=lambda t: t[3], progress="claimcheck wi", client=client)
        return run.path

    from noveval.benchmarks.claimcheck.items import focal_items, weakness_items

    assert annotations is not None
    items = weakness_items(annotations, papers, require_targets=task in ("cv", "wle"))
    if task == "cv":
        items = focal_items(items)
    items = cap(items)
    if task == "ca":
        from noveval.benchmarks.claimcheck.ca import associate_claims

        await run_items(run, "predictions", items,
                        lambda it: associate_claims(client, it, options=options),
                        id_of=lambda it: it.id, progress="claimcheck ca", client=client)
    elif task == "wl":
        from noveval.benchmarks.claimcheck.wl import label_weakness

        await run_items(run, "predictions", items,
                        lambda it: label_weakness(client, it, options=options),
                        id_of=lambda it: it.id, progress="claimcheck wl", client=client)
    elif task == "cv":
        from noveval.benchmarks.claimcheck.cv import verify_claim

        async def cv_worker(it: Any) -> dict:
            pred, judgment = await verify_claim(client, it, options=options, judge=judge)
            pred["judgment"] = judgment
            return pred

        rows = await run_items(run, "predictions", items, cv_worker, id_of=lambda it: it.id,
                               progress="claimcheck cv", client=client)
        run.write("judgments", [r["judgment"] for r in rows])
    elif task == "wle":
        from noveval.benchmarks.claimcheck.wle import judge_pair, rewrite_weakness

        rows = await run_items(run, "predictions", items,
                               lambda it: rewrite_weakness(client, it, options=options),
                               id_of=lambda it: it.id, progress="claimcheck wle rewrite",
                               client=client)
        await run_items(run, "judgments", rows,
                        lambda r: judge_pair(judge or client, r, options=options),
                        id_of=lambda r: r["id"], progress="claimcheck wle judge", client=judge)
    return run.path


def run_task(
    task: Task,
    *,
    out: str | Path,
    model: str = "local",
    judge: str | None = None,
    data_dir: str | Path | None = None,
    papers_file: str | Path | None = None,
    annotations: str | Path | None = None,
    paper_ids: list[str] | None = None,
    limit: int | None = None,
    limit_items: int | None = None,
    options: TaskOptions | None = None,
    cache: str | None = "default",
    refresh: bool = False,
    concurrency: int | None = None,
    timeout_s: float = 120.0,
    overwrite: bool = False,
) -> Path:
    """Run one CLAIMCHECK task end to end (inputs validated before anything is written).

    Args:
        task: ``extract``, ``wi``, ``ca``, ``wl``, ``cv`` or ``wle``.
        out: Run directory.
        model: Model spec of the model under evaluation.
        judge: Judge model spec for CV/WLE (default: ``model``).
        data_dir: Shared data folder.
        papers_file: Papers file instead of the shared data.
        annotations: Annotation file (needed by ca/wl/cv/wle).
        paper_ids: Restrict to these papers.
        limit: At most this many papers.
        limit_items: At most this many task items.
        options: Task options (chunking, context budget, generation).
        cache: Response cache (``"default"``, a path, or ``None``).
        refresh: Recompute cached responses.
        concurrency: Max in-flight model requests.
        timeout_s: Per-attempt model timeout (raise it for slow local CPUs).
        overwrite: Replace an existing run with another config.

    Returns:
        The run directory.
    """
    from noveval.models import get_client

    papers, anns = load_inputs(data_dir=data_dir, papers_file=papers_file, annotations=annotations,
                               paper_ids=paper_ids, limit=limit)
    client = get_client(model, cache=cache, refresh=refresh, concurrency=concurrency,
                        timeout_s=timeout_s)
    judge_client = get_client(judge, cache=cache, refresh=refresh, concurrency=concurrency,
                              timeout_s=timeout_s) \
        if judge and judge != model else None
    inputs = {"data_dir": str(data_dir) if data_dir else None,
              "papers_file": str(papers_file) if papers_file else None,
              "annotations": str(annotations) if annotations else None,
              "paper_ids": sorted(papers)}
    return run_async(arun_task(task, out=out, papers=papers, annotations=anns, client=client,
                                 judge=judge_client, options=options, inputs=inputs,
                                 overwrite=overwrite, limit_items=limit_items), client, judge_client)


def predictions_to_annotations(
    annotations: list[ReviewAnnotation],
    *,
    annotator: str,
    ca_rows: list[dict] | None = None,
    wl_rows: list[dict] | None = None,
) -> list[dict]:
    """Model CA/WL predictions on gold weaknesses as annotation records.

    The result has the gold weaknesses (same spans) with the model's target claims and
    labels, so ``noveval claimcheck agreement GOLD --model-file OUT`` adds the model as
    one more annotator for CA and WL (§4.1, Table 2). Weaknesses with no prediction are
    left out (so they are not counted as "no target claim"); a failed prediction keeps
    no label.

    Args:
        annotations: The gold records the predictions were made on.
        annotator: Name to record for the model.
        ca_rows: Rows of a CA ``predictions.jsonl``.
        wl_rows: Rows of a WL ``predictions.jsonl``.

    Returns:
        Records in the annotation format (texts included).
    """
    ca = {r["id"]: r for r in ca_rows or []}
    wl = {r["id"]: r for r in wl_rows or []}
    out = []
    for rec in annotations:
        weaknesses = []
        for w in rec.weaknesses:
            wid = f"{rec.key}/{rec.annotator}/{w.id}"
            item: dict = {"id": w.id, "start": w.start, "end": w.end, "text": w.text}
            c = ca.get(wid)
            if c is not None and not c.get("error"):
                item["target_claims"] = c["target_claims"]
                if c.get("custom_claim"):
                    item["custom_claim"] = {"text": c["custom_claim"]}
            lab = wl.get(wid)
            if lab is not None and lab.get("objectivity") is not None and lab.get("types"):
                item.update(objectivity=lab["objectivity"], agreement=lab["agreement"],
                            types=lab["types"])
            if c is None and lab is None:
                continue  # not predicted: leave it out rather than count it as "no target"
            weaknesses.append(item)
        out.append({"paper_id": rec.paper_id, "review_index": rec.review_index,
                    "review_id": rec.key, "review_text": rec.review_text, "annotator": annotator,
                    "claims": [{"id": c.id, "text": c.text} for c in rec.claims],
                    "weaknesses": weaknesses})
    return out
