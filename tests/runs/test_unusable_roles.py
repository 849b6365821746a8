"""One rule for usable answers, in every role (issue 34 items 1-2), against a real local HTTP server.

One OpenAI-compatible server on 127.0.0.1 plays every model: the model named ``garbage`` answers
every call (the endpoint check aside) with text no parser reads; every other model answers a valid
instance of the requested schema (tests/schema_reply.py). Each case makes one system's one role the
garbage model and the others good, so the role's own parser is what decides:

- exit 3, one error line naming the role, the spec and how to recover; ``calls.unusable[role]``;
- with ``--allow-unparseable``: exit 0, the count per role in scores.json and in the report.

Then: a run that failed on empty answers recovers in place once the server is fixed (only the failed
items are asked again, counted at the server), and ``--refresh`` re-asks everything in place.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fake_openai import REQUEST, FakeOpenAIServer
from noveval.cli.main import app
from schema_reply import PROBE, schema_reply

GARBAGE = "I think this is a nice idea overall, hard to say."


def _responder(prompt: str) -> str:
    body = getattr(REQUEST, "body", None) or {}
    if prompt != PROBE and body.get("model") == "garbage":
        return GARBAGE
    return schema_reply(prompt)


def _cli(*args: str) -> Any:
    return CliRunner().invoke(app, ["-q", *args])


FOCUS = ["-n", "1", "--max-reviews", "1", "--no-text-metrics", "--no-plot"]

# (system, role, arguments; {bad} is the garbage spec, {good} a model answering properly)
CASES: list[tuple[str, str, list[str]]] = [
    ("rinobench", "model", ["-n", "2", "-m", "{bad}"]),
    ("rinobench", "judge", ["-n", "1", "-m", "{good}", "-j", "{bad}"]),
    ("novelty-pairs", "model", ["-n", "1", "-m", "{bad}"]),
    ("focus", "model", [*FOCUS, "-m", "{bad}", "-a", "{good}"]),
    ("focus", "annotator", [*FOCUS, "-m", "{good}", "-a", "{bad}"]),
    ("focus", "expert chain", [*FOCUS, "-m", "{good}", "-a", "{good}", "--expert", "chain", "--expert-model", "{bad}"]),
    ("claimcheck", "model", ["--task", "wl", "--limit-items", "2", "--no-bertscore", "-m", "{bad}"]),
    ("claimcheck", "judge", ["--task", "cv", "--limit-items", "1", "--no-bertscore", "-m", "{good}", "-j", "{bad}"]),
    ("novbench", "model", ["-n", "1", "--no-score", "-m", "{bad}"]),
    ("validate", "judge", ["--metric", "Yin", "--pool-size", "20", "--judge-limit", "2", "--resamples", "50",
                           "--min-group", "4", "--top-k", "3", "--reviews", "{samples}/validate/reviews.jsonl",
                           "--corpus", "{samples}/validate/corpus.jsonl", "-m", "{bad}"]),
]


def _calls(out: Path) -> dict[str, Any]:
    """``calls`` of scores.json with its ``complete`` (calls.json's record when the run was not scored)."""
    f = out / "scores.json"
    if f.is_file():
        scores = json.loads(f.read_text())
        return {**scores["calls"], "complete": scores["complete"]}
    return dict(json.loads((out / "calls.json").read_text())["last"])


def _args(args: list[str], base: str) -> list[str]:
    from importlib.resources import files

    samples = str(files("noveval").joinpath("samples"))
    return [a.format(bad=f"openai-compatible/garbage@{base}", good=f"openai-compatible/good@{base}", samples=samples)
            for a in args]


SLOW = {"validate"}  # its novelty metric fits take ~10 s


@pytest.mark.parametrize(("system", "role", "args"), [
    pytest.param(s, r, a, id=f"{s}-{r}", marks=[pytest.mark.slow] if s in SLOW else []) for s, r, a in CASES])
def test_an_unreadable_answer_is_unusable_in_every_role(system: str, role: str, args: list[str],
                                                        tmp_path: Path) -> None:
    out = tmp_path / "r"
    with FakeOpenAIServer(responder=_responder) as server:
        spec = f"openai-compatible/garbage@{server.base_url}"
        r = _cli("run", system, "-o", str(out), *_args(args, server.base_url))
        assert r.exit_code == 3, r.output
        err = [line for line in r.stderr.splitlines() if line.startswith("error:")]
        assert len(err) == 1 and f"{role} {spec}: " in err[0] and "empty or unparseable" in err[0], r.stderr
        assert "run the same command on the same folder again" in err[0] and "--refresh" in err[0]
        calls = _calls(out)
        assert list(calls["unusable"]) == [role] and calls["unusable"][role]["model"] == spec
        assert calls["answers"][role]["unusable"] == calls["answers"][role]["answers"] > 0
        assert all(c["unusable"] == 0 for k, c in calls["answers"].items() if k != role)  # the good roles
        ok = _cli("run", system, "-o", str(out), *_args(args, server.base_url), "--allow-unparseable")
    assert ok.exit_code == 0, ok.output
    calls = _calls(out)
    n = calls["answers"][role]["answers"]
    assert calls["complete"] is True and calls["unusable_accepted"] is True and calls["answers"][role]["unusable"] == n
    assert "unusable answers per role: " in ok.stdout and f"{role} {n} of {n}" in ok.stdout
    if not (out / "scores.json").is_file():
        return  # not scored (novbench --no-score): nothing for the report to show
    html = tmp_path / "report.html"
    assert _cli("report", str(out), "-o", str(html)).exit_code == 0
    page = html.read_text()
    assert "Unusable answers" in page and f"{role} {n} of {n}" in page and "--allow-unparseable" in page


def _idea_and_corpus(tmp_path: Path) -> list[str]:
    from check.test_cli import CORPUS

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps({"id": f"c{i}", "title": t, "abstract": a, "year": y})
                                for i, (t, a, y) in enumerate(CORPUS)) + "\n", encoding="utf-8")
    idea = tmp_path / "idea.md"
    idea.write_text("# Sparse probes\n\nWe train L1-sparse probes and ablate the selected dimensions.\n",
                    encoding="utf-8")
    return [str(idea), "--corpus", str(corpus), "--top-k", "3"]


