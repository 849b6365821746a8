"""The one prompt API (noveval.prompts): layout, strict variables, hash, overrides, catalogue, CLI."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from noveval.cli.main import app
from noveval.errors import InputError
from noveval.prompts import (
    check_overrides,
    export_prompts,
    list_prompts,
    load,
    packages,
    parse_layout,
    prompt_hashes,
    unused_overrides,
    using_overrides,
    variables,
)


def _override(root: Path, system: str, name: str, text: str) -> Path:
    (root / system).mkdir(parents=True, exist_ok=True)
    f = root / system / f"{name}.txt"
    f.write_text(text, encoding="utf-8")
    return f


# ----------------------------------------------------------------------------- layout
def test_layout_splits_system_and_user_with_file_lines() -> None:
    system, user = parse_layout("### system\nBe brief.\n### user\nHi {{ x }}\n")
    assert (system.text, system.first_line) == ("Be brief.", 2)
    assert (user.text, user.first_line) == ("Hi {{ x }}\n", 4)
    # no system part at all: the user part alone; other ### lines are plain text
    system, user = parse_layout("\n### user\n### Task\nDo it.")
    assert system.text == "" and user.text == "### Task\nDo it." and user.first_line == 3


@pytest.mark.parametrize(("text", "line", "what"), [
    ("Hello\n### user\nx", 1, "text before the first header"),
    ("### user\na\n### system\nb", 3, "must come before"),
    ("### system\na\n### user\nb\n### user\nc", 5, "a second"),
    ("### system\nonly a system part\n", None, "no '### user' line"),
])
def test_malformed_layout_is_input_error_with_line(text: str, line: int | None, what: str) -> None:
    with pytest.raises(InputError) as e:
        parse_layout(text, "t.txt")
    assert e.value.path == "t.txt" and e.value.line == line and what in e.value.message


# ----------------------------------------------------------------------------- rendering
def test_render_strips_parts_and_drops_an_empty_system_message(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("NOVEVAL_PROMPTS_DIR", str(tmp_path))
    _override(tmp_path, "rinobench", "alignment", "### system\n\n### user\n\n  Gold: {{ gold }}\n\n")
    r = load("rinobench", "alignment").render(gold="G", predicted="unused is fine")
    assert (r.system, r.user) == ("", "Gold: G")
    assert r.messages() == [{"role": "user", "content": "Gold: G"}]
    assert r.messages(end="\n") == [{"role": "user", "content": "Gold: G\n"}]
    _override(tmp_path, "rinobench", "alignment", "### system\nS {{ gold }}\n### user\nU {{ predicted }}")
    assert load("rinobench", "alignment").render(gold="g", predicted="p").messages() == [
        {"role": "system", "content": "S g"}, {"role": "user", "content": "U p"}]


def test_values_are_not_template_code() -> None:
    # a value holding Jinja or the old placeholder syntaxes is sent as it is
    v = "{{ gold }} {% if x %} $gold {point} ${x}"
    msgs = load("rinobench", "alignment").render(gold=v, predicted="p").messages()
    assert v in msgs[1]["content"]


def test_missing_variable_names_file_line_and_variable(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("NOVEVAL_PROMPTS_DIR", str(tmp_path))
    f = _override(tmp_path, "rinobench", "alignment", "### system\nYou grade.\n### user\nGold: {{ gold }}\n"
                  "Predicted: {{ predictd }}\n")
    t = load("rinobench", "alignment")
    assert t.overridden and t.path == str(f) and t.source == f"override {f}"
    with pytest.raises(InputError) as e:
        t.render(gold="g", predicted="p")
    assert (e.value.path, e.value.line, e.value.field) == (str(f), 5, "predictd")
    assert "not provided" in e.value.message and "predicted" in e.value.message
    # the run-start check (what systems call before any model call) fails the same way
    with pytest.raises(InputError, match="predictd"):
        prompt_hashes("rinobench", ["alignment"])


def test_old_placeholder_syntax_in_an_override_is_an_error(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("NOVEVAL_PROMPTS_DIR", str(tmp_path))
    f = _override(tmp_path, "focus", "polarity", "### user\nLabel this:\n{point}\n")
    with pytest.raises(InputError) as e:
        load("focus", "polarity").render(point="x")
    assert (e.value.path, e.value.line, e.value.field) == (str(f), 3, "point") and "{{ point }}" in e.value.message
    _override(tmp_path, "rinobench", "alignment", "### user\n$gold vs ${predicted}\n")
    with pytest.raises(InputError, match="old placeholder syntax"):
        prompt_hashes("rinobench", ["alignment"])


def test_syntax_error_points_at_the_file_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("NOVEVAL_PROMPTS_DIR", str(tmp_path))
    f = _override(tmp_path, "rinobench", "alignment", "### system\nok\n### user\nfine\n{{ gold \n")
    with pytest.raises(InputError) as e:
        load("rinobench", "alignment")
    assert e.value.path == str(f) and e.value.line == 5 and "syntax" in e.value.message


def test_templates_render_in_a_sandbox(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("NOVEVAL_PROMPTS_DIR", str(tmp_path))
    _override(tmp_path, "rinobench", "alignment", "### user\n{{ gold.__class__.__mro__ }}\n")
    with pytest.raises(InputError, match="cannot render"):
        load("rinobench", "alignment").render(gold="g", predicted="p")


# ----------------------------------------------------------------------------- hash, overrides
def test_sha_is_sha256_of_the_file_bytes() -> None:
    for system in packages():
        t = load(system, sorted(variables(system))[0])
        assert t.sha == hashlib.sha256(Path(t.path).read_bytes()).hexdigest()[:12] and not t.overridden


def test_override_takes_precedence_and_changes_the_hash(tmp_path: Path, monkeypatch) -> None:
    shipped = load("rinobench", "alignment")
    h0 = prompt_hashes("rinobench", ["alignment", "support"])
    f = _override(tmp_path, "rinobench", "alignment", "### system\nMINE\n### user\n{{ gold }} vs {{ predicted }}\n")
    monkeypatch.setenv("NOVEVAL_PROMPTS_DIR", str(tmp_path))
    h1 = prompt_hashes("rinobench", ["alignment", "support"])
    assert h1["alignment"] == hashlib.sha256(f.read_bytes()).hexdigest()[:12] != h0["alignment"]
    assert h1["support"] == h0["support"]  # not overridden: the shipped file
    assert ("rinobench", "alignment.txt", True) in set(list_prompts())
    monkeypatch.delenv("NOVEVAL_PROMPTS_DIR")
    assert load("rinobench", "alignment").text == shipped.text


def test_unusable_overrides_are_reported(tmp_path: Path, monkeypatch) -> None:
    _override(tmp_path, "rinobench", "alignmnet", "### user\nx\n")  # a typo in the name
    _override(tmp_path, "novbench", "structure.j2", "### user\nx\n")  # the old suffix
    _override(tmp_path, "rinobench", "alignment", "### user\n{{ gold }}\n")  # used
    monkeypatch.setenv("NOVEVAL_PROMPTS_DIR", str(tmp_path))
    assert [p.name for p in unused_overrides()] == ["structure.j2.txt", "alignmnet.txt"]
    monkeypatch.setenv("NOVEVAL_PROMPTS_DIR", str(tmp_path / "missing"))
    with pytest.raises(InputError, match="NOVEVAL_PROMPTS_DIR"):
        load("rinobench", "alignment")


def test_an_unused_override_is_logged_once(tmp_path: Path, monkeypatch, caplog) -> None:
    _override(tmp_path, "rinobench", "alignmnet", "### user\nx\n")
    monkeypatch.setenv("NOVEVAL_PROMPTS_DIR", str(tmp_path))
    with caplog.at_level("WARNING", logger="noveval"):
        for _ in range(3):
            load("rinobench", "alignment").render(gold="g", predicted="p")
    assert [r.getMessage().count("alignmnet.txt matches no shipped template") for r in caplog.records] == [1]


def test_unknown_system_or_template() -> None:
    with pytest.raises(InputError, match="no prompts for 'nope'"):
        load("nope", "x")
    with pytest.raises(InputError, match="alignment"):  # lists the known names
        load("rinobench", "alignmnet")


# ----------------------------------------------------------------------------- catalogue
def test_every_system_ships_templates_in_the_one_layout() -> None:
    systems = {b for b, _, _ in list_prompts()}
    assert systems == set(packages())
    for system, fname, _ in list_prompts():
        assert fname.endswith(".txt"), fname
        t = load(system, fname)
        assert t.text.startswith("### system\n"), f"{system}/{fname}"
        declared = variables(system)
        # every template is documented, and uses only what its system provides
        assert t.name in declared, f"{system}/{fname} has no VARIABLES entry"
        assert t.variables <= set(declared[t.name]), (system, fname, t.variables - set(declared[t.name]))
        t.check(declared[t.name])
    for system in packages():  # no VARIABLES entry for a template that does not exist
        assert set(variables(system)) <= {n.removesuffix(".txt") for s, n, _ in list_prompts() if s == system}


def test_export_then_cli_list_and_show(tmp_path: Path) -> None:
    n = export_prompts(tmp_path / "p")
    assert n == len(list(list_prompts())) and n >= 50
    for system, fname, _ in list_prompts():  # byte-identical copies, so the hashes match
        assert (tmp_path / "p" / system / fname).read_bytes() == Path(load(system, fname).path).read_bytes()
    r = CliRunner().invoke(app, ["prompts", "export", str(tmp_path / "q")])
    assert r.exit_code == 0 and f"wrote {n} templates" in r.stdout
    sha = load("axioms", "paraphrase").sha
    r = CliRunner().invoke(app, ["prompts", "list"])
    assert r.exit_code == 0 and "  axioms/paraphrase.txt" in r.stdout and sha in r.stdout
    assert "variables: title, abstract" in r.stdout
    r = CliRunner().invoke(app, ["prompts", "show", "axioms", "paraphrase.txt"])
    assert r.exit_code == 0 and "four words" in r.stdout and r.stdout.startswith("### system\n")
    assert CliRunner().invoke(app, ["prompts", "show", "axioms/paraphrase"]).stdout == r.stdout
    r = CliRunner().invoke(app, ["prompts", "show", "axioms", "nope.txt"])
    assert r.exit_code == 2 and "noveval prompts list" in r.stderr


def test_cli_list_marks_overrides_and_flags_unused_ones(tmp_path: Path) -> None:
    _override(tmp_path, "focus", "polarity", "### user\n{{ point }}?\n")
    _override(tmp_path, "focus", "polarty", "### user\n{{ point }}?\n")
    r = CliRunner().invoke(app, ["prompts", "list"], env={"NOVEVAL_PROMPTS_DIR": str(tmp_path)})
    assert r.exit_code == 0
    assert "* focus/polarity.txt" in r.stdout and "  focus/review.txt" in r.stdout
    assert "polarty.txt: matches no shipped template" in r.stderr
    r = CliRunner().invoke(app, ["prompts", "show", "focus", "polarity"], env={"NOVEVAL_PROMPTS_DIR": str(tmp_path)})
    assert r.stdout == "### user\n{{ point }}?\n"



def test_using_overrides_restores_the_variable_even_on_error(tmp_path: Path, monkeypatch) -> None:
    _override(tmp_path / "mine", "rinobench", "alignment", "### user\nMINE {{ gold }}\n")
    shipped = load("rinobench", "alignment").sha
    monkeypatch.setenv("NOVEVAL_PROMPTS_DIR", str(tmp_path / "mine"))
    with using_overrides(None):  # the shipped templates only
        assert load("rinobench", "alignment").sha == shipped
    assert load("rinobench", "alignment").text == "### user\nMINE {{ gold }}\n"
    with pytest.raises(RuntimeError), using_overrides(tmp_path / "other"):
        assert os.environ["NOVEVAL_PROMPTS_DIR"] == str(tmp_path / "other")
        raise RuntimeError("a run failed")
    assert os.environ["NOVEVAL_PROMPTS_DIR"] == str(tmp_path / "mine")
    monkeypatch.delenv("NOVEVAL_PROMPTS_DIR")
    with using_overrides(tmp_path / "mine"):
        assert load("rinobench", "alignment").overridden
    assert "NOVEVAL_PROMPTS_DIR" not in os.environ  # unset before, unset after


def test_check_overrides_names_the_file_of_every_problem(tmp_path: Path) -> None:
    ok = _override(tmp_path / "a", "rinobench", "alignment", "### user\n{{ gold }}\n")
    ok2 = _override(tmp_path / "a", "focus", "polarity", "### user\n{{ point }}\n")
    got = check_overrides(tmp_path / "a")
    assert got == {"focus": {"polarity": hashlib.sha256(ok2.read_bytes()).hexdigest()[:12]},
                   "rinobench": {"alignment": hashlib.sha256(ok.read_bytes()).hexdigest()[:12]}}
    assert "NOVEVAL_PROMPTS_DIR" not in os.environ
    typo = _override(tmp_path / "b", "rinobench", "alignmnet", "### user\n{{ gold }}\n")
    with pytest.raises(InputError, match="no rinobench template named 'alignmnet'") as e:
        check_overrides(tmp_path / "b")
    assert e.value.path == str(typo)
    bad = _override(tmp_path / "c", "rinobench", "support", "### user\n{{ gold }}\n{{ argumnets }}\n")
    with pytest.raises(InputError) as e:
        check_overrides(tmp_path / "c")
    assert (e.value.path, e.value.line, e.value.field) == (str(bad), 3, "argumnets")
    (tmp_path / "d" / "rinobench").mkdir(parents=True)
    (tmp_path / "d" / "judge_novelty.txt").write_text("### user\nx\n")
    with pytest.raises(InputError, match="a template is <system>/<name>.txt"):
        check_overrides(tmp_path / "d")
    assert check_overrides(tmp_path / "d" / "rinobench") == {}  # an empty system folder holds nothing


def test_docs_list_every_template_and_its_variables() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "prompts.md").read_text(encoding="utf-8")
    tables = doc.split("## Templates and their variables", 1)[1]
    for system in packages():
        section = tables.split(f"### {system}\n", 1)[1].split("\n### ", 1)[0]
        for name, declared in variables(system).items():
            row = next((ln for ln in section.splitlines() if ln.startswith(f"| `{name}` |")), None)
            assert row is not None, f"docs/prompts.md: no row for {system}/{name}"
            assert all(f"`{v}`" in row for v in declared), (system, name)
