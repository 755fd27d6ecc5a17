"""Timers, on a clock we move by hand: idle lobbies are cancelled; the turn timer
reminds, acts for the absent player, frees the seat after repeated absence; and a restart
keeps every deadline."""

from __future__ import annotations

from manager import (
    GameManager,
    GameOver,
    LobbyCancelled,
    ManualClock,
    Moved,
    SeatChanged,
    Store,
    TurnReminder,
    TurnTimedOut,
)

from .conftest import ANN, BOB, CHANNEL, GUILD, OpenStore, Recorder, make_manager, two_player_game

TIMER = 60.0


async def test_an_idle_lobby_is_cancelled(
    manager: GameManager, recorder: Recorder, clock: ManualClock
) -> None:
    lobby = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    clock.advance(manager.lobby_idle - 1)
    await manager.join(lobby.game_id, BOB)  # activity: the idle clock starts again
    clock.advance(manager.lobby_idle - 1)
    await manager.check_timers()
    assert manager.table_for_channel(CHANNEL) is not None
    clock.advance(2)
    await manager.check_timers()
    assert manager.table_for_channel(CHANNEL) is None
    assert recorder.of(LobbyCancelled)[-1].reason == "idle"


async def test_no_turn_timer_unless_the_server_sets_one(
    manager: GameManager, clock: ManualClock
) -> None:
    gid = await two_player_game(manager)
    assert manager.get(gid).turn_deadline is None
    clock.advance(10 * 86400)
    await manager.check_timers()
    assert manager.get(gid).ply == 0


async def test_the_one_reminder_rule_decides_when_either_backend_reminds(
    store: Store, clock: ManualClock
) -> None:
    # a quarter of the time left instead of half: this runs on SQLite (chores kept in
    # memory) and on PostgreSQL (chores in the database); both follow the rule
    manager = make_manager(store, clock, reminder_share=0.25)
    recorder = Recorder()
    manager.add_listener(recorder)
    await manager.start(run_timers=False)
    try:
        await manager.set_guild_settings(GUILD, turn_timer=TIMER)
        await two_player_game(manager)
        clock.advance(TIMER / 2)
        await manager.check_timers()
        assert recorder.of(TurnReminder) == [], "not at half time any more"
        clock.advance(TIMER / 4)
        await manager.check_timers()
        assert [(r.seat, r.user_id) for r in recorder.of(TurnReminder)] == [(0, ANN.user_id)]
    finally:
        await manager.close()


async def test_remind_at_half_time_then_a_computer_moves_for_the_absent_player(
    manager: GameManager, recorder: Recorder, clock: ManualClock
) -> None:
    await manager.set_guild_settings(GUILD, turn_timer=TIMER)
    gid = await two_player_game(manager)
    assert manager.get(gid).turn_deadline == clock.now() + TIMER
    clock.advance(TIMER / 2)
    await manager.check_timers()
    await manager.check_timers()
    assert [(r.seat, r.user_id) for r in recorder.of(TurnReminder)] == [(0, ANN.user_id)]
    clock.advance(TIMER / 2)
    await manager.check_timers()
    moved = recorder.of(Moved)[-1]
    assert (moved.seat, moved.by, moved.user_id) == (0, "timer", ANN.user_id)
    assert recorder.of(TurnTimedOut)[-1].outcome == "computer_moved"
    view = manager.get(gid)
    assert view.turn == 1 and view.seats[0].absences == 1
    assert view.turn_deadline == clock.now() + TIMER  # Bob's own full time


async def test_with_timeout_action_skip_the_turn_is_skipped(
    manager: GameManager, recorder: Recorder, clock: ManualClock, store: Store
) -> None:
    await manager.set_guild_settings(GUILD, turn_timer=TIMER, timeout_action="skip")
    gid = await two_player_game(manager)
    clock.advance(TIMER)
    await manager.check_timers()
    assert recorder.of(TurnTimedOut)[-1].outcome == "skipped"
    assert [a for _, _, a, _ in await store.games.history(gid)] == ["skip"]
    assert manager.get(gid).turn == 1


