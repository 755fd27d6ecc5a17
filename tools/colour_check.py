"""Render a mid-game board of each game and save it as seen with normal vision,
deuteranopia, protanopia, tritanopia and in greyscale, side by side, to look at.

    .venv/bin/python tools/colour_check.py [--out /tmp/colour_check]
"""

from __future__ import annotations

import argparse
import io
import random
import sys
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
import render
from render.vision import simulate

VISIONS = ("deuteranopia", "protanopia", "tritanopia", "greyscale")


def mid_game(kind: str, seats: int, moves: int, seed: int) -> engine.Game:
    game = engine.new_game(kind, seats, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/colour_check"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for kind, seats, moves in (("kids", 4, 30), ("dice", 3, 40)):
        game = mid_game(kind, seats, moves, seed=4)
        names = [f"Player {s + 1}" for s in range(seats)]
        board = Image.open(io.BytesIO(render.board_png(game.observation(None), names=names)))
        views = [board.convert("RGB"), *(simulate(board, v) for v in VISIONS)]
        sheet = Image.new("RGB", (board.width * 3, board.height * 2), "white")
        for i, view in enumerate(views):
            sheet.paste(view, ((i % 3) * board.width, (i // 3) * board.height))
            view.save(args.out / f"{kind}_{'normal' if i == 0 else VISIONS[i - 1]}.png")
        sheet.save(args.out / f"{kind}_sheet.png")
        print(args.out / f"{kind}_sheet.png")


if __name__ == "__main__":
    main()
