"""The 1-5 novelty rubric and the JSON schema of a judgment (RINoBench, Schopf & Färber 2026).

The rubric is RINoBench's Table 1 (also published as ``label_descriptions.json`` in
TimSchopf/RINoBench, CC BY 4.0); :func:`noveval.benchmarks.rinobench.data.load_rubric`
reads that file. The answer schema is ours: the task (Section 5, Figure 6) asks for a
justification and a score, and the schema fixes their JSON names and order.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DEFAULT_RUBRIC", "JUDGMENT_SCHEMA", "rubric_text"]

DEFAULT_RUBRIC: dict[int, str] = {
    1: "The idea is not novel. All aspects already exist in prior work.",
    2: "The idea is marginally novel. It represents only a minor variation of existing work.",
    3: (
        "The idea is somewhat novel. Aspects already exist in prior work. However, it might "
        "combine known approaches in new ways, apply them to new contexts, or propose "
        "incremental updates."
    ),
    4: "The idea is novel. It introduces new aspects not present in existing work.",
    5: (
        "The idea is highly innovative and novel. It is not present in existing work and "
        "potentially encourages new thinking or opens up new research directions."
    ),
}
"""The novelty judgment rubric, Table 1 of the paper (CC BY 4.0)."""

JUDGMENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string"},
        "novelty_score": {"type": "integer", "enum": [1, 2, 3, 4, 5]},
    },
    "required": ["reasoning", "novelty_score"],
}
"""JSON schema of the answer: justification first, then the score."""


def rubric_text(rubric: dict[int, str]) -> str:
    """Render the rubric as ``N: description`` lines, lowest score first."""
    return "\n".join(f"{k}: {rubric[k]}" for k in sorted(rubric))
