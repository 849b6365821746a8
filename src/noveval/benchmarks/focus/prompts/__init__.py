"""Prompt templates of the focus-level review evaluation (our wording of Figures 9-12, A.1.1).

``VARIABLES``: what the code provides to each template (see :mod:`noveval.prompts`).
The user messages focus sends end with one newline (as they always have).
"""

_POINT = {"point": "The strength or weakness point (or meta-review sentence) to label."}

VARIABLES: dict[str, dict[str, str]] = {
    "target_strength": _POINT,
    "target_weakness": _POINT,
    "aspect_strength": _POINT,
    "aspect_weakness": _POINT,
    "polarity": _POINT,
    "review": {"title": "Paper title.", "paper": "The paper text shown (abstract or truncated full text)."},
    "expert_extract": {"meta_review": "The area chair's meta-review."},
    "expert_augment": {"reviews": "The individual reviews, '[Review i]' blocks.",
                       "structured": "Step 1's structured meta-review."},
    "expert_paraphrase": {"review": "Step 2's augmented review."},
}
