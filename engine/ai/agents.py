"""The computer players, one class per level.

Every choice is a pure function of the agent's seed and the observation (plus the search
budget): the random numbers for one move are seeded from both, so the same agent asked
twice about the same position answers the same, whatever it was asked in between. Only a
time cap that cuts a search short can change an answer; tests set ``time_limit=None``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import time
from typing import Any

from ..dice import DiceGame
from ..kids import KidsGame
from . import dice_policy, kids_policy
from .determinize import rebuild
from .explain import Explanation, explain
from .kids_search import Finish, play_out, search

log = logging.getLogger(__name__)

DEFAULT_ITERATIONS = 900  # hard Kids: playouts per move (the time cap still applies)
DEFAULT_TIME_LIMIT = 0.3  # seconds per move, a cap on top of the iteration budget


def _digest(obs: dict[str, Any]) -> int:
    text = json.dumps(obs, sort_keys=True, separators=(",", ":"), default=str)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


class Agent:
    """A computer player. It sees only the observation it is given."""

    level = "random"

    def __init__(self, seed: int) -> None:
        self.seed = seed
        # Figures of the last ``choose`` (for benchmarks and logs).
        self.last_iterations = 0
        self.last_seconds = 0.0

    def rng_for(self, obs: dict[str, Any]) -> random.Random:
        return random.Random(self.seed * 0x9E3779B1 ^ _digest(obs))

    def choose(self, observation: dict[str, Any]) -> str:
        """One of ``observation["legal"]``."""
        legal = observation.get("legal") or []
        if not legal:
            raise ValueError("no legal action: it is not this seat's turn")
        started = time.perf_counter()
        self.last_iterations = 0
        if len(legal) == 1:
            action: str = legal[0]
        else:
            action = self.pick(observation, self.rng_for(observation))
        self.last_seconds = time.perf_counter() - started
        if action not in legal:  # a bug, never the player's fault: fall back to a legal move
            log.error("%s player chose %r, not legal; playing %r", self.level, action, legal[0])
            action = legal[0]
        return action

    def pick(self, obs: dict[str, Any], rng: random.Random) -> str:
        choice: str = rng.choice(obs["legal"])
        return choice

    def explain(self, observation: dict[str, Any], action: str) -> Explanation:
        """Why ``action`` is a good move here: a reason code with parameters."""
        return explain(observation, action)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} seed={self.seed}>"


class RandomAgent(Agent):
    """Any legal move, uniformly: a yardstick for tests and the tournament."""

    level = "random"


class EasyAgent(Agent):
    """Plays like a young child: in Kids it puts its chips next to its own and usually sees
    a win (``kids_policy.child_move``); in Dice it goes for its own rows and now and then
    just puts a chip anywhere."""

    level = "easy"
    WHIM = 0.4  # Dice: how often it plays any move at all

    def pick(self, obs: dict[str, Any], rng: random.Random) -> str:
        game = rebuild(obs, rng)
        if isinstance(game, KidsGame):
            return game.move_text(kids_policy.child_move(game, rng))
        assert isinstance(game, DiceGame)
        moves = game.moves()
        if rng.random() < self.WHIM:
            return game.move_text(rng.choice(moves))
        return game.move_text(dice_policy.attack_move(game, rng))


class MediumAgent(Agent):
    """Greedy: completes its lines, blocks the others', uses Dragons and 10s on the most
    dangerous chip, keeps Unicorns for when they matter, exchanges dead cards."""

    level = "medium"

    def pick(self, obs: dict[str, Any], rng: random.Random) -> str:
        game = rebuild(obs, rng)
        if isinstance(game, KidsGame):
            moves = game.moves()
            scores = kids_policy.score_moves(game, moves)
            # Small noise only breaks near-ties, so two medium players do not mirror.
            best = max(moves, key=lambda m: (scores[m] + rng.random() * 0.01, -m))
            return game.move_text(best)
        assert isinstance(game, DiceGame)
        return game.move_text(dice_policy.greedy_move(game))


class HardAgent(Agent):
    """Searches: determinized Monte Carlo search in Kids, expectimax over rolls in Dice."""

    level = "hard"

    def __init__(self, seed: int, iterations: int = DEFAULT_ITERATIONS,
                 time_limit: float | None = DEFAULT_TIME_LIMIT) -> None:
        super().__init__(seed)
        self.iterations = iterations
        self.time_limit = time_limit

    def pick(self, obs: dict[str, Any], rng: random.Random) -> str:
        game = rebuild(obs, rng)
        if isinstance(game, KidsGame):
            result = search(game, rng, self.iterations, self.time_limit)
            self.last_iterations = result.iterations
            return game.move_text(result.move)
        assert isinstance(game, DiceGame)
        found = dice_policy.expectimax(game, self.time_limit)
        self.last_iterations = found.evaluations
        return game.move_text(found.move)


class OracleAgent(HardAgent):
    """The hard search allowed to see hidden cards. Not a fair player: only the tournament
    uses it, to show how much of Kids is luck. ``sees="all"``: every other hand and the
    order of the deck (so its own next draws too); ``sees="hands"``: the other hands, but
    not the deck order (it knows more than any fair player, and can plan no better on
    what will be drawn). It needs the real game, given through ``peek``. ``finish``: how
    its playouts go on after each candidate move (``kids_search.search``)."""

    level = "oracle"

    def __init__(self, seed: int, iterations: int = DEFAULT_ITERATIONS,
                 time_limit: float | None = DEFAULT_TIME_LIMIT, sees: str = "all",
                 finish: Finish = play_out) -> None:
        super().__init__(seed, iterations, time_limit)
        self.sees = sees
        self.finish = finish
        self.game: KidsGame | DiceGame | None = None

    def peek(self, game: KidsGame | DiceGame) -> None:
        self.game = game

    def pick(self, obs: dict[str, Any], rng: random.Random) -> str:
        if not isinstance(self.game, KidsGame):
            return super().pick(obs, rng)
        truth = self.game.copy()
        truth.rng = type(truth.rng)(rng.getrandbits(64))  # future shuffles stay unknown
        result = search(truth, rng, self.iterations, self.time_limit, sees=self.sees,
                        finish=self.finish)
        self.last_iterations = result.iterations
        return truth.move_text(result.move)
