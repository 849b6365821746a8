"""Checks every registered system must pass (issue 15 item 1; scikit-learn's ``test_common`` style).

Parametrised over :data:`noveval.benchmarks.BENCHMARKS`, so a new system is checked the
moment it is registered:

* the registry entry is whole: package, CLI ``run``/``score`` commands, prose for
  ``noveval benchmarks``, and its prompts found by the prompt catalogue;
* a bad input file gives one line naming the file (and line, field where the reader
  knows them), exit code 2, no traceback, and no run folder;
* a system with Python entry points runs its shipped sample (or a tiny input) with the
  bundled model, a second run makes zero model calls, and ``noveval.score`` recomputes
  the run's own scores from the saved outputs alone;
* a prompt override under ``$NOVEVAL_PROMPTS_DIR`` is what the system reads (through
  :mod:`noveval.prompts`).

All eight registered systems have Python entry points, so every check runs for every
system.
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import noveval
from noveval.benchmarks import BENCHMARKS
from noveval.cli.main import app

NAMES = list(BENCHMARKS)

# How each system's `run` command is given one input file (the CLI vocabulary is part C's).
BAD_INPUT_ARGS: dict[str, list[str]] = {
    "chat": ["-i", "{bad}"],
    "novbench": ["--data", "{bad}"],
    "rinobench": ["--items", "{bad}"],
    "focus": ["--papers", "{bad}"],
    "claimcheck": ["--task", "extract", "--papers", "{bad}"],
    "axioms": ["--corpus", "{bad}", "--fulltext", "{bad}"],
    "validate": ["--reviews", "{bad}", "--corpus", "{bad}"],
    "novelty-pairs": ["--data", "{bad}"],
}
BAD_RECORD = {"id": "p1", "title": 7, "abstract": ["not", "text"], "year": "n.d.", "prompt": 5,
              "research_idea": 3, "reviews": "none", "paper_novelty": 1}


# The validity study correlates several predictors with human ratings; none is primary. The
# axioms benchmark compares novelty metrics: each one's value is its overall Avg pass rate,
# which `primary_metric` names (a quantity, not one of the metrics).
NO_PRIMARY_METRIC = {"validate", "axioms"}


def test_every_registered_system_is_in_this_table() -> None:
    assert set(BAD_INPUT_ARGS) == set(BENCHMARKS)


@pytest.mark.parametrize("name", NAMES)
def test_registry_entry_is_whole(name: str) -> None:
    import typer

    from noveval.benchmarks import Benchmark, load
    from noveval.options import RunOptions

    b = BENCHMARKS[name]
    pkg = importlib.import_module(b.package)
    assert isinstance(pkg.BENCHMARK, Benchmark) and pkg.BENCHMARK.name == name
    assert b.title and b.summary, "every system has a title and a summary for the report"
    about = b.about
    assert about.task and about.needs and about.data, "every system has its prose for `noveval benchmarks`"
    assert callable(b.run_fn()) and callable(b.score_fn())
    assert issubclass(b.options, RunOptions), "the options class extends the shared run options"
    # importing a submodule binds it on the package: one named run.py or score.py would hide the
    # function once anything imported it, so import them all first
    import pkgutil

    for mod in pkgutil.iter_modules(pkg.__path__):
        importlib.import_module(f"{b.package}.{mod.name}")
    assert callable(pkg.run) and callable(pkg.score), "every system package exports run and score"
    if b.data_option is not None:
        assert b.data_option in b.options.model_fields
    for hook in ("run", "score", "demo", "suite", "yardsticks", "used_prompts", "planned_config"):
        ref = getattr(b, hook)
        assert not isinstance(ref, str), f"{hook}: a typed reference, not a 'module:attr' string (issue 38)"
        if ref is not None:
            assert callable(load(ref)) and load(ref).__module__.startswith(b.package + "."), hook
    glue = b.presentation("cli")
    if glue is not None:  # the command-line glue the CLI mounts: a Typer group and/or a score command
        assert getattr(glue, "app", None) is None or isinstance(glue.app, typer.Typer)
        assert getattr(glue, "score", None) is None or callable(glue.score)
    from noveval.prompts import packages

    if b.has_prompts:
        assert packages().get(name) == b.package, "the prompt catalogue must find the system's templates"


GENERIC_RUN_PARAMS = {"out", "model", "json_out"}
"""Parameters of every generated ``run <name>`` that are not run options (where to write, which model, how to print)."""


PUBLISHED_ROW_FIELDS = {"model", "setting", "metric", "value", "table", "source"}


@pytest.mark.parametrize("name", NAMES)
def test_system_declares_yardsticks_and_published_rows_or_says_why(name: str) -> None:
    """Issue 29: every system has yardsticks (a hook) or says why none is meaningful, and the paper's
    main-table rows (package data with model, setting, metric, value, table, source) or says why none exist."""
    from noveval.benchmarks import load
    from noveval.benchmarks._benchmark import published_rows

    b = BENCHMARKS[name]
    if b.yardsticks is None:
        assert b.no_yardsticks and len(b.no_yardsticks) > 20, "say why the system has no yardstick"
    else:
        assert callable(load(b.yardsticks))
    if b.published is None:
        assert b.no_published and len(b.no_published) > 20, "say why there are no published rows"
        return
    rows = published_rows(b)
    assert rows, "a declared published file holds rows"
    for row in rows:
        assert PUBLISHED_ROW_FIELDS <= set(row), row
        assert isinstance(row["value"], (int, float)) and not isinstance(row["value"], bool), row
    main = published_rows(b, detail=False)
    assert main and all(not r.get("detail") for r in main)


@pytest.mark.parametrize("name", NAMES)
def test_cli_run_options_are_the_options_fields(name: str) -> None:
    """`noveval run <name>` has exactly the options model's fields, with their flags; the Python API accepts each."""
    import typer

    from noveval.benchmarks._runner import parse_options
    from noveval.options import flags_of

    b = BENCHMARKS[name]
    group = typer.main.get_command(app)
    cmd = group.commands["run"].commands[name]  # type: ignore[attr-defined]
    params = {p.name: p for p in cmd.params if p.name != "help"}
    assert set(params) - GENERIC_RUN_PARAMS == set(b.options.model_fields), "no option may exist on one side only"
    for field in b.options.model_fields:
        declared = flags_of(b.options, field)
        got = [*params[field].opts, *params[field].secondary_opts]
        assert declared[0].split("/")[0] in got, (field, declared, got)
    # every option the CLI accepts, given to the Python API with its CLI default (or a value it accepts)
    values = {f: params[f].default for f in b.options.model_fields if params[f].default is not None}
    required = [f for f, info in b.options.model_fields.items() if info.is_required()]
    for f in required:
        values[f] = "x.jsonl"
    opts = parse_options(b, values)
    assert type(opts) is b.options
    assert set(opts.model_dump()) == set(params) - GENERIC_RUN_PARAMS


