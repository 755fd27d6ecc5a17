"""A click's waits are bounded by what is left of its time: ``cogs/table/answer_time.py``."""

from __future__ import annotations

import asyncio

import pytest

from cogs.table import answer_time
from cogs.table.answer_time import in_time, time_left

from .test_hand_locks import tap


def test_the_time_left_counts_from_the_click_not_from_now() -> None:
    assert time_left(tap(made=0.5)) == pytest.approx(answer_time.ANSWER_WITHIN - 0.5, abs=0.05)
    assert time_left(tap(made=5.0)) < 0


def test_a_click_from_the_future_gets_no_more_than_its_time() -> None:
    """A bot's clock behind Discord's: the click seems not made yet; its time stays."""
    assert time_left(tap(made=-30.0)) == answer_time.ANSWER_WITHIN


async def test_a_quick_wait_leaves_the_click_unacknowledged() -> None:
    click = tap()
    assert await in_time(click, asyncio.sleep(0.01, "done")) == "done"
    assert not click.response.deferred


async def test_a_wait_that_outlasts_the_click_acknowledges_it_and_goes_on() -> None:
    click = tap(made=answer_time.ANSWER_WITHIN - 0.05)
    got = asyncio.ensure_future(in_time(click, asyncio.sleep(0.3, "late")))
    await asyncio.sleep(0.15)
    assert click.response.deferred and not got.done()
    assert await got == "late"


async def test_a_click_already_out_of_time_is_acknowledged_before_any_wait() -> None:
    click = tap(made=10.0)
    never = asyncio.Event()
    waiting = asyncio.ensure_future(in_time(click, never.wait()))
    await asyncio.sleep(0.01)
    assert click.response.deferred
    waiting.cancel()


async def test_an_acknowledged_click_waits_without_a_bound() -> None:
    click = tap(made=10.0)
    await click.response.defer()
    assert await in_time(click, asyncio.sleep(0.05, "kept")) == "kept"


async def test_giving_up_on_the_click_gives_up_what_it_waited_for() -> None:
    started, never = asyncio.Event(), asyncio.Event()

    async def work() -> None:
        started.set()
        await never.wait()

    inner = asyncio.ensure_future(work())
    outer = asyncio.ensure_future(in_time(tap(), inner))
    await started.wait()
    outer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await outer
    assert inner.cancelled()
