"""Every shipped module, and every module of the fake Discord (tests/fakediscord/), is short
enough to read in one sitting: no class over 400 lines, no module over 500, and ``bot.py``
(the composition root only) at most 250."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from tests.test_layering import ROOT, fake_discord_files, source_files

MAX_CLASS = 400
MAX_MODULE = 500
MAX_BOT = 250


def too_long(paths: Iterable[Path]) -> list[str]:
    """Each module over ``MAX_MODULE`` lines and each class over ``MAX_CLASS``."""
    found = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > MAX_MODULE:
            found.append(f"{path.name}: {lines} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                length = node.end_lineno - node.lineno + 1
                if length > MAX_CLASS:
                    found.append(f"{path.name} {node.name}: {length} lines")
    return found


def test_no_class_is_over_400_lines_and_no_module_over_500() -> None:
    assert too_long(source_files()) == []


def test_no_class_of_the_fake_discord_is_over_400_lines_and_no_module_over_500() -> None:
    assert too_long(fake_discord_files()) == []


def test_bot_py_is_the_composition_root_only() -> None:
    assert len((ROOT / "bot.py").read_text(encoding="utf-8").splitlines()) <= MAX_BOT


def test_the_size_check_sees_a_long_class_and_a_long_module(tmp_path: Path) -> None:
    long_class = tmp_path / "one.py"
    long_class.write_text("class Long:\n" + "".join(f"    x{i} = {i}\n" for i in range(400)))
    long_module = tmp_path / "two.py"
    long_module.write_text("".join(f"x{i} = {i}\n" for i in range(501)))
    assert too_long([long_class, long_module]) == ["one.py Long: 401 lines",
                                                    "two.py: 501 lines"]
