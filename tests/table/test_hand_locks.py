"""One change of a seat's hand message at a time: ``cogs/table/hand_locks.py``."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Any, cast

import discord
import pytest

from cogs.table import answer_time
from cogs.table.hand_locks import HandLocks


class Response:
    """What a tap's answer needs here: whether it was answered, and a deferral."""

    def __init__(self) -> None:
        self.deferred = False

    def is_done(self) -> bool:
        return self.deferred

    async def defer(self) -> None:
        self.deferred = True


class Click:
    def __init__(self, made: float = 0.0) -> None:
        self.response = Response()
        self.created_at = datetime.fromtimestamp(time.time() - made, UTC)  # (the id's time)


def tap(made: float = 0.0) -> Any:
    """A click made ``made`` seconds ago."""
    return cast(discord.Interaction, Click(made))


async def test_a_change_waits_for_the_one_under_way_on_the_same_seat() -> None:
    locks, order = HandLocks(), []

    async def change(name: str, hold: float) -> None:
        async with locks.changing(1, 0):
            order.append(f"{name} in")
            await asyncio.sleep(hold)
            order.append(f"{name} out")

    first = asyncio.create_task(change("edit", 0.05))
    await asyncio.sleep(0)
    await change("tap", 0)
    await first
    assert order == ["edit in", "edit out", "tap in", "tap out"]


async def test_other_seats_change_at_the_same_time() -> None:
    locks = HandLocks()
    async with locks.changing(1, 0):
        async with asyncio.timeout(1):
            async with locks.changing(1, 1), locks.changing(2, 0):
                pass


async def test_nothing_is_kept_once_no_one_holds_or_waits(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    locks = HandLocks()
    held = asyncio.Event()

    async def holder() -> None:
        async with locks.changing(1, 0):
            held.set()
            await asyncio.sleep(0.02)

    task = asyncio.create_task(holder())
    await held.wait()
    waiter = asyncio.create_task(locks.changing(1, 0).__aenter__())
    await asyncio.sleep(0)
    assert len(locks) == 1
    await task
    await waiter
    assert len(locks) == 1  # (the waiter holds it now)
    with pytest.raises(RuntimeError):
        async with locks.changing(9, 9):
            raise RuntimeError("a change that failed")
    assert (9, 9) not in locks._locks


async def test_a_tap_kept_waiting_is_acknowledged_then_answered_after(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answer_time, "ANSWER_WITHIN", 0.01)
    locks = HandLocks()
    click = tap()
    release = asyncio.Event()

    async def slow_edit() -> None:
        async with locks.changing(1, 0):
            await release.wait()

    edit = asyncio.create_task(slow_edit())
    await asyncio.sleep(0)
    answered = asyncio.create_task(locks.changing(1, 0, tap=click).__aenter__())
    await asyncio.sleep(0.05)
    assert click.response.deferred and not answered.done(), "acknowledged, still waiting"
    release.set()
    await edit
    await asyncio.wait_for(answered, 1)


async def test_a_tap_not_kept_waiting_is_not_deferred() -> None:
    locks, click = HandLocks(), tap()
    async with locks.changing(1, 0, tap=click):
        pass
    assert not click.response.deferred


async def test_a_tap_that_came_late_waits_only_for_what_is_left_of_its_time() -> None:
    """The time a tap may wait counts from the click, not from the wait: a click that
    reaches the lock 1.95 s after it was made is acknowledged within about 0.05 s."""
    locks, click = HandLocks(), tap(made=answer_time.ANSWER_WITHIN - 0.05)
    release = asyncio.Event()

    async def slow_edit() -> None:
        async with locks.changing(1, 0):
            await release.wait()

    edit = asyncio.create_task(slow_edit())
    await asyncio.sleep(0)
    answered = asyncio.create_task(locks.changing(1, 0, tap=click).__aenter__())
    await asyncio.sleep(0.5)
    assert click.response.deferred and not answered.done(), "acknowledged, still waiting"
    release.set()
    await edit
    await asyncio.wait_for(answered, 1)
