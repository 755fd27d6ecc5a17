"""The real bot in this process against the recording fake Discord, with its errors caught
(``make_rig``; the ``rig`` fixture in conftest.py, and ``tools/reliability.py``, use it).

In-process is faster than a subprocess and lets a test slow down parts of the bot with
monkeypatch; the kill tests use ``harness.BotProcess`` instead.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot import SequenceBot
from tests.e2e.conftest import running_bot
from tests.fakediscord import FakeGuild, FakeMessage, Person

from .harness import RecordingDiscord, board_count_problems, board_messages, unhandled_lines
from .players import Ledger, Player, play_until_over
from .truth import GameTruth, expected_boards, read_games


class Caught(logging.Handler):
    """Keeps every warning and error logged while a test runs, formatted like the bot's log."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass
class Rig:
    """A server with people, the bot connected, and the ways to check what happened."""

    fake: RecordingDiscord
    guild: FakeGuild
    bot: SequenceBot
    people: dict[str, Person]
    database: Path
    log: Caught
    ledger: Ledger = field(default_factory=Ledger)
    no_dm_hand: set[int] = field(default_factory=set)  # people whose DMs are known closed

    def __getitem__(self, name: str) -> Person:
        return self.people[name]

    @property
    def channel(self) -> int:
        return self.guild.channel_id

    def players(self, timeout: float = Player.timeout) -> dict[int, Player]:
        """Everyone, as a player who waits ``timeout`` seconds for each answer."""
        return {p.id: Player(p, self.ledger, timeout=timeout,
                             dm_hand=p.id not in self.no_dm_hand)
                for p in self.people.values()}

    def games(self) -> dict[int, GameTruth]:
        return read_games(self.database)

    def game_in(self, channel: int | None = None) -> GameTruth:
        channel = channel or self.channel
        return [g for g in self.games().values() if g.channel_id == channel][-1]

    async def lobby(self, game: str, host: str, *others: str, computers: tuple[str, ...] = (),
                    channel: int | None = None, **options: Any) -> FakeMessage:
        """Open a lobby by slash command and seat people (by Join) and computers."""
        channel = channel or self.channel
        lobby = await (await self[host].slash("sequence new", channel=channel, game=game,
                                              **options)).reply()
        for name in others:
            await (await self[name].click(lobby, label="Join")).wait_ack()
            await self.fake.wait_for(lambda n=name: n in lobby.text, 5, f"{name} seated")
        for level in computers:
            n = lobby.text.count("Computer")
            await (await self[host].click(lobby, label=f"Add computer ({level})")).wait_ack()
            await self.fake.wait_for(lambda n=n: lobby.text.count("Computer") > n, 5,
                                     "a computer seated")
        return lobby

    async def start(self, lobby: FakeMessage, host: str, channel: int | None = None
                    ) -> GameTruth:
        channel = channel or self.channel
        before = len(board_messages(self.fake, channel))
        await (await self[host].click(lobby, label="Start")).wait_ack()
        await self.fake.wait_for(lambda: len(board_messages(self.fake, channel)) > before, 5,
                                 "the first board")
        return self.game_in(channel)

    async def play(self, game: GameTruth, time_limit: float = 60.0) -> GameTruth:
        end = await play_until_over(self.database, game.id, self.players(),
                                    time_limit=time_limit)
        assert end is not None
        await self.settled(end.channel_id)
        return end

    async def settled(self, channel: int | None = None, timeout: float = 5.0) -> None:
        """Wait (bounded) until the boards of the moves committed so far are posted: the
        commit comes first, the board after it."""
        channel = channel or self.channel

        def expected() -> int:
            return sum(expected_boards(g) for g in self.games().values()
                       if g.channel_id == channel)

        with contextlib.suppress(TimeoutError):
            await self.fake.wait_for(
                lambda: len(board_messages(self.fake, channel)) >= expected(), timeout,
                "the boards of the committed moves")

    def quiet(self) -> bool:
        """No click or command is being handled by the bot right now."""
        desk = self.bot.desk
        return desk is None or desk.in_flight.busy() == 0

    def problems(self, channel: int | None = None) -> list[str]:
        """Lost or duplicated moves and boards, broken invariants, unhandled errors."""
        channel = channel or self.channel
        games = self.games()
        played = [g for g in games.values() if g.channel_id == channel and g.seed is not None]
        out = [str(x) for x in self.ledger.lost(games)]
        for g in played:
            out += g.invariant_problems()
        missing, doubled, on_recovery = board_count_problems(
            self.fake, channel, sum(expected_boards(g) for g in played))
        if missing or doubled or on_recovery:
            out.append(f"boards: {missing} missing, {doubled} doubled, {on_recovery} "
                       "doubled on recovery")
        out += unhandled_lines(self.log.text)
        out += [f"fake Discord: no route for {x}" for x in self.fake.unhandled]
        return out


async def make_rig(tmp_path: Path, names: tuple[str, ...] = ("Alice", "Bob", "Carol", "Dan"),
                   *, channels: tuple[str, ...] = ("general",), game_seed: int | None = None,
                   **person_kwargs: Any) -> AsyncIterator[Rig]:
    """``game_seed``: every game dealt from this seed (a test that needs a known game)."""
    caught = Caught()
    root = logging.getLogger()
    root.addHandler(caught)
    try:
        async with RecordingDiscord() as fake:
            guild = fake.add_guild("Family", channels=channels)
            people = {n: fake.add_person(n, guild, **person_kwargs) for n in names}
            db = tmp_path / "sequence.db"
            with fake.pointed_at():
                async with running_bot(fake, guild, db, game_seed=game_seed) as bot:
                    yield Rig(fake, guild, bot, people, db, caught)
    finally:
        root.removeHandler(caught)
