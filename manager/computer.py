"""Computer players at the table: empty seats, timed-out turns, and hints.

The players themselves are ``engine.ai``'s (``make_agent(level, seed)``, the ``Agent``
class). What the manager adds is one safety net, here and nowhere else: a player that
fails or answers an illegal action is replaced, for that move, by a seeded random legal
move, so a bug in a computer player never stops a game.

``Computers`` owns what this process keeps for them: each game's players (seeded per
seat, so a game replays the same) and the task that plays its computers' turns (the
driver), one per game while a computer is to move. A driver that meets the database away
(``StoreUnavailable``) does not stop: it waits until the database answers again (or a
little while: ``Outages.wait_to_retry``) and plays the turn then, the same move (a
computer's move is seeded by the game and the ply).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from engine.ai import Agent, Explanation, make_agent
from engine.errors import Refusal
from engine.game import Game
from engine.observation import Observation
from store import Outages, Status, StoreUnavailable

from .outbox import Outbox
from .sharing import Sharing
from .step import TAKEOVER_LEVEL, Steps, applying
from .table import Table
from .timers import Clock

log = logging.getLogger(__name__)

HINT_LEVEL = "medium"  # the greedy player: it wins, blocks and builds, and says why


@dataclass(frozen=True)
class Hint:
    """The move suggested to a player, why, and the position it was suggested for (the
    observation of the asking seat, with ``legal``), to draw it."""

    action: str
    why: Explanation
    observation: Observation


def choose(agent: Agent, observation: Observation, seed: int) -> str:
    """The agent's action, or a random legal one if it fails or answers nonsense.

    Runs in a worker thread (``asyncio.to_thread``): search may take a while.
    """
    legal: list[str] = observation["legal"]
    try:
        action = agent.choose(_plain(observation))
        if action in legal:
            return action
        log.error("computer player %s chose %r, not a legal action; playing random",
                  type(agent).__name__, action)
    except Exception:
        log.exception("computer player %s failed; playing random", type(agent).__name__)
    return random.Random(seed).choice(legal)


def suggest(observation: Observation, seed: int) -> Hint:
    """The hint player's move for the seat to move in ``observation``, and its reason.

    Runs in a worker thread. The reason is the engine's explanation of the move actually
    suggested (after the safety net), so it never explains a move that is not shown."""
    agent = make_agent(HINT_LEVEL, seed)
    action = choose(agent, observation, seed)
    try:
        why = agent.explain(_plain(observation), action)
    except Exception:
        log.exception("no explanation for the hint %r", action)
        why = Explanation("good_move")
    return Hint(action, why, observation)


class Computers:
    """The computer players of every game this process holds, and their drivers."""

    def __init__(self, sharing: Sharing, steps: Steps, outbox: Outbox, clock: Clock,
                 outages: Outages, *, delay: float,
                 make: Callable[[str, int], Agent] = make_agent) -> None:
        """``outages``: the store's, to wait on while the database is away."""
        self._sharing = sharing
        self._steps = steps
        self._outbox = outbox
        self._clock = clock
        self._outages = outages
        self.delay = delay  # seconds a computer waits before it moves, so people can follow
        self._make = make  # make_agent(level, seed); tests and benchmarks pass a fast one
        self._drivers: dict[int, asyncio.Task[None]] = {}
        self._agents: dict[int, dict[int, Agent]] = {}
        self._halted = False

    def agent(self, table: Table, seat: int, level: str) -> Agent:
        """The player of one seat (made once per game and seat, seeded by both)."""
        agents = self._agents.setdefault(table.id, {})
        agent = agents.get(seat)
        if agent is None:
            assert table.game is not None
            agent = agents[seat] = self._make(level, table.game.seed * 4 + seat)
        return agent

    def tidy(self, table: Table) -> None:
        """After a change: a computer to move gets someone thinking for it; an ended game
        lets its players go."""
        if not table.active:
            self.forget(table.id)
        elif table.computer_to_move:
            self.kick(table)

    async def after(self, table: Table) -> None:
        """After a change, its lock let go: ``tidy``, then the change's queued events are
        told (the one order for every change: a computer to move starts thinking while its
        turn is announced)."""
        self.tidy(table)
        await self._outbox.flush(table.id)

    def kick(self, table: Table) -> None:
        """Make sure a computer seat to move has someone thinking for it."""
        if self._halted or not table.computer_to_move:
            return
        driver = self._drivers.get(table.id)
        if driver is None or driver.done():
            self._drivers[table.id] = asyncio.create_task(self._drive(table.id),
                                                          name=f"computer-{table.id}")

    def thinking(self, game_id: int) -> bool:
        driver = self._drivers.get(game_id)
        return driver is not None and not driver.done()

    def busy(self) -> bool:
        """Whether any computer player is thinking or waiting to move."""
        return any(not d.done() for d in self._drivers.values())

    def forget(self, game_id: int) -> None:
        """The game ended: stop its driver (unless it is the one asking: its own move ended
        the game, and it waits for the end to be told) and its players. A driver stopped
        while it waits for its move's events to be told stops waiting, and no more: the
        telling is the outbox's, and goes on (with the events of the move that ended the
        game, queued behind)."""
        driver = self._drivers.pop(game_id, None)
        if driver is not None and driver is not asyncio.current_task():
            driver.cancel()
        self._agents.pop(game_id, None)

    def games_held(self) -> int:
        """Games with players or a driver here (stays 0 between games)."""
        return len(set(self._agents) | {g for g, d in self._drivers.items() if not d.done()})

    async def settle(self) -> None:
        """Wait until no computer player is thinking or waiting to move (tests, demo)."""
        while True:
            busy = [d for d in self._drivers.values() if not d.done()]
            if not busy:
                return
            await asyncio.gather(*busy, return_exceptions=True)

    def halt(self) -> list[asyncio.Task[None]]:
        """Shutting down: no new driver; the ones thinking or waiting are cancelled (to be
        awaited). What they were telling is the outbox's to cut (``Outbox.halt``)."""
        self._halted = True
        drivers = [d for d in self._drivers.values() if not d.done()]
        for driver in drivers:
            driver.cancel()
        return drivers

    async def _drive(self, game_id: int) -> None:
        """Play the computers' turns of one game until a person is to move."""
        pause = True
        while not self._halted:
            try:
                if not await self._play_one(game_id, pause=pause):
                    return
                pause = True
            except asyncio.CancelledError:
                raise
            except StoreUnavailable:
                # (said once by the store) the turn is played when the database answers,
                # at once: people have waited long enough to follow
                pause = False
                await self._outages.wait_to_retry()
            except Refusal:
                # the game ended meanwhile (elsewhere: another process's change, which
                # this one only followed), so its players are let go here
                self._agents.pop(game_id, None)
                return
            except Exception:
                log.exception("computer player of game %d stopped", game_id)
                return

    async def _play_one(self, game_id: int, *, pause: bool = True) -> bool:
        """One computer turn, if a computer is to move; False when none is. ``pause``:
        first wait ``delay`` seconds, so people can follow."""
        async with self._sharing.locked(game_id) as table:
            if not table.computer_to_move:
                return False
            game = table.playing()
            seat = game.current_seat
            assert seat is not None
            ply = len(game.history)
            obs, seed = game.observation(seat), move_seed(game)
            agent = self.agent(table, seat, table.seats[seat].level or TAKEOVER_LEVEL)
        if pause:
            await self._clock.sleep(self.delay)
        action = await asyncio.to_thread(choose, agent, obs, seed)
        async with self._sharing.locked(game_id) as table:
            if (table.game is not game or table.status is not Status.PLAYING
                    or len(game.history) != ply):
                return True  # something else moved meanwhile (or it was read again): look
            await self._steps.step(table, seat, applying(action), by="computer",
                                   user_id=None)
            await self._steps.settle_forced(table)
        await self.after(table)  # (this driver goes on playing: ``kick`` sees it running)
        return True


def move_seed(game: Game) -> int:
    """The seed of a computer's move, whoever makes it (its own turn, or a turn the timer
    plays for an absent person): the game's seed and the move's place in it, so the same
    position in the same game is always played the same way, in any process."""
    return game.seed + len(game.history)


def _plain(observation: Observation) -> dict[str, Any]:
    """``engine.ai`` types observations as plain dicts; at run time they are one (the same
    object is passed, not a copy)."""
    return cast("dict[str, Any]", observation)


__all__ = ["HINT_LEVEL", "Agent", "Computers", "Hint", "choose", "make_agent", "suggest"]
