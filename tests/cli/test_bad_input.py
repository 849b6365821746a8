"""Bad input: one line naming file:line:field, exit code 2, and no output written."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from noveval.cli.main import app
from noveval.errors import InputError
from noveval.io import read_json, read_jsonl, read_records, write_jsonl
from noveval.records import Paper

GOOD = json.dumps({"id": "a", "prompt": "hello"})

CASES = {
    "malformed_json": (GOOD + "\n" + '{"id": "b", "prompt": "x"\n', ":2:", "invalid JSON"),
    "missing_field": (GOOD + "\n" + json.dumps({"prompt": "no id"}) + "\n", ":2: id:", "required"),
    "wrong_type": (GOOD + "\n" + json.dumps({"id": "c", "prompt": ["not", "a", "string"]}) + "\n", ":2: prompt:", "string"),
    "empty_file": ("", "", "empty"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_cli_bad_input_exits_2_without_output(tmp_path: Path, case: str) -> None:
    content, where, what = CASES[case]
    f = tmp_path / "in.jsonl"
    f.write_text(content)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", "chat", "-i", str(f), "-o", str(out)])
    assert result.exit_code == 2
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"error: {f}"), err
    assert where in err and what in err.lower() or what in err, err
    assert not out.exists()


def test_cli_invalid_utf8(tmp_path: Path) -> None:
    f = tmp_path / "in.jsonl"
    f.write_bytes(GOOD.encode() + b"\n" + b'{"id": "x", "prompt": "caf\xe9"}\n')
    result = CliRunner().invoke(app, ["run", "chat", "-i", str(f), "-o", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert f"{f}:2:" in result.stderr and "UTF-8" in result.stderr
    assert not (tmp_path / "o").exists()


def test_cli_missing_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", "chat", "-i", str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "o")])
    assert result.exit_code == 2 and "file not found" in result.stderr


def test_json_array_errors_name_the_line_of_the_record(tmp_path: Path) -> None:
    f = tmp_path / "papers.json"
    f.write_text('[\n  {"id": "1", "title": "A"},\n  {"id": "2",\n   "title": 7}\n]\n')
    with pytest.raises(InputError) as e:
        read_records(f, Paper)
    assert e.value.line == 3 and e.value.field == "[1].title"
    assert str(e.value).startswith(f"{f}:3: [1].title:")


def test_gzip_roundtrip_and_atomic_write(tmp_path: Path) -> None:
    f = tmp_path / "x.jsonl.gz"
    write_jsonl(f, [{"a": 1}, Paper(id="p", title="T")])
    assert gzip.decompress(f.read_bytes()).count(b"\n") == 2
    rows = read_jsonl(f)
    assert rows[0] == {"a": 1} and rows[1]["id"] == "p"
    assert [p.name for p in tmp_path.iterdir()] == ["x.jsonl.gz"]  # no temp file left behind


def test_read_json_reports_line(tmp_path: Path) -> None:
    f = tmp_path / "c.json"
    f.write_text('{\n "a": 1,\n "b": \n}\n')
    with pytest.raises(InputError) as e:
        read_json(f)
    assert e.value.line == 4


def test_line_separator_inside_a_json_string_is_not_a_line_break(tmp_path: Path) -> None:
    f = tmp_path / "x.jsonl"
    rows = [{"id": "a", "t": "before\u2028after\u0085end"}, {"id": "b", "t": "x"}]
    write_jsonl(f, rows)
    assert read_jsonl(f) == rows
    from noveval.runs import RunDir

    run = RunDir.create(tmp_path / "r", {})
    run.append("predictions", rows[0])
    assert run.rows("predictions") == [rows[0]]
