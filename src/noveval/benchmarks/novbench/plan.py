"""NovBench's planned work (``noveval eval --plan``): one generation per record, then the metrics.

The records are the run's (``--limit``), each prompt built by the run's own
:func:`~noveval.benchmarks.novbench.generate.build_messages` (few-shot examples chosen as the
run chooses them). Scoring calls no chat model: it embeds the novelty sentences, the gold
evaluation's points and the generated points (counted as many as the gold's: the answers
are not known yet), and loads the perplexity LM of the Fluency Score (Eq. 6; the bundled
SmolLM2-135M unless ``ppl_model``), whatever model is evaluated.
"""

from __future__ import annotations

from noveval.benchmarks.novbench.options import NovBenchOptions
from noveval.plan import PlannedCall, SystemPlan, capped, not_estimated, prompt_tokens

__all__ = ["plan"]


def plan(options: NovBenchOptions) -> SystemPlan:
    """The run's requests (one per record) and its scoring's embedding and local models, no model call."""
    from noveval.benchmarks.novbench.data import load_records, records_source
    from noveval.benchmarks.novbench.generate import build_messages, few_shot_examples
    from noveval.benchmarks.novbench.scoring import _gold_items

    o = options
    all_records = load_records(records_source(o.data))
    records = all_records[: o.limit] if o.limit else all_records
    if o.prompting == "rag" and any(not r.retrieved for r in records):
        return not_estimated("novbench", "RAG retrieval from a corpus is not planned")
    cap = capped(o.generation(), o.max_tokens)
    calls, texts = [], 0
    for r in records:
        exs = few_shot_examples(all_records, r, seed=o.seed) if o.prompting == "few-shot" else []
        msgs = build_messages(r, o.prompting, examples=exs, references=r.retrieved if o.prompting == "rag" else ())
        calls.append(PlannedCall("model", prompt_tokens(msgs), cap))
        gold = len(_gold_items(r, "drop"))
        texts += len(r.paper_novelty) + 2 * gold
    models = []
    if o.score:
        models = [f"{o.embedder} (MiniLM: Relevance, Coverage)", "SmolLM2-135M perplexity LM (NovBench's Fluency "
                  "Score, Eq. 6; loaded whatever model is evaluated, ~0.5 GB in the cache)"]
    notes = ["embedding: the generated points counted as many as the gold evaluation's (not known before the answers)"]
    return SystemPlan("novbench", items=len(records), calls=calls, embed_texts=texts if o.score else 0,
                      embedder=o.embedder if o.score else None, local_models=models, notes=notes)
