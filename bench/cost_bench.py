"""The per-move pictures, the old way and the new way in the same run (issue 19).

The profile of the bot on the e2e bench (docs/COST.md) puts PNG encoding (zlib inside
Pillow) at about a third of the bot's CPU per move: the board, the mover's new hand and the
numbered choice are each encoded once a move. This measures each picture encoded at the
old zlib level and at ``render.encode.COMPRESS_LEVEL`` (ms and KiB), and the board drawn
from scratch against the board cached by position (``render.board.board_png`` again with
the same observation: recovery, ``/sequence board`` and the end of a game draw a position
already drawn).

And the pictures of a whole game as the bot makes them, move after move: each move's
board and numbered choice encoded, the mover's hand drawn and encoded. The old way:
Pillow's PNG writer, the hand drawn whole then mapped to its palette. The new way: band
by band with the bands kept (``render.png_bands``), the hand pasted from parts mapped
once (``render.hand.hand_in_palette``). Both in the same run
(``cost_game_pictures_ms_per_move_old/new``, their ratio, and the bytes).

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
from engine.action import Action
from render import board, choice, encode, hand, png_bands

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


def _game_moves(seed: int = 11) -> list[tuple[Image.Image, engine.Observation, Image.Image]]:
    """What a two-person Kids game shows, in order: after each move the board, the next
    mover's hand (their observation) and their numbered choice."""
    game = engine.new_game("kids", 2, seed)
    rng = random.Random(seed)
    out: list[tuple[Image.Image, engine.Observation, Image.Image]] = []
    while not game.is_over and len(out) < 40:
        game.apply(rng.choice(game.legal_actions()))
        seat = game.current_seat
        if seat is None:
            break
        mine = game.observation(seat)
        spaces = [s for a in game.legal_actions() if (s := Action.parse(a).space)][:6]
        out.append((board.board_image(game.observation(None), names=NAMES, lang="en"), mine,
                    choice_image(mine, spaces)))
    return out


def choice_image(obs: engine.Observation, spaces: list[str]) -> Image.Image:
    """The numbered choice's picture, before it is encoded."""
    captured: list[Image.Image] = []
    real = choice.png_bytes
    choice.png_bytes = lambda image: captured.append(image) or real(image)  # type: ignore
    try:
        choice.choice_png(obs, spaces, lang="en")
    finally:
        choice.png_bytes = real
    return captured[0]


def _whole_game(moves: list[tuple[Image.Image, engine.Observation, Image.Image]],
                repeats: int) -> dict[str, float]:
    """A game's pictures the old way (Pillow's PNG writer, the hand drawn whole and mapped
    to its palette) and the new way (band by band with the bands kept, the hand from
    mapped parts), alternately, ``repeats`` times each, each new-way run from empty
    caches as a bot's first game. The boards and choices are drawn once for both."""
    caption = "Sequence for Kids"
    old_s: list[float] = []
    new_s: list[float] = []
    for _ in range(repeats):
        start = time.process_time()
        old = [_encode(picture, encode.COMPRESS_LEVEL) for board_picture, mine, choice_picture
               in moves for picture in (
                   board_picture, choice_picture,
                   encode.to_palette(hand.hand_image(mine, caption=caption, lang="en"),
                                     hand.hand_palette("en")))]
        old_s.append(time.process_time() - start)
        cache = png_bands.BandCache()
        hand.clear_parts()
        start = time.process_time()
        new = [png_bands.palette_png(picture, encode.COMPRESS_LEVEL, cache)
               for board_picture, mine, choice_picture in moves for picture in (
                   board_picture, choice_picture,
                   hand.hand_in_palette(mine, caption=caption, lang="en"))]
        new_s.append(time.process_time() - start)
    old_ms = statistics.median(old_s) * 1000 / len(moves)
    new_ms = statistics.median(new_s) * 1000 / len(moves)
    return {
        "cost_game_moves": len(moves),
        "cost_game_pictures_ms_per_move_old": round(old_ms, 2),
        "cost_game_pictures_ms_per_move_new": round(new_ms, 2),
        "cost_game_pictures_ratio_new_to_old": round(new_ms / old_ms, 2),
        "cost_game_kib_per_move_old": round(sum(map(len, old)) / 1024 / len(moves), 1),
        "cost_game_kib_per_move_new": round(sum(map(len, new)) / 1024 / len(moves), 1),
    }


def run(quick: bool = False) -> dict[str, float]:
    """``quick``: each time the median of 3 (the module still works)."""
    repeats = 3 if quick else REPEATS
    game = _mid_game()
    obs, mine = game.observation(None), game.observation(0)
    spaces = [s for a in game.legal_actions() if (s := Action.parse(a).space)][:6]
    pictures = {
        "board": board.board_image(obs, names=NAMES, lang="en"),
        "hand": encode.to_palette(hand.hand_image(mine, caption="Sequence for Kids", lang="en"),
                                  hand.hand_palette("en")),
    }
    pictures["choice"] = choice_image(mine, spaces)

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
    out.update(_whole_game(_game_moves(), 1 if quick else 5))
    return out
