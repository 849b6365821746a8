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

from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from noveval.benchmarks.claimcheck._common import PAPER_SEEDS, PROTOCOLS, TaskOptions, prompt_hashes
from noveval.benchmarks.claimcheck.data import (
    PaperText,
    ReviewAnnotation,
    load_annotations,
    load_fulltext_papers,
    load_papers_file,
)
from noveval.benchmarks.claimcheck.related import RelatedCorpus, numbered_references
from noveval.errors import InputError
from noveval.models.chat import ChatClientProtocol
from noveval.models.client import run_async

__all__ = ["TASKS", "load_inputs", "run_task", "arun_task", "wi_to_annotations", "predictions_to_annotations",
           "resolve_seeds", "seeded_id", "check_sampling"]

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


def resolve_seeds(protocol: str, task: str, seeds: list[int] | tuple[int, ...] | None, seed: int = 0) -> tuple[int, ...]:
    """The sampling seeds a run uses.

    Explicit ``seeds`` win. Otherwise the paper protocol uses :data:`PAPER_SEEDS`
    (Appendix C.1 averages seeds 0, 42 and 2025) -- except for ``extract``, which the
    paper runs once as data preparation (§3.2), with the first of them -- and the
    noveval protocol uses the single ``seed``.

    Raises:
        InputError: A repeated seed.
    """
    if seeds:
        if len(set(seeds)) != len(seeds):
            raise InputError(None, None, "--seeds", f"repeated seed in {list(seeds)}")
        return tuple(int(x) for x in seeds)
    if protocol == "paper":
        return PAPER_SEEDS[:1] if task == "extract" else PAPER_SEEDS
    return (int(seed),)


def seeded_id(item_id: str, seed: int, seeds: tuple[int, ...]) -> str:
    """Row id of an item under one seed: the item id, suffixed ``@seed<s>`` when a run has
    several seeds."""
    return f"{item_id}@seed{seed}" if len(seeds) > 1 else item_id


def _config(task: str, model: str, judge: str | None, options: TaskOptions, inputs: dict,
            seeds: tuple[int, ...]) -> dict:
    names = list(_PROMPTS[task])
    if options.paper and task in ("wl", "wle"):
        names = ["wle_paper"] + (["wle_judge"] if task == "wle" else [])
    recorded = asdict(options)
    if options.samples == 1:  # absent for one sample: runs made before --samples existed resume
        del recorded["samples"]
    return {"benchmark": "claimcheck", "task": task, "protocol": options.protocol, "seeds": list(seeds),
            "model": model, "judge": judge,
            "judge_is_model_under_test": (judge == model) if judge is not None else None,
            "options": recorded, "prompts": prompt_hashes(names), "inputs": inputs}


def check_sampling(task: str, options: TaskOptions) -> None:
    """Refuse ``--samples N`` where it cannot work (before anything is written).

    Raises:
        InputError: N > 1 for a task other than ``wl`` (the one labeling step: the others
            answer with spans, claim sets or free text, which have no plurality), or at
            temperature 0.
    """
    from noveval.metrics.consistency import check_samples

    if options.samples > 1 and task != "wl":
        raise InputError(None, None, "--samples", f"self-consistency samples are for the labeling task wl, not "
                         f"{task}: {task} answers with spans, claim sets or free text, which have no plurality vote")
    check_samples(options.samples, options.temp("wle" if options.paper else task))


def _related_references(rc: RelatedCorpus, papers: dict[str, PaperText],
                        paper_ids: set[str]) -> tuple[dict[str, list], dict[str, dict]]:
    refs, stats = {}, {}
    for pid in sorted(paper_ids):
        paper = papers.get(pid)
        if paper is None:
            continue
        refs[pid] = rc.references_of(paper.fulltext, own_title=paper.title)
        stats[pid] = {"n_references": len(numbered_references(paper.fulltext)), "n_matched": len(refs[pid])}
    return refs, stats


