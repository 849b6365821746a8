"""Scripted models for ``noveval eval`` tests: replies that depend on the shipped sample's gold.

``oracle`` answers every RINoBench idea with its gold score and every pair with the side of
higher gold; ``constant`` answers 3 and "A". Both give NovBench its three sections and serve
the judge's steps with :class:`scripted_rinobench.RinoScript`. Responders for tests/fake_openai.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from schema_reply import schema_reply
from scripted_rinobench import RinoScript

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "noveval" / "samples" / "rinobench" / "test.json"
GOLD = {it["research_idea"]["objective"]: it["novelty_score"] for it in json.loads(SAMPLE.read_text(encoding="utf-8"))}
"""Objective sentence of each shipped sample idea -> its gold 1-5 score (2, 3, 4, 5)."""


def _gold_in(text: str) -> int | None:
    return next((g for objective, g in GOLD.items() if objective in text), None)


def responder(kind: str) -> Any:
    """A responder: ``oracle`` (gold answers) or ``constant`` (3, "A")."""
    script = RinoScript()

    def answer(prompt: str) -> str | dict[str, Any]:
        if "\nA:\n" in prompt and "\nB:\n" in prompt:
            if kind == "constant":
                return {"more_novel": "A"}
            first, second = prompt.split("\nA:\n", 1)[1].split("\nB:\n", 1)
            return {"more_novel": "A" if (_gold_in(first) or 0) > (_gold_in(second) or 0) else "B"}
        if "Judge the novelty of the research idea" in prompt:
            score = _gold_in(prompt) if kind == "oracle" else 3
            return {"reasoning": "Scripted.", "novelty_score": score or 3}
        if "Positive Novelty Evaluations" in prompt:  # NovBench generation: the sections its parser reads
            return schema_reply(prompt)
        return script(prompt)

    return answer
