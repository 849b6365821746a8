"""Endpoint checks and call accounting: a run whose model calls failed is not a result.

The CLI opens a :class:`CallLedger` around every command that may call a model
(:func:`ledger_scope`; :func:`noveval.cli.outcome.run_command` does it). Every chat client
(:class:`~noveval.models.client.ChatClient`) and embedder
(:class:`~noveval.models.embed.Embedder`) created inside the scope registers with it.

**The endpoint check.** At the first cache miss of any registered model — the moment a
real call is about to be made — every registered remote endpoint that is not yet checked
gets one short call (chat: one token; embeddings: one short text). Requests that arrive
meanwhile wait for it (a lock). A check that fails with a cause no item can survive —
the endpoint is unreachable, refuses the key (401/403), has no such model (404), does
not answer within the timeout, or keeps failing with 429/5xx after every retry —
raises :class:`EndpointError`: one line naming the spec and the cause, before any item
is recorded as failed. Consequences, on purpose:

- a fully cached run (a finished run re-run) makes no call at all, not even a check;
- a resumed run with work left makes one check call per remote endpoint, then only the
  calls for what is left;
- in-process models (``local``) are not checked: they cannot be unreachable, and a
  missing model file is a :class:`~noveval.errors.ConfigError` when it loads;
- a judge created up front (RINoBench's, say) is checked together with the model, so a
  typo in the judge's URL stops the run before the first item, not after generation.

**During the run.** Every request's outcome is recorded: served from the cache, answered,
or failed for good (after the client's retries). When a call fails for good with one of
the fatal causes, the endpoint is checked again at the next cache miss; if that check
fails too, the run stops with :class:`EndpointError` (``midrun=True``: the finished items
are saved, the run is incomplete). A reply that arrived but could not be parsed is the
model's answer, not a failed call: benchmarks count it as "unparseable".

**Usable answers, in every role** (:func:`note_answer`). Each system's parser reports its
verdict on every reply with the role the reply played (``model``, ``judge``, ``annotator``,
``expert chain``, ``structuring``, ``reranker``, ...); an empty reply is unusable whatever
parses it. The ledger counts each distinct request once per role; more than
:data:`UNUSABLE_SHARE` of a role's answers unusable makes the run incomplete unless
``accept_unusable`` (``--allow-unparseable``). An unusable answer is never final: its cache
entries are marked (never served again, to any folder), and the :func:`item_scope` of
:func:`noveval.runs.run_items` marks its row, which the next run on the folder redoes.

**Transcripts** (:data:`TRANSCRIPTS_FILE`). Every chat request made for an item — inside the
:func:`item_scope` that :func:`noveval.runs.run_items` opens around each worker — is kept in
``<run>/transcripts.jsonl``, one row per request: the item, the stage (``predictions``,
``judgments``, ``per_item``), the model's label, the rendered messages, the
generation parameters (a JSON schema by its title and hash), the reply, finish reason,
tokens, whether it came from the cache, and the failure if any (:func:`transcript_row`).
Cache hits are recorded too, so a resumed or fully cached run still has its transcripts;
``run_items`` drops an item's earlier rows before it is asked again, so a re-run replaces
them. Nothing secret is written: no API key, header or URL query, only the model's label.
The parser's verdict on each answer and the role it played are not in the row (they come
later): ``calls.json`` keeps them by request key, and the report joins the two.

**After the run.** :meth:`CallLedger.outcome` gives the counts for a run directory;
the CLI writes them into ``scores.json`` (``"complete"``, ``"calls"``, ``"cost"``) and keeps
the failed calls not yet redone in ``calls.json``, so a later invocation that redoes them
(a resumed run retries failed items; answered calls come from the cache) marks the run
complete, and one that does not keeps it incomplete.

**Money** (:mod:`.costs`). Every answered request that did not come from the response
cache is booked at the price of its model (tokens as the server reported them), and so
is the one-token endpoint check; ``calls.json`` keeps the run folder's total over every
invocation. With a budget (``max_cost``), each cache miss is admitted only when its
estimated cost fits (:meth:`CallLedger.admit`); otherwise
:class:`~noveval.models.costs.BudgetExceeded` stops the run, resumable.

**Batches** (:mod:`.batch`). In *collect* mode (a ledger made with ``collect=True``) a
cache miss of a model that can use a batch API is recorded instead of sent, and the
caller gets a failed response (``error_kind="deferred"``); the batch driver submits what
was collected. Requests whose batch failed or expired are answered, in the pass that
follows, with a failed response naming the batch (counted as failed calls; a re-run
submits them again).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import json
import logging
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from noveval.errors import ConfigError
from noveval.io import append_jsonl, read_json, write_json
from noveval.models.chat import (
    FATAL_KINDS,
    ChatRequest,
    ChatResponse,
    PermanentBackendError,
    TransientBackendError,
)
from noveval.models.costs import (
    Budget,
    BudgetExceeded,
    CostBook,
    PriceTable,
    estimate_prompt_tokens,
    load_prices,
    require_price,
)

__all__ = [
    "CallLedger",
    "note_answer",
    "EndpointError",
    "active_ledger",
    "ledger_scope",
    "collecting",
    "CALLS_FILE",
    "TRANSCRIPTS_FILE",
    "item_scope",
    "transcript_row",
]

log = logging.getLogger("noveval")

CALLS_FILE = "calls.json"
"""File in a run directory that keeps the failed calls not yet redone."""

TRANSCRIPTS_FILE = "transcripts.jsonl"
"""File in a run directory with one row per chat request made for an item (:func:`transcript_row`)."""

_CAUSES = {
    "unreachable": "unreachable",
    "auth": "API key refused",
    "not_found": "model not found",
    "timeout": "timed out",
    "rate_limited": "rate limited on every retry",
    "server_error": "server error on every retry",
    "malformed": "malformed replies on every retry",
    "bad_request": "request rejected",
    "error": "failed",
}


class EndpointError(ConfigError):
    """A model endpoint that cannot work: the run stops with one line naming it and the cause.

    Args:
        spec: The model's label (``openai-compatible/foo@http://127.0.0.1:1/v1``; no secrets).
        kind: Failure class (``unreachable``, ``auth``, ``not_found``, ``timeout``, ...).
        detail: The backend's message.
        role: ``model`` for chat models, ``embedder`` for embedding models.
        midrun: The endpoint stopped working after the run had started (exit 3, not 2).
    """

    def __init__(self, spec: str, kind: str, detail: str, *, role: str = "model", midrun: bool = False) -> None:
        self.spec = spec
        self.kind = kind
        self.detail = detail
        self.role = role
        self.midrun = midrun
        when = "it stopped working during the run" if midrun else "checked with one short call before the first item"
        super().__init__(f"{role} {spec}: {_CAUSES.get(kind, kind)}: {detail} ({when})")


@dataclass
class _Endpoint:
    """One registered model: how to check it and what happened to its calls."""

    obj: object  # held, so that its id cannot be reused by another client while the ledger lives
    label: str
    role: str
    probe: Callable[[], None] | None
    checked: bool = False
    requests: int = 0
    cache_hits: int = 0
    failed: int = 0


@dataclass
class _RunCalls:
    """Calls attributed to one run directory in this invocation."""

    requests: int = 0
    cache_hits: int = 0
    failed: int = 0
    first_error: str | None = None
    failed_keys: dict[str, dict[str, str]] = field(default_factory=dict)
    ok_keys: set[str] = field(default_factory=set)
    cost: CostBook = field(default_factory=CostBook)
    batched: int = 0
    answers: Answers = field(default_factory=dict)  # role -> label -> {"keys": {key: usable}, "first_raw"}


UNUSABLE_SHARE = 0.5
"""More than this share of a role's answers in a run empty or unparseable: the run is not a result."""

