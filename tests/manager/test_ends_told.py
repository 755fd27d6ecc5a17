"""Every end is told, however the moves before it are being told: a game that ends while a
computer's move is still on its way to the listeners (its board held at a slow Discord)
tells that move, then the end, in order. Cancelling the computer player of a game that
ended never cancels the telling under way (issue 46: the page said "alice won!", the
channel got the computer's board and nothing after it)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable

import pytest

from engine.factory import load
from manager import GameManager, GameOver, ManualClock, Moved, Store
from manager.events import Event, TurnStarted

from .conftest import ANN, CHANNEL, GUILD, make_manager


class HeldComputerMoves:
    """A listener that holds each computer move it is told of until the test lets it
    go (the bot posting its board to a Discord that answers late)."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.holding = asyncio.Event()
        self.release = asyncio.Event()
        self.let_go = 0  # holds released so far

    async def on_event(self, event: Event) -> None:
        self.events.append(event)
        if isinstance(event, Moved) and event.by == "computer":
            self.holding.set()
            await self.release.wait()
            self.holding.clear()
            self.release.clear()
            self.let_go += 1

    async def let_one_go(self) -> None:
        """Release the move held now, and wait until it is (the next computer move may
        be held at once: a person's forced pass gives the computer another turn)."""
        let_go = self.let_go
        self.release.set()
        await until_told(lambda: self.let_go > let_go, "the held move let go")

    def of(self, kind: type[Event]) -> list[Event]:
        return [e for e in self.events if isinstance(e, kind)]


class Changes:
    """Ann's moves and the timers' turns, each made in a task of its own, as a person's
    click is: a change returns once its game's events are told, and those of a change
    queued behind them are told by the same telling (``Outbox.flush``): the computer's
    answer, which moves at once here, when it commits while Ann's move is still being
    told (a listener awaiting Discord). The test holds that answer, so a change awaited
    in line would wait for the test itself: it hung so, with no error, on a loaded CI
    machine (and every time with Ann's telling 50 ms long)."""

    def __init__(self, held: HeldComputerMoves) -> None:
        self._held = held
        self._made: list[asyncio.Future[object]] = []

    async def make(self, change: Awaitable[object]) -> None:
        """Start ``change``, and wait until it returned or a computer's move is held."""
        made = asyncio.ensure_future(change)
        self._made.append(made)
        async with asyncio.timeout(5):
            while not made.done() and not self._held.holding.is_set():
                await asyncio.sleep(0.002)
        if made.done():
            made.result()  # (a refusal would be the test's mistake: said here)

    async def all_returned(self) -> None:
        """Every change made has returned (each held move let go by now)."""
        async with asyncio.timeout(5):
            await asyncio.gather(*self._made)


async def until_told(check: Callable[[], bool], what: str) -> None:
    async with asyncio.timeout(5):
        while not check():
            await asyncio.sleep(0.005)
    assert check(), what


async def game_against_a_computer(manager: GameManager, **options: object) -> int:
    lobby = await manager.create_lobby("kids", dict(options), ANN, GUILD, CHANNEL)
    await manager.add_computer(lobby.game_id, ANN.user_id, "easy")
    return (await manager.start_game(lobby.game_id, ANN.user_id)).game_id


async def first_held_computer_move(manager: GameManager, gid: int,
                                   held: HeldComputerMoves, changes: Changes) -> None:
    """Ann plays until a computer move of hers to answer is being told (and held)."""
    rng = random.Random(7)
    while not held.holding.is_set():
        view = manager.get(gid)
        if view.turn == 0:
            obs = manager.observation_for(gid, ANN.user_id)
            await changes.make(manager.submit(gid, ANN.user_id, rng.choice(obs["legal"])))
        await asyncio.sleep(0.005)


Ending = Callable[[GameManager, int], Awaitable[object]]


async def resigning(manager: GameManager, gid: int) -> object:
    return await manager.resign(gid, ANN.user_id)


async def leaving(manager: GameManager, gid: int) -> object:
    return await manager.leave_game(gid, ANN.user_id)


