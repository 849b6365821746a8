"""``noveval focus agreement --samples N``: the annotator asked N times, labels voted, self-consistency (issue 18).

The annotator is a real local HTTP server (tests/fake_openai.py) whose label depends on
the request's seed, so the samples disagree in a known way. The DISAPERE and MReD files
are a few sentences written here (the shapes of the shared files, none of their text).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fake_openai import REQUEST, FakeOpenAIServer
from noveval.cli.main import app

ASPECTS = {0: "Novelty", 1: "Clarity", 2: "Novelty"}  # DISAPERE (aspect prompt) by seed
POLARITIES = {0: "strength", 1: "weakness", 2: None}  # MReD (polarity prompt) by seed; None: not JSON


class Script:
    """Aspect and polarity answers by seed; records the annotator's request bodies."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, prompt: str) -> str | dict[str, Any]:
        body = REQUEST.body
        if "by its ASPECT" in prompt:
            self.bodies.append(body)
            return {"aspect": ASPECTS[body["seed"] % 3]}
        if "meta-review" in prompt:
            self.bodies.append(body)
            label = POLARITIES[body["seed"] % 3]
            return {"polarity": label} if label else "it praises and criticises"
        return "OK"  # the endpoint check


def _data(root: Path) -> Path:
    """A data folder with two mapped DISAPERE sentences (and two left out) and three MReD ones."""
    labels = root / "labels"
    labels.mkdir(parents=True)
    sentences = [
        ("The idea of pruning edges by learned scores is new to me.", "asp_originality", "pol_positive"),
        ("The notation in the method section is hard to follow.", "asp_clarity", "pol_negative"),
        ("Thanks for the submission.", "none", "none"),  # no aspect: left out
        ("Code is said to be released.", "asp_replicability", "pol_positive"),  # replicability: left out
    ]
    review = {"review_sentences": [{"review_id": "r1", "sentence_index": i, "text": t, "aspect": a, "polarity": p}
                                   for i, (t, a, p) in enumerate(sentences)]}
    with gzip.open(labels / "disapere.jsonl.gz", "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(review) + "\n")
    mred = [("The reviewers agree the experiments are thorough.", "strength"),
            ("The writing needs another pass.", "weakness"),
            ("The paper studies graph sparsification.", "abstract")]  # not strength/weakness: left out
    with gzip.open(labels / "mred-meta-review-sentences.jsonl.gz", "wt", encoding="utf-8") as fh:
        for s, lab in mred:
            fh.write(json.dumps({"meta_review_id": "m1", "sentence": s, "label": lab}) + "\n")
    return root


def _agreement(tmp: Path, spec: str, *extra: str) -> Any:
    data = _data(tmp / "data")
    return CliRunner(env={"NOVEVAL_CACHE_DIR": str(tmp / "cache")}).invoke(
        app, ["focus", "agreement", "--data-dir", str(data), "-m", spec, *extra])


def test_three_samples_vote_by_hand(tmp_path: Path) -> None:
    script = Script()
    out = tmp_path / "agreement.json"
    with FakeOpenAIServer(responder=script) as server:
        res = _agreement(tmp_path, f"openai-compatible/scripted@{server.base_url}", "--temperature", "0.7",
                         "--samples", "3", "-o", str(out))
        assert res.exit_code == 0, res.output
    # 2 DISAPERE + 2 MReD sentences x 3 samples, seeds 0..2 at the temperature asked
    assert len(script.bodies) == 12
    assert sorted((b["seed"], b["temperature"]) for b in script.bodies) == [(s, 0.7) for s in (0, 1, 2) for _ in range(4)]
    rep = json.loads(out.read_text())
    assert rep["samples"] == 3 and rep["temperature"] == 0.7

    # DISAPERE: Novelty, Clarity, Novelty -> Novelty, 2 of 3, for both sentences
    d = rep["disapere"]
    items = {r["gold"]: r for r in d["items"]}
    assert set(items) == {"Novelty", "Clarity"}
    for r in items.values():
        assert r["label"] == "Novelty" and r["self_consistency"] == pytest.approx(2 / 3) and r["error"] is None
        assert [(s["seed"], s["label"]) for s in r["samples"]] == [(0, "Novelty"), (1, "Clarity"), (2, "Novelty")]
    assert d["accuracy"] == pytest.approx(0.5) and d["failures"] == 0  # the voted labels are what kappa scores
    assert d["self_consistency"] == {"samples": 3, "temperature": 0.7, "n": 2, "mean": pytest.approx(2 / 3),
                                     "unanimous": 0.0}

    # MReD: strength, weakness, (not JSON) -> a 1-1 tie goes to the earliest sample: strength, 1 of 3
    m = rep["mred"]
    for r in m["items"]:
        assert r["label"] == "strength" and r["self_consistency"] == pytest.approx(1 / 3)
        assert [s["label"] for s in r["samples"]] == ["strength", "weakness", None]
    assert {r["gold"] for r in m["items"]} == {"strength", "weakness"}
    assert m["accuracy"] == pytest.approx(0.5)
    assert m["self_consistency"]["mean"] == pytest.approx(1 / 3) and m["self_consistency"]["n"] == 2

    # the terminal says it too
    assert "disapere: kappa" in res.output and "self-consistency 0.667 (3 samples, unanimous 0.000, n=2)" in res.output
    assert "self-consistency 0.333 (3 samples" in res.output


def test_one_sample_sends_and_writes_what_it_always_did(tmp_path: Path) -> None:
    from noveval.benchmarks.focus.agreement import aspect_messages, polarity_messages
    from noveval.benchmarks.focus.annotate import label_schema
    from noveval.models.cache import cache_key
    from noveval.models.chat import ChatRequest, GenerationParams

    script = Script()
    out = tmp_path / "agreement.json"
    with FakeOpenAIServer(responder=script) as server:
        res = _agreement(tmp_path, f"openai-compatible/scripted@{server.base_url}", "--seed", "5", "-o", str(out))
        assert res.exit_code == 0, res.output
    # greedy, seed 0 whatever --seed (which picks the subsample), as before --samples existed
    assert {(b["seed"], b["temperature"]) for b in script.bodies} == {(0, 0.0)}
    assert [b["max_tokens"] for b in script.bodies] == [32, 32, 16, 16]
    rep = json.loads(out.read_text())
    assert list(rep) == ["model", "seed", "disapere_map", "disapere", "mred"]
    assert list(rep["disapere"]) == ["kappa", "accuracy", "n", "failures", "labels", "confusion", "gold_counts"]
    assert list(rep["mred"]) == ["kappa", "accuracy", "n", "failures", "labels", "confusion"]
    assert rep["disapere"]["accuracy"] == pytest.approx(0.5) and rep["mred"]["accuracy"] == pytest.approx(0.5)
    assert "self-consistency" not in res.output

    # the cache keys are those of the requests as the command built them before --samples (written out here)
    from noveval.benchmarks.focus.agreement import _annotate

    sent: list[ChatRequest] = []

    class Recorder:
        model_id = "m"

        def complete_many(self, reqs: list[ChatRequest], progress: Any = None) -> list[Any]:
            sent.extend(reqs)
            return [type("R", (), {"ok": False, "text": None, "error": "x"})() for _ in reqs]

    text = "The notation is hard to follow."
    _annotate(Recorder(), [{"id": "a", "gold": "Clarity", "polarity": "weakness", "text": text}],  # type: ignore[arg-type]
              lambda it: (aspect_messages(it["polarity"], it["text"]), label_schema("aspect", it["polarity"])),
              lambda t, it: None, max_tokens=32, seeds=[0], temperature=0.0, progress="x")
    before = ChatRequest(messages=aspect_messages("weakness", text),
                         params=GenerationParams(max_tokens=32, json_schema=label_schema("aspect", "weakness")))
    assert cache_key("m", None, sent[0]) == cache_key("m", None, before)
    schema = {"type": "object", "properties": {"polarity": {"type": "string", "enum": ["strength", "weakness"]}},
              "required": ["polarity"]}
    from noveval.benchmarks.focus.agreement import POLARITY_SCHEMA

    _annotate(Recorder(), [{"id": "b", "gold": "weakness", "text": text}],  # type: ignore[arg-type]
              lambda it: (polarity_messages(it["text"]), POLARITY_SCHEMA), lambda t, it: None,
              max_tokens=16, seeds=[0], temperature=0.0, progress="x")
    before = ChatRequest(messages=polarity_messages(text), params=GenerationParams(max_tokens=16, json_schema=schema))
    assert cache_key("m", None, sent[1]) == cache_key("m", None, before)
    assert json.dumps(sent[1].params.json_schema) == json.dumps(schema)  # the same order on the wire


def test_samples_at_temperature_zero_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "agreement.json"
    with FakeOpenAIServer(responder=Script()) as server:
        res = _agreement(tmp_path, f"openai-compatible/scripted@{server.base_url}", "--samples", "3", "-o", str(out))
        assert server.total == 0
    assert res.exit_code == 2, res.output
    assert "--samples" in res.output and "temperature 0" in res.output
    assert not out.exists()


def test_a_refused_endpoint_is_exit_2_and_writes_nothing(tmp_path: Path) -> None:
    """Through the runner (issue 38): the annotator's endpoint is checked before any sentence is asked."""
    from cli_helpers import closed_port

    out = tmp_path / "agreement.json"
    res = _agreement(tmp_path, f"openai-compatible/m@http://127.0.0.1:{closed_port()}/v1", "-o", str(out))
    assert res.exit_code == 2, res.output
    assert "127.0.0.1" in res.stderr and not out.exists()
    assert "kappa" not in res.stdout


def test_mostly_unparseable_labels_are_exit_3(tmp_path: Path) -> None:
    """Replies no label parser reads: the runner's unusable tally ends the command as not a result (exit 3);
    --allow-unparseable takes them as the annotator's answers (every sentence a failure in kappa)."""
    from schema_reply import PROBE

    out = tmp_path / "agreement.json"
    with FakeOpenAIServer(responder=lambda prompt: "ok" if prompt == PROBE else "Hard to say, really.") as server:
        spec = f"openai-compatible/m@{server.base_url}"
        res = _agreement(tmp_path, spec, "-o", str(out))
        assert server.total == 5  # the endpoint check, then 2 DISAPERE + 2 MReD sentences
        assert res.exit_code == 3, res.output
        assert "not a result" in res.stderr and "annotator" in res.stderr
        assert json.loads(out.read_text())["mred"]["failures"] == 2 and "kappa" not in res.stdout  # kept, not shown
        out.unlink()
        again = _agreement(tmp_path / "again", spec, "-o", str(out), "--allow-unparseable")
    assert again.exit_code == 0, again.output
    rep = json.loads(out.read_text())
    assert rep["disapere"]["failures"] == 2 and rep["mred"]["failures"] == 2
    assert "disapere: kappa" in again.stdout and "failures=2" in again.stdout
