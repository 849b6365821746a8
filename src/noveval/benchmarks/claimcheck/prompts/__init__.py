"""Prompt templates of the CLAIMCHECK tasks (our wording of the paper's Appendix D prompts).

``VARIABLES``: what the code provides to each template (see :mod:`noveval.prompts`). Every
template is also given ``related``: the cited related works block (an empty string without
a corpus). The user messages CLAIMCHECK sends end with one newline (as they always have).
"""

_RELATED = {"related": "The cited related works block (it starts with a blank line), or empty."}
_PAPER = {"title": "Paper title.", "context": "The paper paragraphs shown (see --context-chars).", **_RELATED}

VARIABLES: dict[str, dict[str, str]] = {
    "extract": {"title": "Paper title.", "abstract": "Paper abstract.", "chunk": "One chunk of the paper text.",
                **_RELATED},
    "wi": {"title": "Paper title.", "review": "One review's text.", **_RELATED},
    "ca": {**_PAPER, "claims": "Numbered candidate claims.", "groundedness": "The weakness's groundedness 1-5.",
           "weakness": "The reviewer's weakness."},
    "wl": {**_PAPER, "targets": "Numbered target claims.", "weakness": "The reviewer's weakness."},
    "cv_distill": {**_PAPER, "claim": "The focal claim.", "types": "The weakness's types, comma-separated.",
                   "weakness": "The reviewer's weakness."},
    "cv_generate": {**_PAPER, "claim": "The focal claim."},
    "cv_judge": {"claim": "The focal claim.", "weakness_1": "The reviewer's weakness (distilled).",
                 "evidence_1": "Its evidence quotes.", "weakness_2": "The model's weakness.",
                 "evidence_2": "Its evidence quotes.", **_RELATED},
    "wle_rewrite": {**_PAPER, "targets": "Numbered target claims.", "weakness": "The reviewer's weakness."},
    "wle_judge": {"targets": "Numbered target claims.", "a": "Version A.", "b": "Version B.", **_RELATED},
    "wle_paper": {**_PAPER, "review": "The whole review.", "weakness": "The reviewer's weakness.",
                  "targets": "Numbered target claims."},
}
