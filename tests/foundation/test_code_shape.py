"""The shape of the code (issue 26): short functions, and no two modules that import each other.

Every function in ``src/noveval`` fits in 80 lines (docstring included): a longer one is split
into named stages. No two modules import each other, directly or through a longer ring, lazy
imports inside functions included: an import cycle means two modules are one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import noveval

PKG = Path(noveval.__file__).parent
MAX_LINES = 80


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PKG.rglob("*.py")):
        parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def long_functions(paths: list[Path], limit: int = MAX_LINES) -> list[str]:
    """``file:line name (n lines)`` for every function longer than ``limit`` lines."""
    bad = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                if n > limit:
                    bad.append(f"{path}:{node.lineno} {node.name} ({n} lines)")
    return bad


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the noveval modules it imports (every import statement, lazy ones too)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        me = name.split(".")
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            found: list[str] = []
            if isinstance(node, ast.Import):
                found = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    pkg = me if path.name == "__init__.py" else me[:-1]
                    base = ".".join(pkg[: len(pkg) - (node.level - 1)] + ([node.module] if node.module else []))
                found = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for t in found:
                while t and t not in modules:
                    t = t.rpartition(".")[0]
                if t and t != name and not name.startswith(t + "."):  # a package's own __init__ is not a cycle
                    targets.add(t)
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    import sys

    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_function_is_longer_than_80_lines() -> None:
    assert long_functions(list(_modules().values())) == []


def test_no_two_modules_import_each_other() -> None:
    assert cycles(import_graph(_modules())) == []


def test_the_checks_see_what_they_look_for(tmp_path: Path) -> None:
    """Not vacuous: a long function and a two-module ring are found."""
    long = tmp_path / "long.py"
    long.write_text("def f():\n" + "    x = 1\n" * 85)
    assert len(long_functions([long])) == 1 and not long_functions([long], limit=90)
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
