"""Read run directories tolerantly: a missing or damaged file becomes a listed problem."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from noveval.models.calls import CALLS_FILE, TRANSCRIPTS_FILE
from noveval.report.model import RunData

__all__ = ["load_run", "find_runs", "variants_first", "read_transcripts"]

_STREAMS = ("predictions", "judgments", "per_item")


def _open_text(path: Path) -> str:
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
            return fh.read()
    return path.read_text(encoding="utf-8", errors="replace")


def _read_json(path: Path, problems: list[str]) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        obj = json.loads(_open_text(path))
    except (OSError, ValueError) as e:
        problems.append(f"{path.name}: unreadable ({e})")
        return {}
    if not isinstance(obj, dict):
        problems.append(f"{path.name}: not a JSON object")
        return {}
    return obj


def _read_jsonl(path: Path, problems: list[str]) -> list[dict[str, Any]]:
    if not path.exists():
        gz = path.with_name(path.name + ".gz")
        if not gz.exists():
            return []
        path = gz
    rows: list[dict[str, Any]] = []
    bad = 0
    try:
        text = _open_text(path)
    except OSError as e:
        problems.append(f"{path.name}: unreadable ({e})")
        return rows
    for line in text.split("\n"):  # not splitlines(): U+2028 may sit inside JSON strings
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if isinstance(row, dict):
            rows.append(row)
        else:
            bad += 1
    if bad:
        problems.append(f"{path.name}: {bad} malformed line(s) skipped")
    return rows


def _verdicts(calls: dict[str, Any]) -> dict[str, tuple[str, bool]]:
    """Request key -> (role, usable) from ``calls.json`` ``answers`` (role -> model -> {"keys": {key: usable}})."""
    out: dict[str, tuple[str, bool]] = {}
    answers = calls.get("answers")
    for role, by_label in (answers.items() if isinstance(answers, dict) else ()):
        for a in (by_label.values() if isinstance(by_label, dict) else ()):
            keys = a.get("keys") if isinstance(a, dict) else None
            for k, usable in (keys.items() if isinstance(keys, dict) else ()):
                out[k] = (str(role), bool(usable))
    return out


def read_transcripts(path: Path, problems: list[str]) -> list[dict[str, Any]]:
    """A run folder's ``transcripts.jsonl``, each row with the parser's verdict from ``calls.json``.

    A row whose request key has a verdict gets ``usable`` (bool) and ``answer_role`` (the role
    the answer was judged in); a request asked twice in one item keeps its last row only.

    Args:
        path: The run folder.
        problems: Where unreadable or malformed lines are noted.

    Returns:
        The rows in file order (empty when the run has no transcripts).
    """
    rows = _read_jsonl(path / TRANSCRIPTS_FILE, problems)
    if not rows:
        return rows
    verdicts = _verdicts(_read_json(path / CALLS_FILE, problems))
    last: dict[tuple[Any, Any, Any], int] = {}
    for k, row in enumerate(rows):
        if row.get("key"):
            last[(row.get("stage"), row.get("item"), row.get("key"))] = k
        v = verdicts.get(str(row.get("key")))
        if v is not None:
            row["answer_role"], row["usable"] = v
    return [r for k, r in enumerate(rows) if not r.get("key") or last[(r.get("stage"), r.get("item"), r.get("key"))] == k]


def find_runs(paths: list[Path]) -> list[Path]:
    """Expand the given paths into run directories.

    A path holding ``scores.json``, ``config.json`` or ``per_item.jsonl`` is a run; any
    other folder is searched (depth 3) for such run directories.

    Args:
        paths: Run directories, folders that contain them, or files inside a run
            directory (which stand for that directory).

    Returns:
        Run directories, de-duplicated, in the order found.
    """
    markers = ("scores.json", "config.json", "per_item.jsonl")
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_file():  # a demo may return the files of its run (scores.json, a figure)
            p = p.parent
        if any((p / m).exists() for m in markers):
            out.append(p)
            continue
        if p.is_dir():
            found = sorted({f.parent for m in markers for depth in ("", "*/", "*/*/") for f in p.glob(f"{depth}*/{m}")})
            out.extend(variants_first(found))
    seen: set[Path] = set()
    uniq = []
    for p in out:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            uniq.append(p)
    return uniq


def variants_first(runs: list[Path]) -> list[Path]:
    """Put the runs of each prompt-variants folder in the order of its ``variants.json``.

    A folder written by ``noveval run rinobench --prompt-variants`` holds one run folder
    per variant and ``variants.json``, whose ``variants`` lists the baseline (``shipped``)
    first, then the variants by name. Its runs keep the places they have in ``runs``
    (other runs do not move) but take that order among themselves, so the baseline comes
    first on the page and is run A of the comparison. Runs the file does not list follow
    in their own order; an unreadable ``variants.json`` changes nothing.

    Args:
        runs: Run directories in the order found.

    Returns:
        The same directories, reordered within each variants folder.
    """
    from noveval.compare.variants import VARIANTS_FILE

    out = list(runs)
    for parent in dict.fromkeys(r.parent for r in runs):
        labels = _read_json(parent / VARIANTS_FILE, []).get("variants")
        if not isinstance(labels, dict):
            continue
        rank = {str(label): k for k, label in enumerate(labels)}
        places = [k for k, r in enumerate(out) if r.parent == parent]
        mine = sorted((out[k] for k in places), key=lambda r: rank.get(r.name, len(rank)))  # stable
        for k, r in zip(places, mine, strict=True):
            out[k] = r
    return out


def load_run(path: Path) -> RunData:
    """Read one run directory.

    Args:
        path: The run directory.

    Returns:
        Its :class:`RunData`; problems (missing scores, malformed lines) are recorded in
        ``problems`` rather than raised.
    """
    path = Path(path)
    problems: list[str] = []
    config = _read_json(path / "config.json", problems)
    scores = _read_json(path / "scores.json", problems)
    if not scores:
        problems.append("scores.json: missing (run not scored?)")
    streams = {s: _read_jsonl(path / f"{s}.jsonl", problems) for s in _STREAMS}
    bench = str(scores.get("benchmark") or config.get("benchmark") or path.name)
    images = sorted(p for p in path.glob("*") if p.suffix.lower() in (".png", ".svg") and p.stat().st_size < 3_000_000)
    run = RunData(path=path, benchmark=bench, config=config, scores=scores, images=images, problems=problems,
                  predictions=streams["predictions"], judgments=streams["judgments"], per_item=streams["per_item"],
                  transcripts=read_transcripts(path, problems))
    run.typed  # noqa: B018 -- read now, so a malformed scores.json is listed among the run's problems
    return run
