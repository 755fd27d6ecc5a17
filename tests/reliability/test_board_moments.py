"""Two moments of a Sequence Dice game can read and look alike, and they are two boards.

A chip replaced back and forth with the same roll (or the same roll passed twice on an
unchanged board) gives two boards with the same words and the same picture, a few moves
apart. The two-process run (two_chaos.py) once counted a board by its words and picture
over the whole channel, and reported such pairs as "a board posted twice" (and one
moment as never shown). One process, on SQLite, shows them just the same: it is the game,
not the processes. Each board's Roll button names its moment (``seq:roll:<game>:<ply>``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fakediscord import FakeMessage

from .harness import board_messages
from .rig import Rig, make_rig
from .truth import expected_boards
from .two_chaos import alt_of, read_boards

#: a two-person Dice game whose people always take the first space offered: the chip on
#: one space is replaced with the same roll (4 and 4) at plies 57 and 61: two boards alike
LOOK_ALIKE_SEED = 265


def copy_of(message: FakeMessage, new_id: int | None = None, *, buttons: bool = True
            ) -> FakeMessage:
    """The same board again (``buttons=False``: as a board with a computer to move)."""
    data = dict(message.data, id=str(new_id) if new_id is not None else message.data["id"])
    if not buttons:
        data["components"] = []
    return FakeMessage(data, list(message.files))


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    """The bot, every game dealt from ``LOOK_ALIKE_SEED``."""
    async for r in make_rig(tmp_path, game_seed=LOOK_ALIKE_SEED):
        yield r


async def play_the_look_alike_game(rig: Rig) -> list[FakeMessage]:
    lobby = await rig.lobby("dice", "Alice", "Bob")
    game = await rig.play(await rig.start(lobby, "Alice"))
    assert game.status == "finished" and rig.problems() == []
    return board_messages(rig.fake, rig.channel)


async def test_two_moments_of_a_dice_game_that_look_alike_are_two_boards_not_a_double(
        rig: Rig) -> None:
    posted = await play_the_look_alike_game(rig)
    alike = Counter((m.content, alt_of(m)) for m in posted)
    twice = [words for (words, _), n in alike.items() if n > 1]
    assert twice, "the seeded game has two moments that read and look alike"
    # ... and the bot posted them as two moments (each board's nonce is its moment)
    nonces = {id(m): nonce for (_, nonce), m in rig.fake.nonces.items()}
    assert len({nonces[id(m)] for m in posted if m.content in twice}) >= 2
    games = rig.games()
    (game,) = games.values()
    boards = read_boards(posted, games)
    assert boards.duplicates == []
    assert boards.shown == {game.id: expected_boards(game)}


async def test_a_board_of_one_moment_posted_again_is_still_a_double(
        rig: Rig) -> None:
    posted = await play_the_look_alike_game(rig)
    games = rig.games()
    rolls = [m for m in posted if any(c.startswith("seq:roll:") for c in m.custom_ids())]
    # a moment shown again much later (another process re-posting an old board), and one
    # shown again at once
    late = [*posted, copy_of(rolls[3], 1)]
    (double,) = read_boards(late, games).duplicates
    assert double.startswith("a board posted 2 times")
    at_once = [*posted[:5], copy_of(posted[4], 2), *posted[5:]]
    assert len(read_boards(at_once, games).duplicates) == 1


async def test_boards_with_a_computer_to_move_are_doubles_only_of_the_board_before(
        rig: Rig) -> None:
    """With a computer to move no button names the moment: two such boards alike are one
    moment only when nothing came between them."""
    posted = await play_the_look_alike_game(rig)
    games = rig.games()
    final = posted[-1]
    no_buttons = [m if m is final else copy_of(m, buttons=False) for m in posted]
    assert read_boards(no_buttons, games).duplicates == []
    at_once = [*no_buttons[:5], copy_of(no_buttons[4], 2), *no_buttons[5:]]
    assert len(read_boards(at_once, games).duplicates) == 1
    # a board of a moment posted again later is one board more than the game has moments
    late = [*no_buttons[:-1], copy_of(no_buttons[3], 3), final]
    assert read_boards(late, games).duplicates == [
        f"game {game_id}: {len(posted) + 1} boards of different moments, {len(posted)} "
        "moments stored" for game_id in games]
