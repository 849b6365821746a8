"""Prompt template of the axioms benchmark: the Ax2 paraphrase (our wording of Appendix A.1).

``VARIABLES``: what the code provides to each template (see :mod:`noveval.prompts`).
"""

VARIABLES: dict[str, dict[str, str]] = {
    "paraphrase": {"title": "The focal paper's title.", "abstract": "The focal paper's abstract."},
}
