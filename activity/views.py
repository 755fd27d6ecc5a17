"""What one connection may see of a table, as the JSON its page draws.

The hub keeps, per table, what the manager last told (``Seen``): the table, the
spectator's view of the game, and each person seat's own view (their hand, and their legal
actions on their turn) from the events that carried it. ``view_for`` builds one viewer's
frame from that: the board and the seats for everyone; a hand only for a seat the viewer
holds (their own, or a child's seat they play for). Nobody else's hand is ever put in a
frame. The page works no rule out: what the viewer may do (the lobby's buttons, the cards
they may tap and the spaces each lights, the roll, the exchanges) is the manager's answer
(``manager.offers.offer_for``), asked of what the hub holds, and the page is handed
each move whole, by the space it is made on, as chessground is handed its ``dests``.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from typing import Any

from engine.observation import Observation
from manager import GameOver, LobbyOffer, Seat, Status, TableView, TurnOffer
from manager.offers import NOBODY, Offer, offer_for, seats_shown
from render.words import computer_name


@dataclass
class Seen:
    """What the Activity knows of one table, as the manager last told it."""

    table: TableView
    public: Observation | None = None  # the spectator's view of the game (None: a lobby)
    private: dict[int, Observation] = field(default_factory=dict)  # seat -> its own view
    ending: GameOver | None = None  # how it ended, once it did


@dataclass(frozen=True)
class Build:
    """One table's frame at one moment, in one language, as far as it is the same for
    every page of it (the board, the seats, whose turn), built once per change; each page
    then gets its own view of it (``frame_text``: its seat, its hand, what it may do)."""

    head: str  # the shared members, encoded: '"t":"table","game_id":1,...,"board":{...}'
    seats: list[dict[str, Any]]  # each seat as shown, but whether it is the viewer's


def build(seen: Seen, lang: str = "en") -> Build:
    """The part of ``seen``'s frame every page of it shows, in ``lang``."""
    table = seen.table
    public = _public(seen)
    status = Status.FINISHED if seen.ending is not None else table.status
    shared: dict[str, Any] = {
        "t": "table",
        "game_id": table.game_id,
        "game": table.game,
        "status": status,
        "ply": table.ply if public is None else int(public["history_length"]),
        "turn": None if public is None else public["turn"],
        "board": None if public is None else board_of(public, lang),
    }
    if public is not None:
        shared.update(public_extras(public))
    head = json.dumps(shared, separators=(",", ":"), ensure_ascii=False)[1:-1]
    return Build(head, seats_of(table, public, lang))


def frame_text(seen: Seen, built: Build, user_id: int) -> str:
    """One viewer's ``table`` frame, as the JSON text pushed to their page: ``built`` (the
    table's, once per change) and what is theirs."""
    table = seen.table
    public = _public(seen)
    offer = offer_for(table, user_id, _own(seen, public, user_id))
    mine: dict[str, Any] = {
        "host": table.host_id == user_id,
        "seats": [{**seat, "you": shown.yours}
                  for seat, shown in zip(built.seats, offer.seats, strict=True)],
        "me": None,
        "lobby": None,
        "over": None,
    }
    if offer.lobby is not None and seen.ending is None:
        mine["lobby"] = lobby_of(offer.lobby, offer)
    elif seen.ending is not None:
        mine["over"] = over_of(seen.ending, user_id)
    elif public is not None and table.status is Status.PLAYING:
        mine["me"] = hand_of(seen, public, offer)
    own = json.dumps(mine, separators=(",", ":"), ensure_ascii=False)
    return "{" + built.head + "," + own[1:]


def view_for(seen: Seen, user_id: int, lang: str = "en") -> dict[str, Any]:
    """The frame one viewer gets (``lang``: theirs), as a dict (tests, one page)."""
    frame: dict[str, Any] = json.loads(frame_text(seen, build(seen, lang), user_id))
    return frame


def _public(seen: Seen) -> Observation | None:
    return seen.ending.observation if seen.ending is not None else seen.public


def _own(seen: Seen, public: Observation | None, user_id: int) -> Observation | None:
    """The view of the seat this viewer plays now, if it is of the moment the table is at
    (an older one's legal actions are of a turn gone by)."""
    seat = seen.table.seat_of(user_id)
    own = seen.private.get(seat) if seat is not None else None
    if own is None or public is None or own["history_length"] != public["history_length"]:
        return None
    return own


def seats_of(table: TableView, public: Observation | None, lang: str
             ) -> list[dict[str, Any]]:
    """Each seat as the page shows it: a name (a computer's in the viewer's language, as
    the chat names it), a face (a computer, a child, or a person's initial on their own
    colour), its chip colour once the game has begun, whose turn (whether it is the
    viewer's own is each page's: ``frame_text``)."""
    out = []
    for seat, shown in zip(table.seats, seats_shown(table, NOBODY), strict=True):
        colour = None
        if public is not None and seat.index < len(public["side_of_seat"]):
            colour = public["colours"][public["side_of_seat"][seat.index]]
        name = (computer_name(shown.level, shown.number, lang) if shown.kind == "computer"
                else shown.name)
        out.append({
            "seat": seat.index,
            "name": name,
            "kind": shown.kind,
            "guardian": shown.guardian,
            "initial": (name.strip()[:1] or "?").upper(),
            "hue": face_hue(seat),
            "colour": colour,
            "to_move": public is not None and public["turn"] == seat.index,
            "gone": shown.gone,
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


def hand_of(seen: Seen, public: Observation, offer: Offer) -> dict[str, Any] | None:
    """The seat this viewer plays now, with its hand and (on its turn) its moves: None for
    a spectator. A grown-up holding children's seats plays the one to move."""
    seat = offer.acts_for
    if seat is None:
        return None
    own = seen.private.get(seat)
    playing = seen.table.seats[seat]
    moves = offer.moves if not public["is_over"] else None
    me: dict[str, Any] = {
        "seat": seat,
        "name": playing.name,
        "child": playing.is_child,
        "colour": public["colours"][public["side_of_seat"][seat]],
        "legal": [a.text for a in moves.actions] if moves is not None else [],
        "moves": moves_of(moves),
    }
    if public["game"] == "kids":
        me["hand"] = list(own.get("hand") or []) if own is not None else []
        me["dead"] = list(own.get("dead") or []) if own is not None else []
        me["exchanges_left"] = own.get("exchanges_left") if own is not None else None
    return me


def moves_of(moves: TurnOffer | None) -> dict[str, Any] | None:
    """A turn's moves as the page is handed them: the roll to make, and for each first tap
    (a card, or ``roll`` for the spaces of the roll made) the move each space makes and
    the spaces where it takes a chip away; the dead cards' exchanges, by card."""
    if moves is None:
        return None
    return {
        "roll": moves.roll.text if moves.roll is not None else None,
        "groups": {g.first: {"spaces": {space: a.text for space, a in g.spaces.items()},
                             "takes": list(g.takes)} for g in moves.groups},
        "exchange": {a.what: a.text for a in moves.exchanges},
    }


def lobby_of(lobby: LobbyOffer, offer: Offer) -> dict[str, Any]:
    """What the viewer may do in a lobby, as the manager says (``LobbyOffer``)."""
    return {
        "seated": offer.acts_for is not None,
        "join": lobby.join,
        "add_computer": bool(lobby.add_computer),
        "start": lobby.start,
        "leave": lobby.leave,
        "cancel": lobby.cancel,
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
