"""The harness's people give up a turn the moment the bot is killed, not at a timeout."""

from __future__ import annotations

import asyncio

from .players import _unless_down


async def test_a_turn_in_hand_is_dropped_when_the_bot_goes_down() -> None:
    down = asyncio.Event()
    cancelled = asyncio.Event()
    begun = asyncio.Event()

    async def slow_turn() -> bool:
        begun.set()
        try:
            await asyncio.sleep(30)  # a click whose answer will never come
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return True

    attempt = asyncio.create_task(_unless_down(slow_turn(), down))
    await asyncio.wait_for(begun.wait(), 1)  # the turn is under way when the bot goes down
    down.set()
    assert await asyncio.wait_for(attempt, 1) is False
    assert cancelled.is_set()


async def test_no_turn_is_started_while_the_bot_is_down_and_one_runs_while_it_is_up() -> None:
    started = []

    async def turn() -> bool:
        started.append(1)
        return True

    down = asyncio.Event()
    down.set()
    assert await _unless_down(turn(), down) is False
    assert started == []
    down.clear()
    assert await _unless_down(turn(), down) is True
    assert await _unless_down(turn(), None) is True
    assert started == [1, 1]
