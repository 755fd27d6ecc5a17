"""Sequence for Kids: cards, dead cards, Unicorns, Dragons, free corners, 4 in a row.

Fast-path moves are ints:
- ``card << 6 | space``: play ``card`` (animal, Unicorn or Dragon) on ``space``;
- ``DEAD | card``: discard a dead card and draw; the turn goes on;
- ``PASS``: only dead cards and no exchange left this turn.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce
from operator import or_
from typing import Any

from .action import Action, as_action
from .errors import IllegalAction
from .game import Game
from .kids_board import (
    ANIMAL_SPACES,
    ANIMALS,
    CARD_NUMBER,
    CARDS,
    COLOURS,
    CORNER_MASK,
    DRAGON,
    HEIGHT,
    LAYOUT,
    LINES_THROUGH,
    PLAYABLE_MASK,
    SEQUENCE_LENGTH,
    UNICORN,
    WIDTH,
    deck_for,
    hand_size_for,
)
from .observation import LastAction, Observation
from .spaces import bits, parse_space

DEAD = 1 << 12
PASS = 1 << 13
SKIP = 1 << 14  # only in ``last``: a turn lost to a timer; never a legal move
_UNICORN_BASE = UNICORN << 6
_DRAGON_BASE = DRAGON << 6
_ANIMAL_PAIRS: tuple[tuple[int, int], ...] = tuple(
    (bits(m)[0], bits(m)[1]) for m in ANIMAL_SPACES
)


def _animal_table(card: int) -> dict[int, tuple[int, ...]]:
    """For each state of an animal's two spaces (which of them are still open), its moves."""
    first, second = _ANIMAL_PAIRS[card]
    both = (1 << first) | (1 << second)
    return {
        both: (card << 6 | first, card << 6 | second),
        1 << first: (card << 6 | first,),
        1 << second: (card << 6 | second,),
        0: (),
    }


# Indexed by animal card: (its two spaces' mask, moves by which of them are open).
_ANIMAL_MOVES = tuple(
    (ANIMAL_SPACES[c], _animal_table(c)) for c in range(len(ANIMAL_SPACES))
)
# For each space, every space on a line through it: fewer than 4 of a side's chips there
# (corners included) and no sequence can have been made, so the line loop is skipped.
_NEAR = tuple(reduce(or_, through, 0) for through in LINES_THROUGH)


def _moves_for(hand: list[int], occ: int, mine: int, may_exchange: bool) -> list[int]:
    """The legal moves of a hand, given the occupied spaces and the mover's side's chips."""
    out: list[int] = []
    dead: list[int] = []
    free = ~occ
    for card in set(hand):
        if card < UNICORN:
            spaces, table = _ANIMAL_MOVES[card]
            found = table[spaces & free]
            if found:
                out += found
            else:
                dead.append(card)
        elif card == UNICORN:
            open_spaces = PLAYABLE_MASK & free
            if open_spaces:
                out += [_UNICORN_BASE | s for s in bits(open_spaces)]
            else:
                dead.append(card)
        else:
            targets = occ & ~mine
            if targets:
                out += [_DRAGON_BASE | s for s in bits(targets)]
            else:
                dead.append(card)
    if dead and may_exchange:
        out += [DEAD | c for c in dead]
    if not out:
        out.append(PASS)
    return out


