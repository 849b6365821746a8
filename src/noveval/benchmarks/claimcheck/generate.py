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

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from noveval.benchmarks._contract import client_of
from noveval.benchmarks.claimcheck._common import PAPER_SEEDS, prompt_hashes
from noveval.benchmarks.claimcheck.ca import associate_claims
from noveval.benchmarks.claimcheck.cv import verify_claim
from noveval.benchmarks.claimcheck.data import (
    FULLTEXT_PATH,
    PaperText,
    ReviewAnnotation,
    load_annotations,
    load_fulltext_papers,
    load_papers_file,
)
from noveval.benchmarks.claimcheck.extract import extract_claims
from noveval.benchmarks.claimcheck.items import attach_related, focal_items, weakness_items
from noveval.benchmarks.claimcheck.options import MAX_RELATED, TASKS, ClaimcheckOptions, Task
from noveval.benchmarks.claimcheck.related import RelatedCorpus, numbered_references
from noveval.benchmarks.claimcheck.wi import identify_weaknesses
from noveval.benchmarks.claimcheck.wl import label_weakness
from noveval.benchmarks.claimcheck.wle import judge_pair, rewrite_weakness
from noveval.data.folders import data_folder, searched_text
from noveval.errors import InputError
from noveval.io import read_records
from noveval.metrics.consistency import check_samples
from noveval.models.chat import ChatClientProtocol
from noveval.models.client import run_async
from noveval.runs import RunDir, run_items

__all__ = ["TASKS", "WEAKNESS_TASKS", "load_inputs", "run_task", "arun_task", "wi_to_annotations",
           "predictions_to_annotations", "resolve_seeds", "seeded_id", "check_sampling", "Task"]

WEAKNESS_TASKS: tuple[str, ...] = ("ca", "wl", "cv", "wle")
"""The tasks whose items are annotated weaknesses (they need an annotation file)."""

_PROMPTS = {
    "extract": ["extract"], "wi": ["wi"], "ca": ["ca"], "wl": ["wl"],
    "cv": ["cv_distill", "cv_generate", "cv_judge"], "wle": ["wle_rewrite", "wle_judge"],
}


def load_inputs(options: ClaimcheckOptions) -> tuple[dict[str, PaperText], list[ReviewAnnotation] | None]:
    """Load the papers (and annotations) ``options`` name and validate them before any run starts.

    The papers come from ``options.papers`` or, without it, the shared data folder
    (``options.data_dir``, else ``$NOVEVAL_DATA_DIR``, else ``../shared/data``); then
    ``options.paper_id`` restricts them and ``options.limit`` keeps the first N (of the
    annotation file's papers when one is given).

    Returns:
        ``(papers_by_id, annotations_or_None)``.

    Raises:
        InputError: Missing inputs or any invalid record.
    """
    o = options
    if o.papers is not None:
        papers = load_papers_file(o.papers)
        if o.paper_id:
            papers = {k: v for k, v in papers.items() if k in set(o.paper_id)}
    else:
        root = data_folder([FULLTEXT_PATH], o.data_dir)
        if root is None:
            raise InputError(o.data_dir, None, "options.data_dir",
                             f"no data folder holds {FULLTEXT_PATH} ({searched_text(o.data_dir)}): "
                             "noveval data get neurips-fulltext, or give a papers file")
        ids = o.paper_id
        if o.annotations is not None and not ids:
            ids = sorted({r.paper_id for r in read_records(o.annotations, _PaperIdOnly)})
        papers = {p.id: p for p in load_fulltext_papers(root, ids=ids, limit=None if ids else o.limit)}
    anns = None
    if o.annotations is not None:
        anns = load_annotations(o.annotations, papers=papers)
        if o.limit is not None and not o.paper_id:
            keep = list(dict.fromkeys(a.paper_id for a in anns))[: o.limit]
            anns = [a for a in anns if a.paper_id in keep]
    elif o.limit is not None:
        papers = dict(list(papers.items())[: o.limit])
    if not papers:
        raise InputError(o.papers or o.data_dir, None, "options.paper_id", "no paper selected")
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


def resolve_seeds(options: ClaimcheckOptions) -> tuple[int, ...]:
    """The sampling seeds a run uses.

    Explicit ``options.seeds`` win. Otherwise the paper protocol uses :data:`PAPER_SEEDS`
    (Appendix C.1 averages seeds 0, 42 and 2025) -- except for ``extract``, which the
    paper runs once as data preparation (§3.2), with the first of them -- and the
    noveval protocol uses the single ``options.seed``.

    Raises:
        InputError: A repeated seed.
    """
    seeds = options.seeds
    if seeds:
        if len(set(seeds)) != len(seeds):
            raise InputError(None, None, "options.seeds", f"repeated seed in {list(seeds)}")
        return tuple(int(x) for x in seeds)
    if options.paper:
        return PAPER_SEEDS[:1] if options.task == "extract" else PAPER_SEEDS
    return (int(options.seed),)


