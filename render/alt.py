"""Alt text: the board in words for screen readers, within Discord's 1024-character limit
for an attachment description."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .palette import chip_style
from .text import card_name, colour_name, lang_of, safe_name, word

LIMIT = 1024

_T = {
    "en": {
        "kids": "Sequence for Kids board",
        "dice": "Sequence Dice board",
        "size": "{w} columns A-{last}, {h} rows",
        "chips": "{name} ({colour}, {mark}): {spaces}",
        "no_chips": "{name} ({colour}, {mark}): no chips",
        "free": "Free corners: {spaces}",
        "placed": "Last move: {name} put a chip on {space}",
        "removed": "{name} removed a {colour} chip from {space}",
        "card": " ({card})",
        "roll": "Last roll: {a} and {b} ({total})",
        "turn": "{name} to play",
        "won": "{name} won with {spaces}",
        "won_plain": "{name} won",
        "draw": "The game ended in a draw",
        "deck": "{n} cards in the deck",
        "tops": "Top discards: {tops}",
        "and": " and ",
        "marks": {"heart": "heart", "square": "square", "triangle": "triangle",
                  "star": "star", "ring": "ring"},
    },
    "no": {
        "kids": "Sequence for Kids-spillebrett",
        "dice": "Sequence Dice-spillebrett",
        "size": "{w} kolonner A-{last}, {h} rader",
        "chips": "{name} ({colour}, {mark}): {spaces}",
        "no_chips": "{name} ({colour}, {mark}): ingen sjetonger",
        "free": "Åpne felt: {spaces}",
        "placed": "Siste trekk: {name} la en sjetong på {space}",
        "removed": "{name} fjernet en {colour} sjetong fra {space}",
        "card": " ({card})",
        "roll": "Terningkast: {a} og {b} ({total})",
        "turn": "{name} sin tur",
        "won": "{name} vant med {spaces}",
        "won_plain": "{name} vant",
        "draw": "Spillet endte uavgjort",
        "deck": "{n} kort i kortstokken",
        "tops": "Øverst i ut-bunkene: {tops}",
        "and": " og ",
        "marks": {"heart": "hjerte", "square": "firkant", "triangle": "trekant",
                  "star": "stjerne", "ring": "ring"},
    },
}  # fmt: skip


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
    t: dict[str, Any] = _T[lang]
    width, height = int(obs["width"]), int(obs["height"])
    layout: list[str] = list(obs["layout"])
    kids = obs.get("game") == "kids"
    colours: list[str] = list(obs.get("colours") or [])
    seats = int(obs["seats"])
    who = [safe_name(names[s] if s < len(names) else "", word("player", lang, n=s + 1))
           for s in range(seats)]
    sides: list[list[int]] = list(obs.get("sides") or [[s] for s in range(seats)])

    def side_name(side: int) -> str:
        members = sides[side] if side < len(sides) else []
        return t["and"].join(who[s] for s in members) or "?"

    def place(index: int) -> str:
        name = _space(index, width)
        if with_pictures and kids:
            return f"{name} {card_name(layout[index], lang).lower()}"
        return name

    parts = [f"{t['kids' if kids else 'dice']}, "
             + t["size"].format(w=width, h=height, last=chr(ord('A') + width - 1))]
    board: list[int | None] = list(obs["board"])
    for side in range(len(sides)):
        colour = colours[side] if side < len(colours) else "?"
        style = chip_style(colour)
        spaces = [place(i) for i, s in enumerate(board) if s == side]
        key = "chips" if spaces else "no_chips"
        parts.append(t[key].format(name=side_name(side), colour=colour_name(colour, lang),
                                   mark=t["marks"][style.mark], spaces=", ".join(spaces)))
    if kids:
        corners = [_space(i, width) for i, p in enumerate(layout) if p == "free"]
        parts.append(t["free"].format(spaces=", ".join(corners)))
    last = obs.get("last") or {}
    mover = last.get("seat")
    mover_name = who[mover] if isinstance(mover, int) and mover < seats else "?"
    if last.get("dice"):
        a, b = last["dice"]
        parts.append(t["roll"].format(a=a, b=b, total=a + b))
    if last.get("placed"):
        card = last.get("card")
        extra = t["card"].format(card=card_name(card, lang).lower()) if card else ""
        parts.append(t["placed"].format(name=mover_name, space=last["placed"]) + extra)
    if last.get("removed"):
        rs = last.get("removed_side")
        colour = colours[rs] if isinstance(rs, int) and rs < len(colours) else "?"
        parts.append(t["removed"].format(name=mover_name, space=last["removed"],
                                         colour=colour_name(colour, lang)))
    if obs.get("is_over"):
        winner = obs.get("winner")
        if winner is None:
            parts.append(t["draw"])
        else:
            line = ", ".join(obs.get("winning_line") or [])
            key = "won" if line else "won_plain"
            parts.append(t[key].format(name=side_name(winner), spaces=line))
    elif isinstance(obs.get("turn"), int) and obs["turn"] < seats:
        parts.append(t["turn"].format(name=who[obs["turn"]]))
    if kids and "deck_size" in obs:
        parts.append(t["deck"].format(n=obs["deck_size"]))
        tops = [f"{who[s]} {card_name(c, lang).lower()}"
                for s, c in enumerate(obs.get("discard_tops") or []) if c and s < seats]
        if tops:
            parts.append(t["tops"].format(tops=", ".join(tops)))
    return ". ".join(parts) + "."
