"""Races: the per-game lock lets exactly one of many clicks for a turn through, and the
store's lock keeps 200 games' commits apart."""

from __future__ import annotations

import asyncio
import random
from collections import Counter, defaultdict

from engine import Refusal, replay
from manager import Event, GameManager, Moved, Player, Store

from .conftest import ANN, GUILD, Recorder, two_player_game

GAMES = int(__import__("os").environ.get("RACE_GAMES", "200"))


async def test_100_concurrent_submissions_of_one_turn_apply_exactly_one(
    manager: GameManager, recorder: Recorder, store: Store
) -> None:
    gid = await two_player_game(manager)
    # Chip placements only: exchanging a dead card would rightly keep the turn.
    legal = [a for a in manager.observation_for(gid, ANN.user_id)["legal"] if "@" in a]
    results = await asyncio.gather(
        *(manager.submit(gid, ANN.user_id, legal[i % len(legal)]) for i in range(100)),
        return_exceptions=True)
    applied = [r for r in results if isinstance(r, Moved)]
    refused = Counter(r.code for r in results if isinstance(r, Refusal))
    assert len(applied) == 1
    assert refused == {"not_your_turn": 99}
    assert len(await store.games.history(gid)) == 1 == len(recorder.of(Moved))


async def test_a_second_click_on_an_old_button_is_already_played(
    manager: GameManager, store: Store
) -> None:
    gid = await two_player_game(manager, "dice")
    view = manager.get(gid)
    assert view.turn is not None
    user = view.seats[view.turn].user_id
    assert user is not None
    # The roll keeps the turn with the same player: only the ply tells the clicks apart.
    results = await asyncio.gather(
        *(manager.submit(gid, user, "roll", expected_ply=view.ply) for _ in range(100)),
        return_exceptions=True)
    assert sum(isinstance(r, Moved) for r in results) == 1
    assert {r.code for r in results if isinstance(r, Refusal)} == {"already_played"}
    assert (await store.games.history(gid))[0][2] == "roll"


class Wakeups:
    """Wakes a game's player loop whenever that game announces something."""

    def __init__(self) -> None:
        self.events: defaultdict[int, asyncio.Event] = defaultdict(asyncio.Event)

    async def on_event(self, event: Event) -> None:
        self.events[event.game_id].set()


async def test_200_games_played_concurrently_end_with_intact_logs(
    manager: GameManager, store: Store
) -> None:
    wake = Wakeups()
    manager.add_listener(wake)

    async def one_game(i: int) -> int:
        host, guest = Player(1000 + 2 * i, f"P{i}a"), Player(1001 + 2 * i, f"P{i}b")
        kind = "kids" if i % 2 else "dice"
        lobby = await manager.create_lobby(kind, {}, host, GUILD, 10_000 + i)
        await manager.join(lobby.game_id, guest)
        if i % 3 == 0:
            await manager.add_computer(lobby.game_id, host.user_id, "easy")
        gid = (await manager.start_game(lobby.game_id, host.user_id)).game_id
        rng = random.Random(i)
        # People play a while, then whoever is to move resigns (or the game ends first): the logs
        # of all 200 games interleave in the store without ~20,000 fsyncs of whole games.
        moves_left = rng.randint(5, 40)
        while True:
            woken = wake.events[gid]
            woken.clear()  # before looking, so no announcement is missed
            if not manager.is_active(gid):
                return gid
            view = manager.get(gid)
            turn = view.turn
            if turn is None or view.seats[turn].is_computer:
                await woken.wait()
                continue
            user = view.seats[turn].user_id
            assert user is not None
            if moves_left == 0:
                await manager.resign(gid, user)
                continue
            moves_left -= 1
            await manager.submit(gid, user, rng.choice(
                manager.observation_for(gid, user)["legal"]), expected_ply=view.ply)

    ids = await asyncio.gather(*(one_game(i) for i in range(GAMES)))
    await manager.settle()
    assert len(set(ids)) == GAMES
    for gid in ids:
        rec = await store.games.load_game(gid)
        assert rec is not None and rec.status == "finished" and rec.snapshot is not None
        assert rec.snapshot["history"] == rec.actions  # every ply, none from another game
        assert rec.seed is not None
        assert replay(rec.kind, len(rec.seats), rec.seed, rec.actions,
                      **rec.options).to_dict() == rec.snapshot


async def test_a_move_counts_as_being_announced_from_its_step_to_its_last_listener(
    manager: GameManager, store: Store, monkeypatch: object
) -> None:
    """A restarted bot's recovery waits while ``announcing``: the game already holds the
    move while its commit is awaited, so that window must count, or recovery would read
    the new position and show it before the move's own board does."""
    gid = await two_player_game(manager)
    assert not manager.announcing(gid)
    gate, holding = asyncio.Event(), asyncio.Event()
    record = store.games.record

    async def slow_record(*args: object, **kwargs: object) -> object:
        holding.set()
        await gate.wait()
        return await record(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store.games, "record", slow_record)  # type: ignore[attr-defined]
    told: list[bool] = []

    class Listener:
        async def on_event(self, event: Event) -> None:
            told.append(manager.announcing(gid))

    manager.add_listener(Listener())
    view = manager.get(gid)
    user = view.seats[view.turn].user_id  # type: ignore[index]
    legal = manager.observation_for(gid, user)["legal"]  # type: ignore[arg-type]
    move = asyncio.create_task(manager.submit(gid, user, legal[0]))  # type: ignore[arg-type]
    await asyncio.wait_for(holding.wait(), 5)
    assert manager.announcing(gid), "applied, commit pending: not quiet"
    gate.set()
    await move
    assert told and all(told), "quiet only once every listener has heard"
    assert not manager.announcing(gid)
