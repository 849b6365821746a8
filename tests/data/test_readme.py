"""The README's per-system commands run on a fresh machine after ``noveval data get all`` from a mirror.

No ``../shared/data`` is visible (the working directory is a temporary folder), the user data
folder is empty: ``noveval data get all`` fetches every dataset's hand-written upstream files
from a local HTTP mirror (and RINoBench's splits from a local ``datasets`` folder), then the
README's own command lines (read from README.md, ``$D`` from ``noveval data dir``, limits cut to
1) run against that folder with the bundled model.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from data_mirror import MirrorServer
from noveval.cli.main import app
from noveval.data import catalog

README = Path(__file__).parents[2] / "README.md"

RUN = {  # the start of a README line -> caps that keep the test short
    "noveval score rinobench $D/": {},
    "noveval validate ceiling $D/": {},
    "noveval novbench extract-descriptions --input $D/": {"--papers": "1"},
    "noveval run claimcheck --task extract": {"--limit": "1", "--max-chunks": "1"},
    "noveval run novelty-pairs --source neurips": {"--limit": "1"},
}


def readme_commands() -> dict[str, str]:
    """The README's per-system command lines (comments dropped) for each prefix of :data:`RUN`."""
    text = README.read_text(encoding="utf-8")
    block = text[text.index("## Each system in one or two commands"):]
    block = block[block.index("```bash"): block.index("```", block.index("```bash") + 3)]
    lines = [re.sub(r"\s+#.*$", "", ln).strip() for ln in block.splitlines()]
    found = {p: next((ln for ln in lines if ln.startswith(p)), "") for p in RUN}
    assert all(found.values()), f"README lines not found: {[p for p, ln in found.items() if not ln]}"
    assert "D=$(noveval data dir)" in lines
    return found


def _argv(line: str, data: str, caps: dict[str, str]) -> list[str]:
    argv = shlex.split(line.replace("$D", data))[1:]
    for flag, value in caps.items():
        argv[argv.index(flag) + 1] = value
    return argv


def test_every_data_path_in_the_readme_comes_from_the_get_command_its_comment_names() -> None:
    """Each ``$D/<file>`` of the per-system commands is an output of a dataset that the system's
    comment line tells the reader to ``noveval data get`` first."""
    text = README.read_text(encoding="utf-8").split("## Each system in one or two commands")[1].split("## Python")[0]
    named: set[str] = set()
    seen = 0
    for line in text.splitlines():
        m = re.search(r"\(noveval data get ([a-z0-9 -]+?)[):]", line)
        if m:
            named = set(m.group(1).split())
        for rel in re.findall(r"\$D/([^\s\"']+)", line):
            makers = {d.name for d in catalog.datasets().values() if rel in d.outputs}
            assert makers & named, (rel, makers, named, line)
            seen += 1
    assert seen >= 9


@pytest.mark.integration
@pytest.mark.slow
def test_readme_commands_run_after_data_get_from_a_mirror(fixture_catalog: dict, mirror: MirrorServer,
                                                         tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "userdata"
    monkeypatch.setenv("NOVEVAL_DATA_DIR", str(data))
    runner = CliRunner()
    r = runner.invoke(app, ["-q", "data", "get", "all", "--mirror", mirror.url])
    assert r.exit_code == 0, r.output
    assert r.stdout.count("written to") == len(catalog.datasets())
    d = runner.invoke(app, ["data", "dir"]).stdout.strip()
    assert d == str(data.resolve()) and not Path("../shared/data").exists()
    outputs = {}
    for prefix, line in readme_commands().items():
        r = runner.invoke(app, ["-q", *_argv(line, d, RUN[prefix])])
        assert r.exit_code == 0, (line, r.output)
        outputs[prefix] = r.stdout
    assert "leave-one-reviewer-out Spearman" in outputs["noveval validate ceiling $D/"]
    assert "f1_macro" in outputs["noveval score rinobench $D/"]
    assert Path("s1.jsonl").is_file() and Path("runs/cc-extract/scores.json").is_file()
    assert Path("runs/pairs-neurips/predictions.jsonl").is_file()
