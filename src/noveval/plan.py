"""What an eval will do before it does it (``noveval eval --plan``): calls, tokens, embedding, models, dollars, time.

A pure data model with no model call. Each system's ``<package>/plan.py`` has a
``plan(options) -> SystemPlan`` that loads the items its run would read (with its
``--limit``), renders every first-round prompt through the same functions that build the
run's requests, and counts: one :class:`PlannedCall` per request (its role, the prompt's
tokens estimated by :func:`prompt_tokens`, the completion's cap: the request's
``max_tokens`` after the generation controls, :func:`capped`), the texts it will embed and
the local models it loads. A call whose prompt holds an earlier answer (a chain's next
step) is counted with that answer at its cap.

Money: :func:`plan_cost` prices each call's prompt and capped completion with the price
map (:mod:`noveval.models.costs`; a model missing from it is an unknown price, never 0;
in-process models cost 0). Time: :func:`plan_seconds` from the :class:`Rates` given (the
CLI measures or states them: :data:`BUNDLED_RATES` for the bundled model, the endpoint's
check-call latency for an HTTP endpoint).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from noveval.models.spec import parse_spec

__all__ = ["BUNDLED_RATES", "CHARS_PER_TOKEN", "EMBED_TEXTS_PER_S", "MODEL_LOAD_S", "STRUCTURED_SHARE", "TOKENS_PER_MESSAGE", "PlannedCall", "Rates",
           "SystemPlan", "cached_texts", "capped", "not_estimated", "plan_cost", "plan_seconds", "prompt_tokens", "request_call",
           "totals"]

CHARS_PER_TOKEN = 4.0
"""Prompt tokens are estimated as characters / 4 (plus :data:`TOKENS_PER_MESSAGE`): the bundled
SmolLM2 tokenizer gave 389-462 tokens for NovBench prompts this estimate puts at 402-515
(English text; OpenAI's tokenizers average about 4 characters a token)."""
TOKENS_PER_MESSAGE = 4
"""The chat template's tokens around each message (role markers)."""


@dataclass(frozen=True)
class PlannedCall:
    """One request an eval will send.

    Attributes:
        role: What it is for: ``model`` (the model under test answers), ``judge``,
            ``annotator``, ``extraction``, ``expert chain``, ...
        prompt_tokens: Estimated prompt tokens (:func:`prompt_tokens`).
        max_completion_tokens: The request's ``max_tokens`` (the completion's cap).
        model: The model spec that answers (None: the model under test).
        structured: The answer is constrained to a JSON schema (it ends when its object closes;
            :data:`STRUCTURED_SHARE`); free text may run to its cap.
    """

    role: str
    prompt_tokens: int
    max_completion_tokens: int
    model: str | None = None
    structured: bool = False


@dataclass
class SystemPlan:
    """One run's planned work (``noveval eval --plan``).

    Attributes:
        system: The run's name (its eval sub-folder).
        items: The items it evaluates.
        calls: Every request it will send (empty: none, or ``estimated`` False).
        embed_texts: Texts it will embed (``embed_cached`` of them already in the vector cache/index).
        embed_cached: Of ``embed_texts``, those already embedded (no work).
        embedder: The embedder's spec (None: it embeds nothing).
        local_models: Local models it loads (``"SmolLM2-135M GGUF (the model under test)"``, ...).
        notes: How the numbers were estimated, what they leave out.
        estimated: False when the system could not be estimated (its calls are then "not estimated").
    """

    system: str
    items: int = 0
    calls: list[PlannedCall] = field(default_factory=list)
    embed_texts: int = 0
    embed_cached: int = 0
    embedder: str | None = None
    local_models: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    estimated: bool = True

    def by_role(self) -> dict[str, tuple[int, int, int]]:
        """Role -> (calls, prompt tokens, completion-token cap), in the order the roles first appear."""
        out: dict[str, tuple[int, int, int]] = {}
        for c in self.calls:
            n, p, m = out.get(c.role, (0, 0, 0))
            out[c.role] = (n + 1, p + c.prompt_tokens, m + c.max_completion_tokens)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The plan as JSON (calls summed per role)."""
        return {"system": self.system, "items": self.items, "estimated": self.estimated,
                "calls": {r: {"calls": n, "prompt_tokens": p, "max_completion_tokens": m}
                          for r, (n, p, m) in self.by_role().items()},
                "embed_texts": self.embed_texts, "embed_cached": self.embed_cached, "embedder": self.embedder,
                "local_models": self.local_models, "notes": self.notes}


def not_estimated(system: str, why: str) -> SystemPlan:
    """The plan of a run that cannot be estimated: no number, the reason."""
    return SystemPlan(system, notes=[f"not estimated: {why}"], estimated=False)


def prompt_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    """Estimated prompt tokens of chat messages: characters / :data:`CHARS_PER_TOKEN` plus
    :data:`TOKENS_PER_MESSAGE` per message. Range [0, inf)."""
    chars = sum(len(str(m.get("content") or "")) for m in messages)
    return int(round(chars / CHARS_PER_TOKEN)) + TOKENS_PER_MESSAGE * len(messages)


def cached_texts(embedder: str, texts: Sequence[str]) -> int:
    """How many distinct ``texts`` the vector cache already holds for ``embedder`` (no model is loaded). Range [0, len(texts)]."""
    from noveval.models import get_embedder
    from noveval.models.embed import text_hash

    emb = get_embedder(embedder)
    if emb.cache is None:
        return 0
    return len(emb.cache.get_many(emb.model_id, [text_hash(t) for t in dict.fromkeys(texts)]))


def capped(generation: Mapping[str, Any], own: int) -> int:
    """A call's completion cap: the generation controls' ``max_tokens`` laid over every call
    (:meth:`noveval.options.RunOptions.generation`), else the call's own budget."""
    given = generation.get("max_tokens")
    return int(given) if given is not None else int(own)


def request_call(request: Any, generation: Mapping[str, Any], role: str = "model", *, model: str | None = None,
                 earlier: int = 0) -> PlannedCall:
    """The :class:`PlannedCall` of a built :class:`~noveval.models.chat.ChatRequest`.

    Args:
        request: The request (its ``messages`` and ``params.max_tokens``).
        generation: The generation controls laid over the model under test's calls (empty for
            a judge or annotator of its own).
        role: The call's role.
        model: Its model (None: the model under test).
        earlier: Tokens of earlier answers its prompt will hold (a chain's next step).
    """
    own = request.params.max_tokens
    cap = capped(generation, own if own is not None else 0)
    return PlannedCall(role, prompt_tokens(request.messages) + earlier, cap, model,
                       structured=request.params.json_schema is not None)


@dataclass(frozen=True)
class Rates:
    """How fast a model answers (for :func:`plan_seconds`).

    Attributes:
        prefill: Prompt tokens read per second.
        decode: Completion tokens written per second.
        per_call: Seconds of overhead per request (an HTTP round trip, the check call's latency).
        how: Where the rates come from, in words (printed with the estimate).
    """

    prefill: float
    decode: float
    per_call: float = 0.0
    how: str = ""


BUNDLED_RATES = Rates(prefill=300.0, decode=50.0, per_call=0.0, how=(
    "the bundled SmolLM2-135M on this 2-core machine, measured (the eval's llama.cpp, one thread): a completion token "
    "every 1/50 s (38/s wall under a load of 3, 98 per CPU-s; the demo's 46 calls: ~50/s); a prompt token every 1/300 s "
    "(225 per CPU-s for a fresh prompt; prompts of one template share their prefix, which llama.cpp does not read "
    "again: the sample eval's focus annotator read 30k prompt tokens in under 100 s)"))
"""Measured rates of the bundled GGUF (in-process or served over HTTP on this machine)."""

EMBED_TEXTS_PER_S = {"local": 90.0, "local:bf16@256": 35.0}
"""Texts per wall-second of the bundled MiniLM on this 2-core machine: at 256 tokens (``local:bf16@256``)
measured in a real-data eval (validate embedded 1,500 corpus abstracts in 43 s, load ~3); at 128 tokens
(``local``) 2.6 times that, the ratio of their texts per CPU-second in docs/performance.md (*Embedders*:
80.6 vs 28.9). Another embedder is estimated at the 256-token rate."""

STRUCTURED_SHARE = 0.25
"""The share of its cap a schema-constrained answer is timed at (tokens and dollars stay at the cap):
the bundled model's JSON answers used 7-67% of their caps in the sample and real-data evals of
docs/eval.md (RINoBench 7%, focus's reviews 13-23%, validate's judges 19-22%, focus's annotations
41%, CLAIMCHECK 45%, the pairs 37-67%); free text is timed at its cap (NovBench's evaluations and
focus's expert chain used all of it)."""

MODEL_LOAD_S = 5.0
"""Seconds to load one local model (the GGUF, MiniLM, the perplexity LM; ``noveval models check``: 6.5 s for two)."""


def totals(plans: Iterable[SystemPlan]) -> SystemPlan:
    """Every plan summed into one (``system`` "total"; not ``estimated`` when one of them is not)."""
    out = SystemPlan("total")
    for p in plans:
        out.items += p.items
        out.calls += p.calls
        out.embed_texts += p.embed_texts
        out.embed_cached += p.embed_cached
        out.local_models += [m for m in p.local_models if m not in out.local_models]
        out.estimated = out.estimated and p.estimated
    return out


def plan_cost(plan: SystemPlan, model: str, prices: Any) -> tuple[float, list[str]]:
    """Dollars of a plan's calls at their caps, and the models whose price is unknown.

    Args:
        plan: The plan.
        model: The spec of the model under test (calls with ``model`` None).
        prices: A :class:`noveval.models.costs.PriceTable`.

    Returns:
        ``(usd, unknown)``: the priced calls' dollars (range [0, inf); in-process models cost
        0) and the labels of the models without a price (their calls are not in ``usd``).
    """
    usd, unknown = 0.0, []
    for c in plan.calls:
        spec = c.model or model
        label = parse_spec(spec).label
        price = prices.lookup(label)
        if price is None:
            if label == "local" or label.startswith(("local/", "local:")):
                continue
            unknown += [label] if label not in unknown else []
            continue
        usd += price.cost(c.prompt_tokens, c.max_completion_tokens)
    return usd, unknown


def plan_seconds(plan: SystemPlan, rates: Mapping[str | None, Rates], *, loads: bool = True,
                 at_caps: bool = False) -> float:
    """Estimated seconds of a plan: each call's prompt / prefill + its completion / decode + per-call
    overhead (one call at a time: an upper bound where requests run concurrently), the texts to
    embed at :data:`EMBED_TEXTS_PER_S`, and (``loads``) :data:`MODEL_LOAD_S` per local model.
    Range [0, inf).

    Args:
        plan: The plan.
        rates: Model spec -> its rates (key None: the model under test; a model missing: the
            model under test's).
        loads: Count the local models' loading.
        at_caps: Every completion at its cap (an upper bound); else a schema-constrained one at
            :data:`STRUCTURED_SHARE` of it.
    """
    default = rates.get(None) or BUNDLED_RATES
    s = 0.0
    for c in plan.calls:
        r = rates.get(c.model, default)
        out = c.max_completion_tokens * (STRUCTURED_SHARE if c.structured and not at_caps else 1.0)
        s += c.prompt_tokens / r.prefill + out / r.decode + r.per_call
    todo = plan.embed_texts - plan.embed_cached
    if todo > 0:
        s += todo / EMBED_TEXTS_PER_S.get(plan.embedder or "local", EMBED_TEXTS_PER_S["local:bf16@256"])
    return s + (MODEL_LOAD_S * len(plan.local_models) if loads else 0.0)
