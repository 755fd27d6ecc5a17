"""Buttons and select menus that keep working after a restart.

Each is a ``discord.ui.DynamicItem`` whose custom_id carries the game id and the action, so
a click is understood with no memory of the message it sits on. A callback only hands the
click to the bot's ``Clicks`` (the table's click handler); it re-checks who is clicking (a
forged custom_id does nothing) and asks the manager, which holds every rule.

This module imports nothing else of ``cogs.table``: the handler is reached through the
``Clicks`` protocol on the client, so the buttons and the code behind them do not import
each other.
"""

from __future__ import annotations

import re
from typing import Any, Protocol, runtime_checkable

import discord

LOBBY_ACTIONS = ("join", "leave", "start", "cancel", "cpu-easy", "cpu-medium", "cpu-hard")


@runtime_checkable
class Clicks(Protocol):
    """What a click on one of these buttons becomes (``cogs.table.clicks.TableClicks``)."""

    async def lobby_click(self, interaction: discord.Interaction, game_id: int, what: str
                          ) -> None: ...

    async def show_hand(self, interaction: discord.Interaction, game_id: int) -> None: ...

    async def card_click(self, interaction: discord.Interaction, game_id: int, card: str,
                         seat: int | None = None) -> None: ...

    async def child_named(self, interaction: discord.Interaction, game_id: int, name: str
                          ) -> None: ...

    async def remove_child(self, interaction: discord.Interaction, game_id: int, seat: int
                           ) -> None: ...

    async def play_click(self, interaction: discord.Interaction, game_id: int, action: str,
                         ply: int) -> None: ...

    async def back_to_cards(self, interaction: discord.Interaction, game_id: int, seat: int
                            ) -> None: ...

    async def roll(self, interaction: discord.Interaction, game_id: int, ply: int | None
                   ) -> None: ...

    async def rematch(self, interaction: discord.Interaction, game: str,
                      options: dict[str, Any]) -> None: ...

    async def rematch_same_seats(self, interaction: discord.Interaction, game_id: int
                                 ) -> None: ...

    async def launch_board(self, interaction: discord.Interaction, game_id: int) -> None: ...


@runtime_checkable
class HasClicks(Protocol):
    """A client that knows where clicks go (``bot.SequenceBot``)."""

    @property
    def clicks(self) -> Clicks: ...


def clicks_of(interaction: discord.Interaction) -> Clicks:
    client = interaction.client
    if not isinstance(client, HasClicks):
        raise TypeError("the client has no click handler (it must be a SequenceBot)")
    return client.clicks


LOBBY = r"seq:lobby:(?P<game>\d+):(?P<what>[a-z-]+)"
HAND = r"seq:hand:(?P<game>\d+)"
# the seat is in every hand drawn since family seats (one account may hold several hands);
# hands drawn before carry none, and act for the clicker's own seat
CARD = r"seq:card:(?P<game>\d+):(?:(?P<seat>\d):)?(?P<card>[a-z]+)"
PLAY = r"seq:play:(?P<game>\d+):(?P<ply>\d+):(?P<action>[A-Za-z0-9@:]+)"
SPACES = r"seq:spaces:(?P<game>\d+):(?P<ply>\d+):(?P<part>\d+)"
ROLL = r"seq:roll:(?P<game>\d+):(?P<ply>\d+)"
REMATCH_OPTIONS = r"seq:rematch:(?P<game>kids|dice):(?P<options>[a-z0-9_=,]*)"
REMATCH_AGAIN = r"seq:rematch:again:(?P<game>\d+)"
UNSEAT = r"seq:unseat:(?P<game>\d+):(?P<seat>\d)"
# on a hand message in the DMs that shows a card's choices: back to that seat's cards
BACK = r"seq:back:(?P<game>\d+):(?P<seat>\d)"
# "Play on the board" (the Activity on): answered by opening the Activity in the channel
LAUNCH = r"seq:launch:(?P<game>\d+)"
CHILD_MODAL = re.compile(r"seq:child:(?P<game>\d+)")
CHILD_NAME = "name"  # the modal's text input
TEMPLATES = tuple(re.compile(p) for p in (LOBBY, HAND, CARD, PLAY, SPACES, ROLL,
                                          REMATCH_OPTIONS, REMATCH_AGAIN, UNSEAT, BACK,
                                          LAUNCH))


def understood(custom_id: str) -> bool:
    """Whether one of these buttons answers ``custom_id`` (else it is stale or forged)."""
    return any(p.fullmatch(custom_id) for p in TEMPLATES)


class LobbyButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=LOBBY):
    """Join / Leave / Add computer / Start / Cancel on a lobby message."""

    def __init__(self, game_id: int, what: str, label: str = "?",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary, row: int = 0
                 ) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, row=row,
                                           custom_id=f"seq:lobby:{game_id}:{what}"))
        self.game_id, self.what = game_id, what

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> LobbyButton:
        return cls(int(match["game"]), match["what"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await clicks_of(interaction).lobby_click(interaction, self.game_id, self.what)


class HandButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=HAND):
    """"My hand" on the board message: the hand as an ephemeral reply (DMs closed, or lost)."""

    def __init__(self, game_id: int, label: str = "?") -> None:
        super().__init__(discord.ui.Button(label=label, emoji="🃏",
                                           style=discord.ButtonStyle.secondary,
                                           custom_id=f"seq:hand:{game_id}"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> HandButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await clicks_of(interaction).show_hand(interaction, self.game_id)


class CardButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=CARD):
    """A card of a Kids hand (of one seat): click it to see where it can go."""

    def __init__(self, game_id: int, card: str, label: str = "?", dead: bool = False,
                 emoji: str | None = None, seat: int | None = None) -> None:
        style = discord.ButtonStyle.danger if dead else discord.ButtonStyle.primary
        where = f"{game_id}:{seat}" if seat is not None else f"{game_id}"
        super().__init__(discord.ui.Button(label=label, style=style, emoji=emoji,
                                           custom_id=f"seq:card:{where}:{card}"))
        self.game_id, self.card, self.seat = game_id, card, seat

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> CardButton:
        seat = match["seat"]
        return cls(int(match["game"]), match["card"], seat=int(seat) if seat else None)

    async def callback(self, interaction: discord.Interaction) -> None:
        await clicks_of(interaction).card_click(interaction, self.game_id, self.card,
                                                self.seat)


class BackToCards(discord.ui.DynamicItem[discord.ui.Button[Any]], template=BACK):
    """On a DM hand message showing one card's choices: the seat's cards again (a card
    tapped by mistake). The hand message is one message that changes, so this is its way
    back, not a new message."""

    def __init__(self, game_id: int, seat: int, label: str = "?") -> None:
        super().__init__(discord.ui.Button(label=label, emoji="\u21a9\ufe0f",
                                           style=discord.ButtonStyle.secondary,
                                           custom_id=f"seq:back:{game_id}:{seat}"))
        self.game_id, self.seat = game_id, seat

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> BackToCards:
        return cls(int(match["game"]), int(match["seat"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await clicks_of(interaction).back_to_cards(interaction, self.game_id, self.seat)


class UnseatButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=UNSEAT):
    """In a lobby: take a child's seat away again (its grown-up, the host or a moderator)."""

    def __init__(self, game_id: int, seat: int, label: str = "?") -> None:
        super().__init__(discord.ui.Button(label=label, style=discord.ButtonStyle.secondary,
                                           emoji="\u2716", row=2,
                                           custom_id=f"seq:unseat:{game_id}:{seat}"))
        self.game_id, self.seat = game_id, seat

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> UnseatButton:
        return cls(int(match["game"]), int(match["seat"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await clicks_of(interaction).remove_child(interaction, self.game_id, self.seat)


async def modal_submitted(interaction: discord.Interaction) -> bool:
    """A submitted "Add a child" form, handed to the clicks; False for anything else.

    The form is answered here, from its custom_id and value alone, not by a
    ``discord.ui.Modal`` kept in this process's memory: so a form opened before a restart
    (or in another process) still works."""
    if interaction.type is not discord.InteractionType.modal_submit:
        return False
    data: dict[str, Any] = dict(interaction.data or {})
    match = CHILD_MODAL.fullmatch(str(data.get("custom_id") or ""))
    if match is None:
        return False
    values = {str(c.get("custom_id")): str(c.get("value") or "")
              for row in data.get("components") or []
              for c in ([row.get("component")] if row.get("component") else
                        row.get("components") or [])}
    await clicks_of(interaction).child_named(interaction, int(match["game"]),
                                             values.get(CHILD_NAME, ""))
    return True


class PlayButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=PLAY):
    """One possible move (a space for the chosen card, an exchange, a Dice space).

    ``ply`` is the game's length when the button was drawn: a second click on it, or a
    click after the game moved on, is refused as ``already_played`` instead of surprising.
    """

    def __init__(self, game_id: int, ply: int, action: str, label: str = "?",
                 style: discord.ButtonStyle = discord.ButtonStyle.success,
                 emoji: str | None = None) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, emoji=emoji,
                                           custom_id=f"seq:play:{game_id}:{ply}:{action}"))
        self.game_id, self.ply, self.action = game_id, ply, action

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> PlayButton:
        return cls(int(match["game"]), int(match["ply"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await clicks_of(interaction).play_click(interaction, self.game_id, self.action,
                                                self.ply)


class PlaySelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=SPACES):
    """More than a row of buttons can hold: the moves split over select menus of 25."""

    def __init__(self, game_id: int, ply: int, part: int,
                 options: list[discord.SelectOption] | None = None, placeholder: str = "") -> None:
        super().__init__(discord.ui.Select(
            custom_id=f"seq:spaces:{game_id}:{ply}:{part}", placeholder=placeholder or None,
            options=options or [discord.SelectOption(label="?")]))
        self.game_id, self.ply = game_id, ply

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> PlaySelect:
        return cls(int(match["game"]), int(match["ply"]), int(match["part"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        # the dynamic item is not the view's own select, so read the choice from the payload
        data: dict[str, Any] = dict(interaction.data or {})
        values = list(data.get("values") or [])
        action = str(values[0]) if values else ""
        await clicks_of(interaction).play_click(interaction, self.game_id, action, self.ply)


class RollButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ROLL):
    """Sequence Dice: roll, for the player whose turn it is."""

    def __init__(self, game_id: int, ply: int, label: str = "?") -> None:
        super().__init__(discord.ui.Button(label=label, emoji="🎲",
                                           style=discord.ButtonStyle.primary,
                                           custom_id=f"seq:roll:{game_id}:{ply}"))
        self.game_id, self.ply = game_id, ply

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> RollButton:
        return cls(int(match["game"]), int(match["ply"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await clicks_of(interaction).roll(interaction, self.game_id, self.ply)


class SameSeatsRematch(discord.ui.DynamicItem[discord.ui.Button[Any]], template=REMATCH_AGAIN):
    """On the final board: a new lobby with the same seats, options and a new shuffle. The
    custom_id starts like the older options-only button's (``seq:rematch:``), so tools that
    look for "a rematch button" find both."""

    def __init__(self, game_id: int, label: str = "?") -> None:
        super().__init__(discord.ui.Button(label=label, emoji="🔁",
                                           style=discord.ButtonStyle.success,
                                           custom_id=f"seq:rematch:again:{game_id}"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> SameSeatsRematch:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await clicks_of(interaction).rematch_same_seats(interaction, self.game_id)


class RematchButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=REMATCH_OPTIONS):
    """LEGACY, kept only for final boards posted by older versions (new boards carry
    ``SameSeatsRematch``): a new lobby with the same game and options.

    The custom_id carries what a new lobby needs (e.g.
    ``seq:rematch:dice:sequence_length=5,teams=1``).
    """

    def __init__(self, game: str, options: dict[str, Any], label: str = "?") -> None:
        encoded = ",".join(f"{k}={int(v) if isinstance(v, bool) else v}"
                           for k, v in sorted(options.items()) if v is not None)
        super().__init__(discord.ui.Button(label=label, emoji="🔁",
                                           style=discord.ButtonStyle.success,
                                           custom_id=f"seq:rematch:{game}:{encoded}"[:100]))
        self.game, self.options = game, dict(options)

    @staticmethod
    def decode(text: str) -> dict[str, Any]:
        options: dict[str, Any] = {}
        for pair in filter(None, text.split(",")):
            key, _, value = pair.partition("=")
            if key == "teams":
                options[key] = value == "1"
            elif key == "sequence_length" and value.isdigit():
                options[key] = int(value)
            elif key == "level":
                options[key] = value
        return options

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> RematchButton:
        return cls(match["game"], cls.decode(match["options"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await clicks_of(interaction).rematch(interaction, self.game, self.options)


class LaunchButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=LAUNCH):
    """"Play on the board" on the lobby and the boards, when the bot serves the Activity:
    the click is answered by opening it (interaction callback 12, LAUNCH_ACTIVITY)."""

    def __init__(self, game_id: int, label: str = "?", row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=label, emoji="🖐️", row=row,
                                           style=discord.ButtonStyle.primary,
                                           custom_id=f"seq:launch:{game_id}"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> LaunchButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await clicks_of(interaction).launch_board(interaction, self.game_id)


ALL_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    LobbyButton, HandButton, CardButton, PlayButton, PlaySelect, RollButton, SameSeatsRematch,
    RematchButton, UnseatButton, BackToCards, LaunchButton)
