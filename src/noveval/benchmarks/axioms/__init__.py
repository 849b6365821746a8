"""The axiomatic benchmark of novelty metrics (Liu & Zhai, arXiv 2604.15145).

Nine axiomatic checks over manipulated reference pools (:mod:`.axioms`), the pools and
tasks built from a corpus (:mod:`.pools`), the scoring engine (:mod:`.engine`), the run
(:mod:`.run`), metric combination (:mod:`.combine`) and the CLI extras (:mod:`.cli`).

``run`` and ``score`` are :func:`noveval.run` / :func:`noveval.score` for this system;
importing this package is cheap (the modules load numpy and the metrics on use).
"""

from __future__ import annotations

from noveval.benchmarks._benchmark import About, Benchmark
from noveval.benchmarks._runner import entry_points
from noveval.benchmarks.axioms.options import METRIC_ORDER, AxiomsOptions

BENCHMARK = Benchmark(
    name="axioms",
    title="Novelty-metric axioms",
    summary="How often unsupervised novelty metrics pass each axiomatic check.",
    about=About(
        paper="Liu & Zhai, An Axiomatic Benchmark for Evaluation of Scientific Novelty Metrics (arXiv 2604.15145)",
        task="How often the novelty metrics RND, SemNovel, Yin and FastTextLOF pass nine axiomatic checks over "
             "manipulated reference pools; metric combination.",
        needs=("corpus: JSONL(.gz) with id, title, abstract, year, field, keywords/tags",
               "full texts with reference lists for the citation axioms (Ax5/Ax6)",
               "an embedder (--embedder); a chat model for the Ax2 paraphrases (--model, 'none' skips Ax2)"),
        data=("the paper's pools are not released; the shared corpus ($D/corpus/papers.jsonl.gz) and full texts "
              "($D/fulltext/) stand in, with topic-phrase tasks (docs/axioms.md)",),
        demo=("a shipped synthetic corpus (invented titles and abstracts), 6 focal papers per task",
              "approximate SemNovel (openTSNE transform into per-pool maps instead of a t-SNE refit per variant) "
              "and approximate FastTextLOF (base-pool models reused)",
              "Ax2 paraphrases by the bundled SmolLM2-135M for 2 focal papers per task"),
        examples=("noveval axioms run -o runs/axioms-sample --sample", "noveval axioms combine runs/axioms-sample"),
    ),
    options=AxiomsOptions,
    run="noveval.benchmarks.axioms.contract:run",
    score="noveval.benchmarks.axioms.contract:score",
    data_option="corpus",
    primary_metric="overall Avg pass rate",
    greater_is_better=True,
    demo="noveval.benchmarks.axioms.cli:demo",
    commands="noveval.benchmarks.axioms.cli:app",
    model_help="Chat model for the Ax2 paraphrases ('none' skips Ax2).",
)
"""The axiomatic benchmark's declaration (read by the registry, the CLI, the report, compare and export)."""

run, score = entry_points(BENCHMARK)

__all__ = ["BENCHMARK", "METRIC_ORDER", "AxiomsOptions", "run", "score"]
