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
