"""Pictures for ``/sequence rules``: a small board with a finished sequence on it, next to
the things a child must recognise (the Unicorn and Dragon cards; the dice rolls that do
something special). Words come from the caller, already translated: this module draws.

    rules_png("kids", captions, lang)   captions: line (both); unicorn, dragon, free (Kids);
    rules_png("dice", captions, lang)   roll10, roll11, roll_again (Dice). Missing: left out.
"""

from __future__ import annotations

from collections.abc import Mapping

from PIL import Image

import engine
from engine.observation import Observation

from . import palette as pal
from .board import board_image, geometry_for
from .dice_faces import die
from .encode import png_bytes
from .hand import card_face
from .labels import paste_text

RULES_CELL = 72
GAP = 24
CAPTION = 22

# An example sequence drawn on the small board, with the free corner counting for red in
# Kids. The spaces are real positions of each board (docs/RULES-MAP.md), so the picture is true.
KIDS_EXAMPLE = {"red": ("B2", "C3", "D4"), "blue": ("E2", "B5"), "line": ("A1", "B2", "C3",
                                                                          "D4")}
DICE_EXAMPLE = {"green": ("B6", "C6", "D6", "E6", "F6"), "blue": ("C3", "D3", "E4"),
                "line": ("B6", "C6", "D6", "E6", "F6")}


def example_board(game: str, lang: str = "en", *, cell: int = RULES_CELL) -> Image.Image:
    """The board with a winning line drawn on it, without the players' legend."""
    sample = engine.new_game(game, 2, 0)
    obs: Observation = sample.observation(None)
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


def _side_items(game: str, captions: Mapping[str, str], lang: str
                ) -> list[tuple[Image.Image, str]]:
    """The pictures beside the board, each with its caption."""
    if game == "kids":
        return [(card_face("unicorn", False, lang).convert("RGBA"), captions.get("unicorn", "")),
                (card_face("dragon", False, lang).convert("RGBA"), captions.get("dragon", ""))]
    size = 84
    items = []
    for (a, b), key in (((4, 6), "roll10"), ((5, 6), "roll11"), ((1, 1), "roll_again"),
                        ((6, 6), "roll_again")):
        pair = Image.new("RGBA", (size * 2 + 12, size), (0, 0, 0, 0))
        pair.alpha_composite(die(a, size), (0, 0))
        pair.alpha_composite(die(b, size), (size + 12, 0))
        items.append((pair, f"= {a + b}: {captions.get(key, '')}".rstrip(": ")))
    return items


def rules_image(game: str, captions: Mapping[str, str], lang: str = "en") -> Image.Image:
    """The board on the left, the special cards or dice stacked on the right."""
    board = example_board(game, lang)
    items = _side_items(game, captions, lang)
    row_h = [img.height + CAPTION + 16 for img, _ in items]
    columns = 2 if game == "kids" else 1
    per_col = -(-len(items) // columns)
    col_w = max(img.width for img, _ in items) + 2 * GAP
    if game == "dice":
        col_w = max(col_w, 300)
    side_h = max(sum(row_h[c * per_col:(c + 1) * per_col]) for c in range(columns))
    width = board.width + GAP + columns * col_w
    notes = [text for text in (captions.get("line"),
                               captions.get("free") if game == "kids" else None) if text]
    below = board.height + len(notes) * (CAPTION + 8) + GAP
    height = max(below, side_h + GAP)
    out = Image.new("RGB", (width, height), pal.BACKGROUND)
    out.paste(board, (0, 0))
    for n, text in enumerate(notes):
        marker = "★ " if text == captions.get("free") else ""
        paste_text(out, marker + text, GAP, board.height + n * (CAPTION + 8) + CAPTION / 2 + 4,
                   CAPTION, pal.INK, bold=True, max_width=board.width - GAP)
    x0 = board.width + GAP
    for c in range(columns):
        y = GAP
        for img, caption in items[c * per_col:(c + 1) * per_col]:
            x = x0 + c * col_w + (col_w - img.width) // 2
            out.paste(img, (x, y), img)
            y += img.height + 6
            paste_text(out, caption, x0 + c * col_w + col_w / 2, y + CAPTION / 2, CAPTION - 4,
                       pal.INK, bold=True, align="centre", max_width=col_w - 8)
            y += CAPTION + 16
    return out


def rules_png(game: str, captions: Mapping[str, str], lang: str = "en") -> bytes:
    """The rules picture of ``game`` ("kids" or "dice") as PNG bytes."""
    return png_bytes(rules_image(game, captions, lang))