@pytest.mark.parametrize("name", NAMES)
def test_bad_input_is_one_line_exit_2_and_nothing_written(name: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(BAD_RECORD) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    args = ["run", name, *[a.format(bad=bad) for a in BAD_INPUT_ARGS[name]], "-o", str(out)]
    r = CliRunner().invoke(app, args)
    text = r.output.strip()
    assert r.exit_code == 2, text
    assert "Traceback" not in text and f"{bad}:1: " in text, text  # file:line: field: problem
    assert not out.exists(), f"{name} wrote {sorted(p.name for p in out.iterdir())} before failing"


@pytest.mark.integration
@pytest.mark.parametrize("name", NAMES)
def test_run_resume_and_score_from_saved_outputs(name: str, tmp_path: Path) -> None:
    from noveval.io import read_json
    from noveval.models.calls import ledger_scope

    data: Path | None = None
    options: dict[str, Any] = {"limit": 2, "max_tokens": 128}
    if name == "focus":  # one paper, one human review, short reviews; no BERTScore
        options = {"limit": 1, "max_reviews": 1, "max_tokens": 128, "text_metrics": False, "plot": False}
    if name == "claimcheck":  # weakness labeling of two sample items (short replies); no BERTScore
        options = {"task": "wl", "limit_items": 2, "max_tokens": 64, "bertscore": False}
    if name == "validate":  # the shipped synthetic sample: Yin and RND, 2 judged papers, short replies
        from noveval.benchmarks.validate.data import sample_paths

        data, corpus = sample_paths()
        options = {"corpus": corpus, "metric": ["Yin", "RND"], "pool_size": 20, "judge_limit": 2, "max_tokens": 96,
                   "resamples": 200, "min_group": 4, "top_k": 3}
    if name == "axioms":  # the shipped sample corpus: Yin and RND (seconds), one Ax2 paraphrase per task
        options = {"sample": True, "metric": ["Yin", "RND"], "focal": 3, "ax2_limit": 1}
    if name == "chat":  # chat ships no sample: two prompts, one with its reference
        data = tmp_path / "prompts.jsonl"
        data.write_text(json.dumps({"id": "a", "prompt": "Say yes.", "reference": "yes"}) + "\n"
                        + json.dumps({"id": "b", "prompt": "Say no."}) + "\n", encoding="utf-8")
        options = {"max_tokens": 8}
    out = tmp_path / "run"
    folder = noveval.run(name, model="local", out=out, data=data, options=options).path
    # a call that failed in the first run (e.g. a timeout on a loaded machine) is redone on the
    # re-run by design; every call that succeeded is recorded and must not be made again
    record = folder / "calls.json"
    last = (read_json(record).get("last") or {}) if record.exists() else {}
    failed_first = last.get("failed", 0)
    # ... and so is an answer no parser read (issue 34): asked again, with a structured reply's re-asks (at most 3)
    unusable_first = sum(c["unusable"] for c in (last.get("answers") or {}).values())
    with ledger_scope() as ledger:
        assert noveval.run(name, model="local", out=out, data=data, options=options).path == folder
    assert ledger.totals()["requests"] <= failed_first + 3 * unusable_first, (
        f"a re-run may only redo the {failed_first} failed calls and {unusable_first} unusable answers of the first run")
    with ledger_scope() as ledger:
        scores = noveval.score(folder)
    assert ledger.totals()["requests"] == 0, "scoring saved outputs makes no model call"
    written = noveval.read_scores(folder)
    assert scores.primary_metric == written.primary_metric
    if name not in NO_PRIMARY_METRIC:
        assert scores.primary_metric in scores.metrics
    for metric, m in written.metrics.items():
        if m.mean is not None:
            assert scores.metrics[metric].mean == pytest.approx(m.mean), metric
            assert scores.metrics[metric].n == m.n, metric
    assert read_json(folder / "config.json")["benchmark"] == name
    raw = read_json(folder / "scores.json")  # issue 29: yardsticks and published rows, or why none
    assert {"baselines", "baselines_note", "published", "published_note"} <= set(raw)
    assert raw["baselines"] or raw["baselines_note"]
    assert "could not be computed" not in str(raw["baselines_note"])
    assert raw["published"] or raw["published_note"]
    for ys in raw["baselines"].values():
        assert all(y["kind"] in ("chance", "trivial", "shuffled", "human", "ceiling") and y["how"] for y in ys)
    assert set(scores.model_extra or {}) >= {"baselines", "published"}, "noveval.score returns them too"


@pytest.mark.parametrize("name", [n for n in NAMES if n in __import__("noveval.prompts").prompts.packages()])
def test_prompt_override_is_read(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from noveval.prompts import export_prompts, load, shipped_names

    export_prompts(tmp_path)
    mine = shipped_names(name)
    assert mine, f"{name} has a prompts package but no templates"
    target = next((tmp_path / name).glob(f"{mine[0]}.*"))
    shipped = load(name, mine[0])
    target.write_text(target.read_text(encoding="utf-8") + "\nOVERRIDDEN-FOR-TEST\n", encoding="utf-8")
    monkeypatch.setenv("NOVEVAL_PROMPTS_DIR", str(tmp_path))
    got = load(name, mine[0])
    assert got.overridden and "OVERRIDDEN-FOR-TEST" in got.text and got.sha != shipped.sha
    monkeypatch.delenv("NOVEVAL_PROMPTS_DIR")
    assert not load(name, mine[0]).overridden
    assert os.environ.get("NOVEVAL_PROMPTS_DIR") is None


# ============================================================================ every cross-cutting flag x every system
# (issue 27 item 5). Each system runs on its shipped sample against a real OpenAI-compatible server on
# 127.0.0.1 that answers every structured step with a valid instance of the requested JSON schema
# (tests/schema_reply.py), so a run of any system takes seconds and the flags' effects can be seen.

SMOKE_ARGS: dict[str, list[str]] = {
    "novbench": ["-n", "1", "--no-score"],
    "rinobench": ["-n", "2"],
    "focus": ["-n", "1", "--max-reviews", "1", "--no-text-metrics", "--no-plot"],
    "axioms": ["--sample", "--metric", "Yin", "--focal", "2", "--ax2-limit", "1", "-n", "1"],
    "claimcheck": ["--task", "wl", "--limit-items", "2", "--no-bertscore"],
    "validate": ["--metric", "Yin", "--pool-size", "20", "--judge-limit", "2", "--resamples", "50", "--min-group", "4",
                 "--top-k", "3"],
    "novelty-pairs": ["-n", "1"],
    "chat": [],
}
"""How each system's smoke run is made small (its shipped sample; chat's prompts are written by the test)."""

SAMPLES_FLAG = {"rinobench", "focus", "claimcheck", "validate", "novelty-pairs"}
"""The systems with a judging step that takes --samples N --temperature T."""


def test_every_registered_system_has_smoke_args() -> None:
    assert set(SMOKE_ARGS) == set(BENCHMARKS)


HF_INPUTS: dict[str, list[tuple[str, str]]] = {
    "novbench": [("--data", "novbench/records.json")],
    "rinobench": [("--items", "rinobench/test.json")],
    "focus": [("--papers", "focus/sample_reviews.jsonl")],
    "claimcheck": [("--papers", "claimcheck/papers.json"), ("--annotations", "claimcheck/annotations.jsonl")],
    "validate": [("--reviews", "validate/reviews.jsonl"), ("--corpus", "validate/corpus.jsonl")],
    "novelty-pairs": [("--data", "rinobench/test.json")],
    "chat": [("--input", "")],
}
"""Each system's data inputs and the shipped sample file for each (axioms: its corpus reader is checked apart)."""


def _data_args(name: str, tmp_path: Path, *, hf: bool = False) -> list[str]:
    """The system's data options pointing at its samples (as Hugging Face save_to_disk folders with ``hf``)."""
    from importlib.resources import files

    if name == "axioms":
        return []
    out: list[str] = []
    for flag, rel in HF_INPUTS[name]:
        if name == "chat":
            src = tmp_path / "prompts.jsonl"
            src.write_text(json.dumps({"id": "a", "prompt": "Say yes.", "reference": "yes"}) + "\n"
                           + json.dumps({"id": "b", "prompt": "Say no."}) + "\n", encoding="utf-8")
        else:
            src = Path(str(files("noveval").joinpath("samples", *rel.split("/"))))
        if hf or name in ("chat", "validate"):  # chat ships no sample; validate's default is the data folder
            out += [flag, _hf_copy(src, tmp_path / flag.strip("-")) if hf else str(src)]
    return out


def _hf_copy(src: Path, folder: Path) -> str:
    """``hf:FOLDER:train``: the records of ``src`` saved as a Hugging Face dataset (save_to_disk)."""
    import datasets

    from noveval.io import iter_records

    rows = [row for _, row in iter_records(src)]
    datasets.DatasetDict({"train": datasets.Dataset.from_list(rows)}).save_to_disk(str(folder))
    return f"hf:{folder}:train"


def test_the_axioms_corpus_reads_hf_too(tmp_path: Path) -> None:
    """axioms' data input is a corpus (its smoke run uses the shipped sample's tasks, so it is checked here)."""
    from importlib.resources import files

    from noveval.corpus import iter_papers

    src = Path(str(files("noveval").joinpath("samples", "axioms", "corpus.jsonl")))
    a, b = list(iter_papers(src)), list(iter_papers(_hf_copy(src, tmp_path / "hf")))
    assert [(p["id"], p["title"], p["year"]) for p in a] == [(p["id"], p["title"], p["year"]) for p in b]
    assert len(a) > 10


def _invoke(name: str, tmp_path: Path, spec: str, *extra: str, out: str = "r", env: dict[str, str] | None = None,
            data: list[str] | None = None) -> Any:
    args = ["run", name, "-o", str(tmp_path / out), "-m", spec, *SMOKE_ARGS[name],
            *(data if data is not None else _data_args(name, tmp_path)), *extra]
    return CliRunner(env=env).invoke(app, args)


@pytest.mark.parametrize("name", NAMES)
def test_a_dead_endpoint_stops_the_run_before_any_work_and_leaves_nothing(name: str, tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    spec = f"openai-compatible/dead@http://127.0.0.1:{port}/v1"
    r = _invoke(name, tmp_path, spec)
    assert r.exit_code == 2, r.output
    err = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert len(err) == 1 and spec in err[0] and "unreachable" in err[0], r.stderr
    assert "Traceback" not in r.output and not (tmp_path / "r").exists()  # no folder left behind
    assert "novelty metrics" not in r.stderr  # validate: no metric work before the check


@pytest.mark.parametrize("name", NAMES)
def test_an_endpoint_that_answers_empty_content_is_not_a_result(name: str, tmp_path: Path) -> None:
    from fake_openai import FakeOpenAIServer
    from schema_reply import PROBE

    with FakeOpenAIServer(responder=lambda p: "OK" if p == PROBE else "") as server:
        spec = f"openai-compatible/empty@{server.base_url}"
        r = _invoke(name, tmp_path, spec)
    assert r.exit_code == 3, r.output
    err = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert len(err) == 1 and f"{spec}: " in err[0] and "answers empty or unparseable" in err[0], r.stderr


@pytest.mark.parametrize("name", NAMES)
def test_json_concurrency_timeout_budget_and_hf_input(name: str, tmp_path: Path) -> None:
    """--json, -c, --timeout, --max-cost (a priced model) and the data input as hf:DATASET, all at once."""
    from fake_openai import FakeOpenAIServer
    from schema_reply import schema_reply

    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"source": "test", "as_of": "2026-01",
                                  "models": {"openai-compatible/priced": {"input": 1.0, "output": 10.0}}}))
    data = _data_args(name, tmp_path, hf=True)
    with FakeOpenAIServer(responder=schema_reply) as server:
        spec = f"openai-compatible/priced@{server.base_url}"
        r = _invoke(name, tmp_path, spec, "--json", "-c", "2", "--timeout", "30", "--max-cost", "1",
                    env={"NOVEVAL_PRICES": str(prices)}, data=data)
        assert r.exit_code == 0, r.output
        assert server.max_in_flight <= 2
    got = json.loads(r.stdout)
    assert got["benchmark"] == name and got["complete"] is True
    assert 0 < got["cost"]["usd"] <= 1 and got["cost"]["max_usd"] == 1.0


