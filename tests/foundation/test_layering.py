"""No module imports a module of a higher layer (issue 15: the layering rule, enforced).

Layers, bottom to top (docs/internals.md):

0. pure: ``errors, io, store, records, scores, corpus, metrics/, novelty/, prompts, progress, settings, ...``
1. model backends and run folders: ``models/``, ``runs`` (a run folder records the call ledger)
2. shared pieces systems build on: the corpus index ``index/`` and ``judging/`` (novelty
   judging shared by rinobench, validate, novelty-pairs and check: rubric, judgment schema,
   request, parser, the judged item and its loader)
3. systems: ``benchmarks/``, ``check/``, ``data/`` (fetching and converting the datasets the systems
   declare) and ``compare/`` (comparing runs item by item; a run of
   prompt variants compares its sub-runs), with ``yardstick_text`` (the wording of yardsticks
   every view shares, the comparison's terminal view the lowest)
4. presentation: ``report/``, ``export``, ``cli/``, every ``*.cli`` and ``*.views``
   module (a system's command-line glue and report views live beside it but belong to the
   presentation layer), and the public API in ``noveval/__init__``, ``api`` and ``plugin``.

Every import counts, also the lazy ones inside functions: a lazy import is still a
dependency. A module may import its own layer or lower ones.
"""

from __future__ import annotations

import ast
from pathlib import Path

import noveval

PKG = Path(noveval.__file__).parent

LAYERS: dict[str, int] = {
    "_version": 0, "errors": 0, "settings": 0, "quiet": 0, "progress": 0, "io": 0, "hfdata": 0,
    "records": 0, "corpus": 0, "metrics": 0, "novelty": 0, "prompts": 0, "samples": 0, "scores": 0,
    "registry": 0, "options": 0, "labels": 0, "store": 0, "plan": 1, "yardstick_text": 3,
    "models": 1, "runs": 1,
    "index": 2, "judging": 2,
    "benchmarks": 3, "check": 3, "compare": 3, "data": 3,
    "report": 4, "export": 4, "cli": 4, "api": 4, "plugin": 4, "": 4,
}
TOP = 4


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> int:
    """Layer of a ``noveval...`` module name (KeyError for a top-level name not in LAYERS)."""
    parts = module.split(".")
    if parts[-1] in ("cli", "views") and len(parts) > 2:
        return TOP
    return LAYERS[parts[1] if len(parts) > 1 else ""]


def _imports(path: Path, module: str | None = None) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    me = (module or _module_name(path)).split(".")
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = me if path.name == "__init__.py" else me[:-1]
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.append((node.lineno, mod))
    return [(ln, m) for ln, m in out if m == "noveval" or m.startswith("noveval.")]


def test_every_top_level_module_has_a_layer() -> None:
    names = {p.stem if p.is_file() else p.name for p in PKG.iterdir()
             if (p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists()))}
    names.discard("__init__")
    assert names - set(LAYERS) == set(), "give every new top-level module a layer in this test"


def test_no_module_imports_a_higher_layer() -> None:
    bad = []
    for path in sorted(PKG.rglob("*.py")):
        mod = _module_name(path)
        mine = layer_of(mod)
        for line, target in _imports(path):
            if layer_of(target) > mine:
                bad.append(f"{path.relative_to(PKG.parent)}:{line}: {mod} (layer {mine}) imports {target} "
                           f"(layer {layer_of(target)})")
    assert bad == []


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    """The walk is not vacuous: lazy and relative upward imports are found and ranked."""
    f = tmp_path / "m.py"
    f.write_text("import os\n\ndef f():\n    from noveval.benchmarks import rinobench\n    from ..models import cache\n")
    got = _imports(f, "noveval.metrics.m")
    assert got == [(4, "noveval.benchmarks"), (5, "noveval.models")]
    assert [layer_of(m) for _, m in got] == [3, 1] and layer_of("noveval.metrics.m") == 0
    assert layer_of("noveval.benchmarks.rinobench.cli") == TOP and layer_of("noveval.index.cli") == TOP
    assert layer_of("noveval.runs") == 1 and layer_of("noveval") == TOP


SHARED_JUDGING_USERS = ("benchmarks/validate", "benchmarks/pairs", "check")
RINOBENCH = "noveval.benchmarks.rinobench"


def _rinobench_imports(paths: list[Path], module: str | None = None) -> list[str]:
    return [f"{p.name}:{line}: {t}" for p in paths for line, t in _imports(p, module)
            if t == RINOBENCH or t.startswith(RINOBENCH + ".")]


def test_validate_pairs_and_check_never_import_rinobench() -> None:
    """They share RINoBench's rubric, schema, request and parser through ``noveval.judging`` (issue 38)."""
    paths = [p for d in SHARED_JUDGING_USERS for p in sorted((PKG / d).rglob("*.py"))]
    assert {p.relative_to(PKG).parts[-2] for p in paths} >= {"validate", "pairs", "check"}
    assert _rinobench_imports(paths) == []


def test_the_rinobench_walk_sees_an_import(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text("def f():\n    from noveval.benchmarks.rinobench.parse import parse_judgment\n"
                 "    from ..rinobench import data\n")
    assert _rinobench_imports([f], "noveval.benchmarks.pairs.m") == [
        "m.py:2: noveval.benchmarks.rinobench.parse", "m.py:3: noveval.benchmarks.rinobench"]