@pytest.mark.parametrize("role", ["structuring", "judge"])
def test_check_counts_its_structuring_and_its_judge(role: str, tmp_path: Path) -> None:
    """``noveval check``: the structuring step and the judge (rubric + structured evaluation) each count."""

    def responder(prompt: str) -> str:
        body = getattr(REQUEST, "body", None) or {}
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
        structuring = "solution_approach" in (schema.get("properties") or {})  # problem, objective, approach
        if prompt != PROBE and structuring == (role == "structuring"):
            return GARBAGE
        return schema_reply(prompt)

    with FakeOpenAIServer(responder=responder) as server:
        spec = f"openai-compatible/m@{server.base_url}"
        r = _cli("check", *_idea_and_corpus(tmp_path), "-o", str(tmp_path / "out"), "-m", spec)
        assert r.exit_code == 3, r.output
        assert f"{role} {spec}: " in r.output and "empty or unparseable" in r.output
        ok = _cli("check", *_idea_and_corpus(tmp_path), "-o", str(tmp_path / "out"), "-m", spec,
                  "--allow-unparseable")
    assert ok.exit_code == 0, ok.output


# -- failures never stick -------------------------------------------------------------------------


def test_a_fixed_endpoint_recovers_in_place_and_refresh_reasks_everything(tmp_path: Path) -> None:
    """Empty answers for two of three ideas: exit 3; fixed, the same command asks exactly those two again."""
    from noveval.benchmarks.rinobench.data import load_items
    from noveval.models.cache import ResponseCache, default_cache_path

    out = tmp_path / "r"
    broken = {"on": True}
    empty_for: set[str] = set()

    def responder(prompt: str) -> str:
        if prompt == PROBE:
            return "OK"
        if broken["on"] and any(t in prompt for t in empty_for):
            return ""
        return schema_reply(prompt)

    with FakeOpenAIServer(responder=responder) as server:
        from importlib.resources import files

        items = load_items(str(files("noveval").joinpath("samples", "rinobench", "test.json")))[:3]
        empty_for.update(it.research_idea.problem_statement[:60] for it in items[:2])
        spec = f"openai-compatible/flaky@{server.base_url}"
        cmd = ["run", "rinobench", "-n", "3", "-m", spec, "-o", str(out)]
        r = _cli(*cmd)
        assert r.exit_code == 3, r.output
        assert "run the same command on the same folder again" in r.stderr
        rows = {x["id"]: x for x in map(json.loads, (out / "predictions.jsonl").read_text().splitlines())}
        bad = {str(it.id) for it in items[:2]}
        assert {i for i, x in rows.items() if x.get("unusable_answers")} == bad
        assert ResponseCache(default_cache_path()).unusable_count() >= 2  # kept for the record, never served

        before = dict(server.counts)  # another folder is not served the unusable answers either
        assert _cli("run", "rinobench", "-n", "3", "-m", spec, "-o", str(tmp_path / "elsewhere")).exit_code == 3
        asked = {k: v - before.get(k, 0) for k, v in server.counts.items() if v - before.get(k, 0)}
        assert sum(v for k, v in asked.items() if k != PROBE) == 2

        broken["on"] = False  # the endpoint is fixed
        before = dict(server.counts)
        r = _cli(*cmd)
        assert r.exit_code == 0, r.output
        asked = {k: v - before.get(k, 0) for k, v in server.counts.items() if v - before.get(k, 0)}
        assert asked.pop(PROBE) == 1 and len(asked) == 2 and all(v == 1 for v in asked.values())
        assert all(any(t in k for t in empty_for) for k in asked)  # exactly the two failed items
        scores = json.loads((out / "scores.json").read_text())
        assert scores["complete"] is True and scores["calls"]["unusable"] is None
        rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
        assert len(rows) == 3 and not any(x.get("unusable_answers") for x in rows)

        before = dict(server.counts)
        r = _cli(*cmd, "--refresh")  # in place: every item asked again
        assert r.exit_code == 0, r.output
        asked = {k: v - before.get(k, 0) for k, v in server.counts.items() if v - before.get(k, 0)}
        assert sum(asked.values()) == 3 + 1  # three ideas and the endpoint check

        other = tmp_path / "other"  # another folder: the good answers from the cache, nothing asked again
        before = dict(server.counts)
        r = _cli("run", "rinobench", "-n", "3", "-m", spec, "-o", str(other))
        assert r.exit_code == 0, r.output
        asked = {k: v - before.get(k, 0) for k, v in server.counts.items() if v - before.get(k, 0)}
        assert set(asked) <= {PROBE}, asked  # no idea asked again: the good answers come from the cache


