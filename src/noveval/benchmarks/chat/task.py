"""Run a model over prompts; score exact-match against optional references."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, model_validator

from noveval.benchmarks.chat import BENCHMARK
from noveval.io import read_records, require_unique_ids
from noveval.metrics.bootstrap import summarize
from noveval.models.chat import ChatClientProtocol, ChatRequest, GenerationParams, Message
from noveval.runs import RunDir, run_items, text_sha


class PromptItem(BaseModel):
    """One input row: ``id`` and either ``prompt`` (a user message) or ``messages``."""

    id: str = Field(description="Unique item id.")
    prompt: str | None = Field(default=None, description="A single user message.")
    messages: list[Message] | None = Field(default=None, description="A full conversation.")
    system: str | None = Field(default=None, description="Optional system message.")
    reference: str | None = Field(default=None, description="Expected answer, for exact-match scoring.")

    @model_validator(mode="after")
    def _one_of(self) -> PromptItem:
        if not self.prompt and not self.messages:
            raise ValueError("needs 'prompt' or 'messages'")
        return self

    def to_messages(self) -> list[Message]:
        """The conversation sent to the model."""
        msgs: list[Message] = []
        if self.system:
            msgs.append({"role": "system", "content": self.system})
        msgs.extend(self.messages or [{"role": "user", "content": self.prompt or ""}])
        return msgs


def load_prompts(path: str | Path, *, limit: int | None = None) -> list[PromptItem]:
    """Read and validate a prompts file (JSONL or JSON list). Errors name file:line:field."""
    items = read_records(path, PromptItem)
    require_unique_ids(path, (it.id for it in items))
    return items[:limit] if limit else items


def run_prompts(
    items: list[PromptItem],
    client: ChatClientProtocol,
    out: str | Path,
    *,
    params: GenerationParams | None = None,
    overwrite: bool = False,
    extra_config: dict[str, Any] | None = None,
) -> RunDir:
    """Generate a reply for every item into ``out/predictions.jsonl`` (resumable).

    A failed request is recorded with its ``error`` and no ``output``.
    """
    params = params or GenerationParams()
    config = {
        "benchmark": "chat",
        "model": client.describe() | {"cache": None},
        "params": params.model_dump(mode="json"),
        "n_items": len(items),
        "inputs_sha": text_sha("\n".join(f"{it.id}\t{it.to_messages()}" for it in items)),
        **(extra_config or {}),
    }
    run = RunDir.create(out, config, overwrite=overwrite)

    async def worker(it: PromptItem) -> dict[str, Any]:
        resp = await client.acomplete(ChatRequest(messages=it.to_messages(), params=params, tag=it.id))
        row: dict[str, Any] = {"output": resp.text, "error": resp.error, "finish_reason": resp.finish_reason}
        row["tokens"] = {"prompt": resp.prompt_tokens, "completion": resp.completion_tokens}
        return row

    client.run(run_items(run, "predictions", items, worker, id_of=lambda it: it.id, progress="chat: generate", client=client))
    return run


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.strip().lower())


def score_predictions(items: list[PromptItem], run: RunDir) -> dict[str, Any]:
    """Exact match (case/space-insensitive) against ``reference``; failures counted apart.

    Returns the scores.json dict (``exact_match``: range [0, 1], best 1).
    """
    preds = run.done("predictions")
    per_item = []
    for it in items:
        p = preds.get(it.id)
        row: dict[str, Any] = {"id": it.id, "failed": p is None or p.get("output") is None}
        if it.reference is not None and p is not None and p.get("output") is not None:
            row["exact_match"] = float(_norm(p["output"]) == _norm(it.reference))
        per_item.append(row)
    run.write("per_item", per_item)

    scores = BENCHMARK.make_scores(run.config.get("model", {}).get("model_id"), summarize(per_item, ["exact_match"]),
                                   failures=sum(r["failed"] for r in per_item), n_items=len(items))
    run.write_scores(scores)
    return scores
