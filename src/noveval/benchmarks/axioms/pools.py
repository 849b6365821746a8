"""Tasks, focal papers and pool variants for the axiomatic benchmark (Liu & Zhai 2026, §3, §5).

A *task* is the set of papers of one field whose title or abstract contains a topic
phrase (the shared corpus has no PapersWithCode task tags; see DESIGN.md §4 for the
measured pool sizes). Every pool variant is an index array over a per-task row space
(corpus papers, then new texts such as paraphrases), so that each text is embedded once
and a variant never triggers a re-embedding.

Pool rules (§5.2): base pool = the task's papers published strictly before the focal
paper's year, plus the focal paper's matched references published no later than the
focal year (§5.2 "added to appropriate pools based on publication year"; a cited paper
precedes the citing one, so same-year references are kept). Distant pool = the distant
task's papers strictly before the focal year. Ax7: oldest ``slice_size`` (300) papers of
the base pool when it has more than ``ax7_min_pool`` (500); Ax8: the newest 300 task
papers published after the focal year when more than ``ax8_min_newer`` (300) exist.
Ax5/6: the focal paper's references found in the base pool, when it has at least
``min_refs`` (20) parsed references and at least ``min_cited`` (5, ours) of them are in the
pool. Ties inside a year are ordered by a seeded permutation.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from noveval.corpus import Corpus, TitleIndex, normalize_title, paper_text, parse_references


@dataclass(frozen=True)
class TaskSpec:
    """One benchmark task: papers of ``field`` mentioning ``phrase``; ``distant``: a task name."""

    name: str
    field: str
    phrase: str
    distant: str


DEFAULT_TASKS: tuple[TaskSpec, ...] = (
    TaskSpec("adversarial", "ML", "adversarial", "slam"),
    TaskSpec("reinforcement learning", "ML", "reinforcement learning", "semantic segmentation"),
    TaskSpec("object detection", "CV", "object detection", "reinforcement learning"),
    TaskSpec("semantic segmentation", "CV", "semantic segmentation", "adversarial"),
    TaskSpec("motion planning", "Robotics", "motion planning", "object detection"),
    TaskSpec("slam", "Robotics", "slam", "adversarial"),
)
"""Six tasks over three fields (ML, CV, Robotics), each with a distant task of another field."""

SAMPLE_TASKS: tuple[TaskSpec, ...] = (
    TaskSpec("graph learning", "ML", "graph learning", "motion planning"),
    TaskSpec("federated learning", "ML", "federated learning", "legged locomotion"),
    TaskSpec("motion planning", "Robotics", "motion planning", "graph learning"),
    TaskSpec("legged locomotion", "Robotics", "legged locomotion", "federated learning"),
)
"""Tasks of the shipped synthetic sample (``noveval/samples/axioms``)."""


def sample_paths() -> tuple[Path, Path]:
    """Paths of the shipped synthetic sample corpus and full texts."""
    here = Path(__file__).resolve().parents[2] / "samples" / "axioms"
    return here / "corpus.jsonl", here / "fulltext.jsonl"


def task_members(corpus: Corpus, spec: TaskSpec) -> np.ndarray:
    """Corpus indices of a task: field match and whole-phrase match in title+abstract."""
    pat = re.compile(r"\b" + re.escape(spec.phrase.lower()) + r"\b")
    return np.array([
        i for i in range(len(corpus))
        if corpus.fields[i] == spec.field
        and pat.search((corpus.titles[i] + " " + corpus.abstracts[i]).lower())
    ], dtype=np.int64)


@dataclass
class References:
    """Matched references: corpus index -> matched corpus indices, and parsed-entry counts."""

    matched: dict[int, list[int]] = field(default_factory=dict)
    n_parsed: dict[int, int] = field(default_factory=dict)

    def get(self, i: int, default: list[int] | None = None) -> list[int]:
        return self.matched.get(i, default if default is not None else [])

    def __contains__(self, i: object) -> bool:
        return i in self.matched


def load_references(fulltext_path: str | Path, corpus: Corpus, *, min_words: int = 4) -> References:
    """Parse each full-text paper's reference list and match entries to corpus titles.

    Full-text papers are located in the corpus by normalised title; a reference matching
    the citing paper itself is dropped.
    """
    path = Path(fulltext_path)
    out = References()
    if not path.exists():
        return out
    index = TitleIndex(corpus.titles, min_words=min_words)
    by_title: dict[str, int] = {}
    for i, t in enumerate(corpus.titles):
        by_title.setdefault(normalize_title(t), i)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            r = json.loads(line)
            me = by_title.get(normalize_title(str(r.get("title") or "")))
            if me is None:
                continue
            refs: list[int] = []
            entries = parse_references(str(r.get("fulltext_markdown") or ""))
            for ref in entries:
                j = index.match(ref)
                if j is not None and j != me and j not in refs:
                    refs.append(j)
            out.matched[me] = refs
            out.n_parsed[me] = len(entries)
    return out


# ---------------------------------------------------------------- task row spaces


@dataclass
class TaskData:
    """One task's row space: local rows 0..n-1 are corpus papers, later rows new texts."""

    spec: TaskSpec
    rows: np.ndarray  # corpus index of each local corpus row
    years: np.ndarray
    titles: list[str]
    texts: list[str]
    abstracts: list[str]
    members: np.ndarray  # local rows of the task
    distant: np.ndarray  # local rows of the distant task
    order: np.ndarray  # seeded tie-break rank of every local row
    extra_of: dict[str, int] = field(default_factory=dict)  # new-text key -> local row

    def add_text(self, key: str, title: str, abstract: str, year: int) -> int:
        """Append a new text (paraphrase, modified abstract) once; returns its local row."""
        if key in self.extra_of:
            return self.extra_of[key]
        i = len(self.titles)
        self.titles.append(title)
        self.abstracts.append(abstract)
        self.texts.append(paper_text(title, abstract))
        self.years = np.append(self.years, year)
        self.order = np.append(self.order, i)
        self.extra_of[key] = i
        return i


