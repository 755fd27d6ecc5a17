"""Computer players at the table: empty seats, timed-out turns, and hints.

The players themselves are ``engine.ai``'s (``make_agent(level, seed)``, the ``Agent``
class). What the manager adds is one safety net, here and nowhere else: a player that
fails or answers an illegal action is replaced, for that move, by a seeded random legal
move, so a bug in a computer player never stops a game.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from typing import Any, cast

from ..ai import Agent, Explanation, make_agent
from ..observation import Observation

log = logging.getLogger(__name__)

HINT_LEVEL = "medium"  # the greedy player: it wins, blocks and builds, and says why


@dataclass(frozen=True)
class Hint:
    """The move suggested to a player, why, and the position it was suggested for (the
    observation of the asking seat, with ``legal``), to draw it."""

    action: str
    why: Explanation
    observation: Observation


def choose(agent: Agent, observation: Observation, seed: int) -> str:
    """The agent's action, or a random legal one if it fails or answers nonsense.

    Runs in a worker thread (``asyncio.to_thread``): search may take a while.
    """
    legal: list[str] = observation["legal"]
    try:
        action = agent.choose(_plain(observation))
        if action in legal:
            return action
        log.error("computer player %s chose %r, not a legal action; playing random",
                  type(agent).__name__, action)
    except Exception:
        log.exception("computer player %s failed; playing random", type(agent).__name__)
    return random.Random(seed).choice(legal)


def suggest(observation: Observation, seed: int) -> Hint:
    """The hint player's move for the seat to move in ``observation``, and its reason.

    Runs in a worker thread. The reason is the engine's explanation of the move actually
    suggested (after the safety net), so it never explains a move that is not shown."""
    agent = make_agent(HINT_LEVEL, seed)
    action = choose(agent, observation, seed)
    try:
        why = agent.explain(_plain(observation), action)
    except Exception:
        log.exception("no explanation for the hint %r", action)
        why = Explanation("good_move")
    return Hint(action, why, observation)


def _plain(observation: Observation) -> dict[str, Any]:
    """``engine.ai`` types observations as plain dicts; at run time they are one (the same
    object is passed, not a copy)."""
    return cast("dict[str, Any]", observation)


__all__ = ["HINT_LEVEL", "Agent", "Hint", "choose", "make_agent", "suggest"]
