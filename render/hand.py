"""A player's hand, for their direct message: the cards as pictures with their names,
Unicorn and Dragon framed apart, dead cards greyed and crossed, and a caption saying which
game (server and channel) the hand belongs to."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageChops, ImageDraw

from . import palette as pal
from .dice_faces import die
from .encode import make_palette, png_bytes, to_palette
from .labels import paste_text
from .sprites import sprite
from .text import font, safe_name, text_width
from .words import card as card_name
from .words import lang_of, t

CARDS = ("moose", "penguin", "gorilla", "panda", "turtle", "fox", "elephant", "camel",
         "tiger", "wolf", "lion", "whale", "ostrich", "giraffe", "alligator", "hippo",
         "shark", "kangaroo", "zebra", "unicorn", "dragon")
DICE_FACES = ("1", "6")  # enough dice for the palette: white, black and grey edges

CARD_W, CARD_H = 168, 224
GAP = 16
MARGIN = 20
CAPTION_H = 56


@lru_cache(maxsize=256)
def card_face(card: str, dead: bool, lang: str) -> Image.Image:
    """One card as an RGBA image. Do not modify it."""
    out = Image.new("RGBA", (CARD_W, CARD_H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(out)
    face, edge, width = pal.CARD_FACE, pal.CARD_EDGE, 3
    note = None
    if card == "unicorn":
        face, edge, width = pal.UNICORN_FACE, pal.UNICORN_EDGE, 8
        note = t("picture.any_space", lang)
    elif card == "dragon":
        face, edge, width = pal.DRAGON_FACE, pal.DRAGON_EDGE, 8
        note = t("picture.remove_chip", lang)
    draw.rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), radius=16, fill=face, outline=edge,
                           width=width)
    pic = sprite(card, 128, 0)  # the hand is small: keep every colour
    out.alpha_composite(pic, ((CARD_W - pic.width) // 2, 18))
    paste_text(out, card_name(card, lang), CARD_W / 2, 170, 24, pal.INK, bold=True,
               align="centre", max_width=CARD_W - 16)
    if note:
        paste_text(out, note, CARD_W / 2, 200, 14, edge, bold=True, align="centre",
                   max_width=CARD_W - 16)
    if dead:
        _mark_dead(out, draw, lang)
    return out


def _mark_dead(card: Image.Image, draw: ImageDraw.ImageDraw, lang: str) -> None:
    """Grey the card out and cross it, with the word on a band: a dead card must look
    unplayable even to a child who cannot read."""
    grey = Image.new("RGBA", card.size, (*pal.DEAD_SHADE, 150))
    mask = card.getchannel("A")
    card.paste(Image.alpha_composite(card, grey), (0, 0), mask)
    draw.line((14, 14, CARD_W - 15, CARD_H - 15), fill=pal.INK, width=7)
    draw.line((14, CARD_H - 15, CARD_W - 15, 14), fill=pal.INK, width=7)
    draw.rectangle((0, CARD_H // 2 - 20, CARD_W - 1, CARD_H // 2 + 20), fill=pal.INK)
    paste_text(card, t("picture.dead", lang), CARD_W / 2, CARD_H / 2, 24, pal.WHITE, bold=True,
               align="centre")


def _split_caption(text: str, size: int, max_width: int) -> tuple[str, str]:
    """Break ``text`` into two lines at a space (or a middle dot) if it is too wide."""
    if text_width(text, font(size, True)) <= max_width:
        return text, ""
    words = text.split(" ")
    for cut in range(len(words) - 1, 0, -1):
        head = " ".join(words[:cut]).rstrip(" ·")
        if text_width(head, font(size, True)) <= max_width:
            return head, " ".join(words[cut:]).lstrip("· ")
    return text, ""  # one long word: the caller shortens it on one line


#: What a hand shows in one place: a card (its name and whether it is dead) or a die
#: (its value as text, never dead).
Face = tuple[str, bool]


@dataclass(frozen=True)
class Layout:
    """Where everything of a hand goes: the picture's size, the caption's lines (the
    second "" for one line), and each face with the top-left corner it is pasted at."""

    size: tuple[int, int]
    caption: tuple[str, str]
    faces: tuple[tuple[Face, tuple[int, int]], ...]

    @property
    def cards_top(self) -> int:
        return MARGIN + CAPTION_H


def layout(obs: Mapping[str, Any], caption: str, lang: str) -> Layout:
    """The hand of ``obs["seat"]`` laid out (a Dice observation shows its roll)."""
    cards: Sequence[str] = list(obs.get("hand") or [])
    dead = set(obs.get("dead") or [])
    count = max(1, len(cards))
    width = 2 * MARGIN + count * CARD_W + (count - 1) * GAP
    width = max(width, 420)
    height = MARGIN + CAPTION_H + CARD_H + MARGIN
    text = safe_name(caption, t("picture.your_hand", lang))
    lines = _split_caption(text, 22, width - 2 * MARGIN)
    x = (width - (count * CARD_W + (count - 1) * GAP)) // 2
    y = MARGIN + CAPTION_H
    faces: list[tuple[Face, tuple[int, int]]] = []
    if obs.get("game") == "dice":
        roll = obs.get("dice") or obs.get("last_roll") or []
        for value in roll[:2]:
            faces.append(((str(int(value)), False), (x + 20, y + 20)))
            x += CARD_W + GAP
    else:
        for card in cards:
            faces.append(((card, card in dead), (x, y)))
            x += CARD_W + GAP
    return Layout((width, height), lines, tuple(faces))


def _face(face: Face, lang: str) -> Image.Image:
    """A face as an RGBA image. Do not modify it."""
    name, dead = face
    return die(int(name), CARD_W - 40) if name.isdigit() else card_face(name, dead, lang)


def _draw_caption(image: Image.Image, lines: tuple[str, str]) -> None:
    first, rest = lines
    if rest:
        paste_text(image, first, MARGIN, MARGIN + 8, 22, pal.INK, bold=True)
        paste_text(image, rest, MARGIN, MARGIN + 36, 22, pal.INK, bold=True,
                   max_width=image.width - 2 * MARGIN)
    else:
        paste_text(image, first, MARGIN, MARGIN + CAPTION_H / 2 - 6, 22, pal.INK, bold=True)


def hand_image(obs: Mapping[str, Any], *, caption: str, lang: str = "en") -> Image.Image:
    """The hand of ``obs["seat"]`` as an RGB image (a Dice observation shows its roll)."""
    lang = lang_of(lang)
    where = layout(obs, caption, lang)
    image = Image.new("RGB", where.size, pal.BACKGROUND)
    _draw_caption(image, where.caption)
    for face, at in where.faces:
        picture = _face(face, lang)
        image.paste(picture, at, picture)
    return image


# The hand in its palette, from parts mapped once. Mapping a pixel to the palette looks at
# that pixel alone, and the faces and the caption never overlap (the caption is checked),
# so mapping each part on the hand's background once and pasting the mapped parts gives
# the very pixels of mapping the whole hand, without drawing and mapping 180,000 pixels
# a hand (most of a hand's CPU after the encoding). tests/render/test_hand.py holds the
# two ways to the same bytes.

@lru_cache(maxsize=256)
def _face_in_palette(face: Face, lang: str) -> Image.Image:
    picture = _face(face, lang)
    on_background = Image.new("RGB", picture.size, pal.BACKGROUND)
    on_background.paste(picture, (0, 0), picture)
    return to_palette(on_background, hand_palette(lang))


@lru_cache(maxsize=128)
def _caption_in_palette(lines: tuple[str, str], size: tuple[int, int], lang: str
                        ) -> Image.Image | None:
    """The rows above the cards with the caption, mapped; None if a letter reaches down
    into the cards' rows (then the hand is mapped whole)."""
    image = Image.new("RGB", size, pal.BACKGROUND)
    _draw_caption(image, lines)
    top = MARGIN + CAPTION_H
    drawn = Image.new("RGB", size, pal.BACKGROUND)
    bbox = ImageChops.difference(image, drawn).getbbox()
    if bbox is not None and bbox[3] > top:
        return None
    return to_palette(image.crop((0, 0, size[0], top)), hand_palette(lang))


