"""Read and write JSON / JSON Lines (optionally gzip-compressed) safely.

Reading validates as it goes and turns every problem into an
:class:`~noveval.errors.InputError` that names the file, the 1-based line and the
field. Writing is atomic: data goes to a temporary file in the target folder, is
flushed and fsynced, then renamed over the target, so a reader never sees a
half-written file and a crash leaves the previous version intact. Two checks every reader
shares sit beside the readers: :func:`require_unique_ids` and :func:`canonical_names`.

The SQLite store the caches build on is :mod:`noveval.store`; the paper-field checks
(title, abstract, year) are in :mod:`noveval.corpus`.
"""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar, overload

from pydantic import BaseModel, ValidationError

from noveval.errors import InputError

T = TypeVar("T", bound=BaseModel)

__all__ = [
    "read_bytes",
    "read_json",
    "read_jsonl",
    "iter_jsonl",
    "complete_rows",
    "canonical_names",
    "require_unique_ids",
    "iter_records",
    "read_records",
    "write_json",
    "write_jsonl",
    "write_text",
    "append_jsonl",
    "to_jsonable",
    "validation_field",
    "make_dir",
]


def read_bytes(path: str | Path) -> bytes:
    """Return the file's bytes, transparently gunzipping ``*.gz``.

    Raises:
        InputError: the file is missing, unreadable or not valid gzip.
    """
    p = Path(path)
    if not p.exists():
        raise InputError(p, None, None, "file not found")
    if p.is_dir():
        raise InputError(p, None, None, "is a directory, expected a file")
    try:
        raw = p.read_bytes()
        if p.suffix == ".gz":
            raw = gzip.decompress(raw)
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        raise InputError(p, None, None, f"cannot read file: {e}") from e
    return raw


def _decode(path: Path, raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise InputError(path, line, None, f"invalid UTF-8 (byte 0x{raw[e.start]:02x})") from e


def validation_field(err: ValidationError) -> tuple[str, str]:
    """Return ``(field_path, message)`` of the first error in a pydantic ValidationError."""
    first = err.errors()[0]
    loc = ".".join(str(x) for x in first.get("loc", ())) or None
    msg = first.get("msg", "invalid value")
    if first.get("type") == "missing":
        msg = "required field is missing"
    return loc or "<record>", msg


def _validate(path: str | Path, line: int | None, obj: Any, model: type[T], prefix: str = "") -> T:
    try:
        return model.model_validate(obj)
    except ValidationError as e:
        field, msg = validation_field(e)
        raise InputError(path, line, prefix + field, msg) from e


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, parsed_object)`` for each non-blank line of a JSONL file.

    A ``hf:NAME[:SPLIT]`` source (:mod:`noveval.hfdata`) yields its rows, numbered from 1
    (errors then name the dataset and the row).

    Raises:
        InputError: invalid UTF-8 or invalid JSON on a line (with its number).
    """
    from noveval.hfdata import is_hf_source, load_hf_rows

    if is_hf_source(path):
        yield from enumerate(load_hf_rows(str(path)), start=1)
        return
    p = Path(path)
    text = _decode(p, read_bytes(p))
    # Split on "\n" only: str.splitlines() also breaks on U+2028/U+2029 and other
    # separators that JSON allows unescaped inside strings.
    for i, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        try:
            yield i, json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(p, i, None, f"invalid JSON: {e.msg} (column {e.colno})") from e


def complete_rows(text: str) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL text, skipping blank, torn or non-object lines.

    For reading what a run (possibly killed mid-write) or a provider left behind, where a
    bad line is not the user's input error; user files go through :func:`read_jsonl`.
    """
    out = []
    for line in text.split("\n"):
        if line.strip():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict):
                out.append(row)
    return out


@overload
def read_jsonl(path: str | Path, model: None = None, *, allow_empty: bool = False) -> list[Any]: ...
@overload
def read_jsonl(path: str | Path, model: type[T], *, allow_empty: bool = False) -> list[T]: ...
def read_jsonl(path: str | Path, model: type[T] | None = None, *, allow_empty: bool = False) -> list[Any]:
    """Read a JSON Lines file (``.jsonl`` or ``.jsonl.gz``), optionally validating each row.

    Args:
        path: The file.
        model: A pydantic model each line must validate against.
        allow_empty: Accept a file with no records (default: an empty file is an error).

    Returns:
        The parsed rows (model instances when ``model`` is given), in file order.

    Raises:
        InputError: naming ``file:line: field`` for the first problem found.
    """
    p = Path(path)
    rows: list[Any] = []
    for line, obj in iter_jsonl(p):
        if model is not None:
            if not isinstance(obj, dict):
                raise InputError(p, line, None, f"expected a JSON object, got {type(obj).__name__}")
            obj = _validate(p, line, obj, model)
        rows.append(obj)
    if not rows and not allow_empty:
        raise InputError(p, None, None, "file is empty: no records")
    return rows


