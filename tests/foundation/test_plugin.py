"""A system from a separate package works through every surface with no edit to noveval (issue 26).

The test writes a tiny system package ("toy": answer each item's question with the model,
exact match against the gold) in a temporary folder, installs it into the test
environment as an entry point of the group ``noveval.benchmarks`` (a ``.dist-info`` folder
with ``entry_points.txt`` on ``sys.path``, which is what ``pip install`` leaves), and
drives ``noveval benchmarks``, ``run``, ``score``, ``report``, ``compare``, ``export`` and
``demo`` with it through the CLI, in a subprocess that sees only what is installed. The
bundled model answers for real. The package imports nothing but :mod:`noveval.plugin` (issue 38).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import noveval.plugin
from noveval.plugin import ENTRY_POINT_GROUP

TOY = textwrap.dedent('''
    """A toy system: the model answers each question; exact match against the gold."""

    from __future__ import annotations

    from pathlib import Path
    from typing import Never

    from noveval.plugin import (About, Answer, Benchmark, DemoHook, RunHook, RunOptions, ScoreHook, entry_points,
                                lazy, option)


    class ToyOptions(RunOptions):
        questions: str | Path | None = option(None, "--questions", help="JSONL of {id, question, answer}.")
        max_tokens: int = option(8, ge=1, help="Answer token budget.")


    @lazy
    def _run() -> RunHook[ToyOptions]:
        from toy_noveval.system import run

        return run


    @lazy
    def _score() -> ScoreHook[Never]:  # Never: score takes no options
        from toy_noveval.system import score

        return score


    @lazy
    def _demo() -> DemoHook:
        from toy_noveval.system import demo

        return demo


    BENCHMARK = Benchmark(
        name="toy",
        title="Toy QA",
        summary="A toy system from another package: one-word answers, exact match.",
        about=About(paper="none: a plugin test", task="Answer each question in one word.",
                    needs=("questions: JSONL of {id, question, answer}",), data=("shipped with the plugin",),
                    demo=("two questions",)),
        options=ToyOptions,
        run=_run,
        score=_score,
        data_option="questions",
        paper=False,
        primary_metric="exact_match",
        greater_is_better=True,
        answer=Answer("answer", "nominal", prediction="output"),
        demo=_demo,
    )

    run, score = entry_points(BENCHMARK)
''')

SYSTEM = textwrap.dedent('''
    """The toy system's run, score and demo (noveval's public plugin names only)."""

    from __future__ import annotations

    from pathlib import Path
    from typing import Any

    import toy_noveval
    from noveval.plugin import (ChatRequest, DemoRun, GenerationParams, RunDir, client_of, read_jsonl, run_items,
                                summarize)

    SAMPLE = Path(__file__).parent / "questions.jsonl"


    def run(model: Any, out: Path, options: toy_noveval.ToyOptions) -> Path:
        source = Path(options.questions or SAMPLE)
        items = read_jsonl(source)[: options.limit]
        client = client_of(model, **options.client_kwargs())
        rd = RunDir.create(out, {"benchmark": "toy", "model": client.model_id, "questions": str(source),
                                 "n_items": len(items), "max_tokens": options.max_tokens}, overwrite=options.overwrite)
        params = GenerationParams(max_tokens=options.max_tokens, seed=options.seed)

        async def worker(it: dict[str, Any]) -> dict[str, Any]:
            r = await client.acomplete(ChatRequest(messages=[{"role": "user", "content": it["question"]}],
                                                   params=params))
            return {"output": r.text.strip(), "error": r.error}

        client.run(run_items(rd, "predictions", items, worker, id_of=lambda it: it["id"], client=client))
        score(rd.path)
        return rd.path


    def score(run: Path, options: None = None) -> dict[str, Any]:
        rd = RunDir.open(run)
        gold = {it["id"]: it for it in read_jsonl(rd.config["questions"])}
        preds = rd.done("predictions")
        rows = [{"id": i, "answer": (p.get("output") or "").lower(),
                 "exact_match": float((p.get("output") or "").strip().lower() == gold[i]["answer"].lower())}
                for i, p in preds.items()]
        rd.write("per_item", rows)
        scores = toy_noveval.BENCHMARK.make_scores(rd.config["model"], summarize(rows, ["exact_match"]))
        rd.write_scores(scores)
        return scores


    def demo(*, model: str, embedder: str, real: bool, data_dir: Path | None) -> list[DemoRun]:
        """Two questions (``noveval demo`` runs them through the runner into ``<out>/toy/run``)."""
        return [DemoRun("run", toy_noveval.ToyOptions(limit=2, overwrite=True))]
''')

QUIET = textwrap.dedent('''
    """A second plugin: the toy system under another name, with no demo hook."""

    from dataclasses import replace

    from toy_noveval import BENCHMARK as TOY

    BENCHMARK = replace(TOY, name="quiet", title="Quiet toy", demo=None)
''')


def _install(site: Path) -> None:
    pkg = site / "toy_noveval"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(TOY, encoding="utf-8")
    (pkg / "system.py").write_text(SYSTEM, encoding="utf-8")
    (pkg / "questions.jsonl").write_text(
        "".join(json.dumps(q) + "\n" for q in (
            {"id": "q1", "question": "Reply with the single word yes.", "answer": "yes"},
            {"id": "q2", "question": "What colour is the sky on a clear day? One word.", "answer": "blue"},
            {"id": "q3", "question": "Reply with the single word no.", "answer": "no"},
        )), encoding="utf-8")
    (site / "toy_quiet.py").write_text(QUIET, encoding="utf-8")
    dist = site / "toy_noveval-0.1.dist-info"  # what pip leaves for an installed package
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-noveval\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\ntoy = toy_noveval\nquiet = toy_quiet\n",
                                           encoding="utf-8")


def _cli(site: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "noveval.cli.main", "-q", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900)


@pytest.mark.integration
def test_a_system_from_another_package_works_everywhere(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _install(site)
    listing = _cli(site, "benchmarks", "--json", cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    rows = {r["name"]: r for r in json.loads(listing.stdout)}
    assert rows["toy"]["package"] == "toy_noveval" and rows["toy"]["title"] == "Toy QA"
    assert "rinobench" in rows  # the shipped systems are still there
    help_ = _cli(site, "run", "toy", "--help", cwd=tmp_path)
    assert help_.returncode == 0 and "--questions" in help_.stdout and "--max-tokens" in help_.stdout

    a = _cli(site, "run", "toy", "-o", "runs/a", "-n", "2", "--json", cwd=tmp_path)
    assert a.returncode == 0, a.stderr
    sa = json.loads(a.stdout)
    assert sa["benchmark"] == "toy" and sa["complete"] is True and sa["metrics"]["exact_match"]["n"] == 2
    b = _cli(site, "run", "toy", "-o", "runs/b", "-n", "2", "--max-tokens", "4", cwd=tmp_path)
    assert b.returncode == 0, b.stderr
    bad = _cli(site, "run", "toy", "-o", "runs/c", "--max-tokens", "0", cwd=tmp_path)
    assert bad.returncode == 2 and "--max-tokens" in bad.stderr and not (tmp_path / "runs/c").exists()

    rescored = _cli(site, "score", "toy", "runs/a", "--json", cwd=tmp_path)
    assert rescored.returncode == 0, rescored.stderr
    assert json.loads(rescored.stdout)["metrics"]["exact_match"] == sa["metrics"]["exact_match"]

    compared = _cli(site, "compare", "runs/a", "runs/b", cwd=tmp_path)
    assert compared.returncode == 0, compared.stderr
    assert "exact_match" in compared.stdout

    exported = _cli(site, "export", "runs/a", "runs/b", "-o", "results.csv", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert (tmp_path / "results.csv").read_text().count("toy") >= 4  # one row per item and run

    report = _cli(site, "report", "runs/a", "runs/b", "-o", "report.html", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    html = (tmp_path / "report.html").read_text()
    assert "Toy QA" in html and "does not know" not in html

    demo = _cli(site, "demo", "--only", "toy", "-o", "demo", cwd=tmp_path)
    assert demo.returncode == 0, demo.stderr
    assert "  toy " in demo.stdout and "no benchmark demos" not in demo.stderr, demo.stdout + demo.stderr
    marked = json.loads((tmp_path / "demo" / "toy" / "run" / "scores.json").read_text())
    assert marked["demo"]["benchmark"] == "toy" and marked["complete"] is True
    assert "Toy QA" in (tmp_path / "demo" / "report.html").read_text()
    # a plugin with no demo hook: --only names it, exit 2, nothing written (not "no demos are installed")
    quiet = _cli(site, "demo", "--only", "quiet", "-o", "demo-quiet", cwd=tmp_path)
    assert quiet.returncode == 2 and "quiet: no demo" in quiet.stderr and "toy" in quiet.stderr, quiet.stderr
    assert not (tmp_path / "demo-quiet").exists()


def test_the_plugin_and_the_docs_recipe_import_only_noveval_plugin() -> None:
    """A plugin needs no private name: the toy package and docs/internals.md's recipe import ``noveval.plugin`` alone."""
    imported = re.compile(r"^\s*(?:from|import)\s+(noveval[\w.]*)", re.M)
    docs = (Path(__file__).parents[2] / "docs" / "internals.md").read_text(encoding="utf-8")
    recipe = docs.split("## How to add a system", 1)[1].split("\n## ", 1)[0]
    for source in (TOY, SYSTEM, recipe):
        assert set(imported.findall(source)) == {"noveval.plugin"}, source[:80]
    lists = re.findall(r"from noveval\.plugin import (\([^)]*\)|[^\n]*)", TOY + SYSTEM + recipe)
    names = {n.strip() for got in lists for n in got.strip("()").split(",")} - {""}
    assert {"Benchmark", "entry_points", "client_of", "RunDir", "run_items", "summarize"} <= names
    assert names <= set(noveval.plugin.__all__), names - set(noveval.plugin.__all__)