Answers = dict[str, dict[str, dict[str, Any]]]
"""role -> model label -> ``{"keys": {request key: usable}, "first_raw": first unusable reply}``."""


def answer_counts(answers: Answers) -> dict[str, dict[str, Any]]:
    """Per role: ``{"model", "answers", "unusable", "first_raw"}`` (each distinct request counts once).

    A role several models played (rare) names them all, comma-separated, with their counts summed.
    """
    out: dict[str, dict[str, Any]] = {}
    for role, by_label in answers.items():
        n = bad = 0
        labels, first = [], None
        for label, a in by_label.items():
            keys = a.get("keys") or {}
            if not keys:
                continue
            labels.append(label)
            n += len(keys)
            bad += sum(not v for v in keys.values())
            first = first if first is not None else a.get("first_raw")
        if n:
            out[role] = {"model": ", ".join(labels), "answers": n, "unusable": bad,
                         "first_raw": first if bad else None}
    return out


def _unusable(answers: Answers) -> dict[str, dict[str, Any]]:
    """The roles whose answers in a run were mostly empty or unparseable (see :data:`UNUSABLE_SHARE`)."""
    return {role: c for role, c in answer_counts(answers).items() if c["unusable"] / c["answers"] > UNUSABLE_SHARE}


def _merge_answers(parts: Any) -> Answers:
    """Answers of several runs or invocations, later ones overriding a key's earlier verdict.

    A key lives in one role: a later verdict under another role moves it. A ``calls.json``
    written before roles were kept (label -> entry) reads as the role ``model``.
    """
    out: Answers = {}
    for answers in parts:
        for role, by_label in (answers or {}).items():
            if isinstance(by_label, dict) and "keys" in by_label:  # the older layout: role was the label
                role, by_label = "model", {role: by_label}
            for label, a in (by_label or {}).items():
                keys = a.get("keys") or {}
                for other_role, other in out.items():
                    if other_role != role and label in other:
                        for k in keys:
                            other[label]["keys"].pop(k, None)
                got = out.setdefault(role, {}).setdefault(label, {"keys": {}, "first_raw": None})
                got["keys"].update(keys)
                if got["first_raw"] is None:
                    got["first_raw"] = a.get("first_raw")
    return out


