"""The deterministic point splitter on reviews written for these tests."""

from noveval.benchmarks.focus.split import split_points, split_review_sections


def test_bullets_with_sub_bullets_and_continuations():
    text = """- The method is simple and works on three benchmarks.
- Some implementation details are missing:
    - how the views are sampled
    - the aggregation function
  which makes the runtime hard to judge.

- The paper reads well."""
    assert split_points(text) == [
        "The method is simple and works on three benchmarks.",
        "Some implementation details are missing: how the views are sampled the aggregation "
        "function which makes the runtime hard to judge.",
        "The paper reads well.",
    ]


def test_numbered_lists_and_tags():
    text = "1. Strong theory with clean proofs.\n2) Extensive experiments on ImageNet.\n(3) Clear writing overall."
    assert split_points(text) == [
        "Strong theory with clean proofs.",
        "Extensive experiments on ImageNet.",
        "Clear writing overall.",
    ]
    tags = "W1: The baselines are outdated.\nW2. No ablation of the loss terms.\n[W3] Missing related work on X."
    assert split_points(tags) == [
        "The baselines are outdated.",
        "No ablation of the loss terms.",
        "Missing related work on X.",
    ]
    # decimals are not list markers
    assert split_points("1.5x speedup is reported on all tasks.") == [
        "1.5x speedup is reported on all tasks."
    ]


def test_headers_with_prose_and_group_headers():
    text = """**Originality**
The idea of coupling A with B is new to me.

## Quality
The proofs look correct and the experiments are careful.

Minor:
- Typo in line 95 of the paper.
- Figure 2 axis labels are too small."""
    assert split_points(text) == [
        "Originality: The idea of coupling A with B is new to me.",
        "Quality: The proofs look correct and the experiments are careful.",
        "Typo in line 95 of the paper.",
        "Figure 2 axis labels are too small.",
    ]


def test_bold_lead_items_and_lead_in_dropped():
    text = """The paper has the following strengths:
**Novel formulation.** Casting X as a game is new.
**Strong results.** It beats all baselines by 3 points."""
    assert split_points(text) == [
        "**Novel formulation.** Casting X as a game is new.",
        "**Strong results.** It beats all baselines by 3 points.",
    ]


def test_unstructured_prose():
    one = "The paper is well written. The experiments are thorough. However, novelty is limited."
    assert split_points(one) == [
        "The paper is well written.",
        "The experiments are thorough.",
        "However, novelty is limited.",
    ]
    two = "The writing is clear and concise throughout.\n\nThe experiments cover five datasets and two modalities."
    assert split_points(two) == [
        "The writing is clear and concise throughout.",
        "The experiments cover five datasets and two modalities.",
    ]


def test_trivial_and_empty():
    assert split_points("") == []
    assert split_points(None) == []
    assert split_points("N/A") == []
    assert split_points("- None.\n- Good paper overall, well done.") == ["Good paper overall, well done."]


def test_split_review_sections():
    review = """Summary: The paper proposes X.
Strengths:
- Novel idea for a hard problem.
**Weaknesses**
- Weak baselines in Table 2.
Questions: none
Strengths of the approach are not relevant here."""
    sec = split_review_sections(review)
    assert sec["summary"] == "The paper proposes X."
    assert split_points(sec["strengths"]) == ["Novel idea for a hard problem."]
    assert sec["weaknesses"].startswith("- Weak baselines")
    assert "Strengths of the approach" in sec["questions"]
