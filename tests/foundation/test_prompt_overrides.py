"""NOVEVAL_PROMPTS_DIR works in every system: an override changes the prompt each system builds
(through its own request builder) and the prompt hash its runs record; an override that uses a
variable the system does not provide fails when the run starts, naming file and variable.

Two systems are also run end to end through the CLI against a real local HTTP server, which
records what was actually sent.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fake_openai import FakeOpenAIServer
from noveval.errors import InputError
from noveval.prompts import load, packages

MARK = "OVERRIDE-MARK-7Q"
PROBE = "Reply with OK."  # the endpoint check a run makes first


def _messages(x: Any) -> list[dict[str, str]]:
    return x.messages if hasattr(x, "messages") else x


# --------------------------------------------------------------------- builders per system
def _novbench() -> list[dict[str, str]]:
    from noveval.benchmarks.novbench.data import NovBenchRecord
    from noveval.benchmarks.novbench.generate import build_messages

    return build_messages(NovBenchRecord(id="r", paper_novelty=["We propose X."]), "zero-shot")


def _novbench_hash() -> str:
    from noveval.benchmarks.novbench.generate import generation_config

    cfg = generation_config(model_id="m", prompting="zero-shot", data="d", max_tokens=8, seed=0)
    return cfg["prompts"]["generate_zero_shot"]


def _rinobench() -> list[dict[str, str]]:
    from noveval.benchmarks.rinobench.data import DEFAULT_RUBRIC, RINoBenchItem
    from noveval.benchmarks.rinobench.generate import build_request
    from noveval.records import Idea, RelatedWork

    idea = Idea(problem_statement="P", objective="O", solution_approach="S")
    item = RINoBenchItem(id="i", research_idea=idea, related_works=[RelatedWork(title="T", abstract="A")])
    return _messages(build_request(item, DEFAULT_RUBRIC))


def _rinobench_hash() -> str:
    from noveval.benchmarks.rinobench.prompts import prompt_hashes

    return prompt_hashes()["judge_novelty"]  # what run() records as config["prompts"]


def _focus() -> list[dict[str, str]]:
    from noveval.benchmarks.focus.annotate import build_messages

    return build_messages("target", "weakness", "The method is slow.")


def _focus_hash() -> str:
    from noveval.benchmarks.focus.pipeline import _prompt_hashes

    return _prompt_hashes()["target_weakness"]


def _claimcheck() -> list[dict[str, str]]:
    from noveval.benchmarks.claimcheck._common import prompt_messages

    return prompt_messages("wi", title="T", review="R")


def _claimcheck_hash() -> str:
    from noveval.benchmarks.claimcheck.generate import _config
    from noveval.benchmarks.claimcheck.options import ClaimcheckOptions

    return _config("wi", "m", None, ClaimcheckOptions(task="wi"), {}, (0,))["prompts"]["wi"]


def _axioms() -> list[dict[str, str]]:
    from noveval.benchmarks.axioms.paraphrase import make_messages

    return make_messages("A title", "An abstract.")


def _axioms_hash() -> str:
    from noveval.benchmarks.axioms.paraphrase import prompt_hash

    return prompt_hash()


def _check() -> list[dict[str, str]]:
    from noveval.check.prompts import render_messages

    return render_messages("structured_evaluation", submission="S", related_works="[1] W")


def _check_hash() -> str:
    from noveval.check.opinion import judge_prompts

    return judge_prompts()["check/structured_evaluation"]


def _index() -> list[dict[str, str]]:
    from noveval.index.rerank import rerank_request

    return _messages(rerank_request("query", [{"title": "P", "abstract": "A", "year": 2020}]))


def _index_hash() -> str:
    from noveval.prompts import prompt_hashes

    return prompt_hashes("index", ["rerank"])["rerank"]  # what check_with_index records


def _validate() -> list[dict[str, str]]:
    from noveval.benchmarks.validate.judges import build_request

    return _messages(build_request("rubric", "T", "A", []))


def _validate_hash() -> str:
    from noveval.benchmarks.validate.judges import judge_signature

    return judge_signature("rubric", "m", max_tokens=8, seed=0, related_works=0, max_abstract_chars=None)


@dataclass(frozen=True)
class Case:
    system: str
    name: str
    build: Callable[[], list[dict[str, str]]]
    recorded: Callable[[], str]
    is_sha: bool = True  # the recorded value is the template's sha itself (else a signature over it)


def _pairs() -> list[dict[str, str]]:
    from noveval.benchmarks.pairs.data import Pair, PairSide
    from noveval.benchmarks.pairs.task import build_request

    pair = Pair(id="a|b", a=PairSide(id="a", text="Idea A", gold=4), b=PairSide(id="b", text="Idea B", gold=2),
                kind="research idea")
    return _messages(build_request(pair, "ab"))


def _pairs_hash() -> str:
    from noveval.benchmarks.pairs.prompts import prompt_hashes

    return prompt_hashes()["compare"]  # what run() records as config["prompts"]


CASES = [
    Case("novbench", "generate_zero_shot", _novbench, _novbench_hash),
    Case("rinobench", "judge_novelty", _rinobench, _rinobench_hash),
    Case("focus", "target_weakness", _focus, _focus_hash),
    Case("claimcheck", "wi", _claimcheck, _claimcheck_hash),
    Case("axioms", "paraphrase", _axioms, _axioms_hash),
    Case("check", "structured_evaluation", _check, _check_hash),
    Case("index", "rerank", _index, _index_hash),
    Case("validate", "rubric", _validate, _validate_hash, is_sha=False),
    Case("novelty-pairs", "compare", _pairs, _pairs_hash),
]


def test_every_system_has_a_case() -> None:
    assert {c.system for c in CASES} == set(packages())


def _marked(text: str) -> str:
    head, sep, user = text.partition("### user\n")
    assert sep
    return f"{head}{sep}{MARK} {user}"


@pytest.mark.parametrize("case", CASES, ids=[c.system for c in CASES])
def test_override_changes_the_prompt_sent_and_the_recorded_hash(case: Case, tmp_path: Path, monkeypatch) -> None:
    shipped = load(case.system, case.name)
    before, h0 = case.build(), case.recorded()
    assert MARK not in json.dumps(before)
    (tmp_path / case.system).mkdir()
    f = tmp_path / case.system / f"{case.name}.txt"
    f.write_text(_marked(shipped.text), encoding="utf-8")
    monkeypatch.setenv("NOVEVAL_PROMPTS_DIR", str(tmp_path))
    after, h1 = case.build(), case.recorded()
    assert after[-1]["content"].startswith(MARK + " ")
    # the only change is the mark: the same messages otherwise
    undo = [dict(m, content=m["content"].replace(MARK + " ", "", 1)) for m in after]
    assert undo == before
    assert h1 != h0
    if case.is_sha:
        assert (h0, h1) == (shipped.sha, hashlib.sha256(f.read_bytes()).hexdigest()[:12])


@pytest.mark.parametrize("case", CASES, ids=[c.system for c in CASES])
def test_an_override_with_an_unknown_variable_fails_at_run_start(case: Case, tmp_path: Path, monkeypatch) -> None:
    (tmp_path / case.system).mkdir()
    f = tmp_path / case.system / f"{case.name}.txt"
    f.write_text(load(case.system, case.name).text + "\n{{ no_such_value }}\n", encoding="utf-8")
    monkeypatch.setenv("NOVEVAL_PROMPTS_DIR", str(tmp_path))
    for step in (case.recorded, case.build):
        with pytest.raises(InputError) as e:
            step()
        assert e.value.path == str(f) and e.value.field == "no_such_value"
        assert e.value.line == f.read_text().count("\n")


# --------------------------------------------------------------------- end to end, real HTTP
def _cli(*args: str, env: dict[str, str]) -> Any:
    from noveval.cli.main import app

    return CliRunner(env=env).invoke(app, ["-q", *args])


def _novbench_run(out: Path, spec: str, env: dict[str, str]) -> Any:
    data = Path(str(resources.files("noveval.samples").joinpath("novbench/records.json")))
    return _cli("run", "novbench", "--data", str(data), "-o", str(out), "-m", spec, "--prompting", "zero-shot",
                "-n", "1", "--max-tokens", "16", "--no-score", env=env)


def _rinobench_run(out: Path, spec: str, env: dict[str, str]) -> Any:
    items = Path(str(resources.files("noveval.samples").joinpath("rinobench/test.json")))
    return _cli("run", "rinobench", "--items", str(items), "-o", str(out), "-m", spec, "-n", "1",
                "--max-tokens", "64", env=env)


@pytest.mark.parametrize(("system", "name", "run", "typo"), [
    ("novbench", "generate_zero_shot", _novbench_run, ("sentences", "sentnces")),
    ("rinobench", "judge_novelty", _rinobench_run, ("problem_statement", "problem_statment")),
], ids=["novbench", "rinobench"])
def test_cli_run_sends_the_override_and_records_its_hash(system: str, name: str, run: Callable, typo: tuple[str, str],
                                                         tmp_path: Path) -> None:
    over = tmp_path / "prompts"
    (over / system).mkdir(parents=True)
    f = over / system / f"{name}.txt"
    f.write_text(_marked(load(system, name).text), encoding="utf-8")
    env = {"NOVEVAL_PROMPTS_DIR": str(over)}
    reply = {"novelty_score": 3, "reasoning": "ok"} if system == "rinobench" else "Positive Novelty Evaluations\n- x"
    with FakeOpenAIServer(responder=lambda _p: reply) as server:
        spec = f"openai-compatible/override-{system}@{server.base_url}"
        r = run(tmp_path / "run", spec, env)
        assert r.exit_code == 0, r.output
        sent = [p for _, _, p in server.log if p != PROBE]
        assert sent and all(p.startswith(MARK + " ") for p in sent), sent
        cfg = json.loads((tmp_path / "run" / "config.json").read_text())
        assert cfg["prompts"][name] == hashlib.sha256(f.read_bytes()).hexdigest()[:12] != load(system, name).sha

        # a typo in the override: exit 2 naming file and variable, before any model call or output
        f.write_text(load(system, name).text.replace(*typo), encoding="utf-8")
        n = len(server.log)
        r = run(tmp_path / "run2", spec, env)
        assert r.exit_code == 2, r.output
        assert f"{f}:" in r.output and f"{typo[1]}: " in r.output and "not provided" in r.output
        assert [p for _, _, p in server.log[n:] if p != PROBE] == [] and not (tmp_path / "run2").exists()
