"""docs/RULES-MAP.md names a test for every rule sentence: each name must be a real test."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FILES = {"K": "test_kids_rules.py", "D": "test_dice_rules.py", "A": "test_api.py",
         "P": "test_properties.py"}


def test_every_test_named_in_the_rules_map_exists() -> None:
    text = (ROOT / "docs" / "RULES-MAP.md").read_text(encoding="utf-8")
    refs = re.findall(r"\b([KDAP])::(test_\w+)", text)
    assert len(refs) > 60
    defined = {}
    for key, name in FILES.items():
        tree = ast.parse((Path(__file__).parent / name).read_text(encoding="utf-8"))
        defined[key] = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    missing = sorted({f"{k}::{t}" for k, t in refs if t not in defined[k]})
    assert not missing


def test_every_rule_test_is_named_in_the_map() -> None:
    text = (ROOT / "docs" / "RULES-MAP.md").read_text(encoding="utf-8")
    for key in ("K", "D"):
        tree = ast.parse((Path(__file__).parent / FILES[key]).read_text(encoding="utf-8"))
        tests = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)
                 and n.name.startswith("test_")}
        unmapped = sorted(t for t in tests if f"{key}::{t}" not in text)
        assert not unmapped, f"rule tests missing from docs/RULES-MAP.md: {unmapped}"