class CallLedger:
    """Registry of the models a command uses, their endpoint checks, call outcomes and costs.

    Args:
        check: Check each remote endpoint at the first cache miss (see module docstring).
        max_cost: Budget in US dollars for this command's model calls (None: no cap).
        prices: The price table (default: :func:`~noveval.models.costs.load_prices`).
        collect: Collect mode: record the cache misses of batch-capable models, send nothing.
        parent: In collect mode, the command's real ledger (embedder costs are booked there).
    """

    def __init__(
        self,
        *,
        check: bool = True,
        max_cost: float | None = None,
        prices: PriceTable | None = None,
        collect: bool = False,
        parent: CallLedger | None = None,
    ) -> None:
        self.check = check
        self.prices = prices or load_prices()
        self.budget = Budget(max_cost) if max_cost is not None else None
        self.collect = collect
        self.parent = parent
        self.collected: dict[str, tuple[Any, ChatRequest]] = {}
        self.batch_failed: dict[str, str] = {}
        self._earlier: dict[Path, CostBook] = {}
        self._lock = threading.RLock()  # accounting (held briefly, also from the event loop)
        self._check_lock = threading.Lock()  # endpoint checks (held for a network call)
        self._write_lock = threading.Lock()  # transcript rows
        self._endpoints: dict[int, _Endpoint] = {}
        self._checked: set[tuple[str, str]] = set()  # (label, role) of endpoints that passed their check
        self._error: EndpointError | None = None
        self._recheck = False
        self.run_dirs: list[Path] = []
        self._current: Path | None = None
        self._runs: dict[Path | None, _RunCalls] = {}
        self.accept_unusable = False  # --allow-unparseable: mostly empty or unparseable answers are results
        self.refresh = False  # --refresh: per-item rows are redone too (runs.run_items), not only the calls
        self.marked: set[str] = set()  # request keys whose answers were marked unusable in this command
        self.batching = False  # --batch: chat models answer through the batch API, never checked live

    # -- registration -------------------------------------------------------------------
    def register(self, obj: object, label: str, *, role: str, probe: Callable[[], None] | None) -> None:
        """Register a chat client or embedder (``probe`` None: nothing to check, e.g. local)."""
        with self._lock:
            if id(obj) not in self._endpoints:
                ep = _Endpoint(obj, label, role, probe if self.check else None)
                ep.checked = (label, role) in self._checked  # another client of the same endpoint passed
                self._endpoints[id(obj)] = ep

    def enter_run(self, path: str | Path) -> None:
        """Attribute the calls from now on to run directory ``path`` (RunDir.create calls this)."""
        p = Path(path).resolve()
        with self._lock:
            if p not in self.run_dirs:
                self.run_dirs.append(p)
            self._current = p
            if p not in self._earlier:  # what earlier invocations spent on this run folder
                self._earlier[p] = CostBook.from_json(_read_calls(p).get("cost"))

    # -- the check ----------------------------------------------------------------------
    def needs_check(self) -> bool:
        """True when an endpoint check is due (or a failed one must be raised again)."""
        return self._error is not None or any(e.probe is not None and not e.checked
                                              and not (self.batching and e.role != "embedder")
                                              for e in self._endpoints.values())

    def ensure_checked(self) -> None:
        """Check every registered endpoint not checked yet (blocking; thread-safe).

        Raises:
            EndpointError: an endpoint cannot work (also raised again on every later call).
        """
        with self._check_lock:
            if self._error is not None:
                raise self._error
            midrun = self._recheck
            for ep in list(self._endpoints.values()):
                if ep.probe is None or ep.checked:
                    continue
                if self.batching and ep.role != "embedder":  # a batch run talks to the batch API, not live
                    continue
                if (ep.label, ep.role) in self._checked:  # one check per endpoint, not per client
                    ep.checked = True
                    continue
                try:
                    answer = ep.probe()
                except (TransientBackendError, PermanentBackendError) as e:
                    kind = getattr(e, "kind", "error")
                    if kind == "bad_request":  # the check's own request was refused: let the real calls tell
                        log.info("endpoint check of %s: %s (continuing)", ep.label, e)
                    else:
                        self._error = EndpointError(ep.label, kind, str(e), role=ep.role, midrun=midrun)
                        raise self._error from None
                ep.checked = True
                self._checked.add((ep.label, ep.role))
                if isinstance(answer, ChatResponse):  # the check call is billed too
                    self._book(ep.label, answer, requests=0)
                log.debug("endpoint check of %s: ok", ep.label)
            self._recheck = False

    async def aensure_checked(self) -> None:
        """:meth:`ensure_checked` from async code (in a worker thread; the event loop stays free)."""
        if self.needs_check():
            await asyncio.to_thread(self.ensure_checked)

    # -- money, batches -----------------------------------------------------------------
    def _label(self, obj: object) -> str:
        ep = self._endpoints.get(id(obj))
        return ep.label if ep is not None else str(getattr(obj, "model_id", "model"))

    def _book(self, label: str, resp: ChatResponse, *, batch: bool = False, requests: int = 1) -> None:
        """Book the tokens and dollars of one answered request (lock held or not: re-entrant)."""
        with self._lock:
            run = self._runs.setdefault(self._current, _RunCalls())
            run.cost.add(label, self.prices.lookup(label), prompt_tokens=resp.prompt_tokens,
                         completion_tokens=resp.completion_tokens, cached_tokens=resp.cached_prompt_tokens,
                         batch=batch, requests=requests)

    def spent_usd(self) -> float:
        """Dollars spent on the run folders of this command: earlier invocations plus this one."""
        with self._lock:
            return (sum(b.usd_known for b in self._earlier.values())
                    + sum(r.cost.usd_known for r in self._runs.values()))

    def intercept(self, obj: object, key: str | None, request: ChatRequest, *, batchable: bool) -> ChatResponse | None:
        """What a cache miss gets instead of a real call, or None to make the call.

        In collect mode a miss of a batch-capable model is recorded and answered with a
        ``deferred`` failure; a request whose batch failed gets a failure naming the batch.
        """
        if key is not None and key in self.batch_failed:
            return ChatResponse(error=self.batch_failed[key], error_kind="batch")
        if self.collect and batchable and key is not None:
            with self._lock:
                self.collected.setdefault(key, (obj, request))
            return ChatResponse(error="deferred: collected for a batch", error_kind="deferred")
        return None

    def admit(self, obj: object, request: ChatRequest, *, reserve: bool = True) -> float:
        """Reserve the estimated cost of one request under the budget (0.0 when there is none).

        Args:
            obj: The client.
            request: The request about to be sent.
            reserve: False: only check that it would fit now (nothing reserved).

        Raises:
            BudgetExceeded: it could take the run past the budget (see :mod:`.costs`).
            ConfigError: a budget is set and the model has no price.
        """
        if self.budget is None:
            return 0.0
        label, est = self._estimate(obj, request)
        if not reserve:
            self.budget.admit(self.spent_usd(), est, label, reserve=False)
            return 0.0
        self.budget.wait_admit(self.spent_usd, est, label)
        return est

    async def aadmit(self, obj: object, request: ChatRequest) -> float:
        """:meth:`admit` from async code: waits (the loop stays free) while in-flight requests may leave room.

        Raises:
            BudgetExceeded: the rest of the budget cannot cover this request's worst case.
            ConfigError: a budget is set and the model has no price.
        """
        if self.budget is None:
            return 0.0
        label, est = self._estimate(obj, request)
        await self.budget.await_admit(self.spent_usd, est, label)
        return est

    def _estimate(self, obj: object, request: ChatRequest) -> tuple[str, float]:
        """The model label and the request's worst-case cost (prompt tokens estimated, all of ``max_tokens``)."""
        label = self._label(obj)
        price = require_price(self.prices, label)
        p = request.params
        return label, price.cost(estimate_prompt_tokens(request.messages, p.json_schema), p.max_tokens)

    def release(self, reserved: float) -> None:
        """Give back a reservation of :meth:`admit` for a request that was not made."""
        if self.parent is not None:
            self.parent.release(reserved)
            return
        if self.budget is not None and reserved:
            self.budget.release(reserved)

    def admit_batch(self, obj: object, requests: list[ChatRequest]) -> tuple[int, float]:
        """How many of ``requests`` (a prefix) fit the budget at the batch price, reserved.

        Returns:
            ``(n, reserved_usd)``; without a budget, all of them and 0.0. When not all fit,
            the budget is stopped: the run ends after these.

        Raises:
            ConfigError: a budget is set and the model has no price.
        """
        if self.budget is None:
            return len(requests), 0.0
        label = self._label(obj)
        price = require_price(self.prices, label)
        spent = self.spent_usd()
        n, total = 0, 0.0
        for r in requests:
            est = price.cost(estimate_prompt_tokens(r.messages, r.params.json_schema), r.params.max_tokens, batch=True)
            try:
                self.budget.admit_now(spent, est, f"{label} (batch)")
            except BudgetExceeded:
                break
            n, total = n + 1, total + est
        return n, total

    def admit_usage(self, obj: object, prompt_tokens: int) -> float:
        """:meth:`admit` for an embedding call of ``prompt_tokens`` (estimated) tokens."""
        if self.parent is not None:
            return self.parent.admit_usage(obj, prompt_tokens)
        if self.budget is None:
            return 0.0
        label = self._label(obj)
        est = require_price(self.prices, label).cost(prompt_tokens, 0)
        self.budget.wait_admit(self.spent_usd, est, label)
        return est

    def record_usage(self, obj: object, prompt_tokens: int, *, reserved: float = 0.0) -> None:
        """Book an embedding call's tokens (collect mode: on the parent ledger)."""
        if self.parent is not None:
            self.parent.record_usage(obj, prompt_tokens, reserved=reserved)
            return
        self._book(self._label(obj), ChatResponse(text="", prompt_tokens=prompt_tokens))
        if self.budget is not None:
            self.budget.release(reserved)

    def book_batch(self, label: str, resp: ChatResponse) -> None:
        """Book one request answered by a batch (batch price; counted as answered by a batch)."""
        self._book(label, resp, batch=True)
        with self._lock:
            self._runs.setdefault(self._current, _RunCalls()).batched += 1

    def forget_earlier(self, path: str | Path) -> None:
        """A run folder started afresh (``--overwrite``): what earlier invocations spent is gone."""
        with self._lock:
            self._earlier[Path(path).resolve()] = CostBook()

    # -- accounting ---------------------------------------------------------------------
    def record(
        self,
        obj: object,
        key: str | None,
        *,
        cached: bool,
        error: str | None = None,
        kind: str | None = None,
        response: ChatResponse | None = None,
        reserved: float = 0.0,
        request: ChatRequest | None = None,
    ) -> None:
        """Record one request's outcome (a cache hit, an answer, or a failure after all retries).

        Args:
            response: The answer (its tokens are booked when it was not cached).
            reserved: The budget reservation made by :meth:`admit` (released here).
            request: The request; inside an :func:`item_scope` its transcript row is appended
                to the run folder's :data:`TRANSCRIPTS_FILE`.
        """
        if request is not None:
            self.transcribe(obj, key, request, response, cached=cached, error=error)
        if self.budget is not None and reserved:
            self.budget.release(reserved)
        if response is not None and response.ok and not cached:
            self._book(self._label(obj), response)
        if response is not None and response.ok:  # provisional; a parser's verdict (note_answer) decides
            self._note(obj, key, usable=bool((response.text or "").strip()), raw=response.text, provisional=True)
        with self._lock:
            ep = self._endpoints.get(id(obj))
            run = self._runs.setdefault(self._current, _RunCalls())
            run.requests += 1
            if ep is not None:
                ep.requests += 1
            if cached:
                run.cache_hits += 1
                if ep is not None:
                    ep.cache_hits += 1
            if error is None:
                if key is not None:
                    run.ok_keys.add(key)
                return
            label = ep.label if ep is not None else "model"
            run.failed += 1
            if ep is not None:
                ep.failed += 1
            if run.first_error is None:
                run.first_error = f"{label}: {error}"
            if key is not None:
                run.failed_keys[key] = {"model": label, "error": error}
            if kind in FATAL_KINDS and ep is not None and ep.probe is not None:
                ep.checked = False  # check the endpoint again before the next real call
                self._checked.discard((ep.label, ep.role))
                self._recheck = True

    def transcribe(self, obj: object, key: str | None, request: ChatRequest, response: ChatResponse | None, *,
                   cached: bool, error: str | None = None) -> None:
        """Append the transcript row of one request made for the item being worked on (none outside one)."""
        where = _WHERE.get()
        if where is None:
            return
        run_dir, stage, item = where
        row = transcript_row(request, response, item=item, stage=stage, model=self._label(obj), key=key,
                             cached=cached, error=error)

        with self._write_lock:  # one line at a time, also from worker threads
            append_jsonl(run_dir / TRANSCRIPTS_FILE, row, sync=False)

    def verdict(self, obj: object, keys: list[str], *, usable: bool, role: str | None, raw: str | None) -> None:
        """A parser's verdict on one answer of ``obj`` (see :func:`note_answer`).

        ``keys``: the request keys of the calls that made the answer (a structured reply's
        re-asks included); the first one carries the verdict, the others no longer count.
        ``role``: the role the answer played (None: the role ``obj`` registered with).
        """
        if not keys:
            return
        ep = self._endpoints.get(id(obj))
        role = role or (ep.role if ep is not None else "model")
        label = self._label(obj)
        with self._lock:
            run = self._runs.setdefault(self._current, _RunCalls())
            for by_label in run.answers.values():
                if label in by_label:
                    for k in keys:
                        by_label[label]["keys"].pop(k, None)
        self._note(obj, keys[0], usable=usable, raw=raw, role=role)

    def _note(self, obj: object, key: str | None, *, usable: bool, raw: str | None, role: str | None = None,
              provisional: bool = False) -> None:
        if key is None:
            return
        ep = self._endpoints.get(id(obj))
        role = role or (ep.role if ep is not None else "model")
        label = self._label(obj)
        with self._lock:
            answers = self._runs.setdefault(self._current, _RunCalls()).answers
            if provisional and any(key in by_label.get(label, {}).get("keys", {}) for by_label in answers.values()):
                return  # a verdict was given already (a cache hit answered the same request again)
            got = answers.setdefault(role, {}).setdefault(label, {"keys": {}, "first_raw": None})
            got["keys"][key] = usable if not provisional else bool(usable and got["keys"].get(key, True))
            if not usable and got["first_raw"] is None:
                got["first_raw"] = (raw or "")[:200]

    def totals(self) -> dict[str, Any]:
        """Counts over the whole invocation: requests, cache hits, failed, first error, per model."""
        with self._lock:
            runs = list(self._runs.values())
            book = CostBook()
            for r in runs:
                book = book.merged(r.cost)
            return {
                "requests": sum(r.requests for r in runs),
                "cache_hits": sum(r.cache_hits for r in runs),
                "failed": sum(r.failed for r in runs),
                "batched": sum(r.batched for r in runs),
                "first_error": next((r.first_error for r in runs if r.first_error), None),
                "cost": self._cost_json(book, book),
                "models": {
                    e.label: {"requests": e.requests, "cache_hits": e.cache_hits, "failed": e.failed}
                    for e in self._endpoints.values()
                    if e.requests
                },
            }

    def progress_line(self) -> str:
        """``model calls so far: 12 (3 from the cache, 0 failed)`` for heartbeat lines."""
        t = self.totals()
        return f"model calls so far: {t['requests']} ({t['cache_hits']} from the cache, {t['failed']} failed)"

    def outcome(self, path: str | Path | None) -> dict[str, Any]:
        """Completeness of run directory ``path``: this invocation's calls plus earlier failures.

        Merges ``<path>/calls.json`` (failed calls of earlier invocations) with this one:
        a failed call answered now (freshly or from the cache) is resolved. Writes the merged
        ``calls.json`` back.

        Returns:
            ``{"complete", "requests", "cache_hits", "failed", "failed_earlier", "first_error",
            "batched", "cost", "stopped", "unusable", "unusable_accepted", "answers"}``
            (``answers``: per role, the model, its answers and how many were unusable — empty
            or rejected by the system's parser; ``unusable``: the roles where more than
            :data:`UNUSABLE_SHARE` were, which make the run incomplete unless
            ``unusable_accepted`` (``--allow-unparseable``); ``failed_earlier``: failed calls of earlier
            invocations that were not redone; ``batched``: requests answered by a batch API in
            this invocation; ``cost``: tokens and dollars of the run folder over every
            invocation, see :meth:`_cost_json`; ``stopped``: why the budget stopped the run,
            or None).
        """
        p = Path(path).resolve() if path is not None else None
        with self._lock:
            run = self._runs.get(p, _RunCalls())
            if p is None or len(self.run_dirs) <= 1:
                # one run directory (or none): every call of the invocation belongs to it
                runs = list(self._runs.values())
                book = CostBook()
                for r in runs:
                    book = book.merged(r.cost)
                run = _RunCalls(
                    requests=sum(r.requests for r in runs),
                    cache_hits=sum(r.cache_hits for r in runs),
                    failed=sum(r.failed for r in runs),
                    first_error=next((r.first_error for r in runs if r.first_error), None),
                    failed_keys={k: v for r in runs for k, v in r.failed_keys.items()},
                    ok_keys={k for r in runs for k in r.ok_keys},
                    cost=book,
                    batched=sum(r.batched for r in runs),
                    answers=_merge_answers(r.answers for r in runs),
                )
            earlier_cost = self._earlier.get(p) if p is not None else None
        saved = _read_calls(p) if p is not None else {}
        if earlier_cost is None:
            earlier_cost = CostBook.from_json(saved.get("cost"))
        earlier = dict(saved.get("unresolved") or {})
        still = {k: v for k, v in earlier.items() if k not in run.ok_keys and k not in run.failed_keys}
        unresolved = {**still, **run.failed_keys}
        first = run.first_error or next((f"{v['model']}: {v['error']}" for v in still.values()), None)
        total = earlier_cost.merged(run.cost)
        stopped = self.budget.stopped if self.budget is not None else None
        answers = _merge_answers([saved.get("answers"), run.answers])
        unusable = _unusable(answers)
        counts = answer_counts(answers)
        out = {
            "complete": not unresolved and run.failed == 0 and stopped is None and (not unusable or self.accept_unusable),
            "requests": run.requests,
            "cache_hits": run.cache_hits,
            "failed": run.failed,
            "failed_earlier": len(still),
            "first_error": first,
            "batched": run.batched,
            "cost": self._cost_json(total, run.cost),
            "stopped": stopped,
            "unusable": unusable or None,
            "unusable_accepted": bool(unusable) and self.accept_unusable,
            "answers": counts or None,
        }
        if p is not None and p.is_dir():
            write_json(p / CALLS_FILE, {"unresolved": unresolved, "cost": out["cost"], "answers": answers,
                                        "last": {k: v for k, v in out.items() if k != "cost"}})
        return out

    def _cost_json(self, total: CostBook, this: CostBook) -> dict[str, Any]:
        """The ``cost`` entry of scores.json: the run folder's total and this invocation's share.

        ``usd`` is None (unknown) when a model used has no price; ``usd_known`` then gives
        the dollars of the priced ones. ``prices`` names the price files in effect.
        """
        out = total.to_json()
        out["this_invocation_usd"] = this.usd
        out["prices"] = list(self.prices.files)
        if self.budget is not None:
            out["max_usd"] = self.budget.max_usd
        return out


