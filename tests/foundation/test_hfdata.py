"""``hf:NAME[:SPLIT]`` data sources: real datasets saved by the test, read offline.

Two real sources: a folder written by ``DatasetDict.save_to_disk`` (``load_from_disk``),
and a hub id read from a temporary Hugging Face datasets cache laid out as an online
``load_dataset`` leaves it (``<cache>/<org>___<name>/default/0.0.0/<hash>/<name>-test.arrow``),
with HF_DATASETS_OFFLINE=1: nothing is downloaded.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fake_openai import FakeOpenAIServer
from noveval.cli.main import app
from noveval.errors import InputError
from noveval.hfdata import load_hf_rows, parse_hf_source

datasets = pytest.importorskip("datasets")

SAMPLES = Path(__file__).resolve().parents[2] / "src" / "noveval" / "samples"
GOLD = SAMPLES / "rinobench" / "test.json"


def _cli(tmp_path: Path, *args: str, env: dict[str, str] | None = None):
    return CliRunner(env={"NOVEVAL_CACHE_DIR": str(tmp_path / "cache"), **(env or {})}).invoke(app, ["-q", *args])


def _save(tmp_path: Path, rows: list[dict], name: str = "ds", splits: tuple[str, ...] = ("test",)) -> Path:
    d = tmp_path / name
    datasets.DatasetDict({s: datasets.Dataset.from_list(rows) for s in splits}).save_to_disk(str(d))
    return d


def _hub_cache(tmp_path: Path, repo: str, rows: list[dict]) -> Path:
    """A datasets cache holding ``repo`` (split test) as an online load_dataset would leave it."""
    from datasets.packaged_modules.json.json import Json

    cache = tmp_path / "hf-datasets"
    src = tmp_path / "src.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    org, name = repo.split("/")
    b = Json(cache_dir=str(cache), dataset_name=name, config_name="default", hash="0123456789abcdef",
             data_files={"test": str(src)})
    b.download_and_prepare()
    dst = cache / f"{org}___{name}" / "default" / "0.0.0" / "0123456789abcdef"
    dst.parent.mkdir(parents=True)
    shutil.move(b.cache_dir, dst)
    return cache


def test_parse_sources() -> None:
    assert parse_hf_source("hf:TimSchopf/RINoBench:test") == ("TimSchopf/RINoBench", "test")
    assert parse_hf_source("hf:TimSchopf/RINoBench") == ("TimSchopf/RINoBench", None)
    assert parse_hf_source(Path("hf:/data/saved:train")) == ("/data/saved", "train")
    with pytest.raises(InputError, match="expected hf:NAME"):
        parse_hf_source("hf:")


def test_rinobench_gold_from_a_saved_dataset_scores_like_the_file(tmp_path: Path) -> None:
    gold = json.loads(GOLD.read_text())
    saved = _save(tmp_path, gold)
    preds = tmp_path / "preds.json"
    preds.write_text(json.dumps([{"reasoning": "r", "novelty_score": 1 + i % 5} for i in range(len(gold))]))
    a = _cli(tmp_path, "score", "rinobench", "-p", str(preds), "-g", f"hf:{saved}:test", "-o", str(tmp_path / "a"))
    assert a.exit_code == 0, a.output
    b = _cli(tmp_path, "score", "rinobench", "-p", str(preds), "-g", str(GOLD), "-o", str(tmp_path / "b"))
    assert b.exit_code == 0
    sa, sb = (json.loads((tmp_path / x / "scores.json").read_text()) for x in ("a", "b"))
    assert sa["metrics"] == sb["metrics"] and len(sa["metrics"]) > 5
    assert json.loads((tmp_path / "a" / "config.json").read_text())["gold"] == f"hf:{saved}:test"


def test_a_bad_row_gets_the_same_error_as_in_a_file(tmp_path: Path) -> None:
    gold = json.loads(GOLD.read_text())
    gold[1]["research_idea"]["objective"] = None
    as_file = tmp_path / "bad.json"
    as_file.write_text(json.dumps(gold, indent=1))
    saved = _save(tmp_path, gold)
    src = f"hf:{saved}:test"
    with pytest.raises(InputError) as from_file:
        from noveval.benchmarks.rinobench.data import load_items

        load_items(as_file)
    r = _cli(tmp_path, "run", "rinobench", "--items", src, "-o", str(tmp_path / "r"), "-m", "local")
    assert r.exit_code == 2 and not (tmp_path / "r").exists()
    assert r.stderr.strip() == f"error: {src}: [1].research_idea.objective: {from_file.value.message}"
    assert from_file.value.field == "[1].research_idea.objective" and from_file.value.line is not None


def test_a_hub_id_is_read_offline_from_the_local_datasets_cache(tmp_path: Path) -> None:
    rows = [{"id": f"q{i}", "prompt": f"question {i}"} for i in range(3)]
    env = {"HF_DATASETS_CACHE": str(_hub_cache(tmp_path, "someorg/prompts", rows)), "HF_DATASETS_OFFLINE": "1"}
    with FakeOpenAIServer() as server:
        r = _cli(tmp_path, "run", "chat", "-i", "hf:someorg/prompts:test", "-o", str(tmp_path / "r"),
                 "-m", f"openai-compatible/m@{server.base_url}", env=env)
        assert r.exit_code == 0, r.output
        assert sorted(server.counts) == ["Reply with OK.", "question 0", "question 1", "question 2"]
    preds = [json.loads(x) for x in (tmp_path / "r" / "predictions.jsonl").read_text().splitlines()]
    assert [p["id"] for p in preds] == ["q0", "q1", "q2"] and preds[2]["output"] == "echo: question 2"

    missing = _cli(tmp_path, "run", "chat", "-i", "hf:someorg/not-here:test", "-o", str(tmp_path / "m"), env=env)
    assert missing.exit_code == 2 and missing.stderr.count("\n") == 1
    assert "hf:someorg/not-here:test: cannot load the dataset" in missing.stderr and "local datasets cache" in missing.stderr


def test_novbench_data_from_a_saved_dataset(tmp_path: Path) -> None:
    from noveval.benchmarks.novbench.data import load_records

    records = json.loads((SAMPLES / "novbench" / "records.json").read_text())
    saved = _save(tmp_path, records)
    assert [r.model_dump() for r in load_records(f"hf:{saved}:test")] == \
        [r.model_dump() for r in load_records(SAMPLES / "novbench" / "records.json")]
    with FakeOpenAIServer() as server:
        r = _cli(tmp_path, "run", "novbench", "--data", f"hf:{saved}", "-o", str(tmp_path / "r"), "--no-score",
                 "-m", f"openai-compatible/m@{server.base_url}", "--max-tokens", "16")
        assert r.exit_code == 0, r.output
    cfg = json.loads((tmp_path / "r" / "config.json").read_text())
    assert cfg["data"] == f"hf:{saved}"  # the source as given, not a mangled path
    assert len((tmp_path / "r" / "predictions.jsonl").read_text().splitlines()) == len(records)


def test_splits_must_be_named_when_there_are_several(tmp_path: Path) -> None:
    saved = _save(tmp_path, [{"id": "a", "prompt": "x"}], splits=("train", "test"))
    with pytest.raises(InputError, match=r"has splits train, test: name one, e\.g\. hf:.*:train"):
        load_hf_rows(f"hf:{saved}")
    with pytest.raises(InputError, match="no split 'dev'; the splits are train, test"):
        load_hf_rows(f"hf:{saved}:dev")
    assert load_hf_rows(f"hf:{saved}:test") == [{"id": "a", "prompt": "x"}]
