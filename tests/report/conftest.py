"""Hand-written run directories in the shapes each benchmark writes (no models needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

LONG_OUTPUT = "The idea combines retrieval with contrastive decoding. " * 40  # > 700 chars: "show more"


def _m(mean: float, lo: float | None = None, hi: float | None = None, n: int = 3) -> dict:
    return {"mean": mean, "ci_low": mean - 0.1 if lo is None else lo, "ci_high": mean + 0.1 if hi is None else hi, "n": n}


def _write(d: Path, config: dict, scores: dict, predictions=(), judgments=(), per_item=()) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    (d / "config.json").write_text(json.dumps(config))
    (d / "scores.json").write_text(json.dumps(scores))
    for name, rows in (("predictions", predictions), ("judgments", judgments), ("per_item", per_item)):
        if rows:
            (d / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return d


def rinobench_run(root: Path, model: str = "local/tiny", f1: float = 0.42) -> Path:
    cm = {str(g): {**{str(p): int(g == p) for p in range(1, 6)}, "unparseable": 0} for g in range(1, 6)}
    scores = {
        "benchmark": "rinobench", "model": model, "primary_metric": "f1_macro", "greater_is_better": True,
        "metrics": {"f1_macro": _m(f1), "mean_absolute_error": _m(0.8), "mean_alignment": _m(0.55),
                    "mean_known_aspects_recall": _m(0.3), "unparseable_rate": _m(0.0)},
        "extra": {"confusion_matrix": cm,
                  "predicted_score_distribution": {"1": 0, "2": 1, "3": 2, "4": 2, "5": 0, "unparseable": 0},
                  "gold_score_distribution": {"1": 1, "2": 1, "3": 1, "4": 1, "5": 1, "unparseable": 0}},
    }
    preds = [{"id": "idea-1", "novelty_score": 3, "reasoning": LONG_OUTPUT, "raw": '{"novelty_score": 3}', "cached": False,
              "idea": "Use retrieval to ground LLM novelty judgments."},
             {"id": "idea-2", "novelty_score": 4, "reasoning": "Clearly new <script>alert(1)</script>", "raw": "{}", "cached": True,
              "idea": "A second idea."}]
    judg = [{"id": "idea-1", "metrics": {"alignment": 1.0}, "steps": [{"step": "alignment", "raw": ["ALIGNED: yes"]}]}]
    per = [{"id": "idea-1", "gold_score": 3, "predicted_score": 3, "correct": 1.0, "alignment": 1.0},
           {"id": "idea-2", "gold_score": 2, "predicted_score": 4, "correct": 0.0, "alignment": 0.0}]
    cfg = {"benchmark": "rinobench", "model": model, "judge": model, "prompts": {"judge_novelty": "885090b7bdf4"},
           "noveval_version": "0.1.0", "created": "2026-01-01T00:00:00+00:00"}
    return _write(root / f"rinobench-{model.split('/')[-1]}", cfg, scores, preds, judg, per)


def focus_run(root: Path) -> Path:
    targets = ["problem", "method", "experiment", "paper"]
    aspects = ["novelty", "clarity", "soundness"]
    dist_h = {"strength/target": [0.4, 0.3, 0.2, 0.1], "weakness/target": [0.1, 0.2, 0.5, 0.2],
              "strength/aspect": [0.5, 0.3, 0.2], "weakness/aspect": [0.2, 0.3, 0.5]}
    dist_m = {"strength/target": [0.2, 0.5, 0.2, 0.1], "weakness/target": [0.3, 0.3, 0.2, 0.2],
              "strength/aspect": [0.3, 0.4, 0.3], "weakness/aspect": [0.1, 0.6, 0.3]}
    kl = {"strength/target": 0.21, "weakness/target": 0.35, "strength/aspect": 0.12, "weakness/aspect": 0.18}
    kl["mean"] = sum(kl.values()) / 4
    scores = {"benchmark": "focus", "model": "local/tiny", "primary_metric": "f1_overall", "greater_is_better": True,
              "metrics": {"f1_overall": _m(0.31), "f1_strength": _m(0.4), "f1_weakness": _m(0.22), "kl_mean": _m(kl["mean"])},
              "extra": {"facets": {"target": targets, "aspect": aspects},
                        "distributions": {"human": dist_h, "model": dist_m}, "kl": kl}}
    preds = [{"paper_id": "paper-A", "review": "Strength: the method is novel. Weakness: experiments are small."}]
    judg = [{"paper_id": "paper-A", "source": "model", "polarity": "strength", "target": "method", "aspect": "novelty",
             "text": "the method is novel"},
            {"paper_id": "paper-A", "source": "human", "polarity": "weakness", "target": "experiment", "aspect": "soundness",
             "text": "too few baselines"}]
    per = [{"paper_id": "paper-A", "f1_overall": 0.31, "f1_strength": 0.4, "f1_weakness": 0.22}]
    return _write(root / "focus-run", {"benchmark": "focus", "model": "local/tiny"}, scores, preds, judg, per)


def axioms_run(root: Path) -> Path:
    cols = ["Ax1", "Ax2", "Ax3grad", "Avg"]
    overall = {"Yin": {"Ax1": 80.0, "Ax2": 50.0, "Ax3grad": None, "Avg": 65.0},
               "RND": {"Ax1": 60.0, "Ax2": 70.0, "Ax3grad": 40.0, "Avg": 56.7}}
    tab = {"columns": cols, "by_field": {"cs": overall}, "overall": overall, "tasks": {"t1": "cs"}, "by_task": {}}
    scores = {"benchmark": "axioms", "model": "local", "embedder": "local", "primary_metric": "overall Avg pass rate",
              "greater_is_better": True, "metrics": {"Yin": {"mean": 65.0, "n": 4}, "RND": {"mean": 56.7, "n": 4}},
              "extra": {"table": tab, "timings_s": {"Yin": 0.2}}}
    per = [{"id": "t1:p1", "task": "t1", "field": "cs", "checks": {"Yin": {"Ax1": True}}}]
    return _write(root / "axioms", {}, scores, per_item=per)


def unknown_run(root: Path) -> Path:
    scores = {"benchmark": "mystery", "model": "openai/x", "metrics": {"accuracy": _m(0.7)}, "primary_metric": "accuracy"}
    per = [{"id": "q1", "accuracy": 1.0, "output": "forty-two"}]
    return _write(root / "mystery", {"benchmark": "mystery"}, scores, per_item=per)


@pytest.fixture
def hand_runs(tmp_path: Path) -> list[Path]:
    """Five run directories: two RINoBench models, focus, axioms and an unknown benchmark."""
    root = tmp_path / "runs"
    return [rinobench_run(root, "local/tiny", 0.42), rinobench_run(root, "openai/big", 0.61),
            focus_run(root), axioms_run(root), unknown_run(root)]


@pytest.fixture
def rinobench_stand_in():
    """A RINoBench declaration whose ``run`` writes :func:`rinobench_run`'s finished folder (no model call), with a demo hook.

    Its demo (``noveval demo``) is one :class:`~noveval.benchmarks.DemoRun` into ``rinobench-tiny``,
    run through the runner like any demo run.
    """
    from dataclasses import replace

    from noveval.benchmarks import BENCHMARKS, DemoRun

    def run(model: object, out: Path, options: object) -> Path:
        return rinobench_run(Path(out).parent)  # <out's parent>/rinobench-tiny

    def demo(**_: object) -> list[DemoRun]:
        return [DemoRun("rinobench-tiny", {"limit": 1})]

    return replace(BENCHMARKS["rinobench"], run=run, demo=demo)


@pytest.fixture
def make_rinobench_run():
    """The RINoBench run-directory writer, ``(root, model, f1) -> Path``."""
    return rinobench_run


_WORDS = ("retrieval contrastive decoding graph sparse attention diffusion prior benchmark curriculum adapter "
          "distillation calibration uncertainty tokenizer pruning routing memory planner verifier").split()


def big_rinobench_run(root: Path, name: str, model: str, n: int, flip: frozenset[int], price_of: str | None = None) -> Path:
    """A scored RINoBench run folder of ``n`` invented items, written by noveval's own code.

    The gold file (``test.json`` format) and the predictions are invented; ``flip`` holds the
    item positions whose predicted score this run moves by one from the shared base answer
    (two runs with different ``flip`` sets disagree exactly there). Scores, per-item rows and
    ``evaluation.json`` come from RINoBench's scorer (:func:`~noveval.benchmarks.rinobench.scoring.ascore`,
    200 bootstrap resamples), the folder from :class:`~noveval.runs.RunDir`; ``price_of`` books
    the tokens at that model's shipped price into ``scores.json`` ``cost`` (:class:`~noveval.models.costs.CostBook`).
    Item ``k`` with ``k % 97 == 5`` mentions "photonic" in its reasoning (a search target).
    """
    import random

    from noveval.benchmarks.rinobench.data import Prediction, load_items
    from noveval.benchmarks.rinobench.scoring import ascore
    from noveval.io import write_json
    from noveval.models.client import run_async
    from noveval.models.costs import CostBook, load_prices
    from noveval.runs import RunDir

    rng = random.Random(7)  # the same items and base answers for every run
    gold_file = root / "gold-test.json"
    records = []
    preds = []
    for k in range(n):
        words = [rng.choice(_WORDS) for _ in range(12)]
        gold = rng.randint(1, 5)
        base = gold if rng.random() < 0.45 else rng.randint(1, 5)
        answer = None if k % 151 == 0 else base  # an unparseable answer now and then
        if k in flip:
            answer = (answer or 3) % 5 + 1
        reasoning = (f"Item {k}: the idea applies {' '.join(words[:6])} to {' '.join(words[6:])}. "
                     + ("It relies on photonic hardware. " if k % 97 == 5 else "")
                     + "Prior work covers parts of it; the combination is the contribution. " * 4)
        records.append({"id": f"idea-{k:04d}", "source": f"https://openreview.net/forum?id=x{k}",
                        "venueid": "ICLR.cc/2024/Conference",
                        "research_idea": {"objective": f"Make {words[0]} {words[1]} cheaper.",
                                          "problem_statement": f"{words[2]} is slow on {words[3]}.",
                                          "solution_approach": f"Combine {words[4]} with {words[5]}."},
                        "novelty_score": gold, "novelty_reasoning": f"Gold reasoning {k}.", "related_works": []})
        raw = json.dumps({"reasoning": reasoning, "novelty_score": answer})
        preds.append({"id": f"idea-{k:04d}", "reasoning": reasoning, "novelty_score": answer,
                      "parse_status": "ok" if answer is not None else "no_score", "parse_method": "json" if answer else None,
                      "raw": raw if answer is not None else "I cannot decide.", "error": None, "finish_reason": "stop",
                      "cached": False})
    if not gold_file.exists():
        write_json(gold_file, records)
    items = load_items(gold_file)
    cfg = {"benchmark": "rinobench", "items": str(gold_file), "n_items": n, "model": model, "judge": None,
           "prompts": {"judge_novelty": "885090b7bdf4"}, "protocol": "noveval",
           "params": {"prompt": "judge_novelty", "structured": True, "max_tokens": 1024, "temperature": 0.0, "seed": 0},
           "f1_labels": "fixed"}
    rd = RunDir.create(root / name, cfg, overwrite=True)
    rd.write("predictions", preds)
    scores = run_async(ascore(items, [Prediction.model_validate(p) for p in preds], run=rd, model=model,
                              n_resamples=200, progress=None))
    if price_of is not None:
        book = CostBook()
        book.add(price_of, load_prices().lookup(price_of), prompt_tokens=900 * n, completion_tokens=180 * n, requests=n)
        scores["cost"] = {**book.to_json(), "this_invocation_usd": book.usd}
        rd.write_scores(scores)
    return rd.path


@pytest.fixture
def make_big_rinobench_run():
    """The many-item RINoBench run writer, :func:`big_rinobench_run`."""
    return big_rinobench_run
