"""The axiomatic benchmark of novelty metrics (Liu & Zhai, arXiv 2604.15145).

Nine axiomatic checks over manipulated reference pools (:mod:`.axioms`), the pools and
tasks built from a corpus (:mod:`.pools`), the scoring engine (:mod:`.engine`), the run
(:mod:`.run`), metric combination (:mod:`.combine`) and the CLI (:mod:`.cli`). Importing
this package is cheap; the modules load numpy and the metrics on use.
"""
