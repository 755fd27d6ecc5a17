"""Render speed and size: a mid-game board of each game, a hand, and the same Kids board
drawn the naive way (everything from scratch, RGB PNG) in the same run for comparison.

A board is timed as drawn (the board cache emptied before each call: a move is a new
position, which the cache has never seen); the cache's answer for a position drawn lately
(a board shown again after a restart) is reported apart, as ``..._cached_ms``.

    .venv/bin/python -m bench render
"""

from __future__ import annotations

import io
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from PIL import Image, ImageDraw

import engine
import render
from render import palette as pal
from render.board import Highlight, clear_board_cache
from render.chips import draw_mark
from render.choice import choice_png
from render.dice_faces import die
from render.geometry import geometry_for
from render.sprites import _original
from render.text import font

NAMES = ["Emma", "Ola Nordmann", "Kari", "Per"]
REPEATS = 40


def _mid_game(kind: str, seats: int, moves: int, seed: int = 11) -> engine.Game:
    game = engine.new_game(kind, seats, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def _median_ms(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    fn()  # warm caches: we measure the per-move cost
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def _drawn_ms(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    """The median time of ``fn`` with the board cache emptied before each call."""
    fn()  # warm the sprite, font and label caches: they last the bot's whole life
    times = []
    for _ in range(repeats):
        clear_board_cache()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def naive_board_png(obs: dict[str, Any], names: list[str]) -> bytes:
    """The same picture drawn the obvious way: every space, picture, word and chip from
    scratch on every call, saved as a default RGB PNG. Only the decoded sprite files are
    kept, as any implementation would."""
    geo = geometry_for(obs)
    c = geo.cell
    image = Image.new("RGB", geo.size, pal.BACKGROUND)
    draw = ImageDraw.Draw(image)
    coord = font(round(c * 0.22), True)
    for col in range(geo.width):
        x0, _, x1, _ = geo.box(col)
        draw.text(((x0 + x1) / 2, geo.margin + geo.gutter / 2), "ABCDEF"[col], font=coord,
                  fill=pal.MUTED, anchor="mm")
    for row in range(geo.height):
        _, y0, _, y1 = geo.box(row * geo.width)
        draw.text((geo.margin + geo.gutter / 2, (y0 + y1) / 2), str(row + 1), font=coord,
                  fill=pal.MUTED, anchor="mm")
    for index, picture in enumerate(obs["layout"]):
        x0, y0, x1, y1 = geo.box(index)
        draw.rounded_rectangle((x0 + 3, y0 + 3, x1 - 4, y1 - 4), radius=11, fill=pal.SPACE,
                               outline=pal.SPACE_EDGE, width=2)
        if picture == "free":
            draw_mark(draw, pal.FREE_MARK, (x0 + x1) / 2, (y0 + y1) / 2 - 9, 45, pal.SPACE_EDGE)
            draw.text(((x0 + x1) / 2, y1 - 16), "FREE", font=font(16, True), fill=pal.MUTED,
                      anchor="mm")
        elif picture.isdigit():
            draw.text(((x0 + x1) / 2, (y0 + y1) / 2), picture, font=font(44, True),
                      fill=pal.INK, anchor="mm")
        else:
            original = _original(picture)
            if original is not None:
                pic = original.resize((80, 80), Image.Resampling.LANCZOS)
                image.paste(pic, (x0 + 8, y0 + 8), pic)
    d = geo.chip_diameter
    for index, side in enumerate(obs["board"]):
        if side is None:
            continue
        cx, cy = geo.centre(index)
        style = pal.chip_style(obs["colours"][side])
        draw.ellipse((cx - d / 2, cy - d / 2, cx + d / 2, cy + d / 2), fill=style.fill,
                     outline=pal.INK, width=3)
        draw_mark(draw, style.mark, cx, cy, d * 0.44, style.mark_colour)
    hl = Highlight.from_observation(obs)
    if hl.last and (i := geo.index(hl.last)) is not None:
        draw.rounded_rectangle(geo.box(i), radius=11, outline=pal.INK, width=7)
    top = geo.legend_top
    draw.rounded_rectangle((geo.margin, top, geo.size[0] - geo.margin, geo.size[1] - geo.margin),
                           radius=11, fill=pal.SPACE, outline=pal.SPACE_EDGE, width=2)
    name_font = font(round(c * 0.22), True)
    for seat, name in enumerate(names[: obs["seats"]]):
        x0, y0, x1, y1 = geo.slot(seat)
        style = pal.chip_style(obs["colours"][obs["side_of_seat"][seat]])
        draw.ellipse((x0 + 20, y0 + 8, x0 + 60, y0 + 48), fill=style.fill, outline=pal.INK)
        draw.text((x0 + 70, (y0 + y1) / 2), name, font=name_font, fill=pal.INK, anchor="lm")
        tops = obs.get("discard_tops") or []
        if seat < len(tops) and tops[seat] and (original := _original(tops[seat])):
            pic = original.resize((40, 40), Image.Resampling.LANCZOS)
            image.paste(pic, (x1 - 50, y0 + 8), pic)
    draw.text((geo.margin + 20, top + 28), f"Deck: {obs.get('deck_size', 0)}", font=name_font,
              fill=pal.INK, anchor="lm")
    if (roll := obs.get("last_roll")):
        for k, value in enumerate(roll):
            face = die.__wrapped__(int(value), 40)
            image.paste(face, (geo.margin + 20 + 46 * k, top + 8), face)
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def _free_spaces(obs: dict[str, Any]) -> list[str]:
    width = int(obs["width"])
    return [f"{chr(ord('A') + i % width)}{i // width + 1}"
            for i, (side, picture) in enumerate(zip(obs["board"], obs["layout"], strict=True))
            if side is None and picture != "free"]


def _choice_figures(mid_game: dict[str, Any], repeats: int) -> dict[str, float]:
    """The choice picture on Kids positions with 6 marks (a card's spaces, a Dragon's
    chips; mid-game) and with 30 (a Unicorn early on): the median time of each, and the
    bigger figure of the two as the headline (the aim, under 8 ms and 30 KiB, is for
    both)."""
    early = _mid_game("kids", 2, 6).observation(None)
    out: dict[str, float] = {}
    for label, obs, count in (("few", mid_game, 6), ("many", early, 30)):
        spaces = _free_spaces(obs)[:count]
        out[f"render_choice_{label}_marks"] = len(spaces)
        out[f"render_choice_{label}_ms"] = round(
            _median_ms(lambda o=obs, s=spaces: choice_png(o, s), repeats), 2)
        out[f"render_choice_{label}_kib"] = round(len(choice_png(obs, spaces)) / 1024, 1)
    out["render_choice_ms"] = max(out["render_choice_few_ms"], out["render_choice_many_ms"])
    out["render_choice_kib"] = max(out["render_choice_few_kib"], out["render_choice_many_kib"])
    return out


def run(quick: bool = False) -> dict[str, float]:
    """``quick``: each time the median of 3 (the module still works)."""
    repeats = 3 if quick else REPEATS
    kids = _mid_game("kids", 3, 24).observation(None)
    dice = _mid_game("dice", 2, 40).observation(None)
    hand_game = _mid_game("kids", 3, 24)
    hand = hand_game.observation(hand_game.current_seat)
    names = NAMES[:3]

    kids_png = render.board_png(kids, names=names)
    ours = _drawn_ms(lambda: render.board_png(kids, names=names), repeats)
    cached = _median_ms(lambda: render.board_png(kids, names=names), repeats)
    naive = _median_ms(lambda: naive_board_png(kids, names), repeats=max(1, repeats // 2))
    naive_bytes = naive_board_png(kids, names)
    return {
        "render_kids_board_ms": round(ours, 2),
        "render_kids_board_cached_ms": round(cached, 3),
        "render_kids_board_kib": round(len(kids_png) / 1024, 1),
        "render_dice_board_ms": round(_drawn_ms(lambda: render.board_png(dice, names=names),
                                                repeats), 2),
        "render_dice_board_kib": round(len(render.board_png(dice, names=names)) / 1024, 1),
        "render_hand_ms": round(_median_ms(
            lambda: render.hand_png(hand, caption="Sequence for Kids · Family · #games"),
            repeats), 2),
        **_choice_figures(kids, repeats),
        "render_naive_kids_board_ms": round(naive, 2),
        "render_naive_kids_board_kib": round(len(naive_bytes) / 1024, 1),
        "render_speedup_vs_naive": round(naive / ours, 2),
    }
