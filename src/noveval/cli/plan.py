"""The work plan of ``noveval eval`` in words: ``--plan`` (the full plan, nothing run) and the compact plan every eval prints first.

The numbers come from each system's planner (:func:`noveval.benchmarks._suite.plan_work`);
this module adds the model's rates (:func:`model_rates`: the bundled model's measured rates,
or an HTTP endpoint's check-call latency, the one request a plan may send), the dollars
(:func:`noveval.plan.plan_cost`) and the budget test of ``--max-cost``
(:func:`over_budget`).
"""

from __future__ import annotations

import time
from typing import Any

from noveval.plan import (
    BUNDLED_RATES,
    EMBED_TEXTS_PER_S,
    MODEL_LOAD_S,
    STRUCTURED_SHARE,
    Rates,
    SystemPlan,
    plan_cost,
    plan_seconds,
    totals,
)

UNDER_TEST = "(the model under test"
"""How :func:`noveval.benchmarks._suite.plan_work` marks the model under test among a run's local models."""

__all__ = ["PlanView", "format_plan", "model_rates", "over_budget", "plan_view"]


def model_rates(model: str, timeout_s: float = 30.0, *, check: bool = True) -> tuple[Rates, bool]:
    """The rates of the model under test, and whether a check call was sent.

    An in-process model (``local...``): the bundled model's measured rates
    (:data:`noveval.plan.BUNDLED_RATES`), no call. An HTTP endpoint: the latency of the
    endpoint's check call (the one-token request the runner makes before a run) as the
    per-call overhead, tokens at the bundled model's rates (a stated default: a GPU server is
    usually faster, so an upper bound there); a check that fails leaves the overhead 0 and
    says so.
    """
    from noveval.models.client import get_client
    from noveval.models.spec import parse_spec

    if parse_spec(model).provider == "local":
        return BUNDLED_RATES, False
    if not check:
        return Rates(BUNDLED_RATES.prefill, BUNDLED_RATES.decode, 0.0,
                     f"an HTTP endpoint at the default rates of the bundled model on this machine "
                     f"({BUNDLED_RATES.prefill:g} prompt / {BUNDLED_RATES.decode:g} completion tokens/s, no latency; "
                     "--plan times the endpoint's check call)"), False
    t0 = time.perf_counter()
    try:
        get_client(model, cache=None, timeout_s=timeout_s, max_retries=0)._check_endpoint()
    except Exception as e:  # the eval's own check reports a dead endpoint: the plan only says so
        return Rates(BUNDLED_RATES.prefill, BUNDLED_RATES.decode, 0.0,
                     f"the endpoint's check call failed ({type(e).__name__}: {e}); tokens at the bundled model's "
                     f"rates ({BUNDLED_RATES.prefill:g} prompt / {BUNDLED_RATES.decode:g} completion tokens/s)"), True
    lat = time.perf_counter() - t0
    return Rates(BUNDLED_RATES.prefill, BUNDLED_RATES.decode, lat,
                 f"per call the latency of the endpoint's check call ({lat:.2f} s, one 1-token request: the only "
                 f"call a plan makes), plus tokens at the default rates of the bundled model on this machine "
                 f"({BUNDLED_RATES.prefill:g} prompt / {BUNDLED_RATES.decode:g} completion tokens/s; one call at "
                 "a time: an upper bound for a faster or concurrent server)"), True


class PlanView:
    """A plan with its dollars and seconds, per run and in total."""

    def __init__(self, model: str, plans: list[SystemPlan], rates: Rates, checked: bool,
                 skipped: list[tuple[str, str]] | None = None) -> None:
        from noveval.models.costs import load_prices

        self.model, self.plans, self.rates, self.checked = model, plans, rates, checked
        self.skipped = skipped or []
        self.total = totals(plans)
        prices = load_prices()
        self.cost = {p.system: plan_cost(p, model, prices) for p in [*plans, self.total]}
        r: dict[str | None, Rates] = {None: rates}
        # a run's own models are loaded by its run; the model under test once by the eval (counted in the total)
        own = {p.system: MODEL_LOAD_S * sum(UNDER_TEST not in m for m in p.local_models) for p in plans}
        self.seconds: dict[str, float] = {p.system: plan_seconds(p, r, loads=False) + own[p.system] for p in plans}
        self.at_caps: dict[str, float] = {p.system: plan_seconds(p, r, loads=False, at_caps=True) + own[p.system]
                                          for p in plans}
        loads = MODEL_LOAD_S * len(self.total.local_models)
        for d, caps in ((self.seconds, False), (self.at_caps, True)):
            d["total"] = sum(plan_seconds(p, r, loads=False, at_caps=caps) for p in plans if p.estimated) + loads
        floor = [SystemPlan(p.system, calls=[type(c)(c.role, c.prompt_tokens, 1, c.model) for c in p.calls])
                 for p in plans]
        self.min_cost = plan_cost(totals(floor), model, prices)

    def usd(self, system: str) -> str:
        """A run's dollars in words ("unknown price" for a model without one; local: $0)."""
        usd, unknown = self.cost[system]
        if unknown:
            return f"unknown price ({', '.join(unknown)})" + (f" + ${usd:.4f}" if usd else "")
        return f"${usd:.4f}"

    def to_dict(self) -> dict[str, Any]:
        """The plan as JSON (``--plan --json``)."""
        def one(p: SystemPlan) -> dict[str, Any]:
            usd, unknown = self.cost[p.system]
            return {**p.to_dict(), "usd": None if unknown else usd, "unknown_price": unknown,
                    "seconds": self.seconds.get(p.system) if p.estimated else None,
                    "seconds_at_caps": self.at_caps.get(p.system) if p.estimated else None}
        return {"model": self.model, "runs": [one(p) for p in self.plans], "total": one(self.total),
                "not_run": [{"system": n, "reason": why} for n, why in self.skipped],
                "usd_prompts_only": None if self.min_cost[1] else self.min_cost[0],
                "time_estimate": self.rates.how, "endpoint_check_call": self.checked}


