"""Fixtures for the manager tests: a real database (each test runs twice: on a SQLite file
in tmp_path and on a fresh PostgreSQL database of the session's throwaway server), a clock
we move by hand, and computer players that pick seeded random legal moves (fast, and
independent of how strong engine.ai becomes)."""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from engine.ai import RandomAgent
from manager import GameManager, ManualClock, Player, Store
from manager.events import Event
from store.postgres import PostgresDatabase

ANN = Player(1, "Ann")
BOB = Player(2, "Bob")
CAT = Player(3, "Cat")
DAN = Player(4, "Dan")
EVE = Player(5, "Eve")
GUILD = 500
CHANNEL = 900


def random_agent(level: str, seed: int) -> RandomAgent:
    return RandomAgent(seed)


class Recorder:
    """A listener that keeps every event."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    async def on_event(self, event: Event) -> None:
        self.events.append(event)

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


def seeds(start: int = 1) -> Callable[[], int]:
    counter = itertools.count(start)
    return lambda: next(counter)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "sequence.sqlite3"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


OpenStore = Callable[..., Awaitable[Store]]


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    """Which database the test runs on: every store and manager test runs on both."""
    return str(request.param)


@pytest.fixture
def open_store(backend: str, db_path: Path, request: pytest.FixtureRequest) -> OpenStore:
    """Opens the test's one database (again, after a "restart"): ``await open_store()``."""
    if backend == "sqlite":
        return lambda **kw: Store.open(db_path, **kw)
    url: str = request.getfixturevalue("postgres_url")
    return lambda **kw: Store.connect(url, **kw)


@pytest.fixture
async def store(open_store: OpenStore) -> AsyncIterator[Store]:
    s = await open_store()
    yield s
    await s.close()


def make_manager(store: Store, clock: ManualClock, **kw: Any) -> GameManager:
    kw.setdefault("seed_source", seeds())
    return GameManager(store, computer_delay=0, clock=clock, agent_factory=random_agent, **kw)


@pytest.fixture
async def manager(store: Store, clock: ManualClock) -> AsyncIterator[GameManager]:
    m = make_manager(store, clock)
    await m.start(run_timers=False)
    yield m
    await m.close()


@pytest.fixture
def recorder(manager: GameManager) -> Recorder:
    r = Recorder()
    manager.add_listener(r)
    return r


async def two_player_game(manager: GameManager, game: str = "kids",
                          channel: int = CHANNEL, **options: Any) -> int:
    """Ann hosts, Bob joins, Ann starts: the game id."""
    t = await manager.create_lobby(game, options, ANN, GUILD, channel)
    await manager.join(t.game_id, BOB)
    await manager.start_game(t.game_id, ANN.user_id)
    return t.game_id


async def play_out(manager: GameManager, game_id: int, rng: random.Random,
                   limit: int = 2000) -> None:
    """People at the table play random legal moves until the game ends."""
    for _ in range(limit):
        await manager.settle()
        if game_id not in {t.game_id for t in manager.tables()}:
            return
        view = manager.get(game_id)
        assert view.turn is not None
        user = view.seats[view.turn].user_id
        assert user is not None
        obs = manager.observation_for(game_id, user)
        await manager.submit(game_id, user, rng.choice(obs["legal"]))
    raise AssertionError("the game did not end")


async def server_up_for(store: Store, seconds: float) -> bool:
    """Whether the PostgreSQL server behind ``store`` has been up ``seconds`` at least (a
    server that just started gives other processes a grace before they are taken for dead:
    ``sharing.shared_database.RESTART_GRACE``)."""
    db = store.database
    assert isinstance(db, PostgresDatabase)
    up = await db.pool.fetchval(
        "SELECT extract(epoch from clock_timestamp() - pg_postmaster_start_time())")
    return float(up) >= seconds
