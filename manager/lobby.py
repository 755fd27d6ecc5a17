"""The lobby's rules and the settings' checks: who may sit down, leave, start, remove.

Plain functions over a ``Table``: each checks, then changes the table's seats or refuses
with a ``ManagerError`` and changes nothing. Saving and telling are the manager's
(``Steps.save_lobby``), so every rule here can be read, and tested, on its own.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from engine.game import Game
from engine.options import GAMES, normalise_options
from store import GameRecord, Seat, Status

from .errors import ManagerError, refuse
from .events import COMPUTER_LEVELS, Player, TableView
from .table import Table

log = logging.getLogger(__name__)

MAX_SEATS = 4
MAX_CHILD_NAME = 20
MIN_TURN_TIMER = 10  # seconds: a turn timer of ten seconds at least ...
MAX_TURN_TIMER = 24 * 60 * 60  # ... and of a day at most
SETTINGS = ("locale", "turn_timer", "timeout_action", "absences_to_free", "defaults")


# -- settings -------------------------------------------------------------------------

def is_turn_timer(seconds: object) -> bool:
    """A turn timer in seconds: a number from ``MIN_TURN_TIMER`` to ``MAX_TURN_TIMER``."""
    return (isinstance(seconds, int | float) and not isinstance(seconds, bool)
            and MIN_TURN_TIMER <= seconds <= MAX_TURN_TIMER)


def check_table_options(on_leave: str, turn_timer: float | None) -> None:
    """A lobby's own choices: ``on_leave`` skip or computer; its turn timer None (the
    server's), 0 (none) or a turn timer."""
    if on_leave not in ("skip", "computer"):
        raise refuse("bad_setting", "on_leave is skip or computer.", setting="on_leave",
                     value=str(on_leave))
    if turn_timer is not None and turn_timer != 0 and not is_turn_timer(turn_timer):
        raise refuse("bad_setting", "A turn timer is 0 (none) or 10 seconds to 1440 "
                     "minutes.", setting="turn_timer", value=str(turn_timer))


def check_game_options(game: str, options: dict[str, Any]) -> None:
    """Options the game takes (with a seat count they allow; checked again at start)."""
    normalise_options(game, 4 if options.get("teams") else 2, dict(options))


def check_settings(changes: dict[str, Any]) -> None:
    """A server's settings: each known and in range (``turn_timer`` None is off)."""
    rules = {
        "locale": lambda v: v in ("en", "no"),
        "turn_timer": lambda v: v is None or is_turn_timer(v),
        "timeout_action": lambda v: v in ("computer", "skip"),
        "absences_to_free": lambda v: isinstance(v, int) and 1 <= v <= 10,
        "defaults": lambda v: isinstance(v, dict) and set(v) <= set(GAMES),
    }
    for name, value in changes.items():
        if name not in rules:
            raise refuse("bad_setting", f"There is no setting {name!r}.", setting=name)
        if not rules[name](value):
            raise refuse("bad_setting", f"{value!r} is not a valid {name}.",
                         setting=name, value=str(value))
    for game, opts in changes.get("defaults", {}).items():
        check_game_options(game, opts)  # raises InvalidOptions


# -- who may do what in a lobby --------------------------------------------------------
# Each rule is said once, as why someone may not (None: they may), over what any screen
# holds of a table (its ``TableView``): the calls below that change a lobby raise it, and
# ``offers`` asks it to say what a person may do now.

Lobby = TableView


def not_open(table: Lobby) -> ManagerError | None:
    """Why the table takes no lobby change (it started, or it is no lobby)."""
    if table.status is Status.PLAYING:
        return refuse("game_started", "The game has already started.")
    if table.status is not Status.LOBBY:
        return refuse("no_lobby", "There is no lobby in this channel.")
    return None


def no_room(table: Lobby) -> ManagerError | None:
    if len(table.seats) >= MAX_SEATS:
        return refuse("lobby_full", "The lobby is full (4 players).", seats=MAX_SEATS)
    return None


def why_not_join(table: Lobby, user_id: int) -> ManagerError | None:
    """A person sits down: once, while there is room."""
    if any(s.user_id == user_id and s.level is None and not s.is_child for s in table.seats):
        return not_open(table) or refuse("already_joined", "You are already in this lobby.")
    return not_open(table) or no_room(table)


