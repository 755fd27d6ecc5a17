"""Seeded games and image helpers for the render tests."""

from __future__ import annotations

import io
import math
import random
from collections import deque
from dataclasses import dataclass
from typing import Any

from PIL import Image

import engine
from render.geometry import DEFAULT_CELL, Geometry, geometry_for
from render.marks import MARK, badge_box, ring_width
from render.palette import CHIPS, INK, RGB, WHITE


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


@dataclass(frozen=True)
class MarkSize:
    """A numbered badge as measured on a picture: its inside (within its dark edge) and
    the ink of its digits, each as a box (left, top, right, bottom; inclusive)."""

    inside: tuple[int, int, int, int]
    digits: tuple[int, int, int, int]

    @property
    def width(self) -> int:
        return self.inside[2] - self.inside[0] + 1

    @property
    def height(self) -> int:
        return self.inside[3] - self.inside[1] + 1

    @property
    def digit_height(self) -> int:
        return self.digits[3] - self.digits[1] + 1


def _dark(pixel: RGB) -> bool:
    """Nearer the badge's dark edge than its magenta or its white digits."""
    return math.dist(pixel, INK) < min(math.dist(pixel, MARK), math.dist(pixel, WHITE))


def measure_mark(image: Image.Image, geo: Geometry, index: int, number: int) -> MarkSize:
    """Measure the badge of space ``index`` on ``image`` (RGB) as it was drawn: everything
    reached from a point on it (``mark_probe``) without crossing its dark edge is its
    inside; the light pixels there are its digits (green at least 128: half-way between
    the white digits and the magenta, whose green is 0). Fails if the edge does not close
    the badge within a few pixels of its space."""
    x0, y0, x1, y1 = geo.box(index)
    start = mark_probe(geo, index, number)
    seen = {start}
    todo = deque([start])
    inside: list[tuple[int, int]] = []
    while todo:
        x, y = todo.popleft()
        assert x0 - 4 <= x < x1 + 4 and y0 - 4 <= y < y1 + 4, "the badge is not closed"
        inside.append((x, y))
        for near_xy in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            pixel = image.getpixel(near_xy)
            assert isinstance(pixel, tuple)
            if near_xy not in seen and not _dark(pixel[:3]):
                seen.add(near_xy)
                todo.append(near_xy)
    light = [(x, y) for x, y in inside if _green(image, x, y) >= 128]
    assert light, "no digits on the badge"
    return MarkSize(_box(inside), _box(light))


def _green(image: Image.Image, x: int, y: int) -> int:
    pixel = image.getpixel((x, y))
    assert isinstance(pixel, tuple)
    return int(pixel[1])


def _box(points: list[tuple[int, int]]) -> tuple[int, int, int, int]:
    xs, ys = [x for x, _ in points], [y for _, y in points]
    return min(xs), min(ys), max(xs), max(ys)
