"""/metrics, read as Prometheus reads it (prometheus-client's own text-format parser),
before and after whole games played through the fake Discord with the real bot: the
counters move by the game's moves, each counted by how it was made, and the latency,
request and database figures by what really happened."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import SequenceBot
from tests.e2e.conftest import running_bot
from tests.e2e.people import (
    boards,
    final_board,
    game_of,
    hand_message,
    play_from_hand,
    play_until_over,
    turn_by_roll,
    turn_by_slash_command,
)
from tests.e2e.scrape import Scrape, scrape
from tests.fakediscord import FakeDiscord, FakeGuild, FakeMessage, Person
from tests.waiting import until


class Table:
    """A server with Alice and Bob, and the bot with its metrics on (any free port)."""

    def __init__(self, fake: FakeDiscord, guild: FakeGuild, bot: SequenceBot,
                 alice: Person, bob: Person) -> None:
        self.fake, self.guild, self.bot, self.alice, self.bob = fake, guild, bot, alice, bob
        assert bot.watching is not None
        self.url = bot.watching.url


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice", guild), fake.add_person("Bob", guild)
        with fake.pointed_at():
            async with running_bot(fake, guild, tmp_path / "sequence.db",
                                   metrics_port=0) as bot:
                yield Table(fake, guild, bot, alice, bob)
                assert fake.unhandled == [], fake.unhandled


class EachWayInTurn:
    """Each person's turn taken the next way in turn (the hand in their DMs, "My hand" in
    the channel, ``/sequence play``), counting the moves made each way."""

    def __init__(self) -> None:
        self.made: Counter[str] = Counter()
        self._ways = itertools.cycle(("dm", "channel", "command"))

    async def __call__(self, person: Person, board: FakeMessage) -> None:
        way = next(self._ways)
        fake = person.server
        if way == "command":
            await turn_by_slash_command(person, board)
            self.made["command"] += 1
            return
        if way == "channel":
            hand = await (await person.click(board, label="My hand")).reply()
        else:
            person.reload_app()
            hand = await fake.wait_for(
                lambda: hand_message(person, game_of(board))
                or final_board(fake, board.channel_id), 15, f"{person.name}'s hand by DM")
            if hand.channel_id == board.channel_id:
                return  # a forced pass ended the game instead
        if await play_from_hand(person, hand) is not None:
            self.made[way] += 1


def requests_by_route(fake: FakeDiscord, since: int) -> Counter[str]:
    """The REST requests the fake Discord answered with a 2xx since the ``since``-th."""
    return Counter(r.route for r in fake.requests[since:] if 200 <= r.status < 300)


def moved(before: Scrape, after: Scrape, game: str, how: str) -> float:
    key = ("sequence_moves_total", {"game": game, "how": how})
    return after[key] - before[key]


async def test_the_counters_move_by_a_whole_kids_games_moves(table: Table) -> None:
    fake, channel = table.fake, table.guild.channel_id
    before = await scrape(table.url)
    requests_before = len(fake.requests)
    assert before["sequence_tables_open", {"game": "kids"}] == 0
    lobby = await (await table.alice.slash("sequence new", game="kids")).reply()
    await (await table.bob.click(lobby, label="Join")).wait_ack()
    await (await table.alice.click(lobby, label="Add computer (easy)")).wait_ack()
    await fake.wait_for(lambda: "Computer (easy)" in lobby.text and "Bob" in lobby.text, 5,
                        "Bob and a computer seated")
    lobbies = await scrape(table.url)
    assert lobbies["sequence_tables_open", {"game": "kids", "status": "lobby"}] == 1
    await (await table.alice.click(lobby, label="Start")).wait_ack()
    await fake.wait_for(lambda: boards(fake, channel)[:1], 5, "the first board")
    playing = await scrape(table.url)
    assert playing["sequence_tables_open", {"game": "kids", "status": "playing"}] == 1
    assert playing["sequence_tables_open", {"game": "kids", "status": "lobby"}] == 0

    ways = EachWayInTurn()
    final = await play_until_over(fake, channel, [table.alice, table.bob], ways)
    game_id = game_of(final)  # (from its Rematch button: older boards lose theirs)
    assert game_id is not None
    record = await table.bot.manager.load_record(game_id)  # type: ignore[union-attr]
    assert record is not None and record.status == "finished"

    # every request the game made has had its answer (the replay joins the final board
    # last): the bot's count of each route then agrees with the fake Discord's
    async def settled() -> Scrape | None:
        now = await scrape(table.url)
        seen = requests_by_route(fake, requests_before)
        counted = {route: now["sequence_discord_requests_total",
                              {"route": route, "status": "2xx"}]
                   - before["sequence_discord_requests_total",
                            {"route": route, "status": "2xx"}] for route in seen}
        return now if counted == seen else None

    after = await until(settled, "the bot's request counts to agree with the fake's")

    # moves: every action of the game's log, once, each by how it was made
    assert sum(moved(before, after, "kids", how) for how in
               ("dm", "channel", "command", "computer", "timer", "auto", "resign", "other")
               ) == len(record.actions)
    for way in ("dm", "channel", "command"):
        assert moved(before, after, "kids", way) == ways.made[way], way
    assert min(ways.made.values()) > 0, "each way was used"
    people = sum(ways.made.values())
    assert moved(before, after, "kids", "computer") > 0
    assert (moved(before, after, "kids", "computer") + moved(before, after, "kids", "auto")
            == len(record.actions) - people), "the rest: the computer's and forced passes"
    assert moved(before, after, "dice", "dm") == 0, "by game"

    # one board for the start, one per move with a board of its own, one at the end: each
    # timed from its change's commit
    board_count = ("sequence_board_seconds_count", {"game": "kids"})
    assert after[board_count] - before[board_count] == len(boards(fake, channel))
    # every interaction the people made was answered, and timed
    callbacks = [r for r in fake.requests[requests_before:]
                 if r.path.endswith("/callback") and r.status < 500 and r.status != 429]
    acks = after["sequence_interaction_ack_seconds_count"] - before[
        "sequence_interaction_ack_seconds_count"]
    assert acks == len(callbacks) > 0
    assert after["sequence_interaction_ack_seconds_bucket", {"le": "+Inf"}] == after[
        "sequence_interaction_ack_seconds_count"]
    # the database: each move at least one write, none failed; no 429, no bug
    writes = ("sequence_db_transaction_seconds_count", {"op": "write"})
    assert after[writes] - before[writes] >= len(record.actions)
    assert after["sequence_db_errors_total"] == before["sequence_db_errors_total"] == 0
    assert after["sequence_discord_rate_limited_total"] == 0
    assert after["sequence_unhandled_errors_total"] == 0
    assert after["sequence_tables_open"] == 0, "the game is over"
    # this process's one shard, connected, with its gateway latency
    assert after["sequence_shard_connected", {"shard": "0"}] == 1
    assert after.has("sequence_gateway_latency_seconds")
    assert after.has("process_cpu_seconds_total")


async def test_a_dice_game_is_counted_as_dice_and_its_rolls_as_moves(table: Table) -> None:
    fake, channel = table.fake, table.guild.channel_id
    before = await scrape(table.url)
    requests_before = len(fake.requests)
    lobby = await (await table.alice.slash("sequence new", game="dice")).reply()
    await (await table.alice.click(lobby, label="Add computer (easy)")).wait_ack()
    await fake.wait_for(lambda: "Computer (easy)" in lobby.text, 5, "a computer seated")
    await (await table.alice.click(lobby, label="Start")).wait_ack()
    await fake.wait_for(lambda: boards(fake, channel)[:1], 5, "the first board")
    game_id = game_of(await play_until_over(fake, channel, [table.alice], turn_by_roll))
    assert game_id is not None and table.bot.store is not None
    actions = await table.bot.store.games.history(game_id)

    async def settled() -> Scrape | None:
        now = await scrape(table.url)
        board_count = ("sequence_board_seconds_count", {"game": "dice"})
        done = (now[board_count] - before[board_count] == len(boards(fake, channel))
                and now["sequence_discord_requests_total"]
                - before["sequence_discord_requests_total"]
                == len(fake.requests) - requests_before)
        return now if done else None

    after = await until(settled, "every board and request counted")
    hows = ("dm", "channel", "command", "computer", "timer", "auto", "resign", "other")
    assert sum(moved(before, after, "dice", how) for how in hows) == len(actions)
    alices = sum(1 for _, seat, _, _ in actions if seat == 0)
    # Alice rolls and places with the Roll button and its choices, both in the channel;
    # her passes (a roll that allows nothing) are the manager's
    assert moved(before, after, "dice", "channel") + moved(before, after, "dice", "auto") \
        >= alices > 0
    assert moved(before, after, "dice", "dm") == moved(before, after, "dice", "command") == 0
    assert moved(before, after, "dice", "computer") > 0
    assert sum(moved(before, after, "kids", how) for how in hows) == 0, "by game"


async def test_a_429_is_counted_with_its_route_and_discords_scope(table: Table) -> None:
    fake, channel = table.fake, table.guild.channel_id
    before = await scrape(table.url)
    # Discord refuses the first board once for the route's own limit; discord.py waits and
    # sends it again
    fake.faults.rate_limit(times=1, method="POST", path=r"^/channels/\d+/messages$")
    lobby = await (await table.alice.slash("sequence new", game="kids")).reply()
    await (await table.bob.click(lobby, label="Join")).wait_ack()
    await fake.wait_for(lambda: "Bob" in lobby.text, 5, "Bob seated")
    await (await table.alice.click(lobby, label="Start")).wait_ack()
    await fake.wait_for(lambda: boards(fake, channel)[:1], 10, "the first board")
    refused = ("sequence_discord_requests_total",
               {"route": "POST /channels/{id}/messages", "status": "429"})
    after = await until(lambda: _at_least(table.url, refused, before[refused] + 1),
                        "the 429 counted")
    assert after[refused] - before[refused] == 1
    scope = ("sequence_discord_rate_limited_total", {"scope": "user"})
    assert after[scope] - before[scope] == 1
    assert after["sequence_discord_rate_limited_total", {"scope": "global"}] == 0


async def _at_least(url: str, key: tuple[str, dict[str, str]], value: float) -> Scrape | None:
    now = await scrape(url)
    return now if now[key] >= value else None
