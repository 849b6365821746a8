"""parse_paraphrase on replies shaped like the ones small chat models give."""

from noveval.benchmarks.axioms.paraphrase import parse_paraphrase


def test_labelled_reply():
    assert parse_paraphrase("Title: A new map\n\nAbstract: We build maps.\nThey are fast.") == (
        "A new map", "We build maps. They are fast.")


def test_echoed_title_then_labels_markdown_and_empty_label_lines():
    reply = "RUAGO: old title\n\n**Title:** RUAGO: new title\n\n**Abstract:**\n\nFirst part.\n\nSecond part."
    assert parse_paraphrase(reply) == ("RUAGO: new title", "First part. Second part.")


def test_title_on_the_line_after_its_label_and_no_abstract_label():
    assert parse_paraphrase("Title:\nFast SLAM\nWe map rooms quickly.", fallback_title="x") == (
        "Fast SLAM", "We map rooms quickly.")


def test_unlabelled_two_parts_and_one_paragraph():
    assert parse_paraphrase("Fast SLAM\nWe map rooms.") == ("Fast SLAM", "We map rooms.")
    assert parse_paraphrase("We map rooms quickly.", fallback_title="Orig") == ("Orig", "We map rooms quickly.")


def test_nothing_usable():
    assert parse_paraphrase("  \n ") is None
    assert parse_paraphrase("Title: only a title") is None


def test_word_abstract_in_prose_is_not_a_label():
    out = parse_paraphrase("Better plans\nAbstract reasoning helps planners. We show it.")
    assert out == ("Better plans", "Abstract reasoning helps planners. We show it.")


def test_usable_rejects_stubs_and_loops_keeps_real_rewrites():
    from noveval.benchmarks.axioms.paraphrase import usable

    original = " ".join(f"w{i}" for i in range(100))  # 100 words
    assert not usable(original, "Too short.")  # 2 < 40 words
    looping = "we propose a new method " * 20  # 100 words, 5 distinct
    assert not usable(original, looping)
    rewrite = " ".join(f"v{i % 60}" for i in range(90))  # 90 words, 60 distinct (0.67)
    assert usable(original, rewrite)
    assert usable("a b c d e", "x y z")  # short texts: only the length rule (3 >= 2)
