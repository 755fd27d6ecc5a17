"""Checking game options: an impossible combination is refused with a clear error."""

from __future__ import annotations

from typing import Any

from .errors import InvalidOptions
from .kids_board import LEVELS

GAMES = ("kids", "dice")
GAME_NAMES = {"kids": "Sequence for Kids", "dice": "Sequence Dice"}


def _as_bool(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if value in (0, 1):
        return bool(value)
    raise InvalidOptions("bad_option", f"{name} must be true or false, not {value!r}.",
                         option=name, value=str(value))


def normalise_options(game: str, seats: Any, options: dict[str, Any]) -> dict[str, Any]:
    """Validate ``options`` for ``game`` with ``seats`` players; return them complete.

    >>> normalise_options("dice", 2, {})
    {'teams': False, 'sequence_length': 6}
    >>> normalise_options("kids", 4, {"teams": True, "level": 2})
    {'level': '2', 'teams': True}
    """
    if game not in GAMES:
        raise InvalidOptions("unknown_game", f"Unknown game {game!r}: choose kids or dice.",
                             game=str(game))
    if isinstance(seats, bool) or not isinstance(seats, int) or not 2 <= seats <= 4:
        raise InvalidOptions("bad_seats", f"{GAME_NAMES[game]} is for 2 to 4 players, "
                             f"not {seats!r}.", seats=str(seats))
    allowed = {"kids": {"level", "teams"}, "dice": {"teams", "sequence_length"}}[game]
    for name in options:
        if name not in allowed:
            if game == "dice" and name == "level":
                raise InvalidOptions("level_not_for_dice", "Beginners' levels are for "
                                     "Sequence for Kids; Sequence Dice has none.", option=name)
            if game == "kids" and name == "sequence_length":
                value = options[name]
                if value == 4:
                    continue
                raise InvalidOptions("length_not_for_kids", "Sequence for Kids is always "
                                     "played to 4 in a row.", option=name, value=str(value))
            raise InvalidOptions("unknown_option", f"{GAME_NAMES[game]} has no option "
                                 f"{name!r}.", option=name)
    if game == "kids":
        level = str(options.get("level", "normal")).strip().lower()
        if level not in LEVELS:
            raise InvalidOptions("bad_level", f"Level must be 1, 2, 3 or normal, not "
                                 f"{options.get('level')!r}.", value=str(options.get("level")))
        teams = _as_bool("teams", options.get("teams", False))
        if teams and seats != 4:
            raise InvalidOptions("teams_need_four", f"Teams are two teams of two: they need "
                                 f"4 players, not {seats}.", seats=seats)
        return {"level": level, "teams": teams}
    teams = _as_bool("teams", options.get("teams", seats == 4))
    if seats == 4 and not teams:
        raise InvalidOptions("four_need_teams", "Sequence Dice has three colours: four "
                             "players play as two teams (1st and 3rd against 2nd and 4th).")
    if teams and seats != 4:
        raise InvalidOptions("teams_need_four", f"Teams are two teams of two: they need "
                             f"4 players, not {seats}.", seats=seats)
    sides = 2 if teams else seats
    length = options.get("sequence_length", 6 if sides == 2 else 5)
    if isinstance(length, bool) or length not in (5, 6):
        raise InvalidOptions("bad_sequence_length", f"Sequence Dice is played to 5 or 6 in a "
                             f"row, not {length!r}.", value=str(length))
    return {"teams": teams, "sequence_length": int(length)}
