"""Prompt templates of NovBench (own wording; structure after Appendices A-E).

``VARIABLES``: what the code provides to each template (see :mod:`noveval.prompts`).
The user messages NovBench sends end with one newline (as they always have).
"""

SENTENCE = {"sentence": "The sentence to classify or rewrite."}

VARIABLES: dict[str, dict[str, str]] = {
    "desc_zero_shot": SENTENCE,
    "desc_few_shot": SENTENCE,
    "desc_context": {**SENTENCE, "context": "List of the surrounding sentences (up to two either side)."},
    "desc_step1": SENTENCE,
    "desc_step2": {**SENTENCE, "main_idea": "Step 1's 'Main idea' answer.",
                   "refers_to": "Step 1's 'Refers to' answer."},
    "eval_zero_shot": SENTENCE,
    "eval_rag": {**SENTENCE, "examples": "List of the most similar labelled novelty sentences."},
    "generate_zero_shot": {"sentences": "List of the paper's novelty-description sentences."},
    "generate_few_shot": {"sentences": "List of the paper's novelty-description sentences.",
                          "examples": "List of worked examples, each with .sentences (list) and .output (text)."},
    "generate_rag": {"sentences": "List of the paper's novelty-description sentences.",
                     "references": "List of retrieved (title, abstract) pairs."},
    "paper_type": {"title": "Paper title.", "abstract": "Paper abstract."},
    "perturb_paraphrase": SENTENCE,
    "structure": {"comments": "List of the reviewers' novelty comments (whitespace collapsed)."},
}
