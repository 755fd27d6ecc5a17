"""Make the animal pictures under ``data/sprites/`` from Noto Color Emoji (run once).

Children who cannot read play Sequence for Kids, so every card and board space shows a
picture. We render each animal from Debian's ``fonts-noto-color-emoji`` (a bitmap colour
font: Pillow draws it only at size 109 with ``embedded_color=True``), crop to the visible
pixels, scale to fit a square and save a PNG. The PNGs are committed so that running the
bot never needs the emoji font.

Three animals are drawn here with Pillow instead (``DRAWN``), each filling its square like
the others (at least 35% of it opaque, most emoji 42-74%), in the emoji's flat colours:

- The ostrich (``draw_ostrich``), which has no emoji: a small head with a beak on a long
  neck, a big fluffy black body with white wing and tail plumes, two long legs. (It used
  to be the flamingo emoji recoloured: a thin bird on one leg that filled a fifth of its
  square, the hardest card to spot on a phone.)
- The giraffe (``draw_giraffe``) and the kangaroo (``draw_kangaroo``), whose emoji are a
  whole thin animal, long legs or a long tail across the square, that filled under a
  quarter of it (issue 25). The giraffe is a sturdy one standing, with the emoji's yellow
  coat, brown patches, mane, ossicones and tail tuft; the kangaroo sits up on its long
  feet and tail, ears high, a pale belly, the emoji's colours.

The drawn animals need no font, so they can be redrawn alone:

    apt-get install fonts-noto-color-emoji
    .venv/bin/python tools/make_sprites.py [--font PATH] [--size 128] [--only giraffe kangaroo]
"""

from __future__ import annotations

import argparse
import logging
import math
from collections.abc import Callable
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from render.emoji import CARD_EMOJI, DRAWN_BY_HAND

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "data" / "sprites"
DEFAULT_FONT = Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")

log = logging.getLogger(__name__)

LICENSE_NOTE = """\
The animal pictures in this folder (*.png) were made by tools/make_sprites.py from
Noto Color Emoji (Debian package fonts-noto-color-emoji 2.042).

Noto Color Emoji: Copyright 2013-2017 Google Inc. and Arjen Nienhuis.
The font is licensed under the SIL Open Font License, Version 1.1
(https://openfontlicense.org). The pictures here are cropped and scaled renderings of its
glyphs. ostrich.png, giraffe.png and kangaroo.png are not from the font: tools/make_sprites.py
draws them (draw_ostrich, draw_giraffe, draw_kangaroo), drawn for this project.
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

    def tilted_oval(self, cx: float, cy: float, rx: float, ry: float, angle: float,
                    fill: RGB) -> None:
        """An oval turned ``angle`` degrees clockwise about its centre."""
        a = math.radians(angle)
        points = []
        for k in range(48):
            t = 2 * math.pi * k / 48
            x, y = rx * math.cos(t), ry * math.sin(t)
            points.append((cx + x * math.cos(a) - y * math.sin(a),
                           cy + x * math.sin(a) + y * math.cos(a)))
        self.polygon(points, fill)

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


# The giraffe's colours, from its emoji: a yellow coat, brown patches and mane, the far
# legs a deeper orange, dark hooves and knobs on the ossicones.
COAT = (255, 179, 5)
COAT_FAR = (250, 130, 27)
PATCH = (213, 118, 87)
MUZZLE = (232, 150, 104)
HOOF = (110, 64, 46)
KNOB = (84, 60, 52)
DARK = (44, 48, 43)  # eyes and noses, as on the emoji


def draw_giraffe(size: int = 512) -> Image.Image:
    """A sturdy giraffe standing, facing left, cropped to its visible pixels: a body as
    wide as the picture is tall, four thick legs and a neck thick enough to carry the
    patches, so it fills its square where the emoji's thin one did not."""
    pen = Pen(size)
    oval, stroke = pen.oval, pen.stroke
    # The far legs (darker) and the tail with its tuft, behind the body.
    for top, bottom in (((215, 330), (200, 478)), ((400, 330), (412, 478))):
        stroke([top, bottom], COAT_FAR, 54)
        oval(bottom[0], 486, 28, 18, HOOF)
    stroke([(446, 262), (468, 318), (474, 372)], COAT, 14)
    pen.tilted_oval(476, 392, 16, 30, -8, HOOF)
    # The mane, a fringe behind the neck; the body; the neck, leaning forward.
    stroke([(270, 252), (238, 176), (208, 100)], PATCH, 26)
    oval(318, 298, 152, 100, COAT)
    pen.polygon([(146, 322), (262, 262), (200, 100), (104, 112)], COAT)
    for top, bottom in (((252, 340), (252, 480)), ((370, 340), (366, 480))):
        stroke([top, bottom], COAT, 58)
        oval(bottom[0], 488, 31, 18, HOOF)
    # The patches, drawn on their own layer and kept only where the coat is.
    patches = Pen(size)
    for cx, cy, rx, ry, angle in (
            (218, 262, 30, 24, 20), (292, 244, 36, 24, -10), (372, 240, 34, 22, 15),
            (434, 282, 22, 26, 0), (330, 300, 38, 26, 10), (246, 318, 30, 22, -15),
            (404, 326, 32, 22, -5), (300, 356, 30, 18, 5), (200, 230, 24, 22, 30),
            (176, 178, 22, 26, -10), (158, 260, 26, 24, 10), (214, 200, 16, 18, 0),
            (252, 390, 18, 26, 0), (366, 392, 18, 26, 0)):
        patches.tilted_oval(cx, cy, rx, ry, angle, PATCH)
    coat = pen.image.getchannel("A")
    keep = Image.composite(patches.image.getchannel("A"), Image.new("L", coat.size), coat)
    pen.image.paste(patches.image, (0, 0), keep)
    # The head: an ear, two ossicones with dark knobs, a pale muzzle, a big eye.
    pen.tilted_oval(204, 72, 34, 13, -25, COAT)
    pen.tilted_oval(206, 72, 22, 7, -25, PATCH)
    for base, tip in (((142, 62), (132, 22)), ((170, 64), (176, 24))):
        stroke([base, tip], COAT, 16)
        oval(tip[0], tip[1], 14, 14, KNOB)
    pen.tilted_oval(134, 96, 66, 46, 18, COAT)
    pen.tilted_oval(84, 124, 42, 34, 18, MUZZLE)
    oval(64, 118, 8, 6, DARK)
    oval(140, 84, 13, 14, DARK)
    oval(136, 79, 5, 5, EYE_WHITE)
    return pen.cropped()