def _read_calls(p: Path | None) -> dict[str, Any]:
    """``<p>/calls.json`` as a dict (missing or damaged: empty; it must not hide this run's outcome)."""
    if p is None or not (p / CALLS_FILE).is_file():
        return {}
    try:
        got = read_json(p / CALLS_FILE)
    except Exception:  # noqa: BLE001
        return {}
    return got if isinstance(got, dict) else {}


_ACTIVE: contextvars.ContextVar[CallLedger | None] = contextvars.ContextVar("noveval_call_ledger", default=None)


def active_ledger() -> CallLedger | None:
    """The ledger of the running command, or None outside :func:`ledger_scope`.

    Clients and embedders read it once, when they are made, and keep it.
    """
    return _ACTIVE.get()


def unusable_line(unusable: dict[str, Any] | None) -> str | None:
    """One line on the roles whose answers were mostly unusable (None when there are none).

    ``unusable``: role -> ``{"model", "answers", "unusable", "first_raw"}`` (``calls.unusable``
    of scores.json).
    """
    if not unusable:
        return None
    parts = [f"{role} {u['model']}: {u['unusable']} of {u['answers']} answers empty or unparseable "
             f"({u['unusable'] / u['answers']:.0%}; first: {u['first_raw']!r})" for role, u in unusable.items()]
    return "; ".join(parts)


