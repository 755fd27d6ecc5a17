"""The replay: a looping animation from the empty board, with one frame per change of the
board, short enough to watch to the end, small enough to post."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops, ImageSequence

import engine
import render
from render.replay import LAST_FRAME_MS, MAX_TOTAL_MS, REPLAY_CELL, frame_durations

from .helpers import finished

MiB = 1024 * 1024


def _frames(gif: bytes) -> list[Image.Image]:
    image = Image.open(io.BytesIO(gif))
    assert image.format == "GIF" and image.info.get("loop") == 0
    return [frame.convert("RGB") for frame in ImageSequence.Iterator(image)]


def _durations(gif: bytes) -> list[int]:
    image = Image.open(io.BytesIO(gif))
    return [int(frame.info["duration"]) for frame in ImageSequence.Iterator(image)]


def _board_changes(game: engine.Game, kind: str) -> int:
    """How many entries of the game's history placed or removed a chip."""
    replayed = engine.new_game(kind, game.seats, game.seed, **game.options)
    before, changes = list(replayed.observation(None)["board"]), 0
    for entry in game.history:
        replayed.apply_entry(entry)
        after = list(replayed.observation(None)["board"])
        changes += after != before
        before = after
    return changes


def _start_board(kind: str, seats: int, seed: int, names: list[str], lang: str = "en"
                 ) -> Image.Image:
    start = engine.new_game(kind, seats, seed).observation(None)
    return render.board_image(start, names=names, lang=lang, cell=REPLAY_CELL).convert("RGB")


def test_replay_of_a_kids_game_starts_empty_has_a_frame_per_move_and_ends_on_the_final_board(
        ) -> None:
    game = finished("kids", 3, seed=3)
    names = ["A", "B", "C"]
    gif = render.replay_gif("kids", 3, 3, game.history, game.options, names=names)
    frames = _frames(gif)
    assert len(frames) == _board_changes(game, "kids") + 1
    assert ImageChops.difference(frames[0], _start_board("kids", 3, 3, names)).getbbox() is None
    assert len(gif) < 2 * MiB
    final = render.board_image(game.observation(None), names=names,
                               cell=REPLAY_CELL).convert("RGB")
    assert ImageChops.difference(frames[-1], final).getbbox() is None


def test_a_dice_replay_shows_no_frame_for_a_roll_alone_and_plays_in_under_a_minute() -> None:
    game = finished("dice", 2, seed=5)
    gif = render.replay_gif("dice", 2, 5, game.history, game.options, names=["A", "B"],
                            lang="no")
    frames, durations = _frames(gif), _durations(gif)
    assert len(frames) == _board_changes(game, "dice") + 1 < len(game.history)
    assert ImageChops.difference(frames[0],
                                 _start_board("dice", 2, 5, ["A", "B"], "no")).getbbox() is None
    assert sum(durations) <= MAX_TOTAL_MS
    assert durations[-1] == LAST_FRAME_MS > max(durations[1:-1])
    assert len(gif) < 2 * MiB


@pytest.mark.parametrize("frames", [2, 3, 30, 60, 200, 501])
def test_a_whole_replay_lasts_at_most_forty_seconds_and_holds_the_final_board(
        frames: int) -> None:
    durations = frame_durations(frames)
    assert len(durations) == frames
    assert sum(durations) <= MAX_TOTAL_MS
    assert durations[-1] == LAST_FRAME_MS == max(durations)
    assert all(d % 10 == 0 and d >= 60 for d in durations)  # GIF counts hundredths


def test_replay_of_an_empty_history_is_the_start_board() -> None:
    gif = render.replay_gif("kids", 2, 1, [], {}, names=["A", "B"])
    frames = _frames(gif)
    assert len(frames) == 1
    assert ImageChops.difference(frames[0], _start_board("kids", 2, 1, ["A", "B"])
                                 ).getbbox() is None
