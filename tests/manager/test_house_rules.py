"""A game's rules are its own (issue 32, item 1): a server's settings never undo a game's.

A host can give one game its own turn timer, none at all for a game with a small child. An
admin who changes the server's settings afterwards reaches the running games only where
they did not choose for themselves: a no-timer game stays untimed, a game that follows the
server takes the new timer at once (its turn's time starts then), and a timer turned off
stops the turn that was running. On PostgreSQL every process learns of it, whichever made
the change. Each test runs on SQLite and on PostgreSQL (``manager``); the last one with two
processes on one PostgreSQL.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from manager import GameManager, ManualClock, TurnReminder, TurnTimedOut
from tests.waiting import until

from .conftest import ANN, BOB, CHANNEL, GUILD, OpenStore, Recorder, make_manager
from .test_chores import Process, processes

TIMER = 60.0


@pytest.fixture
async def two(postgres_url: str, clock: ManualClock) -> AsyncIterator[list[Process]]:
    """Two bot processes on one PostgreSQL (each its own manager and pool)."""
    async with processes(postgres_url, clock, clock) as both:
        yield both


async def game(manager: GameManager, channel: int = CHANNEL, *,
               turn_timer: float | None = None) -> int:
    """Ann and Bob at a Kids table; ``turn_timer``: the host's own (0: none; None: the
    server's)."""
    lobby = await manager.create_lobby("kids", {}, ANN, GUILD, channel,
                                       turn_timer=turn_timer)
    await manager.join(lobby.game_id, BOB)
    await manager.start_game(lobby.game_id, ANN.user_id)
    return lobby.game_id


async def move(manager: GameManager, game_id: int) -> None:
    """Whoever is to move plays their first legal move."""
    view = manager.get(game_id)
    assert view.turn is not None
    user = view.seats[view.turn].user_id
    assert user is not None
    await manager.submit(game_id, user, manager.observation_for(game_id, user)["legal"][0])


async def test_a_game_without_a_timer_stays_untimed_when_an_admin_sets_the_servers(
        manager: GameManager, recorder: Recorder, clock: ManualClock) -> None:
    gid = await game(manager, turn_timer=0)
    await manager.set_guild_settings(GUILD, turn_timer=TIMER)
    assert manager.get(gid).turn_timer is None
    await move(manager, gid)  # the next turn is as untimed as the first
    ply = manager.get(gid).ply
    assert manager.get(gid).turn_deadline is None
    clock.advance(10 * TIMER)
    await manager.check_timers()
    assert recorder.of(TurnReminder) == [] and recorder.of(TurnTimedOut) == []
    assert manager.get(gid).ply == ply, "nobody was played for"


async def test_a_game_that_follows_the_server_takes_its_new_timer_at_once(
        manager: GameManager, recorder: Recorder, clock: ManualClock) -> None:
    gid = await game(manager)
    clock.advance(5)
    await manager.set_guild_settings(GUILD, turn_timer=TIMER)
    view = manager.get(gid)
    assert view.turn_timer == TIMER
    assert view.turn_deadline == clock.now() + TIMER, "the turn's time starts now"
    clock.advance(TIMER)
    await manager.check_timers()
    assert [(e.seat, e.outcome) for e in recorder.of(TurnTimedOut)] == [(0, "computer_moved")]


async def test_a_timer_the_server_turns_off_stops_the_turn_running(
        manager: GameManager, recorder: Recorder, clock: ManualClock) -> None:
    await manager.set_guild_settings(GUILD, turn_timer=TIMER)
    gid = await game(manager)
    assert manager.get(gid).turn_deadline is not None
    await manager.set_guild_settings(GUILD, turn_timer=None)
    assert manager.get(gid).turn_deadline is None and manager.get(gid).turn_timer is None
    clock.advance(10 * TIMER)
    await manager.check_timers()
    assert recorder.of(TurnReminder) == [] and recorder.of(TurnTimedOut) == []


async def test_other_settings_of_the_server_reach_a_game_with_its_own_timer(
        manager: GameManager, recorder: Recorder, clock: ManualClock) -> None:
    gid = await game(manager, turn_timer=TIMER)
    await manager.set_guild_settings(GUILD, turn_timer=None, timeout_action="skip")
    assert manager.get(gid).turn_timer == TIMER, "its own timer stays"
    clock.advance(TIMER)
    await manager.check_timers()
    assert [e.outcome for e in recorder.of(TurnTimedOut)] == ["skipped"], \
        "what the timer does was not the game's choice: the server's now"


async def test_a_restarted_bot_keeps_a_games_own_timer_against_the_servers(
        open_store: OpenStore, clock: ManualClock) -> None:
    store = await open_store()
    first = make_manager(store, clock)
    await first.start(run_timers=False)
    gid = await game(first, turn_timer=0)
    await first.set_guild_settings(GUILD, turn_timer=TIMER)
    await first.close()
    await store.close()
    store = await open_store()
    again = make_manager(store, clock)
    await again.start(run_timers=False)
    try:
        assert again.get(gid).turn_timer is None
    finally:
        await again.close()
        await store.close()


async def test_a_server_change_made_in_one_process_reaches_the_games_in_every_process(
        two: list[Process], clock: ManualClock) -> None:
    a, b = two[0].manager, two[1].manager
    untimed = await game(a, CHANNEL, turn_timer=0)
    follows = await game(a, CHANNEL + 1)
    await until(lambda: b.is_active(untimed) and b.is_active(follows)
                and b.get(follows).status == "playing", "the other process to hold both")
    await a.set_guild_settings(GUILD, turn_timer=TIMER)
    await until(lambda: b.get(follows).turn_timer == TIMER,
                "the other process to learn of the server's timer")
    assert b.get(untimed).turn_timer is None
    # the next turns are played at the other process: it times only the game that follows
    await move(b, untimed)
    await move(b, follows)
    assert b.get(untimed).turn_deadline is None
    assert b.get(follows).turn_deadline == clock.now() + TIMER
    untimed_ply = b.get(untimed).ply
    clock.advance(TIMER)
    for manager in (b, a):
        await manager.check_timers()
    heard = two[0].heard.of(TurnTimedOut) + two[1].heard.of(TurnTimedOut)
    assert [e.game_id for e in heard] == [follows]
    assert a.get(untimed).ply == untimed_ply