def answers_line(answers: dict[str, Any] | None) -> str | None:
    """``unusable answers per role: model 2 of 2, judge 0 of 36`` (None when every answer was usable)."""
    if not answers or not any(c.get("unusable") for c in answers.values()):
        return None
    return "unusable answers per role: " + ", ".join(
        f"{role} {c['unusable']} of {c['answers']}" for role, c in answers.items())


RECOVER = ("once the endpoint answers properly, run the same command on the same folder again (the unusable "
           "answers are asked again, the rest comes from the cache); --refresh re-asks everything; "
           "--allow-unparseable accepts them as the model's answers")
"""How to recover from a run whose answers were mostly unusable (the exit-3 message ends with it)."""


_ITEM: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("noveval_item_unusable", default=None)
_WHERE: contextvars.ContextVar[tuple[Path, str, str] | None] = contextvars.ContextVar("noveval_item_where",
                                                                                      default=None)


@contextlib.contextmanager
def item_scope(run_dir: str | Path | None = None, stage: str = "", item: str = "") -> Iterator[list[str]]:
    """Collect the roles of the unusable answers given while one item is worked on.

    :func:`noveval.runs.run_items` opens one per item: a row whose list is not empty gets
    ``"unusable_answers"`` and is asked again by the next run on the folder.

    Args:
        run_dir: The run folder: the chat requests made inside the block are recorded in its
            :data:`TRANSCRIPTS_FILE`, with ``stage`` and ``item`` (None: not recorded).
        stage: ``predictions``, ``judgments`` or ``per_item`` (the rows being made).
        item: The item's id.
    """
    got: list[str] = []
    token = _ITEM.set(got)
    where = _WHERE.set((Path(run_dir), stage, item) if run_dir is not None else None)
    try:
        yield got
    finally:
        _WHERE.reset(where)
        _ITEM.reset(token)