def _json_array_items(path: Path, text: str) -> list[tuple[int, Any]]:
    """Parse a top-level JSON array, returning each element with its starting line."""
    dec = json.JSONDecoder()
    pos = len(text) - len(text.lstrip())
    if pos >= len(text) or text[pos] != "[":
        raise InputError(path, None, None, "expected a JSON array of records")
    pos += 1
    items: list[tuple[int, Any]] = []
    n = len(text)
    while True:
        while pos < n and text[pos] in " \t\r\n":
            pos += 1
        if pos < n and text[pos] == "]":
            return items
        start_line = text.count("\n", 0, pos) + 1
        try:
            obj, pos = dec.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            raise InputError(path, e.lineno, None, f"invalid JSON: {e.msg} (column {e.colno})") from e
        items.append((start_line, obj))
        while pos < n and text[pos] in " \t\r\n":
            pos += 1
        if pos < n and text[pos] == ",":
            pos += 1
        elif pos < n and text[pos] == "]":
            return items
        else:
            line = text.count("\n", 0, pos) + 1
            raise InputError(path, line, None, "invalid JSON: expected ',' or ']' between records")


def read_json(path: str | Path) -> Any:
    """Read any JSON document (``.json`` or ``.json.gz``).

    Raises:
        InputError: missing file, invalid UTF-8, invalid JSON (with line), empty file.
    """
    p = Path(path)
    text = _decode(p, read_bytes(p))
    if not text.strip():
        raise InputError(p, None, None, "file is empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(p, e.lineno, None, f"invalid JSON: {e.msg} (column {e.colno})") from e


def iter_records(path: str | Path) -> list[tuple[int, Any]]:
    """Read a JSON array file or a JSONL file into ``(line, record)`` pairs, unvalidated.

    For callers that check records themselves and must name the line of a bad value.
    The format follows the name as in :func:`read_records`.

    Raises:
        InputError: missing file, invalid UTF-8 or JSON (with line), an empty file.
    """
    from noveval.hfdata import is_hf_source

    if is_hf_source(path):
        return list(iter_jsonl(path))
    p = Path(path)
    name = p.name[:-3] if p.name.endswith(".gz") else p.name
    text = _decode(p, read_bytes(p))
    if not text.strip():
        raise InputError(p, None, None, "file is empty")
    if name.endswith(".jsonl") or text.lstrip().startswith("{"):
        return list(iter_jsonl(p))
    return _json_array_items(p, text)


def read_records(path: str | Path, model: type[T], *, allow_empty: bool = False) -> list[T]:
    """Read records from a JSON array file or a JSONL file, validating each one.

    The format follows the name: ``*.jsonl`` / ``*.jsonl.gz`` are JSON Lines, anything
    else must hold a JSON array (a JSONL file misnamed ``.json`` is also accepted).
    Errors name the line where the offending record starts. ``hf:NAME[:SPLIT]`` reads a
    Hugging Face dataset (:mod:`noveval.hfdata`); errors then name the dataset and the
    row: ``hf:org/name:test: [3].field: message``.
    """
    from noveval.hfdata import is_hf_source, load_hf_rows

    if is_hf_source(path):
        label = str(path)
        rows = load_hf_rows(label)
        if not rows and not allow_empty:
            raise InputError(label, None, None, "dataset has no rows")
        return [_validate(label, None, obj, model, prefix=f"[{i}].") for i, obj in enumerate(rows)]
    p = Path(path)
    name = p.name[:-3] if p.name.endswith(".gz") else p.name
    if name.endswith(".jsonl"):
        return read_jsonl(p, model, allow_empty=allow_empty)
    text = _decode(p, read_bytes(p))
    if not text.strip():
        raise InputError(p, None, None, "file is empty")
    if text.lstrip().startswith("{"):
        return read_jsonl(p, model, allow_empty=allow_empty)
    items = _json_array_items(p, text)
    if not items and not allow_empty:
        raise InputError(p, None, None, "file holds an empty list: no records")
    out: list[T] = []
    for i, (line, obj) in enumerate(items):
        if not isinstance(obj, dict):
            raise InputError(p, line, f"[{i}]", f"expected a JSON object, got {type(obj).__name__}")
        out.append(_validate(p, line, obj, model, prefix=f"[{i}]."))
    return out


def require_unique_ids(path: str | Path, ids: Iterable[str | None]) -> None:
    """Raise at the first record whose id repeats an earlier record's (None ids are skipped).

    Raises:
        InputError: ``path: [i].id: duplicate id 'x' (first at [j])``.
    """
    first: dict[str, int] = {}
    for i, key in enumerate(ids):
        if key is None:
            continue
        if key in first:
            raise InputError(path, None, f"[{i}].id", f"duplicate id {key!r} (first at [{first[key]}])")
        first[key] = i


def canonical_names(names: Iterable[str], choices: Iterable[str], *, option: str = "--metric", what: str = "metric") -> list[str]:
    """``names`` spelled as in ``choices`` (matched case-insensitively), in the given order.

    Raises:
        InputError: a name that is none of ``choices`` (names ``option`` and lists them).
    """
    choices = list(choices)
    out = []
    for n in names:
        hit = [c for c in choices if c.lower() == n.lower()]
        if not hit:
            raise InputError(None, None, option, f"unknown {what} {n!r}; choose from {', '.join(choices)}")
        out.append(hit[0])
    return out


def to_jsonable(obj: Any) -> Any:
    """Turn pydantic models, numpy scalars/arrays, paths and tuples into plain JSON values."""
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "tolist") and callable(obj.tolist):  # numpy arrays and scalars
        return obj.tolist()
    if isinstance(obj, float) and obj != obj:  # NaN -> null, JSON has no NaN
        return None
    return obj


