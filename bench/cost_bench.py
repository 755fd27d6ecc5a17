"""The per-move pictures, the old way and the new way in the same run (issue 19).

The profile of the bot on the e2e bench (docs/COST.md) puts PNG encoding (zlib inside
Pillow) at about a third of the bot's CPU per move: the board, the mover's new hand and the
numbered choice are each encoded once a move. This measures each picture encoded at the
old zlib level and at ``render.encode.COMPRESS_LEVEL`` (ms and KiB), and the board drawn
from scratch against the board cached by position (``render.board.board_png`` again with
the same observation: recovery, ``/sequence board`` and the end of a game draw a position
already drawn).

    python -m bench cost
"""

from __future__ import annotations

import io
import random
import statistics
import time
from collections.abc import Callable

from PIL import Image

import engine
from render import board, choice, encode, hand

OLD_LEVEL = 5  # the zlib level before issue 19
NAMES = ["Emma", "Kari"]
REPEATS = 30


def _mid_game(moves: int = 14, seed: int = 11) -> engine.Game:
    game = engine.new_game("kids", 2, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        game.apply(rng.choice(game.legal_actions()))
    return game


def _median_ms(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def _encode(image: Image.Image, level: int) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=level)
    return buf.getvalue()


def run(quick: bool = False) -> dict[str, float]:
    """``quick``: each time the median of 3 (the module still works)."""
    repeats = 3 if quick else REPEATS
    game = _mid_game()
    obs, mine = game.observation(None), game.observation(0)
    spaces = [a.split("@")[1] for a in game.legal_actions() if "@" in a][:6]
    pictures = {
        "board": board.board_image(obs, names=NAMES, lang="en"),
        "hand": encode.to_palette(hand.hand_image(mine, caption="Sequence for Kids", lang="en"),
                                  hand._hand_palette("en")),
    }
    captured: list[Image.Image] = []
    real = choice.png_bytes
    choice.png_bytes = lambda image: captured.append(image) or real(image)  # type: ignore
    try:
        choice.choice_png(mine, spaces, lang="en")
    finally:
        choice.png_bytes = real
    pictures["choice"] = captured[0]

    out: dict[str, float] = {}
    old_total = new_total = 0.0
    for name, image in pictures.items():
        old = _median_ms(lambda i=image: _encode(i, OLD_LEVEL), repeats)
        new = _median_ms(lambda i=image: _encode(i, encode.COMPRESS_LEVEL), repeats)
        old_total, new_total = old_total + old, new_total + new
        out[f"cost_{name}_encode_ms_old"] = round(old, 2)
        out[f"cost_{name}_encode_ms"] = round(new, 2)
        out[f"cost_{name}_kib_old"] = round(len(_encode(image, OLD_LEVEL)) / 1024, 1)
        out[f"cost_{name}_kib"] = round(len(_encode(image, encode.COMPRESS_LEVEL)) / 1024, 1)
    out["cost_encode_per_move_ratio"] = round(new_total / old_total, 2)

    cache = getattr(board, "clear_board_cache", None)

    def drawn() -> bytes:
        if cache is not None:
            cache()
        return board.board_png(obs, names=NAMES, lang="en")

    out["cost_board_png_ms_drawn"] = round(_median_ms(drawn, repeats), 2)
    out["cost_board_png_ms_again"] = round(
        _median_ms(lambda: board.board_png(obs, names=NAMES, lang="en"), repeats), 3)
    return out