def transcript_row(request: ChatRequest, response: ChatResponse | None, *, item: str, stage: str, model: str,
                   key: str | None, cached: bool, error: str | None = None) -> dict[str, Any]:
    """One row of :data:`TRANSCRIPTS_FILE`: what was sent for an item and what came back.

    ``params`` holds every generation setting that is set (so fields added later, such as extra
    request fields, are kept too); a JSON schema is given by its ``title`` and a 12-hex SHA-256
    of its canonical JSON, not in full; log-probabilities are left out. ``key`` is the request's
    cache key: ``calls.json`` keeps, by that key, the parser's verdict and the role the answer
    played (``model``, ``judge``, ...), known only once the reply is parsed, after the row is
    written; the report joins them. No secret can reach the row: the
    model is named by its label, and neither the client nor the backend is read.
    """
    params = request.params.model_dump(mode="json", exclude_none=True)
    schema = params.pop("json_schema", None)
    if isinstance(schema, dict):
        canon = json.dumps(schema, sort_keys=True, ensure_ascii=False)
        params["json_schema"] = {"title": schema.get("title") or schema.get("name"),
                                 "sha": hashlib.sha256(canon.encode("utf-8")).hexdigest()[:12]}
    resp = response or ChatResponse()
    return {"item": item, "stage": stage, "model": model, "key": key, "tag": request.tag,
            "messages": [{"role": m.get("role", ""), "content": m.get("content", "")} for m in request.messages],
            "params": params, "reply": resp.text, "finish_reason": resp.finish_reason,
            "prompt_tokens": resp.prompt_tokens, "completion_tokens": resp.completion_tokens,
            "cached": cached, "error": error if error is not None else resp.error}