@dataclass
class FocalItem:
    """A focal paper of a task with its reference rows (local) and base pool."""

    task: str
    field: str
    local: int
    paper_id: str
    year: int
    refs: np.ndarray
    base: np.ndarray
    n_refs: int = 0  # parsed reference entries (the §5.2 ">= 20 references" rule)

    @property
    def item_id(self) -> str:
        return f"{self.task}::{self.paper_id}"


def build_task(corpus: Corpus, spec: TaskSpec, distant: TaskSpec, refs: References,
               *, seed: int = 0) -> TaskData:
    """Row space of a task: task members, distant members and all referenced papers."""
    mem = task_members(corpus, spec)
    dis = task_members(corpus, distant)
    ref_rows = sorted({j for i in mem.tolist() if i in refs for j in refs.get(i)})
    rows = np.array(sorted(set(mem.tolist()) | set(dis.tolist()) | set(ref_rows)), dtype=np.int64)
    pos = {int(c): k for k, c in enumerate(rows)}
    rng = np.random.default_rng(seed)
    return TaskData(
        spec=spec, rows=rows, years=corpus.years[rows].copy(),
        titles=[corpus.titles[i] for i in rows], abstracts=[corpus.abstracts[i] for i in rows],
        texts=[corpus.text(int(i)) for i in rows],
        members=np.array([pos[int(i)] for i in mem], dtype=np.int64),
        distant=np.array([pos[int(i)] for i in dis], dtype=np.int64),
        order=rng.permutation(len(rows)).astype(np.int64),
    )


def base_pool(task: TaskData, year: int, ref_rows: Iterable[int] = ()) -> np.ndarray:
    """Task papers strictly before ``year`` plus references up to ``year`` (sorted rows)."""
    base = set(task.members[task.years[task.members] < year].tolist())
    base |= {int(r) for r in ref_rows if task.years[r] <= year}
    return np.array(sorted(base), dtype=np.int64)


def fulltext_quota(n: int, *, share: float = 0.2, cap: int = 20) -> int:
    """How many of ``n`` focal papers may be taken from the papers with a full text.

    ``min(cap, ceil(share * n))``: 20 of 100 (as before), 2 of 10, 1 of 3.
    """
    return max(0, min(cap, math.ceil(share * n - 1e-9)))


