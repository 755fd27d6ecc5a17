"""What a page may ask, checked, and done through the same manager calls as the chat.

Every message from a page is untrusted: it must be a small JSON object of a known kind with
well-formed fields, within the person's pace, or it is refused with a clear reason and
nothing changes. A move is ``GameManager.submit(..., expected_ply=..., via="activity")``,
the call the chat's buttons make, under the same lock and commit: a move another tab or
the chat made first is refused by its ply (``already_played``), as a stale button is, and
the page is sent the table as it is. A move resent after a dropped connection carries the
same ply, so it is applied once or refused, never twice.

Who acts is the session's person, never a seat the page names: the manager plays the seat
they hold whose turn it is (a grown-up holding a child's seat plays it).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from engine import Refusal
from engine.action import Action, as_action
from manager import COMPUTER_LEVELS, GameManager, Player
from render.words import t
from store import StoreUnavailable

from .hub import Hub, Viewer, frame_of

log = logging.getLogger(__name__)

MAX_MESSAGE = 512  # bytes: the largest message a page has reason to send
ROLL = Action("roll")
MAX_PLY = 100_000
OPEN_COMPUTER = "easy"  # the computer a page adds: a gentle partner for a small child
MAX_COMPUTERS = 3


class Pace:
    """Each person's messages, at most ``rate`` a second with bursts of ``burst`` (a token
    bucket, shared by all of a person's pages in this process). Discord paces a person's
    clicks in chat; here the bot does."""

    def __init__(self, rate: float = 5.0, burst: int = 12,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst = rate, burst
        self._clock = clock
        self._buckets: dict[int, tuple[float, float]] = {}

    def allow(self, user_id: int) -> bool:
        now = self._clock()
        tokens, at = self._buckets.get(user_id, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - at) * self.rate)
        if len(self._buckets) > 10_000:  # (forget the people long quiet)
            self._buckets = {u: v for u, v in self._buckets.items() if now - v[1] < 60}
        if tokens < 1:
            self._buckets[user_id] = (tokens, now)
            return False
        self._buckets[user_id] = (tokens - 1, now)
        return True


class Asker(Viewer, Protocol):
    """A page that asks: a viewer with a name, a language and the server it is in."""

    name: str
    guild_id: int | None


class BadMessage(Exception):
    """A message that is not one a page sends (its reason, for the log)."""


class Play:
    """Turns a page's messages into manager calls."""

    def __init__(self, manager: GameManager, hub: Hub, pace: Pace | None = None) -> None:
        self._manager = manager
        self._hub = hub
        self.pace = pace or Pace()
        self._kinds: dict[str, Callable[[Asker, dict[str, Any]], Awaitable[None]]] = {
            "move": self._move, "roll": self._roll, "open": self._open,
            "join": self._join, "computer": self._computer, "start": self._start,
            "leave": self._leave, "rematch": self._rematch, "ping": self._ping,
        }

    async def handle(self, asker: Asker, text: str) -> None:
        """One message from a page; a refusal goes back to it, and nothing changes."""
        try:
            message = parse(text)
            kind = self._kinds.get(message["t"])
            if kind is None:
                raise BadMessage(f"unknown kind {message['t']!r}")
        except BadMessage as exc:
            log.debug("a page of user %d sent a bad message: %s", asker.user_id, exc)
            self._refuse(asker, "bad_message", t("activity.refused.bad_message", asker.lang))
            return
        if message["t"] != "ping" and not self.pace.allow(asker.user_id):
            self._refuse(asker, "too_fast", t("activity.refused.too_fast", asker.lang))
            return
        try:
            await kind(asker, message)
        except BadMessage as exc:
            log.debug("a page of user %d sent a bad message: %s", asker.user_id, exc)
            self._refuse(asker, "bad_message", t("activity.refused.bad_message", asker.lang))
        except Refusal as exc:
            self._refuse(asker, exc.code, t(f"error.{exc.code}", asker.lang, **exc.params))
        except StoreUnavailable:
            self._refuse(asker, "store_unavailable", t("error.store_unavailable", asker.lang))
        except Exception:
            log.exception("a page's %s from user %d failed", message["t"], asker.user_id)
            self._refuse(asker, "unknown", t("error.unknown", asker.lang))

    def _refuse(self, asker: Asker, code: str, text: str) -> None:
        asker.push(frame_of("refused", code=code, text=text))
        self._hub.refresh(asker)  # the page puts its taps back as the table is

    def _game(self, asker: Asker) -> int:
        if asker.game_id is None:
            raise Refusal("no_table", "There is no game here any more.")
        return asker.game_id

    # -- the kinds ---------------------------------------------------------------------

    async def _move(self, asker: Asker, message: dict[str, Any]) -> None:
        text = message.get("action")
        action = as_action(text) if isinstance(text, str) else None
        if action is None or action == ROLL:  # (a roll is a message of its own)
            raise BadMessage(f"bad action {text!r}")
        await self._submit(asker, action.text, ply_of(message))

    async def _roll(self, asker: Asker, message: dict[str, Any]) -> None:
        await self._submit(asker, "roll", ply_of(message))

    async def _submit(self, asker: Asker, action: str, ply: int) -> None:
        game_id = self._game(asker)
        await self._manager.catch_up(game_id)  # (several processes: see catch_up)
        await self._manager.submit(game_id, asker.user_id, action, expected_ply=ply,
                                   via="activity")

    async def _open(self, asker: Asker, message: dict[str, Any]) -> None:
        """A table where there is none (as ``/sequence new``, the page's person hosting),
        with computer players; with any, it starts at once."""
        game = message.get("game")
        computers = message.get("computers")
        if game not in ("kids", "dice"):
            raise BadMessage(f"bad game {game!r}")
        if (not isinstance(computers, int) or isinstance(computers, bool)
                or not 0 <= computers <= MAX_COMPUTERS):
            raise BadMessage(f"bad computers {computers!r}")
        table = await self._manager.create_lobby(
            game, None, Player(asker.user_id, asker.name), asker.guild_id, asker.channel_id)
        self._hub.follow(asker, table.game_id)
        for _ in range(computers):
            await self._manager.add_computer(table.game_id, asker.user_id, OPEN_COMPUTER)
        if computers:
            await self._manager.start_game(table.game_id, asker.user_id)

    async def _join(self, asker: Asker, message: dict[str, Any]) -> None:
        await self._manager.join(self._game(asker), Player(asker.user_id, asker.name))

    async def _computer(self, asker: Asker, message: dict[str, Any]) -> None:
        level = message.get("level", OPEN_COMPUTER)
        if level not in COMPUTER_LEVELS:
            raise BadMessage(f"bad level {level!r}")
        await self._manager.add_computer(self._game(asker), asker.user_id, str(level))

    async def _start(self, asker: Asker, message: dict[str, Any]) -> None:
        await self._manager.start_game(self._game(asker), asker.user_id)

    async def _leave(self, asker: Asker, message: dict[str, Any]) -> None:
        await self._manager.leave(self._game(asker), asker.user_id)

    async def _rematch(self, asker: Asker, message: dict[str, Any]) -> None:
        table = await self._manager.rematch(self._game(asker), asker.user_id,
                                            asker.channel_id)
        self._hub.follow(asker, table.game_id)

    async def _ping(self, asker: Asker, message: dict[str, Any]) -> None:
        asker.push(frame_of("pong"))


def parse(text: str) -> dict[str, Any]:
    """A page's message: a small JSON object with a text ``t``."""
    if len(text.encode()) > MAX_MESSAGE:
        raise BadMessage("too long")
    try:
        message = json.loads(text)
    except ValueError as exc:
        raise BadMessage("not JSON") from exc
    if not isinstance(message, dict) or not isinstance(message.get("t"), str):
        raise BadMessage("not a message")
    return message


def ply_of(message: dict[str, Any]) -> int:
    """The move's ply (which turn of the game the page showed when it was tapped)."""
    ply = message.get("ply")
    if not isinstance(ply, int) or isinstance(ply, bool) or not 0 <= ply <= MAX_PLY:
        raise BadMessage(f"bad ply {ply!r}")
    return ply
