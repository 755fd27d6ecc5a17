"""An action is a value with one parse and one format that round-trip (``engine.action``):
every text the engine offers reads back as the action it stands for, and its text is the
one the engine wrote."""

from __future__ import annotations

import doctest
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.action
from engine import IllegalAction, new_game
from engine.action import Action


def test_the_modules_examples_hold() -> None:
    assert doctest.testmod(engine.action).failed == 0


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["kids", "dice"]), st.integers(0, 2**32), st.integers(0, 60))
def test_every_legal_action_of_a_game_reads_back_as_itself(game: str, seed: int,
                                                           plies: int) -> None:
    g = new_game(game, 2, seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if g.is_over:
            break
        for text in g.legal_actions():
            action = Action.parse(text)
            assert action.text == text and str(action) == text
            assert Action.parse(action.text) == action
            assert eval(repr(action), {"Action": Action}) == action  # (a repr to paste)
        g.apply(rng.choice(g.legal_actions()))


@pytest.mark.parametrize(("text", "action"), [
    ("lion@B3", Action("lion", "B3")),
    ("  LION@b3 ", Action("lion", "B3")),
    ("dead:fox", Action.exchange("fox")),
    ("roll", Action("roll")),
    ("place@E2", Action("place", "E2")),
    ("unicorn@A10", Action("unicorn", "A10")),
])
def test_a_text_is_read_whatever_its_case_and_spaces(text: str, action: Action) -> None:
    assert Action.parse(text) == action


def test_what_an_action_does_to_its_space() -> None:
    assert Action.parse("dragon@D5").takes and Action.parse("dragon@D5").places is None
    assert Action.parse("remove@C3").takes
    assert Action.parse("lion@B3").places == "B3"
    assert Action.parse("dead:lion").space is None and Action.parse("dead:lion").first == "lion"
    assert Action.parse("replace@E2").first == "roll", "a Dice move comes after its roll"


@pytest.mark.parametrize(("text", "code"), [
    ("", "malformed"), ("lion", "malformed"), ("lion@B3@C4", "malformed"),
    ("x" * 600, "malformed"), ("lion@", "bad_space"), ("lion@33", "bad_space"),
    ("lion@B3; drop", "bad_space"), ("tiger-king@B3", "unknown_card"),
    ("dead:", "unknown_card"), ("🦁@B3", "unknown_card"),
])
def test_a_text_that_is_no_action_is_refused_saying_what_is_wrong(text: str,
                                                                   code: str) -> None:
    with pytest.raises(IllegalAction) as refused:
        Action.parse(text)
    assert refused.value.code == code


def test_a_text_read_again_is_the_same_action_and_what_is_kept_is_bounded() -> None:
    """Each text is read once (a move reads the same few about 25 times): asked again, the
    same frozen value; a flood of made-up texts keeps at most ``_READ_MOST`` of them, and
    one past the bound is still read right."""
    assert Action.parse("lion@B3") is Action.parse("lion@B3")
    for n in range(engine.action._READ_MOST + 10):
        Action.parse(f"lion@Z{n % 99 + 1}{'' if n < 99 else ' ' * (n // 99)}")
    assert len(engine.action._READ) <= engine.action._READ_MOST
    assert Action.parse(" dragon@c9 ") == Action("dragon", "C9")


def test_a_text_refused_once_is_refused_again() -> None:
    """Only what reads is kept: a refusal is never remembered as an action."""
    for _ in range(2):
        with pytest.raises(IllegalAction) as refused:
            Action.parse("lion@33")
        assert refused.value.code == "bad_space"
