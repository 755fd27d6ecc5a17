"""Back up the bot's SQLite database while it runs, and put a backup back.

    python -m tools.backup DEST            a copy of the live database in the file DEST
    python -m tools.backup --restore SRC   the copy SRC becomes the database (bot stopped)

The database is the bot's own (``DATABASE_PATH`` from the environment or ``.env``, by
default ``data/sequence.db``). It runs in WAL mode, so recent moves may still be in
``sequence.db-wal``: copying ``sequence.db`` alone can miss them or catch a page half
written. SQLite's online backup API copies what a reader sees at one moment, the WAL
included, without stopping the bot (WAL readers do not block its writes). The copy is one
self-contained file (journal mode DELETE, no -wal beside it), checked with
``PRAGMA integrity_check``, and written under a temporary name first, so DEST is either the
whole copy or absent.

A restore checks the backup the same way, refuses while the bot has the database open
(stop it first: ``systemctl stop sequence-bot``), keeps the database it replaces as
``<database>.before-restore``, and writes the copy in through SQLite, so a leftover -wal
cannot mix old pages into it. On the next start the bot's migrations bring an older copy
up to date. PostgreSQL has its own tool (``pg_dump``; see docs/ADMIN.md).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sqlite3
import sys
from pathlib import Path

from runtime.settings import Settings

log = logging.getLogger("sequence.backup")


class BackupError(Exception):
    """Why a backup or a restore was refused; the message says what to do."""


def _open_existing(path: Path, what: str) -> sqlite3.Connection:
    """A connection to a database that must already exist (never creates one)."""
    if not path.is_file():
        raise BackupError(f"there is no {what} at {path}")
    return sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=10)


def check(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a file that is not a whole, sound SQLite database."""
    try:
        result = [row[0] for row in db.execute("PRAGMA integrity_check")]
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{path} is not a usable SQLite database ({exc})") from exc
    if result != ["ok"]:
        raise BackupError(f"{path} fails SQLite's integrity check: {'; '.join(result[:5])}")


def backup(source: Path, dest: Path, *, force: bool = False) -> None:
    """A consistent copy of the database ``source`` (live or not) in the file ``dest``."""
    if dest.exists() and not force:
        raise BackupError(f"{dest} already exists: choose another name, or --force to "
                          "overwrite it")
    src = _open_existing(source, "database")
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".partial")
    partial.unlink(missing_ok=True)
    # owner-only, like the database itself: it holds every game and every player's id
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
    try:
        with contextlib.closing(src), contextlib.closing(sqlite3.connect(partial)) as copy:
            src.backup(copy)  # every page in one step: one moment's database
            copy.execute("PRAGMA journal_mode = DELETE")  # one file, nothing beside it
            check(copy, dest)
        os.replace(partial, dest)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def in_use(path: Path) -> bool:
    """True while another connection (the running bot) has the database open."""
    db = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=0.2)
    try:
        db.execute("PRAGMA locking_mode = EXCLUSIVE")
        db.execute("BEGIN EXCLUSIVE")
        db.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError:
        return True
    finally:
        db.close()


def restore(source: Path, target: Path) -> Path | None:
    """Make the backup ``source`` the database ``target``. The database it replaced is kept
    beside it (its path is returned), so a restore can be undone the same way."""
    with contextlib.closing(_open_existing(source, "backup")) as src:
        check(src, source)
    kept = None
    if target.exists():
        if in_use(target):
            raise BackupError(f"{target} is open (is the bot running?): stop the bot first, "
                              "then restore")
        kept = target.with_name(target.name + ".before-restore")
        backup(target, kept, force=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.closing(sqlite3.connect(source)) as src, \
            contextlib.closing(sqlite3.connect(target)) as db:
        src.backup(db)
        check(db, target)
    with contextlib.suppress(OSError):
        target.chmod(0o600)
    return kept


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(format="%(levelname)s: %(message)s", level=logging.INFO)
    parser = argparse.ArgumentParser(
        prog="python -m tools.backup",
        description="Back up the bot's SQLite database (safe while it runs) or restore one.")
    parser.add_argument("dest", nargs="?", type=Path, help="the backup file to write")
    parser.add_argument("--restore", metavar="SRC", type=Path,
                        help="make the backup SRC the database (stop the bot first)")
    parser.add_argument("--force", action="store_true", help="overwrite DEST if it exists")
    args = parser.parse_args(argv)
    if (args.dest is None) == (args.restore is None):
        parser.error("give either DEST (to back up) or --restore SRC")
    with contextlib.suppress(ImportError):
        from dotenv import load_dotenv

        load_dotenv()
    database = Settings.database_path_from(os.environ)
    try:
        if args.restore is not None:
            kept = restore(args.restore, database)
            log.info("restored %s from %s%s", database, args.restore,
                     f" (the database it replaced is kept as {kept})" if kept else "")
        else:
            backup(database, args.dest, force=args.force)
            log.info("backed up %s to %s", database, args.dest)
    except BackupError as exc:
        log.error("%s", exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