# The kangaroo's colours, from its emoji: a red-brown coat, the far limbs and the thigh's
# edge darker, the inner ear pale pink; a pale belly so the sitting shape reads.
FUR = (210, 120, 86)
FUR_FAR = (160, 90, 70)
BELLY = (236, 172, 128)
INNER_EAR = (255, 210, 175)


def draw_kangaroo(size: int = 512) -> Image.Image:
    """A kangaroo sitting up, facing left, cropped to its visible pixels: long ears, a
    pear-shaped body on a big thigh, a long foot and a thick tail along the ground, so it
    fills its square where the emoji's leaping one, tail out behind, did not."""
    pen = Pen(size)
    oval, stroke = pen.oval, pen.stroke
    # The tail, thick at the hip and tapering along the ground to a round tip.
    pen.polygon([(320, 350), (410, 410), (480, 456), (516, 484), (506, 508), (430, 502),
                 (350, 488), (300, 470)], FUR)
    oval(508, 496, 13, 13, FUR)
    # The far foot and arm, behind.
    stroke([(276, 474), (150, 494)], FUR_FAR, 34)
    stroke([(232, 232), (188, 292)], FUR_FAR, 26)
    # The body: a big round bottom, a chest leaning forward, a pale belly.
    oval(300, 368, 128, 126, FUR)
    pen.tilted_oval(246, 246, 84, 120, 18, FUR)
    pen.tilted_oval(224, 330, 52, 104, 12, BELLY)
    # The thigh, its front edge shaded; the near foot; the near arm.
    pen.tilted_oval(334, 398, 98, 82, -30, FUR_FAR)
    pen.tilted_oval(344, 394, 94, 80, -30, FUR)
    stroke([(270, 440), (316, 478)], FUR, 40)
    stroke([(316, 480), (170, 494)], FUR, 38)
    stroke([(246, 238), (204, 296)], FUR, 28)
    oval(200, 302, 17, 15, FUR)
    # The ears, the far one darker, the near one pink inside.
    pen.tilted_oval(206, 52, 20, 60, 8, FUR_FAR)
    pen.tilted_oval(246, 52, 22, 62, 18, FUR)
    pen.tilted_oval(248, 58, 11, 42, 18, INNER_EAR)
    # The head with a long snout, a dark nose and a big eye.
    pen.tilted_oval(206, 138, 70, 56, 10, FUR)
    pen.tilted_oval(136, 162, 60, 36, 18, FUR)
    oval(84, 150, 18, 16, DARK)
    oval(180, 120, 13, 14, DARK)
    oval(176, 114, 5, 5, EYE_WHITE)
    return pen.cropped()


# Cards drawn above instead of taken from the font (see the module docstring); the rest
# are emoji (render.emoji, the same animals as on the Discord buttons).
DRAWN: dict[str, Callable[[], Image.Image]] = {
    "ostrich": draw_ostrich, "giraffe": draw_giraffe, "kangaroo": draw_kangaroo,
}
EMOJI: dict[str, str] = {card: e for card, e in CARD_EMOJI.items()
                         if card not in DRAWN and card not in DRAWN_BY_HAND}


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
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    cards = args.only or [*EMOJI, *DRAWN]
    OUT.mkdir(parents=True, exist_ok=True)
    font: ImageFont.FreeTypeFont | None = None
    for card in cards:
        if card in DRAWN:
            picture = DRAWN[card]()
        else:
            if font is None:
                font = ImageFont.truetype(str(args.font), 109)
            picture = render_glyph(font, EMOJI[card])
        fit_square(picture, args.size).save(OUT / f"{card}.png", optimize=True)
        log.info("%s", card)
    (OUT / "LICENSE.txt").write_text(LICENSE_NOTE)


if __name__ == "__main__":
    main()
