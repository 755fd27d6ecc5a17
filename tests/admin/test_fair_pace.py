"""The pace under the bot's global budget: smooth, bounded, and fair between channels."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.fair_pace import BELOW, FairPace


def most_in_any_window(times: list[float], width: float) -> int:
    return max((sum(1 for u in times if t <= u < t + width) for t in times), default=0)


class Clock:
    """The pace's clock, moved on by its sleeps; each sleep lets the other tasks run."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        await asyncio.sleep(0)


async def let_go_times(pace: FairPace, clock: Clock, n: int, flow: str = "a") -> list[float]:
    """When each of ``n`` requests asked at once was let go, on the pace's clock."""
    times: list[float] = []

    async def one() -> None:
        await pace.take(flow)
        times.append(clock.now)

    await asyncio.gather(*(one() for _ in range(n)))
    return times


async def test_at_most_the_burst_plus_the_rate_go_in_any_window() -> None:
    clock = Clock()
    pace = FairPace(10.0, 3, clock=clock, sleep=clock.sleep)
    times = await let_go_times(pace, clock, 60)
    assert times[:3] == [100.0] * 3, "a burst of 3 goes at once"
    for width in (0.05, 0.5, 1.0, 2.0, 5.0):
        assert most_in_any_window(times, width) <= 3 + 10.0 * width + 1e-9, width
    assert pace.waiting == 0


async def test_an_idle_pace_does_not_save_up_more_than_its_burst() -> None:
    clock = Clock()
    pace = FairPace(10.0, 2, clock=clock, sleep=clock.sleep)
    await let_go_times(pace, clock, 5)
    clock.now += 3600  # an hour with nothing to send
    times = await let_go_times(pace, clock, 12)
    assert most_in_any_window(times, 1.0) <= 2 + 10


async def test_a_quiet_channel_goes_before_the_backlog_of_a_busy_one() -> None:
    clock = Clock()
    pace = FairPace(10.0, 1, clock=clock, sleep=clock.sleep)
    order: list[str] = []

    async def one(flow: str) -> None:
        await pace.take(flow)
        order.append(flow)

    busy = [asyncio.create_task(one("busy")) for _ in range(20)]
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert pace.waiting > 10, "a backlog waits"
    gone = len(order)
    await asyncio.gather(one("quiet"), *busy)
    # the next to go, after at most the one already due (sleeping until its time)
    assert order.index("quiet") <= gone + 1, order


async def test_a_request_given_up_leaves_the_queue() -> None:
    clock = Clock()
    pace = FairPace(10.0, 1, clock=clock, sleep=clock.sleep)
    await pace.take()
    waiting = asyncio.create_task(pace.take())
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert pace.waiting == 0
    await pace.take()  # and the next one is not stuck behind it


async def test_a_stop_cancels_the_requests_still_waiting_and_any_new_one() -> None:
    """At a stop the HTTP session closes: a request let go after it would fail on a closed
    connection, so the ones still waiting are cancelled with the work they belong to."""
    clock = Clock()
    pace = FairPace(1.0, 1, clock=clock, sleep=clock.sleep)
    await pace.take()
    waiting = asyncio.create_task(pace.take())
    await asyncio.sleep(0)
    pace.close()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    with pytest.raises(asyncio.CancelledError):
        await pace.take()
    assert pace.waiting == 0


async def test_a_moves_board_goes_before_a_crowd_of_tables_opening_at_once() -> None:
    # fifty tables open at once: each hello by DM is a quiet flow of its own, the hands
    # just dealt go before them (one step ahead), and
    # a move's board (two steps ahead) must not wait behind them all
    clock = Clock()
    pace = FairPace(10.0, 1, clock=clock, sleep=clock.sleep)
    order: list[str] = []

    async def one(flow: str, ahead: int = 0) -> None:
        await pace.take(flow, ahead=ahead)
        order.append(flow)

    crowd = [asyncio.create_task(one(f"dm-{i}")) for i in range(40)]
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    gone = len(order)
    hands = [one(f"hand-{i}", ahead=1) for i in range(5)]  # dealt a moment before
    await asyncio.gather(*hands, one("board", ahead=2), one("late-dm"), *crowd)
    assert order.index("board") <= gone + 1, order
    assert all(order.index(f"hand-{i}") <= gone + 6 for i in range(5)), order
    assert order.index("late-dm") > 30, "a quiet flow still takes its turn behind the crowd"


async def test_a_request_ahead_keeps_its_own_channels_order() -> None:
    clock = Clock()
    pace = FairPace(10.0, 1, clock=clock, sleep=clock.sleep)
    order: list[str] = []

    async def one(name: str, flow: str, ahead: int = 0) -> None:
        await pace.take(flow, ahead=ahead)
        order.append(name)

    crowd = [asyncio.create_task(one(f"dm-{i}", f"dm-{i}")) for i in range(10)]
    lobby = asyncio.create_task(one("lobby edit", "table"))  # the board's channel, waiting
    await asyncio.sleep(0)
    await asyncio.gather(one("board", "table", ahead=2), lobby, *crowd)
    assert order.index("lobby edit") < order.index("board"), order


@pytest.mark.parametrize("crowd_ahead", [0, 1], ids=["hellos", "dealt hands"])
async def test_a_board_goes_at_once_while_a_backlog_drains(crowd_ahead: int) -> None:
    # the backlog leaves the held part of the burst in the bucket: a move's board arriving
    # then does not wait for the next token at all
    clock = Clock()
    pace = FairPace(10.0, 4, held=(3, 2), clock=clock, sleep=clock.sleep)
    crowd = [asyncio.create_task(pace.take(f"dm-{i}", ahead=crowd_ahead)) for i in range(30)]
    for _ in range(20):  # the backlog has been draining for a while
        await asyncio.sleep(0)
    assert pace.waiting > 5, "a backlog still waits"
    assert await pace.take("board", ahead=2) == 0.0
    await asyncio.gather(*crowd)


