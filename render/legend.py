"""The legend under the board: a header (cards left in the deck, or the last roll as two
dice; then whose turn it is or who won) and one slot per seat (chip, name, top discard)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PIL import Image, ImageDraw

from . import palette as pal
from .canvas import Canvas
from .chips import chip
from .dice_faces import die
from .geometry import Geometry
from .labels import fit_lines, fit_named, fit_whole, label
from .sprites import sprite
from .words import t

PANEL = pal.SPACE  # the legend's paper (see board.draw_static)


def draw_legend(canvas: Canvas, geo: Geometry, obs: Mapping[str, Any], names: Sequence[str],
                lang: str) -> None:
    _draw_header(canvas, geo, obs, names, lang)
    colours: list[str] = list(obs.get("colours") or [])
    side_of = list(obs.get("side_of_seat") or range(len(names)))
    resigned = list(obs.get("resigned") or [])
    # The engine knows only that a seat is out; the table adds which of its players left
    # the game (rather than resigned), when it knows.
    left_game = list(obs.get("left_game") or [])
    tops: list[str | None] = list(obs.get("discard_tops") or [])
    for seat, name in enumerate(names):
        side = side_of[seat] if seat < len(side_of) else seat
        colour = colours[side] if 0 <= side < len(colours) else ""
        _draw_slot(canvas, geo, seat, name, colour,
                   to_move=obs.get("turn") == seat,
                   gone=_gone(seat, resigned, left_game),
                   top_discard=tops[seat] if seat < len(tops) else None, lang=lang)


def _gone(seat: int, resigned: Sequence[bool], left_game: Sequence[bool]) -> str | None:
    """Why a seat is out of the game, as a word key: resigned or left; None if it plays."""
    if not (seat < len(resigned) and resigned[seat]):
        return None
    return ("picture.left_game" if seat < len(left_game) and left_game[seat]
            else "picture.resigned")


def _chip(canvas: Canvas, colour: str, d: int, x: float, y: float, bg: pal.RGB) -> None:
    canvas.paste(("chip", colour, d), lambda: chip(colour, d), (x, y), bg)


def _draw_header(canvas: Canvas, geo: Geometry, obs: Mapping[str, Any], names: Sequence[str],
                 lang: str) -> None:
    c = geo.cell
    cy = geo.header_centre(0)
    x = geo.margin + c * 0.2
    right = geo.size[0] - geo.margin - c * 0.2
    if geo.header_rows > 1:
        _draw_roll(canvas, geo, obs, names, lang, x, right, geo.header_centre(1))
    status = _status(obs, names, lang)
    if status is not None and obs.get("is_over"):
        # Once the game is over, the deck or the last roll is history: if the winners' names
        # ("Datamaskin (middels) og Datamaskin (vanskelig) vant!") are whole only without
        # it, the status takes the whole header.
        text, template, colour = status
        room = _status_room(c, _draw_header_left(canvas, geo, obs, lang, x, cy, draw=False),
                            right, colour)
        if fit_whole(template.format(name=text), _layouts(c), True, room) is None:
            _draw_status(canvas, geo, status, left=x, right=right, cy=cy)
            return
    x = _draw_header_left(canvas, geo, obs, lang, x, cy, draw=True)
    if status is not None:
        _draw_status(canvas, geo, status, left=x, right=right, cy=cy)


def _draw_header_left(canvas: Canvas, geo: Geometry, obs: Mapping[str, Any], lang: str,
                      x: float, cy: float, *, draw: bool) -> float:
    """The deck (Kids) or the row length (Dice) from ``x``; returns where the status may
    start. With ``draw`` false, only measures."""
    c = geo.cell
    size = round(c * 0.24)

    def text(s: str, x: float, size: int, colour: pal.RGB) -> int:
        if draw:
            return canvas.text(s, x, cy, size, colour, PANEL, bold=True)
        return label(s, size, True).width

    if obs.get("game") == "kids":
        # A little deck of cards, then the count. The icon is static: a tile.
        w, h = round(c * 0.26), round(c * 0.36)
        if draw:
            canvas.paste(("deck", w, h), lambda: _deck_icon(w, h, c), (x, cy - h / 2 - 5),
                         PANEL)
        x += w + 5 + c * 0.18
        x += text(t("picture.deck", lang, n=obs.get("deck_size", 0)), x, size, pal.INK)
        return x + c * 0.3
    n = obs.get("sequence_length")
    if n:
        x += text(t("picture.in_a_row", lang, n=n), x, round(c * 0.21), pal.MUTED)
    return x + c * 0.3


def _draw_roll(canvas: Canvas, geo: Geometry, obs: Mapping[str, Any], names: Sequence[str],
               lang: str, x: float, right: float, cy: float) -> None:
    """The Dice header's second row: "Last roll: Emma", the two dice and their total.
    Beside the next player's turn, bare dice read as that player's roll, so the words say
    whose they were; the label may take two lines so a long name stays whole."""
    c = geo.cell
    size = round(c * 0.24)
    roll, roller = _shown_roll(obs)
    if roll is None:
        return
    name = names[roller] if roller is not None and roller < len(names) else None
    template = t("picture.last_roll" if name else "picture.last_roll_plain", lang)
    ds = round(c * 0.44)
    dice_w = 2 * ds + label("+", size, True).width + label("= 12", size, True).width + c * 0.4
    lsize, lines = fit_named(template, name or "", _roll_layouts(c), True,
                             max(c, int(right - x - dice_w)))
    for y, line in _line_centres(cy, lsize, lines):
        canvas.text(line, x, y, lsize, pal.INK, PANEL, bold=True)
    x += max(label(line, lsize, True).width for line in lines) + c * 0.12
    for k, v in enumerate(roll):
        if k:
            x += canvas.text("+", x, cy, size, pal.INK, PANEL, bold=True) + c * 0.05
        canvas.paste(("die", v, ds), lambda v=v: die(v, ds),  # type: ignore[misc]
                     (x, cy - ds / 2), PANEL)
        x += ds + c * 0.05
    canvas.text(f"= {roll[0] + roll[1]}", x + c * 0.02, cy, size, pal.INK, PANEL, bold=True)


def _shown_roll(obs: Mapping[str, Any]) -> tuple[tuple[int, int] | None, int | None]:
    """The roll the header shows and the seat that rolled it (None if not known): the roll
    of the player to move, once they have rolled, else the last one made."""
    current = obs.get("dice")
    if current and len(current) == 2:
        turn = obs.get("turn")
        return (int(current[0]), int(current[1])), turn if isinstance(turn, int) else None
    last_roll = obs.get("last_roll")
    if not (last_roll and len(last_roll) == 2):
        return None, None
    last = obs.get("last") or {}
    seat = last.get("seat")
    # The last move's own dice say who rolled; after a skip (no dice), nobody is named.
    known = isinstance(seat, int) and list(last.get("dice") or []) == list(last_roll)
    return (int(last_roll[0]), int(last_roll[1])), seat if known else None


def _roll_layouts(c: int) -> tuple[tuple[int, int], ...]:
    """The (font size, lines) the "Last roll: Emma" label may take."""
    return ((round(c * 0.2), 1), (round(c * 0.18), 2), (round(c * 0.16), 2))


def _deck_icon(w: int, h: int, c: int) -> Image.Image:
    out = Image.new("RGBA", (w + 6, h + 6), (0, 0, 0, 0))
    draw = ImageDraw.Draw(out)
    for k in (2, 0):
        bx, by = round(k * 2.5), round((2 - k) * 2.5)
        draw.rounded_rectangle((bx, by, bx + w, by + h), radius=round(c * 0.04),
                               fill=pal.chip_style("blue").fill, outline=pal.INK, width=2)
    return out


def _status(obs: Mapping[str, Any], names: Sequence[str],
            lang: str) -> tuple[str, str, str | None] | None:
    """Whose turn it is, who won, or a draw: (the name(s), the template around them, the
    side's chip colour if any); None if there is nothing to say."""
    colours: list[str] = list(obs.get("colours") or [])
    side_of = list(obs.get("side_of_seat") or [])
    winner, turn = obs.get("winner"), obs.get("turn")
    if obs.get("is_over"):
        if winner is None:
            return t("picture.nobody_won", lang), "{name}", None
        sides = obs.get("sides") or []
        seats = sides[winner] if winner < len(sides) else []
        text = t("picture.and", lang).join(names[s] for s in seats if s < len(names))
        template = t("picture.team_wins" if len(seats) > 1 else "picture.wins", lang)
        return text, template, colours[winner] if winner < len(colours) else None
    if isinstance(turn, int) and turn < len(names):
        side = side_of[turn] if turn < len(side_of) else turn
        return names[turn], t("picture.turn", lang), colours[side] if side < len(colours) else None
    return None


def _status_room(c: int, left: float, right: float, colour: str | None) -> int:
    """The width the status text may take between ``left`` and ``right``, beside its chip."""
    return max(10, int(right - left - (round(c * 0.42) + c * 0.1 if colour else 0)))


def _draw_status(canvas: Canvas, geo: Geometry, status: tuple[str, str, str | None], *,
                 left: float, right: float, cy: float) -> None:
    """Right-aligned, with the side's chip; on two lines if that keeps the name whole."""
    c = geo.cell
    text, template, colour = status
    chip_d = round(c * 0.42)
    size, lines = fit_named(template, text, _layouts(c), True,
                            _status_room(c, left, right, colour))
    w = max(label(line, size, True).width for line in lines)  # two lines: flush left
    for y, line in _line_centres(cy, size, lines):
        canvas.text(line, right - w, y, size, pal.INK, PANEL, bold=True)
    if colour:
        _chip(canvas, colour, chip_d, right - w - c * 0.1 - chip_d, cy - chip_d / 2, PANEL)


def _draw_slot(canvas: Canvas, geo: Geometry, seat: int, name: str, colour: str, *,
               to_move: bool, gone: str | None, top_discard: str | None, lang: str) -> None:
    c = geo.cell
    draw = canvas.draw
    x0, y0, x1, y1 = geo.slot(seat)
    x0 += round(c * 0.08)
    cy = (y0 + y1) / 2
    bg = PANEL
    if to_move:
        bg = pal.TURN_BAND
        draw.rounded_rectangle((x0, y0 + 3, x1 - 2, y1 - 3), radius=round(c * 0.1),
                               fill=canvas.ink(bg), outline=canvas.ink(pal.INK), width=2)
    x = x0 + c * 0.1
    # The arrow says "to move" without colour; other slots keep its room so names line up.
    a = c * 0.1
    if to_move:
        draw.polygon([(x, cy - a), (x + a * 1.4, cy), (x, cy + a)], fill=canvas.ink(pal.INK))
    x += a * 1.4 + c * 0.08
    d = round(c * 0.44)
    _chip(canvas, colour, d, x, cy - d / 2, bg)
    x += d + c * 0.1
    right = x1 - c * 0.12
    if top_discard:
        s = round(c * 0.48)
        cw = round(s * 0.86)
        cx0 = round(right - cw)
        card = top_discard
        canvas.paste(("discard", card, cw, s), lambda: _discard_icon(card, cw, s, c),
                     (cx0, cy - s / 2), bg)
        right = cx0 - c * 0.1
    text = name + (f" ({t(gone, lang)})" if gone else "")
    # A long name ("Computer (medium)", "Datamaskin (vanskelig)") is set a little smaller,
    # then on two lines, before it is cut: the level is what tells two computers apart.
    size, lines = fit_lines(text, _layouts(c), True, max(10, int(right - x)))
    ink = pal.MUTED if gone else pal.INK
    # Only the name is struck through: the note says why, and must stay readable.
    struck = len(name) if gone else 0
    at = 0
    for y, line in _line_centres(cy, size, lines):
        w = canvas.text(line, x, y, size, ink, bg, bold=True)
        start = text.find(line, at)
        if start < 0:  # shortened with an ellipsis: strike what is left of the name
            start = at
        at = start + len(line)
        in_name = line[:max(0, struck - start)].rstrip()
        if in_name:
            sw = w if in_name == line else label(in_name, size, True).width
            draw.line((x, y, x + sw, y), fill=canvas.ink(pal.MUTED), width=2)


def _layouts(c: int) -> tuple[tuple[int, int], ...]:
    """The (font size, lines) a legend name may take, in order of preference: one line at
    full size; a little smaller on one line, else on two; smaller again (still easy to read
    at the cell size) on one line, else on two."""
    return ((round(c * 0.24), 1), (round(c * 0.21), 2), (round(c * 0.18), 2))


def _line_centres(cy: float, size: int,
                  lines: Sequence[str]) -> list[tuple[float, str]]:
    """Each line with the y of its centre, the block centred on ``cy``."""
    pitch = size * 1.12
    first = cy - pitch * (len(lines) - 1) / 2
    return [(first + k * pitch, line) for k, line in enumerate(lines)]


def _discard_icon(card: str, cw: int, ch: int, c: int) -> Image.Image:
    """A small face-up card with the animal on it."""
    out = Image.new("RGBA", (cw + 1, ch + 1), (0, 0, 0, 0))
    ImageDraw.Draw(out).rounded_rectangle((0, 0, cw, ch), radius=round(c * 0.05),
                                          fill=pal.CARD_FACE, outline=pal.CARD_EDGE, width=1)
    pic = sprite(card, round(cw * 0.92))
    out.alpha_composite(pic, ((cw + 1 - pic.width) // 2, (ch + 1 - pic.height) // 2))
    return out