async def test_two_turns_lost_to_the_timer_are_not_a_draw(
    manager: GameManager, recorder: Recorder, clock: ManualClock, store: Store
) -> None:
    # Mum times out, Emma times out: nobody was stuck, so the game goes on.
    await manager.set_guild_settings(GUILD, turn_timer=TIMER, timeout_action="skip")
    gid = await two_player_game(manager)
    for _ in range(2):
        clock.advance(TIMER)
        await manager.check_timers()
    assert [e.outcome for e in recorder.of(TurnTimedOut)] == ["skipped", "skipped"]
    assert not recorder.of(GameOver)
    view = manager.get(gid)
    assert view.status == "playing" and view.turn == 0
    assert manager.spectator_observation(gid)["board"].count(None) == 42


async def test_repeated_absence_frees_the_seat_and_the_last_side_standing_wins(
    manager: GameManager, recorder: Recorder, clock: ManualClock, store: Store
) -> None:
    await manager.set_guild_settings(GUILD, turn_timer=TIMER, absences_to_free=2,
                                     timeout_action="skip")
    gid = await two_player_game(manager)
    clock.advance(TIMER)
    await manager.check_timers()  # Ann absent once: skipped
    bob_move = manager.observation_for(gid, BOB.user_id)["legal"][-1]
    await manager.submit(gid, BOB.user_id, bob_move)
    assert manager.get(gid).seats[0].absences == 1
    clock.advance(TIMER)
    await manager.check_timers()  # Ann absent twice: her seat is freed
    assert recorder.of(TurnTimedOut)[-1].outcome == "seat_freed"
    assert recorder.of(SeatChanged)[-1].change == "freed"
    rec = await store.games.load_game(gid)
    assert rec is not None and rec.status == "finished"  # Bob is the last side standing
    assert rec.actions[-1] == "resign:0"


async def test_moving_yourself_clears_your_absences(
    manager: GameManager, clock: ManualClock
) -> None:
    await manager.set_guild_settings(GUILD, turn_timer=TIMER, absences_to_free=2,
                                     timeout_action="skip")
    gid = await two_player_game(manager)
    clock.advance(TIMER)
    await manager.check_timers()  # Ann absent once
    await manager.submit(gid, BOB.user_id, manager.observation_for(gid, 2)["legal"][-1])
    await manager.submit(gid, ANN.user_id, manager.observation_for(gid, 1)["legal"][-1])
    assert manager.get(gid).seats[0].absences == 0
    stored = await manager.load_record(gid)  # (a move writes a seat only when it changed)
    assert stored is not None and [s.absences for s in stored.seats] == [0, 0]
    await manager.submit(gid, BOB.user_id, manager.observation_for(gid, 2)["legal"][-1])
    clock.advance(TIMER)
    await manager.check_timers()  # absent once again, not twice: still playing
    view = manager.get(gid)
    assert view.seats[0].absences == 1 and not view.seats[0].resigned


async def test_a_restart_keeps_deadlines_reminders_and_absences(
    open_store: OpenStore, clock: ManualClock
) -> None:
    store = await open_store()
    m = make_manager(store, clock)
    await m.start(run_timers=False)
    await m.set_guild_settings(GUILD, turn_timer=TIMER)
    gid = await two_player_game(m)
    clock.advance(TIMER)
    await m.check_timers()  # Ann timed out once; Bob to move
    clock.advance(TIMER / 2)
    await m.check_timers()  # Bob reminded
    before = m.get(gid)
    await m.close()
    await store.close()

    store = await open_store()
    m = make_manager(store, clock)
    after_recorder = Recorder()
    m.add_listener(after_recorder)
    await m.start(run_timers=False)
    assert m.get(gid) == before
    assert before.turn_deadline is not None and before.seats[0].absences == 1
    await m.check_timers()
    assert after_recorder.of(TurnReminder) == []  # already reminded before the restart
    clock.advance(TIMER / 2)
    await m.check_timers()
    assert after_recorder.of(TurnTimedOut)[-1].seat == 1
    await m.close()
    await store.close()
