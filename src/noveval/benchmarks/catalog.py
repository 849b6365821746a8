"""What each registered benchmark is, needs and reads: the text behind ``noveval benchmarks``.

One entry per name in :data:`noveval.benchmarks.REGISTRY` (a test holds the two
together); the commands themselves are read from the registered CLI modules, so the
listing never names a command that does not exist. Nothing here imports a benchmark's
heavy code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["About", "CATALOG", "about"]


@dataclass(frozen=True)
class About:
    """A benchmark as a user meets it.

    Attributes:
        title: Short name.
        paper: The paper it implements (authors, title, where).
        task: What is evaluated, in one sentence.
        needs: Inputs: files with their fields, and models.
        data: Where the published data come from and how to pass them.
        demo: What ``noveval demo`` runs for it, and which approximations are on.
        examples: Commands that work as written (``$D`` = the data folder).
    """

    title: str
    paper: str
    task: str
    needs: tuple[str, ...]
    data: tuple[str, ...]
    demo: tuple[str, ...] = ()
    examples: tuple[str, ...] = field(default_factory=tuple)


RINOBENCH_GOLD_URL = "https://github.com/TimSchopf/RINoBench (data/final_benchmark_dataset/test.json)"
RINOBENCH_HF = "https://huggingface.co/datasets/TimSchopf/RINoBench"

CATALOG: dict[str, About] = {
    "chat": About(
        title="chat",
        paper="none: a plain prompts-to-replies task that exercises the model layer",
        task="Generate a reply for every prompt; optional exact-match accuracy against a reference.",
        needs=("prompts file: JSONL or JSON list of {id, prompt | messages[, system, reference]}",
               "a chat model (--model)"),
        data=("your own prompts",),
        examples=("noveval run chat -i prompts.jsonl -o runs/chat -m local",
                  "noveval score chat runs/chat -i prompts.jsonl"),
    ),
    "novbench": About(
        title="NovBench",
        paper="Wu et al., NovBench: Evaluating Large Language Models on Academic Paper Novelty Assessment",
        task="Generate structured (positive / neutral / negative) novelty evaluations of papers from their "
             "novelty descriptions; Relevance, Correctness (DistAcc), Coverage, Clarity against reviewers' "
             "novelty comments, with a Human row; plus the extraction and structuring stages.",
        needs=("records: JSON/JSONL with id, title, abstract, paper_novelty, review_novelty, output_format "
               "(the released coling2020.json / EMNLP layout); RAG needs retrieved_title/retrieved_abstract "
               "or --corpus",
               "a chat model (--model); an embedder (--embedder, default the bundled MiniLM); a causal LM for "
               "the Fluency Score (--ppl-model, default the bundled SmolLM2)"),
        data=("released with the paper: github.com/njust-winchy/llm4novelty (coling2020.json, the EMNLP 2023 "
              "sample, the labelled sentence files); here under $D/novbench/",),
        demo=("2 of 4 invented records, zero-shot and RAG prompting, 256 answer tokens",
              "Fluency Score perplexity from the bundled SmolLM2-135M (the paper used distilgpt2)"),
        examples=("noveval run novbench --data $D/novbench/coling2020.json --prompting zero-shot -o runs/nb-zs",
                  "noveval score novbench runs/nb-zs --data $D/novbench/coling2020.json"),
    ),
    "rinobench": About(
        title="RINoBench",
        paper="Schopf & Färber, Is this Idea Novel? An Automated Benchmark for Judgment of Research Ideas "
              "(LREC 2026, arXiv 2603.10303)",
        task="Judge a research idea's novelty 1-5 on a rubric with a justification; per-class and macro F1, "
             "MAE, and with --judge the LLM-judged justification metrics (alignment, recall, additional "
             "ratio, hallucination rate).",
        needs=("items: the published test.json format: research_idea{problem_statement, objective, "
               "solution_approach}, related_works[{title, abstract}], novelty_score 1-5 and novelty_reasoning "
               "(gold; needed for scores)",
               "predictions to score: the published [{reasoning, novelty_score}] JSON list (in test.json "
               "order) or noveval's predictions.jsonl; novelty_score must be an integer 1-5 or null",
               "a chat model (--model) for run; a judge model (--judge) for the justification metrics"),
        data=(f"gold test set: public dataset, {RINOBENCH_GOLD_URL}, also {RINOBENCH_HF}; download test.json "
              "and pass it with --items (run) or --gold (score)",
              "published predictions of 7 models and the rubric: the same repository "
              "(data/novelty_predictions/, label_descriptions.json); here under $D/rinobench/"),
        demo=("2 of 4 invented ideas, 256 answer tokens; the same bundled model is the judge",
              "judge capped for time: at most 3 arguments per justification and kind, 3 related works "
              "(600-character abstracts), 256-token judge replies (the paper: all arguments)"),
        examples=("noveval run rinobench --items test.json -o runs/rino -m SPEC",
                  "noveval score rinobench $D/rinobench/predictions/"
                  "novelty_predictions-o3-2025-04-16.json --gold test.json -o runs/rino-o3"),
    ),
    "focus": About(
        title="Focus-level review evaluation",
        paper="Shin et al., Mind the Blind Spots: A Focus-Level Evaluation Framework for LLM Reviews",
        task="Generate reviews, annotate every strength/weakness point with a target and an aspect, and "
             "compare the model's focus distributions with the experts' (KL, facet F1, ROUGE-L/BLEU/BERTScore).",
        needs=("papers with reviews: JSONL(.gz) with id, title, abstract (or fulltext_markdown), reviews[] "
               "with sections strengths/weaknesses, meta_review (the NeurIPS OpenReview layout)",
               "a chat model (--model) and an annotator model (--annotator, default --model)"),
        data=("the paper's own dataset is not public; NeurIPS 2023-2025 OpenReview reviews are: "
              "$D/reviews/neurips-2024.jsonl.gz here",),
        demo=("2 of 3 invented papers, 1 human review each, 300-token reviews; the same bundled model annotates",),
        examples=("noveval run focus -p $D/reviews/neurips-2024.jsonl.gz --limit 5 -o runs/focus",
                  "noveval score focus runs/focus"),
    ),
    "claimcheck": About(
        title="CLAIMCHECK",
        paper="CLAIMCHECK: How Grounded are LLM Critiques of Scientific Papers? (ACL submission)",
        task="Claim extraction, weakness identification (WI), claim association (CA), weakness labeling (WL), "
             "claim verification (CV) and weakness editing (WLE); span F1, Krippendorff's alpha, win rates.",
        needs=("papers: id, title, abstract, fulltext_markdown, reviews (the NeurIPS full-text layout), or "
               "--data-dir with fulltext/neurips-2025-fulltext.jsonl.gz",
               "annotations (wi/ca/wl/cv/wle): noveval's documented JSONL format (docs/claimcheck.md)",
               "a chat model (--model); a judge (--judge) for cv and wle"),
        data=("the CLAIMCHECK annotations are not public: write them in the documented format; full texts of "
              "400 NeurIPS 2025 papers: $D/fulltext/",),
        demo=("one invented paper, 2 items per task, 1500-character contexts, one 1500-character chunk for "
              "extraction, 160 answer tokens",),
        examples=("noveval run claimcheck --task extract -o runs/cc-extract --data-dir $D --limit 1",
                  "noveval score claimcheck runs/cc-extract"),
    ),
    "axioms": About(
        title="Axiomatic benchmark of novelty metrics",
        paper="Liu & Zhai, An Axiomatic Benchmark for Evaluation of Scientific Novelty Metrics (arXiv 2604.15145)",
        task="How often the novelty metrics RND, SemNovel, Yin and FastTextLOF pass nine axiomatic checks over "
             "manipulated reference pools; metric combination.",
        needs=("corpus: JSONL(.gz) with id, title, abstract, year, field, keywords/tags",
               "full texts with reference lists for the citation axioms (Ax5/Ax6)",
               "an embedder (--embedder); a chat model for the Ax2 paraphrases (--model, 'none' skips Ax2)"),
        data=("the paper's pools are not released; the shared corpus ($D/corpus/papers.jsonl.gz) and full "
              "texts ($D/fulltext/) stand in, with topic-phrase tasks (docs/axioms.md)",),
        demo=("a shipped synthetic corpus (invented titles and abstracts), 6 focal papers per task",
              "approximate SemNovel (openTSNE transform into per-pool maps instead of a t-SNE refit per "
              "variant) and approximate FastTextLOF (base-pool models reused)",
              "Ax2 paraphrases by the bundled SmolLM2-135M for 2 focal papers per task"),
        examples=("noveval axioms run -o runs/axioms-sample --sample",
                  "noveval axioms combine runs/axioms-sample"),
    ),
    "validate": About(
        title="Validity against human originality ratings",
        paper="none: noveval's own study (docs/validate.md); it scores the novelty metrics of Liu & Zhai "
              "and RINoBench-style LLM judges against reviewers' originality scores",
        task="Rank-correlate novelty metrics (Yin, RND, SemNovel, FastTextLOF) and LLM novelty judges with "
             "the mean human originality rating of each paper, next to the leave-one-reviewer-out human ceiling.",
        needs=("papers with rated reviews: JSONL(.gz) with id, title, abstract, year, reviews[].scores.originality "
               "(the NeurIPS 2025 OpenReview layout)",
               "a prior-work corpus: JSONL(.gz) with id, title, abstract, year",
               "an embedder (--embedder, default the bundled MiniLM); a judge model (--model, 'none' skips judges)"),
        data=("$D/reviews/neurips-2025.jsonl.gz (4,474 papers, ~4 originality scores each) and "
              "$D/corpus/papers.jsonl.gz (earlier papers) here; the defaults read them from --data-dir",),
        demo=("a shipped fixture-sized sample; the bundled SmolLM2-135M judges and MiniLM embeds",),
        examples=("noveval validate run -o runs/validity-quick --limit 200 --metric Yin --metric RND -m none "
                  "--field ML",
                  "noveval validate ceiling $D/reviews/neurips-2025.jsonl.gz"),
    ),
    "novelty-pairs": About(
        title="novelty-pairs",
        paper="none: a pairwise task (issue 18) on RINoBench items and NeurIPS 2025 originality scores",
        task="Say which of two research ideas (or papers) is more novel, each pair asked in both orders; "
             "accuracy against the gold (per order and consistent over both), position consistency, "
             "position bias, tie and unparseable rates, 95% bootstrap CIs over pairs.",
        needs=("items: a RINoBench test.json-format file (gold novelty_score 1-5), or "
               "reviews/neurips-2025.jsonl.gz (id, title, abstract, keywords, reviews[].scores.originality 1-4)",
               "a chat model (--model)"),
        data=("the shipped RINoBench sample (default); $D/reviews/neurips-2025.jsonl.gz with --source neurips",),
        examples=("noveval run novelty-pairs -o runs/pairs-sample -m local",
                  "noveval run novelty-pairs --source neurips --data $D/reviews/neurips-2025.jsonl.gz "
                  "--limit 100 -o runs/pairs-neurips -m local",
                  "noveval score novelty-pairs runs/pairs-sample"),
    ),
}


def about(name: str) -> About | None:
    """The catalog entry of a registered benchmark (None for a name it does not know)."""
    return CATALOG.get(name)
