"""Two bot processes (shards 0 and 1 of 2) on one PostgreSQL, each SIGKILLed in turn
mid-game and restarted (issue 17): nothing lost, nothing doubled.

While shard 1's process is down, its server's game goes on from the DMs, which Discord
sends to shard 0's process: that process plays the moves and posts the boards in the
other shard's server. While shard 0's process is down no DM arrives anywhere (Discord
sends them to shard 0 only), so shard 1's game goes on through the "My hand" button on
its board, which its own process answers. Then both games are played to the end.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from manager import Store
from tests.e2e.people import (
    Turn,
    boards,
    final_board,
    play_until_over,
    turn_from_dm,
    turn_from_my_hand_button,
    whose_turn,
)
from tests.e2e.processes import begin, game_of, nothing_owed, shard_process
from tests.fakediscord import FakeDiscord, FakeMessage, Person
from tests.waiting import until

from .harness import BotProcess, error_lines


async def play_turns(fake: FakeDiscord, channel_id: int, people: list[Person], turn: Turn,
                     turns: int) -> None:
    """``turns`` turns of people (computers play themselves), each after its board."""
    by_id = {p.id: p for p in people}
    for _ in range(turns):
        seen = len(boards(fake, channel_id))

        def ready(after: int = seen) -> FakeMessage | None:
            posted = boards(fake, channel_id)
            done = final_board(fake, channel_id)
            if done is not None:
                return done
            return posted[-1] if posted and whose_turn(posted[-1]) is not None else None

        board = await fake.wait_for(ready, 20, "a board saying whose turn it is")
        if final_board(fake, channel_id) is not None:
            return
        await turn(by_id[whose_turn(board)], board)  # type: ignore[index]
        await fake.wait_for(lambda after=seen: len(boards(fake, channel_id)) > after, 20,
                            "the move's board")


async def restart(process: BotProcess, fake: FakeDiscord, shard: int) -> None:
    await process.launch()
    await fake.wait_until_connected(60, shard=shard)


@pytest.mark.slow
async def test_each_process_killed_in_turn_mid_game_loses_and_doubles_nothing(
        tmp_path: Path, postgres_url: str) -> None:
    async with FakeDiscord(shards=2) as fake:
        zero, one = fake.add_guild("Zero", shard=0), fake.add_guild("One", shard=1)
        ann, bob = fake.add_person("Ann", zero), fake.add_person("Bob", zero)
        cat, dan = fake.add_person("Cat", one), fake.add_person("Dan", one)
        p0, p1 = (shard_process(fake, tmp_path, postgres_url, 0),
                  shard_process(fake, tmp_path, postgres_url, 1))
        try:
            await asyncio.gather(p0.launch(), p1.launch())
            await fake.wait_until_connected(60)
            await fake.wait_for(lambda: fake.commands.get(None), 30, "the command sync")
            await asyncio.gather(begin(fake, ann, bob), begin(fake, cat, dan))
            await asyncio.gather(play_turns(fake, zero.channel_id, [ann, bob], turn_from_dm, 3),
                                 play_turns(fake, one.channel_id, [cat, dan], turn_from_dm, 3))

            await p1.kill()  # shard 1's server's game goes on from the DMs, at shard 0
            await asyncio.gather(play_turns(fake, zero.channel_id, [ann, bob], turn_from_dm, 3),
                                 play_turns(fake, one.channel_id, [cat, dan], turn_from_dm, 3))
            await restart(p1, fake, 1)

            await p0.kill()  # no DM reaches anyone now; shard 1's game goes on in its server
            await play_turns(fake, one.channel_id, [cat, dan], turn_from_my_hand_button, 3)
            await restart(p0, fake, 0)

            finals = await asyncio.gather(
                play_until_over(fake, zero.channel_id, [ann, bob], turn_from_dm),
                play_until_over(fake, one.channel_id, [cat, dan], turn_from_dm))
            store = await Store.connect(postgres_url)
            try:
                # a killed process may have owed a move's last message (its hand DM):
                # its promise runs out after 30 s and a live process shows the table again
                await until(lambda: nothing_owed(store), "every promised announcement "
                            "delivered", 60)
            finally:
                await store.close()
        finally:
            await asyncio.gather(p0.stop(), p1.stop())
        assert (p0.kills, p1.kills) == (1, 1)
        store = await Store.connect(postgres_url)
        try:
            for final, guild in zip(finals, (zero, one), strict=True):
                record = await store.games.load_game(int(game_of(final)))
                assert record is not None and record.status == "finished"
                posted = boards(fake, guild.channel_id)
                seen = [(b.content, b.files[0].description) for b in posted]
                assert len(seen) == len(set(seen)), "no board posted twice"
                # every move has its board (the final board repeats the last position)
                assert len(posted) >= len(record.actions) // 2
        finally:
            await store.close()
        for process in (p0, p1):
            assert error_lines(process.log()) == [], process.log()[-3000:]


@pytest.mark.slow
async def test_a_computer_turn_a_killed_process_was_to_play_is_played_by_the_other(
        tmp_path: Path, postgres_url: str) -> None:
    """Shard 0's process plays the DM moves of shard 1's game, so it is the one that
    drives the computer after them. It dies while its computer player waits: shard 1's
    process notices the computer turn nobody plays and plays it, and the announcements the
    dead one owed are shown again by the live one (posting only what was missing)."""
    async with FakeDiscord(shards=2) as fake:
        one = fake.add_guild("One", shard=1)
        cat, dan = fake.add_person("Cat", one), fake.add_person("Dan", one)
        p0 = shard_process(fake, tmp_path, postgres_url, 0)
        # its computer players pause 20 s (less than a claim, 30 s): it dies while one waits
        p0.extra_env["COMPUTER_DELAY"] = "20"
        p1 = shard_process(fake, tmp_path, postgres_url, 1)
        channel = one.channel_id
        try:
            await asyncio.gather(p0.launch(), p1.launch())
            await fake.wait_until_connected(60)
            await fake.wait_for(lambda: fake.commands.get(None), 30, "the command sync")
            lobby = await (await cat.slash("sequence new", game="kids", timeout=15)).reply(15)
            await (await dan.click(lobby, label="Join", timeout=15)).wait_ack(15)
            await fake.wait_for(lambda: "Dan" in lobby.text, 15, "Dan seated")
            cpu = next(c for c in lobby.custom_ids() if c.endswith(":cpu-easy"))
            await (await cat.click(lobby, cpu, timeout=15)).wait_ack(15)
            await fake.wait_for(lambda: "Computer" in lobby.text, 15, "a computer seated")
            await (await cat.click(lobby, label="Start", timeout=15)).wait_ack(15)
            people = {cat.id: cat, dan.id: dan}
            # people play from their DMs (at p0) until one's move gives the computer its turn
            for _ in range(30):
                board = await fake.wait_for(
                    lambda: (boards(fake, channel) or [None])[-1], 20, "a board")
                assert board is not None
                if whose_turn(board) is None and final_board(fake, channel) is None:
                    shown = len(boards(fake, channel))
                    if shown > 1:
                        break  # the computer's turn, after a person's DM move at p0
                    await fake.wait_for(lambda n=shown: len(boards(fake, channel)) > n, 20,
                                        "the computer")
                    continue
                seen = len(boards(fake, channel))
                await turn_from_dm(people[whose_turn(board)], board)  # type: ignore[index]
                await fake.wait_for(lambda n=seen: len(boards(fake, channel)) > n, 20,
                                    "the move's board")
            else:
                raise AssertionError("the computer never got its turn after a DM move")
            waiting = len(boards(fake, channel))
            await p0.kill()
            # shard 1's process plays the computer's turn: p0's claim goes with its connections
            await fake.wait_for(lambda: len(boards(fake, channel)) > waiting, 60,
                                "the computer's move, played by the live process")
            assert "a computer turn nobody played in time" in p1.log()
            store = await Store.connect(postgres_url)
            try:
                # what p0 still owed (the mover's new hand) is shown
                await until(lambda: nothing_owed(store), "p0's owed announcement shown", 60)
            finally:
                await store.close()
            p0.extra_env["COMPUTER_DELAY"] = "0"
            await restart(p0, fake, 0)
            final = await play_until_over(fake, channel, [cat, dan], turn_from_dm)
            assert any(c.startswith("seq:rematch:") for c in final.custom_ids())
        finally:
            await asyncio.gather(p0.stop(), p1.stop())
        posted = boards(fake, channel)
        seen = [(b.content, b.files[0].description) for b in posted]
        assert len(seen) == len(set(seen)), "no board posted twice"
        for process in (p0, p1):
            assert error_lines(process.log()) == [], process.log()[-3000:]
