"""The legend under the board: a computer player's name keeps its level on every board, and a
name too long for its slot is cut with an ellipsis, never drawn past it."""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import render
from render.canvas import Layer
from render.labels import fit_lines
from render.text import ELLIPSIS, font, text_width

from .helpers import finished, played

# What the table's messages name computer seats (data/locales/*.json "computer.name" and "level.*").
COMPUTERS = {
    "en": ["Computer (easy)", "Computer (medium)", "Computer (hard)"],
    "no": ["Datamaskin (lett)", "Datamaskin (middels)", "Datamaskin (vanskelig)"],
}
BOARDS = [
    pytest.param(kind, seats, options, id=f"{kind}-{seats}{'-teams' if options else ''}")
    for kind, seats, options in [
        ("kids", 2, {}), ("kids", 3, {}), ("kids", 4, {}),
        ("dice", 2, {}), ("dice", 3, {}), ("dice", 4, {}), ("dice", 4, {"teams": True}),
    ]
]


@pytest.fixture
def drawn_text(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every piece of text pasted on a picture, exactly as drawn (after any shortening)."""
    texts: list[str] = []
    tile = Layer.tile

    def spy(self: Layer, key: Hashable, *args: Any, **kwargs: Any) -> Any:
        if isinstance(key, tuple) and key and key[0] == "text":
            texts.append(str(key[1]))
        return tile(self, key, *args, **kwargs)

    monkeypatch.setattr(Layer, "tile", spy)
    yield texts


@pytest.mark.parametrize("lang", ["en", "no"])
@pytest.mark.parametrize(("kind", "seats", "options"), BOARDS)
def test_computer_names_are_drawn_whole_with_their_level(
        drawn_text: list[str], kind: str, seats: int, options: dict[str, Any],
        lang: str) -> None:
    # Far enough into the game that every Kids seat has a discard beside its name.
    obs = played(kind, seats, 3 * seats + 1, **options).observation(None)
    levels = COMPUTERS[lang]
    for shift in range(len(levels)):  # every level in every seat
        names = [levels[(seat + shift) % len(levels)] for seat in range(seats)]
        drawn_text.clear()
        render.board_png(obs, names=names, lang=lang)
        assert not [t for t in drawn_text if ELLIPSIS in t], names
        shown = " ".join(drawn_text)  # a name set on two lines is drawn line after line
        for name in names:
            assert name in shown


WON = {"en": "{a} & {b} win!", "no": "{a} og {b} vant!"}


@pytest.mark.parametrize("lang", ["en", "no"])
@pytest.mark.parametrize("kind", ["kids", "dice"])
def test_a_winning_team_of_computers_is_named_whole_in_the_header(
        drawn_text: list[str], kind: str, lang: str) -> None:
    obs = finished(kind, 4, 7, teams=True).observation(None)
    assert obs["is_over"] and obs["winner"] is not None
    first, second = obs["sides"][obs["winner"]]
    levels = COMPUTERS[lang]
    for a, b in itertools.product(levels, repeat=2):  # every pair of levels in the team
        names = [levels[0]] * 4
        names[first], names[second] = a, b
        drawn_text.clear()
        render.board_png(obs, names=names, lang=lang)
        assert not [t for t in drawn_text if ELLIPSIS in t], names
        # The header is drawn first; on two lines, line after line.
        assert WON[lang].format(a=a, b=b) in " ".join(drawn_text), drawn_text


def test_a_very_long_name_is_cut_with_an_ellipsis(drawn_text: list[str]) -> None:
    long = "Bartholomew Maximilian Snodgrass"  # 32 characters, the most Discord allows
    obs = played("kids", 4, 13).observation(None)
    render.board_png(obs, names=[long, *COMPUTERS["en"]])
    cut = [t.removesuffix(ELLIPSIS).split() for t in drawn_text if ELLIPSIS in t]
    assert cut  # in the slot and in the header ("...'s turn")
    for words in cut:  # the name's own start, its last word shortened
        assert words and any(w.startswith(words[-1]) for w in long.split())


LAYOUTS = ((21, 1), (18, 2), (16, 2))


@given(st.text(alphabet="abcdefghijklm ()ÆØÅ", min_size=1, max_size=40).map(str.strip)
       .filter(bool), st.integers(min_value=20, max_value=300))
def test_fit_lines_stays_in_the_width_and_cuts_only_what_does_not_fit(
        text: str, width: int) -> None:
    size, lines = fit_lines(text, LAYOUTS, True, width)
    assert size in {s for s, _ in LAYOUTS} and 1 <= len(lines) <= 2
    f = font(size, True)
    for line in lines:
        assert line == ELLIPSIS or text_width(line, f) <= width
    if not any(ELLIPSIS in line for line in lines):
        assert " ".join(lines).split() == text.split()
    if text_width(text, font(LAYOUTS[0][0], True)) <= width:
        assert (size, lines) == (LAYOUTS[0][0], (text,))  # what fits is left alone


# -- issue 16: words a family misread ----------------------------------------------------

LAST_ROLL = {"en": "Last roll: {name}", "no": "Siste kast: {name}"}
NOBODY_WON = {"en": "Nobody won", "no": "Ingen vant"}
RESIGNED = {"en": "{name} (resigned)", "no": "{name} (ga opp)"}
LEFT_GAME = {"en": "{name} (left the game)", "no": "{name} (forlot partiet)"}


def _after_a_turn_passed(kind: str = "dice") -> dict[str, Any]:
    """A Dice position where the last roll was made by the player before the one to move."""
    for moves in range(3, 60):
        obs = played(kind, 2, moves).observation(None)
        last = obs.get("last") or {}
        if (not obs["is_over"] and last.get("dice") and obs.get("dice") is None
                and last.get("seat") != obs["turn"]):
            return obs
    raise AssertionError("no such position")


@pytest.mark.parametrize("lang", ["en", "no"])
def test_the_dice_header_says_whose_roll_the_dice_are(drawn_text: list[str], lang: str) -> None:
    obs = _after_a_turn_passed()
    names = ["Emma", "Mum"]
    roller = obs["last"]["seat"]
    a, b = obs["last_roll"]
    render.board_png(obs, names=names, lang=lang)
    assert LAST_ROLL[lang].format(name=names[roller]) in drawn_text, drawn_text
    assert f"= {a + b}" in drawn_text
    alt = render.alt_text(obs, names=names, lang=lang)
    assert LAST_ROLL[lang].format(name=names[roller]) + f" {a} + {b} = {a + b}" in alt


@pytest.mark.parametrize("lang", ["en", "no"])
def test_a_drawn_game_says_nobody_won_not_draw(drawn_text: list[str], lang: str) -> None:
    obs = {**finished("kids", 2).observation(None), "winner": None, "draw": True,
           "winning_line": []}
    render.board_png(obs, names=["Emma", "Mum"], lang=lang)
    assert NOBODY_WON[lang] in drawn_text
    assert not {"Draw", "Uavgjort"} & set(drawn_text)
    alt = render.alt_text(obs, names=["Emma", "Mum"], lang=lang)
    assert NOBODY_WON[lang] in alt and "draw" not in alt.lower() and "uavgjort" not in alt


@pytest.mark.parametrize("lang", ["en", "no"])
def test_a_resigned_seat_says_resigned_and_a_seat_that_left_says_it_left(
        drawn_text: list[str], lang: str) -> None:
    obs = {**played("kids", 3, 6).observation(None), "resigned": [True, False, True],
           "left_game": [False, False, True]}
    render.board_png(obs, names=["Emma", "Mum", "Per"], lang=lang)
    shown = " ".join(drawn_text)  # a slot on two lines is drawn line after line
    assert RESIGNED[lang].format(name="Emma") in shown, drawn_text
    assert LEFT_GAME[lang].format(name="Per") in shown, drawn_text
    assert "Mum (" not in shown
    assert "(left)" not in shown and "(forlot)" not in shown