async def test_without_held_tokens_a_board_waits_for_the_next_one() -> None:
    # the same as above with nothing held: what the held tokens are for
    clock = Clock()
    pace = FairPace(10.0, 4, clock=clock, sleep=clock.sleep)
    crowd = [asyncio.create_task(pace.take(f"dm-{i}")) for i in range(30)]
    for _ in range(20):
        await asyncio.sleep(0)
    assert pace.waiting > 5, "a backlog still waits"
    assert await pace.take("board", ahead=2) > 0.0
    await asyncio.gather(*crowd)


async def test_a_hand_lifts_the_hello_before_it_in_its_dm_past_the_crowd() -> None:
    # each person's hello waits in a crowd of hellos; their hand, dealt now, goes after
    # their own hello (the DM's order), and both go before the rest of the crowd
    clock = Clock()
    pace = FairPace(10.0, 1, clock=clock, sleep=clock.sleep)
    order: list[str] = []

    async def one(name: str, flow: str, ahead: int = 0) -> None:
        await pace.take(flow, ahead=ahead)
        order.append(name)

    crowd = [asyncio.create_task(one(f"hello-{i}", f"dm-{i}")) for i in range(30)]
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    gone = len(order)
    await asyncio.gather(one("hand-29", "dm-29", ahead=1), *crowd)
    assert order.index("hello-29") < order.index("hand-29") <= gone + 2, order


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(BELOW, 2), st.floats(0, 0.3)),
                min_size=1, max_size=60),
       st.integers(1, 5), st.lists(st.integers(0, 4), max_size=3),
       st.none() | st.integers(0, 6))
def test_no_mix_of_urgencies_goes_past_the_burst_and_the_rate(
        requests: list[tuple[int, int, float]], burst: int, held: list[int],
        below: int | None) -> None:
    async def run() -> list[float]:
        clock = Clock()
        pace = FairPace(10.0, burst, held=held, below=below, clock=clock, sleep=clock.sleep)
        times: list[float] = []

        async def one(flow: int, ahead: int) -> None:
            await pace.take(flow, ahead=ahead)
            times.append(clock.now)

        tasks = []
        for flow, ahead, gap in requests:
            clock.now += gap
            tasks.append(asyncio.create_task(one(flow, ahead)))
            await asyncio.sleep(0)
        await asyncio.gather(*tasks)
        assert pace.waiting == 0
        return times

    times = asyncio.run(run())
    assert len(times) == len(requests)
    for width in (0.01, 0.1, 0.5, 1.0, 3.0):
        assert most_in_any_window(times, width) <= burst + 10.0 * width + 1e-9, width


async def test_a_look_up_goes_after_every_other_request_waiting() -> None:
    # a flood of the Activity's look-ups (made-up instances) queued first: the hellos,
    # hands and boards that come after them still go before every one of them
    clock = Clock()
    pace = FairPace(10.0, 1, clock=clock, sleep=clock.sleep)
    order: list[str] = []

    async def one(name: str, flow: str, ahead: int = 0) -> None:
        await pace.take(flow, ahead=ahead)
        order.append(name)

    flood = [asyncio.create_task(one(f"look-up-{i}", "applications", ahead=BELOW))
             for i in range(20)]
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    gone = len(order)
    others = [one("hello", "dm-1"), one("hand", "dm-2", ahead=1), one("board", "table", 2),
              one("lobby", "table-2")]
    await asyncio.gather(*others, *flood)
    firsts = order[gone:gone + 5]
    assert {"hello", "hand", "board", "lobby"} <= set(firsts), order
    assert order.index("board") < order.index("hand") < order.index("lobby"), order


@pytest.mark.parametrize("ahead", [2, 1], ids=["a board", "a hand"])
async def test_a_board_goes_at_once_while_a_flood_of_look_ups_drains(ahead: int) -> None:
    # look-ups leave the whole burst but their own token: a board or a hand that comes
    # while they drain goes without waiting for a token (as behind no backlog at all)
    clock = Clock()
    pace = FairPace(10.0, 4, held=(3, 2), clock=clock, sleep=clock.sleep)
    flood = [asyncio.create_task(pace.take("applications", ahead=BELOW)) for _ in range(30)]
    for _ in range(20):  # the look-ups have been draining for a while
        await asyncio.sleep(0)
    assert pace.waiting > 5, "look-ups still wait"
    assert await pace.take("table", ahead=ahead) == 0.0
    await asyncio.gather(*flood)


async def test_look_ups_alone_go_at_the_pace_one_token_at_a_time() -> None:
    clock = Clock()
    pace = FairPace(10.0, 4, held=(3, 2), clock=clock, sleep=clock.sleep)
    times = await let_go_times_below(pace, clock, 20)
    assert most_in_any_window(times, 0.05) == 1, "no burst: one at a time"
    assert most_in_any_window(times, 1.0) <= 1 + 10.0


async def let_go_times_below(pace: FairPace, clock: Clock, n: int) -> list[float]:
    times: list[float] = []

    async def one() -> None:
        await pace.take("applications", ahead=BELOW)
        times.append(clock.now)

    await asyncio.gather(*(one() for _ in range(n)))
    return times