async def arun_task(
    task: Task,
    *,
    out: str | Path,
    papers: dict[str, PaperText],
    annotations: list[ReviewAnnotation] | None = None,
    client: ChatClientProtocol,
    judge: Any | None = None,
    options: TaskOptions | None = None,
    inputs: dict | None = None,
    overwrite: bool = False,
    limit_items: int | None = None,
    seeds: list[int] | tuple[int, ...] | None = None,
    corpus: str | Path | RelatedCorpus | None = None,
) -> Path:
    """Async :func:`run_task` on loaded inputs and ready clients.

    Args:
        task: One of :data:`TASKS`.
        out: Run directory.
        papers: Papers by id.
        annotations: Annotation records (required for ca/wl/cv/wle; optional for wi).
        client: Model under evaluation.
        judge: Judge client for CV/WLE (default ``client``: the model under test).
        options: Task options (``options.protocol`` picks the protocol).
        inputs: Input description stored in ``config.json``.
        overwrite: Replace a run with another config in ``out``.
        limit_items: Run at most this many items (per seed).
        seeds: Sampling seeds (default: :func:`resolve_seeds`); with several, every item
            runs once per seed (row ids ``<id>@seed<s>``) and scores average the seeds.
        corpus: Corpus file (or loaded :class:`RelatedCorpus`) to find the cited related
            works shown to CA, CV, WL/WLE; required by the paper protocol for those tasks.

    Returns:
        The run directory.
    """
    from noveval.runs import RunDir, run_items

    if task not in TASKS:
        raise InputError(None, None, "task", f"unknown task {task!r}; choose from {', '.join(TASKS)}")
    options = options or TaskOptions()
    if options.protocol not in PROTOCOLS:
        raise InputError(None, None, "--protocol", f"unknown protocol {options.protocol!r}; "
                         f"choose {' or '.join(PROTOCOLS)}")
    check_sampling(task, options)
    run_seeds = resolve_seeds(options.protocol, task, seeds, options.seed)
    close = sorted(run_seeds)
    if options.samples > 1 and any(b - a < options.samples for a, b in zip(close, close[1:])):
        raise InputError(None, None, "--seeds", f"seeds {list(run_seeds)} are closer than --samples "
                         f"{options.samples}: their samples (seed .. seed + {options.samples - 1}) would overlap; "
                         f"space the seeds at least {options.samples} apart")
    judge_client = judge or client
    judge_id = getattr(judge_client, "model_id", None) if task in ("cv", "wle") else None
    if task in ("ca", "wl", "cv", "wle") and annotations is None:
        raise InputError(None, None, "annotations", f"task {task} needs an annotation file "
                         "(--annotations): gold, or WI output converted with wi_to_annotations")
    if options.paper and task in ("ca", "wl", "cv", "wle") and corpus is None:
        raise InputError(None, None, "--corpus", f"the paper protocol shows {task} the related works "
                         "the weakness and its claims cite (§4.2-4.3); pass --corpus (e.g. "
                         "corpus/papers.jsonl.gz) to match the paper's references against")
    rc: RelatedCorpus | None = None
    if corpus is not None and task in ("ca", "wl", "cv", "wle"):  # validated before anything is written
        rc = corpus if isinstance(corpus, RelatedCorpus) else RelatedCorpus.load(corpus)
    corpus_path = getattr(corpus, "path", corpus)
    cfg = _config(task, client.model_id, judge_id, options,
                  {**(inputs or {}), "limit_items": limit_items,
                   "corpus": str(corpus_path) if corpus_path else None}, run_seeds)
    run = RunDir.create(out, cfg, overwrite=overwrite)

    def cap(items: list) -> list:
        return items[:limit_items] if limit_items else items

    def seeded(items: list, id_of: Callable[[Any], str]) -> tuple[list, Callable[[Any], str]]:
        """Every (seed, item) pair, and the pair's row id."""
        pairs = [(s, it) for s in run_seeds for it in items]
        return pairs, lambda p: seeded_id(id_of(p[1]), p[0], run_seeds)

    def with_seed(row: dict, s: int) -> dict:
        return {**row, "seed": s}

    opts = {s: replace(options, seed=s) for s in run_seeds}

    if task == "extract":
        from noveval.benchmarks.claimcheck.extract import extract_claims

        pairs, pid = seeded(cap(list(papers.values())), lambda p: p.id)

        async def extract_one(p: tuple[int, PaperText]) -> dict:
            return with_seed(await extract_claims(client, p[1], options=opts[p[0]]), p[0])

        await run_items(run, "predictions", pairs, extract_one, id_of=pid,
                        progress="claimcheck extract", client=client)
        return run.path
    if task == "wi":
        from noveval.benchmarks.claimcheck.wi import identify_weaknesses

        if annotations is not None:
            reviews = list(dict.fromkeys((a.paper_id, a.review_index or 0, a.review_text or "", a.key)
                                         for a in annotations))
        else:
            reviews = [(p.id, i, r, f"{p.id}#{i}") for p in papers.values() for i, r in enumerate(p.reviews)]
        pairs, pid = seeded(cap(reviews), lambda t: t[3])

        async def wi_one(p: tuple[int, tuple]) -> dict:
            s, t = p
            row = await identify_weaknesses(
                client, paper_id=t[0], review_index=t[1], review_text=t[2],
                title=papers[t[0]].title if t[0] in papers else "", options=opts[s])
            return with_seed(row, s)

        await run_items(run, "predictions", pairs, wi_one, id_of=pid, progress="claimcheck wi", client=client)
        return run.path

    from noveval.benchmarks.claimcheck.items import attach_related, focal_items, weakness_items

    assert annotations is not None
    require_targets = task in ("cv", "wle") or (task == "wl" and options.paper)
    items = weakness_items(annotations, papers, require_targets=require_targets)
    if task == "cv":
        items = focal_items(items)
    items = cap(items)
    if rc is not None:
        refs, stats = _related_references(rc, papers, {it.paper_id for it in items})
        items = attach_related(items, refs, task, max_works=options.max_related, corpus=rc)
        run.write("related", [{"id": pid, **st} for pid, st in stats.items()])
    pairs, pid = seeded(items, lambda it: it.id)
    if task == "ca":
        from noveval.benchmarks.claimcheck.ca import associate_claims

        async def ca_one(p: tuple[int, Any]) -> dict:
            return with_seed(await associate_claims(client, p[1], options=opts[p[0]]), p[0])

        await run_items(run, "predictions", pairs, ca_one, id_of=pid, progress="claimcheck ca", client=client)
    elif task == "wl":
        from noveval.benchmarks.claimcheck.wl import label_weakness

        async def wl_one(p: tuple[int, Any]) -> dict:
            return with_seed(await label_weakness(client, p[1], options=opts[p[0]]), p[0])

        await run_items(run, "predictions", pairs, wl_one, id_of=pid, progress="claimcheck wl", client=client)
    elif task == "cv":
        from noveval.benchmarks.claimcheck.cv import verify_claim

        async def cv_one(p: tuple[int, Any]) -> dict:
            pred, judgment = await verify_claim(client, p[1], options=opts[p[0]], judge=judge)
            if judgment.get("error") and not pred.get("error"):  # a failed judge call is redone on re-run
                pred["error"], pred["failure"] = f"judge: {judgment['error']}", judgment["failure"]
            pred["judgment"] = {**judgment, "id": pid(p)}
            return with_seed(pred, p[0])

        rows = await run_items(run, "predictions", pairs, cv_one, id_of=pid, progress="claimcheck cv", client=client)
        run.write("judgments", [{**r["judgment"], "seed": r.get("seed")} for r in rows])
    elif task == "wle":
        from noveval.benchmarks.claimcheck.wle import judge_pair, rewrite_weakness

        label = "claimcheck wle label+rewrite" if options.paper else "claimcheck wle rewrite"

        async def wle_one(p: tuple[int, Any]) -> dict:
            return with_seed(await rewrite_weakness(client, p[1], options=opts[p[0]]), p[0])

        rows = await run_items(run, "predictions", pairs, wle_one, id_of=pid, progress=label, client=client)

        async def judge_one(r: dict) -> dict:
            return with_seed(await judge_pair(judge_client, r, options=opts[r["seed"]]), r["seed"])

        await run_items(run, "judgments", rows, judge_one, id_of=lambda r: r["id"],
                        progress="claimcheck wle judge", client=judge_client)
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
    seeds: list[int] | tuple[int, ...] | None = None,
    corpus: str | Path | None = None,
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
        seeds: Sampling seeds (default: one under ``noveval``, 0/42/2025 under ``paper``).
        corpus: Corpus file for the cited related works (required by the paper protocol
            for ca/wl/cv/wle).

    Returns:
        The run directory.
    """
    from noveval.models import get_client

    options = options or TaskOptions()
    check_sampling(task, options)  # before loading anything; arun_task checks again (the API entry)
    rc = RelatedCorpus.load(corpus) if corpus is not None and task in ("ca", "wl", "cv", "wle") else None

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
                                 overwrite=overwrite, limit_items=limit_items, seeds=seeds,
                                 corpus=rc if rc is not None else corpus), client, judge_client)


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
