"""The replay: a looping animation with one frame per history entry, small enough to post."""

from __future__ import annotations

import io

from PIL import Image, ImageChops, ImageSequence

import render
from render.replay import REPLAY_CELL

from .helpers import finished

MiB = 1024 * 1024


def _frames(gif: bytes) -> list[Image.Image]:
    image = Image.open(io.BytesIO(gif))
    assert image.format == "GIF" and image.info.get("loop") == 0
    return [frame.convert("RGB") for frame in ImageSequence.Iterator(image)]


def test_replay_of_a_kids_game_has_a_frame_per_move_and_ends_on_the_final_board() -> None:
    game = finished("kids", 3, seed=3)
    gif = render.replay_gif("kids", 3, 3, game.history, game.options, names=["A", "B", "C"])
    frames = _frames(gif)
    assert len(frames) == len(game.history)
    assert len(gif) < 2 * MiB
    final = render.board_image(game.observation(None), names=["A", "B", "C"],
                               cell=REPLAY_CELL).convert("RGB")
    assert ImageChops.difference(frames[-1], final).getbbox() is None


def test_replay_of_a_dice_game_with_rolls_is_under_two_mib() -> None:
    game = finished("dice", 2, seed=5)
    gif = render.replay_gif("dice", 2, 5, game.history, game.options, names=["A", "B"],
                            lang="no")
    assert len(_frames(gif)) == len(game.history)
    assert len(gif) < 2 * MiB


def test_replay_of_an_empty_history_is_the_start_board() -> None:
    gif = render.replay_gif("kids", 2, 1, [], {}, names=["A", "B"])
    assert len(_frames(gif)) == 1