def tag_item(role: str) -> None:
    """Mark the item being worked on (if any) as holding an unusable answer of ``role``."""
    got = _ITEM.get()
    if got is not None:
        got.append(role)


def note_answer(client: object, reply: Any, *, usable: bool, role: str | None = None) -> None:
    """A system's parser's verdict on one answer: the one rule for usable answers, in every role.

    Every place that parses a model's reply calls this (or goes through
    :func:`noveval.models.structured.acomplete_structured`, which does). For an unusable
    answer (``usable=False``):

    - the ledger counts it against ``role`` (a run where more than half of a role's answers
      are unusable ends as not a result, :data:`UNUSABLE_SHARE`);
    - the cache entries of its calls are marked unusable (:meth:`ResponseCache.mark_unusable`):
      no later run, in any folder, is served them;
    - the item being worked on (:func:`item_scope`) is marked, so its row is redone next time.

    Args:
        client: The chat client that answered.
        reply: Its :class:`~noveval.models.chat.ChatResponse`, or the list of them that made the
            answer (a structured reply and its re-asks: the first carries the verdict). Failed
            calls are counted elsewhere (as failed calls) and ignored here.
        usable: Whether the parser read it.
        role: ``model`` (the model under test), ``judge``, ``annotator``, ``expert chain``,
            ``structuring``, ``reranker``, ... (None: the role the client registered with).
    """
    replies = [r for r in (reply if isinstance(reply, (list, tuple)) else [reply]) if r is not None and r.ok]
    keys = [r.key for r in replies if r.key]
    if not replies:
        return
    ledger = getattr(client, "_ledger", None) or _ACTIVE.get()
    if not usable:
        cache = getattr(client, "cache", None)
        if cache is not None and keys:
            cache.mark_unusable(keys)
            if ledger is not None:  # later passes of this command (a batch's) read it again: asked next time
                (ledger.parent or ledger).marked.update(keys)
        tag_item(role or "model")
    if ledger is not None:
        ledger.verdict(client, keys, usable=usable, role=role, raw=replies[-1].text)


