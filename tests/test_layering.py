"""The import rule of docs/ARCHITECTURE.md, checked by reading every module's imports with ast.

The layers, each a folder: ``engine`` (the rules and the computer players: the standard
library alone, never asyncio or sqlite3), ``store`` (the database: may add asyncio,
sqlite3, aiosqlite, asyncpg and the engine), ``manager`` (the async game manager: may add
asyncio, the engine and the store), ``render`` (pictures: Pillow and the engine), and the
adapters over them: ``cogs`` (Discord's chat), ``activity`` (the board page), ``runtime``
(the service around the bot) and ``bot.py``. Arrows go one way: bot -> (cogs, activity,
runtime) -> (manager, render) -> (store, engine), manager -> store -> engine. The store
has one face: outside its folder, ``store`` is imported, never a module of it (as
Red-DiscordBot's cogs see ``Config`` and its drivers stay behind it). Only cogs/, runtime/
and bot.py import discord; cogs and activity never import each other. No import cycles
among the shipped modules, counting imports inside functions and under TYPE_CHECKING: a
cycle hidden behind a lazy import is still two modules that cannot be read apart.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STDLIB = set(sys.stdlib_module_names)
ASYNC_ONLY_STDLIB = {"asyncio", "sqlite3"}  # the engine never waits on anything
LAYERS = ("engine", "store", "manager", "render", "cogs", "runtime", "activity")


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


def in_package(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def through_the_face(module: str, imported: str) -> bool:
    """Outside the store, only its face: ``store`` itself, no module of it."""
    return in_package(module, "store") or not in_package(imported, "store") or (
        imported == "store")


def allowed(module: str, imported: str) -> bool:
    first = top(imported)
    if not through_the_face(module, imported):
        return False
    if in_package(module, "engine"):
        return first == "engine" or (first in STDLIB and first not in ASYNC_ONLY_STDLIB)
    if in_package(module, "store"):
        return first in STDLIB or first in {"store", "engine", "aiosqlite", "asyncpg"}
    if in_package(module, "manager"):
        return first in STDLIB or first in {"manager", "store", "engine"}
    if in_package(module, "render"):
        return first in STDLIB or first in {"PIL", "render", "engine"}
    if in_package(module, "cogs"):
        return first not in {"tests", "activity"}
    if module == "bot":
        return first != "tests"
    if in_package(module, "runtime"):
        return first not in {"tests", "cogs", "bot", "activity"}
    if in_package(module, "activity"):
        # an adapter over the manager beside cogs/: no Discord library, no cog, no runtime
        return first not in {"tests", "cogs", "bot", "runtime", "discord"}
    return True


def source_files() -> list[Path]:
    files = [ROOT / "bot.py"]
    for package in LAYERS:
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
    assert not allowed("engine.kids", "manager")
    assert not allowed("engine.kids", "store")
    assert not allowed("engine.kids", "asyncpg")
    assert allowed("manager.step", "asyncio")
    assert allowed("store.postgres", "asyncpg")
    assert allowed("store.gamelog", "aiosqlite")
    assert not allowed("store.gamelog", "manager")
    assert not allowed("runtime.link", "cogs.table")
    assert not allowed("render.board", "discord")
    assert not allowed("render.board", "store")
    assert not allowed("render.board", "manager")
    assert allowed("render.board", "PIL.ImageDraw")
    assert not allowed("cogs.table.posts", "activity.hub")
    assert not allowed("activity.hub", "cogs.table")
    assert not allowed("activity.app", "discord")
    assert not allowed("runtime.commands", "activity")
    assert allowed("activity.hub", "manager")


def test_the_store_is_seen_through_its_face_alone() -> None:
    """The old imports fail: a layer reaching past the store's face into one of its
    modules (a driver, a table's rows), or the engine reaching up into the manager."""
    assert allowed("cogs.table.posts", "store")
    assert not allowed("cogs.table.posts", "store.postgres")
    assert not allowed("manager.sharing.shared_database", "store.shared")
    assert not allowed("runtime.health", "store.connection")
    assert not allowed("bot", "store.backend")
    assert allowed("store.shared", "store.postgres"), "inside the store, any module"


def test_the_engine_holds_no_async_def() -> None:
    """The engine is the rules: nothing in it waits (``async def``), whatever it imports."""
    waiting = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "engine").rglob("*.py"))
               if "async def" in p.read_text(encoding="utf-8")]
    assert waiting == []


def test_the_discord_sides_rows_are_the_discord_sides_alone() -> None:
    """What was posted, the DM doors, the servers' layouts: kept in the store's database,
    read and written by the Discord side only (``cogs/table/posted.py``, ``manners.py``)."""
    rows = ("cogs.table.posted", "cogs.table.manners")
    users = sorted(module_name(p) for p in source_files()
                   if any(i in rows for i in imports_of(p)))
    assert users and all(in_package(u, "cogs") or u == "bot" for u in users), users


# -- the waiting layers ---------------------------------------------------------------------

ASYNC_MODULES = {"asyncio", "aiosqlite", "asyncpg", "sqlite3"}


def test_only_the_store_and_the_manager_use_asyncio_or_sqlite_below_the_adapters() -> None:
    offenders = {
        module_name(p): sorted(i for i in imports_of(p) if top(i) in ASYNC_MODULES)
        for p in source_files()
        if in_package(module_name(p), "engine") or in_package(module_name(p), "render")
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


@pytest.mark.parametrize("where", ["engine", "store", "manager", "render", "cogs"])
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