def seeded_id(item_id: str, seed: int, seeds: tuple[int, ...]) -> str:
    """Row id of an item under one seed: the item id, suffixed ``@seed<s>`` when a run has
    several seeds."""
    return f"{item_id}@seed{seed}" if len(seeds) > 1 else item_id


def _config(task: str, model: str, judge: str | None, options: ClaimcheckOptions, inputs: dict,
            seeds: tuple[int, ...]) -> dict:
    """The run's ``config.json`` (the keys every claimcheck run folder has had: old runs resume)."""
    names = list(_PROMPTS[task])
    if options.paper and task in ("wl", "wle"):
        names = ["wle_paper"] + (["wle_judge"] if task == "wle" else [])
    o = options
    recorded: dict[str, Any] = {
        "protocol": o.protocol, "temperature": o.temperature, "seed": o.seed, "max_tokens": o.max_tokens,
        "context_chars": o.context_chars, "chunk_chars": o.chunk_chars, "max_chunks": o.max_chunks,
        "max_related": MAX_RELATED,
    }
    if o.samples != 1:  # absent for one sample: runs made before samples existed resume
        recorded["samples"] = o.samples
    return {"benchmark": "claimcheck", "task": task, "protocol": o.protocol, "seeds": list(seeds),
            "model": model, "judge": judge,
            "judge_is_model_under_test": (judge == model) if judge is not None else None,
            "options": recorded, "prompts": prompt_hashes(names), "inputs": inputs}


def check_sampling(options: ClaimcheckOptions) -> None:
    """Refuse ``options.samples`` where it cannot work (before anything is written).

    Raises:
        InputError: N > 1 for a task other than ``wl`` (the one labeling step: the others
            answer with spans, claim sets or free text, which have no plurality), or at
            temperature 0.
    """
    o, task = options, options.task
    if o.samples > 1 and task != "wl":
        raise InputError(None, None, "options.samples", f"self-consistency samples are for the labeling task wl, not "
                         f"{task}: {task} answers with spans, claim sets or free text, which have no plurality vote")
    check_samples(o.samples, o.temp("wle" if o.paper else task), hint="set a temperature above 0")


def _checked_seeds(options: ClaimcheckOptions, annotations: list[ReviewAnnotation] | None) -> tuple[int, ...]:
    """Every check of ``options`` against the inputs (nothing written yet); the run's seeds."""
    o, task = options, options.task
    if task not in TASKS:
        raise InputError(None, None, "options.task", f"unknown task {task!r}; choose from {', '.join(TASKS)}")
    check_sampling(o)
    run_seeds = resolve_seeds(o)
    close = sorted(run_seeds)
    if o.samples > 1 and any(b - a < o.samples for a, b in zip(close, close[1:])):
        raise InputError(None, None, "options.seeds", f"seeds {list(run_seeds)} are closer than the {o.samples} "
                         f"samples: their samples (seed .. seed + {o.samples - 1}) would overlap; "
                         f"space the seeds at least {o.samples} apart")
    if task in WEAKNESS_TASKS and annotations is None:
        raise InputError(None, None, "options.annotations", f"task {task} needs an annotation file: gold, "
                         "or WI output converted with wi_to_annotations")
    if o.paper and task in WEAKNESS_TASKS and o.corpus is None:
        raise InputError(None, None, "options.corpus", f"the paper protocol shows {task} the related works "
                         "the weakness and its claims cite (§4.2-4.3); give a corpus file (e.g. "
                         "corpus/papers.jsonl.gz) to match the paper's references against")
    return run_seeds


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


