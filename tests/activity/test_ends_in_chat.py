"""Every end reaches the chat, however the boards before it are delivered (issue 46).

Alice plays on the board page against a computer. The page shows her turn the moment the
computer's move is saved, while the chat's board of that move still waits at a slow
Discord. A winning tap then, or a resignation in chat, ended the game on the page, and the
channel got the computer's board and nothing after it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from engine.action import Action
from engine.ai import make_agent
from engine.factory import load, replay
from engine.game import Game
from manager import Store
from tests.activity.browser import free_port, served
from tests.activity.conftest import Table, a_table
from tests.activity.pages import PageClient
from tests.e2e.people import boards, game_of
from tests.e2e.processes import two_processes
from tests.fakediscord import FakeDiscord, FakeMessage

HELD = 0.8  # seconds Discord takes over each computer's board (about 1 s, as seen)
#: a computer waits a moment before it moves, as in a real game (1.5 s there), so its move
#: is told by its own player, not by Alice's telling still under way
DELAY = 0.3


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    async with a_table(tmp_path, game_seed=7, computer_delay=DELAY) as world:
        yield world


def hold_the_computers_boards(table: Table, seconds: float) -> Any:
    """Discord answers late each board of a computer's move."""
    def computers_move(body: Any) -> bool:
        return isinstance(body, dict) and str(body.get("content")).startswith("Computer")

    return table.discord.faults.slow(
        seconds, method="POST", path=rf"^/channels/{table.guild.channel_id}/messages$",
        body=computers_move)


async def open_against_a_computer(table: Table) -> tuple[PageClient, int]:
    alice = await table.page("Alice")
    await alice.wait_for(lambda: alice.frames[:1], "the welcome")
    frame = await alice.tap({"t": "open", "game": "kids", "computers": 1},
                            lambda t: t["status"] == "playing", "a game against a computer")
    return alice, int(frame["game_id"])


def ended(fake: FakeDiscord, channel: int, game_id: int) -> FakeMessage | None:
    """The final board of ``game_id`` (the one with Rematch), once posted."""
    return next((b for b in boards(fake, channel) if game_of(b) == game_id
                 and any(c.startswith("seq:rematch:") for c in b.custom_ids())), None)


def good_move(table: Table, game_id: int) -> str:
    """What a grown-up helping a child would tap: the medium computer's choice."""
    manager = table.bot.manager
    assert manager is not None
    obs = manager.observation_for(game_id, table["Alice"].id)
    return str(make_agent("medium", len(obs["legal"])).choose(dict(obs)))


def winning(table: Table, game_id: int, legal: list[str]) -> str | None:
    """Of ``legal``, a move that wins the game now (read from the bot's engine)."""
    manager = table.bot.manager
    assert manager is not None
    for action in legal:
        game = load(manager.game_state(game_id))
        game.apply(action)
        if game.is_over:
            return action
    return None


async def test_a_winning_tap_while_the_computers_board_is_at_discord_ends_in_the_chat(
        table: Table) -> None:
    held = hold_the_computers_boards(table, HELD)
    fake, channel = table.discord, table.guild.channel_id
    for _game in range(6):
        alice, game_id = await open_against_a_computer(table)
        win: str | None = None
        while win is None:
            frame = await alice.table_where(
                lambda t: t["over"] is not None or bool(t["me"] and t["me"]["legal"]),
                "Alice's turn or the end", timeout=30)
            if frame["over"] is not None:
                break  # the computer won
            legal = frame["me"]["legal"]
            win = winning(table, game_id, legal)
            if win is not None:  # tapped while the computer's board is still on its way
                await fake.wait_for(lambda: held.holding, 5, "the computer's board held")
            await alice.play(win or good_move(table, game_id), frame["ply"])
        end = await fake.wait_for(lambda g=game_id: ended(fake, channel, g), 15,
                                  "the game's end in the chat")
        if win is not None:
            shown = [b for b in boards(fake, channel) if game_of(b) == game_id]
            assert shown[-1] is end, "nothing after the end"
            assert "🏆 Alice won" in end.content, end.content
            assert held.held > 0
            # her winning move's line, on the final board (the last board before it is
            # the computer's, held at Discord while she tapped)
            assert str(Action.parse(win).space) in end.content, end.content
            assert table["Alice"].mention in shown[-2].content
            return
        await alice.close()
        table.pages.remove(alice)
    raise AssertionError("Alice never won on a turn the computer's board was still out")


