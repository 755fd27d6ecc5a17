"""What a child does on the Activity's page, in the game's words: tap a card, tap a glowing
space, tap Roll; and what the test reads back from the screen and the DMs."""

from __future__ import annotations

import re
from typing import Any

from engine.action import Action
from tests.activity.browser import Screen
from tests.e2e.people import kept_hand
from tests.fakediscord import Person

CARD_OF = re.compile(r"seq:card:(?P<game>\d+):(?P<seat>\d):(?P<card>[a-z]+)")


async def my_turn(screen: Screen, timeout: float = 15.0) -> dict[str, Any]:
    """The table once it is this page's turn, drawn (its cards or Roll tappable)."""
    frame = await screen.table_where(lambda t: bool(t["me"] and t["me"]["legal"]),
                                     "my turn on the page", timeout)
    await screen.page.wait_for_function(
        "ply => window.__seq.frames > 0 && document.querySelector('#hand .who') !== null",
        arg=frame["ply"])
    return frame


async def tap_a_move(screen: Screen, *, shortest: bool = False) -> dict[str, Any]:
    """Take this page's turn by taps, as a child would: Kids, a card then a glowing space
    (or a dead card, then its swap); Dice, Roll, then a glowing space. Returns the table it
    was played on; waits for the page to show the move made."""
    frame = await my_turn(screen)
    me = frame["me"]
    if frame["game"] == "dice":
        if "roll" in me["legal"]:
            await screen.tap("[data-roll]")
            frame = await screen.table_where(
                lambda t: t["ply"] > frame["ply"] or not t["me"]["legal"], "the roll")
            if not (frame["me"] and frame["me"]["legal"]):
                return frame  # (nothing to place: the turn passed)
            await screen.page.wait_for_selector(".space.glow")
        spaces = await screen.glowing()
        assert spaces, "a roll's spaces glow"
        await screen.tap(f'[data-space="{pick(spaces, shortest)}"]')
    else:
        placing = [c for c in me["hand"] if any(a.startswith(f"{c}@") for a in me["legal"])]
        if placing:
            card = placing[0]
            await screen.tap(f'[data-card="{card}"]')
            await screen.page.wait_for_selector(".space.glow")
            spaces = await screen.glowing()
            expected = sorted(str(m.space) for m in map(Action.parse, me["legal"])
                              if m.what == card and m.space and not m.dead)
            assert sorted(spaces) == expected, "the card's spaces glow, and only they"
            await screen.tap(f'[data-space="{pick(spaces, shortest)}"]')
        else:
            card = next(c for c in me["hand"] if f"dead:{c}" in me["legal"])
            await screen.tap(f'[data-card="{card}"]')
            await screen.tap(f'[data-swap="{card}"]')
    return await screen.table_where(lambda t: t["ply"] > frame["ply"], "the move on the page")


def pick(spaces: list[str], shortest: bool) -> str:
    return spaces[0] if not shortest else sorted(spaces)[0]


def dm_cards(person: Person, game_id: int, seat: int) -> list[str] | None:
    """The cards the hand message kept in ``person``'s DMs shows for ``seat``."""
    message = kept_hand(person, game_id, seat)
    if message is None:
        return None
    found = [CARD_OF.match(c) for c in message.custom_ids()]
    return sorted(m["card"] for m in found if m and int(m["seat"]) == seat)
