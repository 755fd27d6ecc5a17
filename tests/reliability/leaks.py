"""The leak check: no hand and no deck order reaches anyone but its owner.

It reads everything the recording fake Discord received (every version of every message:
text, embeds, component labels and custom_ids, file names, alt text, file bytes) and the
bot's log, and compares it with the secrets the database implies: each Kids seat's hand at
every ply, and the deck order, from replaying each game's log with the engine.

What counts as a leak:
- a hand written out the way the bot writes a hand (card names in hand order, joined by
  ", ", in English or Norwegian, or the card ids) in anything its owner is not alone to see;
- card buttons (``seq:card:``) anywhere but in their owner's DM or ephemeral reply, or
  showing cards that are not the reader's own hand;
- a ``hand.png`` in a public message (one sent to the wrong person carries the wrong
  hand in its alt text, which the first rule catches);
- a deck order (three cards in deck order, as JSON) or a ``"hands"``/``"deck"`` key
  anywhere at all, logs included;
- the bot's token in the log.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from engine.game import Game

from .harness import RecordingDiscord
from .truth import GameTruth, read_games

LOCALES = Path(__file__).resolve().parents[2] / "data" / "locales"


def card_names() -> dict[str, dict[str, str]]:
    """Card id -> name, per language (from the bot's own locale files)."""
    out: dict[str, dict[str, str]] = {}
    for path in LOCALES.glob("*.json"):
        data = json.loads(path.read_text())
        out[path.stem] = {k[5:]: v for k, v in data.items() if k.startswith("card.")}
    return out


@dataclass
class Secrets:
    """What only one person (or nobody) may see, for every game in a database."""

    hand_texts: dict[str, set[int]] = field(default_factory=dict)  # text -> owners
    hands: dict[tuple[int, int], set[frozenset[str]]] = field(default_factory=dict)
    deck_fragments: set[str] = field(default_factory=set)


def _history_states(game: GameTruth) -> list[Game]:
    """The game after each ply (0..n), replayed from its seed."""
    states = []
    for n in range(len(game.actions) + 1):
        states.append(GameTruth(**{**game.__dict__, "actions": game.actions[:n]}).replayed())
    return states


def secrets_of(games: dict[int, GameTruth]) -> Secrets:
    names = card_names()
    out = Secrets()
    for game in games.values():
        if game.kind != "kids" or game.seed is None:
            continue
        for state in _history_states(game):
            snapshot = state.to_dict()
            deck = snapshot.get("deck") or []
            for i in range(max(0, len(deck) - 2)):
                out.deck_fragments.add(json.dumps(deck[i:i + 3])[1:-1])
            for seat in game.seats:
                if seat.user_id is None:
                    continue
                hand = list(snapshot["hands"][seat.seat])
                out.hands.setdefault((game.id, seat.user_id), set()).add(frozenset(hand))
                if len(hand) < 3:
                    continue  # too short to tell from other text ("X played Lion")
                texts = [", ".join(hand)] + [", ".join(n.get(c, c) for c in hand)
                                             for n in names.values()]
                for text in texts:
                    out.hand_texts.setdefault(text, set()).add(seat.user_id)
    return out


def find_leaks(fake: RecordingDiscord, database: Path, log_text: str = "",
               token: str | None = None) -> list[str]:
    """Every leak found (empty: none), each described in a sentence."""
    return leaks_in(fake, read_games(database), log_text, token)


def leaks_in(fake: RecordingDiscord, games: dict[int, GameTruth], log_text: str = "",
             token: str | None = None) -> list[str]:
    """``find_leaks`` for games read from any store (a PostgreSQL run reads its own)."""
    secret = secrets_of(games)
    leaks: list[str] = []
    for seen in fake.seen:
        who = "everyone" if seen.audience is None else f"user {seen.audience}"
        for text, owners in secret.hand_texts.items():
            if text in seen.text and seen.audience not in owners:
                leaks.append(f"message {seen.message_id} shows the hand {text!r} to {who}")
        for fragment in secret.deck_fragments:
            if fragment in seen.text:
                leaks.append(f"message {seen.message_id} shows a deck order to {who}")
        for key in ('"hands"', '"deck"'):
            if key in seen.text:
                leaks.append(f"message {seen.message_id} shows game state {key} to {who}")
        cards: dict[int, set[str]] = {}
        for custom_id in seen.custom_ids:
            if custom_id.startswith("seq:card:"):
                # seq:card:<game>:<seat>:<card> (hands drawn before family seats: no seat)
                parts = custom_id.split(":")
                cards.setdefault(int(parts[2]), set()).add(parts[-1])
        for gid, shown in cards.items():
            if seen.audience is None:
                leaks.append(f"message {seen.message_id} shows card buttons to everyone")
            elif not any(shown == set(h) for h in secret.hands.get((gid, seen.audience), ())):
                leaks.append(f"message {seen.message_id} shows {who} cards {sorted(shown)} "
                             f"that were never their hand in game {gid}")
        if seen.audience is None and "hand.png" in seen.filenames:
            # (a hand picture sent to the wrong person is caught by its alt text, the hand)
            leaks.append(f"message {seen.message_id} shows a hand picture to everyone")
    for text in secret.hand_texts:
        if text in log_text:
            leaks.append(f"the log shows the hand {text!r}")
    for fragment in secret.deck_fragments:
        if fragment in log_text:
            leaks.append("the log shows a deck order")
    if token and token in log_text:
        leaks.append("the log shows the bot's token")
    return leaks
