"""Two ``python bot.py`` processes, shards 0 and 1 of 2, on one PostgreSQL (issue 17).

Discord gives a server's events to the shard that owns it but every DM to shard 0, so the
hand buttons of a game in a server on shard 1 are clicked at the process that runs shard
0. Nothing routes them: that process plays the move itself on the shared database, posts
the board in the other shard's server and sends the next hand. Both games here are played
from the DMs to their final boards, at the same time.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from cogs.table.manners import Layout, TableManners
from manager import Store
from tests.e2e.conftest import running_bot
from tests.e2e.people import (
    boards,
    final_board,
    play_until_over,
    turn_from_dm,
    turn_from_my_hand_button,
    whose_turn,
)
from tests.e2e.test_restart import begun
from tests.fakediscord import FakeDiscord, FakeMessage
from tests.reliability.harness import error_lines

from .processes import all_told, begin, game_of, two_processes


def dm_clicks(fake: FakeDiscord, shard: int, game_id: str) -> int:
    """Clicks in DMs on ``game_id``'s buttons that Discord (the fake) sent to ``shard``."""
    session = fake.sessions.get(shard)
    return sum(1 for frame in (session.sent if session else [])
               if frame.get("t") == "INTERACTION_CREATE" and frame["d"].get("guild_id") is None
               and str(frame["d"].get("data", {}).get("custom_id", "")).split(":")[2:3]
               == [game_id])


async def test_two_processes_play_games_on_both_shards_with_dm_clicks_at_shard_0(
        tmp_path: Path, postgres_url: str) -> None:
    async with FakeDiscord(shards=2) as fake:
        zero = fake.add_guild("Zero", shard=0)
        one = fake.add_guild("One", shard=1)
        ann, bob = fake.add_person("Ann", zero), fake.add_person("Bob", zero)
        cat, dan = fake.add_person("Cat", one), fake.add_person("Dan", one)
        async with two_processes(fake, tmp_path, postgres_url) as (p0, p1):
            await asyncio.gather(begin(fake, ann, bob), begin(fake, cat, dan))
            finals = await asyncio.gather(
                play_until_over(fake, zero.channel_id, [ann, bob], turn_from_dm),
                play_until_over(fake, one.channel_id, [cat, dan], turn_from_dm))
            for final in finals:
                assert any(c.startswith("seq:rematch:") for c in final.custom_ids())
            # shard 1's game was played from DMs, which only shard 0's process receives
            # (how many depends on how long the shuffle made the game: a short one is fine)
            on_one = game_of(finals[1])
            assert dm_clicks(fake, 0, on_one) > 0 and dm_clicks(fake, 1, on_one) == 0
            for channel in (zero.channel_id, one.channel_id):
                posted = boards(fake, channel)
                # (the final board shows the last move's position again, with the winner)
                seen = [(b.content, b.files[0].description) for b in posted]
                assert len(seen) == len(set(seen)), "no board posted twice"
        for process in (p0, p1):
            assert error_lines(process.log()) == [], process.log()[-3000:]
        assert "commands are synced by the process that runs shard 0" in p1.log()


def guild_clicks(fake: FakeDiscord, shard: int, game_id: int) -> int:
    """Clicks in a server on ``game_id``'s boards that Discord sent to ``shard``."""
    session = fake.sessions.get(shard)
    return sum(1 for frame in (session.sent if session else [])
               if frame.get("t") == "INTERACTION_CREATE" and frame["d"].get("guild_id")
               and str(frame["d"].get("data", {}).get("custom_id", "")).split(":")[2:3]
               == [str(game_id)])


