"""Move a bot from its SQLite file to PostgreSQL: every game, result and setting, checked.

    python -m tools.sqlite_to_postgres data/sequence.sqlite3 postgresql://bot@host:5432/seq

Stop the bot first. The SQLite file is opened as the bot opens it (so an older file is
first upgraded to the newest schema); the PostgreSQL database is migrated and must hold
no games, results or settings yet: the copy refuses a non-empty target rather than mix two
bots' data. Everything is copied in one transaction (all or nothing): games with their
seats, action logs and snapshots, results, server settings and layout settings. Then the
games' id sequence is moved past the highest copied id, and the row count of every table
is compared on both sides. Afterwards start the bot with ``DATABASE_URL`` set.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

from store import Row, Store, StoreError, Tx, redacted

log = logging.getLogger(__name__)

# Parents before children (seats, actions and results point at games).
TABLES = ("games", "seats", "actions", "results", "guild_settings", "guild_table_manners",
          "bot_state")


class CopyRefused(StoreError):
    """The target is not an empty bot database, or the copy did not check out."""


async def counts(store: Store) -> dict[str, int]:
    found: dict[str, int] = {}
    for table in TABLES:
        row = await store.database.fetchone(f"SELECT COUNT(*) FROM {table}")
        found[table] = int(row[0]) if row else 0
    return found


async def copy(sqlite_path: str | Path, database_url: str) -> dict[str, int]:
    """Copy everything; return the row count of each table (the same on both sides)."""
    path = Path(sqlite_path)
    if not path.is_file():
        raise CopyRefused(f"no SQLite database at {path}")
    source = await Store.open(path)
    try:
        target = await Store.connect(database_url)
        try:
            return await _copy(source, target)
        finally:
            await target.close()
    finally:
        await source.close()


async def _copy(source: Store, target: Store) -> dict[str, int]:
    already = {t: n for t, n in (await counts(target)).items() if n}
    if already:
        raise CopyRefused(
            f"the database at {redacted(str(target.database))} is not empty ("
            + ", ".join(f"{t}: {n} rows" for t, n in already.items())
            + "): copy only into a new, empty database")
    # The target's columns (its migrations are the SQLite ones' twins) and which are BOOLEAN:
    # SQLite keeps flags as 1/0, PostgreSQL wants True/False.
    described = await target.database.fetchall(
        "SELECT table_name, column_name, data_type FROM information_schema.columns"
        " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position")
    columns: dict[str, list[str]] = {}
    flags: dict[str, set[str]] = {}
    for table, column, kind in described:
        columns.setdefault(table, []).append(column)
        if kind == "boolean":
            flags.setdefault(table, set()).add(column)

    data: dict[str, list[Row]] = {}
    for table in TABLES:
        names = ", ".join(columns[table])
        data[table] = await source.database.fetchall(f"SELECT {names} FROM {table}")

    def converted(table: str, rows: list[Row]) -> list[tuple[Any, ...]]:
        which = [c in flags.get(table, set()) for c in columns[table]]
        return [tuple(bool(v) if flag and v is not None else v
                      for v, flag in zip(row, which, strict=True)) for row in rows]

    async def work(tx: Tx) -> None:
        for table in TABLES:
            names = columns[table]
            await tx.executemany(
                f"INSERT INTO {table} ({', '.join(names)})"
                f" VALUES ({', '.join('?' for _ in names)})", converted(table, data[table]))
        # New games go on from the highest copied id, as SQLite's AUTOINCREMENT would.
        await tx.execute(
            "SELECT setval(pg_get_serial_sequence('games', 'id'),"
            " COALESCE(MAX(id), 1), MAX(id) IS NOT NULL) FROM games")

    await target.database.write(work)
    copied, kept = await counts(target), await counts(source)
    if copied != kept:
        raise CopyRefused(f"the copy does not check out: SQLite has {kept}, "
                          f"PostgreSQL has {copied}")
    return copied


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING)
    parser = argparse.ArgumentParser(
        prog="python -m tools.sqlite_to_postgres",
        description="Copy the bot's SQLite database into an empty PostgreSQL database.")
    parser.add_argument("sqlite_path", help="the bot's SQLite file (DATABASE_PATH)")
    parser.add_argument("database_url", help="postgresql://user@host:port/dbname")
    args = parser.parse_args(argv)
    try:
        copied = asyncio.run(copy(args.sqlite_path, args.database_url))
    except StoreError as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 1
    for table, n in copied.items():
        print(f"{table:20s} {n:8d} rows copied and counted")
    print(f"done: start the bot with DATABASE_URL={redacted(args.database_url)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