@dataclass
class _Job:
    """One task's run: its folder, clients, options and seeds (what every stage below needs)."""

    run: RunDir
    options: ClaimcheckOptions
    seeds: tuple[int, ...]
    client: ChatClientProtocol
    judge: ChatClientProtocol
    per_seed: dict[int, ClaimcheckOptions] = field(init=False)

    def __post_init__(self) -> None:
        self.per_seed = {s: self.options.model_copy(update={"seed": s}) for s in self.seeds}

    def cap(self, items: list) -> list:
        """The first ``limit_items`` items (all without a limit)."""
        n = self.options.limit_items
        return items[:n] if n else items

    def seeded(self, items: list, id_of: Callable[[Any], str]) -> tuple[list, Callable[[Any], str]]:
        """Every (seed, item) pair, and the pair's row id."""
        pairs = [(s, it) for s in self.seeds for it in items]
        return pairs, lambda p: seeded_id(id_of(p[1]), p[0], self.seeds)

    async def each(self, name: str, pairs: list, one: Callable[[Any], Awaitable[dict]], id_of: Callable[[Any], str],
                   label: str, client: ChatClientProtocol | None = None) -> list[dict]:
        """``one`` over ``pairs`` into ``<name>.jsonl`` (resumable, with progress)."""
        return await run_items(self.run, name, pairs, one, id_of=id_of, progress=label, client=client or self.client)


def _with_seed(row: dict, s: int) -> dict:
    return {**row, "seed": s}


async def _extract(job: _Job, papers: dict[str, PaperText]) -> None:
    pairs, pid = job.seeded(job.cap(list(papers.values())), lambda p: p.id)

    async def one(p: tuple[int, PaperText]) -> dict:
        return _with_seed(await extract_claims(job.client, p[1], options=job.per_seed[p[0]]), p[0])

    await job.each("predictions", pairs, one, pid, "claimcheck extract")


async def _wi(job: _Job, papers: dict[str, PaperText], annotations: list[ReviewAnnotation] | None) -> None:
    if annotations is not None:
        reviews = list(dict.fromkeys((a.paper_id, a.review_index or 0, a.review_text or "", a.key)
                                     for a in annotations))
    else:
        reviews = [(p.id, i, r, f"{p.id}#{i}") for p in papers.values() for i, r in enumerate(p.reviews)]
    pairs, pid = job.seeded(job.cap(reviews), lambda t: t[3])

    async def one(p: tuple[int, tuple]) -> dict:
        s, t = p
        row = await identify_weaknesses(
            job.client, paper_id=t[0], review_index=t[1], review_text=t[2],
            title=papers[t[0]].title if t[0] in papers else "", options=job.per_seed[s])
        return _with_seed(row, s)

    await job.each("predictions", pairs, one, pid, "claimcheck wi")


def _weakness_items(job: _Job, papers: dict[str, PaperText], annotations: list[ReviewAnnotation],
                    rc: RelatedCorpus | None) -> list:
    """The task's weakness items (capped), with their cited related works when there is a corpus."""
    task, o = job.options.task, job.options
    require_targets = task in ("cv", "wle") or (task == "wl" and o.paper)
    items = weakness_items(annotations, papers, require_targets=require_targets)
    if task == "cv":
        items = focal_items(items)
    items = job.cap(items)
    if rc is not None:
        refs, stats = _related_references(rc, papers, {it.paper_id for it in items})
        items = attach_related(items, refs, task, max_works=MAX_RELATED, corpus=rc)
        job.run.write("related", [{"id": pid, **st} for pid, st in stats.items()])
    return items


async def _ca(job: _Job, pairs: list, pid: Callable[[Any], str]) -> None:
    async def one(p: tuple[int, Any]) -> dict:
        return _with_seed(await associate_claims(job.client, p[1], options=job.per_seed[p[0]]), p[0])

    await job.each("predictions", pairs, one, pid, "claimcheck ca")


async def _wl(job: _Job, pairs: list, pid: Callable[[Any], str]) -> None:
    async def one(p: tuple[int, Any]) -> dict:
        return _with_seed(await label_weakness(job.client, p[1], options=job.per_seed[p[0]]), p[0])

    await job.each("predictions", pairs, one, pid, "claimcheck wl")


async def _cv(job: _Job, pairs: list, pid: Callable[[Any], str]) -> None:
    async def one(p: tuple[int, Any]) -> dict:
        pred, judgment = await verify_claim(job.client, p[1], options=job.per_seed[p[0]], judge=job.judge)
        if judgment.get("error") and not pred.get("error"):  # a failed judge call is redone on re-run
            pred["error"], pred["failure"] = f"judge: {judgment['error']}", judgment["failure"]
        pred["judgment"] = {**judgment, "id": pid(p)}
        return _with_seed(pred, p[0])

    rows = await job.each("predictions", pairs, one, pid, "claimcheck cv")
    job.run.write("judgments", [{**r["judgment"], "seed": r.get("seed")} for r in rows])


