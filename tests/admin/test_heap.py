"""A bot process sets what start-up made apart from the garbage collector's full passes
(``runtime/heap.py``), and still collects what it makes later.

The first test runs in a process of its own: a freeze in a test worker would keep every
object of the tests before it."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.e2e.conftest import running_bot
from tests.fakediscord import FakeDiscord
from tests.test_layering import ROOT


def test_settling_collects_start_ups_garbage_freezes_the_rest_and_still_collects_later() -> None:
    code = textwrap.dedent("""
        import gc, weakref
        from runtime.heap import settle

        class Node:
            pass

        def cycle():
            a, b = Node(), Node()
            a.other, b.other = b, a
            return weakref.ref(a)

        gc.disable()  # (nothing collects but the calls below)
        left_by_start_up = cycle()  # garbage already: only its cycle keeps it
        kept = Node()
        frozen = settle()
        assert left_by_start_up() is None, "start-up's garbage was frozen, not collected"
        assert frozen == gc.get_freeze_count() > 1000, frozen
        assert not any(o is kept for o in gc.get_objects()), "a live object was not frozen"
        made_later = cycle()
        gc.collect()
        assert made_later() is None, "garbage made after the freeze was not collected"
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


async def test_a_bot_settles_its_heap_when_set_up_and_one_in_a_test_does_not(
        tmp_path: Path) -> None:
    assert gc.get_freeze_count() == 0
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        with fake.pointed_at():
            async with running_bot(fake, guild, tmp_path / "a.db"):
                assert gc.get_freeze_count() == 0  # (the tests' bots: see the module doc)
            try:
                async with running_bot(fake, guild, tmp_path / "b.db", settle_heap=True):
                    assert gc.get_freeze_count() > 1000
            finally:
                gc.unfreeze()
