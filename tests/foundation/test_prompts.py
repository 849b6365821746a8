"""Prompt templates can be listed, exported and overridden without code changes."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from noveval.cli.main import app
from noveval.prompts import PROMPT_PACKAGES, export_prompts, list_prompts, read_prompt


def test_every_benchmark_ships_templates() -> None:
    benches = {b for b, _, _ in list_prompts()}
    assert benches == set(PROMPT_PACKAGES)


def test_override_takes_precedence_and_changes_the_hash(tmp_path: Path, monkeypatch) -> None:
    from noveval.benchmarks.rinobench.prompts import prompt_hashes

    default = read_prompt("rinobench", "alignment.txt")
    h0 = prompt_hashes()["alignment"]
    (tmp_path / "rinobench").mkdir()
    (tmp_path / "rinobench" / "alignment.txt").write_text("### system\nMINE\n### user\nRate {{ gold }} vs {{ predicted }}\n")
    monkeypatch.setenv("NOVEVAL_PROMPTS_DIR", str(tmp_path))
    try:
        assert read_prompt("rinobench", "alignment.txt").startswith("### system\nMINE")
        assert "MINE" not in read_prompt("rinobench", "support.txt")  # not overridden: shipped file
        assert prompt_hashes()["alignment"] != h0
        assert ("rinobench", "alignment.txt", True) in set(list_prompts())
    finally:
        monkeypatch.delenv("NOVEVAL_PROMPTS_DIR")
    assert read_prompt("rinobench", "alignment.txt") == default


def test_export_then_cli_list_and_show(tmp_path: Path) -> None:
    n = export_prompts(tmp_path)
    assert n == len(list(list_prompts())) and n > 30
    assert (tmp_path / "axioms" / "paraphrase.txt").read_text() == read_prompt("axioms", "paraphrase.txt")
    r = CliRunner().invoke(app, ["prompts", "list"])
    assert r.exit_code == 0 and "  axioms/paraphrase.txt" in r.stdout
    r = CliRunner().invoke(app, ["prompts", "show", "axioms", "paraphrase.txt"])
    assert r.exit_code == 0 and "four words" in r.stdout
    r = CliRunner().invoke(app, ["prompts", "show", "axioms", "nope.txt"])
    assert r.exit_code == 2 and "noveval prompts list" in r.stderr