def test_the_reranker_counts_its_own_answers() -> None:
    """The listwise reranker (``check --index --rerank``, ``index search --rerank``) reports its parser's verdict."""
    from noveval.index.rerank import rerank_many
    from noveval.index.search import Hit
    from noveval.models import get_client
    from noveval.models.calls import ledger_scope

    papers = [{"title": f"paper {i}", "abstract": "about probes"} for i in range(3)]
    hits = [Hit(row=i, rank=i + 1, score=1.0 - i / 10) for i in range(3)]
    with FakeOpenAIServer(responder=_responder) as server, ledger_scope() as ledger:
        garbage = get_client(f"openai-compatible/garbage@{server.base_url}", cache=None)
        rerank_many(garbage, ["q1", "q2"], [hits, hits], [papers, papers], progress=None)
        got = ledger.outcome(None)
        assert got["answers"]["reranker"]["unusable"] == got["answers"]["reranker"]["answers"] == 2
        assert list(got["unusable"]) == ["reranker"] and got["complete"] is False
        good = get_client(f"openai-compatible/good@{server.base_url}", cache=None)
        rerank_many(good, ["q1", "q2"], [hits, hits], [papers, papers], progress=None)
        got = ledger.outcome(None)
        assert (got["answers"]["reranker"]["unusable"], got["answers"]["reranker"]["answers"]) == (2, 4)
        assert got["unusable"] is None and got["complete"] is True  # 2 of 4: not more than half


def test_a_prediction_asked_again_is_judged_again(tmp_path: Path) -> None:
    """RINoBench with a judge: the judgment of an unusable prediction is redone with the prediction."""
    out = tmp_path / "r"
    broken = {"on": True}

    def responder(prompt: str) -> str:
        body = getattr(REQUEST, "body", None) or {}
        if prompt != PROBE and broken["on"] and body.get("model") == "flaky":
            return ""
        return schema_reply(prompt)

    with FakeOpenAIServer(responder=responder) as server:
        cmd = ["run", "rinobench", "-n", "1", "-m", f"openai-compatible/flaky@{server.base_url}",
               "-j", f"openai-compatible/judge@{server.base_url}", "-o", str(out)]
        assert _cli(*cmd).exit_code == 3
        (before,) = [json.loads(x) for x in (out / "judgments.jsonl").read_text().splitlines()]
        assert before["alignment_mode"] == "empty_prediction"
        broken["on"] = False
        r = _cli(*cmd)
    assert r.exit_code == 0, r.output
    (after,) = [json.loads(x) for x in (out / "judgments.jsonl").read_text().splitlines()]
    assert after["alignment_mode"] != "empty_prediction" and after["prediction_sha"] != before["prediction_sha"]


@pytest.mark.parametrize(("stage", "role"), [("extract-descriptions", "extraction"), ("structure", "structuring")])
def test_novbench_stages_count_their_answers(stage: str, role: str, tmp_path: Path) -> None:
    """NovBench's extraction and structuring commands: unreadable answers are exit 3 unless accepted."""
    from importlib.resources import files

    if stage == "extract-descriptions":
        src = tmp_path / "intro.csv"
        src.write_text("paper_id,sentence,label\np1,We propose a new probe.,1\np1,Probes are common.,0\n",
                       encoding="utf-8")
    else:
        src = Path(str(files("noveval").joinpath("samples", "novbench", "records.json")))
    with FakeOpenAIServer(responder=_responder) as server:
        spec = f"openai-compatible/garbage@{server.base_url}"
        args = [stage, "--input", str(src), "-o", str(tmp_path / "out.jsonl"), "-m", spec, "--limit", "2"]
        r = _cli("novbench", *args)
        assert r.exit_code == 3, r.output
        assert f"{role} {spec}: " in r.stderr and "--refresh" in r.stderr
        assert _cli("novbench", *args, "--allow-unparseable").exit_code == 0
