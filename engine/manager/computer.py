"""Computer players for empty seats, timed-out turns and hints.

The strong players live in ``engine.ai`` (their own issue): ``make_agent(level, seed)``
gives an object whose ``choose(observation)`` returns an action string. Until that module
exists, or if it fails, a seeded random legal move keeps every game going.
"""

from __future__ import annotations

import importlib
import logging
import random
from typing import Any, Protocol

log = logging.getLogger(__name__)


class Agent(Protocol):
    def choose(self, observation: dict[str, Any]) -> str: ...


class RandomAgent:
    """A legal move picked by a seeded generator: reproducible, never stuck."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def choose(self, observation: dict[str, Any]) -> str:
        legal: list[str] = observation["legal"]
        return self._rng.choice(legal)


def make_agent(level: str, seed: int) -> Agent:
    """The computer player of ``level``: ``engine.ai``'s if it is there, else random."""
    try:
        ai = importlib.import_module("engine.ai")
        agent: Agent = ai.make_agent(level, seed)
        return agent
    except ImportError:
        return RandomAgent(seed)
    except Exception:
        log.exception("engine.ai.make_agent(%r) failed; playing random moves", level)
        return RandomAgent(seed)


def choose(agent: Agent, observation: dict[str, Any], seed: int) -> str:
    """The agent's action, or a random legal one if it fails or answers nonsense.

    Runs in a worker thread (``asyncio.to_thread``): search may take a while.
    """
    legal: list[str] = observation["legal"]
    try:
        action = agent.choose(observation)
        if action in legal:
            return action
        log.error("computer player %s chose %r, not a legal action; playing random",
                  type(agent).__name__, action)
    except Exception:
        log.exception("computer player %s failed; playing random", type(agent).__name__)
    return random.Random(seed).choice(legal)
