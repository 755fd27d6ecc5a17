"""A player's hand, for their direct message: the cards as pictures with their names,
Unicorn and Dragon framed apart, dead cards greyed and crossed, and a caption saying which
game (server and channel) the hand belongs to."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

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


def hand_image(obs: Mapping[str, Any], *, caption: str, lang: str = "en") -> Image.Image:
    """The hand of ``obs["seat"]`` as an RGB image (a Dice observation shows its roll)."""
    lang = lang_of(lang)
    cards: Sequence[str] = list(obs.get("hand") or [])
    dead = set(obs.get("dead") or [])
    count = max(1, len(cards))
    width = 2 * MARGIN + count * CARD_W + (count - 1) * GAP
    width = max(width, 420)
    height = MARGIN + CAPTION_H + CARD_H + MARGIN
    image = Image.new("RGB", (width, height), pal.BACKGROUND)
    text = safe_name(caption, t("picture.your_hand", lang))
    first, rest = _split_caption(text, 22, width - 2 * MARGIN)
    if rest:
        paste_text(image, first, MARGIN, MARGIN + 8, 22, pal.INK, bold=True)
        paste_text(image, rest, MARGIN, MARGIN + 36, 22, pal.INK, bold=True,
                   max_width=width - 2 * MARGIN)
    else:
        paste_text(image, first, MARGIN, MARGIN + CAPTION_H / 2 - 6, 22, pal.INK, bold=True)
    x = (width - (count * CARD_W + (count - 1) * GAP)) // 2
    y = MARGIN + CAPTION_H
    if obs.get("game") == "dice":
        roll = obs.get("dice") or obs.get("last_roll") or []
        for value in roll[:2]:
            face = die(int(value), CARD_W - 40)
            image.paste(face, (x + 20, y + 20), face)
            x += CARD_W + GAP
        return image
    for card in cards:
        face = card_face(card, card in dead, lang)
        image.paste(face, (x, y), face)
        x += CARD_W + GAP
    return image


_palette_lock = threading.Lock()
_palettes: dict[str, Image.Image] = {}


def _hand_palette(lang: str) -> Image.Image:
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
    lang = lang_of(lang)
    image = hand_image(obs, caption=caption, lang=lang)
    return png_bytes(to_palette(image, _hand_palette(lang)))