async def _wle(job: _Job, pairs: list, pid: Callable[[Any], str]) -> None:
    label = "claimcheck wle label+rewrite" if job.options.paper else "claimcheck wle rewrite"

    async def one(p: tuple[int, Any]) -> dict:
        return _with_seed(await rewrite_weakness(job.client, p[1], options=job.per_seed[p[0]]), p[0])

    rows = await job.each("predictions", pairs, one, pid, label)

    async def judge_one(r: dict) -> dict:
        return _with_seed(await judge_pair(job.judge, r, options=job.per_seed[r["seed"]]), r["seed"])

    await job.each("judgments", rows, judge_one, lambda r: r["id"], "claimcheck wle judge", client=job.judge)


_WEAKNESS_STAGES = {"ca": _ca, "wl": _wl, "cv": _cv, "wle": _wle}


async def arun_task(
    out: str | Path,
    options: ClaimcheckOptions,
    *,
    papers: dict[str, PaperText],
    annotations: list[ReviewAnnotation] | None = None,
    client: ChatClientProtocol,
    judge: ChatClientProtocol | None = None,
    inputs: dict | None = None,
    corpus: RelatedCorpus | None = None,
) -> Path:
    """Async :func:`run_task` on loaded inputs and ready clients (``options.task`` is the task).

    With several seeds (:func:`resolve_seeds`) every item runs once per seed (row ids
    ``<id>@seed<s>``) and scores average the seeds; ``options.limit_items`` caps the
    items per seed.

    Args:
        out: Run directory.
        options: The run's options (task, protocol, generation settings, seeds, corpus).
        papers: Papers by id.
        annotations: Annotation records (required for ca/wl/cv/wle; optional for wi).
        client: Model under evaluation.
        judge: Judge client for CV/WLE (None: ``client``, the model under test).
        inputs: Input description stored in ``config.json``.
        corpus: The loaded corpus of the cited related works shown to CA, CV, WL/WLE (None:
            loaded from ``options.corpus`` when given); required by the paper protocol.

    Returns:
        The run directory.

    Raises:
        InputError: options that cannot work with these inputs (nothing written).
    """
    o = options
    run_seeds = _checked_seeds(o, annotations)
    rc = corpus
    if rc is None and o.corpus is not None and o.task in WEAKNESS_TASKS:  # validated before anything is written
        rc = RelatedCorpus.load(o.corpus)
    judge_client = judge or client
    judge_id = getattr(judge_client, "model_id", None) if o.task in ("cv", "wle") else None
    corpus_path = rc.path if rc is not None else o.corpus
    cfg = _config(o.task, client.model_id, judge_id, o,
                  {**(inputs or {}), "limit_items": o.limit_items,
                   "corpus": str(corpus_path) if corpus_path else None}, run_seeds)
    job = _Job(RunDir.create(out, cfg, overwrite=o.overwrite), o, run_seeds, client, judge_client)
    if o.task == "extract":
        await _extract(job, papers)
    elif o.task == "wi":
        await _wi(job, papers, annotations)
    else:
        assert annotations is not None
        pairs, pid = job.seeded(_weakness_items(job, papers, annotations, rc), lambda it: it.id)
        await _WEAKNESS_STAGES[o.task](job, pairs, pid)
    return job.run.path


def run_task(model: str | ChatClientProtocol, out: str | Path, options: ClaimcheckOptions) -> Path:
    """Run one CLAIMCHECK task end to end (inputs validated before anything is written).

    The papers and annotations are those ``options`` name (:func:`load_inputs`); the
    model under test and the judge (``options.judge``, else the model) are built with
    the options' cache, concurrency and timeout.

    Args:
        model: Model spec or chat client of the model under evaluation.
        out: Run directory.
        options: The run's options.

    Returns:
        The run directory.
    """
    o = options
    check_sampling(o)  # before loading anything; arun_task checks again (the API entry)
    rc = RelatedCorpus.load(o.corpus) if o.corpus is not None and o.task in WEAKNESS_TASKS else None
    papers, anns = load_inputs(o)
    client = client_of(model, **o.client_kwargs())
    judge_client = client_of(o.judge, **o.client_kwargs(role="judge")) if o.judge and o.judge != model else None
    inputs = {"data_dir": str(o.data_dir) if o.data_dir else None,
              "papers_file": str(o.papers) if o.papers else None,
              "annotations": str(o.annotations) if o.annotations else None,
              "paper_ids": sorted(papers)}
    return run_async(arun_task(out, o, papers=papers, annotations=anns, client=client, judge=judge_client,
                               inputs=inputs, corpus=rc), client, judge_client)


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
