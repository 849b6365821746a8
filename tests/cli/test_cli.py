"""The CLI shell: version, help on every command, models check, cache commands."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
import typer
from typer.testing import CliRunner

from noveval import __version__
from noveval.cli.main import app


def _all_command_paths() -> list[list[str]]:
    root = typer.main.get_command(app)
    paths: list[list[str]] = []

    def walk(cmd: click.Command, prefix: list[str]) -> None:
        paths.append(prefix)
        if isinstance(cmd, click.Group):
            for name, sub in cmd.commands.items():
                walk(sub, [*prefix, name])

    walk(root, [])
    return paths


def test_version() -> None:
    r = CliRunner().invoke(app, ["--version"])
    assert r.exit_code == 0 and r.stdout.strip() == f"noveval {__version__}"


@pytest.mark.parametrize("path", _all_command_paths(), ids=lambda p: " ".join(p) or "noveval")
def test_help_on_every_command(path: list[str]) -> None:
    r = CliRunner().invoke(app, [*path, "--help"])
    assert r.exit_code == 0, r.output
    assert "Usage" in r.stdout


def test_help_does_not_import_heavy_libraries() -> None:
    code = "import sys; from noveval.cli.main import app; print(','.join(m for m in ('torch','transformers','xllamacpp','sentence_transformers') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@pytest.mark.integration
def test_models_check_runs_both_bundled_models() -> None:
    r = CliRunner().invoke(app, ["models", "check"])
    assert r.exit_code == 0, r.output
    assert "local/SmolLM2-135M-Instruct-Q4_1" in r.stdout and "tok/s" in r.stdout
    assert "local/all-MiniLM-L6-v2" in r.stdout and "dim 384" in r.stdout


def test_cache_stats_and_clear() -> None:
    r = CliRunner().invoke(app, ["cache", "stats"])
    assert r.exit_code == 0 and "responses:" in r.stdout and "vectors:" in r.stdout
    r = CliRunner().invoke(app, ["cache", "clear", "--yes"])
    assert r.exit_code == 0 and "removed" in r.stdout
