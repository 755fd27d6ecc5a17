"""The throwaway PostgreSQL servers of a test run share one untouched cluster: made once,
by whichever process asks first, and never seen half made by another."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_layering import ROOT
from tools.pg_server import TEMPLATES_ENV, find_bindir, shared_templates

#: a process that starts a server from the run's cluster, asks it a question, stops it
START_ONE = """
import asyncio, asyncpg, sys
from tools.pg_server import PostgresServer, find_bindir
server = PostgresServer(find_bindir(), durable=False).start()
try:
    async def ask():
        conn = await asyncpg.connect(server.url())
        try:
            return await conn.fetchval("SELECT 40 + 2")
        finally:
            await conn.close()
    print(asyncio.run(ask()), server.template())
finally:
    server.stop()
"""


@pytest.fixture
def bindir() -> Path:
    found = find_bindir()
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("PostgreSQL is not installed: under CI=true its tests must run")
        pytest.skip("PostgreSQL is not installed")
    return found


def test_processes_starting_servers_at_once_make_the_runs_cluster_once(bindir: Path) -> None:
    with shared_templates() as root:
        env = {**os.environ, TEMPLATES_ENV: str(root)}
        started = [subprocess.Popen([sys.executable, "-c", START_ONE], cwd=ROOT, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                   for _ in range(3)]
        said = [p.communicate(timeout=120) for p in started]
        assert [p.returncode for p in started] == [0, 0, 0], [err for _, err in said]
        answers = {out.split()[0] for out, _ in said}
        templates = {Path(out.split()[1]) for out, _ in said}
        assert answers == {"42"}
        assert len(templates) == 1 and next(iter(templates)).parent == root
        # one cluster, nothing half made left beside it (the lock file only)
        assert sorted(p.name for p in root.iterdir() if p.is_dir()) == [
            next(iter(templates)).name]
    assert not root.exists()  # removed at the end


def test_without_a_shared_folder_a_process_makes_its_own(bindir: Path) -> None:
    out = subprocess.run([sys.executable, "-c", START_ONE], cwd=ROOT, capture_output=True,
                         text=True, timeout=120,
                         env={k: v for k, v in os.environ.items() if k != TEMPLATES_ENV})
    assert out.returncode == 0, out.stderr
    answer, template = out.stdout.split()
    assert answer == "42" and Path(template).name == "data"
    assert not Path(template).exists()  # this process's own, gone with it


def test_the_run_shares_one_folder_with_its_workers() -> None:
    # (the root conftest set it up before the workers started: they inherited it)
    shared = os.environ.get(TEMPLATES_ENV)
    assert shared and Path(shared).is_dir()