def why_not_add_child(table: Lobby) -> ManagerError | None:
    """A grown-up adds a child's seat (the name is checked when it is given). Sequence for
    Kids only: a child's seat is there for the hand it holds, which Dice has not (a child
    rolls at the grown-up's side)."""
    if table.status is Status.LOBBY and table.game != "kids":
        return refuse("family_seats_kids", "Family seats are for Sequence for Kids.")
    if table.status is Status.LOBBY and not table.family_seats:
        return refuse("family_seats_off", "The host turned family seats off.")
    return not_open(table) or no_room(table)


def why_not_add_computer(table: Lobby, user_id: int) -> ManagerError | None:
    """Anyone playing a seat of the lobby (their own, or only a child's they hold) adds a
    computer player."""
    if not_open(table) is None and not any(s.plays_for(user_id) for s in table.seats):
        return refuse("not_in_lobby", "Join the lobby first.")
    return not_open(table) or no_room(table)


def why_not_leave(table: Lobby, user_id: int) -> ManagerError | None:
    if not_open(table) is None and not any(s.plays_for(user_id) for s in table.seats):
        return refuse("not_in_lobby", "You are not in this lobby.")
    return not_open(table)


def why_not_host(table: Lobby, user_id: int, what: str) -> ManagerError | None:
    if user_id != table.host_id:
        return refuse("not_host", f"Only the host can {what}.")
    return None


def why_not_start(table: Lobby, user_id: int) -> ManagerError | None:
    """The host starts a lobby of 2 to 4 seats."""
    return (not_open(table) or why_not_host(table, user_id, "start the game")
            or (refuse("not_enough_players", "A game needs at least 2 players.",
                       seats=len(table.seats)) if len(table.seats) < 2 else None))


def why_not_cancel(table: Lobby, user_id: int) -> ManagerError | None:
    return not_open(table) or why_not_host(table, user_id, "cancel the lobby")


def why_not_remove(table: Lobby, user_id: int, seat: int, is_moderator: bool
                   ) -> ManagerError | None:
    """Who may remove a seat: the host, a moderator, or (in a lobby) a child's own
    grown-up for the child's seat."""
    if not table.status.is_open:
        return refuse("no_lobby", "There is no lobby in this channel.")
    own_child = (table.status is Status.LOBBY and 0 <= seat < len(table.seats)
                 and table.seats[seat].is_child and table.seats[seat].user_id == user_id)
    if user_id != table.host_id and not is_moderator and not own_child:
        return refuse("not_host", "Only the host or a moderator can remove a seat.")
    return None


def _raise(refusal: ManagerError | None) -> None:
    if refusal is not None:
        raise refusal


# -- seats ----------------------------------------------------------------------------

def check_open(table: Table) -> None:
    """The table is a lobby still taking changes."""
    _raise(not_open(table.view()))


def seat_player(table: Table, player: Player) -> None:
    _raise(why_not_join(table.view(), player.user_id))
    table.seats.append(Seat(len(table.seats), player.user_id, player.name))


def child_name(name: str) -> str:
    """A child's name as it will be shown: spaces tidied."""
    return " ".join(str(name).split())


def seat_child(table: Table, grown_up: Player, name: str) -> None:
    """A family seat: a child without a Discord account plays from ``grown_up``'s account
    (Discord's accounts are for 13 and over)."""
    _raise(why_not_add_child(table.view()))
    name = child_name(name)
    if not name:
        raise refuse("child_name_empty", "A child's seat needs a name.")
    if len(name) > MAX_CHILD_NAME:
        raise refuse("child_name_long", "A child's name is at most 20 letters.",
                     limit=MAX_CHILD_NAME)
    if any(s.name.casefold() == name.casefold() for s in table.seats if s.level is None):
        raise refuse("child_name_taken", "Someone at this table has that name.", name=name)
    table.seats.append(Seat(len(table.seats), grown_up.user_id, name,
                            guardian=grown_up.name))


def seat_computer(table: Table, user_id: int, level: str) -> None:
    """A seated player (usually the host) adds a computer player."""
    check_open(table)
    if level not in COMPUTER_LEVELS:
        raise refuse("bad_level", "A computer player is easy, medium or hard.",
                     level=str(level))
    _raise(why_not_add_computer(table.view(), user_id))
    number = sum(1 for s in table.seats if s.level is not None) + 1
    table.seats.append(Seat(len(table.seats), None, f"Computer {number}", level))


