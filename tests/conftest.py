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
from typing import TypeVar

import pytest

from tools.pg_server import TEMPLATES_ENV, PostgresServer, find_bindir, shared_templates

_databases = itertools.count(1)
T = TypeVar("T")

#: The longest tests (``make test`` prints them: ``--durations``), heaviest first. The
#: parallel run (``--dist worksteal``) hands each worker one contiguous block of the
#: collection and lets an idle worker steal from the end of another's block. So these are
#: dealt out like cards, each block its share. (All put first, they
#: all fell into the first worker's block, which then ran them one after the other while
#: the other workers finished early: the run's last half minute had idle cores.)
LONGEST_FIRST = ("tests/test_bench.py", "tests/manager/test_races.py",
                 "tests/community/test_pace_e2e.py", "tests/reliability/",
                 "tests/e2e/test_rest_proxy.py")


#: Among them the heaviest, heaviest first (about 15-35 s each), so that no two land in
#: one block while another has none.
HEAVIEST = ("[activity]", "[budget]", "test_races.py::test_200_games", "[e2e]",
            "test_kill_restart.py::test_games_survive", "test_pace_e2e.py::test_four",
            "[load]", "test_database_outage.py", "test_commit_cut.py", "[sharing]")


def _weight(item: pytest.Item) -> int:
    """Where ``item`` goes among the longest: the heaviest first, in order."""
    return next((n for n, part in enumerate(HEAVIEST) if part in item.nodeid),
                len(HEAVIEST))


# Last: the blocks must be cut from the tests that will run. Called before pytest's own
# deselection (``-m "not slow"`` drops 12), every block boundary moved, and the third-
# heaviest test (test_races' 200 games on PostgreSQL, 19 s) fell to the end of a block,
# where it ran alone as the run's last 19 s.
@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    long = sorted((i for i in items if i.nodeid.startswith(LONGEST_FIRST)), key=_weight)
    items[:] = dealt(long, [i for i in items if not i.nodeid.startswith(LONGEST_FIRST)],
                     workers)


def dealt(long: list[T], rest: list[T], workers: int) -> list[T]:
    """``long`` and ``rest``, arranged so that each of ``workers`` blocks (as
    pytest-xdist's work stealing cuts them: the first gets ``n // workers``, the next a
    ``1 / (workers - 1)`` of the rest, and so on) holds every ``workers``-th of ``long``,
    the first of them first. Every worker collects the same order (xdist checks)."""
    if workers <= 1:
        return [*long, *rest]
    out: list[T] = []
    spare: list[T] = []  # (only if ``long`` outgrew the blocks)
    left = len(long) + len(rest)
    others = iter(rest)
    for block in range(workers):
        size = left // (workers - block)
        share, spare = long[block::workers][:size], spare + long[block::workers][size:]
        fill = list(itertools.islice(others, size - len(share)))
        # spread over the block's first three quarters: a long test mostly waits (on bot
        # processes, a browser, a PostgreSQL it stops), so each worker waits while the
        # others compute, and the block ends with quick tests for stealing
        gap = (len(fill) * 3 // 4) // max(1, len(share))
        for n, test in enumerate(share):
            out += [test, *fill[n * gap:(n + 1) * gap]]
        out += fill[len(share) * gap:]
        left -= size
    return out + spare + list(others)


def pytest_configure(config: pytest.Config) -> None:
    """The run's PostgreSQL servers (the workers', their benches', the tests' own) all copy
    one cluster, made once (``tools.pg_server.shared_templates``): set up in the process
    that starts the workers, before it starts them, so they and theirs inherit it."""
    if not hasattr(config, "workerinput") and TEMPLATES_ENV not in os.environ:
        held = shared_templates()
        held.__enter__()
        config.add_cleanup(lambda: held.__exit__(None, None, None))


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
