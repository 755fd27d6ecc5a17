"""Drawing straight onto a palette ('P') image, so that no board is ever quantised.

A ``Layer`` is a static picture already mapped to its palette, plus a cache of "tiles":
small pieces (a chip, a word, a die, a discard picture) composited once onto the colour
they will sit on, mapped to the same palette and kept with an on/off mask. A ``Canvas``
is a per-move copy of a layer: pasting a tile copies palette indices (no blending, no
colour search), and lines and frames are drawn with palette indices.

Thread safety: layers and their tiles are shared and never modified after creation (the
tile cache is guarded by a lock); each Canvas belongs to one call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable

from PIL import Image, ImageDraw

from .encode import to_palette
from .labels import fitted, label
from .palette import RGB

MAX_TILES = 4096  # names come and go over months: keep the newest, forget the oldest


class Layer:
    """A static picture in palette mode and the tiles drawn over it."""

    def __init__(self, rgb: Image.Image, palette: Image.Image) -> None:
        self.palette = palette
        self.image = to_palette(rgb, palette)
        self._lock = threading.Lock()
        self._tiles: dict[Hashable, tuple[Image.Image, Image.Image]] = {}
        self._inks: dict[RGB, int] = {}

    @property
    def tiles_held(self) -> int:
        """How many tiles this layer keeps (at most ``MAX_TILES``)."""
        with self._lock:
            return len(self._tiles)

    def ink(self, rgb: RGB) -> int:
        """The palette index of (the nearest colour to) ``rgb``."""
        with self._lock:
            index = self._inks.get(rgb)
            if index is None:
                probe = to_palette(Image.new("RGB", (1, 1), rgb), self.palette)
                index = int(probe.getpixel((0, 0)))  # type: ignore[arg-type]
                self._inks[rgb] = index
            return index

    def tile(self, key: Hashable, make: Callable[[], Image.Image],
             bg: RGB) -> tuple[Image.Image, Image.Image]:
        """The tile for ``key``: ``make()`` (an RGBA picture) composited on ``bg`` and mapped
        to the palette, with a mask of every pixel it covers."""
        full_key = (key, bg)
        with self._lock:
            found = self._tiles.get(full_key)
        if found is not None:
            return found
        rgba = make().convert("RGBA")
        flat = Image.new("RGB", rgba.size, bg)
        flat.paste(rgba, (0, 0), rgba)
        mask = rgba.getchannel("A").point(lambda a: 255 if a else 0)
        made = (to_palette(flat, self.palette), mask)
        with self._lock:
            # ``while``: the bound holds even for a layer that held more before the
            # bound was lowered (one eviction an insertion then kept it above for ever)
            while self._tiles and len(self._tiles) >= MAX_TILES:
                del self._tiles[next(iter(self._tiles))]  # the oldest
            return self._tiles.setdefault(full_key, made)


class Canvas:
    """One picture being drawn: a copy of a layer."""

    def __init__(self, layer: Layer) -> None:
        self.layer = layer
        self.image = layer.image.copy()
        self.draw = ImageDraw.Draw(self.image)

    def ink(self, rgb: RGB) -> int:
        return self.layer.ink(rgb)

    def paste(self, key: Hashable, make: Callable[[], Image.Image], xy: tuple[float, float],
              bg: RGB) -> tuple[int, int]:
        """Paste the tile ``key`` with its top-left corner at ``xy``; returns its size."""
        tile, mask = self.layer.tile(key, make, bg)
        x, y = round(xy[0]), round(xy[1])
        self.image.paste(tile, (x, y, x + tile.width, y + tile.height), mask)
        return tile.size

    def text(self, text: str, x: float, cy: float, size: int, colour: RGB, bg: RGB, *,
             bold: bool = False, max_width: int | None = None, align: str = "left") -> int:
        """Write ``text`` (left, right or centre aligned at ``x``, centred on ``cy``),
        shortened to ``max_width``; returns the width drawn."""
        if max_width is not None:
            text = fitted(text, size, bold, max_width)

        def make() -> Image.Image:
            mask = label(text, size, bold)
            out = Image.new("RGBA", mask.size, (*colour, 0))
            out.putalpha(mask)
            return out

        tile, mask = self.layer.tile(("text", text, size, bold, colour), make, bg)
        w, h = tile.size
        if align == "right":
            x -= w
        elif align == "centre":
            x -= w / 2
        left, top = round(x), round(cy - h / 2)
        self.image.paste(tile, (left, top, left + w, top + h), mask)
        return w
