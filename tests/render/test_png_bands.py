"""A palette picture's PNG written band by band: any decoder reads it back exactly, and the
bands a picture shares with an earlier one are not deflated again."""

from __future__ import annotations

import io
import math
import struct
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from render.board import board_image
from render.encode import COMPRESS_LEVEL, png_bytes
from render.png_bands import BAND_ROWS, BandCache, adler32_combine, palette_png, writable

from .helpers import played

NAMES = ["Emma", "Kari", "Ola", "Nora"]


def _chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """The chunks of ``png`` as (kind, body), each chunk's CRC checked."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    out, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at:at + 4])
        kind, body = png[at + 4:at + 8], png[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", png[at + 8 + length:at + 12 + length])
        assert crc == zlib.crc32(kind + body), kind
        out.append((kind, body))
        at += 12 + length
    return out


def _picture(width: int, height: int, pixels: bytes, colours: int) -> Image.Image:
    image = Image.frombytes("P", (width, height), bytes(p % colours for p in pixels))
    image.putpalette([(i * 37 + c * 91) % 256 for i in range(colours) for c in range(3)])
    return image


pictures = st.integers(1, 60).flatmap(lambda w: st.integers(1, 3 * BAND_ROWS + 5).flatmap(
    lambda h: st.tuples(st.just(w), st.just(h), st.binary(min_size=w * h, max_size=w * h),
                        st.integers(1, 256))))


@settings(max_examples=60, deadline=None)
@given(pictures)
def test_a_palette_picture_reads_back_pixel_for_pixel_with_its_palette(
        picture: tuple[int, int, bytes, int]) -> None:
    image = _picture(*picture)
    png = palette_png(image, COMPRESS_LEVEL, BandCache())
    back = Image.open(io.BytesIO(png))
    back.load()
    assert back.mode == "P" and back.size == image.size
    assert back.tobytes() == image.tobytes()
    assert back.getpalette() == image.getpalette()
    # the format itself, not only Pillow's leniency: every CRC, and zlib's own checksum
    kinds = [kind for kind, _ in _chunks(png)]
    assert kinds == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]
    rows = zlib.decompress(dict(_chunks(png))[b"IDAT"])  # raises on a wrong Adler-32
    width = image.width
    assert rows == b"".join(b"\0" + image.tobytes()[y * width:(y + 1) * width]
                            for y in range(image.height))


def test_a_board_after_a_move_deflates_only_the_bands_the_move_changed() -> None:
    game = played("kids", 2, 14)
    cache = BandCache()
    palette_png(board_image(game.observation(None), names=NAMES[:2]), COMPRESS_LEVEL, cache)
    game.apply(game.legal_actions()[0])
    after = board_image(game.observation(None), names=NAMES[:2])
    cache.deflated = cache.reused = 0
    png = palette_png(after, COMPRESS_LEVEL, cache)
    bands = math.ceil(after.height / BAND_ROWS)
    assert 0 < cache.deflated < bands / 2 and cache.reused + cache.deflated == bands
    assert png == palette_png(after, COMPRESS_LEVEL, BandCache())


def test_the_bytes_do_not_depend_on_what_the_cache_held() -> None:
    first = board_image(played("dice", 3, 10).observation(None), names=NAMES[:3])
    second = board_image(played("dice", 3, 11).observation(None), names=NAMES[:3])
    warm = BandCache()
    palette_png(first, COMPRESS_LEVEL, warm)
    assert palette_png(second, COMPRESS_LEVEL, warm) == palette_png(
        second, COMPRESS_LEVEL, BandCache())


def test_the_band_cache_keeps_only_its_newest_bands() -> None:
    cache = BandCache(size=3)
    for shade in range(4):
        palette_png(_picture(8, 10 * BAND_ROWS, bytes([shade]) * 80 * BAND_ROWS, 4),
                    COMPRESS_LEVEL, cache)
    assert len(cache) == 3


def test_a_picture_with_a_transparent_index_or_true_colour_goes_through_pillow() -> None:
    clear = _picture(4, 4, bytes(16), 2)
    clear.info["transparency"] = 0
    rgb = Image.new("RGB", (4, 4), (10, 20, 30))
    assert not writable(clear) and not writable(rgb)
    with pytest.raises(ValueError, match="palette picture"):
        palette_png(rgb, COMPRESS_LEVEL)
    back = Image.open(io.BytesIO(png_bytes(clear)))
    assert back.info.get("transparency") == 0
    assert Image.open(io.BytesIO(png_bytes(rgb))).convert("RGB").getpixel((0, 0)) == (10, 20, 30)


@given(st.binary(max_size=5000), st.binary(max_size=5000))
def test_two_checksums_combine_as_zlib_sums_the_bytes_together(first: bytes,
                                                                second: bytes) -> None:
    assert adler32_combine(zlib.adler32(first), zlib.adler32(second),
                           len(second)) == zlib.adler32(first + second)
