"""Computer players for Sequence for Kids and Sequence Dice (pure Python, stdlib only).

``make_agent(level, seed)`` returns an ``Agent``; ``agent.choose(observation)`` returns one
of ``observation["legal"]``. Levels: "random", "easy", "medium", "hard".

(Work in progress: every level plays at random for now.)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

LEVELS = ("random", "easy", "medium", "hard")


@dataclass(frozen=True)
class Explanation:
    """Why a move is good: a reason code and JSON-safe parameters."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)


class Agent:
    """A computer player. It sees only the observation it is given."""

    def __init__(self, level: str, seed: int) -> None:
        self.level = level
        self.seed = seed

    def choose(self, observation: dict[str, Any]) -> str:
        legal = list(observation["legal"])
        if not legal:
            raise ValueError("no legal action: it is not this seat's turn")
        rng = random.Random(f"{self.seed}:{observation.get('history_length', 0)}")
        action: str = rng.choice(legal)
        return action

    def explain(self, observation: dict[str, Any], action: str) -> Explanation:
        if len(observation["legal"]) == 1:
            return Explanation("only_move")
        return Explanation("random")


def make_agent(level: str, seed: int) -> Agent:
    """A computer player of ``level`` whose choices depend only on ``seed`` and what it sees."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}")
    return Agent(level, seed)


__all__ = ["LEVELS", "Agent", "Explanation", "make_agent"]