def marked_here(client: object, key: str) -> bool:
    """True when ``key``'s answer was marked unusable earlier in this command (served again until it ends)."""
    ledger = getattr(client, "_ledger", None) or _ACTIVE.get()
    return ledger is not None and key in (ledger.parent or ledger).marked


def refreshing() -> bool:
    """True when the running command was asked to re-ask everything (``--refresh``)."""
    ledger = _ACTIVE.get()
    return ledger is not None and ledger.refresh


def collecting() -> bool:
    """True inside a batch's collect pass: work that makes no model call (scoring) may be skipped."""
    ledger = _ACTIVE.get()
    return ledger is not None and ledger.collect


@contextlib.contextmanager
def ledger_scope(
    *, check: bool = True, max_cost: float | None = None, collect: bool = False, parent: CallLedger | None = None
) -> Iterator[CallLedger]:
    """Account the calls of every model made inside the block (and check endpoints first).

    Args:
        check: Check each remote endpoint at the first cache miss.
        max_cost: Budget in US dollars (None: no cap).
        collect: Collect mode (see module docstring).
        parent: The real ledger, in collect mode.
    """
    ledger = CallLedger(check=check, max_cost=max_cost, collect=collect, parent=parent,
                        prices=parent.prices if parent is not None else None)
    token = _ACTIVE.set(ledger)
    try:
        yield ledger
    finally:
        _ACTIVE.reset(token)


def run_blocking(make_coro: Callable[[], Any]) -> Any:
    """Run a coroutine to completion from sync code, even when this thread runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make_coro())
    with ThreadPoolExecutor(1) as ex:  # the caller's context goes along (the item being worked on, say)
        return ex.submit(contextvars.copy_context().run, lambda: asyncio.run(make_coro())).result()
