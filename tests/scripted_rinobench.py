"""Replies of a scripted RINoBench model and judge, by prompt kind (a ``responder`` for tests/fake_openai.py)."""

from __future__ import annotations

from typing import Any


class RinoScript:
    """A judgment (score 3), then the judge's extraction, support, alignment and grounding replies."""

    def __call__(self, prompt: str) -> dict[str, Any]:
        if "Judge the novelty of the research idea" in prompt:
            return {"reasoning": "Parts exist in the related works; the combination is new.", "novelty_score": 3}
        if "Justification:" in prompt:
            return {"arguments": ["The combination is new.", "Parts exist in prior work."]}
        if "Reference justification (written by experts)" in prompt:
            return {"supported": [True, False]}
        if "Reference justification" in prompt:
            return {"score": 4, "reason": "Mostly the same."}
        n = sum(1 for line in prompt.splitlines() if line[:1].isdigit() and ". " in line[:4])
        return {"grounded": [True] * max(n, 1)}
