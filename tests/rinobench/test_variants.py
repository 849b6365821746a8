"""`noveval run rinobench --prompt-variants DIR`: the same run under reworded prompts (issue 18, item 3).

Models answer through real sockets (tests/fake_openai.py, scripted by prompt wording so
that flips are known in advance) or the bundled local model; nothing mocks a model.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fake_openai import FakeOpenAIServer
from noveval.benchmarks import BENCHMARKS
from noveval.benchmarks._variants import BASELINE, bundled_folder
from noveval.benchmarks._variants import load_variants as _load_variants
from noveval.cli.main import app
from noveval.errors import InputError
from noveval.prompts import load, using_overrides, variables

RINO = BENCHMARKS["rinobench"]


def bundled_variants() -> Path:
    folder = bundled_folder(RINO)
    assert folder is not None
    return folder


def load_variants(variants: str | Path, *, used: list[str]) -> list:
    return _load_variants(RINO, variants, used=used)


SAMPLE = Path(__file__).resolve().parents[2] / "src" / "noveval" / "samples" / "rinobench" / "test.json"
SHIPPED = load("rinobench", "judge_novelty")
MODEL = "fake-judge"

# the scripted model: the score each prompt wording gives each sample idea (None: an unparseable reply)
ITEM_KEYS = ("Transformers trained with Adam", "Message-passing networks", "knowledge localisation", "Learned simulators")
ANSWERS: dict[str, list[int | None]] = {
    "shipped": [2, 3, 4, 4],
    "VARIANT-A": [2, 5, 4, 4],  # flips item 1
    "VARIANT-B": [2, 3, 3, None],  # flips items 2 and 3
}


def _respond(prompt: str) -> str | dict:
    item = next((i for i, k in enumerate(ITEM_KEYS) if k in prompt), None)
    if item is None:
        return "OK"  # the endpoint check
    who = next((k for k in ("VARIANT-A", "VARIANT-B") if k in prompt), "shipped")
    score = ANSWERS[who][item]
    if score is None:
        return "I would rather not put a number on it."
    return {"reasoning": f"{who} judged idea {item}.", "novelty_score": score}


def _variant(root: Path, name: str, text: str, template: str = "judge_novelty", system: str = "rinobench") -> Path:
    f = root / name / system / f"{template}.txt"
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(text, encoding="utf-8")
    return f


def _marked(marker: str) -> str:
    """The shipped judge_novelty with a marker line in its user message (same variables, same answer format)."""
    return SHIPPED.text.replace("### user\n", f"### user\n{marker}\n", 1)


def _variants(tmp: Path) -> Path:
    root = tmp / "variants"
    _variant(root, "a", _marked("VARIANT-A"))
    _variant(root, "b", _marked("VARIANT-B"))
    return root


def _cli(tmp: Path, *args: str):
    return CliRunner(env={"NOVEVAL_CACHE_DIR": str(tmp / "cache")}).invoke(app, ["-q", *args])


def _rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _run(tmp: Path, server: FakeOpenAIServer, out: Path, variants: Path, *extra: str):
    spec = f"openai-compatible/{MODEL}@{server.base_url}"
    return _cli(tmp, "run", "rinobench", "-i", str(SAMPLE), "-m", spec, "-o", str(out), "--prompt-variants",
                str(variants), *extra)


# ----------------------------------------------------------------------------- the shipped variants
def test_bundled_variants_use_the_shipped_variables_and_answer_format() -> None:
    chosen = load_variants("bundled", used=["judge_novelty"])
    assert [v.label for v in chosen] == [BASELINE, "checklist", "reviewer", "terse"]
    assert chosen[0].folder is None and chosen[0].changed == {}
    shas = set()
    for v in chosen[1:]:
        assert list(v.changed) == ["judge_novelty"]  # each rewords the judging prompt only
        shas.add(v.changed["judge_novelty"])
        text = (bundled_variants() / v.label / "rinobench" / "judge_novelty.txt").read_text(encoding="utf-8")
        assert text.startswith("### system\n") and "\n### user\n" in text
        with using_overrides(bundled_variants() / v.label):
            t = load("rinobench", "judge_novelty")
        assert t.sha == v.changed["judge_novelty"] and t.variables == SHIPPED.variables
        assert set(variables("rinobench")["judge_novelty"]) == t.variables
        assert '"reasoning"' in text and '"novelty_score"' in text  # the JSON answer parse.py reads
    assert len(shas) == 3 and SHIPPED.sha not in shas


def test_export_variants_copies_them_byte_for_byte(tmp_path: Path) -> None:
    res = _cli(tmp_path, "prompts", "export", "--variants", str(tmp_path / "mine"))
    assert res.exit_code == 0, res.output
    for name in ("checklist", "reviewer", "terse"):
        rel = Path(name) / "rinobench" / "judge_novelty.txt"
        assert (tmp_path / "mine" / rel).read_bytes() == (bundled_variants() / rel).read_bytes()
    assert [v.label for v in load_variants(tmp_path / "mine", used=["judge_novelty"])][1:] == ["checklist", "reviewer", "terse"]
    from noveval.prompts import shipped_names

    for system, names in (("novelty-pairs", ["editor", "terse"]), ("validate", ["skeptic", "terse"])):  # every system's
        got = _load_variants(BENCHMARKS[system], tmp_path / "mine", used=shipped_names(system))
        assert [v.label for v in got][1:] == names  # the other systems' variant folders are skipped, not refused


# ----------------------------------------------------------------------------- input errors: exit 2, nothing written
def _bad(root: Path, case: str) -> tuple[list[str], str]:
    """Make a broken variants folder; return extra CLI args and a text the error must contain."""
    if case == "missing":
        return [], "no such folder"
    root.mkdir(parents=True)
    if case == "empty":
        return [], "holds no variant folder"
    if case == "typo":
        f = _variant(root, "v1", _marked("x"), template="judge_novelity")
        return [], f"{f}: no rinobench template named 'judge_novelity'"
    if case == "variable":
        f = _variant(root, "v1", SHIPPED.text.replace("{{ problem_statement }}", "{{ problem_statment }}"))
        line = next(i for i, x in enumerate(f.read_text().splitlines(), 1) if "problem_statment" in x)
        return [], f"{f}:{line}: problem_statment:"
    if case == "stray file":
        _variant(root, "v1", _marked("x"))
        (root / "notes.txt").write_text("which is best?")
        return [], "notes.txt: --prompt-variants: a file directly in the variants folder"
    if case == "export folder":
        _variant(root, "rinobench", _marked("x"), template="x")  # DIR/rinobench/...: not a variant folder
        return [], "'rinobench' is a system, not a variant"
    if case == "baseline name":
        _variant(root, "shipped", _marked("x"))
        return [], "'shipped' is the label of the baseline run"
    if case == "unedited":
        _variant(root, "v1", SHIPPED.text)
        return [], "rinobench/judge_novelty.txt is the shipped template byte for byte"
    if case == "unused template":
        _variant(root, "v1", _marked("x"))
        return ["--protocol", "paper"], "changes no prompt this run uses (judge_novelty_paper)"
    if case == "duplicate":
        _variant(root, "v1", _marked("x"))
        _variant(root, "v2", _marked("x"))
        return [], "the same prompts as the variant 'v1'"
    raise AssertionError(case)


@pytest.mark.parametrize("case", ["missing", "empty", "typo", "variable", "stray file", "export folder", "baseline name",
                                  "unedited", "unused template", "duplicate"])
def test_bad_variants_exit_2_and_write_nothing(tmp_path: Path, case: str) -> None:
    root = tmp_path / "variants"
    extra, want = _bad(root, case)
    out = tmp_path / "out"
    res = _cli(tmp_path, "run", "rinobench", "-n", "2", "-o", str(out), "--prompt-variants", str(root), *extra)
    assert res.exit_code == 2, res.output
    assert want in res.output
    assert "Traceback" not in res.output
    assert not out.exists()


def test_other_variants_runs_are_refused(tmp_path: Path) -> None:
    root = _variants(tmp_path)
    # an --out that holds a run of a variant this call does not have would be compared by the report too
    (tmp_path / "o2" / "old").mkdir(parents=True)
    (tmp_path / "o2" / "old" / "config.json").write_text('{"benchmark": "rinobench"}')
    res = _cli(tmp_path, "run", "rinobench", "-o", str(tmp_path / "o2"), "--prompt-variants", str(root))
    assert res.exit_code == 2 and "a run of another prompt variant (old not in shipped, a, b)" in res.output
    assert sorted(p.name for p in (tmp_path / "o2").iterdir()) == ["old"]


# ----------------------------------------------------------------------------- a scripted model through real sockets
def test_variants_run_compare_and_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a user override is in effect: the baseline must still be the shipped prompts, and it is restored after
    theirs = tmp_path / "theirs"
    _variant(theirs, "", _marked("THEIRS"))
    monkeypatch.setenv("NOVEVAL_PROMPTS_DIR", str(theirs))
    out = tmp_path / "out"
    with FakeOpenAIServer(responder=_respond) as server:
        res = _run(tmp_path, server, out, _variants(tmp_path), "--json")
        assert res.exit_code == 0, res.output
        assert not any("THEIRS" in prompt for _, _, prompt in server.log)
        first = server.total
        assert first == 1 + 3 * 4  # the endpoint check, then 3 runs x 4 items
        again = _run(tmp_path, server, out, _variants(tmp_path))
        assert again.exit_code == 0, again.output
        # resumed: only b's unparseable answer is asked again (never final), after the endpoint check
        assert server.total == first + 2
    assert os.environ["NOVEVAL_PROMPTS_DIR"] == str(theirs)

    labels = ["shipped", "a", "b"]
    assert sorted(p.name for p in out.iterdir()) == sorted([*labels, "variants.json"])
    configs = {lab: json.loads((out / lab / "config.json").read_text()) for lab in labels}
    shas = {lab: c["prompts"]["judge_novelty"] for lab, c in configs.items()}
    assert shas["shipped"] == SHIPPED.sha and len(set(shas.values())) == 3
    for c in configs.values():  # the other templates are the shipped ones in every sub-run
        assert {k: v for k, v in c["prompts"].items() if k != "judge_novelty"} == \
            {k: v for k, v in configs["shipped"]["prompts"].items() if k != "judge_novelty"}

    # the flip rate by hand, from the sub-runs' own per-item rows
    answers = {lab: {r["id"]: r["predicted_score"] for r in _rows(out / lab / "per_item.jsonl")} for lab in labels}
    assert [answers["b"][i] for i in "0123"] == [2, 3, 3, None]
    flipped = [i for i in answers["shipped"] if len({answers[lab][i] for lab in labels}) > 1]
    assert flipped == ["1", "2", "3"]
    got = json.loads(res.stdout)  # --json: the same document as variants.json
    saved = json.loads((out / "variants.json").read_text())
    assert got["agreement"] == saved["agreement"]
    g = saved["agreement"]
    assert g["flip_rate"] == pytest.approx(len(flipped) / 4) and g["n_flips"] == 3 and g["n"] == 4
    assert g["flip_ci"][0] <= 0.75 <= g["flip_ci"][1]
    pairs = [(x, y) for k, x in enumerate(labels) for y in labels[k + 1:]]
    by_hand = sum(sum(answers[x][i] == answers[y][i] for i in "0123") / 4 for x, y in pairs) / len(pairs)
    assert g["pairwise"] == pytest.approx(by_hand)  # (3/4 + 2/4 + 1/4) / 3
    assert [f["answers"] for f in g["flips"]][0] == {"shipped": 3, "a": 5, "b": 3}
    assert [r["label"] for r in saved["runs"]] == labels and saved["baseline"] == "shipped"
    assert saved["variants"]["a"]["prompts_changed"] == {"judge_novelty": shas["a"]}
    assert saved["variants"]["shipped"]["prompts_changed"] == {}
    assert all(v["complete"] for v in saved["variants"].values())
    # each metric's spread across the variants is the spread of the sub-runs' own scores.json values
    mae = {lab: json.loads((out / lab / "scores.json").read_text())["metrics"]["mean_absolute_error"]["mean"]
           for lab in labels}
    spread = saved["spread"]["mean_absolute_error"]
    assert (spread["min"], spread["max"]) == (pytest.approx(min(mae.values())), pytest.approx(max(mae.values())))
    assert spread["range"] == pytest.approx(max(mae.values()) - min(mae.values()))

    # the re-run said so: shipped and a made no model call, b asked its unparseable answer again
    assert again.stdout.count("· model calls 0 (0 from the cache, 0 failed)") == 2
    assert "flip rate 0.750" in again.stdout and "item 1: shipped 3 | a 5 | b 3" in again.stdout
    assert {lab: json.loads((out / lab / "scores.json").read_text())["calls"]["requests"] for lab in labels} == {
        "shipped": 0, "a": 0, "b": 1}

    # the report renders the variants folder: the runs compared, titled as prompt variants
    from noveval.report.build import build_report

    bench = next(b for b in build_report([out]).benchmarks if b.name == "rinobench")
    assert [r.path.name for r in bench.runs] == labels  # the baseline first, as in variants.json
    titles = [t.title for t in bench.comparisons]
    assert "Agreement of the prompt variants' answers (predicted_score)" in titles
    assert "Spread of each metric across the prompt variants" in titles
    agree = next(t for t in bench.comparisons if t.title.startswith("Agreement"))
    assert agree.rows[0][1][0].text == "0.750" and "judge_novelty" in agree.caption


def _no_gold(tmp: Path) -> Path:
    items = json.loads(SAMPLE.read_text())
    for it in items:
        it.pop("novelty_score")
    path = tmp / "no-gold.json"
    path.write_text(json.dumps(items))
    return path


def test_items_without_gold_are_compared_by_their_answers(tmp_path: Path) -> None:
    out, labels = tmp_path / "out", ["shipped", "a", "b"]
    with FakeOpenAIServer(responder=_respond) as server:
        spec = f"openai-compatible/{MODEL}@{server.base_url}"
        args = ["run", "rinobench", "-i", str(_no_gold(tmp_path)), "-m", spec, "-o", str(out),
                "--prompt-variants", str(_variants(tmp_path))]
        res = _cli(tmp_path, *args, "--json")
        assert res.exit_code == 0, res.output
        first = server.total
        assert first == 1 + 3 * 4
        again = _cli(tmp_path, *args)
        assert again.exit_code == 0, again.output
        assert server.total == first + 2  # resumed: the check and b's unparseable answer (never final)
    for lab in labels:  # nothing to score: predictions only
        assert (out / lab / "predictions.jsonl").is_file()
        assert not (out / lab / "per_item.jsonl").exists() and not (out / lab / "scores.json").exists()
    saved = json.loads((out / "variants.json").read_text())
    assert json.loads(res.stdout)["agreement"] == saved["agreement"]
    # the answers of ANSWERS, by hand: (2,2,2) (3,5,3) (4,4,3) (4,4,unparseable) -> items 1, 2, 3 flip
    g = saved["agreement"]
    assert g["answer"] == "predicted_score" and g["n"] == 4 and g["n_flips"] == 3
    assert g["flip_rate"] == pytest.approx(0.75)
    assert g["pairwise"] == pytest.approx((3 / 4 + 2 / 4 + 1 / 4) / 3)  # shipped-a, shipped-b, a-b
    assert g["modal_share"] == pytest.approx((1 + 2 / 3 + 2 / 3 + 2 / 3) / 4)  # self-consistency across variants
    assert [f["answers"] for f in g["flips"]] == [{"shipped": 3, "a": 5, "b": 3}, {"shipped": 4, "a": 4, "b": 3},
                                                  {"shipped": 4, "a": 4, "b": None}]
    # gold-dependent results are absent, and the note says why
    assert saved["metrics"] == [] and saved["leaderboards"] == [] and saved["spread"] == {}
    assert saved["notes"][0].startswith("no gold scores: the variants' answers are compared from predictions.jsonl")
    assert [r["label"] for r in saved["runs"]] == labels and saved["baseline"] == "shipped"
    assert saved["variants"]["a"]["prompts_changed"] and saved["variants"]["shipped"]["prompts_changed"] == {}
    assert all(v["complete"] for v in saved["variants"].values())  # from each run folder's calls.json
    assert [v["calls"]["requests"] for v in saved["variants"].values()] == [0, 0, 1]  # the last invocation's
    assert "flip rate 0.750" in again.stdout and again.stdout.count("· model calls 0 (0 from the cache, 0 failed)") == 2
    assert again.stdout.count("no metric (no gold)") == 3 and "note: no gold scores" in again.stdout


def test_items_without_gold_failed_calls_exit_3(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeOpenAIServer(responder=_respond, action_for=lambda p: "400" if "VARIANT-B" in p else None) as server:
        spec = f"openai-compatible/{MODEL}@{server.base_url}"
        res = _cli(tmp_path, "run", "rinobench", "-i", str(_no_gold(tmp_path)), "-m", spec, "-o", str(out),
                   "--prompt-variants", str(_variants(tmp_path)), "--free-text")
    assert res.exit_code == 3, res.output
    saved = json.loads((out / "variants.json").read_text())
    assert {k: v["complete"] for k, v in saved["variants"].items()} == {"shipped": True, "a": True, "b": False}
    assert saved["variants"]["b"]["calls"]["failed"] == 4
    assert "b is incomplete (model calls failed)" in " ".join(saved["notes"])
    # b's failed calls are answers of their own ("unparseable"): every item flips against it
    assert saved["agreement"]["n_flips"] == 4


def test_failed_calls_of_one_variant_exit_3(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeOpenAIServer(responder=_respond, action_for=lambda p: "400" if "VARIANT-B" in p else None) as server:
        res = _run(tmp_path, server, out, _variants(tmp_path), "--free-text")
    assert res.exit_code == 3, res.output
    saved = json.loads((out / "variants.json").read_text())
    assert {k: v["complete"] for k, v in saved["variants"].items()} == {"shipped": True, "a": True, "b": False}
    assert saved["variants"]["b"]["calls"]["failed"] == 4
    assert "b is incomplete (model calls failed)" in " ".join(saved["notes"])
    assert "b " in res.stdout and "INCOMPLETE (model calls failed)" in res.stdout
    assert json.loads((out / "b" / "scores.json").read_text())["complete"] is False
    assert json.loads((out / "a" / "scores.json").read_text())["complete"] is True


def test_python_api_one_import_away(tmp_path: Path) -> None:
    import noveval
    from noveval.compare import compare_variants

    with FakeOpenAIServer(responder=_respond) as server:
        spec = f"openai-compatible/{MODEL}@{server.base_url}"
        run = noveval.run("rinobench", spec, tmp_path / "out",
                          options={"prompt_variants": str(_variants(tmp_path)), "limit": 2})
        assert run.group is not None and run.complete
        runs = dict(zip(["shipped", "a", "b"], run.folders, strict=True))
        assert [p.name for p in run.folders] == ["shipped", "a", "b"]
        assert all(json.loads((p / "scores.json").read_text())["complete"] is True for p in runs.values())
        assert (tmp_path / "out" / "variants.json").is_file()  # the run compares its sub-runs
        view = compare_variants(runs)  # out=None: nothing written
        assert view.comparison.agreement is not None
        assert view.comparison.agreement.flip_rate == pytest.approx(0.5)  # item 1 flips in a; items 0 and 1 only
        with pytest.raises(InputError, match="holds a run"):
            noveval.run("rinobench", spec, runs["a"], options={"prompt_variants": str(_variants(tmp_path)), "limit": 2})


def test_two_runs_get_a_spread_too(tmp_path: Path) -> None:
    root = tmp_path / "variants"
    _variant(root, "a", _marked("VARIANT-A"))
    with FakeOpenAIServer(responder=_respond) as server:
        res = _run(tmp_path, server, tmp_path / "out", root)
    assert res.exit_code == 0, res.output
    saved = json.loads((tmp_path / "out" / "variants.json").read_text())
    assert saved["agreement"]["flip_rate"] == pytest.approx(0.25)
    assert saved["spread"]["f1_macro"]["values"].keys() == {"shipped", "a"}
    assert "spread across the runs" in res.stdout
    # the report compares them as the terminal does: the baseline is A, the variant B
    from noveval.report.build import build_report

    bench = next(b for b in build_report([tmp_path / "out"]).benchmarks if b.name == "rinobench")
    assert [r.path.name for r in bench.runs] == ["shipped", "a"]
    pair = bench.comparisons[0]
    assert pair.header[:2] == [r.label for r in bench.runs] and pair.title.endswith(f"{bench.runs[1].label} − "
                                                                                    f"{bench.runs[0].label}")


def test_batch_answers_every_variant_through_the_batch_api(tmp_path: Path) -> None:
    from fake_batches import FakeBatchServer

    out = tmp_path / "out"
    env = {"NOVEVAL_CACHE_DIR": str(tmp_path / "cache"), "NOVEVAL_BATCH_POLL_S": "0.02"}
    with FakeBatchServer(responder=_respond) as server:
        spec = f"openai-compatible/{MODEL}@{server.base_url}"
        res = CliRunner(env=env).invoke(app, ["-q", "run", "rinobench", "-i", str(SAMPLE), "-m", spec, "-o", str(out),
                                              "--prompt-variants", str(_variants(tmp_path)), "--batch"])
        assert res.exit_code == 0, res.output
        assert server.live_chat_calls == 0 and server.batch_creates == 1  # one batch: the 3 x 4 judgments
    batches = json.loads((out / "batches.json").read_text())["batches"]
    assert [b["requests"] for b in batches] == [12]
    saved = json.loads((out / "variants.json").read_text())
    assert saved["agreement"]["flip_rate"] == pytest.approx(0.75)
    assert all(v["complete"] for v in saved["variants"].values())


# ----------------------------------------------------------------------------- the bundled model
@pytest.mark.integration
def test_bundled_model_bundled_variants(tmp_path: Path) -> None:
    """The three shipped variants with the bundled SmolLM2 on two sample ideas; a re-run asks only the unparseable."""
    out = tmp_path / "out"
    args = ["run", "rinobench", "-m", "local", "-n", "2", "--max-tokens", "96", "-o", str(out),
            "--prompt-variants", "bundled", "--allow-failures", "--allow-unparseable"]
    res = _cli(tmp_path, *args)
    assert res.exit_code == 0, res.output
    labels = ["shipped", "checklist", "reviewer", "terse"]
    shas = [json.loads((out / lab / "config.json").read_text())["prompts"]["judge_novelty"] for lab in labels]
    assert len(set(shas)) == 4
    answers = [[r["predicted_score"] for r in _rows(out / lab / "per_item.jsonl")] for lab in labels]
    flips = sum(len({a[i] for a in answers}) > 1 for i in range(2))
    saved = json.loads((out / "variants.json").read_text())
    assert saved["agreement"]["flip_rate"] == pytest.approx(flips / 2)
    reasked = {lab: sum(1 for r in _rows(out / lab / "predictions.jsonl") if r.get("unusable_answers"))
               for lab in labels}
    again = _cli(tmp_path, *args)
    assert again.exit_code == 0, again.output
    # a re-run asks again for the unparseable answers only (never final; the rest from the cache)
    assert {lab: json.loads((out / lab / "calls.json").read_text())["last"]["requests"] for lab in labels} == reasked