async def test_a_resignation_in_chat_while_the_computers_board_is_at_discord_ends_there(
        table: Table) -> None:
    fake, channel = table.discord, table.guild.channel_id
    held = hold_the_computers_boards(table, 30.0)  # until let go
    alice, game_id = await open_against_a_computer(table)
    frame = await alice.my_turn()
    await alice.play(next(a for a in frame["me"]["legal"] if "@" in a), frame["ply"])
    await alice.my_turn()  # the computer moved: its board is held at Discord
    await fake.wait_for(lambda: held.holding, 5, "the computer's board held")
    reply = await (await table["Alice"].slash("sequence resign")).reply(5)
    assert "resign" in reply.content.lower(), reply.content
    held.release()
    end = await fake.wait_for(lambda: ended(fake, channel, game_id), 10,
                              "the resignation's end in the chat")
    assert "resigned" in end.content, end.content
    assert boards(fake, channel)[-1] is end


async def test_on_two_processes_a_win_made_at_one_while_the_other_posts_ends_in_the_chat(
        tmp_path: Path, postgres_url: str) -> None:
    """Alice has the board open twice: on a tablet served by one process, where she makes
    her moves (so that process plays the computer's turns and posts their boards, held at
    Discord), and on a phone served by the other, where she taps the winning move."""
    ports = {0: free_port(), 1: free_port()}
    async with FakeDiscord(shards=2, activities=True) as fake:
        guild = fake.add_guild("Family", shard=1)
        alice = fake.add_person("Alice", guild)

        def env(shard: int) -> dict[str, str]:
            return {"ACTIVITY_PORT": str(ports[shard]), "SEQUENCE_SEED": "7",
                    "DISCORD_CLIENT_SECRET": fake.activities.client_secret}

        store = await Store.connect(postgres_url)
        async with two_processes(fake, tmp_path, postgres_url, env=env,
                                 computer_delay=DELAY):
            bases = {s: f"http://127.0.0.1:{p}" for s, p in ports.items()}
            for base in bases.values():
                await served(base + "/")
            world = Table(fake, guild, None, {"Alice": alice})  # type: ignore[arg-type]
            held = hold_the_computers_boards(world, HELD)
            channel = guild.channel_id
            tablet = await PageClient.open(fake, bases[0], alice, channel)
            phone: PageClient | None = None
            try:
                await tablet.wait_for(lambda: tablet.frames[:1], "the welcome")
                for _game in range(6):
                    frame = await tablet.tap(
                        {"t": "open", "game": "kids", "computers": 1},
                        lambda t: t["status"] == "playing", "a game against a computer")
                    game_id = int(frame["game_id"])
                    phone = await PageClient.open(fake, bases[1], alice, channel)
                    won = await play_to_the_end(fake, tablet, phone, held, store)
                    end = await fake.wait_for(lambda g=game_id: ended(fake, channel, g), 20,
                                              "the game's end in the chat")
                    if won:
                        shown = [b for b in boards(fake, channel) if game_of(b) == game_id]
                        assert shown[-1] is end, [b.content for b in shown[-3:]]
                        assert "🏆 Alice won" in end.content, end.content
                        return
                    await phone.close()
                    phone = None
                raise AssertionError("Alice never won on a turn the computer's board was out")
            finally:
                for page in (tablet, phone):
                    if page is not None:
                        await page.close()
                await store.close()


async def play_to_the_end(fake: FakeDiscord, tablet: PageClient, phone: PageClient,
                          held: Any, store: Store) -> bool:
    """Alice plays the medium computer's moves on the tablet, and a winning move on the
    phone while the computer's board is held; True if she won so."""
    while True:
        frame = await tablet.table_where(
            lambda t: t["over"] is not None or bool(t["me"] and t["me"]["legal"]),
            "Alice's turn or the end", timeout=30)
        if frame["over"] is not None:
            return False
        record = await store.games.load_game(int(frame["game_id"]))
        assert record is not None
        game = replay(record.kind, len(record.seats), record.seed or 0, record.actions,
                      **record.options)
        legal = frame["me"]["legal"]
        win = next((a for a in legal if _wins(game, a)), None)
        if win is None:
            choice = make_agent("medium", frame["ply"]).choose(dict(game.observation(0)))
            await tablet.play(str(choice), frame["ply"])
            continue
        await fake.wait_for(lambda: held.holding, 5, "the computer's board held")
        await phone.table_where(lambda t, p=frame["ply"]: t["ply"] == p, "the phone's table")
        await phone.play(win, frame["ply"])
        return True


def _wins(game: Game, action: str) -> bool:
    after = load(game.to_dict())
    after.apply(action)
    return after.is_over