def plan_view(model: str, planned: list[Any], *, timeout_s: float = 30.0, check: bool = True) -> PlanView:
    """The plan of an eval's planned runs (:func:`noveval.benchmarks._suite.plan_work`) with its money and time
    (``check``: time an HTTP endpoint's check call; else its stated default rates, no request)."""
    from noveval.benchmarks._suite import plan_work

    plans = plan_work(model, planned)
    rates, checked = (model_rates(model, timeout_s, check=check) if any(p.calls for p in plans)
                      else (BUNDLED_RATES, False))
    return PlanView(model, plans, rates, checked, [(p.bench.name, p.plan.skip) for p in planned if p.plan.skip])


def _dur(s: float) -> str:
    return f"{s:.0f} s" if s < 90 else f"{s / 60:.0f} min" if s < 5400 else f"{s / 3600:.1f} h"


def _calls(p: SystemPlan) -> str:
    if not p.estimated:
        return "some runs not estimated"
    roles = p.by_role()
    if not roles:
        return "no model call"
    return "; ".join(f"{n:,} {role} call{'s' * (n != 1)} ({pt:,} prompt tokens, ≤ {m:,} completion)"
                     for role, (n, pt, m) in roles.items())


def format_plan(view: PlanView, *, compact: bool = False) -> str:
    """The plan as terminal text: a line per run (items, calls by role, tokens, embedding, $, time), the total,
    the local models and how the estimate was made; ``compact``: a line per run and the total only."""
    lines = [f"plan of {view.model} ({'compact; ' if compact else ''}no model call"
             f"{' but the endpoint check' if view.checked else ''}):"]
    for p in [*view.plans, view.total]:
        if not p.estimated and p.system != "total":
            lines.append(f"  {p.system}: {'; '.join(p.notes)}")
            continue
        emb = ""
        if p.embed_texts:
            emb = f"; embed {p.embed_texts:,} texts" + (f" ({p.embed_cached:,} cached)" if p.embed_cached else "")
        secs = view.seconds.get(p.system, 0.0)
        partial = " (of the runs estimated)" if p.system == "total" and not p.estimated else ""
        left = [n for n in p.notes if n.startswith("not estimated:")] if p.system != "total" else []
        caps = view.at_caps.get(p.system, 0.0)
        bound = f" ({_dur(caps)} with every answer at its cap)" if _dur(caps) != _dur(secs) else ""
        lines.append(f"  {p.system}: {p.items:,} items; {_calls(p)}{emb}; {view.usd(p.system)}; "
                     f"~{_dur(secs)}{bound}{partial}" + "".join(f"; {n}" for n in left))
    if view.skipped:
        lines += ([f"  not run: {', '.join(n for n, _ in view.skipped)}"] if compact
                  else [f"  not run: {n}: {why}" for n, why in view.skipped])
    if compact:
        lines.append("  (completions at their caps, time at stated rates: noveval eval --plan says how)")
        return "\n".join(lines)
    models = view.total.local_models
    lines.append("local models it loads: " + ("; ".join(models) if models else "none"))
    for p in view.plans:
        lines += [f"  note: {p.system}: {n}" for n in p.notes if p.estimated and not n.startswith("not estimated:")]
    lines.append("tokens: prompts rendered by each system's own request builders, counted as characters / 4 + 4 "
                 "per message; completions at their caps (max_tokens of each call after --max-tokens)")
    lines.append(f"time: {view.rates.how}; completions of free text at their caps, schema-constrained (JSON) ones "
                 f"at {STRUCTURED_SHARE:.0%} of them (the share the bundled model used: docs/eval.md), every one at "
                 f"its cap for the figure in parentheses; embedding at {', '.join(f'{v:g} texts/s ({k})' for k, v in EMBED_TEXTS_PER_S.items())}"
                 "; 5 s per local model loaded (the model under test once, in the total)")
    lines.append("dollars: the chat calls at the price map (noveval prices; NOVEVAL_PRICES adds entries) at the "
                 "completion caps; in-process models $0; an HTTP embedder's tokens are not counted")
    return "\n".join(lines)


def over_budget(view: PlanView, max_cost: float) -> str | None:
    """Why the plan cannot fit ``max_cost`` dollars (None: it may).

    It cannot when its prompts alone, each call with one completion token, cost more (what
    will be billed whatever the answers); a plan over the budget only at its completion caps
    may still fit (the eval then stops at the budget, exit 4). A model without a price is
    never refused here (its cost is unknown).
    """
    usd, unknown = view.min_cost
    if unknown or usd <= max_cost:
        return None
    return (f"the plan cannot fit --max-cost ${max_cost:g}: its prompts alone cost ${usd:.4f} "
            f"(at the completion caps ${view.cost['total'][0]:.4f})")
