"""Start-up stays light (issue 38 item 6): ``import noveval`` and the CLI's command tree load no
heavy library; each loads on first use (docs/internals.md, "Imports and start-up")."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("torch", "sentence_transformers", "transformers", "xllamacpp", "sklearn", "scipy", "pandas",
         "matplotlib", "datasets", "pyarrow", "rouge_score", "bert_score", "sacrebleu", "ray", "faiss",
         "onnxruntime", "bm25s", "model2vec", "jinja2")
"""Libraries that cost 0.1-6 CPU-s to import (measured in docs/internals.md) or load native code."""


def _loaded(code: str) -> set[str]:
    probe = code + "\nimport sys, json; print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("code", ["import noveval", "import noveval.cli.main"])
def test_start_up_loads_no_heavy_library(code: str) -> None:
    got = _loaded(code)
    assert {"noveval", "pydantic"} <= got  # the probe sees what was imported
    assert sorted(got & set(HEAVY)) == []


def test_the_probe_sees_a_heavy_library_once_it_is_used() -> None:
    """Not vacuous: a metric that needs scipy loads it when called."""
    got = _loaded("from noveval.metrics.correlation import spearman\nspearman([1, 2, 3], [1, 3, 2])")
    assert "scipy" in got