@pytest.mark.parametrize("ending", [resigning, leaving], ids=["resignation", "leave"])
async def test_an_end_made_while_a_computer_move_is_told_is_told_after_it(
        manager: GameManager, ending: Ending) -> None:
    held = HeldComputerMoves()
    changes = Changes(held)
    manager.add_listener(held)
    gid = await game_against_a_computer(manager)
    await first_held_computer_move(manager, gid, held, changes)
    computer = held.of(Moved)[-1]
    await ending(manager, gid)  # the computer's board is still on its way
    held.release.set()
    await until_told(lambda: bool(held.of(GameOver)), "the end was told")
    await changes.all_returned()
    plies = [e.ply for e in held.of(Moved)]  # type: ignore[attr-defined]
    assert plies == sorted(set(plies)), "each move told once, in order"
    assert held.events.index(computer) < held.events.index(held.of(GameOver)[0])
    assert not manager.is_active(gid)


async def test_a_winning_move_made_while_a_computer_move_is_told_is_told_after_it(
        manager: GameManager) -> None:
    """Ann wins on the turn the computer's move gave her, while that move is told."""
    held = HeldComputerMoves()
    changes = Changes(held)
    manager.add_listener(held)
    rng = random.Random(3)
    for _attempt in range(40):
        gid = await game_against_a_computer(manager, level=1)
        while manager.is_active(gid):
            if not held.holding.is_set():
                if _told_her_turn(held, manager, gid):
                    legal = manager.observation_for(gid, ANN.user_id)["legal"]
                    await changes.make(manager.submit(
                        gid, ANN.user_id, _not_winning(manager, gid, legal, rng)))
                await asyncio.sleep(0.002)
                continue
            win = _winning(manager, gid)  # the computer's move is being told
            if win is None:
                await held.let_one_go()
                continue
            await changes.make(manager.submit(gid, ANN.user_id, win))
            held.release.set()
            await until_told(lambda g=gid: any(e.table.game_id == g  # type: ignore[misc]
                                               for e in held.of(GameOver)),
                             "the winning move's end was told")
            await changes.all_returned()
            mine = [e for e in held.events if e.table.game_id == gid]
            last = [e for e in mine if isinstance(e, Moved)][-1]
            over = next(e for e in mine if isinstance(e, GameOver))
            assert (last.action, last.by) == (win, "player")
            assert mine.index(last) < mine.index(over)
            assert isinstance(over, GameOver) and over.winner == 0
            return
        while held.holding.is_set():  # the computer won: its end is told after the move
            await held.let_one_go()
    pytest.fail("no game gave Ann a winning move right after a computer's move")


def _told_her_turn(held: HeldComputerMoves, manager: GameManager, gid: int) -> bool:
    """Ann's turn, told (she plays what she is shown, after the computer's move)."""
    view = manager.get(gid)
    return view.turn == 0 and any(isinstance(e, TurnStarted) and e.seat == 0
                                  and e.table.game_id == gid and e.table.ply == view.ply
                                  for e in held.events)


def _outcome(manager: GameManager, gid: int, action: str) -> bool:
    game = load(manager.game_state(gid))
    game.apply(action)
    return game.is_over


def _winning(manager: GameManager, gid: int) -> str | None:
    view = manager.get(gid)
    if view.turn != 0:
        return None
    legal = manager.observation_for(gid, ANN.user_id)["legal"]
    return next((a for a in legal if _outcome(manager, gid, a)), None)


def _not_winning(manager: GameManager, gid: int, legal: list[str], rng: random.Random
                 ) -> str:
    safe = [a for a in legal if not _outcome(manager, gid, a)]
    return rng.choice(safe or legal)


async def test_a_turn_timer_ending_the_game_while_a_computer_move_is_told_is_told(
        store: Store, clock: ManualClock) -> None:
    """Ann is away: her turns run out, and her last absence frees her seat, which ends a
    game against a computer while the computer's move is still on its way."""
    manager = make_manager(store, clock)
    await manager.start(run_timers=False)
    try:
        held = HeldComputerMoves()
        changes = Changes(held)
        manager.add_listener(held)
        lobby = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL, turn_timer=60)
        await manager.add_computer(lobby.game_id, ANN.user_id, "easy")
        gid = (await manager.start_game(lobby.game_id, ANN.user_id)).game_id
        for _ in range(200):
            if not manager.is_active(gid):
                break
            holding = held.holding.is_set()
            clock.advance(61)  # Ann's turn runs out (every timer due at once)
            await changes.make(manager.check_timers())
            if holding and manager.is_active(gid):
                await held.let_one_go()  # not the end yet: the next move
            await asyncio.sleep(0.002)
        assert not manager.is_active(gid), "the timer freed Ann's seat"
        held.release.set()
        await until_told(lambda: bool(held.of(GameOver)), "the end was told")
        await changes.all_returned()
    finally:
        await manager.close()
