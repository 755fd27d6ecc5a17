"""Make the animal pictures under ``data/sprites/`` from Noto Color Emoji (run once).

Children who cannot read play Sequence for Kids, so every card and board space shows a
picture. We render each animal from Debian's ``fonts-noto-color-emoji`` (a bitmap colour
font: Pillow draws it only at size 109 with ``embedded_color=True``), crop to the visible
pixels, scale to fit a square and save a PNG. The PNGs are committed so that running the
bot never needs the emoji font.

There is no ostrich emoji. The ostrich is drawn here with Pillow (``draw_ostrich``): a
small head with a beak on a long neck, a big fluffy black body with white wing and tail
plumes, two long legs, filling its square like the other animals. (It used to be the
flamingo emoji recoloured: a thin bird on one leg that filled a fifth of its square, the
hardest card to spot on a phone.) The ostrich needs no font, so it can be redrawn alone:

    apt-get install fonts-noto-color-emoji
    .venv/bin/python tools/make_sprites.py [--font PATH] [--size 128] [--only ostrich]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from render.emoji import CARD_EMOJI, DRAWN_BY_HAND

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "data" / "sprites"
DEFAULT_FONT = Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")

# Card id -> emoji (render.emoji, also on the Discord buttons), the ostrich drawn by hand.
EMOJI: dict[str, str] = {card: e for card, e in CARD_EMOJI.items() if card not in DRAWN_BY_HAND}

LICENSE_NOTE = """\
The animal pictures in this folder (*.png) were made by tools/make_sprites.py from
Noto Color Emoji (Debian package fonts-noto-color-emoji 2.042).

