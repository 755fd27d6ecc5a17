"""Pictures for ``/sequence rules``: a small board with a finished sequence on it, above
the things a child must recognise (the Unicorn and Dragon cards; the dice rolls that do
something special). Words come from the caller, already translated: this module draws.

Laid out for a phone: portrait, one column as wide as the board (about 500 px), captions
at 22-30 px so they are still 17-24 px when a phone shows the picture 400 px wide.

    rules_png("kids", captions, lang)   captions: line (both); unicorn, dragon, free (Kids);
    rules_png("dice", captions, lang)   roll10, roll11, roll_again (Dice). Missing: left out.
    rules_picture(...)                  the same as an image with its caption font sizes
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

import engine

from . import palette as pal
from .board import board_image, geometry_for
from .chips import draw_mark
from .dice_faces import die
from .encode import png_bytes
from .hand import card_face
from .labels import fit_lines, paste_text

RULES_CELL = 72
PAD = 16
# Caption font sizes, largest first, each on up to two lines. The picture is about 500 px
# wide, and a phone shows it about 400 px wide: 22 px type is still 17 px there. (The old
# landscape pictures, 928 and 796 px wide, had 6-8 px captions on a phone.)
CAPTION_LAYOUTS = ((30, 2), (26, 2), (22, 2))
DIE = 72  # one die in the Dice rows
SMALL_DIE = 56  # the two pairs that roll again share a row

# An example sequence drawn on the small board, with the free corner counting for red in
# Kids. The spaces are real positions of each board (RULES.md), so the picture is true.
KIDS_EXAMPLE = {"red": ("B2", "C3", "D4"), "blue": ("E2", "B5"), "line": ("A1", "B2", "C3",
                                                                          "D4")}
DICE_EXAMPLE = {"green": ("B6", "C6", "D6", "E6", "F6"), "blue": ("C3", "D3", "E4"),
                "line": ("B6", "C6", "D6", "E6", "F6")}


def example_board(game: str, lang: str = "en", *, cell: int = RULES_CELL) -> Image.Image:
    """The board with a winning line drawn on it, without the players' legend."""
    sample = engine.new_game(game, 2, 0)
    obs: dict[str, Any] = dict(sample.observation(None))
    example = KIDS_EXAMPLE if game == "kids" else DICE_EXAMPLE
    colours = list(obs["colours"])
    width = int(obs["width"])
    board: list[int | None] = [None] * len(obs["board"])
    for side, colour in enumerate(colours):
        for space in example.get(colour, ()):
            board[_index(space, width)] = side
    obs = {**obs, "board": board, "winning_line": list(example["line"]), "last": None,
           "is_over": True, "turn": None}
    image = board_image(obs, names=["", ""], lang=lang, cell=cell).convert("RGB")
    geo = geometry_for(obs, cell)
    return image.crop((0, 0, image.width, geo.legend_top))


def _index(space: str, width: int) -> int:
    col, row = ord(space[0]) - ord("A"), int(space[1:]) - 1
    return row * width + col


@dataclass(frozen=True)
class RulesPicture:
    """A drawn rules picture and the font size of every caption on it (for the tests that
    keep it readable on a phone)."""

    image: Image.Image
    caption_sizes: tuple[int, ...]


class _Column:
    """Draws rows top to bottom on a tall canvas, then crops it to what was used."""

    def __init__(self, width: int) -> None:
        self.image = Image.new("RGB", (width, 4000), pal.BACKGROUND)
        self.width = width
        self.y: float = PAD
        self.sizes: list[int] = []

    def caption(self, text: str, x: float, width: int, *, align: str = "centre",
                top: float | None = None) -> float:
        """``text`` in bold, as large as fits ``width`` on up to two lines, starting at
        ``top`` (default: the current row); returns the bottom of the text."""
        size, lines = fit_lines(text, CAPTION_LAYOUTS, True, width)
        self.sizes.append(size)
        y = self.y if top is None else top
        line_h = round(size * 1.25)
        for line in lines:
            paste_text(self.image, line, x, y + line_h / 2, size, pal.INK, bold=True,
                       align=align)
            y += line_h
        return y

    def done(self) -> RulesPicture:
        return RulesPicture(self.image.crop((0, 0, self.width, round(self.y + PAD))),
                            tuple(self.sizes))


def _dice_pair(a: int, b: int, size: int) -> Image.Image:
    gap = size // 7
    pair = Image.new("RGBA", (size * 2 + gap, size), (0, 0, 0, 0))
    pair.alpha_composite(die(a, size), (0, 0))
    pair.alpha_composite(die(b, size), (size + gap, 0))
    return pair


def rules_picture(game: str, captions: Mapping[str, str], lang: str = "en") -> RulesPicture:
    """Portrait, for a phone: the example board on top with its caption, then the special
    cards (Kids) or the special rolls (Dice), each with a large caption."""
    board = example_board(game, lang)
    out = _Column(board.width + 2 * PAD)
    inner = out.width - 2 * PAD
    out.image.paste(board, (PAD, round(out.y)))
    out.y += board.height + PAD // 2
    if captions.get("line"):
        out.y = out.caption(captions["line"], out.width / 2, inner) + PAD // 2
    if game == "kids":
        if captions.get("free"):
            # The free corners' own mark, then the words, as on the board.
            mark = 44
            draw_mark(ImageDraw.Draw(out.image), pal.FREE_MARK, PAD + mark / 2,
                      out.y + mark / 2, mark, pal.MUTED)
            bottom = out.caption(captions["free"], PAD + mark + PAD, inner - mark - PAD,
                                 align="left", top=out.y + mark / 2 - 19)
            out.y = max(out.y + mark, bottom) + PAD
        column = (inner - PAD) // 2
        tops = []
        for n, card in enumerate(("unicorn", "dragon")):
            face = card_face(card, False, lang).convert("RGBA")
            x = PAD + n * (column + PAD)
            out.image.paste(face, (x + (column - face.width) // 2, round(out.y)), face)
            tops.append(face.height)
        below = out.y + max(tops) + 6
        bottoms = [out.caption(captions.get(card, ""), PAD + n * (column + PAD) + column / 2,
                               column, top=below)
                   for n, card in enumerate(("unicorn", "dragon")) if captions.get(card)]
        out.y = max([below, *bottoms])
        return out.done()
    for key, pairs, size in (("roll10", ((4, 6),), DIE), ("roll11", ((5, 6),), DIE),
                             ("roll_again", ((1, 1), (6, 6)), SMALL_DIE)):
        x = PAD
        for a, b in pairs:
            pair = _dice_pair(a, b, size)
            out.image.paste(pair, (x, round(out.y)), pair)
            x += pair.width + PAD
        totals = " / ".join(f"{a + b}" for a, b in pairs)
        text = f"= {totals}: {captions[key]}" if captions.get(key) else f"= {totals}"
        line = round(CAPTION_LAYOUTS[0][0] * 1.25)
        top = out.y + size / 2 - (line if len(text) > 14 else line / 2)
        bottom = out.caption(text, x, out.width - PAD - x, align="left", top=max(out.y, top))
        out.y = max(out.y + size, bottom) + PAD
    return out.done()


def rules_image(game: str, captions: Mapping[str, str], lang: str = "en") -> Image.Image:
    """The rules picture of ``game``: see ``rules_picture``."""
    return rules_picture(game, captions, lang).image


def rules_png(game: str, captions: Mapping[str, str], lang: str = "en") -> bytes:
    """The rules picture of ``game`` ("kids" or "dice") as PNG bytes."""
    return png_bytes(rules_image(game, captions, lang))
