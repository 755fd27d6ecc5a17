"""Alt text: every chip by owner and space, the turn, the last move; within 1024 chars."""

from __future__ import annotations

import re

import render
from render.alt import LIMIT

from .helpers import finished, played

SPACE = re.compile(r"\b[A-F][1-7]\b")


def _owner_sections(text: str, names: list[str]) -> dict[str, set[str]]:
    """The spaces listed after each "Name (colour, mark):" up to the next full stop."""
    out = {}
    for name in names:
        m = re.search(re.escape(name) + r" \([^)]*\): ([^.]*)\.", text)
        assert m, name
        out[name] = set(SPACE.findall(m.group(1)))
    return out


def test_alt_text_names_every_chip_with_its_owner() -> None:
    for kind, seats in (("kids", 3), ("dice", 2)):
        obs = played(kind, seats, 30).observation(None)
        names = ["Emma", "Ola", "Kari"][:seats]
        text = render.alt_text(obs, names=names)
        sections = _owner_sections(text, names)
        for index, side in enumerate(obs["board"]):
            if side is None:
                continue
            space = f"{'ABCDEF'[index % 6]}{index // 6 + 1}"
            assert space in sections[names[side]], (space, text)
        owned = sum(len(s) for s in sections.values())
        assert owned == sum(side is not None for side in obs["board"])


def test_alt_text_says_whose_turn_and_the_last_move() -> None:
    obs = played("kids", 2, 9).observation(None)
    text = render.alt_text(obs, names=["Emma", "Ola"])
    turn_name = ["Emma", "Ola"][obs["turn"]]
    assert f"{turn_name} to play" in text
    assert f"chip on {obs['last']['placed']}" in text
    no = render.alt_text(obs, names=["Emma", "Ola"], lang="no")
    assert f"{turn_name} sin tur" in no and "Åpne felt" in no


def test_alt_text_of_a_finished_game_names_the_winner_and_line() -> None:
    obs = finished("dice", 2).observation(None)
    text = render.alt_text(obs, names=["Emma", "Ola"])
    winner = ["Emma", "Ola"][obs["winner"]]
    assert f"{winner} won with {', '.join(obs['winning_line'])}" in text


def test_alt_text_fits_discords_limit_on_a_crowded_board() -> None:
    obs = played("kids", 4, 300, level="1").observation(None)
    names = ["Bartholomew the Magnificent of Somewhere Far Away"] * 4
    text = render.alt_text(obs, names=names)
    assert len(text) <= LIMIT
    assert sum(side is not None for side in obs["board"]) > 20
