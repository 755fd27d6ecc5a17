"""Fixtures every test folder may use: a throwaway PostgreSQL server for the session.

The server is started by the tests themselves (``tools/pg_server.py``): nothing runs
before ``make test``. Outside CI a machine without PostgreSQL skips the PostgreSQL runs,
saying why; under ``CI=true`` a missing PostgreSQL fails them, so CI can never pass
without having run them.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import AsyncIterator, Iterator

import pytest

from tools.pg_server import PostgresServer, find_bindir

_databases = itertools.count(1)

#: The longest tests (``make test`` prints them: ``--durations``), started first. The
#: parallel run hands each worker a block of the collection in order and lets idle workers
#: steal from the ends of the others' blocks; collected last, these held one worker busy
#: alone for the run's last minute while the other cores idled.
LONGEST_FIRST = ("tests/test_bench.py", "tests/manager/test_races.py",
                 "tests/community/test_pace_e2e.py", "tests/reliability/",
                 "tests/e2e/test_rest_proxy.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: not item.nodeid.startswith(LONGEST_FIRST))  # (stable)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL server for the whole run, on a free 127.0.0.1 port, removed at the end."""
    bindir = find_bindir()
    if bindir is None:
        why = ("PostgreSQL is not installed (no initdb/pg_ctl via pg_config or "
               "/usr/lib/postgresql/*/bin)")
        if os.environ.get("CI") == "true":
            pytest.fail(f"{why}: under CI=true the PostgreSQL tests must run")
        pytest.skip(f"{why}: the PostgreSQL runs are skipped (CI=true makes this a failure)")
    server = PostgresServer(bindir, durable=False).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pausable_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server of the test's own, which it may stop and start again
    (``pause``/``resume``: a database outage) without touching the session's server."""
    bindir = find_bindir()
    if bindir is None:
        if os.environ.get("CI") == "true":
            pytest.fail("PostgreSQL is not installed: under CI=true the outage tests must run")
        pytest.skip("PostgreSQL is not installed: the outage tests are skipped")
    server = PostgresServer(bindir, durable=False).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def postgres_url(postgres_server: PostgresServer) -> AsyncIterator[str]:
    """A fresh, empty database of its own for one test: its URL."""
    import asyncpg

    name = f"test_{os.getpid()}_{next(_databases)}"
    admin = await asyncpg.connect(postgres_server.url())
    try:
        # A copy of the template's files: a quarter of the default's time (WAL_LOG writes
        # every block of it to the WAL: 166 against 40 ms here, for each of the hundreds of
        # PostgreSQL tests); with fsync off its checkpoints cost little.
        copy = " STRATEGY FILE_COPY" if admin.get_server_version().major >= 15 else ""
        await admin.execute(f'CREATE DATABASE "{name}"{copy}')
    finally:
        await admin.close()
    yield postgres_server.url(name)
    admin = await asyncpg.connect(postgres_server.url())
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()
