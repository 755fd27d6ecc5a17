"""A move as a value: one parse and one format, that round-trip.

As python-chess has ``Move.from_uci("g1f3")`` and ``move.uci()``, every place that builds
or reads an action's text goes through ``Action``: the slash commands' options, the
buttons' custom ids, the page's messages, the log and the database all carry
``str(action)``, and nothing else splits it.

    >>> Action.parse("lion@B3")
    Action('lion', 'B3')
    >>> Action.parse(" Unicorn@c4 ").text
    'unicorn@C4'
    >>> Action.parse("dead:lion")
    Action.exchange('lion')
    >>> str(Action("remove", "E2")), Action.parse("roll").space
    ('remove@E2', None)

What is tapped first is ``first``: the card (Kids), or ``roll`` (Dice); then ``space``,
where it goes, if anywhere. A text that is not an action raises
``IllegalAction`` with a stable code (``malformed``, ``unknown_card``, ``bad_space``): only
its form is checked here; whether it may be played now is the game's to say
(``Game.apply``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import IllegalAction

MAX_TEXT = 40  # no action's text is longer ("alligator@A10" is 13)
_WORD = re.compile(r"[a-z]{2,12}")  # a card, a Dice verb
_SPACE = re.compile(r"[A-Z][1-9][0-9]?")  # column letter, row number: A1 top left
#: what, played on a space, takes a chip away instead of placing one
TAKES = frozenset({"dragon", "remove"})
#: Dice's moves on a space: all of one roll's are offered together, after the roll
DICE_VERBS = frozenset({"place", "replace", "remove"})
#: actions with no space and no card (the engine's own history also holds its entries,
#: such as a resignation, which are not actions a player chooses)
BARE = frozenset({"roll", "pass", "skip"})
#: texts already read, and what they stand for (an action is a frozen value: one may be
#: handed to every caller). A move's buttons, choices and checks read the same few texts
#: again and again, about 25 times a move; bounded, as a page may send any text it likes
_READ: dict[str, Action] = {}
_READ_MOST = 4096


@dataclass(frozen=True, slots=True)
class Action:
    """One move: ``what`` (a Kids card: ``lion``, ``unicorn``, ``dragon``; Dice's
    ``place``, ``replace``, ``remove``; or ``roll``, ``pass``), the ``space`` it goes to
    (``B3``) if any, and whether it is the exchange of a ``dead`` card (Kids: ``what`` is
    the card)."""

    what: str
    space: str | None = None
    dead: bool = False

    @classmethod
    def parse(cls, text: str) -> Action:
        """The action a text stands for (any case, spaces around). ``IllegalAction`` with
        the code of what is wrong with it: ``malformed`` (no action's form),
        ``unknown_card`` (what is played is no word: ``tiger-king@B3``), ``bad_space``
        (where is no space like B3: ``lion@33``)."""
        if not isinstance(text, str):
            raise _malformed("")
        read = _READ.get(text)
        if read is None:
            read = cls._read(text)
            if len(_READ) < _READ_MOST:
                _READ[text] = read
        return read

    @classmethod
    def _read(cls, text: str) -> Action:
        cleaned = text.strip()
        word = cleaned.lower()
        if not cleaned or len(cleaned) > MAX_TEXT:
            raise _malformed(cleaned[:MAX_TEXT])
        if word in BARE:
            return cls(word)
        if word.startswith("dead:"):
            card = word[5:].strip()
            if not _WORD.fullmatch(card):
                raise _not_a_card(cleaned[5:].strip())
            return cls(card, None, dead=True)
        if cleaned.count("@") != 1:
            raise _malformed(cleaned)
        head, _, tail = cleaned.partition("@")
        what, space = head.strip().lower(), tail.strip().upper()
        if not _WORD.fullmatch(what):
            raise _not_a_card(head.strip())
        if not _SPACE.fullmatch(space):
            raise IllegalAction("bad_space", f"{tail.strip()!r} is not a space like B3.",
                                space=tail.strip())
        return cls(what, space)

    @classmethod
    def exchange(cls, card: str) -> Action:
        """The exchange of a dead ``card`` (Kids)."""
        return cls(card, None, dead=True)

    @property
    def text(self) -> str:
        """The one text form (``parse`` reads it back to this same action)."""
        if self.dead:
            return f"dead:{self.what}"
        return self.what if self.space is None else f"{self.what}@{self.space}"

    @property
    def first(self) -> str:
        """What is tapped first to make it: the card (played or exchanged), or ``roll``
        (Dice: the roll is made first, then any space it allows is tapped)."""
        return "roll" if self.what in DICE_VERBS else self.what

    @property
    def takes(self) -> bool:
        """Whether it takes a chip off ``space`` (a Dragon, Dice's remove) rather than
        placing one."""
        return self.what in TAKES

    @property
    def places(self) -> str | None:
        """The space a chip is placed on by it, if one is."""
        return None if self.takes else self.space

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        if self.dead:
            return f"Action.exchange({self.what!r})"
        if self.space is None:
            return f"Action({self.what!r})"
        return f"Action({self.what!r}, {self.space!r})"


def as_action(text: str) -> Action | None:
    """The action ``text`` stands for, or None for an entry of a game's history that is
    not one (a seat resigned: ``resign:1``)."""
    try:
        return Action.parse(text)
    except IllegalAction:
        return None


def offered_with(action: Action, legal: list[Action]) -> list[Action]:
    """The moves offered together with ``action`` (its group in ``grouped``), in
    ``legal``'s order; a move on no space (a dead card's exchange) stands alone."""
    if action.space is None:
        return [a for a in legal if a == action]
    return [a for a in legal if a.space is not None and a.first == action.first]


def grouped(legal: list[Action]) -> list[tuple[str, list[Action]]]:
    """The moves on a space, grouped by what is tapped first (``Action.first``), in
    ``legal``'s order: Kids, by card (tap the card, then one of its spaces); Dice, all of
    one roll's under ``roll`` (every space the roll allows is offered at once)."""
    groups: dict[str, list[Action]] = {}
    for action in legal:
        if action.space is not None:
            groups.setdefault(action.first, []).append(action)
    return list(groups.items())


def parsed(texts: list[str]) -> list[Action]:
    """Each of ``texts`` (the engine's legal actions) as an ``Action``."""
    return [Action.parse(text) for text in texts]


def _not_a_card(text: str) -> IllegalAction:
    return IllegalAction("unknown_card", f"{text!r} is not a card.", card=text)


def _malformed(text: str) -> IllegalAction:
    return IllegalAction("malformed", f"{text!r} is not a move: write a card and a space "
                         "(lion@B3), dead:lion, roll, place@B3 or pass.", action=text)


__all__ = ["MAX_TEXT", "TAKES", "Action", "as_action", "parsed"]