def select_focals(corpus: Corpus, task: TaskData, refs: References, *, n: int = 100,
                  seed: int = 0, min_base: int = 100, max_fulltext: int = 20,
                  fulltext_share: float = 0.2) -> list[FocalItem]:
    """Sample focal papers of a task (reproducible from ``seed``).

    Eligible: task papers whose base pool has at least ``min_base`` papers. The paper
    samples uniformly (§5.2). Here Ax5/6 can only be evaluated for papers with a parsed
    reference list (the 400 NeurIPS 2025 full texts of the shared data, all from the
    newest year), which a uniform sample would almost never draw. So up to
    :func:`fulltext_quota` ``(n, share=fulltext_share, cap=max_fulltext)`` of the focal
    papers (20 of 100, 2 of 10) are drawn uniformly from the papers with a full text and
    the rest uniformly from all other eligible papers, whatever their year. The quota
    keeps small samples spread across years (before, ``--focal 20`` or fewer took only
    full-text papers: all from the newest year, so Ax8 never applied). This selects on
    having a full text, never on the number of references (§5.2).
    """
    pos = {int(c): k for k, c in enumerate(task.rows)}
    cand = []
    for loc in task.members.tolist():
        ci = int(task.rows[loc])
        r = np.array([pos[j] for j in refs.get(ci, []) if j in pos], dtype=np.int64)
        base = base_pool(task, int(task.years[loc]), r)
        if len(base) >= min_base:
            cand.append((loc, ci, r, base))
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(cand))
    quota = fulltext_quota(n, share=fulltext_share, cap=max_fulltext)
    ft = [k for k in perm.tolist() if cand[k][1] in refs][:quota]
    taken = set(ft)
    rest = [k for k in perm.tolist() if k not in taken]
    chosen = sorted(ft + rest[: max(0, n - len(ft))], key=lambda k: task.order[cand[k][0]])
    return [
        FocalItem(task=task.spec.name, field=task.spec.field, local=loc, paper_id=corpus.ids[ci],
                  year=int(task.years[loc]), refs=r, base=base, n_refs=refs.n_parsed.get(ci, 0))
        for loc, ci, r, base in (cand[k] for k in chosen)
    ]


@dataclass(frozen=True)
class PoolRules:
    """Applicability rules and slice sizes of §5.2 (paper values by default except ``min_cited``)."""

    min_refs: int = 20
    """Ax5/6 need at least this many parsed references (§5.2)."""
    min_cited: int = 5
    """... and at least this many of them found in the pool. Ours, not the paper's: the paper
    fetched every reference (Semantic Scholar) and added it to the pools, so its only rule is
    ``min_refs``; here most references of the shared full texts are not in the corpus, and
    removing one or two found references tests little. ``AX56_RULES["paper"]`` (``1``: the
    cited-only pool must not be empty) gives the paper's rule (``--ax56-rule paper``)."""
    ax7_min_pool: int = 500
    ax8_min_newer: int = 300
    slice_size: int = 300


AX56_RULES: dict[str, int] = {"ours": 5, "paper": 1}
"""``--ax56-rule`` -> ``PoolRules.min_cited``: ``ours`` (>= 5 references found in the pool) or
``paper`` (>= 20 references, any number found; one is needed for a non-empty cited-only pool)."""


def _by_age(task: TaskData, rows: np.ndarray) -> np.ndarray:
    return rows[np.lexsort((task.order[rows], task.years[rows]))]


def oldest_slice(task: TaskData, base: np.ndarray, rules: PoolRules) -> np.ndarray | None:
    """Ax7 pool: oldest ``slice_size`` of the base pool, if it has > ``ax7_min_pool`` papers."""
    if len(base) <= rules.ax7_min_pool:
        return None
    return np.sort(_by_age(task, base)[: rules.slice_size])


def newest_slice(task: TaskData, year: int, rules: PoolRules) -> np.ndarray | None:
    """Ax8 pool: newest ``slice_size`` task papers after ``year``, if > ``ax8_min_newer`` exist."""
    newer = task.members[task.years[task.members] > year]
    if len(newer) <= rules.ax8_min_newer:
        return None
    return np.sort(_by_age(task, newer)[::-1][: rules.slice_size])


def distant_pool(task: TaskData, year: int) -> np.ndarray | None:
    """Ax4 pool: distant-task papers strictly before ``year`` (None when empty)."""
    d = task.distant[task.years[task.distant] < year]
    return np.sort(d) if len(d) else None


def cited_split(item: FocalItem, rules: PoolRules) -> tuple[np.ndarray, np.ndarray] | None:
    """Ax5/6 pools ``(pool minus cited, cited only)``; None when the rules skip the paper."""
    cited = np.intersect1d(item.base, item.refs)
    if item.n_refs < rules.min_refs or len(cited) < rules.min_cited:
        return None
    return np.setdiff1d(item.base, cited), cited


def replace_row(pool: np.ndarray, old: int, new: int) -> np.ndarray:
    """Pool with row ``old`` replaced by row ``new`` (Ax3: a neighbour's text extended)."""
    out = pool.copy()
    out[out == old] = new
    return out


def add_row(pool: np.ndarray, new: int) -> np.ndarray:
    """Pool with one more row (Ax1 copy of the focal paper, Ax2 its paraphrase)."""
    return np.append(pool, new)
