"""Make the animal pictures under ``data/sprites/`` from Noto Color Emoji (run once).

Children who cannot read play Sequence for Kids, so every card and board space shows a
picture. We render each animal from Debian's ``fonts-noto-color-emoji`` (a bitmap colour
font: Pillow draws it only at size 109 with ``embedded_color=True``), crop to the visible
pixels, scale to fit a square and save a PNG. The PNGs are committed so that running the
bot never needs the emoji font.

There is no ostrich emoji. The ostrich card shows a flamingo redrawn in ostrich colours
(black body, pale neck and legs): a long-legged bird, which is what the Jax board shows.

    apt-get install fonts-noto-color-emoji
    .venv/bin/python tools/make_sprites.py [--font PATH] [--size 128]
"""

from __future__ import annotations

import argparse
import colorsys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "data" / "sprites"
DEFAULT_FONT = Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")

# Card id -> emoji. Faces where the whole body reads badly at small sizes (tiger).
EMOJI: dict[str, str] = {
    "moose": "\U0001FACE",
    "penguin": "\U0001F427",
    "gorilla": "\U0001F98D",
    "panda": "\U0001F43C",
    "turtle": "\U0001F422",
    "fox": "\U0001F98A",
    "elephant": "\U0001F418",
    "camel": "\U0001F42B",
    "tiger": "\U0001F42F",
    "wolf": "\U0001F43A",
    "lion": "\U0001F981",
    "whale": "\U0001F40B",
    "ostrich": "\U0001F9A9",  # flamingo, recoloured below
    "giraffe": "\U0001F992",
    "alligator": "\U0001F40A",
    "hippo": "\U0001F99B",
    "shark": "\U0001F988",
    "kangaroo": "\U0001F998",
    "zebra": "\U0001F993",
    "unicorn": "\U0001F984",
    "dragon": "\U0001F409",
}

LICENSE_NOTE = """\
The animal pictures in this folder (*.png) were made by tools/make_sprites.py from
Noto Color Emoji (Debian package fonts-noto-color-emoji 2.042).

Noto Color Emoji: Copyright 2013-2017 Google Inc. and Arjen Nienhuis.
The font is licensed under the SIL Open Font License, Version 1.1
(https://openfontlicense.org). The pictures here are cropped and scaled renderings of its
glyphs; ostrich.png is the flamingo glyph with its colours changed to an ostrich's.
"""


def render_glyph(font: ImageFont.FreeTypeFont, char: str) -> Image.Image:
    """The glyph on a transparent canvas, cropped to its visible pixels."""
    canvas = Image.new("RGBA", (160, 160), (0, 0, 0, 0))
    ImageDraw.Draw(canvas).text((10, 10), char, font=font, embedded_color=True)
    bbox = canvas.getchannel("A").getbbox()
    if bbox is None:
        raise SystemExit(f"the font has no picture for U+{ord(char):04X}")
    return canvas.crop(bbox)


def ostrich_colours(img: Image.Image) -> Image.Image:
    """Flamingo to ostrich: the pink body goes black with a white tail, the pink neck and
    legs go a pale pinkish grey; the beak and eye keep their colours."""
    px = img.load()
    assert px is not None
    w, h = img.size
    for y in range(h):
        for x in range(w):
            r, g, b, a = px[x, y]
            if a == 0:
                continue
            hue, light, sat = colorsys.rgb_to_hls(r / 255, g / 255, b / 255)
            pinkish = sat > 0.25 and (hue > 0.85 or hue < 0.05)
            if not pinkish:
                continue
            # The body is the wide upper middle of the picture; neck and legs are thin.
            body = 0.35 * h < y < 0.62 * h and 0.25 * w < x
            if body:
                shade = int(40 + 60 * light)
                px[x, y] = (shade, shade - 6, shade - 8, a)
            else:
                grey = int(150 + 80 * light)
                px[x, y] = (grey, int(grey * 0.85), int(grey * 0.82), a)
    return img


def fit_square(img: Image.Image, size: int) -> Image.Image:
    """Scale to fit a ``size`` square (keeping proportions) and centre it."""
    scale = (size - 4) / max(img.size)
    w, h = max(1, round(img.width * scale)), max(1, round(img.height * scale))
    small = img.resize((w, h), Image.Resampling.LANCZOS)
    out = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    out.paste(small, ((size - w) // 2, (size - h) // 2))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--font", type=Path, default=DEFAULT_FONT)
    parser.add_argument("--size", type=int, default=128, help="side of each square PNG")
    args = parser.parse_args()
    font = ImageFont.truetype(str(args.font), 109)
    OUT.mkdir(parents=True, exist_ok=True)
    for card, char in EMOJI.items():
        glyph = render_glyph(font, char)
        if card == "ostrich":
            glyph = ostrich_colours(glyph)
        fit_square(glyph, args.size).save(OUT / f"{card}.png", optimize=True)
        print(f"{card:10s} U+{ord(char):05X}")
    (OUT / "LICENSE.txt").write_text(LICENSE_NOTE)


if __name__ == "__main__":
    main()
