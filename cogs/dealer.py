"""The Discord side of every table: messages out (manager events) and clicks in.

The dealer holds no rules. Clicks and commands become manager calls; the manager's events
become channel messages (lobby, board pictures), direct messages (hands) and ephemeral
replies. Pictures are drawn in a worker thread so the event loop never waits on Pillow.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

import aiohttp
import discord

from engine import Refusal
from engine.manager import (
    Event,
    GameManager,
    GameOver,
    GameStarted,
    HandChanged,
    LobbyCancelled,
    LobbyChanged,
    Moved,
    Player,
    SeatChanged,
    TableView,
    TurnReminder,
    TurnTimedOut,
)
from render.alt import alt_text
from render.board import board_png
from render.hand import hand_png

from . import i18n
from .buttons import (
    CardButton,
    HandButton,
    LobbyButton,
    PlayButton,
    PlaySelect,
    RollButton,
)
from .i18n import t
from .rematch import SameSeatsRematch
from .replays import replay_file

log = logging.getLogger(__name__)

MAX_BUTTONS = 20  # 4 rows of 5; more choices go into select menus of 25
ALT_TEXT_LIMIT = 1024  # Discord's limit on an attachment description
DM_CLOSED_FOR = 600.0  # seconds a refused DM is not tried again
RECOVER_AT_ONCE = 4  # tables a restarted bot looks at side by side
NO_MENTIONS = discord.AllowedMentions.none()


def _stopped(view: discord.ui.View) -> discord.ui.View:
    """Dynamic items are found by custom_id; the view need not be kept per message."""
    view.stop()
    return view


class Dealer:
    """Runs the Discord side of all tables for one bot (a manager listener)."""

    def __init__(self, bot: discord.Client, manager: GameManager) -> None:
        self.bot = bot
        self.manager = manager
        self.lobby_messages: dict[int, tuple[int, int]] = {}  # game -> (channel, message)
        self.user_lang: dict[int, str] = {}
        # user -> when a DM to them was refused (monotonic): not tried again for
        # DM_CLOSED_FOR seconds, so a player who opens their DMs gets hands again later,
        # while a closed door costs at most one request per user per ten minutes
        self.dm_closed: dict[int, float] = {}
        self.dm_open: set[int] = set()
        self.clock = time.monotonic
        self._warned: set[tuple[int, int]] = set()  # (game, user) told that DMs are closed
        # tables created before this moment were restored from the database by this
        # process and may need showing again (see recover)
        self.started_at = time.time()
        self.server_lang: dict[int, str] = {}  # a server's chosen language (/sequence settings)
        self.seating: set[int] = set()  # lobbies a Rematch is filling: shown once, when full
        self.tidy_guilds: set[int] = set()  # servers that keep only the latest board
        self.thread_guilds: set[int] = set()  # servers whose games run in threads of their own
        self.thread_parent: dict[int, int] = {}  # thread this process opened -> its channel
        self.game_channel: dict[int, int] = {}  # game -> the thread it moved to
        self.last_board: dict[int, int] = {}  # game -> its newest board message
        self._retries: set[asyncio.Task[None]] = set()  # one delayed retry per failed send
        self.board_ply: dict[int, int] = {}  # game -> ply of the newest board that got through
        # game -> (how many boards this process got through, alt text of the newest): a
        # recovery racing a move knows what the channel shows without reading it again
        self.boards_posted: dict[int, tuple[int, str]] = {}

    # ------------------------------------------------------------------ language & names
    def guild_lang(self, guild_id: int | None) -> str:
        if guild_id in self.server_lang:
            return self.server_lang[guild_id]
        guild = self.bot.get_guild(guild_id) if guild_id else None
        return i18n.lang_of(guild.preferred_locale if guild else None)

    def lang(self, interaction: discord.Interaction) -> str:
        lang = i18n.lang_of(interaction.locale)
        self.user_lang[interaction.user.id] = lang
        return lang

    def seat_names(self, table: TableView, lang: str) -> list[str]:
        return [t("computer.name", lang, level=t(f"level.{s.level}", lang)) if s.is_computer
                else s.name for s in table.seats]

    def place(self, table: TableView, lang: str) -> str:
        channel = self.bot.get_channel(table.channel_id)
        guild = self.bot.get_guild(table.guild_id) if table.guild_id else None
        name = getattr(channel, "name", None) or str(table.channel_id)
        return t("place.channel", lang, channel=name, guild=guild.name if guild else "")

    def mention(self, table: TableView, seat: int | None, lang: str) -> str:
        if seat is None or seat >= len(table.seats):
            return ""
        s = table.seats[seat]
        if s.is_computer or s.user_id is None:
            return f"**{self.seat_names(table, lang)[seat]}**"
        return f"<@{s.user_id}>"

    # ------------------------------------------------------------------ pictures
    async def board_file(self, obs: dict[str, Any], table: TableView, lang: str
                         ) -> discord.File | None:
        """The board picture with its alt text; None (logged) if drawing failed, so that a
        broken picture never stops a game: the text of the move still goes out."""
        names = self.seat_names(table, lang)

        def draw() -> tuple[bytes, str]:
            return (board_png(obs, names=names, lang=lang),
                    alt_text(obs, names=names, lang=lang)[:ALT_TEXT_LIMIT])

        try:
            png, alt = await asyncio.to_thread(draw)
        except Exception:
            log.exception("could not draw the board of game %d", table.game_id)
            return None
        return discord.File(io.BytesIO(png), filename="board.png", description=alt)

    async def hand_file(self, obs: dict[str, Any], table: TableView, lang: str
                        ) -> discord.File | None:
        caption = t("hand.caption", lang, game=t(f"game.{table.game}", lang),
                    place=self.place(table, lang))
        cards = ", ".join(i18n.card(c, lang) for c in obs.get("hand") or [])
        try:
            png = await asyncio.to_thread(hand_png, obs, caption=caption, lang=lang)
        except Exception:
            log.exception("could not draw a hand in game %d", table.game_id)
            return None
        return discord.File(io.BytesIO(png), filename="hand.png", description=cards or caption)

    # ------------------------------------------------------------------ message builders
    def lobby_message(self, table: TableView, lang: str) -> tuple[discord.Embed,
                                                                   discord.ui.View | None]:
        embed = discord.Embed(title=t("lobby.title", lang, game=t(f"game.{table.game}", lang)),
                              colour=discord.Colour.blurple())
        lines = []
        opts = table.options
        if table.game == "kids" and opts.get("level"):
            lines.append(t("lobby.level", lang, level=t(f"choice.level.{opts['level']}", lang)))
        if table.game == "dice" and opts.get("sequence_length"):
            lines.append(t("lobby.length", lang, n=opts["sequence_length"]))
        if opts.get("teams"):
            lines.append(t("lobby.teams", lang, teams=t("word.yes", lang)))
        names = self.seat_names(table, lang)
        seats = [t("lobby.seat", lang, n=i + 1, name=name) +
                 (" " + t("lobby.host", lang) if s.user_id == table.host_id else "")
                 for i, (s, name) in enumerate(zip(table.seats, names, strict=True))]
        seats += [t("lobby.open", lang, n=n + 1) for n in range(len(table.seats), 4)]
        embed.description = "\n".join(lines) if lines else None
        embed.add_field(name=t("lobby.seats", lang), value="\n".join(seats), inline=False)
        if table.status == "lobby":
            embed.set_footer(text=t("lobby.help", lang))
            view = discord.ui.View(timeout=None)
            gid = table.game_id
            blue, grey = discord.ButtonStyle.primary, discord.ButtonStyle.secondary
            view.add_item(LobbyButton(gid, "join", t("button.join", lang), blue, 0))
            view.add_item(LobbyButton(gid, "leave", t("button.leave", lang), grey, 0))
            view.add_item(LobbyButton(gid, "start", t("button.start", lang),
                                      discord.ButtonStyle.success, 0))
            view.add_item(LobbyButton(gid, "cancel", t("button.cancel", lang),
                                      discord.ButtonStyle.danger, 0))
            for level in ("easy", "medium", "hard"):
                view.add_item(LobbyButton(gid, f"cpu-{level}", t(
                    "button.computer", lang, level=t(f"level.{level}", lang)), grey, 1))
            return embed, view
        key = "lobby.started" if table.status in ("playing", "finished") else "lobby.cancelled"
        embed.set_footer(text=t(key, lang))
        return embed, None

    def move_line(self, table: TableView, event: Moved, lang: str) -> str:
        name = self.seat_names(table, lang)[event.seat]
        action = event.action
        kind, _, space = action.partition("@")
        if action == "pass":
            roll = event.observation.get("last_roll")
            line = t("moved.pass", lang, name=name)
            return (t("moved.roll", lang, name=name, a=roll[0], b=roll[1]) + " " + line
                    if roll and table.game == "dice" else line)
        if action == "roll":
            roll = event.observation.get("last_roll") or ["?", "?"]
            return t("moved.roll", lang, name=name, a=roll[0], b=roll[1])
        if kind.startswith("dead:"):
            return t("moved.exchange", lang, name=name, card=i18n.card(kind[5:], lang))
        if table.game == "kids" and space:
            if kind in ("unicorn", "dragon"):
                return t(f"moved.{kind}", lang, name=name, space=space)
            return t("moved.card", lang, name=name, card=i18n.card(kind, lang), space=space)
        if kind in ("place", "replace", "remove") and space:
            roll = event.observation.get("last_roll")
            line = t(f"moved.{kind}", lang, name=name, space=space)
            return (t("moved.roll", lang, name=name, a=roll[0], b=roll[1]) + " " + line
                    if roll else line)
        return t("moved.other", lang, name=name, action=action)

    def turn_line(self, table: TableView, lang: str) -> str:
        if table.turn is None:
            return ""
        seat = table.seats[table.turn]
        if seat.is_computer:
            return t("turn.computer", lang, name=self.seat_names(table, lang)[table.turn])
        line = t("turn.mention", lang, mention=self.mention(table, table.turn, lang))
        if table.turn_deadline is not None:
            # Discord shows <t:...:R> as "in 2 minutes" in each reader's own clock
            line += " " + t("timer.deadline", lang, when=f"<t:{int(table.turn_deadline)}:R>")
        return line

    def board_view(self, table: TableView, obs: dict[str, Any], lang: str) -> discord.ui.View:
        view = discord.ui.View(timeout=None)
        if table.game == "kids":
            view.add_item(HandButton(table.game_id, t("button.hand", lang)))
        elif table.turn is not None and not table.seats[table.turn].is_computer \
                and "roll" in (obs.get("legal") or ["roll"]):
            view.add_item(RollButton(table.game_id, table.ply, t("button.roll", lang)))
        return view

    def choices_view(self, table: TableView, obs: dict[str, Any], actions: list[str],
                     lang: str) -> discord.ui.View:
        """Buttons for up to 20 moves; beyond that, select menus of 25 (5 at most)."""
        view = discord.ui.View(timeout=None)
        ply = int(obs["history_length"])
        gid = table.game_id
        if len(actions) <= MAX_BUTTONS:
            for action in actions:
                style = (discord.ButtonStyle.danger if action.startswith(("dead:", "remove@",
                                                                          "dragon@"))
                         else discord.ButtonStyle.success)
                view.add_item(PlayButton(gid, ply, action, self.action_label(action, lang),
                                         style))
            return view
        for part, start in enumerate(range(0, min(len(actions), 125), 25)):
            chunk = actions[start:start + 25]
            options = [discord.SelectOption(label=self.action_label(a, lang), value=a)
                       for a in chunk]
            placeholder = t("prompt.spaces", lang, first=self.action_label(chunk[0], lang),
                            last=self.action_label(chunk[-1], lang))
            view.add_item(PlaySelect(gid, ply, part, options, placeholder[:150]))
        return view

    @staticmethod
    def action_label(action: str, lang: str) -> str:
        kind, _, space = action.partition("@")
        if kind.startswith("dead:"):
            return t("button.exchange", lang, card=i18n.card(kind[5:], lang))
        if kind in ("remove", "replace"):
            return t(f"autocomplete.{kind}", lang, space=space)
        return space or action

    async def hand_payload(self, table: TableView, user_id: int, lang: str,
                           obs: dict[str, Any] | None = None) -> dict[str, Any]:
        """The hand as a message: picture, a line of text, a button per card. ``obs``: the
        seat's view to show (default: as it is now)."""
        if obs is None:
            obs = self.manager.observation_for(table.game_id, user_id)
        if table.game != "kids":
            return {"content": t("hand.none", lang)}
        seat = obs.get("seat")
        your_turn = table.turn is not None and table.turn == seat
        content = "\n".join([t("hand.dm", lang, game=t(f"game.{table.game}", lang),
                                 place=self.place(table, lang)),
                             t("hand.your_turn" if your_turn else "hand.wait", lang)])
        view = discord.ui.View(timeout=None)
        dead = set(obs.get("dead") or [])
        for card in dict.fromkeys(obs.get("hand") or []):
            view.add_item(CardButton(table.game_id, card, i18n.card(card, lang), card in dead))
        payload: dict[str, Any] = {"content": content, "view": _stopped(view)}
        picture = await self.hand_file(obs, table, lang)
        if picture is not None:
            payload["file"] = picture
        return payload

    # ------------------------------------------------------------------ sending
    def channel(self, table: TableView) -> discord.PartialMessageable:
        # events committed before the game moved to its thread still name the old channel
        channel_id = self.game_channel.get(table.game_id, table.channel_id)
        return self.bot.get_partial_messageable(channel_id, guild_id=table.guild_id)

    async def post(self, table: TableView, *, channel_id: int | None = None, **kwargs: Any
                   ) -> discord.Message | None:
        """Send to the table's channel (or ``channel_id``); None, logged, if Discord refused."""
        if "view" in kwargs and kwargs["view"] is not None:
            _stopped(kwargs["view"])
        kwargs.setdefault("allowed_mentions", discord.AllowedMentions(users=True))
        if "file" in kwargs and kwargs["file"] is None:
            del kwargs["file"]
        try:
            where = (self.channel(table) if channel_id is None else
                     self.bot.get_partial_messageable(channel_id, guild_id=table.guild_id))
            message = await where.send(**kwargs)
        except (discord.HTTPException, aiohttp.ClientError, OSError):
            log.exception("could not post in channel %d for game %d", table.channel_id,
                          table.game_id)
            return None
        picture = kwargs.get("file")
        if picture is not None and picture.filename == "board.png":
            count, _ = self.boards_posted.get(table.game_id, (0, ""))
            self.boards_posted[table.game_id] = (count + 1, picture.description or "")
        return message

    def dms_closed(self, user_id: int) -> bool:
        """Whether ``user_id`` refused a DM in the last ``DM_CLOSED_FOR`` seconds."""
        refused = self.dm_closed.get(user_id)
        if refused is None:
            return False
        if self.clock() - refused >= DM_CLOSED_FOR:
            del self.dm_closed[user_id]  # time to knock once more
            return False
        return True

    async def dm(self, user_id: int, *, knock: bool = False, **kwargs: Any) -> bool:
        """Send a DM; False when the user does not take DMs (never retried in a loop).
        ``knock``: try even if they refused lately (they asked for it, e.g. by joining)."""
        if not knock and self.dms_closed(user_id):
            return False
        if "view" in kwargs and kwargs["view"] is not None:
            _stopped(kwargs["view"])
        try:
            user = self.bot.get_user(user_id) or await self.bot.fetch_user(user_id)
            await user.send(**kwargs)
        except discord.Forbidden:
            log.info("user %d does not take direct messages", user_id)
            self.dm_closed[user_id] = self.clock()
            self.dm_open.discard(user_id)
            return False
        except (discord.HTTPException, aiohttp.ClientError, OSError):
            # not a refusal: the DM may work next time, so the user is not marked closed
            log.exception("could not send a direct message to user %d", user_id)
            return False
        self.dm_open.add(user_id)
        self.dm_closed.pop(user_id, None)
        return True

    async def check_dms(self, table: TableView, user_id: int, lang: str) -> bool:
        """On joining: say hello by DM once, so closed DMs are found before the deal.
        False only when the user refuses DMs (a passing failure is not a refusal)."""
        if user_id in self.dm_open:
            return True
        await self.dm(user_id, knock=True,
                      content=t("dm.check", lang, game=t(f"game.{table.game}", lang),
                                place=self.place(table, lang)))
        return not self.dms_closed(user_id)

    async def deliver_hand(self, table: TableView, user_id: int,
                           obs: dict[str, Any] | None = None, *, retry: bool = True) -> None:
        lang = self.user_lang.get(user_id) or self.guild_lang(table.guild_id)
        payload = await self.hand_payload(table, user_id, lang, obs)
        if await self.dm(user_id, **payload):
            return
        if not self.dms_closed(user_id):
            # A passing failure (rate limit, 5xx beyond discord.py's own tries): try once
            # more a little later with the hand as it is then; never a loop. The hand is
            # always there behind "My hand" and /sequence hand meanwhile.
            if retry:
                self._later(self._deliver_later(table.game_id, user_id))
            return
        if (table.game_id, user_id) in self._warned:
            return
        self._warned.add((table.game_id, user_id))
        glang = self.guild_lang(table.guild_id)
        await self.post(table, content=t("dm.closed", glang, mention=f"<@{user_id}>"))

    def cancel_retries(self) -> None:
        """At shutdown: a hand not yet sent again is shown by the next start's recovery."""
        for task in self._retries:
            task.cancel()

    async def _deliver_later(self, game_id: int, user_id: int, delay: float = 5.0) -> None:
        await asyncio.sleep(delay)
        try:
            table = self.manager.get(game_id)
            if table.status == "playing":
                await self.deliver_hand(table, user_id, retry=False)
        except Refusal:
            pass  # the game ended meanwhile: no hand to show
        except Exception:
            log.exception("could not send the hand of game %d again", game_id)

    # ------------------------------------------------------------------ after a restart
    async def recover(self) -> None:
        """Show every table again after a restart, where the last announcement was lost.

        The manager commits before it announces, so the old process may have died between
        a move and its board, hand or lobby message. Discord keeps what did go out: each
        table's recent messages are compared with what it should show now, and only what
        is missing is posted (nothing is doubled).
        """
        # Tables are looked at side by side (a few at a time, to stay polite to Discord):
        # one waiting for a busy game to go quiet must not hold back the others.
        gate = asyncio.Semaphore(RECOVER_AT_ONCE)

        async def one(table: TableView) -> None:
            async with gate:
                try:
                    if table.status == "lobby":
                        await self._recover_lobby(table)
                    elif table.status == "playing":
                        await self._recover_game(table)
                except Refusal:
                    pass  # it ended meanwhile
                except Exception:
                    log.exception("could not show game %d again after the restart",
                                  table.game_id)

        await asyncio.gather(*(one(table) for table in self.manager.tables()
                               if table.created_at < self.started_at))  # (others: announced
        # by this process as they happened)

    async def _recent(self, messageable: discord.abc.Messageable) -> list[discord.Message]:
        try:
            return [m async for m in messageable.history(limit=25)]
        except (discord.HTTPException, aiohttp.ClientError, OSError):
            log.warning("could not read recent messages", exc_info=True)
            return []

    def _mine(self, message: discord.Message) -> bool:
        return self.bot.user is not None and message.author.id == self.bot.user.id

    async def _recover_lobby(self, table: TableView) -> None:
        prefix = f"seq:lobby:{table.game_id}:"
        for message in await self._recent(self.channel(table)):
            ids = [getattr(c, "custom_id", None) or "" for row in message.components
                   for c in getattr(row, "children", [])]
            if self._mine(message) and any(i.startswith(prefix) for i in ids):
                self.lobby_messages[table.game_id] = (table.channel_id, message.id)
                break
        await self.refresh_lobby(table)

    async def _recover_game(self, table: TableView) -> None:
        lang = self.guild_lang(table.guild_id)
        names = self.seat_names(table, lang)
        before = self.boards_posted.get(table.game_id, (0, ""))[0]
        recent = await self._recent(self.channel(table))
        # A move may be coming in while this restarted process gets ready: wait until the
        # table is quiet and read the position in that same step (no await between), so
        # recovery never posts what a move's own board is about to show, nor a stale turn.
        await self._announcements_done(table.game_id)
        table = self.manager.get(table.game_id)
        obs = self.manager.spectator_observation(table.game_id)
        count, newest = self.boards_posted.get(table.game_id, (0, ""))
        shown = newest if count != before else None
        await self._recover_board(table, obs, shown, recent, lang, names)
        if table.game != "kids":
            return
        for seat in table.seats:
            if seat.user_id is None or seat.is_computer or seat.left or seat.resigned:
                continue
            if self.dms_closed(seat.user_id):
                continue
            await self._recover_hand(table, seat.user_id)

    async def _announcements_done(self, game_id: int, timeout: float = 5.0) -> None:
        """Return (without suspending after the last check) once the table is quiet."""
        deadline = asyncio.get_running_loop().time() + timeout
        while self.manager.announcing(game_id):
            if asyncio.get_running_loop().time() > deadline:
                log.warning("game %d: a move's board is still on its way; recovering anyway",
                            game_id)
                return
            await asyncio.sleep(0.02)

    async def _recover_board(self, table: TableView, obs: dict[str, Any], shown: str | None,
                             recent: list[discord.Message], lang: str, names: list[str]
                             ) -> None:
        """Post where the game stands (``obs``, ``table``) unless the newest board shows it
        already: ``shown`` is the alt text of a board this process posted meanwhile, else
        the channel's newest is read from ``recent``."""
        alt = (await asyncio.to_thread(alt_text, obs, names=names, lang=lang))[:ALT_TEXT_LIMIT]
        if shown is None:
            shown = next((a.description for m in recent if self._mine(m)
                          for a in m.attachments if a.filename == "board.png"), None)
        if shown == alt:
            return  # the newest board is of this moment
        picture = await self.board_file(obs, table, lang)
        try:
            if self.manager.get(table.game_id).ply != table.ply:
                return  # a move came in meanwhile: its own board shows a newer moment
        except Refusal:
            return  # the game ended meanwhile
        await self.post(table, content="\n".join([t("board.recovered", lang),
                                                  self.turn_line(table, lang)]),
                        file=picture, view=self.board_view(table, obs, lang))

    async def _recover_hand(self, table: TableView, user_id: int) -> None:
        lang = self.user_lang.get(user_id) or self.guild_lang(table.guild_id)
        obs = self.manager.observation_for(table.game_id, user_id)
        cards = ", ".join(i18n.card(c, lang) for c in obs.get("hand") or [])
        try:
            user = self.bot.get_user(user_id) or await self.bot.fetch_user(user_id)
            channel = user.dm_channel or await user.create_dm()
        except (discord.HTTPException, aiohttp.ClientError, OSError):
            log.warning("could not open the DM of user %d", user_id, exc_info=True)
            return
        shown = next((a.description for m in await self._recent(channel)
                      if self._mine(m) for a in m.attachments if a.filename == "hand.png"), None)
        if shown is None or shown != cards:
            await self.deliver_hand(table, user_id)

    # ------------------------------------------------------------------ manager events
    async def on_event(self, event: Event) -> None:
        handler = self._handlers.get(type(event))
        if handler is not None:
            await handler(self, event)

    async def _lobby_changed(self, event: LobbyChanged) -> None:
        if event.reason == "created" or event.table.game_id in self.seating:
            return  # the reply to /sequence new (or Rematch, once all are seated) shows it
        await self.refresh_lobby(event.table)

    async def _lobby_cancelled(self, event: LobbyCancelled) -> None:
        table = event.table
        lang = self.guild_lang(table.guild_id)
        embed, _ = self.lobby_message(table, lang)
        if event.reason == "idle":
            embed.set_footer(text=t("lobby.cancelled.idle", lang))
        await self.refresh_lobby(table, embed=embed)
        self.lobby_messages.pop(table.game_id, None)

    async def refresh_lobby(self, table: TableView, *, embed: discord.Embed | None = None
                            ) -> None:
        lang = self.guild_lang(table.guild_id)
        new_embed, view = self.lobby_message(table, lang)
        embed = embed or new_embed
        where = self.lobby_messages.get(table.game_id)
        if where is None:
            if table.status == "lobby":
                message = await self.post(table, embed=embed, view=view)
                if message is not None:
                    self.lobby_messages[table.game_id] = (table.channel_id, message.id)
            return
        # (the lobby message stays where it was posted, even when the game moved on)
        lobby = self.bot.get_partial_messageable(
            where[0], guild_id=table.guild_id).get_partial_message(where[1])
        try:
            await lobby.edit(embed=embed, view=_stopped(view) if view else None)
        except (discord.HTTPException, aiohttp.ClientError, OSError):
            log.exception("could not update the lobby message of game %d", table.game_id)

    async def _game_started(self, event: GameStarted) -> None:
        table = event.table
        await self.refresh_lobby(table)
        lobby = self.lobby_messages.pop(table.game_id, None)
        lang = self.guild_lang(table.guild_id)
        if table.guild_id in self.thread_guilds:
            table = await self.open_thread(table, lobby, lang)
        obs = event.observation
        colours = obs.get("colours") or []
        side_of = obs.get("side_of_seat") or []
        names = self.seat_names(table, lang)
        seats = ", ".join(
            t("game.seat", lang, name=self.mention(table, i, lang) if not s.is_computer
              else names[i], colour=t(f"colour.{colours[side_of[i]]}", lang))
            for i, s in enumerate(table.seats))
        content = "\n".join([t("game.started", lang, game=t(f"game.{table.game}", lang),
                               seats=seats), self.turn_line(table, lang)])
        await self.tidy(table, await self.post(
            table, content=content, file=await self.board_file(obs, table, lang),
            view=self.board_view(table, obs, lang)))

    async def open_thread(self, table: TableView, lobby: tuple[int, int] | None, lang: str
                          ) -> TableView:
        """Move a starting game into a thread of its own (opened on its lobby message when
        that is known), so the channel stays readable with several games. A game that
        starts inside a thread (a rematch) stays there. If Discord refuses (no Create
        Public Threads permission), the game is played in the channel, and the channel is
        told why."""
        if self._is_thread(table.channel_id):
            return table
        name = t("thread.name", lang, game=t(f"game.{table.game}", lang), number=table.game_id)
        try:
            if lobby is not None and lobby[0] == table.channel_id:
                message = self.channel(table).get_partial_message(lobby[1])
                thread = await message.create_thread(name=name[:100], auto_archive_duration=1440)
            else:
                parent = self.bot.get_channel(table.channel_id)
                if not isinstance(parent, discord.TextChannel):
                    raise TypeError(f"channel {table.channel_id} cannot hold threads")
                thread = await parent.create_thread(
                    name=name[:100], auto_archive_duration=1440,
                    type=discord.ChannelType.public_thread)
        except (discord.HTTPException, aiohttp.ClientError, OSError, TypeError, ValueError):
            log.warning("could not open a thread for game %d; it is played in channel %d",
                        table.game_id, table.channel_id, exc_info=True)
            await self.post(table, content=t("thread.failed", lang))
            return table
        try:
            moved = await self.manager.move_game(table.game_id, thread.id)
        except Refusal:
            log.warning("game %d could not move to its thread %d", table.game_id, thread.id)
            return table
        self.thread_parent[thread.id] = table.channel_id
        self.game_channel[table.game_id] = thread.id
        if lobby is None:  # no lobby message for the thread to hang from: point to it
            await self.post(table, content=t("thread.moved", lang, thread=f"<#{thread.id}>"))
        return moved

    def _is_thread(self, channel_id: int) -> bool:
        if channel_id in self.thread_parent:
            return True
        channel = self.bot.get_channel(channel_id)
        return isinstance(channel, discord.Thread)

    async def _parent_of(self, channel_id: int) -> int | None:
        """The channel a game's thread hangs from, if this bot opened that thread for it
        (None otherwise: a channel, or a thread that people opened themselves)."""
        if channel_id in self.thread_parent:
            return self.thread_parent[channel_id]
        channel = self.bot.get_channel(channel_id)
        if channel is None:
            try:
                channel = await self.bot.fetch_channel(channel_id)
            except (discord.HTTPException, aiohttp.ClientError, OSError):
                return None
        # the owner survives a restart, unlike this process's memory of what it opened
        if isinstance(channel, discord.Thread) and self.bot.user is not None \
                and channel.owner_id == self.bot.user.id:
            return channel.parent_id
        return None

    async def _moved(self, event: Moved) -> None:
        table = event.table
        if event.action == "roll":
            return  # the roller gets the dice privately; the board follows the placement
        lang = self.guild_lang(table.guild_id)
        obs = event.observation
        lines = [self.move_line(table, event, lang)]
        if not obs.get("is_over"):
            # whose turn it was right after this move: boards are announced in order, a
            # little after the moves (computers may be ahead), and each tells its own moment
            lines.append(self.turn_line(table, lang))
        message = await self.post(
            table, content="\n".join(lines), file=await self.board_file(obs, table, lang),
            view=None if obs.get("is_over") else self.board_view(table, obs, lang))
        if message is not None:
            self.board_ply[table.game_id] = max(event.ply, self.board_ply.get(table.game_id, -1))
        elif not obs.get("is_over"):
            # Discord refused even after discord.py's own tries: show the position once
            # more a little later, unless a newer board gets through first. Never a loop.
            self._later(self._show_board_again(table.game_id, event.ply))
        await self.tidy(table, message)

    def _later(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self._retries.add(task)
        task.add_done_callback(self._retries.discard)

    async def _show_board_again(self, game_id: int, ply: int, delay: float = 3.0) -> None:
        await asyncio.sleep(delay)
        if self.board_ply.get(game_id, -1) > ply:
            return  # a newer board got through meanwhile
        try:
            table = self.manager.get(game_id)
            if table.status != "playing":
                return
            lang = self.guild_lang(table.guild_id)
            obs = self.manager.spectator_observation(game_id)
            message = await self.post(table, content="\n".join([t("board.again", lang),
                                                                 self.turn_line(table, lang)]),
                                      file=await self.board_file(obs, table, lang),
                                      view=self.board_view(table, obs, lang))
            if message is not None:
                self.board_ply[game_id] = max(table.ply, self.board_ply.get(game_id, -1))
                await self.tidy(table, message)
        except Refusal:
            pass  # the game ended meanwhile
        except Exception:
            log.exception("could not show the board of game %d again", game_id)

    async def tidy(self, table: TableView, board: discord.Message | None) -> None:
        """Remember the newest board; if the server tidies (/sequence settings), delete the
        one before it, so the channel shows one board per game."""
        if board is None:
            return
        previous = self.last_board.get(table.game_id)
        self.last_board[table.game_id] = board.id
        if previous is None or table.guild_id not in self.tidy_guilds:
            return
        try:
            await self.channel(table).get_partial_message(previous).delete()
        except (discord.HTTPException, aiohttp.ClientError, OSError):
            log.info("could not tidy an old board of game %d", table.game_id, exc_info=True)

    async def _hand_changed(self, event: HandChanged) -> None:
        if event.table.game != "kids" or event.table.status != "playing":
            return
        try:
            self.manager.get(event.game_id)
        except Refusal:
            return  # the game ended while this was waiting its turn: no hand to show now
        await self.deliver_hand(event.table, event.user_id, event.observation)

    async def _seat_changed(self, event: SeatChanged) -> None:
        table = event.table
        lang = self.guild_lang(table.guild_id)
        name = table.seats[event.seat].name if event.seat < len(table.seats) else "?"
        await self.post(table, content=t(f"seat.{event.change}", lang, name=name),
                        allowed_mentions=NO_MENTIONS)

    async def _turn_reminder(self, event: TurnReminder) -> None:
        lang = self.guild_lang(event.table.guild_id)
        await self.post(event.table, content=t("timer.reminder", lang,
                                               mention=f"<@{event.user_id}>"))

    async def _turn_timed_out(self, event: TurnTimedOut) -> None:
        if event.outcome == "seat_freed":
            return  # the SeatChanged ("freed") message already says so
        table = event.table
        lang = self.guild_lang(table.guild_id)
        name = table.seats[event.seat].name if event.seat < len(table.seats) else "?"
        await self.post(table, content=t(f"timer.timed_out.{event.outcome}", lang, name=name),
                        allowed_mentions=NO_MENTIONS)

    async def _game_over(self, event: GameOver) -> None:
        table = event.table
        lang = self.guild_lang(table.guild_id)
        obs = event.observation
        names = self.seat_names(table, lang)
        if event.reason == "ended":
            # a moderator may have no seat: a mention shows their name without a ping
            await self.post(table, content=t("over.ended", lang, name=f"<@{event.ended_by}>"),
                            allowed_mentions=NO_MENTIONS)
            self.game_channel.pop(table.game_id, None)
            return
        if event.draw or event.winner is None:
            lines = [t("over.draw", lang)]
        else:
            winners = " & ".join(names[s] for s in event.winning_seats)
            key = "over.win" if obs.get("winning_line") else "over.win.last"
            lines = [t(key, lang, names=winners)]
            if obs.get("winning_line"):
                lines.append(t("over.line", lang, spaces=", ".join(obs["winning_line"])))
        lines.append(t("over.rematch", lang))
        view = discord.ui.View(timeout=None)
        view.add_item(SameSeatsRematch(table.game_id, t("button.rematch", lang)))
        final = await self.post(table, content="\n".join(lines),
                                file=await self.board_file(obs, table, lang), view=view,
                                allowed_mentions=NO_MENTIONS)
        await self.tidy(table, final)
        self.last_board.pop(table.game_id, None)
        where = self.game_channel.pop(table.game_id, table.channel_id)
        # asked of the channel itself, not of the server's setting: after a restart the
        # game may still be in the thread the bot opened, though threads are off since
        parent = await self._parent_of(where)
        if parent is not None:  # the channel the thread hangs from hears how it ended too
            await self.post(table, channel_id=parent, content=t(
                "over.in_thread", lang, result=lines[0], thread=f"<#{where}>"),
                allowed_mentions=NO_MENTIONS)
        if final is None:
            return
        # the replay of a long Dice game takes seconds to draw: the result goes out first,
        # the animation joins the same message when it is ready
        replay = await replay_file(self.manager, table.game_id, names, lang)
        if replay is not None:
            try:
                await final.edit(attachments=[*final.attachments, replay])
            except (discord.HTTPException, aiohttp.ClientError, OSError):
                log.exception("could not attach the replay of game %d", table.game_id)

    _handlers: ClassVar[dict[type[Event], Callable[[Dealer, Any], Awaitable[None]]]] = {
        LobbyChanged: _lobby_changed,
        LobbyCancelled: _lobby_cancelled,
        GameStarted: _game_started,
        Moved: _moved,
        HandChanged: _hand_changed,
        SeatChanged: _seat_changed,
        TurnReminder: _turn_reminder,
        TurnTimedOut: _turn_timed_out,
        GameOver: _game_over,
    }

    # ------------------------------------------------------------------ replies
    async def reply(self, interaction: discord.Interaction, content: str, **kwargs: Any
                    ) -> None:
        """An ephemeral answer, whether or not the interaction was acknowledged yet."""
        if "view" in kwargs and kwargs["view"] is not None:
            _stopped(kwargs["view"])
        if interaction.response.is_done():
            await interaction.followup.send(content, ephemeral=True, **kwargs)
        else:
            await interaction.response.send_message(content, ephemeral=True, **kwargs)

    async def guarded(self, interaction: discord.Interaction,
                      work: Callable[[], Awaitable[None]], what: str) -> None:
        """Run ``work``; a refusal becomes its translated message, a bug an apology."""
        lang = self.lang(interaction)
        try:
            await work()
        except Refusal as exc:
            await self.reply(interaction, i18n.error_text(exc, lang))
        except Exception:
            log.exception("%s failed (user %d, channel %s)", what, interaction.user.id,
                          interaction.channel_id)
            try:
                await self.reply(interaction, t("error.unexpected", lang))
            except discord.HTTPException:
                log.warning("could not even apologise for %s", what)

    # ------------------------------------------------------------------ clicks & commands
    async def lobby_click(self, interaction: discord.Interaction, game_id: int, what: str
                          ) -> None:
        async def work() -> None:
            table = self.manager.get(game_id)
            if table.status != "lobby":
                raise _refusal("game_started")
            await interaction.response.defer()
            await self.lobby_action(interaction, table.channel_id, what)

        await self.guarded(interaction, work, f"lobby button {what}")

    async def lobby_action(self, interaction: discord.Interaction, channel_id: int, what: str
                           ) -> None:
        user = interaction.user
        lang = self.lang(interaction)
        if what == "join":
            table = await self.manager.join(channel_id, Player(user.id, user.display_name))
            if not await self.check_dms(table, user.id, lang):
                await self.reply(interaction, t("dm.closed.reply", lang))
        elif what == "leave":
            await self.manager.leave(channel_id, user.id)
        elif what == "start":
            await self.manager.start_game(channel_id, user.id)
        elif what == "cancel":
            await self.manager.cancel(channel_id, user.id)
        elif what.startswith("cpu-"):
            await self.manager.add_computer(channel_id, user.id, what[4:])
        else:
            raise _refusal("unknown")

    def _seat_or_refuse(self, game_id: int, user_id: int) -> TableView:
        table = self.manager.get(game_id)
        if self.manager.seat_of(game_id, user_id) is None:
            raise _refusal("not_your_seat")
        return table

    async def show_hand(self, interaction: discord.Interaction, game_id: int) -> None:
        async def work() -> None:
            table = self.manager.get(game_id)
            if self.manager.seat_of(game_id, interaction.user.id) is None:
                raise _refusal("not_a_player")
            await interaction.response.defer(ephemeral=True, thinking=True)
            payload = await self.hand_payload(table, interaction.user.id, self.lang(interaction))
            await interaction.followup.send(ephemeral=True, **payload)

        await self.guarded(interaction, work, "hand")

    async def card_click(self, interaction: discord.Interaction, game_id: int, card: str
                         ) -> None:
        async def work() -> None:
            table = self._seat_or_refuse(game_id, interaction.user.id)
            lang = self.lang(interaction)
            obs = self.manager.observation_for(game_id, interaction.user.id)
            if table.turn != obs.get("seat"):
                raise _refusal("not_your_turn")
            if card not in (obs.get("hand") or []):
                raise _refusal("card_not_in_hand")
            actions = [a for a in obs.get("legal") or []
                       if a.split("@")[0] == card or a == f"dead:{card}"]
            if not actions:
                raise _refusal("illegal")
            key = "prompt.remove" if card == "dragon" else "prompt.space"
            await self.reply(interaction, t(key, lang, card=i18n.card(card, lang)),
                             view=self.choices_view(table, obs, actions, lang))

        await self.guarded(interaction, work, "card button")

    async def play_click(self, interaction: discord.Interaction, game_id: int, action: str,
                         ply: int) -> None:
        async def work() -> None:
            self._seat_or_refuse(game_id, interaction.user.id)
            lang = self.lang(interaction)
            await interaction.response.defer()
            await self.manager.submit(game_id, interaction.user.id, action, expected_ply=ply)
            try:
                await interaction.edit_original_response(
                    content=t("prompt.played", lang, move=self.describe(action, lang)),
                    view=None)
            except discord.HTTPException:
                log.debug("could not mark the move prompt as played", exc_info=True)

        await self.guarded(interaction, work, "move button")

    def describe(self, action: str, lang: str) -> str:
        if action == "roll":
            return t("button.roll", lang)
        kind, _, space = action.partition("@")
        if kind.startswith("dead:"):
            return t("button.exchange", lang, card=i18n.card(kind[5:], lang))
        if space and kind not in ("place", "remove", "replace"):
            return f"{i18n.card(kind, lang)} → {space}"
        return self.action_label(action, lang)

    async def roll(self, interaction: discord.Interaction, game_id: int, ply: int | None
                   ) -> None:
        async def work() -> None:
            self._seat_or_refuse(game_id, interaction.user.id)
            lang = self.lang(interaction)
            await interaction.response.defer(ephemeral=True, thinking=True)
            obs = self.manager.observation_for(game_id, interaction.user.id)
            rolled_already = (obs.get("turn") == obs.get("seat")
                              and "roll" not in (obs.get("legal") or ["roll"]))
            if not rolled_already:
                # (already rolled: e.g. the prompt was lost in a restart; offer it again)
                await self.manager.submit(game_id, interaction.user.id, "roll",
                                          expected_ply=ply)
            table = self.manager.get(game_id)
            obs = self.manager.observation_for(game_id, interaction.user.id)
            roll = obs.get("last_roll") or ["?", "?"]
            actions = [a for a in obs.get("legal") or [] if a not in ("roll", "pass")]
            if table.turn != obs.get("seat") or not actions:
                await interaction.followup.send(
                    t("moved.roll", lang, name=interaction.user.display_name, a=roll[0],
                      b=roll[1]), ephemeral=True)
                return
            await interaction.followup.send(
                t("prompt.dice", lang, a=roll[0], b=roll[1]), ephemeral=True,
                view=_stopped(self.choices_view(table, obs, actions, lang)))

        await self.guarded(interaction, work, "roll")

    async def rematch(self, interaction: discord.Interaction, game: str,
                      options: dict[str, Any]) -> None:
        async def work() -> None:
            await self.open_lobby(interaction, game, options)

        await self.guarded(interaction, work, "rematch")

    async def open_lobby(self, interaction: discord.Interaction, game: str,
                         options: dict[str, Any]) -> None:
        """Create a lobby; the reply is the lobby message, kept up to date from then on."""
        user = interaction.user
        lang = self.lang(interaction)
        await interaction.response.defer(thinking=True)
        try:
            table = await self.manager.create_lobby(
                game, options, Player(user.id, user.display_name), interaction.guild_id,
                interaction.channel_id or 0)
        except Exception:
            # the public "thinking..." placeholder must not stay behind a refusal
            with contextlib.suppress(discord.HTTPException):
                await interaction.delete_original_response()
            raise
        glang = self.guild_lang(table.guild_id)
        embed, view = self.lobby_message(table, glang)
        # fill in the "thinking..." placeholder: it becomes the lobby message
        message = await interaction.edit_original_response(
            embed=embed, view=_stopped(view) if view else None)
        self.lobby_messages[table.game_id] = (message.channel.id, message.id)
        if not await self.check_dms(table, user.id, lang):
            await self.reply(interaction, t("dm.closed.reply", lang))


def _refusal(code: str) -> Refusal:
    """A refusal decided here (who clicks), in the same shape as the manager's."""
    return Refusal(code, code.replace("_", " "))
