"""Find SQL built from anything but constants: every ``execute``-like call is read with ``ast``.

A statement may be a string constant, constants joined by ``+``, ``" AND ".join(names)``
where ``names`` only ever holds string constants, or an f-string whose parts are
``int(...)`` or ALL_CAPS constants. Everything else (``%``, ``.format``, an f-string of a
variable, a variable of unknown origin) is reported with its file and line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXECUTE = {"execute", "executemany", "executescript", "execute_fetchall", "execute_insert",
           "_fetchone", "_fetchall", "fetchone", "fetchall",
           # asyncpg's own (the PostgreSQL backend)
           "fetchrow", "fetchval", "fetch"}

#: Functions that only renumber a statement's placeholders (store).
RENUMBERING = {"numbered", "_sql"}


@dataclass(frozen=True)
class Site:
    path: str
    line: int
    source: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.source}"


def _is_constant_name(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id.isupper()
    if isinstance(node, ast.Attribute):
        return node.attr.lstrip("_").isupper()
    return False


class _Checker:
    def __init__(self, tree: ast.Module) -> None:
        self.parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node

    def function_of(self, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                return node
        return None

    def constant_list(self, name: str, scope: ast.AST) -> bool:
        """``name`` in ``scope`` only ever holds string constants."""
        for node in ast.walk(scope):
            if isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    value = node.value
                    if not (isinstance(value, ast.List) and all(
                            isinstance(e, ast.Constant) and isinstance(e.value, str)
                            for e in value.elts)):
                        return False
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == name
                    and node.func.attr in ("append", "insert", "extend")
                    and not all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                for a in node.args[-1:])):
                return False
        return True

    def safe(self, node: ast.expr, at: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.safe(node.left, at) and self.safe(node.right, at)
        if isinstance(node, ast.JoinedStr):
            for part in node.values:
                if isinstance(part, ast.FormattedValue):
                    v = part.value
                    if not (_is_constant_name(v) or (
                            isinstance(v, ast.Call) and isinstance(v.func, ast.Name)
                            and v.func.id == "int")):
                        return False
            return True
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "join" and isinstance(node.func.value, ast.Constant)
                and len(node.args) == 1 and isinstance(node.args[0], ast.Name)):
            scope = self.function_of(at)
            return scope is not None and self.constant_list(node.args[0].id, scope)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in RENUMBERING and len(node.args) == 1):
            # ``?`` rewritten to ``$1..`` for PostgreSQL: as safe as the statement itself
            return self.safe(node.args[0], at)
        if _is_constant_name(node):
            return True  # a module constant (ALL_CAPS), itself made of constants
        if isinstance(node, ast.Name):
            # a parameter of a wrapper that is itself an execute-like call (checked at its
            # callers), e.g. Store._fetchone(sql, params), also when used from a function
            # nested in it (run on the connection's thread) that does not bind the name
            scope = self.function_of(at)
            while scope is not None:
                if node.id in {a.arg for a in scope.args.args}:
                    return scope.name in EXECUTE
                scope = self.function_of(scope)
            return False
        return _is_constant_name(node)


def unsafe_sql(paths: list[Path] | None = None) -> list[Site]:
    """Every execute-like call whose statement is not built from constants."""
    if paths is None:
        paths = [p for folder in ("engine", "store", "manager", "cogs", "activity", "runtime",
                                  "render", "tools", "bench")
                 for p in (ROOT / folder).rglob("*.py")] + [ROOT / "bot.py"]
    out = []
    for path in sorted(paths):
        source = path.read_text()
        tree = ast.parse(source)
        checker = _Checker(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in EXECUTE and node.args):
                continue
            if not checker.safe(node.args[0], node):
                line = source.splitlines()[node.lineno - 1].strip()
                out.append(Site(str(path.relative_to(ROOT)), node.lineno, line))
    return out
