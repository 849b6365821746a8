"""Structuring free text: an answer that echoes the template or loops is rejected, asked once more, then the
heuristic parse is used and marked (issue 28). The model is a real local HTTP server (tests/fake_openai.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from fake_openai import REQUEST, FakeOpenAIServer
from noveval.cli.main import app

from .test_cli import CORPUS

TEXT = ("# Causal sparse probes\n\nLinear probes show that syntax is decodable from a language model, but not that the "
        "model uses it. We propose training L1-sparse probes and then ablating the selected dimensions. We measure the "
        "change in syntactic agreement accuracy.\n")

ECHO = {"problem_statement": "The problem or gap it addresses", "objective": "What it sets out to achieve",
        "solution_approach": "How it proposes to achieve it (the method and its key components)"}
LOOP = {"problem_statement": "Probes.", "objective": "Sparse probes for syntax.",
        "solution_approach": "the probe is trained and the probe is trained " * 40}


def _run(tmp_path: Path, answers: list[dict[str, Any]], *extra: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    bodies: list[dict[str, Any]] = []

    def responder(prompt: str) -> str | dict[str, Any]:
        if "Rewrite the research described below" in prompt:
            bodies.append(REQUEST.body)
            return answers[min(len(bodies), len(answers)) - 1]
        if "Judge the novelty of the research idea" in prompt:
            return {"reasoning": "Close to [1].", "novelty_score": 3}
        return {"positive": [], "neutral": [], "negative": []}

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps({"id": f"c{i}", "title": t, "abstract": a, "year": y})
                                for i, (t, a, y) in enumerate(CORPUS)) + "\n", encoding="utf-8")
    idea = tmp_path / "idea.md"
    idea.write_text(TEXT, encoding="utf-8")
    out = tmp_path / "out"
    with FakeOpenAIServer(responder=responder) as server:
        res = CliRunner().invoke(app, ["check", str(idea), "--corpus", str(corpus), "--top-k", "3", "-o", str(out),
                                       "-m", f"openai-compatible/scripted@{server.base_url}", *extra])
    assert res.exit_code == 0, res.output
    return json.loads((out / "check.json").read_text()), bodies


def test_echo_then_loop_falls_back_to_the_heuristic_parse(tmp_path: Path) -> None:
    # both structuring answers unusable: more than half of the role (exit 3 without the flag, issue 34)
    r, bodies = _run(tmp_path, [ECHO, LOOP], "--allow-unparseable")
    # asked twice: greedy first, then seed + 1 at temperature 0.7
    assert [(b["seed"], b["temperature"]) for b in bodies] == [(0, 0.0), (1, 0.7)]
    st = r["structuring"]
    assert st["by"] == "heuristic" and r["structured_idea"] is None
    assert "repeats the template" in st["attempts"][0]["rejected"] and "loop" in st["attempts"][1]["rejected"]
    # the rubric was asked about the heuristic parse shown under Input, not the echo
    parsed = r["input"]["parsed"]
    assert parsed["title"]["text"] == "Causal sparse probes"
    assert r["rubric"]["score"] == 3
    md = (tmp_path / "out" / "check.md").read_text()
    assert "The model's structuring was rejected" in md and "heuristic parse" in md


def test_a_good_second_answer_is_used(tmp_path: Path) -> None:
    good = {"problem_statement": "Probes show decodability, not use.", "objective": "Find the dimensions used for "
            "syntax.", "solution_approach": "Train L1-sparse probes and ablate the selected dimensions."}
    r, bodies = _run(tmp_path, [ECHO, good])
    assert len(bodies) == 2 and r["structuring"]["by"] == "model" and r["structured_idea"] == good
