"""What each face of a table offers, read back from what it sent: the chat's buttons and
menus (through the fake Discord), the page's frame, and the manager's offer said as the
page is to be handed it."""

from __future__ import annotations

import re
from typing import Any

from cogs.table.buttons import CARD, PLAY, SPACES
from engine.action import Action
from manager import Offer, TurnOffer
from tests.e2e.people import card_ids, tap_card
from tests.fakediscord import FakeMessage, Interaction, Person

RED = 4  # a button's style: danger


def page_lobby(offer: Offer) -> dict[str, bool]:
    """The page's lobby (``frame["lobby"]``) as the offer says it."""
    lobby = offer.lobby
    assert lobby is not None
    return {"seated": offer.acts_for is not None, "join": lobby.join,
            "add_computer": bool(lobby.add_computer), "start": lobby.start,
            "leave": lobby.leave, "cancel": lobby.cancel}


def page_moves(moves: TurnOffer) -> dict[str, Any]:
    """The moves the page is to be handed (``frame["me"]["moves"]``) as the offer says
    them: the roll, each first tap's spaces with the move made there and those where it
    takes a chip away, the exchanges by card."""
    return {
        "roll": moves.roll.text if moves.roll is not None else None,
        "groups": {g.first: {"spaces": {space: a.text for space, a in g.spaces.items()},
                             "takes": [space for space, a in g.spaces.items() if a.takes]}
                   for g in moves.groups},
        "exchange": {a.what: a.text for a in moves.exchanges},
    }


def refusal_said(interaction: Interaction) -> str | None:
    """The words of the refusal a click was answered with, if it was."""
    if interaction.followups:
        return interaction.followups[0].content
    if interaction.callback_type == 4 and interaction.original is not None:
        return interaction.original.content
    return None


def moves_on(message: FakeMessage, game_id: int, ply: int) -> list[str]:
    """The moves a message offers, in their numbers' order: its buttons and its menus'
    options, each carrying the game and the ply it was drawn for (a button is red where
    its move takes a chip away or exchanges a card)."""
    found: list[str] = []
    for component in message.components():
        custom_id = str(component.get("custom_id") or "")
        play, menu = re.fullmatch(PLAY, custom_id), re.fullmatch(SPACES, custom_id)
        for match in (play, menu):
            if match is not None:
                assert (int(match["game"]), int(match["ply"])) == (game_id, ply), custom_id
        if play is not None:
            action = Action.parse(play["action"])
            assert (component["style"] == RED) == (action.takes or action.dead), component
            found.append(play["action"])
        elif menu is not None:
            found += [str(o["value"]) for o in component.get("options") or []]
    return found


async def make(person: Person, message: FakeMessage, action: str) -> Interaction:
    """``person`` takes ``action`` on a message offering it: its button, or its menu's
    option."""
    for component in message.components():
        custom_id = str(component.get("custom_id") or "")
        play, menu = re.fullmatch(PLAY, custom_id), re.fullmatch(SPACES, custom_id)
        if play is not None and play["action"] == action:
            return await person.click(message, custom_id)
        if menu is not None and action in [o["value"] for o in component["options"]]:
            return await person.select(message, custom_id, [action])
    raise AssertionError(f"{action} is not on {message!r}")


def card_of(custom_id: str) -> str:
    """The card a hand's button is (``seq:card:<game>:<seat>:<card>``)."""
    match = re.fullmatch(CARD, custom_id)
    assert match is not None, custom_id
    return match["card"]


async def chat_choices(person: Person, hand: FakeMessage, game_id: int, ply: int
                       ) -> dict[str, list[str] | None]:
    """Each card of the hand message kept in the DMs, tapped: the moves its numbered
    spaces (or its exchange) offer, then back to the cards; None: the tap was refused."""
    found: dict[str, list[str] | None] = {}
    for custom_id in card_ids(hand):
        shown = await tap_card(person, hand, custom_id)
        if shown.id != hand.id:  # refused, in words of its own
            assert shown.ephemeral and shown.content, shown
            found[card_of(custom_id)] = None
            continue
        found[card_of(custom_id)] = moves_on(shown, game_id, ply)
        back = next(c for c in shown.custom_ids() if c.startswith("seq:back:"))
        again = await (await person.click(shown, back)).reply()
        assert again.id == hand.id and card_ids(again), "back to the cards"
    return found
