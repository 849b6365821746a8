"""Money: tokens to dollars through an editable price table, and a budget that stops a run.

**Prices.** ``prices.json`` (package data, next to this module) lists US dollars per 1M
tokens for a few well-known models: ``input``, ``output``, ``cached_input`` (prompt
tokens the provider served from its prompt cache) and ``batch_discount`` (the share
taken off every price in the provider's batch API; OpenAI: 0.5). The file says where
its numbers come from and when they were read: **they date**. A file named by the
environment variable ``NOVEVAL_PRICES`` (same format) adds or replaces entries; its
entries win. ``noveval prices`` shows the table in effect.

A price is looked up by model label (:attr:`noveval.models.spec.ModelSpec.label`):
the exact label; then, for ``openai-compatible/<model>@<url>``, the key
``openai-compatible/<model>`` (any URL); then the label without a ``-YYYY-MM-DD``
snapshot date (``openai/o3-2025-04-16`` -> ``openai/o3``); in-process models
(``local``, ``local/...``, ``local:...``) match the key ``local``. A model with no
price has an **unknown** cost — shown as unknown, never as 0.

**Cost of a request** (answered, not from the response cache)::

    usd = ((prompt - cached) * input + cached * cached_input + completion * output) / 1e6
          * (1 - batch_discount if it went through a batch API else 1)

``cached_input`` defaults to ``input`` when an entry leaves it out (an upper bound).
Responses read from noveval's own response cache cost nothing; failed calls are
counted at 0 (providers do not bill errors).

**Budget** (``--max-cost USD``). Before a request is sent, its cost is estimated from
the prompt (tokens estimated as one per 3 UTF-8 bytes, plus 4 per message: an
estimate on the high side for English text with the tokenizers of current OpenAI
models, which average about 4 characters per token) plus the request's whole
``max_tokens`` budget at the output price. A request is admitted only when the money
already spent, plus the estimates of the requests in flight, plus its own estimate stays
within the budget; otherwise the run stops with :class:`BudgetExceeded` (every later
request is refused too), finished items saved. The money already spent counts every
invocation on the same run folder (kept in its ``calls.json``), so re-running with a
higher ``--max-cost`` finishes the run.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from noveval.errors import ConfigError, InputError, NovevalError

__all__ = [
    "Price",
    "PriceTable",
    "load_prices",
    "estimate_prompt_tokens",
    "ModelSpend",
    "CostBook",
    "Budget",
    "BudgetExceeded",
    "format_usd",
    "cost_lines",
    "PRICES_ENV",
]

PRICES_ENV = "NOVEVAL_PRICES"
"""Environment variable naming a user price file (its entries win over the shipped ones)."""

_DATE_SUFFIX = re.compile(r"-\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class Price:
    """US dollars per 1M tokens for one model.

    Attributes:
        input: Prompt tokens.
        output: Completion tokens (reasoning tokens included, as providers bill them).
        cached_input: Prompt tokens served from the provider's prompt cache.
        batch_discount: Share in [0, 1) taken off every price in the batch API.
        source: Where the price comes from (the file's ``source`` and ``as_of``).
    """

    input: float
    output: float
    cached_input: float
    batch_discount: float = 0.0
    source: str = ""

    def cost(self, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0, *, batch: bool = False) -> float:
        """Dollars for one request's tokens (see module docstring). Range [0, inf)."""
        cached = max(0, min(cached_tokens, prompt_tokens))
        usd = ((prompt_tokens - cached) * self.input + cached * self.cached_input + completion_tokens * self.output) / 1e6
        return usd * (1.0 - self.batch_discount) if batch else usd

    def describe(self) -> dict[str, Any]:
        """The entry as written to scores.json."""
        return {"input": self.input, "cached_input": self.cached_input, "output": self.output,
                "batch_discount": self.batch_discount, "per": "1M tokens, USD", "source": self.source}


class PriceTable:
    """Prices by model key, from the shipped table and an optional user file.

    Args:
        entries: Key -> :class:`Price`.
        files: The files read, in order (shipped first).
    """

    def __init__(self, entries: dict[str, Price], files: list[str]) -> None:
        self.entries = entries
        self.files = files

    def lookup(self, label: str) -> Price | None:
        """The price of a model label, or None when unknown (see module docstring)."""
        cands = [label]
        if label.startswith("openai-compatible/") and "@" in label:
            cands.append(label.rsplit("@", 1)[0])
        cands += [_DATE_SUFFIX.sub("", c) for c in cands if _DATE_SUFFIX.search(c)]
        if label == "local" or label.startswith(("local/", "local:")):
            cands.append("local")
        for c in cands:
            if c in self.entries:
                return self.entries[c]
        return None


def _read_table(path: Path, text: str, into: dict[str, Price]) -> None:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(path, e.lineno, None, f"invalid JSON: {e.msg} (column {e.colno})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("models"), dict):
        raise InputError(path, None, "models", 'expected {"models": {"<model label>": {"input": .., "output": ..}}}')
    source = str(doc.get("source") or path) + (f", as of {doc['as_of']}" if doc.get("as_of") else "")
    for key, entry in doc["models"].items():
        where = f"models.{key}"
        if not isinstance(entry, dict):
            raise InputError(path, None, where, "expected an object with input and output prices")
        vals: dict[str, float] = {}
        for name in ("input", "output", "cached_input", "batch_discount"):
            v = entry.get(name)
            if v is None:
                if name in ("input", "output"):
                    raise InputError(path, None, f"{where}.{name}", "required price is missing (USD per 1M tokens)")
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                raise InputError(path, None, f"{where}.{name}", f"{json.dumps(v)} is not a price (a number >= 0)")
            vals[name] = float(v)
        if vals.get("batch_discount", 0.0) >= 1.0:
            raise InputError(path, None, f"{where}.batch_discount", "must be a share below 1 (0.5 = half price)")
        into[key] = Price(
            input=vals["input"], output=vals["output"], cached_input=vals.get("cached_input", vals["input"]),
            batch_discount=vals.get("batch_discount", 0.0), source=str(entry.get("source") or source),
        )


_CACHE: dict[str | None, PriceTable] = {}
_CACHE_LOCK = threading.Lock()


def load_prices(path: str | Path | None = None) -> PriceTable:
    """The price table in effect: the shipped one, then the user's file on top.

    Args:
        path: A user price file (default: ``$NOVEVAL_PRICES``; none when unset).

    Raises:
        InputError: the user file is missing or not a valid price table (file and field named).
    """
    user = str(path) if path is not None else (os.environ.get(PRICES_ENV) or None)
    with _CACHE_LOCK:
        if user in _CACHE:
            return _CACHE[user]
        entries: dict[str, Price] = {}
        shipped = resources.files("noveval.models").joinpath("prices.json")
        _read_table(Path("noveval/models/prices.json"), shipped.read_text(encoding="utf-8"), entries)
        files = ["noveval/models/prices.json (shipped)"]
        if user:
            p = Path(user)
            if not p.is_file():
                raise InputError(p, None, None, f"price file not found (named by {PRICES_ENV})" if path is None else "price file not found")
            _read_table(p, p.read_text(encoding="utf-8"), entries)
            files.append(str(p.resolve()))
        table = PriceTable(entries, files)
        _CACHE[user] = table
        return table


def estimate_prompt_tokens(messages: list[dict[str, str]], json_schema: dict[str, Any] | None = None) -> int:
    """An estimate of a request's prompt tokens, on the high side (see module docstring).

    One token per 3 UTF-8 bytes of every message's content, 4 per message, 3 for the
    reply's priming, and the JSON schema's text when one is sent.
    """
    n = 3
    for m in messages:
        n += 4 + math.ceil(len(str(m.get("content") or "").encode("utf-8")) / 3)
    if json_schema is not None:
        n += math.ceil(len(json.dumps(json_schema)) / 3)
    return n


def format_usd(usd: float | None) -> str:
    """``$12.35``, ``$0.0123``, ``$0.0000345`` (3 significant digits below $1), ``unknown`` for None."""
    if usd is None:
        return "unknown"
    if usd == 0:
        return "$0"
    if usd >= 1:
        return f"${usd:,.2f}"
    decimals = max(2, 2 - math.floor(math.log10(usd)))
    return f"${usd:.{decimals}f}".rstrip("0").rstrip(".")


def cost_lines(cost: dict[str, Any] | None, *, scope: str = "this run folder") -> list[str]:
    """Lines on what a run's model calls cost (``scores.json`` ``"cost"``); none when not recorded.

    ``cost: $0.0123 for this run folder ($0.004 in this invocation): 1,234 prompt + 567
    completion tokens`` then the prices used and where they come from; ``cost: unknown``
    naming the models without a price (never $0 for an unknown price).

    Args:
        cost: The ``"cost"`` entry of scores.json / calls.json (or a ledger's totals).
        scope: What the total covers, for the first line.
    """
    if not isinstance(cost, dict):
        return []
    got = cost.get("models")
    models: dict[str, Any] = got if isinstance(got, dict) else {}
    usd, this = cost.get("usd"), cost.get("this_invocation_usd")
    prompt = sum(int(m.get("prompt_tokens") or 0) for m in models.values())
    completion = sum(int(m.get("completion_tokens") or 0) for m in models.values())
    batched = sum(int(m.get("batch_requests") or 0) for m in models.values())
    if not models:
        return ["cost: $0 (no model call was billed: answers came from the cache or nothing was called)"]
    tokens = f"{prompt:,} prompt + {completion:,} completion tokens"
    if batched:
        tokens += f", {batched} request(s) at the batch price"
    if usd is None:
        known = cost.get("usd_known")
        line = (f"cost: unknown: no price for {', '.join(cost.get('unpriced') or [])} "
                f"(add it to a price file named by NOVEVAL_PRICES; see noveval prices)")
        if known:
            line += f"; the priced models cost {format_usd(known)}"
        lines = [line, f"  {tokens}"]
    else:
        inv = f" ({format_usd(this)} in this invocation)" if this is not None and this != usd else ""
        lines = [f"cost: {format_usd(usd)} for {scope}{inv}: {tokens}"]
    sources = sorted({str((m.get("price") or {}).get("source")) for m in models.values() if m.get("price")})
    if sources:
        lines.append(f"  prices (USD per 1M tokens; they date): {'; '.join(sources)}")
    if cost.get("max_usd") is not None:
        lines.append(f"  budget: --max-cost {format_usd(cost['max_usd'])}")
    return lines


@dataclass
class ModelSpend:
    """Tokens and dollars of one model."""

    requests: int = 0
    batch_requests: int = 0
    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0
    completion_tokens: int = 0
    usd: float | None = 0.0
    price: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """As written to calls.json and scores.json."""
        return {"requests": self.requests, "batch_requests": self.batch_requests,
                "prompt_tokens": self.prompt_tokens, "cached_prompt_tokens": self.cached_prompt_tokens,
                "completion_tokens": self.completion_tokens, "usd": self.usd, "price": self.price}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ModelSpend:
        """Read back :meth:`to_json` (missing fields are 0)."""
        usd = d.get("usd")
        return cls(requests=int(d.get("requests") or 0), batch_requests=int(d.get("batch_requests") or 0),
                   prompt_tokens=int(d.get("prompt_tokens") or 0),
                   cached_prompt_tokens=int(d.get("cached_prompt_tokens") or 0),
                   completion_tokens=int(d.get("completion_tokens") or 0),
                   usd=float(usd) if isinstance(usd, (int, float)) else None, price=d.get("price"))


@dataclass
class CostBook:
    """Tokens and dollars per model label (billed requests only: not cache hits, not failures)."""

    models: dict[str, ModelSpend] = field(default_factory=dict)

    def add(self, label: str, price: Price | None, *, prompt_tokens: int, completion_tokens: int,
            cached_tokens: int = 0, batch: bool = False, requests: int = 1) -> float | None:
        """Book one answered request (or a check call with ``requests=0``); returns its dollars."""
        m = self.models.setdefault(label, ModelSpend(usd=0.0 if price is not None else None))
        m.requests += requests
        m.batch_requests += requests if batch else 0
        m.prompt_tokens += prompt_tokens
        m.cached_prompt_tokens += cached_tokens
        m.completion_tokens += completion_tokens
        if price is None:
            m.usd = None
            return None
        m.price = price.describe()
        usd = price.cost(prompt_tokens, completion_tokens, cached_tokens, batch=batch)
        m.usd = None if m.usd is None else m.usd + usd
        return usd

    @property
    def usd(self) -> float | None:
        """Total dollars; None when any model's cost is unknown."""
        if any(m.usd is None for m in self.models.values()):
            return None
        return sum(m.usd or 0.0 for m in self.models.values())

    @property
    def usd_known(self) -> float:
        """Dollars of the models with a price (a lower bound when some are unknown)."""
        return sum(m.usd for m in self.models.values() if m.usd is not None)

    def merged(self, other: CostBook) -> CostBook:
        """This book plus another (per model, tokens and dollars added)."""
        out = CostBook({k: ModelSpend.from_json(v.to_json()) for k, v in self.models.items()})
        for k, o in other.models.items():
            m = out.models.get(k)
            if m is None:
                out.models[k] = ModelSpend.from_json(o.to_json())
                continue
            m.requests += o.requests
            m.batch_requests += o.batch_requests
            m.prompt_tokens += o.prompt_tokens
            m.cached_prompt_tokens += o.cached_prompt_tokens
            m.completion_tokens += o.completion_tokens
            m.usd = None if m.usd is None or o.usd is None else m.usd + o.usd
            m.price = o.price or m.price
        return out

    def to_json(self) -> dict[str, Any]:
        """``{"usd", "usd_known", "unpriced", "models": {label: ModelSpend}}``."""
        return {"usd": self.usd, "usd_known": self.usd_known,
                "unpriced": sorted(k for k, m in self.models.items() if m.usd is None),
                "models": {k: m.to_json() for k, m in self.models.items()}}

    @classmethod
    def from_json(cls, d: dict[str, Any] | None) -> CostBook:
        """Read back :meth:`to_json` (None or junk: an empty book)."""
        models = (d or {}).get("models") if isinstance(d, dict) else None
        if not isinstance(models, dict):
            return cls()
        return cls({str(k): ModelSpend.from_json(v) for k, v in models.items() if isinstance(v, dict)})


class BudgetExceeded(NovevalError):
    """The next request could take the run past ``--max-cost``: the run stops, resumable.

    The CLI exits with code 4 (:data:`noveval.cli.outcome.EXIT_BUDGET`).
    """


class Budget:
    """A dollar cap on a command's model calls (thread-safe).

    Args:
        max_usd: The cap in US dollars (>= 0; 0 allows only free calls: cached or in-process).
    """

    def __init__(self, max_usd: float) -> None:
        if isinstance(max_usd, bool) or not (isinstance(max_usd, (int, float)) and math.isfinite(max_usd) and max_usd >= 0):
            raise InputError(None, None, "--max-cost", f"must be a number of US dollars >= 0, got {max_usd!r}")
        self.max_usd = float(max_usd)
        self.reserved = 0.0
        self.stopped: str | None = None
        self._lock = threading.Lock()

    def admit(self, spent: float, estimate: float, label: str, *, reserve: bool = True) -> bool:
        """Reserve ``estimate`` dollars for one request, say it must wait, or stop the run.

        The budget is spent up to the cap, never past it: a request is admitted when what
        is spent, what is in flight (reserved at worst case) and its own worst case fit; it
        waits (False) while the in-flight requests could still leave room once they are
        booked at their real cost; the run stops when the rest of the budget cannot cover
        this request's worst case even with nothing in flight.

        Args:
            spent: Dollars already spent (earlier invocations included).
            estimate: The request's worst-case cost (its prompt tokens and ``max_tokens``).
            label: The model, for the message.
            reserve: False: only check that it could ever fit (nothing reserved, never waits).

        Returns:
            True when admitted (and reserved), False when it must wait for in-flight requests.

        Raises:
            BudgetExceeded: the rest of the budget cannot cover its worst case (and every
                later request is refused).
        """
        with self._lock:
            if self.stopped is None and spent + estimate > self.max_usd:
                self.stopped = self._message(spent, estimate, label)
            if self.stopped is not None:
                raise BudgetExceeded(self.stopped)
            if not reserve:
                return True
            if self.reserved > 0 and spent + self.reserved + estimate > self.max_usd:
                return False  # fits once the requests in flight are booked at their real cost
            self.reserved += estimate
            return True

    def admit_now(self, spent: float, estimate: float, label: str) -> None:
        """Admit and reserve at once, or stop the run (no waiting: a batch takes the prefix that fits).

        Raises:
            BudgetExceeded: spent, in flight and this request's worst case would pass the cap.
        """
        with self._lock:
            if self.stopped is None and spent + self.reserved + estimate > self.max_usd:
                self.stopped = self._message(spent + self.reserved, estimate, label)
            if self.stopped is not None:
                raise BudgetExceeded(self.stopped)
            self.reserved += estimate

    def _message(self, spent: float, estimate: float, label: str) -> str:
        return (f"--max-cost {format_usd(self.max_usd)}: {format_usd(spent)} spent of {format_usd(self.max_usd)}; "
                f"the next request to {label} could cost up to {format_usd(estimate)}, more than the "
                f"{format_usd(max(0.0, self.max_usd - spent))} left")

    def wait_admit(self, spent: Callable[[], float], estimate: float, label: str, *, poll_s: float = 0.02) -> None:
        """:meth:`admit` from blocking code: wait until it is admitted (or raise BudgetExceeded)."""
        while not self.admit(spent(), estimate, label):
            time.sleep(poll_s)

    async def await_admit(self, spent: Callable[[], float], estimate: float, label: str, *, poll_s: float = 0.02) -> None:
        """:meth:`admit` from async code: wait (without blocking the loop) until it is admitted."""
        while not self.admit(spent(), estimate, label):
            await asyncio.sleep(poll_s)

    def release(self, estimate: float) -> None:
        """Give back a reservation once the request has finished (its real cost is booked)."""
        with self._lock:
            self.reserved = max(0.0, self.reserved - estimate)

    def stop(self, reason: str) -> None:
        """Refuse every later request (a batch that did not fit stops the run)."""
        with self._lock:
            self.stopped = self.stopped or reason


def require_price(table: PriceTable, label: str) -> Price:
    """The price of ``label`` when a budget must be enforced.

    Raises:
        ConfigError: no price: a budget cannot be kept for a model of unknown cost.
    """
    price = table.lookup(label)
    if price is None:
        raise ConfigError(
            f"--max-cost: no price for model {label}, so a budget cannot be kept; add it to a price file "
            f"named by {PRICES_ENV} (see: noveval prices)"
        )
    return price