def seat_again(table: Table, seats: Sequence[Seat]) -> None:
    """A rematch: a finished game's seats (but the host's) seated again in order, each by
    the rule for its kind (a person, a child held by the same grown-up, a computer of the
    same level). A seat the rules refuse now is left out, and the rest seated."""
    for seat in seats:
        try:
            if seat.level is not None or seat.user_id is None:
                seat_computer(table, table.host_id, seat.level or "medium")
            elif seat.guardian is not None:
                seat_child(table, Player(seat.user_id, seat.guardian), seat.name)
            else:
                seat_player(table, Player(seat.user_id, seat.name))
        except ManagerError as exc:
            log.info("a rematch could not seat %s again (%s)", seat.name, exc.code)


def rematch_seats(record: GameRecord | None, user_id: int
                  ) -> tuple[GameRecord, Seat, list[Seat]]:
    """A rematch of a finished game (``record``) asked by ``user_id``: the record, its host
    (the first person still in it, never a child's seat) and the other seats to seat
    again, in order.
    A player who left is not seated again. Refuses ``rematch_gone`` (no such finished
    game), ``rematch_not_a_player``, ``rematch_too_few``."""
    if record is None or record.status != "finished":
        raise ManagerError("rematch_gone", "That game can no longer be found.")
    if user_id not in {s.user_id for s in record.seats}:
        raise ManagerError("rematch_not_a_player", "Only the players can start a rematch.")
    seats = [s for s in record.seats if not s.left]
    people = [s for s in seats if s.user_id is not None and s.level is None
              and not s.is_child]
    if len(seats) < 2 or not people:
        raise ManagerError("rematch_too_few", "Too few players are left for a rematch.")
    host = people[0]
    return record, host, [s for s in seats if s is not host]


def unseat_leaver(table: Table, user_id: int) -> bool:
    """``user_id`` leaves the lobby, their children's seats with them (nobody would play
    them). True when it is the host: then the lobby is to be cancelled instead."""
    _raise(why_not_leave(table.view(), user_id))
    held = table.held_seats(user_id)
    if user_id == table.host_id:
        return True
    table.seats[:] = [s for s in table.seats if s.index not in held]
    table.renumber()
    return False


def check_remover(table: Table, user_id: int, seat: int, is_moderator: bool) -> None:
    _raise(why_not_remove(table.view(), user_id, seat, is_moderator))


def unseat(table: Table, seat: int) -> None:
    """Take a seat out of a lobby (never the host's own, seat 0)."""
    if not 0 < seat < len(table.seats):
        raise refuse("no_such_seat", f"There is no seat {seat + 1} to remove.", seat=seat)
    del table.seats[seat]
    table.renumber()


def check_seat_to_free(table: Table, seat: int) -> bool:
    """A seat of a game in play that may be freed; True when a person plays it (not yet
    gone)."""
    table.playing()
    if not 0 <= seat < len(table.seats) or table.seats[seat].resigned:
        raise refuse("no_such_seat", f"There is no seat {seat + 1} to remove.", seat=seat)
    return table.seats[seat].user_id is not None and not table.seats[seat].left


def check_host(table: Table, user_id: int, what: str) -> None:
    _raise(why_not_host(table.view(), user_id, what))


def check_start(table: Table, user_id: int) -> None:
    _raise(why_not_start(table.view(), user_id))


def player_seat(table: Table, user_id: int) -> int:
    """The seat ``user_id`` acts for now (``Table.person_seat``), refusing a stranger."""
    seat = table.person_seat(user_id)
    if seat is None:
        raise refuse("not_a_player", "You are not playing in this game.")
    return seat


def check_turn(game: Game, seat: int) -> None:
    """It is ``seat``'s turn (none is, once the game is over)."""
    if game.current_seat != seat:
        raise refuse("not_your_turn", "It is not your turn.", turn=game.current_seat)


def quitting_seat(table: Table, user_id: int, seat: int | None) -> int:
    """The seat a person resigns or leaves: the one they name, or the one they hold."""
    table.playing()
    held = table.held_seats(user_id)
    if not held or (seat is not None and seat not in held):
        raise refuse("not_a_player", "You are not playing in this game.")
    if seat is not None:
        return seat
    if len(held) > 1:
        raise refuse("which_seat", "You hold several seats: say which.",
                     seats=", ".join(f"{i + 1} ({table.seats[i].name})" for i in held))
    return held[0]
