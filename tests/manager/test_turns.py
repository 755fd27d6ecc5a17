"""Turns: only the seat to move plays, every move is committed before it is announced,
forced passes play themselves, resign / leave / end, and results feed the stats."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from engine import IllegalAction, Refusal, replay
from engine.action import Action
from manager import (
    GameManager,
    GameOver,
    HandChanged,
    ManualClock,
    Moved,
    SeatChanged,
    Store,
    TurnStarted,
)

from ..engine.positions import DEAD_INTO_PASS_SEED, simple_choice
from .conftest import (
    ANN,
    BOB,
    CAT,
    CHANNEL,
    EVE,
    GUILD,
    Recorder,
    make_manager,
    play_out,
    two_player_game,
)


async def refused(code: str, call: Any) -> Refusal:
    with pytest.raises(Refusal) as info:
        await call
    assert info.value.code == code, info.value
    return info.value


async def test_the_seat_to_move_plays_and_the_turn_passes(
    manager: GameManager, recorder: Recorder
) -> None:
    gid = await two_player_game(manager)
    action = next(a for a in manager.observation_for(gid, ANN.user_id)["legal"] if "@" in a)
    moved = await manager.submit(gid, ANN.user_id, action)
    assert (moved.seat, moved.action, moved.by, moved.user_id, moved.ply) == (
        0, action, "player", ANN.user_id, 0)
    assert moved.placed == Action.parse(action).space and "hand" not in moved.observation
    assert manager.get(gid).turn == 1
    # Bob is told it is his turn, with his legal actions; Ann's hand was refilled.
    assert recorder.of(TurnStarted)[-1].user_id == BOB.user_id
    assert recorder.of(TurnStarted)[-1].observation["legal"]
    assert recorder.of(HandChanged)[-1].user_id == ANN.user_id


async def test_every_bad_game_call_is_refused_with_a_stable_code(
    manager: GameManager,
) -> None:
    await refused("no_such_game", manager.submit(12345, ANN.user_id, "roll"))
    lobby = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    await refused("game_not_started", manager.submit(lobby.game_id, ANN.user_id, "pass"))
    await manager.join(lobby.game_id, BOB)
    await manager.start_game(lobby.game_id, ANN.user_id)
    gid = lobby.game_id
    legal = manager.observation_for(gid, ANN.user_id)["legal"]
    await refused("not_a_player", manager.submit(gid, EVE.user_id, legal[0]))
    await refused("not_your_turn", manager.submit(gid, BOB.user_id, legal[0]))
    err = await refused("malformed", manager.submit(gid, ANN.user_id, "fly to the moon"))
    assert isinstance(err, IllegalAction)
    await refused("already_played", manager.submit(gid, ANN.user_id, legal[0],
                                                   expected_ply=3))
    await refused("not_host", manager.end(gid, BOB.user_id))
    await refused("not_a_player", manager.resign(gid, EVE.user_id))
    assert manager.get(gid).ply == 0  # nothing of that changed the game


async def test_an_illegal_action_changes_nothing_and_commits_nothing(
    manager: GameManager, store: Store
) -> None:
    gid = await two_player_game(manager, "dice")
    before = manager.game_state(gid)
    seat = manager.get(gid).turn
    assert seat is not None
    user = manager.get(gid).seats[seat].user_id
    assert user is not None
    await refused("must_roll", manager.submit(gid, user, "place@A1"))
    assert manager.game_state(gid) == before
    assert await store.games.history(gid) == []


async def test_a_roll_that_allows_nothing_passes_by_itself_and_is_recorded(
    manager: GameManager, recorder: Recorder, store: Store
) -> None:
    rng = random.Random(3)
    gid = await two_player_game(manager, "dice")
    for _ in range(400):
        if manager.get(gid).status != "playing" or any(
                m.action == "pass" for m in recorder.of(Moved)):
            break
        view = manager.get(gid)
        assert view.turn is not None
        user = view.seats[view.turn].user_id
        assert user is not None
        obs = manager.observation_for(gid, user)
        # Nobody is ever asked to click a pointless "pass".
        assert obs["legal"] != ["pass"]
        await manager.submit(gid, user, rng.choice(obs["legal"]))
    passes = [m for m in recorder.of(Moved) if m.action == "pass"]
    assert passes, "no forced pass came up in 400 moves"
    assert all(m.by == "auto" for m in passes)
    log = [a for _, _, a, _ in await store.games.history(gid)]
    assert log[passes[0].ply] == "pass"
    prompts = recorder.of(TurnStarted)
    assert all(p.observation["legal"] != ["pass"] for p in prompts)


async def test_a_whole_game_ends_with_results_and_stats(
    manager: GameManager, recorder: Recorder, store: Store
) -> None:
    gid = await two_player_game(manager, "kids", level="1")
    await play_out(manager, gid, random.Random(5))
    over = recorder.of(GameOver)
    assert len(over) == 1 and over[0].reason is not None
    assert manager.table_for_channel(CHANNEL) is None
    await refused("no_such_game", manager.submit(gid, ANN.user_id, "pass"))
    ann, bob = await store.standings.stats(ANN.user_id), await store.standings.stats(BOB.user_id)
    assert ann.games == bob.games == 1
    if over[0].winner is not None:
        assert ann.wins + bob.wins == 1 and ann.per_kind["kids"].games == 1
        board = await store.standings.leaderboard(GUILD)
        assert board[0].wins == 1 and board[0].win_rate == 1.0
    # The committed log replays to the final state.
    rec = await store.games.load_game(gid)
    assert rec is not None and rec.status == "finished" and rec.snapshot is not None
    assert replay("kids", 2, rec.seed or 0, rec.actions, **rec.options).to_dict() == \
        rec.snapshot


async def test_resigning_out_of_turn_is_recorded_and_the_last_side_standing_wins(
    manager: GameManager, recorder: Recorder, store: Store
) -> None:
    gid = await two_player_game(manager)
    await manager.resign(gid, BOB.user_id)  # Ann is to move: Bob resigns out of turn
    over = recorder.of(GameOver)[-1]
    assert (over.winner, over.reason, over.winning_seats) == (0, "last_side_standing", (0,))
    assert [a for _, _, a, _ in await store.games.history(gid)] == ["resign:1"]
    assert recorder.of(SeatChanged)[-1].change == "resigned"
    assert (await store.standings.stats(BOB.user_id)).losses == 1


async def test_a_seat_left_with_on_leave_computer_is_played_by_a_computer(
    manager: GameManager, recorder: Recorder
) -> None:
    lobby = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL, on_leave="computer")
    await manager.join(lobby.game_id, BOB)
    await manager.join(lobby.game_id, CAT)
    gid = (await manager.start_game(lobby.game_id, ANN.user_id)).game_id
    await manager.leave_game(gid, BOB.user_id)
    seat = manager.get(gid).seats[1]
    assert seat.is_computer and seat.left and seat.level == "medium"
    assert recorder.of(SeatChanged)[-1].change == "computer"
    # The hand-over is in the engine's history and the action log, so a replay knows it.
    assert [a for _, _, a, _ in await manager.store.games.history(gid)] == ["computer:1"]
    await refused("not_a_player", manager.submit(gid, BOB.user_id, "pass"))
    # Ann moves; the computer plays Bob's seat; Cat is prompted.
    await manager.submit(gid, ANN.user_id, manager.observation_for(gid, 1)["legal"][0])
    await manager.settle()
    assert [m.by for m in recorder.of(Moved)] == ["player", "computer"]
    assert manager.get(gid).turn == 2


async def test_the_host_or_a_moderator_ends_a_game_without_a_result(
    manager: GameManager, recorder: Recorder, store: Store
) -> None:
    gid = await two_player_game(manager)
    await manager.end(gid, EVE.user_id, is_moderator=True)
    over = recorder.of(GameOver)[-1]
    assert (over.reason, over.winner, over.ended_by) == ("ended", None, EVE.user_id)
    assert (await store.standings.stats(ANN.user_id)).games == 0
    rec = await store.games.load_game(gid)
    assert rec is not None and rec.status == "cancelled"


class Exploding:
    async def on_event(self, event: object) -> None:
        raise RuntimeError("the Discord API is down")


async def test_a_listener_that_raises_never_breaks_the_game(
    manager: GameManager, recorder: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    manager.remove_listener(recorder)
    manager.add_listener(Exploding())
    manager.add_listener(recorder)
    gid = await two_player_game(manager)
    await manager.submit(gid, ANN.user_id, manager.observation_for(gid, 1)["legal"][0])
    assert manager.get(gid).ply == 1
    assert len(recorder.of(Moved)) == 1  # the listener after the broken one still hears
    assert "the Discord API is down" in caplog.text


class Commits:
    """A listener that checks each move is in the database when it hears of it."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.checked = 0

    async def on_event(self, event: object) -> None:
        if isinstance(event, Moved):
            log = await self.store.games.history(event.game_id)
            assert log[event.ply][2] == event.action
            self.checked += 1