@pytest.mark.parametrize("name", NAMES)
def test_refresh_and_no_cache(name: str, tmp_path: Path) -> None:
    from fake_openai import FakeOpenAIServer
    from noveval.models.cache import ResponseCache, default_cache_path
    from schema_reply import schema_reply

    with FakeOpenAIServer(responder=schema_reply) as server:
        spec = f"openai-compatible/cached@{server.base_url}"
        assert _invoke(name, tmp_path, spec).exit_code == 0
        first = server.total
        cached = ResponseCache(default_cache_path()).stats()["by_model"].get(spec, 0)
        assert first > 1 and cached > 0  # the check, then the answers, all cached
        cached_run = _invoke(name, tmp_path, spec, out="r2")  # a new folder: every answer from the cache
        assert cached_run.exit_code == 0, cached_run.output
        assert server.total - first <= 1  # at most the endpoint check
        before = server.total
        again = _invoke(name, tmp_path, spec, "--refresh", out="r3")  # the same, ignoring the cache
        assert again.exit_code == 0, again.output
        assert server.total - before >= first - 1  # every answer asked again
        fresh = _invoke(name, tmp_path, spec.replace("cached", "uncached"), "--no-cache", out="u")
        assert fresh.exit_code == 0, fresh.output
        assert ResponseCache(default_cache_path()).stats()["by_model"].get(spec.replace("cached", "uncached"), 0) == 0