Noto Color Emoji: Copyright 2013-2017 Google Inc. and Arjen Nienhuis.
The font is licensed under the SIL Open Font License, Version 1.1
(https://openfontlicense.org). The pictures here are cropped and scaled renderings of its
glyphs. ostrich.png is not from the font: tools/make_sprites.py draws it (draw_ostrich),
drawn for this project.
"""


def render_glyph(font: ImageFont.FreeTypeFont, char: str) -> Image.Image:
    """The glyph on a transparent canvas, cropped to its visible pixels."""
    canvas = Image.new("RGBA", (160, 160), (0, 0, 0, 0))
    ImageDraw.Draw(canvas).text((10, 10), char, font=font, embedded_color=True)
    bbox = canvas.getchannel("A").getbbox()
    if bbox is None:
        raise SystemExit(f"the font has no picture for U+{ord(char):04X}")
    return canvas.crop(bbox)


RGB = tuple[int, int, int]

# The ostrich's colours: a near-black body, white plumes, pinkish skin on the neck and legs
# (with a darker edge so they stand out on the pale board space), a yellowish beak.
BODY = (52, 44, 46)
PLUME = (250, 248, 242)
PLUME_EDGE = (178, 172, 164)
SKIN = (226, 168, 150)
SKIN_EDGE = (150, 98, 88)
BEAK = (236, 176, 92)
BEAK_EDGE = (160, 104, 40)
EYE_WHITE = (255, 255, 255)
EYE = (20, 20, 24)


class Pen:
    """Drawing on a grid of 512 units a side, scaled to ``size`` pixels, for the animals
    drawn by hand. Drawn large and scaled down by ``fit_square`` for smooth edges."""

    def __init__(self, size: int = 512, width: float = 1.2) -> None:
        self.s = size / 512
        self.image = Image.new("RGBA", (round(size * width), size), (0, 0, 0, 0))
        self.draw = ImageDraw.Draw(self.image)

    def at(self, x: float, y: float) -> tuple[float, float]:
        return (x * self.s, y * self.s)

    def oval(self, cx: float, cy: float, rx: float, ry: float, fill: RGB,
             outline: RGB | None = None, width: float = 0) -> None:
        self.draw.ellipse((*self.at(cx - rx, cy - ry), *self.at(cx + rx, cy + ry)), fill=fill,
                          outline=outline, width=round(width * self.s))

    def stroke(self, points: list[tuple[float, float]], fill: RGB, width: float) -> None:
        """A thick line with round joints and round ends."""
        self.draw.line([self.at(x, y) for x, y in points], fill=fill,
                       width=round(width * self.s), joint="curve")
        for x, y in (points[0], points[-1]):  # round ends
            self.oval(x, y, width / 2, width / 2, fill)

    def polygon(self, points: list[tuple[float, float]], fill: RGB, outline: RGB | None = None,
                width: float = 0) -> None:
        self.draw.polygon([self.at(x, y) for x, y in points], fill=fill, outline=outline,
                          width=round(width * self.s))

    def cropped(self) -> Image.Image:
        """The picture cropped to its visible pixels."""
        bbox = self.image.getchannel("A").getbbox()
        assert bbox is not None
        return self.image.crop(bbox)


def draw_ostrich(size: int = 512) -> Image.Image:
    """An ostrich facing left, cropped to its visible pixels."""
    pen = Pen(size)
    oval, stroke = pen.oval, pen.stroke

    def feather(cx: float, cy: float, length: float, width: float, angle: float) -> None:
        a = math.radians(angle)
        points = []
        for k in range(24):
            t = 2 * math.pi * k / 24
            x, y = length * math.cos(t), width * math.sin(t) * (1 - 0.3 * math.cos(t))
            points.append((cx + x * math.cos(a) - y * math.sin(a),
                           cy + x * math.sin(a) + y * math.cos(a)))
        pen.polygon(points, PLUME, PLUME_EDGE, 4)

    # Legs behind the body: thick thighs, long shanks, long toes pointing forward.
    for hip, knee, ankle, toe in (((296, 330), (316, 404), (294, 490), (244, 500)),
                                  ((356, 330), (388, 402), (372, 490), (322, 500))):
        for width, colour in ((40, SKIN_EDGE), (30, SKIN)):
            stroke([hip, knee], colour, width + 10)
            stroke([knee, ankle], colour, width)
            stroke([ankle, toe], colour, width - 4)
    # The neck: a long, gently curved line from the chest up to the head.
    neck: list[tuple[float, float]] = [(196, 250), (170, 200), (150, 140), (146, 92), (132, 56)]
    stroke(neck, SKIN_EDGE, 50)
    stroke(neck, SKIN, 40)
    # Tail plumes, fanned up behind the body.
    for angle in (-62, -36, -10):
        a = math.radians(angle)
        feather(444 + 62 * math.cos(a), 214 + 62 * math.sin(a), 74, 30, angle)
    # The body: a big dark oval, scalloped round the edge so it reads as fluffy feathers.
    oval(310, 252, 168, 120, BODY)
    for k in range(9):
        t = math.pi * (1.05 + 0.9 * k / 8)
        oval(310 + 160 * math.cos(t), 254 + 114 * math.sin(t), 38, 34, BODY)
    for k in range(6):
        t = math.pi * (0.15 + 0.7 * k / 5)
        oval(310 + 146 * math.cos(t), 254 + 106 * math.sin(t), 34, 30, BODY)
    # The wing: white plumes on the side.
    for angle, cx, cy in ((8, 330, 228), (22, 362, 256), (-6, 298, 202)):
        feather(cx, cy, 86, 30, angle)
    # A small head with a big eye and a flat beak pointing left.
    oval(128, 56, 38, 33, SKIN, SKIN_EDGE, 5)
    pen.polygon([(104, 48), (44, 66), (104, 80)], BEAK, BEAK_EDGE, 4)
    oval(126, 50, 11, 11, EYE_WHITE)
    oval(123, 50, 7, 7, EYE)
    return pen.cropped()


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
    parser.add_argument("--only", nargs="+", metavar="CARD", help="make only these cards")
    args = parser.parse_args()
    cards = args.only or [*EMOJI, "ostrich"]
    OUT.mkdir(parents=True, exist_ok=True)
    font: ImageFont.FreeTypeFont | None = None
    for card in cards:
        if card == "ostrich":
            picture = draw_ostrich()
        else:
            if font is None:
                font = ImageFont.truetype(str(args.font), 109)
            picture = render_glyph(font, EMOJI[card])
        fit_square(picture, args.size).save(OUT / f"{card}.png", optimize=True)
        print(card)
    (OUT / "LICENSE.txt").write_text(LICENSE_NOTE)


if __name__ == "__main__":
    main()