def _umask() -> int:
    """The process umask, read without changing it where Linux allows (/proc), else set-and-restore."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def make_dir(path: str | Path, field: str | None = None) -> Path:
    """Create a folder (and its parents) for output, or say in one line why it cannot be.

    Args:
        path: The folder.
        field: The option that named it (``--out``), for the error message.

    Raises:
        InputError: the path is an existing file, or a parent cannot be created or written.
    """
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise InputError(p, None, field, "is a file, expected a folder (give a folder name)")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        blocker = next((a for a in p.parents if a.exists()), None)
        why = f"{blocker} is a file" if blocker is not None and not blocker.is_dir() else (e.strerror or str(e)).lower()
        raise InputError(p, None, field, f"cannot create this folder: {why}") from None
    return p


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    if path.is_dir():
        raise InputError(path, None, None, "is a folder, expected a file name")
    make_dir(path.parent)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        raise InputError(path, None, None, f"cannot write here: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            # mkstemp makes the file 0600; give it the mode a plain open() would (or keep the old one)
            try:
                mode = path.stat().st_mode & 0o7777
            except OSError:
                mode = 0o666 & ~_umask()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise InputError(path, None, None, f"cannot write: {e.strerror or e}") from None
        raise


def _encode(path: Path, text: str) -> bytes:
    data = text.encode("utf-8")
    return gzip.compress(data, mtime=0) if path.suffix == ".gz" else data


def write_text(path: str | Path, text: str) -> None:
    """Atomically write a text file (gzip when the name ends in ``.gz``)."""
    p = Path(path)
    _atomic_write_bytes(p, _encode(p, text))


def write_json(path: str | Path, obj: Any, *, indent: int = 2) -> None:
    """Atomically write one JSON document (UTF-8, keys in insertion order)."""
    p = Path(path)
    text = json.dumps(to_jsonable(obj), ensure_ascii=False, indent=indent, allow_nan=False) + "\n"
    _atomic_write_bytes(p, _encode(p, text))


def write_jsonl(path: str | Path, rows: Iterable[Any]) -> None:
    """Atomically write rows (dicts or pydantic models) as JSON Lines."""
    p = Path(path)
    text = "".join(json.dumps(to_jsonable(r), ensure_ascii=False, allow_nan=False) + "\n" for r in rows)
    _atomic_write_bytes(p, _encode(p, text))


def append_jsonl(path: str | Path, row: Any, *, sync: bool = True) -> None:
    """Append one row to a JSONL file and fsync it (the unit of progress of a resumable run).

    ``sync=False``: no fsync (a record that may be lost in a crash, such as a transcript row).
    """
    p = Path(path)
    make_dir(p.parent)
    line = json.dumps(to_jsonable(row), ensure_ascii=False, allow_nan=False) + "\n"
    with open(p, "a", encoding="utf-8") as f:
        f.write(line)
        if sync:
            f.flush()
            os.fsync(f.fileno())
