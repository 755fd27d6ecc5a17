"""The backend is chosen in one place: the store (and the sharing strategy it picks).

A bot on SQLite never loads asyncpg, and nothing outside ``store`` and
``manager.sharing`` imports the PostgreSQL modules or asks which backend runs.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap

from tests.test_layering import ROOT, module_name, source_files

#: Where the choice of backend may be made (and asyncpg imported).
CHOOSERS = ("store", "manager.sharing")


def _run(code: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_importing_the_bot_on_sqlite_loads_no_asyncpg() -> None:
    assert _run("import bot, sys; print('asyncpg' in sys.modules)") == "False"


def test_a_sqlite_bot_set_up_and_playing_loads_no_asyncpg(tmp_path: object) -> None:
    """Past the imports: the store opened, the manager started (its sharing strategy
    picked), a game made and a move played, the budget told how many processes share the
    token: still no asyncpg."""
    out = _run(f"""
        import asyncio, sys
        import bot
        from manager import GameManager, Player
        from store import open_store
        from runtime.budget import GlobalBudget, processes_of

        async def main():
            store = await open_store(None, {str(tmp_path)!r} + "/s.db")
            manager = GameManager(store)
            await manager.start()
            budget = GlobalBudget(50, "http://127.0.0.1:1/api/v10")
            await budget.follow(processes_of(store))
            lobby = await manager.create_lobby("kids", None, Player(100, "Ann"), 1, 10)
            await manager.join(lobby.game_id, Player(200, "Bob"))
            view = await manager.start_game(lobby.game_id, 100)
            mover = view.seats[view.turn].user_id
            legal = manager.observation_for(view.game_id, mover)["legal"]
            await manager.submit(view.game_id, mover, legal[0])
            await budget.close()
            await manager.close()
            await store.close()
            print('asyncpg' in sys.modules)

        asyncio.run(main())
    """)
    assert out == "False"


def test_only_the_store_and_the_sharing_strategies_know_the_backends() -> None:
    """No module elsewhere imports asyncpg or the PostgreSQL store modules, or reads
    ``.backend`` to branch on it."""
    found = []
    for path in source_files():
        name = module_name(path)
        if name.startswith(CHOOSERS):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            imported = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                        [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for target in imported:
                if target.split(".")[0] == "asyncpg" or target.endswith(
                        ("store.postgres", "store.shared", "sharing.shared_database")):
                    found.append(f"{name}: imports {target}")
            if isinstance(node, ast.Attribute) and node.attr == "backend":
                found.append(f"{name}:{node.lineno}: reads .backend")
    assert found == []
