"""A palette picture's PNG written in bands of rows, each band deflated once for all the
pictures that share it.

Deflating was the largest part of the bot's CPU per move (a board, the mover's hand and
the numbered choice each encoded once a move), and most of it was done again on rows that
had not changed: a move changes a space or two, the last move's frame and the turn line,
not the other 700 rows of the board. A PNG's image data is one zlib stream, but a
deflate stream may be cut by a full flush: the compressor forgets what came before and
ends the block on a byte. So each band of ``BAND_ROWS`` rows is deflated alone, ending in a
full flush, and the stream is the bands' pieces one after the other, then an empty last
block and the checksum of all the rows. A band's piece depends only on its rows, so it is
kept by the digest of those rows and every picture holding the same rows takes it as is:
the static rows of every board of a layout, and the rows of a game's board that its next
move leaves alone.

Any PNG decoder reads this (it is the plain format: 8-bit palette, filter type 0 on each
row, which is what the format advises for palette pictures). The bytes depend only on the
picture, never on what the cache held.
"""

from __future__ import annotations

import hashlib
import struct
import threading
import zlib
from collections import OrderedDict

from PIL import Image

# A board's 777 rows in 17 bands, a move changing 4-7 of them (its space, the last move's
# frame, the turn line). Tried from 8 to 96 rows on a whole game's pictures: below 32 the
# cost of starting each band's deflate outweighs the rows spared, above 48 nothing moves.
BAND_ROWS = 48
# 1-4 KiB each deflated, so 4-16 MiB at most; 50 games at once hold about 1,700 bands
# (a board 17, a hand 7, a choice 10)
BANDS_KEPT = 4096
SIGNATURE = b"\x89PNG\r\n\x1a\n"
ZLIB_HEADER = b"\x78\x01"  # deflate, 32 KiB window, no preset dictionary (checksum of 31)
LAST_BLOCK = b"\x03\x00"  # an empty fixed-Huffman block with the final bit set


class BandCache:
    """Deflated bands of rows by the digest of their rows, the newest ``size`` kept.
    Shared by threads (the pictures are drawn off the event loop)."""

    def __init__(self, size: int = BANDS_KEPT) -> None:
        self.size = size
        self.deflated = 0  # bands deflated (not found)
        self.reused = 0  # bands found
        self._lock = threading.Lock()
        self._pieces: OrderedDict[bytes, tuple[bytes, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._pieces)

    def piece(self, rows: bytes, level: int) -> tuple[bytes, int]:
        """``rows`` deflated at ``level``, ending on a full flush, and their Adler-32."""
        key = hashlib.sha256(rows).digest() + bytes([level])
        with self._lock:
            found = self._pieces.get(key)
            if found is not None:
                self._pieces.move_to_end(key)
                self.reused += 1
                return found
        deflate = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
        piece = (deflate.compress(rows) + deflate.flush(zlib.Z_FULL_FLUSH), zlib.adler32(rows))
        with self._lock:
            self._pieces[key] = piece
            self.deflated += 1
            while len(self._pieces) > self.size:
                self._pieces.popitem(last=False)
        return piece


SHARED = BandCache()


def writable(image: Image.Image) -> bool:
    """Whether ``palette_png`` can write ``image``: a palette picture with no
    transparent index (those go through Pillow's writer, which keeps it)."""
    return image.mode == "P" and "transparency" not in image.info


def palette_png(image: Image.Image, level: int, cache: BandCache = SHARED) -> bytes:
    """``image`` (mode "P") as PNG bytes, its rows deflated at ``level`` band by band."""
    if not writable(image):
        raise ValueError(f"a palette picture without transparency, not {image.mode!r}")
    width, height = image.size
    # each row: its filter type (0, none), then its indices; a column of zeros on the
    # left makes Pillow lay the rows out so, in C
    framed = Image.new("P", (width + 1, height), 0)
    framed.paste(image, (1, 0))
    data = framed.tobytes()
    band = (width + 1) * BAND_ROWS
    pieces: list[bytes] = []
    checksum = 1  # the Adler-32 of no bytes
    for start in range(0, len(data), band):
        rows = data[start:start + band]
        piece, rows_checksum = cache.piece(rows, level)
        pieces.append(piece)
        checksum = adler32_combine(checksum, rows_checksum, len(rows))
    stream = b"".join([ZLIB_HEADER, *pieces, LAST_BLOCK, struct.pack(">I", checksum)])
    colours = bytes(image.getpalette() or [0, 0, 0])
    return b"".join([SIGNATURE,
                     _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)),
                     _chunk(b"PLTE", colours[:768]),
                     _chunk(b"IDAT", stream),
                     _chunk(b"IEND", b"")])


ADLER_BASE = 65521


def adler32_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of two byte strings one after the other, from each one's Adler-32
    and the second's length (zlib's ``adler32_combine``, which Python does not offer)."""
    rem = second_length % ADLER_BASE
    low = ((first & 0xFFFF) + (second & 0xFFFF) + ADLER_BASE - 1) % ADLER_BASE
    high = (rem * (first & 0xFFFF) + (first >> 16) + (second >> 16) + ADLER_BASE - rem) \
        % ADLER_BASE
    return (high << 16) | low


def _chunk(kind: bytes, body: bytes) -> bytes:
    return b"".join([struct.pack(">I", len(body)), kind, body,
                     struct.pack(">I", zlib.crc32(body, zlib.crc32(kind)))])
