"""``--limit`` and the token caps bound a focus run's model work (issue 37 item 2).

A real run of the paper protocol (the A.1.1 expert chain) against a real HTTP server on
127.0.0.1 that records every request body: with ``limit`` N only the first N rejected papers
reach the server, each chain step asks for ``expert_max_tokens``, each review for
``max_tokens``, and the annotator for nothing above the caps.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

CHAIN_ANSWER = "Strengths:\n- The method is simple.\n\nWeaknesses:\n- The evaluation is small."


def _papers(path: Path, n: int) -> Path:
    rows = [{"id": f"p{i}", "title": f"Paper {i}", "abstract": f"We study problem {i}.", "accepted": i % 3 == 2,
             "reviews": [{"text": f"Review of paper {i} by reviewer {r}. The idea is fine; the tests are small."}
                         for r in range(3)],
             "meta_review": {"text": f"META-{i}: the reviewers found the evaluation small."}}
            for i in range(n)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_focus_chain_and_every_stage_honour_limit_and_token_caps(tmp_path: Path) -> None:
    from fake_openai import REQUEST, FakeOpenAIServer
    from noveval.api import run
    from schema_reply import schema_reply

    bodies: list[dict[str, Any]] = []
    lock = threading.Lock()

    def responder(prompt: str) -> str:
        body = getattr(REQUEST, "body", None) or {}
        with lock:
            bodies.append(body)
        return schema_reply(prompt) if body.get("response_format") else CHAIN_ANSWER

    papers = _papers(tmp_path / "papers.jsonl", 9)  # 6 rejected (p0, p1, p3, p4, p6, p7), 3 accepted
    with FakeOpenAIServer(responder=responder) as server:
        res = run("focus", f"openai-compatible/scripted@{server.base_url}", tmp_path / "run", data=papers,
                  options={"protocol": "paper", "limit": 2, "expert_max_tokens": 77, "max_tokens": 66,
                           "text_metrics": False, "plot": False, "no_cache": True})
    assert res.path.is_dir()
    prompts = [" ".join(m["content"] for m in b["messages"]) for b in bodies]
    # only the first two rejected papers (p0, p1) reach the model
    assert {f"META-{i}" for i in range(9) if any(f"META-{i}:" in p for p in prompts)} == {"META-0", "META-1"}
    assert {f"Paper {i}" for i in range(9) if any(f"Paper {i}\n" in p or f"Paper {i} " in p for p in prompts)} \
        <= {"Paper 0", "Paper 1"}
    calls = [b for b in bodies if b["messages"][-1]["content"] != "Reply with OK."]  # the endpoint check aside
    chain = [b for b in calls if b.get("max_tokens") == 77 and not b.get("response_format")]
    reviews = [b for b in calls if b.get("max_tokens") == 66 and b.get("response_format")]
    labels = [b for b in calls if b.get("max_tokens") == 32 and b.get("response_format")]  # target, aspect
    assert len(chain) == 3 * 2  # extract, augment, paraphrase per paper
    assert len(reviews) == 2  # one review per paper
    assert len(calls) == len(chain) + len(reviews) + len(labels)  # no other call, none without its cap
    # target + aspect for each point: per paper 1 expert strength + 1 weakness and the model's points
    assert len(labels) >= 2 * 2 * 2 and len(labels) % 2 == 0
    expert_rows = [json.loads(line) for line in (res.path / "expert.jsonl").read_text().splitlines()]
    assert [r["id"] for r in expert_rows] == ["p0", "p1"] and all(r["strengths"] for r in expert_rows)