class KidsGame(Game):
    game = "kids"
    width = WIDTH
    height = HEIGHT
    colours = COLOURS

    def __init__(self, seats: int, seed: int, options: dict[str, Any], deal: bool = True):
        super().__init__(seats, seed, options)
        self.level: str = options["level"]
        self.hand_size = hand_size_for(self.level)
        self.hands: list[list[int]] = [[] for _ in range(seats)]
        self.discards: list[list[int]] = [[] for _ in range(seats)]
        self.deck: list[int] = []
        self.exchanges = 0  # dead cards exchanged by the seat to move, this turn
        self.idle = 0  # forced passes in a row (the draw rule); any other turn restarts it
        if deal:
            self.deck = deck_for(self.level)
            self.rng.shuffle(self.deck)
            # One card at a time to each player, as the rules deal.
            for _ in range(self.hand_size):
                for seat in range(seats):
                    self.hands[seat].append(self.deck.pop())

    # -- fast path -----------------------------------------------------------------------

    def moves(self) -> list[int]:
        if self.winner is not None or self.draw:
            return []
        seat = self.current
        assert seat is not None
        return _moves_for(self.hands[seat], self.occupied, self.chips[self.side_of[seat]],
                          self.exchanges < self.hand_size)

    def random_playout(self, random: Callable[[], float]) -> int | None:
        """Play uniformly random legal moves to the end and return the winning side (None
        for a draw). The same choices as ``play(moves()[int(random() * len)])`` in a loop,
        with the lookups hoisted: this is the inner loop of computer players' search."""
        hands, chips, side_of = self.hands, self.chips, self.side_of
        play = self.play
        while self.winner is None and not self.draw:
            seat = self.current
            assert seat is not None
            out = _moves_for(hands[seat], self.occupied, chips[side_of[seat]],
                             self.exchanges < self.hand_size)
            play(out[int(random() * len(out))])
        return self.winner

    def play(self, move: int) -> None:
        seat = self.current
        assert seat is not None
        if move >= DEAD:
            if move == PASS:
                self.last = (seat, PASS, -1)
                self._end_turn(seat, forced_pass=True)
                return
            card = move & 63
            self.hands[seat].remove(card)
            self.discards[seat].append(card)
            self.exchanges += 1
            self._draw(seat)
            self.last = (seat, move, -1)
            return
        card, space = move >> 6, move & 63
        self.hands[seat].remove(card)
        self.discards[seat].append(card)
        bit = 1 << space
        if card == DRAGON:
            chips = self.chips
            victim = 0
            while not chips[victim] & bit:
                victim += 1
            chips[victim] ^= bit
            self.occupied ^= bit
            self.last = (seat, move, victim)
        else:
            side = self.side_of[seat]
            mine = self.chips[side] | bit
            self.chips[side] = mine
            self.occupied |= bit
            self.last = (seat, move, -1)
            # Corners count as a chip of every colour.
            mine |= CORNER_MASK
            if (mine & _NEAR[space]).bit_count() >= SEQUENCE_LENGTH:
                won = 0
                for line in LINES_THROUGH[space]:
                    if mine & line == line:
                        won |= line
                if won:
                    self.winner = side
                    self.win_line = won
                    self.end_reason = "sequence"
                    return
        # Draw (the deck is never empty between actions: it is refilled as it runs out),
        # then the next seat; inlined because this is every move of every playout.
        deck = self.deck
        self.hands[seat].append(deck.pop())
        if not deck:
            self._reshuffle()
        self.exchanges = 0
        self.idle = 0
        nxt = seat + 1
        if nxt == self.seats:
            nxt = 0
        self.current = nxt if not self.resigned[nxt] else self.next_active_seat(seat)

    def _draw(self, seat: int) -> None:
        deck = self.deck
        if not deck:
            self._reshuffle()
        if deck:
            self.hands[seat].append(deck.pop())
        if not deck:
            # When the draw deck is used up, all discard piles become a new deck.
            self._reshuffle()

    def _reshuffle(self) -> None:
        for pile in self.discards:
            self.deck.extend(pile)
            pile.clear()
        self.rng.shuffle(self.deck)

    def _end_turn(self, seat: int, forced_pass: bool) -> None:
        self.exchanges = 0
        if not forced_pass:
            # A turn lost to the timer proves nothing about the board: the round of forced
            # passes starts again (docs/RULES-MAP.md, "Decisions").
            self.idle = 0
        else:
            self.idle += 1
            # A full round in which every seat still playing had to pass: nobody can
            # move; a draw.
            if self.idle >= self.active_seat_count():
                self.draw = True
                self.end_reason = "no_moves"
                return
        nxt = seat + 1
        if nxt == self.seats:
            nxt = 0
        self.current = nxt if not self.resigned[nxt] else self.next_active_seat(seat)

    def end_turn_without_move(self, played: bool) -> None:
        seat = self.current
        assert seat is not None
        if played:
            self.last = (seat, SKIP, -1)
            self._end_turn(seat, forced_pass=False)
        else:
            self.exchanges = 0
            self.current = self.next_active_seat(seat)

    # -- text ----------------------------------------------------------------------------

    def move_text(self, move: int) -> str:
        if move == PASS:
            return "pass"
        if move == SKIP:
            return "skip"
        if move & DEAD:
            return Action.exchange(CARDS[move & 63]).text
        return Action(CARDS[move >> 6], self.space(move & 63)).text

    def hands_changed(self, entry: str, seat: int) -> frozenset[int]:
        """A card played (``lion@B3``) or exchanged (``dead:lion``) leaves the mover's
        hand and another is drawn (none after a winning card): their hand changed, even
        when the card drawn is another copy of the one that left (the player waits for the
        new hand all the same). Nothing else (a pass, a skipped turn, a seat left)
        touches a hand."""
        played = (act := as_action(entry)) is not None and (act.dead or act.space is not None)
        return frozenset((seat,)) if played else frozenset()

    def parse_move(self, action: str) -> int:
        act = self._action(action)
        seat = self.current
        assert seat is not None
        hand = self.hands[seat]
        legal = set(self.moves())
        if act.what == "pass" and act.space is None:
            if PASS in legal:
                return PASS
            raise IllegalAction("cannot_pass", "You cannot pass: you still have a card to "
                                "play or a dead card to exchange.")
        if act.dead:
            card = self._card(act.what)
            if card not in hand:
                raise IllegalAction("card_not_in_hand", f"You have no {CARDS[card]} card.",
                                    card=CARDS[card])
            if DEAD | card in legal:
                return DEAD | card
            if self.exchanges >= self.hand_size and self._is_dead(card, seat):
                raise IllegalAction("no_exchanges_left", f"You have already exchanged "
                                    f"{self.exchanges} dead cards this turn.",
                                    count=self.exchanges)
            raise IllegalAction("card_not_dead", f"The {CARDS[card]} card is not dead: it "
                                "can still be played.", card=CARDS[card])
        if act.space is None:
            raise self._malformed(action)
        card = self._card(act.what)
        space = parse_space(act.space, WIDTH, HEIGHT)
        name = self.space(space)
        if card not in hand:
            raise IllegalAction("card_not_in_hand", f"You have no {CARDS[card]} card.",
                                card=CARDS[card])
        if CORNER_MASK >> space & 1:
            raise IllegalAction("free_corner", f"{name} is a free corner: no chip is ever "
                                "placed there or taken from there.", space=name)
        bit = 1 << space
        if card == DRAGON:
            if not self.occupied & bit:
                raise IllegalAction("no_chip", f"There is no chip on {name} to remove.",
                                    space=name)
            if self.chips[self.side_of[seat]] & bit:
                whose = "your team's" if len(self.sides[self.side_of[seat]]) > 1 else "your own"
                raise IllegalAction("own_chip", f"The chip on {name} is {whose}: a Dragon "
                                    "only removes an opponent's chip.", space=name)
        else:
            if card < UNICORN and LAYOUT[space] != CARDS[card]:
                where = " and ".join(self.space(s) for s in bits(ANIMAL_SPACES[card]))
                raise IllegalAction("wrong_space", f"{name} shows a {LAYOUT[space]}, not a "
                                    f"{CARDS[card]}: the {CARDS[card]} spaces are {where}.",
                                    space=name, card=CARDS[card], picture=LAYOUT[space],
                                    where=where)
            if self.occupied & bit:
                raise IllegalAction("space_taken", f"{name} already has a chip.", space=name)
        move = card << 6 | space
        assert move in legal, (action, self.to_dict())
        return move

    @classmethod
    def _action(cls, text: str) -> Action:
        try:
            return Action.parse(text)
        except IllegalAction as exc:
            if exc.code == "malformed":
                raise cls._malformed(text) from None  # (in Kids' own words)
            raise

    @staticmethod
    def _malformed(text: str) -> IllegalAction:
        return IllegalAction("malformed", f"{str(text).strip()!r} is not a move: write a "
                             "card and a space, like lion@B3.", action=str(text).strip())

    @staticmethod
    def _card(text: str) -> int:
        name = text.strip().lower()
        if name not in CARD_NUMBER:
            raise IllegalAction("unknown_card", f"{text.strip()!r} is not a card.",
                                card=text.strip())
        return CARD_NUMBER[name]

    def _is_dead(self, card: int, seat: int) -> bool:
        occ = self.occupied
        if card < UNICORN:
            return not ANIMAL_SPACES[card] & ~occ
        if card == UNICORN:
            return not PLAYABLE_MASK & ~occ
        return not occ & ~self.chips[self.side_of[seat]]

    def dead_cards(self, seat: int) -> list[str]:
        """The cards in ``seat``'s hand that cannot be played now, in hand order."""
        return [CARDS[c] for c in self.hands[seat] if self._is_dead(c, seat)]

    # -- observation and state ------------------------------------------------------------

    def layout_labels(self) -> list[str]:
        return list(LAYOUT)

    def last_info(self) -> LastAction | None:
        info = super().last_info()
        if info is not None and self.last is not None:
            move = self.last[1]
            if move < DEAD:
                info["card"] = CARDS[move >> 6]
            elif move < PASS:
                info["card"] = CARDS[move & 63]
            else:
                info["card"] = None
        return info

    def add_observation(self, obs: Observation, seat: int | None) -> None:
        obs["level"] = self.level
        obs["hand_size"] = self.hand_size
        obs["deck_size"] = len(self.deck)
        obs["hand_sizes"] = [len(h) for h in self.hands]
        # Discard piles lie face up: everything on them has been seen by everyone.
        obs["discards"] = [[CARDS[c] for c in pile] for pile in self.discards]
        obs["discard_tops"] = [CARDS[p[-1]] if p else None for p in self.discards]
        obs["exchanges_left"] = self.hand_size - self.exchanges
        obs["idle_turns"] = self.idle
        if seat is not None:
            obs["hand"] = [CARDS[c] for c in self.hands[seat]]
            obs["dead"] = self.dead_cards(seat)

    def add_state(self, d: dict[str, Any]) -> None:
        d["hands"] = [[CARDS[c] for c in h] for h in self.hands]
        d["discards"] = [[CARDS[c] for c in p] for p in self.discards]
        d["deck"] = [CARDS[c] for c in self.deck]
        d["exchanges"] = self.exchanges
        d["idle"] = self.idle

    def load_state(self, d: dict[str, Any]) -> None:
        self.hands = [[CARD_NUMBER[c] for c in h] for h in d["hands"]]
        self.discards = [[CARD_NUMBER[c] for c in p] for p in d["discards"]]
        self.deck = [CARD_NUMBER[c] for c in d["deck"]]
        self.exchanges = d["exchanges"]
        self.idle = d["idle"]

    def copy(self) -> KidsGame:
        """A fast independent copy for search (history is shared-nothing but not kept)."""
        g = KidsGame.__new__(KidsGame)
        g.__dict__.update(self.__dict__)
        g.chips = list(self.chips)
        g.resigned = list(self.resigned)
        g.hands = [list(h) for h in self.hands]
        g.discards = [list(p) for p in self.discards]
        g.deck = list(self.deck)
        g.history = []
        g.rng = type(self.rng)(self.rng.state)
        return g


assert len(ANIMALS) == 19
