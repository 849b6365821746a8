"""NovBench's options, run folder and error paths (no model call: everything here fails or finishes first)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from cli_helpers import cli as _cli
from noveval.benchmarks.novbench.contract import score, score_predictions
from noveval.benchmarks.novbench.generate import create_run, run_config
from noveval.benchmarks.novbench.options import NovBenchOptions, NovBenchScoreOptions
from noveval.errors import InputError
from noveval.options import as_options

SAMPLES = Path(str(resources.files("noveval.samples").joinpath("novbench/records.json")))



@pytest.mark.parametrize(("given", "stored", "pair"), [
    ("2019-2022", "2019-2022", (2019, 2022)),
    ("2020", "2020-2020", (2020, 2020)),
    ((2018, 2019), "2018-2019", (2018, 2019)),
    (None, None, None),
])
def test_corpus_years_forms(given, stored, pair) -> None:
    o = as_options(NovBenchOptions, {"corpus_years": given})
    assert o.corpus_years == stored and o.year_range() == pair


def test_bad_option_names_the_field_in_python_and_the_flag_on_the_cli(tmp_path: Path) -> None:
    with pytest.raises(InputError) as e:
        as_options(NovBenchOptions, {"corpus_years": "20x0"})
    assert e.value.field == "options.corpus_years" and "FROM-TO" in e.value.message
    with pytest.raises(InputError) as e:
        as_options(NovBenchScoreOptions, {"tau": 1.5})
    assert e.value.field == "options.tau"
    r = _cli("run", "novbench", "--corpus-years", "20x0", "-o", str(tmp_path / "r"))
    assert r.exit_code == 2 and "--corpus-years: " in r.stderr and "FROM-TO" in r.stderr, r.output
    assert not (tmp_path / "r").exists()


def test_rag_without_references_or_corpus_fails_before_writing(tmp_path: Path) -> None:
    recs = json.loads(SAMPLES.read_text(encoding="utf-8"))[:1]
    for r in recs:
        r.pop("retrieved_title", None)
        r.pop("retrieved_abstract", None)
    data = tmp_path / "norefs.json"
    data.write_text(json.dumps(recs), encoding="utf-8")
    r = _cli("run", "novbench", "--data", str(data), "--prompting", "rag", "-o", str(tmp_path / "r"))
    assert r.exit_code == 2, r.output
    assert f"{data}: --corpus: 1 record(s) have no retrieved papers" in r.stderr, r.stderr
    assert not (tmp_path / "r").exists()


def test_run_config_records_where_the_records_are() -> None:
    o = NovBenchOptions(prompting="rag", corpus="/x/papers.jsonl", corpus_years="2019-2022", corpus_limit=9)
    cfg = run_config("m", o, SAMPLES, "local/emb")
    assert cfg["data"] == "records.json" and cfg["records"] == str(SAMPLES.resolve())
    assert cfg["corpus"] == "papers.jsonl:all:(2019, 2022):9"  # the spelling runs have always recorded
    assert cfg["retrieval_embedder"] == "local/emb" and cfg["prompting"] == "rag"
    assert run_config("m", NovBenchOptions(data="hf:org/nb:test"), "hf:org/nb:test", None)["records"] == "hf:org/nb:test"


def test_a_run_resumes_when_its_records_moved_or_were_never_recorded(tmp_path: Path) -> None:
    out = tmp_path / "run"
    base = {"benchmark": "novbench", "model": "m", "data": "records.json", "seed": 0}
    create_run(out, {**base, "records": "/old/records.json"})
    create_run(out, {**base, "records": "/new/records.json"})  # moved: the same run, resumed
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["records"] == "/new/records.json" and cfg["resumed"] == 1
    (out / "config.json").write_text(json.dumps({k: v for k, v in cfg.items() if k != "records"}))  # an older run
    create_run(out, {**base, "records": "/new/records.json"})
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["records"] == "/new/records.json" and cfg["resumed"] == 2
    with pytest.raises(InputError) as e:  # another setting: still refused
        create_run(out, {**base, "seed": 1, "records": "/elsewhere.json"})
    assert e.value.field == "seed"
    assert json.loads((out / "config.json").read_text())["records"] == "/new/records.json"


def test_scoring_needs_a_records_file_it_can_find(tmp_path: Path) -> None:
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"id": "s1", "output": "Positive Novelty Evaluations\n- new"}) + "\n")
    with pytest.raises(InputError) as e:
        score_predictions(preds)
    assert e.value.field == "options.data" and e.value.path == str(preds)
    r = _cli("score", "novbench", str(preds))
    assert r.exit_code == 2 and f"{preds}: --data: " in r.stderr, r.output
    old_run = tmp_path / "old"
    old_run.mkdir()
    (old_run / "config.json").write_text(json.dumps({"benchmark": "novbench", "data": "records.json"}))
    (old_run / "predictions.jsonl").write_text(preds.read_text())
    with pytest.raises(InputError, match="does not record its records file") as e:
        score_predictions(old_run)
    assert e.value.field == "options.data"
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "config.json").write_text(json.dumps({"benchmark": "rinobench"}))
    with pytest.raises(InputError, match="not a NovBench run"):
        score(tmp_path / "other")
