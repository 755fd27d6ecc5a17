"""The import rule of docs/ARCHITECTURE.md, checked by reading every module's imports with ast.

bot.py -> (cogs, runtime); cogs -> (engine.manager, render) -> engine core; runtime (the
service around the adapter: settings, logs, the link to Discord) imports no cog. The
engine core imports only the standard library; engine's async ring (``engine.manager``
and its subpackages: the manager and its owners, the store) alone may add asyncio,
sqlite3, aiosqlite and asyncpg; render may add Pillow and the engine; only cogs/, runtime/
and bot.py import discord. No import cycles among the shipped modules, counting imports
inside functions and under TYPE_CHECKING: a cycle hidden behind a lazy import is still
two modules that cannot be read apart.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STDLIB = set(sys.stdlib_module_names)
# The async ring of the engine: these modules (and packages) may use asyncio/aiosqlite.
ASYNC_RING = ("engine.manager",)
ASYNC_ONLY_STDLIB = {"asyncio", "sqlite3"}


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
                found.add(target)
            elif node.module:
                found.add(node.module)
    return found


def top(name: str) -> str:
    return name.split(".")[0]


def in_async_ring(name: str) -> bool:
    return any(name == ring or name.startswith(ring + ".") for ring in ASYNC_RING)


def allowed(module: str, imported: str) -> bool:
    first = top(imported)
    if module.startswith("engine"):
        in_ring = in_async_ring(module)
        if first == "engine":
            # The core never reaches up into the async ring.
            return in_ring or not in_async_ring(imported)
        if first in STDLIB:
            return in_ring or first not in ASYNC_ONLY_STDLIB
        return in_ring and first in {"aiosqlite", "asyncpg"}
    if module.startswith("render"):
        return first in STDLIB or first in {"PIL", "render"} or (
            first == "engine" and not in_async_ring(imported)
        )
    if module.startswith("cogs") or module == "bot":
        return first != "tests"
    if module.startswith("runtime"):
        return first not in {"tests", "cogs", "bot"}
    return True


def source_files() -> list[Path]:
    files = [ROOT / "bot.py"]
    for package in ("engine", "render", "cogs", "runtime"):
        files.extend(sorted((ROOT / package).rglob("*.py")))
    return [f for f in files if f.exists()]


@pytest.mark.parametrize("path", source_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_module_imports_follow_the_layering(path: Path) -> None:
    module = module_name(path)
    wrong = sorted(name for name in imports_of(path) if not allowed(module, name))
    assert not wrong, f"{module} may not import {wrong} (see docs/ARCHITECTURE.md)"


def test_only_cogs_runtime_and_bot_import_discord() -> None:
    offenders = [
        str(p.relative_to(ROOT))
        for p in source_files()
        if not (module_name(p).startswith(("cogs", "runtime")) or module_name(p) == "bot")
        and any(top(i) == "discord" for i in imports_of(p))
    ]
    assert not offenders


def test_the_rule_catches_a_core_module_importing_pil(tmp_path: Path) -> None:
    # The checker itself must be able to fail.
    assert not allowed("engine.kids", "PIL.Image")
    assert not allowed("engine.kids", "asyncio")
    assert not allowed("engine.kids", "engine.manager")
    assert allowed("engine.manager", "asyncio")
    assert not allowed("runtime.link", "cogs.table")
    assert allowed("engine.manager.store", "aiosqlite")
    assert allowed("engine.manager.store.postgres", "asyncpg")
    assert not allowed("engine.kids", "asyncpg")
    assert not allowed("render.board", "discord")
    assert not allowed("render.board", "engine.manager.store")
    assert allowed("render.board", "PIL.ImageDraw")
    assert not allowed("engine.managerial", "asyncio")


# -- the async ring -------------------------------------------------------------------------

ASYNC_MODULES = {"asyncio", "aiosqlite", "asyncpg", "sqlite3"}


def test_only_the_manager_ring_of_the_engine_uses_asyncio_or_sqlite() -> None:
    offenders = {
        module_name(p): sorted(i for i in imports_of(p) if top(i) in ASYNC_MODULES)
        for p in source_files()
        if module_name(p).startswith("engine") and not in_async_ring(module_name(p))
    }
    assert {m: found for m, found in offenders.items() if found} == {}


# -- no import cycles -----------------------------------------------------------------------


def shipped_modules() -> dict[str, Path]:
    return {module_name(p): p for p in source_files()}


def fake_discord_files() -> list[Path]:
    """The fake Discord's modules (tests/fakediscord/, its own tests included): held to the
    same sizes and the same no-cycle rule as shipped code, being read as often."""
    return sorted((ROOT / "tests" / "fakediscord").rglob("*.py"))


def edges_of(path: Path, known: Iterable[str]) -> set[str]:
    """The shipped modules ``path`` imports, wherever the import sits (top level, inside a
    function, under TYPE_CHECKING). ``from package import module`` is an edge to the
    module; ``from module import name`` an edge to the module."""
    modules = set(known)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join([*package[: len(package) - node.level + 1],
                                 *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in modules else base)
    return {f for f in found if f in modules}


def import_cycles(modules: dict[str, Path] | None = None) -> list[list[str]]:
    """Every strongly connected group of two or more ``modules`` (the shipped ones by
    default; or one importing itself), each sorted, by Tarjan's algorithm."""
    modules = shipped_modules() if modules is None else modules
    graph = {m: edges_of(p, modules) for m, p in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph[node]:
                cycles.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(cycles)


def area(module: str) -> str:
    return "cogs" if module == "bot" else top(module)


@pytest.mark.parametrize("where", ["engine", "render", "cogs"])
def test_no_import_cycles(where: str) -> None:
    found = [c for c in import_cycles() if area(c[0]) == where]
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_fake_discord_has_no_import_cycles() -> None:
    found = import_cycles({module_name(p): p for p in fake_discord_files()})
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_cycle_finder_sees_lazy_and_type_checking_imports(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    pkg = tmp_path / "engine"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from . import b\n")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    from .a import f\n")
    (pkg / "c.py").write_text("from . import a\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert import_cycles() == [["engine.a", "engine.b"]]


# -- the Discord buttons stand alone ---------------------------------------------------------


def test_the_table_buttons_import_nothing_else_of_the_table() -> None:
    path = ROOT / "cogs" / "table" / "buttons.py"
    table = [i for i in imports_of(path) if i == "cogs.table" or i.startswith("cogs.table.")]
    wrong = sorted(i for i in table if i != "cogs.table.buttons")
    assert not wrong, f"cogs.table.buttons imports {wrong}: it must stand alone"
