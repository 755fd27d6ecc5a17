"""What one connection may see of a table, as the JSON its page draws.

The hub keeps, per table, what the manager last told (``Seen``): the table, the
spectator's view of the game, and each person seat's own view (their hand, and their legal
actions on their turn) from the events that carried it. ``view_for`` builds one viewer's
frame from that: the board and the seats for everyone; a hand only for a seat the viewer
holds (their own, or a child's seat they play for). Nobody else's hand is ever put in a
frame, and the page never works the rules out itself: the spaces that glow are the legal
actions the engine gave that seat.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

from engine.manager import GameOver, Seat, Status, TableView
from engine.observation import Observation

MAX_SEATS = 4


@dataclass
class Seen:
    """What the Activity knows of one table, as the manager last told it."""

    table: TableView
    public: Observation | None = None  # the spectator's view of the game (None: a lobby)
    private: dict[int, Observation] = field(default_factory=dict)  # seat -> its own view
    ending: GameOver | None = None  # how it ended, once it did


def view_for(seen: Seen, user_id: int, lang: str = "en") -> dict[str, Any]:
    """The frame one viewer gets (``lang``: theirs): a ``table`` frame."""
    table = seen.table
    public = seen.ending.observation if seen.ending is not None else seen.public
    status = Status.FINISHED if seen.ending is not None else table.status
    frame: dict[str, Any] = {
        "t": "table",
        "game_id": table.game_id,
        "game": table.game,
        "status": status,
        "ply": table.ply if public is None else int(public["history_length"]),
        "host": table.host_id == user_id,
        "seats": seats_of(table, public, user_id),
        "turn": None if public is None else public["turn"],
        "board": None if public is None else board_of(public, lang),
        "me": None,
        "lobby": None,
        "over": None,
    }
    if public is not None:
        frame.update(public_extras(public))
    if table.status is Status.LOBBY and seen.ending is None:
        frame["lobby"] = lobby_of(table, user_id)
    elif seen.ending is not None:
        frame["over"] = over_of(seen.ending, user_id)
    elif public is not None and table.status is Status.PLAYING:
        frame["me"] = hand_of(seen, public, user_id)
    return frame


def seats_of(table: TableView, public: Observation | None, user_id: int
             ) -> list[dict[str, Any]]:
    """Each seat as the page shows it: a name, a face (a computer, a child, or a person's
    initial on their own colour), its chip colour once the game has begun, whose turn."""
    out = []
    for seat in table.seats:
        colour = None
        if public is not None and seat.index < len(public["side_of_seat"]):
            colour = public["colours"][public["side_of_seat"][seat.index]]
        out.append({
            "seat": seat.index,
            "name": seat.name,
            "kind": "computer" if seat.is_computer else "child" if seat.is_child
            else "person",
            "guardian": seat.guardian,
            "initial": (seat.name.strip()[:1] or "?").upper(),
            "hue": face_hue(seat),
            "colour": colour,
            "you": seat.plays_for(user_id),
            "to_move": public is not None and public["turn"] == seat.index,
            "gone": seat.left or seat.resigned,
        })
    return out


def face_hue(seat: Seat) -> int:
    """A steady hue for a person's face (the same person, the same colour, every game)."""
    key = f"{seat.user_id}:{seat.name}" if seat.is_child else str(seat.user_id or seat.name)
    return zlib.crc32(key.encode()) % 360


def board_of(public: Observation, lang: str) -> dict[str, Any]:
    """The board: its pictures, the chips (by side), the last move, the winning line."""
    last = public["last"]
    return {
        "width": public["width"],
        "height": public["height"],
        "layout": public["layout"],
        "pictures": space_pictures(public, lang),
        "chips": public["board"],
        "colours": public["colours"],
        "placed": last["placed"] if last else None,
        "removed": last["removed"] if last else None,
        "removed_side": last["removed_side"] if last else None,
        "line": public["winning_line"],
    }


def public_extras(public: Observation) -> dict[str, Any]:
    """What everyone sees beside the board: Kids' deck, Dice's roll."""
    extras: dict[str, Any] = {}
    if public["game"] == "kids":
        extras["deck"] = public.get("deck_size")
        extras["hand_sizes"] = public.get("hand_sizes")
    else:
        extras["dice"] = public.get("dice")
        extras["last_roll"] = public.get("last_roll")
    return extras


def hand_of(seen: Seen, public: Observation, user_id: int) -> dict[str, Any] | None:
    """The seat this viewer plays now, with its hand and (on its turn) its legal actions:
    None for a spectator. A grown-up holding children's seats plays the one to move."""
    table = seen.table
    seat = table.seat_of(user_id)
    if seat is None:
        return None
    own = seen.private.get(seat)
    playing = table.seats[seat]
    fresh = (own is not None and own["history_length"] == public["history_length"]
             and public["turn"] == seat and not public["is_over"])
    me: dict[str, Any] = {
        "seat": seat,
        "name": playing.name,
        "child": playing.is_child,
        "colour": public["colours"][public["side_of_seat"][seat]],
        "legal": list(own["legal"]) if fresh and own is not None else [],
    }
    if public["game"] == "kids":
        me["hand"] = list(own.get("hand") or []) if own is not None else []
        me["dead"] = list(own.get("dead") or []) if own is not None else []
        me["exchanges_left"] = own.get("exchanges_left") if own is not None else None
    return me


def lobby_of(table: TableView, user_id: int) -> dict[str, Any]:
    """What the viewer can do in a lobby: sit down, add a computer, start (the host)."""
    seated = any(s.user_id == user_id and not s.is_child for s in table.seats)
    room = len(table.seats) < MAX_SEATS
    return {
        "seated": seated,
        "can_join": not seated and room,
        "can_add_computer": seated and room,
        "can_start": user_id == table.host_id and len(table.seats) >= 2,
    }


def over_of(ending: GameOver, user_id: int) -> dict[str, Any]:
    """How it ended: the winning seats (none: a draw, or stopped), and whether this viewer
    sat at the table (a Rematch is theirs to ask for)."""
    return {
        "winners": list(ending.winning_seats),
        "draw": ending.draw,
        "reason": ending.reason,
        "played": any(s.user_id == user_id for s in ending.table.seats),
    }


def space_pictures(public: Observation, lang: str) -> dict[str, str]:
    """Where each picture of the board's spaces is (``looks.py``'s paths). Only a free
    corner has a word on it: every other space has one picture in both languages, so a
    page's preloads (made before anyone logged in) are the pictures it draws."""
    game = public["game"]
    return {p: f"/looks/space/{lang if p == 'free' else 'en'}/{game}/{p}.png"
            for p in dict.fromkeys(public["layout"])}


def picture_paths(public: Observation, lang: str) -> list[str]:
    """The looks a board is drawn with: each space's picture once, each side's chip."""
    return [*space_pictures(public, lang).values(),
            *(f"/looks/chip/{c}.png" for c in public["colours"])]


def no_table(channel_id: int) -> dict[str, Any]:
    """The frame of a channel with no lobby and no game: the page offers to open one."""
    return {"t": "none", "channel_id": str(channel_id)}