async def test_a_move_is_committed_before_any_listener_hears_of_it(
    manager: GameManager, store: Store
) -> None:
    check = Commits(store)
    manager.add_listener(check)
    lobby = await manager.create_lobby("dice", {}, ANN, GUILD, CHANNEL)
    await manager.add_computer(lobby.game_id, ANN.user_id, "easy")
    await manager.add_computer(lobby.game_id, ANN.user_id, "easy")
    gid = (await manager.start_game(lobby.game_id, ANN.user_id)).game_id
    await play_out(manager, gid, random.Random(1))
    await asyncio.sleep(0)
    assert check.checked == len(await store.games.history(gid)) > 10


async def test_the_host_or_a_moderator_removes_a_seat_from_a_game_in_play(
    manager: GameManager, recorder: Recorder
) -> None:
    lobby = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    await manager.join(lobby.game_id, BOB)
    await manager.join(lobby.game_id, CAT)
    gid = (await manager.start_game(lobby.game_id, ANN.user_id)).game_id
    # Bob, neither host nor moderator, may not remove Cat.
    await refused("not_host", manager.remove_seat(lobby.game_id, BOB.user_id, 2))
    await manager.remove_seat(lobby.game_id, EVE.user_id, 1, is_moderator=True)
    seat = manager.get(gid).seats[1]
    assert seat.resigned and seat.left
    assert recorder.of(SeatChanged)[-1].change == "removed"
    assert manager.spectator_observation(gid)["resigned"] == [False, True, False]
    # Bob's seat is skipped: after Ann it is Cat's turn.
    await manager.submit(gid, ANN.user_id, manager.observation_for(gid, ANN.user_id)["legal"][0])
    assert manager.get(gid).turn == 2
    await refused("no_such_seat", manager.remove_seat(lobby.game_id, ANN.user_id, 1))