def hand_in_palette(obs: Mapping[str, Any], *, caption: str, lang: str = "en") -> Image.Image:
    """``hand_image`` mapped to the hands' palette (mode "P"), as the DM shows it."""
    lang = lang_of(lang)
    where = layout(obs, caption, lang)
    palette = hand_palette(lang)
    strip = _caption_in_palette(where.caption, where.size, lang)
    if strip is None:
        return to_palette(hand_image(obs, caption=caption, lang=lang), palette)
    image = Image.new("P", where.size, _background_index(lang))
    image.putpalette(palette.getpalette() or [])
    image.paste(strip, (0, 0))
    for face, at in where.faces:
        image.paste(_face_in_palette(face, lang), at)
    return image


def clear_parts() -> None:
    """Forget the mapped faces and captions (the bench's first game of a bot)."""
    _face_in_palette.cache_clear()
    _caption_in_palette.cache_clear()


@lru_cache(maxsize=8)
def _background_index(lang: str) -> int:
    """The palette index the hands' background maps to."""
    index = to_palette(Image.new("RGB", (1, 1), pal.BACKGROUND), hand_palette(lang)).getpixel(
        (0, 0))
    assert index is not None and not isinstance(index, tuple)
    return int(index)


_palette_lock = threading.Lock()
_palettes: dict[str, Image.Image] = {}


def hand_palette(lang: str) -> Image.Image:
    """One palette for every hand, made once from a sheet of all the cards (live and
    dead): a median cut per hand would cost more than the whole drawing."""
    with _palette_lock:
        if lang not in _palettes:
            _palettes[lang] = make_palette(card_sheet(lang), HAND_EXACT)
        return _palettes[lang]


HAND_EXACT: tuple[pal.RGB, ...] = (pal.BACKGROUND, pal.INK, pal.WHITE)


def card_sheet(lang: str) -> Image.Image:
    """Every card a hand can show, live (top row) and dead (bottom), side by side."""
    cards = [*CARDS, *DICE_FACES]
    sheet = Image.new("RGB", (len(cards) * CARD_W, 2 * CARD_H), pal.BACKGROUND)
    for i, card in enumerate(cards):
        for row, dead in enumerate((False, True)):
            face = (card_face(card, dead, lang) if card not in DICE_FACES
                    else die(int(card), CARD_W - 40))
            sheet.paste(face, (i * CARD_W, row * CARD_H), face)
    return sheet


def hand_png(obs: Mapping[str, Any], *, caption: str, lang: str = "en") -> bytes:
    """The hand as PNG bytes (palette, no dither). ``caption``: which game this is, e.g.
    "Sequence for Kids · Family server · #games"."""
    return png_bytes(hand_in_palette(obs, caption=caption, lang=lang))