@pytest.mark.parametrize("name", NAMES)
def test_batch_sends_every_request_through_the_batch_api(name: str, tmp_path: Path) -> None:
    from fake_batches import FakeBatchServer
    from schema_reply import schema_reply

    env = {"NOVEVAL_BATCH_POLL_S": "0.02"}
    with FakeBatchServer(responder=schema_reply) as server:
        spec = f"openai-compatible/batched@{server.base_url}"
        r = _invoke(name, tmp_path, spec, "--batch", env=env)
        assert r.exit_code == 0, r.output
        assert server.live_chat_calls == 0 and server.batch_creates >= 1
    assert (tmp_path / "r" / "batches.json").is_file()


@pytest.mark.parametrize("name", [n for n in NAMES if BENCHMARKS[n].has_prompts])
def test_prompt_variants_and_samples(name: str, tmp_path: Path) -> None:
    """--prompt-variants DIR (every template of the system reworded) and, where it judges, --samples 2."""
    from fake_openai import FakeOpenAIServer
    from noveval.prompts import export_prompts
    from schema_reply import schema_reply

    export_prompts(tmp_path / "all")
    variant = tmp_path / "variants" / "v1" / name
    variant.mkdir(parents=True)
    for f in sorted((tmp_path / "all" / name).glob("*.txt")):
        (variant / f.name).write_text(f.read_text(encoding="utf-8") + "\nThink it through first.\n", encoding="utf-8")
    extra = ["--samples", "2", "--temperature", "0.7"] if name in SAMPLES_FLAG else []
    with FakeOpenAIServer(responder=schema_reply) as server:
        spec = f"openai-compatible/varied@{server.base_url}"
        r = _invoke(name, tmp_path, spec, "--prompt-variants", str(tmp_path / "variants"), *extra)
        assert r.exit_code == 0, r.output
        assert any("Think it through first." in p for _, _, p in server.log)
    out = tmp_path / "r"
    assert {p.name for p in out.iterdir() if p.is_dir()} == {"shipped", "v1"} and (out / "variants.json").is_file()
    configs = [json.loads((out / v / "config.json").read_text()) for v in ("shipped", "v1")]
    assert configs[0] != configs[1]  # the prompt hashes differ
