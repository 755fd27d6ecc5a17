"""Computer players for Sequence for Kids and Sequence Dice (pure Python, stdlib only).

    agent = make_agent("hard", seed=7)
    action = agent.choose(game.observation(seat))   # one of observation["legal"]
    why = agent.explain(observation, action)        # Explanation(code, params)

Levels
------
- ``random``: any legal move (a yardstick for tests and the tournament).
- ``easy``: plays like a young child: mostly builds its own rows, sometimes plays any
  move, rarely defends, may miss a win (25%).
- ``medium``: greedy: wins when it can, blocks the others' lines, spends a Dragon or a 10
  on the most dangerous chip, keeps Unicorns for when they matter, exchanges dead cards.
- ``hard``: searches. Kids: determinized Monte Carlo search (each deal re-deals the cards
  it cannot see, consistently with its observation; its best few moves are compared on
  the same deals by playouts of quick sensible moves, by sequential halving). Dice:
  expectimax over the next player's 21 distinct rolls with a greedy reply. Budget:
  ``iterations`` playouts (Kids) with a ``time_limit`` cap (default 0.3 s per move).

Agents see only the observation. Choices are deterministic for a seed and an iteration
budget (the random numbers of a move are seeded from the seed and the observation); only
a time cap that cuts a search short can change them (pass ``time_limit=None`` to rule that
out). Agents keep no state between moves, so one agent may serve several seats and
threads.

Explanations (``Agent.explain`` / ``explain``)
----------------------------------------------
``Explanation(code, params)``; params are JSON-safe. Colours are the engine's colour ids
("red", "blue", "green", "yellow"); spaces are names like "B3"; cards are card ids.
Kids placements add ``card`` and ``space``; Dice placements add ``space``, ``total`` and
``extra_roll`` (a 2 or a 12 rolls again).

A count is called "in a row" (``*_row``, ``extends_line``, ``removes_threat``...) only
when those spaces touch; spread over a line with gaps it is "N of the line's ``size``
spaces" (issue 16: A5 B5 _ D5 _ F5 is not "a row 4 long").

=====================  ==========================================  =========================
code                   meaning                                     params
=====================  ==========================================  =========================
completes_sequence     this chip wins the game                     line (spaces), uses_corner
blocks_line            takes the space where another colour would  colour, length (size - 1)
                       win with one more chip
blocks_row             takes a space of a line where another       colour, length (their
                       colour has ``length`` in a row              chips), size
blocks_spread          the same, their chips with gaps between     colour, length, size
removes_threat         Dragon / 10: takes off a chip of a row of   colour, length, space
                       ``length`` in a row
removes_from_line      the same, the line's chips with gaps        colour, length, size, space
removes_chip           takes off a chip in no line of 2 or more    colour, length, space
wild_for_line          Unicorn / 11 giving ``length`` (3+) in a    length, uses_corner (Kids)
                       row
extends_line           a card or number giving ``length`` (3+) in  length, uses_corner (Kids)
                       a row
fills_line             ``length`` (2+) of a line's ``size``        length, size, uses_corner
                       spaces, with gaps                           (Kids)
joins_chip             a second chip right next to one's own       length (2), next_to
starts_at_corner       a first chip next to a free corner (Kids)   length (2), uses_corner
starts_line            a first chip where a row can still grow     length (1)
fills_space            no line of one's own can grow through it    length (0)
exchanges_dead_card    swaps a card that fits nowhere              card
only_move              nothing else is allowed                     action
no_playable_card       Kids: every card is dead: the turn passes   (none)
no_move_for_roll       Dice: the roll allows nothing: turn passes  total
roll_dice              Dice: roll first                            (none)
=====================  ==========================================  =========================

Dice ``place``/``replace`` moves that take an opponent's chip off add ``replaces`` (colour).
``length`` counts the free corners in Kids (a corner is everyone's chip).
"""

from __future__ import annotations

from .agents import (
    DEFAULT_ITERATIONS,
    DEFAULT_TIME_LIMIT,
    Agent,
    EasyAgent,
    HardAgent,
    MediumAgent,
    OracleAgent,
    RandomAgent,
)
from .explain import Explanation, explain

LEVELS = ("random", "easy", "medium", "hard")


def make_agent(level: str, seed: int, *, iterations: int | None = None,
               time_limit: float | None = DEFAULT_TIME_LIMIT) -> Agent:
    """A computer player of ``level`` whose choices depend only on ``seed``, the budget and
    what it sees. ``iterations`` and ``time_limit`` (seconds, ``None``: no cap) set the
    hard player's budget; other levels ignore them."""
    level = str(level).strip().lower()
    if level == "hard":
        return HardAgent(seed, iterations or DEFAULT_ITERATIONS, time_limit)
    if level == "medium":
        return MediumAgent(seed)
    if level == "easy":
        return EasyAgent(seed)
    if level == "random":
        return RandomAgent(seed)
    raise ValueError(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}")


__all__ = [
    "DEFAULT_ITERATIONS",
    "DEFAULT_TIME_LIMIT",
    "LEVELS",
    "Agent",
    "EasyAgent",
    "Explanation",
    "HardAgent",
    "MediumAgent",
    "OracleAgent",
    "RandomAgent",
    "explain",
    "make_agent",
]