# A deal where Ann, to move first, holds a lion last and the other lion is on top of the
# deck: her hand after playing the lion is the same three cards (found by the seed search
# in test_a_lion_deal_is_what_the_next_test_needs).
LION_AGAIN = 990


def test_a_lion_deal_is_what_the_next_test_needs() -> None:
    from engine import new_game
    from engine.kids import KidsGame
    from engine.kids_board import CARD_NUMBER

    game = new_game("kids", 2, LION_AGAIN)
    assert isinstance(game, KidsGame) and game.current_seat == 0
    assert game.hands[0][-1] == CARD_NUMBER["lion"] == game.deck[-1]


async def test_drawing_another_copy_of_the_card_just_played_still_refreshes_the_hand(
    store: Store, clock: ManualClock
) -> None:
    manager = make_manager(store, clock, seed_source=lambda: LION_AGAIN)
    await manager.start(run_timers=False)
    recorder = Recorder()
    manager.add_listener(recorder)
    gid = await two_player_game(manager)
    # Ann holds a lion; the other lion is on top of the deck: her hand after the move is
    # the same three cards, but she drew, and she waits for a fresh hand.
    hands_before = len(recorder.of(HandChanged))
    await manager.submit(gid, ANN.user_id, "lion@B3")
    fresh = recorder.of(HandChanged)[hands_before:]
    assert [e.user_id for e in fresh] == [ANN.user_id]
    assert "lion" in fresh[0].observation["hand"]
    await manager.close()


class ChangesWhileTold:
    """A listener that (wrongly) makes a move from inside the telling of one."""

    def __init__(self, manager: GameManager) -> None:
        self.manager = manager
        self.failed: list[BaseException] = []

    async def on_event(self, event: Any) -> None:
        if isinstance(event, Moved) and event.ply == 0:
            view = self.manager.get(event.game_id)
            user = view.seats[view.turn].user_id  # type: ignore[index]
            assert user is not None
            legal = self.manager.observation_for(event.game_id, user)["legal"]
            try:
                await self.manager.submit(event.game_id, user, legal[0])
            except RuntimeError as exc:
                self.failed.append(exc)


async def test_a_listener_that_changes_a_game_while_told_of_it_is_stopped_as_a_bug(
    manager: GameManager, recorder: Recorder
) -> None:
    gid = await two_player_game(manager)
    bad = ChangesWhileTold(manager)
    manager.add_listener(bad)
    view = manager.get(gid)
    user = view.seats[view.turn].user_id  # type: ignore[index]
    assert user is not None
    await manager.submit(gid, user, manager.observation_for(gid, user)["legal"][0])
    assert [str(e) for e in bad.failed] == [f"a listener changed game {gid} while being told of it"]
    # (its move was committed and is told all the same, in order, after the first)
    assert [e.ply for e in recorder.of(Moved)] == [0, 1]


async def test_a_move_after_which_the_next_seat_can_only_pass_says_so_and_no_one_is_prompted(
    store: Store, clock: ManualClock
) -> None:
    """A dead card exchanged for another dead one: the pass follows at once, right after
    the move that left the seat nothing to play, and that move says so (``passes_next``),
    so a transport never shows its moment as someone's turn; nobody is prompted to pass."""
    manager = make_manager(store, clock, seed_source=lambda: DEAD_INTO_PASS_SEED)
    recorder = Recorder()
    manager.add_listener(recorder)
    await manager.start(run_timers=False)
    try:
        gid = await two_player_game(manager, "kids", level="1")
        while manager.is_active(gid) and not any(m.passes_next for m in recorder.of(Moved)):
            view = manager.get(gid)
            assert view.turn is not None
            user = view.seats[view.turn].user_id
            assert user is not None
            await manager.submit(gid, user, simple_choice(
                manager.observation_for(gid, user)["legal"]))
        moves = recorder.of(Moved)
        assert [Action.parse(m.action).dead for m in moves[-2:]] == [True, False]
        assert Action.parse(moves[-1].action).what == "pass"
        assert [m.passes_next for m in moves] == [False] * (len(moves) - 2) + [True, False]
        assert moves[-1].by == "auto"
        prompts = recorder.of(TurnStarted)
        assert all(p.observation["legal"] != ["pass"] for p in prompts)
        assert prompts[-1].seat != moves[-1].seat, "the next seat is prompted, not the passer"
    finally:
        await manager.close()
