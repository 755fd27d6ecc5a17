"""Direct messages: the hand message kept per seat, the closed-door memory, one retry.

The owner of what the bot knows about each person's DMs. A refused DM (403, the person
closed their DMs) is not tried again for ``DM_CLOSED_FOR`` seconds, so a person who opens
their DMs gets hands again later, while a closed door costs at most one request per person
per ten minutes (Discord bans bots that keep hitting 403s). A passing failure is tried once
more a little later, never in a loop.

The door and the person's DM channel are kept in the store (``store.posted``): several
processes may DM one person (every DM click arrives at shard 0's process, whatever server
the game is in), and a door one of them found closed must not be knocked on by the others,
nor a DM channel one of them opened be opened again by each. A refusal this process saw is
also kept here; anything else is asked of the store before a DM. Times are wall-clock
epoch seconds (they are compared across processes); the clock is injectable, so tests need
not wait.

Each seat's hand is one message in its DMs, kept true (issue 25): families reload the app
between turns, and Discord forgets ephemeral messages then, so the hand the child plays
from must be a message that stays, and stays right. A click on it changes it in place
(``hand_clicks.py``: an interaction response, outside the global rate limit) and is
noted here (``hand_message_is``); any other change of the hand edits it (``deliver_hand``).
Its ids are kept in the store (``dm_hands``) so that any process, after a restart too,
edits the same message; this class is the only writer of them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any

import discord

from engine import Refusal
from engine.manager import GameManager, Status, TableView
from engine.manager.store import DmDoor, DmHand, Posted, StoreUnavailable
from engine.observation import Observation

from ..i18n import t
from . import messages
from .hands import hand_payload, hand_shown, where
from .posts import SENDING_FAILED, Posts
from .prefs import Preferences

log = logging.getLogger(__name__)

DM_CLOSED_FOR = 600.0  # seconds a refused DM is not tried again
RETRY_AFTER = 5.0  # seconds before the one retry of a hand that did not get through


class DirectMessages:
    """Sends hands and notes by DM; remembers who refused them."""

    def __init__(self, bot: discord.Client, manager: GameManager, prefs: Preferences,
                 posts: Posts, doors: Posted, clock: Callable[[], float] = time.time) -> None:
        self._bot = bot
        self._manager = manager
        self._prefs = prefs
        self._posts = posts
        self._doors = doors
        self.clock = clock
        self._closed: dict[int, float] = {}  # user -> when a DM to them was refused
        self._shut_in_store: set[int] = set()  # users whose stored door may say refused
        self._open: set[int] = set()  # users a DM reached
        self._warned: set[tuple[int, int]] = set()  # (game, seat) told that DMs are closed
        # user -> their DM channel: opened once, then sent to by id (no request to look the
        # user up before every hand; Discord counts every request against the bot's budget)
        self._channels: dict[int, int] = {}
        # (game, seat, ply): a hand the click that made move ply shows in its own answer
        self._shown_by_click: set[tuple[int, int, int]] = set()
        self._retries: set[asyncio.Task[None]] = set()

    def forget(self, game_id: int) -> None:
        """The game is over: the channel may be told again in the next one."""
        self._warned = {w for w in self._warned if w[0] != game_id}
        self._shown_by_click = {s for s in self._shown_by_click if s[0] != game_id}

    def tracked_games(self) -> int:
        return len({game for game, _ in self._warned}
                   | {game for game, _, _ in self._shown_by_click})

    def close(self) -> None:
        """At shutdown: a hand not yet sent again is shown by the next start's recovery."""
        for task in self._retries:
            task.cancel()

    def closed(self, user_id: int) -> bool:
        """Whether ``user_id`` refused a DM in the last ``DM_CLOSED_FOR`` seconds, as far as
        this process knows (``refused_lately`` asks the store too)."""
        refused = self._closed.get(user_id)
        if refused is None:
            return False
        if self.clock() - refused >= DM_CLOSED_FOR:
            del self._closed[user_id]  # time to knock once more
            return False
        return True

    async def refused_lately(self, user_id: int) -> bool:
        """Whether ``user_id`` refused a DM in the last ``DM_CLOSED_FOR`` seconds, to this
        process or (the store says) to another one."""
        if self.closed(user_id):
            return True
        return self._refused(user_id, await self._door(user_id))

    def _refused(self, user_id: int, door: DmDoor | None) -> bool:
        """Whether the stored door says a DM was refused lately (then it is kept here)."""
        if door is None or door.closed_at is None:
            return False
        self._shut_in_store.add(user_id)
        if self.clock() - door.closed_at >= DM_CLOSED_FOR:
            return False
        self._closed[user_id] = door.closed_at
        return True

    async def _door(self, user_id: int) -> DmDoor | None:
        """The stored door (None when there is none, or the store cannot say)."""
        try:
            door = await self._doors.door(user_id)
        except StoreUnavailable:
            return None  # (the outage is said once, by the store)
        except Exception:
            log.exception("could not read the DM door of user %d", user_id)
            return None
        if door is not None and door.dm_channel is not None:
            self._channels.setdefault(user_id, door.dm_channel)
        return door

    async def send(self, user_id: int, *, knock: bool = False, **kwargs: Any) -> bool:
        """Send a DM; False when the user does not take DMs (never retried in a loop).
        ``knock``: try even if they refused lately (they asked for it, e.g. by joining)."""
        return await self._send(user_id, knock=knock, **kwargs) is not None

    async def _send(self, user_id: int, *, knock: bool = False, **kwargs: Any
                    ) -> discord.Message | None:
        """``send``, returning the message sent (None: refused, or a passing failure)."""
        if not knock and await self.refused_lately(user_id):
            return None
        try:
            channel = await self._channel_of(user_id, looked=not knock)
            message = await channel.send(**kwargs)
        except discord.Forbidden:
            await self._refused_by(user_id)
            return None
        except SENDING_FAILED:
            # not a refusal: the DM may work next time, so the user is not marked closed
            log.exception("could not send a direct message to user %d", user_id)
            return None
        self._open.add(user_id)
        self._closed.pop(user_id, None)
        if knock or user_id in self._shut_in_store:  # the door is open again, for everyone
            self._shut_in_store.discard(user_id)
            await self._keep(self._doors.door_open(user_id), user_id)
        return message

    async def _refused_by(self, user_id: int) -> None:
        log.info("user %d does not take direct messages", user_id)
        self._closed[user_id] = refused = self.clock()
        self._open.discard(user_id)
        self._shut_in_store.add(user_id)
        await self._keep(self._doors.door_closed(user_id, refused), user_id)

    @staticmethod
    async def _keep(write: Coroutine[Any, Any, None], user_id: int) -> None:
        """A door written to the store; a failure is logged (this process still knows)."""
        try:
            await write
        except StoreUnavailable:
            pass  # (the outage is said once, by the store)
        except Exception:
            log.exception("could not keep the DM door of user %d", user_id)

    async def check(self, table: TableView, user_id: int, lang: str) -> bool:
        """On joining: say hello by DM once, so closed DMs are found before the deal.
        False only when the user refuses DMs (a passing failure is not a refusal)."""
        if user_id in self._open:
            return True
        await self.send(user_id, knock=True, content=t(
            "dm.check", lang, game=messages.game_name(table, lang),
            place=where(self._bot, table, lang)))
        return not self.closed(user_id)

    async def deliver_hand(self, table: TableView, seat: int,
                           obs: Observation | None = None, *, retry: bool = True) -> None:
        """Make the seat's hand message in the DMs of the account that plays it (a
        child's to its grown-up, one message per seat) show its hand as it is now
        (``obs``: the seat's view, default as it is now): the message kept for the seat is
        edited (by whichever process hears of the change: its ids are in the store), or
        else the person's hand message of a finished game is taken over (a rematch), or
        else, the first time, a DM is sent and kept. Nothing is sent when the message
        shows this hand already. If DMs are closed, the channel hears so once per game and
        seat (without the hand)."""
        user_id = table.seats[seat].user_id
        if user_id is None:
            return
        if (table.game_id, seat, table.ply - 1) in self._shown_by_click:
            self._shown_by_click.discard((table.game_id, seat, table.ply - 1))
            return  # the click's own answer shows this hand
        if await self.refused_lately(user_id):
            await self._warn(table, seat, user_id)  # a closed door is not knocked on
            return
        lang = self._prefs.user_lang(user_id, table.guild_id)
        if obs is None:
            obs = self._manager.seat_observation(table.game_id, seat)
        shows = hand_shown(obs)
        kept = await self.kept_hand(table.game_id, seat)
        if kept is not None and kept.user_id == user_id and kept.shows == shows:
            return  # it shows this hand already
        payload = await hand_payload(self._bot, table, obs, lang)
        if kept is None or kept.user_id != user_id:
            kept = await self._claim(user_id, table.game_id, seat)
        if kept is not None:
            edited = await self._edit(kept, payload)
            if edited is True:
                await self._remember(replace(kept, shows=shows))
                return
            if edited is None:  # a passing failure: the edit is tried once more later
                self._later_once(table, seat, retry)
                return
            if self.closed(user_id):  # the edit was refused: DMs closed
                await self._warn(table, seat, user_id)
                return
        message = await self._send(user_id, **payload)
        if message is not None:
            await self._remember(DmHand(table.game_id, seat, user_id, message.channel.id,
                                        message.id, shows))
            return
        if not self.closed(user_id):
            # A passing failure (rate limit, 5xx beyond discord.py's own tries): try once
            # more a little later with the hand as it is then; never a loop. The hand is
            # always there behind "My hand" and /sequence hand meanwhile.
            self._later_once(table, seat, retry)
            return
        await self._warn(table, seat, user_id)

    async def _warn(self, table: TableView, seat: int, user_id: int) -> None:
        """The channel hears once per game and seat that this seat's DMs are closed."""
        if (table.game_id, seat) in self._warned:
            return
        self._warned.add((table.game_id, seat))
        glang = self._prefs.guild_lang(table.guild_id)
        child = table.seats[seat]
        note = (t("dm.closed.child", glang, mention=f"<@{user_id}>", name=child.name)
                if child.is_child else t("dm.closed", glang, mention=f"<@{user_id}>"))
        await self._posts.post(table, content=note)

    def _later_once(self, table: TableView, seat: int, retry: bool) -> None:
        if retry:
            self._later(self._deliver_later(table.game_id, seat))

    async def _edit(self, kept: DmHand, payload: dict[str, Any]) -> bool | None:
        """Edit a kept hand message: True once done, False if it is gone (deleted, or DMs
        refused: a new DM decides), None on a passing failure."""
        fields = dict(payload)
        picture = fields.pop("file", None)
        fields["attachments"] = [picture] if picture is not None else []
        message = self._bot.get_partial_messageable(
            kept.dm_channel, type=discord.ChannelType.private).get_partial_message(
            kept.message_id)
        try:
            await message.edit(**fields)
        except discord.NotFound:
            log.info("the hand message %d of game %d is gone", kept.message_id, kept.game_id)
            await self._keep(self._doors.dm_hand_gone(kept.game_id, kept.seat,
                                                      kept.message_id), kept.user_id)
            return False
        except discord.Forbidden:
            await self._refused_by(kept.user_id)
            return False
        except SENDING_FAILED:
            log.exception("could not edit the hand message of game %d", kept.game_id)
            return None
        return True

    async def kept_hand(self, game_id: int, seat: int) -> DmHand | None:
        """The hand message kept for a seat (None: none, or the store cannot say)."""
        try:
            return await self._doors.dm_hand(game_id, seat)
        except StoreUnavailable:
            return None  # (the outage is said once, by the store)
        except Exception:
            log.exception("could not read the hand message of game %d", game_id)
            return None

    async def _claim(self, user_id: int, game_id: int, seat: int) -> DmHand | None:
        try:
            return await self._doors.claim_dm_hand(user_id, game_id, seat)
        except StoreUnavailable:
            return None  # (the outage is said once, by the store)
        except Exception:
            log.exception("could not take over a hand message for game %d", game_id)
            return None

    async def _remember(self, hand: DmHand) -> None:
        await self._keep(self._doors.dm_hand_shows(hand), hand.user_id)

    async def hand_message_is(self, game_id: int, seat: int, user_id: int,
                              message: discord.Message, shows: str) -> None:
        """``message`` is the seat's hand message now, showing ``shows`` ('' if not known):
        a click on it was answered by changing it (an interaction response; one tapped
        that was not the kept one, e.g. from before an upgrade, takes over), or recovery
        found it in the DMs of a game from before hand messages were kept."""
        await self._remember(DmHand(game_id, seat, user_id, message.channel.id, message.id,
                                    shows))

    def _later(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._retries.add(task)
        task.add_done_callback(self._retries.discard)

    async def _deliver_later(self, game_id: int, seat: int) -> None:
        await asyncio.sleep(RETRY_AFTER)
        try:
            table = self._manager.get(game_id)
            if table.status is Status.PLAYING:
                await self.deliver_hand(table, seat, retry=False)
        except Refusal:
            pass  # the game ended meanwhile: no hand to show
        except StoreUnavailable:
            pass  # (the outage is said once, by the store) the next move shows the hand
        except Exception:
            log.exception("could not send the hand of game %d again", game_id)

    async def _channel_of(self, user_id: int, *, looked: bool = False
                          ) -> discord.abc.Messageable:
        """The DM channel of a person: opened the first time (one request, by whichever
        process DMs them first), by id after. ``looked``: the store was just asked."""
        known = self._channels.get(user_id)
        if known is None and not looked:
            await self._door(user_id)  # another process may have opened it: its id is kept
            known = self._channels.get(user_id)
        if known is not None:
            return self._bot.get_partial_messageable(known, type=discord.ChannelType.private)
        channel = await self._bot.create_dm(discord.Object(user_id))
        self._channels[user_id] = channel.id
        await self._keep(self._doors.dm_channel_opened(user_id, channel.id), user_id)
        return channel

    async def is_dm_of(self, user_id: int, channel_id: int | None) -> bool:
        """Whether ``channel_id`` is the DM channel the bot has with ``user_id`` (a click
        in it is theirs: a message of someone else's DMs is never changed for them)."""
        if channel_id is None:
            return False
        known = self._channels.get(user_id)
        if known is None:
            await self._door(user_id)
            known = self._channels.get(user_id)
        return known == channel_id

    async def dm_channel(self, user_id: int) -> discord.abc.Messageable | None:
        """A person's DM channel (to read what reached it), None if it cannot be opened."""
        try:
            return await self._channel_of(user_id)
        except SENDING_FAILED:
            log.warning("could not open the DM of user %d", user_id, exc_info=True)
            return None

    def shown_by_click(self, game_id: int, seat: int, ply: int) -> None:
        """The click that makes move ``ply`` for ``seat`` shows the seat's new hand in its
        own answer (an interaction response, outside Discord's global rate limit): the DM
        for that hand is not sent."""
        self._shown_by_click.add((game_id, seat, ply))

    def not_shown_by_click(self, game_id: int, seat: int, ply: int) -> None:
        self._shown_by_click.discard((game_id, seat, ply))
