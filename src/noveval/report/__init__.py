"""``noveval report``: run directories -> one self-contained HTML page.

``write_report(run_dirs, out)`` loads each run (config.json, scores.json,
predictions/judgments/per_item JSONL), groups runs by benchmark and renders, per
benchmark, a headline table (runs side by side, means with 95% CIs), the paper-shaped
tables, figures (inline PNG), the paired comparison and where two runs disagree, a
table of every item (search, filter, sort, details on click) and the run configuration.
Benchmarks the report does not know get the generic table and the item table.
"""

from __future__ import annotations

from noveval.report.render import write_report

__all__ = ["write_report"]
