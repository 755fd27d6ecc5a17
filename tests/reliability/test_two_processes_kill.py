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

from engine.manager import Store
from tests.e2e.people import (
    Turn,
    boards,
    final_board,
    play_until_over,
    turn_from_dm,
    turn_from_my_hand_button,
    whose_turn,
)
from tests.e2e.test_two_processes import begin, game_of, shard_process
from tests.fakediscord import FakeDiscord, FakeMessage, Person

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
                owed = await store.database.fetchall("SELECT game_id, owner FROM deliveries")
                for _ in range(60):
                    if not owed:
                        break
                    await asyncio.sleep(1)
                    owed = await store.database.fetchall("SELECT game_id FROM deliveries")
                assert list(owed) == [], "every promised announcement was delivered"
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
