"""Buttons and select menus that keep working after a restart.

Each is a ``discord.ui.DynamicItem`` whose custom_id carries the game id and the action, so
a click is understood with no memory of the message it sits on. The callbacks only hand
the click to the ``Dealer``; it re-checks who is clicking (a forged custom_id does nothing)
and asks the manager, which holds every rule.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, cast

import discord

if TYPE_CHECKING:
    from .dealer import Dealer

LOBBY_ACTIONS = ("join", "leave", "start", "cancel", "cpu-easy", "cpu-medium", "cpu-hard")


def dealer_of(interaction: discord.Interaction) -> Dealer:
    return cast("Dealer", interaction.client.dealer)  # type: ignore[attr-defined]


class LobbyButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                  template=r"seq:lobby:(?P<game>\d+):(?P<what>[a-z-]+)"):
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
        await dealer_of(interaction).lobby_click(interaction, self.game_id, self.what)


class HandButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=r"seq:hand:(?P<game>\d+)"):
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
        await dealer_of(interaction).show_hand(interaction, self.game_id)


class CardButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=r"seq:card:(?P<game>\d+):(?P<card>[a-z]+)"):
    """A card of a Kids hand: click it to see where it can go."""

    def __init__(self, game_id: int, card: str, label: str = "?", dead: bool = False) -> None:
        style = discord.ButtonStyle.danger if dead else discord.ButtonStyle.primary
        super().__init__(discord.ui.Button(label=label, style=style,
                                           custom_id=f"seq:card:{game_id}:{card}"))
        self.game_id, self.card = game_id, card

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> CardButton:
        return cls(int(match["game"]), match["card"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await dealer_of(interaction).card_click(interaction, self.game_id, self.card)


class PlayButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=r"seq:play:(?P<game>\d+):(?P<ply>\d+):(?P<action>[A-Za-z0-9@:]+)"):
    """One possible move (a space for the chosen card, an exchange, a Dice space).

    ``ply`` is the game's length when the button was drawn: a second click on it, or a
    click after the game moved on, is refused as ``already_played`` instead of surprising.
    """

    def __init__(self, game_id: int, ply: int, action: str, label: str = "?",
                 style: discord.ButtonStyle = discord.ButtonStyle.success) -> None:
        super().__init__(discord.ui.Button(label=label, style=style,
                                           custom_id=f"seq:play:{game_id}:{ply}:{action}"))
        self.game_id, self.ply, self.action = game_id, ply, action

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> PlayButton:
        return cls(int(match["game"]), int(match["ply"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await dealer_of(interaction).play_click(interaction, self.game_id, self.action,
                                                self.ply)


class PlaySelect(discord.ui.DynamicItem[discord.ui.Select[Any]],
                 template=r"seq:spaces:(?P<game>\d+):(?P<ply>\d+):(?P<part>\d+)"):
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
        values: list[Any] = list(cast("dict[str, Any]", interaction.data or {}).get("values")
                                 or [])
        action = str(values[0]) if values else ""
        await dealer_of(interaction).play_click(interaction, self.game_id, action, self.ply)


class RollButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=r"seq:roll:(?P<game>\d+):(?P<ply>\d+)"):
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
        await dealer_of(interaction).roll(interaction, self.game_id, self.ply)


class RematchButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                    template=r"seq:rematch:(?P<game>kids|dice):(?P<options>[a-z0-9_=,]*)"):
    """On the final board: a new lobby with the same game and options.

    The finished game is gone from the manager, so the custom_id carries what a new lobby
    needs (e.g. ``seq:rematch:dice:sequence_length=5,teams=1``).
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
        await dealer_of(interaction).rematch(interaction, self.game, self.options)


ALL_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    LobbyButton, HandButton, CardButton, PlayButton, PlaySelect, RollButton, RematchButton)
