"""What each system runs in ``noveval eval`` is declared with the system (issue 29 item 3); no model calls here."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from noveval.benchmarks import BENCHMARKS
from noveval.benchmarks._suite import EvalSettings, plan_eval
from noveval.errors import InputError

IN_TREE = ["novbench", "rinobench", "focus", "axioms", "claimcheck", "validate", "novelty-pairs"]


def _settings(**kw: object) -> EvalSettings:
    base: dict = {"model": "local", "judge": None, "protocol": "noveval", "limit": 2, "data": "sample"}
    return EvalSettings(**{**base, **kw})


def _plans(data_dir: Path | list[Path] | None, **kw: object) -> dict:
    return {p.bench.name: p for p in plan_eval(_settings(**kw), data_dir)}


def test_every_paper_system_declares_its_eval_settings_and_chat_does_not() -> None:
    for name in IN_TREE:
        assert BENCHMARKS[name].suite is not None, name
    assert BENCHMARKS["chat"].suite is None
    assert set(_plans(None)) == set(IN_TREE)  # chat is not part of the eval


def test_on_the_samples_every_model_evaluation_runs_and_its_files_exist() -> None:
    plans = _plans(None)
    assert plans["axioms"].plan.skip and "not a chat model" in plans["axioms"].plan.skip
    for name in set(IN_TREE) - {"axioms"}:
        p = plans[name]
        assert p.plan.skip is None and len(p.plan.runs) == 1, name
        opts = p.options[p.plan.runs[0].name]
        for field in ("items", "papers", "annotations", "reviews", "corpus", "data"):
            value = getattr(opts, field, None)
            assert value is None or Path(value).is_file(), (name, field, value)
        assert (opts.limit_items if name == "claimcheck" else opts.limit) == 2, name


def test_the_eval_module_names_no_system() -> None:
    """No table keyed by system name in the eval logic: each system's settings live in its package."""
    import noveval.benchmarks._suite as suite
    import noveval.cli.eval as cli

    for module in (suite, cli):
        text = inspect.getsource(module)
        assert not [n for n in BENCHMARKS if f'"{n}"' in text or f"'{n}'" in text], module.__name__


def test_real_data_absent_gives_a_reason_naming_the_file(tmp_path: Path) -> None:
    plans = _plans(tmp_path, protocol="paper")
    for name in set(IN_TREE) - {"axioms"}:
        why = plans[name].plan.skip
        assert why and str(tmp_path) in why, (name, why)
    assert "github.com/TimSchopf/RINoBench" in plans["rinobench"].plan.skip


def test_real_data_present_protocol_judge_and_limit_reach_the_options(tmp_path: Path) -> None:
    for rel in ("novbench/coling2020.json", "rinobench/test.json", "reviews/neurips-2024.jsonl.gz",
                "reviews/neurips-2025.jsonl.gz", "corpus/papers.jsonl.gz", "claimcheck/annotations.jsonl"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("", encoding="utf-8")
    plans = _plans(tmp_path, protocol="paper", judge="openai/gpt-4o", limit=7)

    def opts(name: str):  # noqa: ANN202
        return opts_of(plans, name)

    r = opts("rinobench")
    assert (Path(r.items), r.protocol, r.judge, r.limit, r.rubric) == (tmp_path / "rinobench/test.json", "paper",
                                                                       "openai/gpt-4o", 7, None)
    f = opts("focus")
    assert (Path(f.papers).name, f.protocol, f.annotator) == ("neurips-2024.jsonl.gz", "paper", "openai/gpt-4o")
    c = opts("claimcheck")
    assert (c.task, c.protocol, c.limit_items, Path(c.corpus).name) == ("ca", "paper", 7, "papers.jsonl.gz")
    n = opts("novbench")
    assert (Path(n.data).name, n.prompting, n.limit) == ("coling2020.json", "zero-shot", 7)
    v = opts("validate")
    assert (v.metric, Path(v.reviews).name, v.limit) == ([], "neurips-2025.jsonl.gz", 7)
    assert plans["validate"].plan.runs[0].metric == "rho_llm_rubric"
    p = opts("novelty-pairs")
    assert (p.source, Path(p.data).name) == ("neurips", "neurips-2025.jsonl.gz")
    # under this toolkit's protocol CLAIMCHECK needs no corpus
    assert opts_of(_plans(tmp_path, protocol="noveval"), "claimcheck").corpus is None


def opts_of(plans: dict, name: str):  # noqa: ANN201
    p = plans[name]
    return p.options[p.plan.runs[0].name]


def test_the_paper_protocol_of_claimcheck_does_not_run_on_the_sample() -> None:
    why = _plans(None, protocol="paper")["claimcheck"].plan.skip
    assert why and "corpus" in why


@pytest.mark.parametrize(("kw", "field", "words"), [
    ({"only": ["nosuch"]}, "only", "unknown system"),
    ({"only": ["chat"]}, "only", "declares no eval settings"),
])
def test_bad_selection_is_an_input_error(kw: dict, field: str, words: str) -> None:
    with pytest.raises(InputError, match=words) as e:
        plan_eval(_settings(), None, **kw)
    assert e.value.field == field


def test_bad_protocol_and_bad_options_name_the_field() -> None:
    with pytest.raises(InputError) as e:
        plan_eval(_settings(protocol="mine"), None)
    assert e.value.field == "protocol"
    with pytest.raises(InputError, match="novbench: ") as e:
        plan_eval(_settings(), None, ["novbench"], {"concurrency": 0})
    assert e.value.field == "options.concurrency"


def test_each_system_reads_the_first_searched_folder_that_holds_its_data(tmp_path: Path) -> None:
    """Searching several folders (no --data-dir): an empty or partial folder first is passed over per system."""
    empty, a, b = tmp_path / "empty", tmp_path / "a", tmp_path / "b"
    for folder, files in ((empty, ()), (a, ("novbench/coling2020.json", "reviews/neurips-2025.jsonl.gz")),
                          (b, ("reviews/neurips-2025.jsonl.gz", "corpus/papers.jsonl.gz"))):
        folder.mkdir()
        for rel in files:
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_text("", encoding="utf-8")
    plans = _plans([empty, a, b], protocol="paper")
    assert Path(opts_of(plans, "novbench").data) == a.resolve() / "novbench/coling2020.json"
    assert Path(opts_of(plans, "novelty-pairs").data) == a.resolve() / "reviews/neurips-2025.jsonl.gz"
    v = opts_of(plans, "validate")  # needs both files in one folder: b, not a
    assert (Path(v.reviews), Path(v.corpus)) == (b.resolve() / "reviews/neurips-2025.jsonl.gz",
                                                 b.resolve() / "corpus/papers.jsonl.gz")
    assert plans["validate"].plan.data.endswith(f", in {b.resolve()}")
    assert str(empty / "rinobench" / "test.json") in (plans["rinobench"].plan.skip or "")  # said for the first folder
    with pytest.raises(InputError, match="no data folder to search"):
        _plans([])
