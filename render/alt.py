"""Alt text: the board in words for screen readers, within Discord's 1024-character limit
for an attachment description."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .palette import chip_style
from .text import safe_name
from .words import card, colour, lang_of, t

LIMIT = 1024

def _space(index: int, width: int) -> str:
    row, col = divmod(index, width)
    return f"{chr(ord('A') + col)}{row + 1}"


def alt_text(obs: Mapping[str, Any], *, names: Sequence[str], lang: str = "en") -> str:
    """Describe the board: every chip by player and space, the free corners, the last move,
    whose turn it is (or the result), and the deck or the last roll. At most 1024
    characters: when the full text is longer, the animal names on the spaces go first,
    then the end is cut with an ellipsis."""
    for with_pictures in (True, False):
        text = _describe(obs, names, lang_of(lang), with_pictures)
        if len(text) <= LIMIT:
            return text
    return text[: LIMIT - 1].rstrip() + "…"


def _describe(obs: Mapping[str, Any], names: Sequence[str], lang: str,
              with_pictures: bool) -> str:
    def say(key: str, **params: object) -> str:
        return t(f"alt.{key}", lang, **params)

    width, height = int(obs["width"]), int(obs["height"])
    layout: list[str] = list(obs["layout"])
    kids = obs.get("game") == "kids"
    colours: list[str] = list(obs.get("colours") or [])
    seats = int(obs["seats"])
    who = [safe_name(names[s] if s < len(names) else "", t("picture.player", lang, n=s + 1))
           for s in range(seats)]
    sides: list[list[int]] = list(obs.get("sides") or [[s] for s in range(seats)])

    def side_name(side: int) -> str:
        members = sides[side] if side < len(sides) else []
        return say("and").join(who[s] for s in members) or "?"

    def place(index: int) -> str:
        name = _space(index, width)
        if with_pictures and kids:
            return f"{name} {card(layout[index], lang).lower()}"
        return name

    parts = [f"{say('kids' if kids else 'dice')}, "
             + say("size", w=width, h=height, last=chr(ord('A') + width - 1))]
    board: list[int | None] = list(obs["board"])
    for side in range(len(sides)):
        colour_id = colours[side] if side < len(colours) else "?"
        style = chip_style(colour_id)
        spaces = [place(i) for i, s in enumerate(board) if s == side]
        key = "chips" if spaces else "no_chips"
        parts.append(say(key, name=side_name(side), colour=colour(colour_id, lang),
                         mark=say(f"mark.{style.mark}"), spaces=", ".join(spaces)))
    if kids:
        corners = [_space(i, width) for i, p in enumerate(layout) if p == "free"]
        parts.append(say("free", spaces=", ".join(corners)))
    last = obs.get("last") or {}
    mover = last.get("seat")
    mover_name = who[mover] if isinstance(mover, int) and mover < seats else "?"
    if last.get("dice"):
        a, b = last["dice"]
        parts.append(say("roll", name=mover_name, a=a, b=b, total=a + b))
    if last.get("placed"):
        played = last.get("card")
        extra = say("card", card=card(played, lang).lower()) if played else ""
        parts.append(say("placed", name=mover_name, space=last["placed"]) + extra)
    if last.get("removed"):
        rs = last.get("removed_side")
        colour_id = colours[rs] if isinstance(rs, int) and rs < len(colours) else "?"
        parts.append(say("removed", name=mover_name, space=last["removed"],
                         colour=colour(colour_id, lang)))
    if obs.get("is_over"):
        winner = obs.get("winner")
        if winner is None:
            parts.append(say("draw"))
        else:
            line = ", ".join(obs.get("winning_line") or [])
            key = "won" if line else "won_plain"
            parts.append(say(key, name=side_name(winner), spaces=line))
    elif isinstance(obs.get("turn"), int) and obs["turn"] < seats:
        parts.append(say("turn", name=who[obs["turn"]]))
    if kids and "deck_size" in obs:
        parts.append(say("deck", n=obs["deck_size"]))
        tops = [f"{who[s]} {card(c, lang).lower()}"
                for s, c in enumerate(obs.get("discard_tops") or []) if c and s < seats]
        if tops:
            parts.append(say("tops", tops=", ".join(tops)))
    return ". ".join(parts) + "."