async def test_a_tidy_server_keeps_one_board_when_both_processes_post_its_boards(
        tmp_path: Path, postgres_url: str) -> None:
    """Ann plays from her DMs (clicked at shard 0's process, which posts those boards), Bob
    from "My hand" on the board (clicked at shard 1's, which posts his): each process
    tidies away the board the other one posted, so the channel keeps one board."""
    async with FakeDiscord(shards=2) as fake:
        one = fake.add_guild("One", shard=1)
        ann, bob = fake.add_person("Ann", one), fake.add_person("Bob", one)
        async with await Store.connect(postgres_url) as store:  # set before either starts
            await Layout(store.rows).save_table_manners(TableManners(one.id, tidy_boards=True))
        async with two_processes(fake, tmp_path, postgres_url) as (p0, p1):
            first = await begin(fake, ann, bob)
            every = fake.channel_messages[one.channel_id]
            last, posted = first, [first]
            for _ in range(16):
                board = last

                def newer(after: int = board.id) -> FakeMessage | None:
                    return final_board(fake, one.channel_id) or next(
                        (m for m in reversed(every) if m.id > after and any(
                            f.filename == "board.png" for f in m.files)
                         and whose_turn(m) is not None), None)

                if final_board(fake, one.channel_id) is not None:
                    break
                if board is not first:
                    posted.append(board)
                turn = turn_from_dm if whose_turn(board) == ann.id else turn_from_my_hand_button
                await turn(ann if whose_turn(board) == ann.id else bob, board)
                last = await fake.wait_for(newer, 15, "the next board")
            game_id = int(next(c for c in first.custom_ids()
                               if c.startswith("seq:")).split(":")[2])
            # both processes posted boards of this game, many of them
            assert len({m.id for m in every if any(
                f.filename == "board.png" for f in m.files)}) >= 8
            assert dm_clicks(fake, 0, str(game_id)) > 2
            assert guild_clicks(fake, 1, game_id) > 2
            await fake.wait_for(lambda: len(boards(fake, one.channel_id)) == 1, 10,
                                "one board left in the channel")
            # both processes told everything they owed (their promises kept): nothing
            # late deletes the last one, nor adds one
            async with await Store.connect(postgres_url) as watcher:
                await all_told(watcher, p0, p1)
            (kept,) = boards(fake, one.channel_id)
            assert kept.id == max(m.id for m in every if any(
                f.filename == "board.png" for f in m.files))
            assert all(b.deleted for b in posted if b is not kept)
        for process in (p0, p1):
            assert error_lines(process.log()) == [], process.log()[-3000:]


async def test_a_board_of_one_moment_posted_twice_is_one_message(tmp_path: Path) -> None:
    """Discord's enforced nonce: a second board of the same game and ply (a retry whose
    first try got through, or another process showing the table again) is the first one."""

    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice"), fake.add_person("Bob")
        with fake.pointed_at():
            async with running_bot(fake, guild, tmp_path / "bot.db") as bot:
                board, _, _ = await begun(fake, alice, bob)
                assert bot.desk is not None and bot.manager is not None
                table = bot.manager.tables()[0]
                obs = bot.manager.spectator_observation(table.game_id)
                again = await bot.desk.posts.post_board(table, obs, "again", view=None,
                                                        ply=table.ply, lang="en")
                assert again is not None and again.id == board.id
                assert fake.nonce_repeats == 1
                assert len(boards(fake, guild.channel_id)) == 1


async def test_a_server_setting_changed_by_another_process_shows_here_soon(
        tmp_path: Path, postgres_url: str) -> None:
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        with fake.pointed_at():
            async with running_bot(fake, guild, tmp_path / "bot.db",
                                   database_url=postgres_url, preferences_every=0.1) as bot:
                assert bot.desk is not None
                assert bot.desk.prefs.guild_lang(guild.id) == "en"
                other = await Store.connect(postgres_url)  # another process's store
                try:
                    settings = await other.games.guild_settings(guild.id)
                    await other.games.save_guild_settings(replace(settings, locale="no"))
                finally:
                    await other.close()
                await fake.wait_for(lambda: bot.desk.prefs.guild_lang(guild.id) == "no", 5,
                                    "the other process's setting")
