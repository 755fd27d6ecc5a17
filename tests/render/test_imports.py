"""The picture modules form no import cycle, not even one hidden behind a function-level or
``TYPE_CHECKING`` import: every import statement in the file counts (see
``tests/test_layering.imports_of``, which walks the whole syntax tree)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_layering import ROOT, module_name


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The render modules ``path`` imports anywhere in the file; ``from . import palette``
    names ``render.palette`` (a submodule), not the package."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            subs = {f"{target}.{alias.name}" for alias in node.names}
            found.update(subs & modules or {target})
    return found & modules


def _render_graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in sorted((ROOT / "render").rglob("*.py"))}
    return {name: _imports(path, set(modules)) - {name} for name, path in modules.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle in ``graph`` as a path of module names, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_picture_modules_import_each_other_without_a_cycle() -> None:
    assert _cycle(_render_graph()) is None, " -> ".join(_cycle(_render_graph()) or [])


def test_the_cycle_check_sees_a_cycle_behind_a_lazy_import(tmp_path: Path) -> None:
    # The check itself must be able to fail: a lazy import closing a loop counts.
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
