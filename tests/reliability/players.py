"""People who keep playing whatever happens to the bot.

They take the newest message that lets them act (a DM hand, a board's "My hand" or "Roll"),
even one sent by a bot process that has since been killed, and fall back to what a person
would do when that fails: ``/sequence hand``-like ephemeral hands, ``/sequence roll``,
``/sequence play``. Whose turn it is comes from the database (``truth``), because after a
crash the channel may not say it (that is checked separately, as a finding).

Every move a person is told was played ("Played: ...") is written down in ``Ledger`` so
the test can check that none of them was lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakediscord import ClientRefused, FakeDiscord, FakeMessage, Interaction, Person

from .harness import board_messages
from .truth import GameTruth, read_games

log = logging.getLogger(__name__)

PLAYED = "Played: "
# "Alice rolled 3 and 4." or "Alice rolled 4 + 4 = 8, but ... no move" (nothing fits)
ROLLED = re.compile(r"rolled \d+ (?:and \d+\.|\+ \d+ = \d+)")


@dataclass
class Ledger:
    """Moves people were told were played: (game id, ply, action)."""

    confirmed: list[tuple[int, int, str]] = field(default_factory=list)
    old_button_clicks: int = 0  # clicks on buttons sent by an earlier bot process
    fallbacks: int = 0  # times a person had to use a slash command instead of a button

    def lost(self, games: dict[int, GameTruth]) -> list[tuple[int, int, str]]:
        """Confirmed moves the database does not hold at their ply."""
        out = []
        for gid, ply, action in self.confirmed:
            actions = games[gid].actions if gid in games else ()
            if ply >= len(actions) or actions[ply] != action:
                out.append((gid, ply, action))
        return out


def newest_with(messages: list[FakeMessage], prefix: str) -> FakeMessage | None:
    for message in reversed(messages):
        if any(c.startswith(prefix) for c in message.custom_ids()):
            return message
    return None


@dataclass
class Player:
    """One person at one table."""

    person: Person
    ledger: Ledger
    timeout: float = 4.0
    dm_hand: bool = True  # False: DMs are closed, go straight to "My hand"
    #: message ids sent by earlier bot processes (set by the kill loop at each restart)
    old_messages: set[int] = field(default_factory=set)

    @property
    def fake(self) -> FakeDiscord:
        return self.person.server

    async def take_turn(self, game: GameTruth) -> bool:
        """Try to make one move in ``game`` (it is this person's turn). True if played."""
        if game.kind == "kids":
            return await self._kids_turn(game)
        return await self._dice_turn(game)

    # ------------------------------------------------------------------ Kids
    async def _kids_turn(self, game: GameTruth) -> bool:
        replayed = game.replayed()
        cards = set(replayed.observation(replayed.current_seat)["hand"])

        def current_hand() -> FakeMessage | None:
            # the DM for the newest hand may still be on its way (commit comes first)
            hand = newest_with(self.person.dms(), f"seq:card:{game.id}:")
            if hand is None or {c.rsplit(":", 1)[1] for c in hand.custom_ids()} != cards:
                return None
            return hand

        hand = None
        if self.dm_hand:
            with contextlib.suppress(TimeoutError):
                await self.fake.wait_for(current_hand, 1.0, "the newest hand")
            hand = current_hand() or newest_with(self.person.dms(), f"seq:card:{game.id}:")
        if hand is not None and await self._play_from(hand, game):
            return True
        board = newest_with(board_messages(self.fake, game.channel_id), f"seq:hand:{game.id}")
        if board is None:
            return False
        self.ledger.fallbacks += 1
        mine = await (await self._click(board, f"seq:hand:{game.id}")).reply(self.timeout)
        return await self._play_from(mine, game)

    async def _play_from(self, hand: FakeMessage, game: GameTruth) -> bool:
        for card_id in [c for c in hand.custom_ids() if c.startswith("seq:card:")]:
            prompt = await (await self._click(hand, card_id)).changed(self.timeout)
            if list(prompt.components()):
                return await self._choose(prompt, game)
        return False

    # ------------------------------------------------------------------ Dice
    async def _dice_turn(self, game: GameTruth) -> bool:
        replayed = game.replayed()
        seat = replayed.current_seat
        legal = replayed.observation(seat)["legal"]
        if legal == ["roll"]:
            wanted = f"seq:roll:{game.id}:{len(game.actions)}"

            def current_board() -> FakeMessage | None:
                return newest_with(board_messages(self.fake, game.channel_id), wanted)

            with contextlib.suppress(TimeoutError):
                await self.fake.wait_for(current_board, 1.0, "the newest board")
            board = current_board() or newest_with(board_messages(self.fake, game.channel_id),
                                                   f"seq:roll:{game.id}:")
            prompt = None
            if board is not None:
                prompt = await (await self._click(
                    board, next(c for c in board.custom_ids() if c.startswith("seq:roll:")))
                ).reply(self.timeout)
            if prompt is None or not (list(prompt.components()) or ROLLED.search(prompt.content)):
                self.ledger.fallbacks += 1
                prompt = await (await self.person.slash(
                    "sequence roll", channel=game.channel_id, timeout=self.timeout)
                ).reply(self.timeout)
            if list(prompt.components()):
                return await self._choose(prompt, game)
            return bool(ROLLED.search(prompt.content))  # a roll allowing nothing: forced pass
        # rolled already (the prompt was lost with a crashed bot): the slash command
        self.ledger.fallbacks += 1
        spaces = await self.person.autocomplete("sequence play", "space", "",
                                                channel=game.channel_id, timeout=self.timeout)
        if not spaces:
            return False
        reply = await (await self.person.slash(
            "sequence play", space=spaces[0]["value"], channel=game.channel_id,
            timeout=self.timeout)).reply(self.timeout)
        if reply.content.startswith(PLAYED):
            self.ledger.confirmed.append((game.id, len(game.actions), spaces[0]["value"]))
            return True
        return False

    # ------------------------------------------------------------------ common
    async def _click(self, message: FakeMessage, custom_id: str) -> Interaction:
        if message.id in self.old_messages:
            self.ledger.old_button_clicks += 1
        return await self.person.click(message, custom_id, timeout=self.timeout)

    async def _choose(self, prompt: FakeMessage, game: GameTruth) -> bool:
        """Take the first move offered on a prompt; record it once the bot says it's played."""
        buttons = [b["custom_id"] for b in prompt.buttons()
                   if b["custom_id"].startswith("seq:play:")]
        if buttons:
            custom_id = buttons[0]
            m = re.fullmatch(r"seq:play:(\d+):(\d+):(.+)", custom_id)
            assert m is not None
            ply, action = int(m[2]), m[3]
            await self._click(prompt, custom_id)
        else:
            menu = prompt.selects()[0]
            m = re.fullmatch(r"seq:spaces:(\d+):(\d+):\d+", menu["custom_id"])
            assert m is not None
            ply, action = int(m[2]), menu["options"][0]["value"]
            if prompt.id in self.old_messages:
                self.ledger.old_button_clicks += 1
            await self.person.select(prompt, menu["custom_id"], [action], timeout=self.timeout)
        try:
            await self.fake.wait_for(lambda: prompt.content.startswith(PLAYED), self.timeout,
                                     "the prompt to say the move was played")
        except TimeoutError:
            return False
        self.ledger.confirmed.append((int(m[1]), ply, action))
        return True


EXPECTED_FAILURES = (TimeoutError, ClientRefused, KeyError, IndexError)


async def play_until_over(database: Path, gid: int, players: dict[int, Player], *,
                          time_limit: float = 60.0, up: asyncio.Event | None = None,
                          down: asyncio.Event | None = None,
                          stuck_after: float = 30.0) -> GameTruth | None:
    """People take their turns until the database says game ``gid`` is over.

    Computer seats play by themselves. ``up``: wait for it before each turn (the bot is
    being restarted). ``down``: set while the bot is killed; a person gives up the turn in
    hand at once and tries again when the bot is back, as one does when Discord says "This
    interaction failed". (Waiting out each click's timeout instead let kills that come
    every second or two starve the slower Kids turns: about 1 run in 2 saw a game make no
    progress for 30 s.) Returns the game as stored at the end (None if it never existed).
    """
    deadline = time.monotonic() + time_limit
    stuck_since, last_len = time.monotonic(), -1
    game = None
    while time.monotonic() < deadline:
        if up is not None:
            await up.wait()
        game = (await asyncio.to_thread(read_games, database)).get(gid)
        if game is None or game.status != "playing":
            return game
        if len(game.actions) != last_len:
            last_len, stuck_since = len(game.actions), time.monotonic()
        elif time.monotonic() - stuck_since > stuck_after:
            log.warning("game %d made no progress for %.0f s", gid, stuck_after)
            r = game.replayed()  # where it stands, for whoever reads the run's log
            log.warning("game %d (%s): seat %s to move (%s), %d actions, the last %s", gid,
                        game.kind, r.current_seat,
                        "a person" if game.is_human(r.current_seat) else "a computer",
                        len(game.actions), list(game.actions[-3:]))
            return game
        seat = game.replayed().current_seat
        if not game.is_human(seat):
            await asyncio.sleep(0.02)  # a computer player moves by itself
            continue
        player = players[game.user_of(seat)]  # type: ignore[index]
        try:
            done = await _unless_down(player.take_turn(game), down)
        except EXPECTED_FAILURES:
            done = False
        except RuntimeError as exc:
            # the gateway session is gone (a drop without RESUME): the click goes nowhere,
            # as it would on Discord, until the bot identifies again
            if "has not identified" not in str(exc):
                raise
            done = False
        if not done:
            await asyncio.sleep(0.1)
    return game


async def _unless_down(turn: Coroutine[Any, Any, bool], down: asyncio.Event | None) -> bool:
    """``await turn``, or False as soon as ``down`` is set (the turn is dropped)."""
    if down is None:
        return await turn
    if down.is_set():
        turn.close()
        return False
    task = asyncio.ensure_future(turn)
    killed = asyncio.ensure_future(down.wait())
    try:
        await asyncio.wait({task, killed}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        killed.cancel()
    if task.done():
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, *EXPECTED_FAILURES):
        await task
    return False
