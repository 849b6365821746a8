"""Batch APIs: a run's uncached requests go to the provider's ``/v1/batches`` at batch prices.

:func:`run_batched` runs any pipeline — one step or many (generate, then judge what was
generated) — through a batch API without the pipeline knowing:

1. **Collect.** The pipeline runs in *collect* mode on a scratch copy of the run folder:
   a cache miss of a model that can use a batch API is recorded instead of sent
   (:class:`~noveval.models.calls.CallLedger` ``collect=True``). Nothing the pass
   writes is kept.
2. **Submit.** What was collected goes to the provider as one batch per model: a JSONL
   file uploaded to ``/v1/files`` (``purpose=batch``), then ``POST /v1/batches``. The
   batch id is written to ``batches.json`` in the run folder *before* waiting.
3. **Wait** (polling, with progress), **download** the output and error files, and store
   every answer in the response cache, booked at the batch price.
4. Repeat from 1 until a pass collects nothing new (a multi-step pipeline needs one round
   per step). Then the pipeline runs normally on the real run folder, entirely from the
   cache: the results are the same as a run without ``--batch``, and resuming is free.

A run killed while waiting resumes from ``batches.json``: batches not yet downloaded are
waited for and downloaded, never submitted again. Requests of a batch that failed,
expired or was cancelled (and single requests the provider answered with an error) are
answered, in the final pass, with a failed response naming the batch: they are counted
as failed calls (the run is incomplete, exit 3), and the next run submits them again.

Only ``openai/...`` and ``openai-compatible/...`` models use batches; in-process models
answer directly, also during collect passes.
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from noveval.errors import ConfigError
from noveval.io import complete_rows, make_dir, read_json, write_json
from noveval.models.cache import ResponseCache
from noveval.models.calls import CallLedger, EndpointError, active_ledger, ledger_scope
from noveval.models.chat import (
    ChatRequest,
    PermanentBackendError,
    TransientBackendError,
)
from noveval.models.client import make_backend
from noveval.models.openai_compat import classify_openai_error
from noveval.progress import quiet, track
from noveval.runs import discard_run

__all__ = ["run_batched", "BatchStore", "BatchAPI", "BATCH_FILE", "TERMINAL", "poll_interval"]

log = logging.getLogger("noveval")

T = TypeVar("T")

BATCH_FILE = "batches.json"
"""File in a run directory that records every batch submitted for it."""

TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
"""Batch statuses after which nothing changes (the others: validating, in_progress, finalizing, cancelling)."""

POLL_ENV = "NOVEVAL_BATCH_POLL_S"
MAX_PASSES = 20


def poll_interval() -> float:
    """Seconds between status checks: ``$NOVEVAL_BATCH_POLL_S``, else 30."""
    try:
        return max(0.01, float(os.environ.get(POLL_ENV, "30")))
    except ValueError:
        return 30.0


class BatchStore:
    """``batches.json`` of a run folder: one entry per batch submitted.

    An entry: ``id``, ``model`` (spec label), ``input_file_id``, ``requests``, ``keys``
    (cache keys, in submission order), ``cache`` (response cache file), ``submitted``,
    ``status``, ``done`` (results downloaded and stored), ``answered``, ``failed``.
    """

    def __init__(self, run_dir: str | Path) -> None:
        self.path = Path(run_dir) / BATCH_FILE

    def entries(self) -> list[dict[str, Any]]:
        """Every entry, oldest first (none when the file is absent)."""
        if not self.path.is_file():
            return []
        doc = read_json(self.path)
        got = doc.get("batches") if isinstance(doc, dict) else None
        return [e for e in got if isinstance(e, dict)] if isinstance(got, list) else []

    def pending(self) -> list[dict[str, Any]]:
        """Entries whose results were not stored yet (a run killed while waiting left them)."""
        return [e for e in self.entries() if not e.get("done")]

    def save(self, entry: dict[str, Any]) -> None:
        """Add or replace (by ``id``) one entry; atomic."""
        entries = [e for e in self.entries() if e.get("id") != entry["id"]] + [entry]
        entries.sort(key=lambda e: str(e.get("submitted") or ""))
        make_dir(self.path.parent, "--out")
        write_json(self.path, {"batches": entries})


class BatchAPI:
    """The files and batches endpoints of one OpenAI-compatible server (blocking SDK calls).

    Args:
        backend: The model's :class:`~noveval.models.openai_compat.OpenAICompatBackend`.
    """

    def __init__(self, backend: Any) -> None:
        from openai import OpenAI

        self.backend = backend
        self.label = backend.model_id
        self._client = OpenAI(api_key=backend.spec.api_key(), base_url=backend.base_url, max_retries=3,
                              timeout=backend.timeout_s)

    def _call(self, what: str, fn: Callable[[], Any]) -> Any:
        import openai

        try:
            return fn()
        except openai.OpenAIError as e:
            err = classify_openai_error(e, self.backend.spec.model)
            if what.startswith(("upload", "create")):  # nothing submitted yet: one line, exit 2
                if getattr(e, "status_code", None) == 404:
                    raise ConfigError(f"model {self.label}: {what}: HTTP 404: this endpoint has no batch API "
                                      "(/v1/files, /v1/batches); run without --batch") from None
                raise ConfigError(f"model {self.label}: {what}: {err}") from None
            # a batch is out there (its id is saved): the run can be resumed
            raise EndpointError(self.label, err.kind, f"{what}: {err}", midrun=True) from None

    def submit(self, lines: list[dict[str, Any]]) -> tuple[str, str]:
        """Upload the request lines and create the batch; returns ``(batch_id, input_file_id)``."""
        data = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines).encode("utf-8")
        f = self._call("upload of the batch file",
                       lambda: self._client.files.create(file=("batch.jsonl", io.BytesIO(data)), purpose="batch"))
        b = self._call("create batch", lambda: self._client.batches.create(
            input_file_id=f.id, endpoint="/v1/chat/completions", completion_window="24h",
            metadata={"created_by": "noveval"}))
        return str(b.id), str(f.id)

    def retrieve(self, batch_id: str) -> Any:
        """The batch object (status, request_counts, output/error file ids, errors)."""
        return self._call(f"status of batch {batch_id}", lambda: self._client.batches.retrieve(batch_id))

    def cancel(self, batch_id: str) -> Any:
        """Ask the provider to cancel a batch (finished requests stay in its output)."""
        return self._call(f"cancel batch {batch_id}", lambda: self._client.batches.cancel(batch_id))

    def download(self, file_id: str) -> str:
        """The text of an output or error file."""
        return str(self._call(f"download of {file_id}", lambda: self._client.files.content(file_id).text))


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def _api_for(label: str) -> BatchAPI:
    return BatchAPI(make_backend(label))


def wait(api: BatchAPI, entry: dict[str, Any], store: BatchStore, *, poll_s: float | None = None) -> Any:
    """Poll a batch until it ends, showing progress; the status is saved as it changes.

    Returns:
        The final batch object.
    """
    poll = poll_s if poll_s is not None else poll_interval()
    bid = entry["id"]
    status = entry.get("status")
    with track(int(entry.get("requests") or 0), f"batch {bid} ({entry['model']})") as tr:
        while True:
            b = api.retrieve(bid)
            counts = getattr(b, "request_counts", None)
            done = int(getattr(counts, "completed", 0) or 0) + int(getattr(counts, "failed", 0) or 0)
            if done > tr.done:
                tr.advance(done - tr.done)
            if b.status != status:
                status = b.status
                log.info("batch %s: %s", bid, status)
                store.save({**entry, "status": status})
            if b.status in TERMINAL:
                return b
            time.sleep(poll)




def store_results(
    api: BatchAPI, entry: dict[str, Any], batch: Any, ledger: Any, store: BatchStore
) -> tuple[set[str], dict[str, str]]:
    """Download a finished batch, store its answers in the response cache and book them.

    Returns:
        ``(answered, failed)``: the cache keys answered, and key -> reason for every
        request of the batch that got no answer.
    """
    bid = entry["id"]
    keys = [str(k) for k in entry.get("keys") or []]
    cache = ResponseCache(entry["cache"])
    answered: set[str] = set()
    failed: dict[str, str] = {}
    for file_id in (getattr(batch, "output_file_id", None), getattr(batch, "error_file_id", None)):
        if not file_id:
            continue
        for row in complete_rows(api.download(file_id)):
            key = str(row.get("custom_id") or "")
            if key not in keys:
                continue
            got, got_err = row.get("response"), row.get("error")
            resp: dict[str, Any] = got if isinstance(got, dict) else {}
            err: dict[str, Any] | None = got_err if isinstance(got_err, dict) else None
            status = resp.get("status_code")
            if err is None and status == 200:
                try:
                    answer = api.backend.parse_body(resp.get("body"))
                except (TransientBackendError, PermanentBackendError) as e:
                    failed[key] = f"batch {bid}: {e}"
                    continue
                cache.put(key, api.label, answer)
                ledger.book_batch(api.label, answer)
                answered.add(key)
                failed.pop(key, None)
            elif key not in answered:
                got_body = resp.get("body")
                body: dict[str, Any] = got_body if isinstance(got_body, dict) else {}
                e2 = err or body.get("error") or {}
                msg = e2.get("message") if isinstance(e2, dict) else str(e2)
                code = e2.get("code") if isinstance(e2, dict) else None
                what = f"HTTP {status}" if status else (code or "error")
                failed[key] = f"batch {bid}: {what}: {msg or 'no answer'}"
    reason = f"batch {bid} {batch.status}"
    errs = getattr(getattr(batch, "errors", None), "data", None) or []
    if errs:
        first = errs[0]
        reason += f": {getattr(first, 'message', None) or getattr(first, 'code', '')}"
    for key in keys:
        if key not in answered and key not in failed:
            failed[key] = f"{reason} (no result for this request; a re-run submits it again)"
    cache.close()
    store.save({**entry, "status": batch.status, "done": True, "answered": len(answered), "failed": len(failed),
                "finished": _now()})
    level = logging.WARNING if failed else logging.INFO
    log.log(level, "batch %s %s: %d answered, %d without an answer", bid, batch.status, len(answered), len(failed))
    return answered, failed


def _submit(client: Any, requests: list[tuple[str, ChatRequest]], store: BatchStore) -> tuple[BatchAPI, dict[str, Any]]:
    api = BatchAPI(client.backend)
    lines = [{"custom_id": key, "method": "POST", "url": "/v1/chat/completions",
              "body": client.backend.request_body(req)} for key, req in requests]
    bid, fid = api.submit(lines)
    entry = {"id": bid, "model": client.model_id, "input_file_id": fid, "requests": len(requests),
             "keys": [k for k, _ in requests], "cache": str(client.cache.path), "submitted": _now(),
             "status": "validating", "done": False}
    store.save(entry)  # before waiting: a run killed from here on resumes this batch
    log.info("batch %s: %d requests to %s submitted (saved in %s)", bid, len(requests), client.model_id, store.path)
    return api, entry


def _collect_pass(call: Callable[[Path], Any], out: Path, ledger: Any) -> dict[str, tuple[Any, ChatRequest]]:
    """Run the pipeline on a scratch copy of the run folder in collect mode; return the misses."""
    with tempfile.TemporaryDirectory(prefix="noveval-collect-") as tmp:
        shadow = Path(tmp) / (out.name or "run")
        if out.is_dir():
            shutil.copytree(out, shadow, ignore=shutil.ignore_patterns("*.png", "*.svg", "*.html"))
        with ledger_scope(check=False, collect=True, parent=ledger) as col, quiet():
            call(shadow)
        return dict(col.collected)


def run_batched(
    call: Callable[[Path], T], out: str | Path, *, overwrite: bool = False, poll_s: float | None = None
) -> T:
    """Run ``call(run_dir)`` with its uncached requests answered through batch APIs.

    Must run inside a call ledger (:func:`noveval.models.calls.ledger_scope`; the CLI's
    ``run_command`` opens one). See the module docstring for the rounds.

    Args:
        call: Runs the pipeline into the run folder it is given and returns its result;
            it must not discard the folder itself (pass ``overwrite`` here instead).
        out: The run folder.
        overwrite: Discard the run in ``out`` first (its batches.json too).
        poll_s: Seconds between status checks (default: :func:`poll_interval`).

    Returns:
        What the final, normal pass of ``call(out)`` returned.

    Raises:
        ConfigError: no call ledger, a model without a response cache, or a pipeline
            that keeps asking for new requests after 20 rounds.
        EndpointError: the endpoint has no batch API or cannot be reached.
    """
    ledger = active_ledger()
    if ledger is None:
        raise ConfigError("run_batched needs a call ledger (noveval.models.calls.ledger_scope)")
    out = Path(out)
    was, ledger.batching = ledger.batching, True  # e.g. a local embedder's first texts check no chat model live
    try:
        return _batched(call, out, ledger, overwrite=overwrite, poll_s=poll_s)
    finally:
        ledger.batching = was


def _batched(call: Callable[[Path], T], out: Path, ledger: CallLedger, *, overwrite: bool, poll_s: float | None) -> T:
    """:func:`run_batched`'s rounds (collect, submit, wait) and its final pass, with ``ledger`` batching."""
    if overwrite and out.is_dir():
        discard_run(out)
    ledger.enter_run(out)  # batch costs belong to this run folder
    store = BatchStore(out)
    failed: dict[str, str] = {}
    for entry in store.pending():  # a run killed while waiting: collect, never resubmit
        log.info("batch %s (%s): submitted earlier, waiting for it", entry["id"], entry.get("model"))
        api = _api_for(str(entry["model"]))
        failed.update(store_results(api, entry, wait(api, entry, store, poll_s=poll_s), ledger, store)[1])
    answered: set[str] = set()
    for round_no in range(1, MAX_PASSES + 1):
        collected = _collect_pass(call, out, ledger)
        new = [(k, c, r) for k, (c, r) in collected.items() if k not in failed]
        if not new:
            break
        if any(k in answered or c.refresh for k, c, _ in new):
            raise ConfigError("--batch: answers stored from a batch were asked for again: the response cache is not "
                              "read (drop --refresh)")
        groups: dict[str, list[tuple[str, Any, ChatRequest]]] = {}
        for k, c, r in new:
            if c.cache is None:
                raise ConfigError(f"--batch needs the response cache (the answers are stored there): drop --no-cache "
                                  f"for {c.model_id}")
            groups.setdefault(c.model_id, []).append((k, c, r))
        log.info("batch round %d: %d new request(s) for %s", round_no, len(new), ", ".join(groups))
        running: list[tuple[BatchAPI, dict[str, Any], float]] = []
        for reqs in groups.values():
            fit, reserved = ledger.admit_batch(reqs[0][1], [r for _, _, r in reqs])
            if fit:
                api, entry = _submit(reqs[0][1], [(k, r) for k, _, r in reqs[:fit]], store)
                running.append((api, entry, reserved))
        for api, entry, reserved in running:
            try:
                got, lost = store_results(api, entry, wait(api, entry, store, poll_s=poll_s), ledger, store)
                answered |= got
                failed.update(lost)
            finally:
                ledger.release(reserved)
        if ledger.budget is not None and ledger.budget.stopped:
            break
    else:
        raise ConfigError(f"--batch: the pipeline still asked for new requests after {MAX_PASSES} rounds")
    ledger.batch_failed.update(failed)
    return call(out)
