"""The import rule of docs/ARCHITECTURE.md, checked by reading every module's imports with ast.

bot.py -> cogs -> (engine.manager, render) -> engine core. The engine core imports only
the standard library; engine's async ring (manager, store) may add asyncio and aiosqlite;
render may add Pillow and the engine; only cogs/ and bot.py import discord.
"""

from __future__ import annotations

import ast
import sys
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


def allowed(module: str, imported: str) -> bool:
    first = top(imported)
    if module.startswith("engine"):
        in_ring = module.startswith(ASYNC_RING)
        if first == "engine":
            # The core never reaches up into the async ring.
            return in_ring or not imported.startswith(ASYNC_RING)
        if first in STDLIB:
            return in_ring or first not in ASYNC_ONLY_STDLIB
        return in_ring and first == "aiosqlite"
    if module.startswith("render"):
        return first in STDLIB or first in {"PIL", "render"} or (
            first == "engine" and not imported.startswith(ASYNC_RING)
        )
    if module.startswith("cogs") or module == "bot":
        return first != "tests"
    return True


def source_files() -> list[Path]:
    files = [ROOT / "bot.py"]
    for package in ("engine", "render", "cogs"):
        files.extend(sorted((ROOT / package).rglob("*.py")))
    return [f for f in files if f.exists()]


@pytest.mark.parametrize("path", source_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_module_imports_follow_the_layering(path: Path) -> None:
    module = module_name(path)
    wrong = sorted(name for name in imports_of(path) if not allowed(module, name))
    assert not wrong, f"{module} may not import {wrong} (see docs/ARCHITECTURE.md)"


def test_only_cogs_and_bot_import_discord() -> None:
    offenders = [
        str(p.relative_to(ROOT))
        for p in source_files()
        if not (module_name(p).startswith("cogs") or module_name(p) == "bot")
        and any(top(i) == "discord" for i in imports_of(p))
    ]
    assert not offenders


def test_the_rule_catches_a_core_module_importing_pil(tmp_path: Path) -> None:
    # The checker itself must be able to fail.
    assert not allowed("engine.kids", "PIL.Image")
    assert not allowed("engine.kids", "asyncio")
    assert not allowed("engine.kids", "engine.manager")
    assert allowed("engine.manager", "asyncio")
    assert allowed("engine.manager.store", "aiosqlite")
    assert not allowed("render.board", "discord")
    assert not allowed("render.board", "engine.manager.store")
    assert allowed("render.board", "PIL.ImageDraw")
