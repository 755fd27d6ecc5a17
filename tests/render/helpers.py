"""Seeded games and image helpers for the render tests."""

from __future__ import annotations

import io
import math
import random
from typing import Any

from PIL import Image

import engine
from render.geometry import DEFAULT_CELL, Geometry, geometry_for
from render.marks import badge_box, ring_width
from render.palette import CHIPS, RGB


def played(kind: str, seats: int, moves: int, seed: int = 7, **options: Any) -> engine.Game:
    """A game after ``moves`` random legal actions (or fewer if it ends)."""
    game = engine.new_game(kind, seats, seed, **options)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def finished(kind: str, seats: int, seed: int = 7, **options: Any) -> engine.Game:
    game = engine.new_game(kind, seats, seed, **options)
    rng = random.Random(seed)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    return game


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


def rgb(png: bytes) -> Image.Image:
    return decode(png).convert("RGB")


def geometry(obs: dict[str, Any], cell: int = DEFAULT_CELL) -> Geometry:
    return geometry_for(obs, cell)


def chip_probe(geo: Geometry, index: int) -> tuple[int, int]:
    """A point on a chip's body, between its edge and its mark (the mark sits in the
    middle; the body colour is what says whose chip it is)."""
    cx, cy = geo.centre(index)
    return cx - round(geo.chip_diameter * 0.36), cy


def near(a: RGB, b: RGB, tolerance: float = 8) -> bool:
    return math.dist(a, b) <= tolerance


def chip_colour_at(image: Image.Image, xy: tuple[int, int]) -> str | None:
    """The chip colour name whose fill is at ``xy``, if any."""
    pixel = image.getpixel(xy)
    assert isinstance(pixel, tuple)
    for name, style in CHIPS.items():
        if near(pixel[:3], style.fill, 24):
            return name
    return None


def mark_probe(geo: Geometry, index: int, number: int = 1) -> tuple[int, int]:
    """A point on the numbered badge of space ``index``, left of its number (the digits
    sit in the middle; the badge's colour is what says "a mark")."""
    x0, y0, _x1, y1 = badge_box(geo, index, number)
    return x0 + round((y1 - y0) * 0.15), (y0 + y1) // 2


def ring_probe(geo: Geometry, index: int) -> tuple[int, int]:
    """A point on the ring a mark draws along the left edge of space ``index`` (the badge
    covers the bottom-right corner)."""
    x0, y0, _x1, y1 = geo.box(index)
    return x0 + 1 + ring_width(geo.cell) // 2, (y0 + y1) // 2

