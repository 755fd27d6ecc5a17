"""The legend under the board: a header (cards left in the deck, or the last roll as two
dice; then whose turn it is or who won) and one slot per seat (chip, name, top discard)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw

from . import palette as pal
from .chips import chip
from .dice_faces import die
from .labels import paste_text
from .sprites import sprite
from .text import text_width, word

if TYPE_CHECKING:
    from .board import Geometry

TURN_WORDS = {"en": "{name}'s turn", "no": "Tur: {name}"}
WIN_WORDS = {"en": "{name} wins!", "no": "{name} vant!"}
AND = {"en": " & ", "no": " og "}


def _lang(lang: str) -> str:
    from .text import lang_of

    return lang_of(lang)


def draw_legend(image: Image.Image, draw: ImageDraw.ImageDraw, geo: Geometry,
                obs: dict[str, Any], names: Sequence[str], lang: str) -> None:
    _draw_header(image, draw, geo, obs, names, lang)
    colours: list[str] = list(obs.get("colours") or [])
    side_of = list(obs.get("side_of_seat") or range(len(names)))
    resigned = list(obs.get("resigned") or [])
    tops: list[str | None] = list(obs.get("discard_tops") or [])
    for seat, name in enumerate(names):
        side = side_of[seat] if seat < len(side_of) else seat
        colour = colours[side] if 0 <= side < len(colours) else ""
        _draw_slot(image, draw, geo, seat, name, colour,
                   to_move=obs.get("turn") == seat,
                   left=bool(seat < len(resigned) and resigned[seat]),
                   top_discard=tops[seat] if seat < len(tops) else None, lang=lang)


def _draw_header(image: Image.Image, draw: ImageDraw.ImageDraw, geo: Geometry,
                 obs: dict[str, Any], names: Sequence[str], lang: str) -> None:
    c = geo.cell
    y0 = geo.legend_top
    cy = y0 + geo.header_height / 2 + c * 0.03
    x = geo.margin + c * 0.2
    right = geo.size[0] - geo.margin - c * 0.2
    size = round(c * 0.22)
    if obs.get("game") == "kids":
        # A little deck of cards, then the count.
        w, h = round(c * 0.26), round(c * 0.36)
        for k in (2, 0):
            bx, by = round(x + k * 2.5), round(cy - h / 2 - k * 2.5)
            draw.rounded_rectangle((bx, by, bx + w, by + h), radius=round(c * 0.04),
                                   fill=pal.chip_style("blue").fill, outline=pal.INK, width=2)
        x += w + c * 0.18
        x += paste_text(image, word("deck", lang, n=obs.get("deck_size", 0)), x, cy, size,
                        pal.INK, bold=True)
    else:
        roll = obs.get("dice") or obs.get("last_roll")
        if roll and len(roll) == 2:
            ds = round(c * 0.42)
            for value in roll:
                face = die(int(value), ds)
                image.paste(face, (round(x), round(cy - ds / 2)), face)
                x += ds + c * 0.06
            x += paste_text(image, f"= {int(roll[0]) + int(roll[1])}", x + c * 0.04, cy, size,
                            pal.INK, bold=True) + c * 0.04
        n = obs.get("sequence_length")
        if n:
            x += c * 0.2
            x += paste_text(image, word("in_a_row", lang, n=n), x, cy, round(c * 0.18),
                            pal.MUTED, bold=True)
    _draw_status(image, geo, obs, names, lang, left=x + c * 0.3, right=right, cy=cy)


def _draw_status(image: Image.Image, geo: Geometry, obs: dict[str, Any],
                 names: Sequence[str], lang: str, *, left: float, right: float,
                 cy: float) -> None:
    """Right-aligned: whose turn it is, who won, or a draw, with the side's chip."""
    c = geo.cell
    size = round(c * 0.22)
    lg = _lang(lang)
    colours: list[str] = list(obs.get("colours") or [])
    side_of = list(obs.get("side_of_seat") or [])
    winner, turn = obs.get("winner"), obs.get("turn")
    colour: str | None = None
    if obs.get("is_over"):
        if winner is None:
            text, template = word("draw", lang), "{name}"
        else:
            sides = obs.get("sides") or []
            seats = sides[winner] if winner < len(sides) else []
            text = AND[lg].join(names[s] for s in seats if s < len(names))
            template = WIN_WORDS[lg]
            colour = colours[winner] if winner < len(colours) else None
    elif isinstance(turn, int) and turn < len(names):
        text, template = names[turn], TURN_WORDS[lg]
        side = side_of[turn] if turn < len(side_of) else turn
        colour = colours[side] if side < len(colours) else None
    else:
        return
    from .labels import fitted
    from .text import font

    chip_d = round(c * 0.4)
    room = right - left - (chip_d + c * 0.1 if colour else 0)
    rest = text_width(template.replace("{name}", ""), font(size, True))
    shown = template.format(name=fitted(text, size, True, max(10, int(room - rest))))
    w = paste_text(image, shown, right, cy, size, pal.INK, bold=True, align="right")
    if colour:
        piece = chip(colour, chip_d)
        image.paste(piece, (round(right - w - c * 0.1 - chip_d), round(cy - chip_d / 2)), piece)


def _draw_slot(image: Image.Image, draw: ImageDraw.ImageDraw, geo: Geometry, seat: int,
               name: str, colour: str, *, to_move: bool, left: bool,
               top_discard: str | None, lang: str) -> None:
    c = geo.cell
    x0, y0, x1, y1 = geo.slot(seat)
    x0 += round(c * 0.08)
    cy = (y0 + y1) / 2
    if to_move:
        draw.rounded_rectangle((x0, y0 + 3, x1 - 2, y1 - 3), radius=round(c * 0.1),
                               fill=pal.TURN_BAND, outline=pal.INK, width=2)
    x = x0 + c * 0.1
    # The arrow says "to move" without colour; other slots keep its room so names line up.
    a = c * 0.1
    if to_move:
        draw.polygon([(x, cy - a), (x + a * 1.4, cy), (x, cy + a)], fill=pal.INK)
    x += a * 1.4 + c * 0.08
    d = round(c * 0.42)
    piece = chip(colour, d)
    image.paste(piece, (round(x), round(cy - d / 2)), piece)
    x += d + c * 0.1
    right = x1 - c * 0.12
    if top_discard:
        s = round(c * 0.44)
        cw, ch = round(s * 0.86), s
        cx0 = round(right - cw)
        draw.rounded_rectangle((cx0, round(cy - ch / 2), cx0 + cw, round(cy + ch / 2)),
                               radius=round(c * 0.05), fill=pal.CARD_FACE,
                               outline=pal.CARD_EDGE, width=1)
        pic = sprite(top_discard, round(cw * 0.9))
        image.paste(pic, (cx0 + (cw - pic.width) // 2, round(cy - pic.height / 2)), pic)
        right = cx0 - c * 0.1
    size = round(c * 0.22)
    text = name + (f" ({word('left', lang)})" if left else "")
    w = paste_text(image, text, x, cy, size, pal.MUTED if left else pal.INK, bold=True,
                   max_width=max(10, int(right - x)))
    if left:
        draw.line((x, cy, x + w, cy), fill=pal.MUTED, width=2)
