"""The justification judge's options through the real client stack (scripted local server).

A real :class:`ChatClient` talks HTTP to ``tests/fake_openai.py`` on 127.0.0.1, whose
replies are scripted by prompt kind; the judge logic under test is noveval's.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from fake_openai import FakeOpenAIServer
from noveval.benchmarks.rinobench import JudgeOptions, Prediction, RINoBenchItem, ajudge_item
from noveval.benchmarks.rinobench.judge import _arguments_schema, grounding_messages
from noveval.models.client import ChatClient, RetryPolicy
from noveval.models.openai_compat import OpenAICompatBackend
from noveval.models.spec import parse_spec

IDEA = {
    "problem_statement": "Warmup schedules for large-batch training are tuned by hand.",
    "objective": "We aim to remove the manual warmup schedule.",
    "solution_approach": "We apply layer-wise trust ratios only during the warmup phase.",
}
WORK_TITLE = "Large Batch Optimization for Deep Learning (LAMB)"


def _item() -> RINoBenchItem:
    return RINoBenchItem.model_validate(
        {
            "id": "0",
            "research_idea": IDEA,
            "novelty_score": 3,
            "novelty_reasoning": "Trust ratios exist in LAMB. Restricting them to warmup is new.",
            "related_works": [{"title": WORK_TITLE, "abstract": "Layer-wise adaptive trust ratios."}],
        }
    )


class _Script:
    """Replies by prompt kind; records every grounding prompt it sees."""

    def __init__(self, n_pred_args: int, n_gold_args: int = 2) -> None:
        self.n_pred, self.n_gold = n_pred_args, n_gold_args
        self.grounding_prompts: list[str] = []

    def __call__(self, prompt: str) -> dict[str, Any]:
        if "Justification:" in prompt:  # extraction (gold or predicted)
            n = self.n_gold if "Restricting them to warmup" in prompt else self.n_pred
            return {"arguments": [f"Argument number {i} about the idea." for i in range(n)]}
        if "Reference justification (written by experts)" in prompt:  # support
            return {"supported": [False] * _count(prompt)}
        if "Reference justification" in prompt:  # alignment
            return {"score": 4, "reason": "Mostly the same."}
        self.grounding_prompts.append(prompt)
        return {"grounded": [True] * _count(prompt)}


def _count(prompt: str) -> int:
    return sum(1 for line in prompt.splitlines() if line[:1].isdigit() and ". Argument number" in line)


def _judge(script: _Script, opts: JudgeOptions) -> dict[str, Any]:
    with FakeOpenAIServer(responder=script) as server:
        backend = OpenAICompatBackend(parse_spec(f"openai-compatible/scripted@{server.base_url}"))
        client = ChatClient(backend, cache=None, concurrency=4, retry=RetryPolicy(max_retries=0, base_s=0.01, cap_s=0.01))
        pred = Prediction(reasoning="LAMB has trust ratios; using them only in warmup is new.", novelty_score=3)
        return asyncio.run(ajudge_item(client, _item(), pred, options=opts))


def test_extraction_is_uncapped_by_default_so_additional_ratio_can_exceed_one() -> None:
    assert JudgeOptions().max_arguments is None
    row = _judge(_Script(n_pred_args=12), JudgeOptions())
    assert row["failures"] == []
    known = row["known"]
    assert len(known["predicted_arguments"]) == 12 and len(known["gold_arguments"]) == 2
    # 12 arguments, none supported by the gold, all grounded: Eq. 2 gives 12 / 2 = 600%
    assert row["metrics"]["additional_known_aspects_ratio"] == pytest.approx(6.0)
    assert row["metrics"]["known_aspects_hallucination_rate"] == 0.0
    assert row["metrics"]["alignment"] == pytest.approx(0.75)  # parsed 4 -> (4 - 1) / 4


def test_max_arguments_caps_schema_and_reply() -> None:
    assert "maxItems" not in _arguments_schema(None)["properties"]["arguments"]
    assert _arguments_schema(8)["properties"]["arguments"]["maxItems"] == 8
    # the scripted server ignores the schema; the judge still keeps the first 8
    row = _judge(_Script(n_pred_args=12), JudgeOptions(max_arguments=8))
    assert len(row["known"]["predicted_arguments"]) == 8
    assert row["metrics"]["additional_known_aspects_ratio"] == pytest.approx(4.0)  # bounded: 8 / 2


def test_grounding_context_split_vs_both() -> None:
    split = _Script(n_pred_args=1)
    _judge(split, JudgeOptions())
    known = [p for p in split.grounding_prompts if "Numbered arguments about what already exists" in p]
    novelty = [p for p in split.grounding_prompts if "Numbered arguments about what is new" in p]
    assert len(known) == 1 and len(novelty) == 1
    assert WORK_TITLE in known[0] and IDEA["solution_approach"] not in known[0]  # known: related works only
    assert IDEA["solution_approach"] in novelty[0] and WORK_TITLE not in novelty[0]  # novelty: idea only

    both = _Script(n_pred_args=1)
    _judge(both, JudgeOptions(grounding_context="both"))
    assert len(both.grounding_prompts) == 2  # one per kind, each with idea and related works
    for p in both.grounding_prompts:
        assert WORK_TITLE in p and IDEA["solution_approach"] in p


def test_grounding_messages_and_bad_option() -> None:
    msgs = grounding_messages("novelty", _item(), ["It is new."], JudgeOptions(grounding_context="both"))
    assert msgs[0]["role"] == "system" and "1. It is new." in msgs[1]["content"]
    with pytest.raises(ValueError):
        JudgeOptions(grounding_context="everything")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        JudgeOptions(max_arguments=0)
    assert json.loads(JudgeOptions().model_dump_json())["grounding_context"] == "split"
