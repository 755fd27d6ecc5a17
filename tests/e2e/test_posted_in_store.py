"""What the bot posted is kept in the store, not in one process's memory (issue 17): a
restarted bot (or another process) tidies the board an earlier one posted, and edits the
lobby message an earlier one posted without reading the channel to find it."""

from __future__ import annotations

from pathlib import Path

from cogs.table.manners import Layout, TableManners
from tests.e2e.conftest import running_bot
from tests.e2e.people import boards, turn_from_dm
from tests.e2e.test_restart import begun
from tests.fakediscord import FakeDiscord


def history_reads(fake: FakeDiscord, channel_id: int) -> int:
    return sum(1 for r in fake.requests
               if r.method == "GET" and r.path == f"/channels/{channel_id}/messages")


async def test_a_restart_keeps_tidying_the_board_posted_before_it(tmp_path: Path) -> None:
    db = tmp_path / "sequence.db"
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice"), fake.add_person("Bob")
        channel = guild.channel_id
        with fake.pointed_at():
            async with running_bot(fake, guild, db) as bot:
                assert bot.store is not None
                await Layout(bot.store.rows).save_table_manners(
                    TableManners(guild.id, tidy_boards=True))
            async with running_bot(fake, guild, db):
                before, mover, _ = await begun(fake, alice, bob)
            # a new process: it never saw the board before, the store did
            async with running_bot(fake, guild, db):
                assert boards(fake, channel) == [before]  # nothing was missing
                await turn_from_dm(mover, before)
                after = await fake.wait_for(
                    lambda: [b for b in boards(fake, channel) if b is not before], 10,
                    "the board of the move")
                await fake.wait_for(lambda: before.deleted, 10, "the old board tidied away")
                assert boards(fake, channel) == after and len(after) == 1


async def test_a_lobby_posted_before_a_restart_is_edited_in_place_after_it(
        tmp_path: Path) -> None:
    db = tmp_path / "sequence.db"
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice"), fake.add_person("Bob")
        channel = guild.channel_id
        with fake.pointed_at():
            async with running_bot(fake, guild, db):
                lobby = await (await alice.slash("sequence new", game="dice")).reply()
            read = history_reads(fake, channel)
            async with running_bot(fake, guild, db):
                await (await bob.click(lobby, label="Join")).wait_ack()
                await fake.wait_for(lambda: "Bob" in lobby.text, 10, "Bob seated")
                # the store named the lobby message: the channel was not read to find it,
                # and no second lobby message was posted
                assert history_reads(fake, channel) == read
                assert [m for m in fake.visible_messages(channel) if m.embeds] == [lobby]


async def test_a_lobby_message_deleted_while_the_bot_was_away_is_posted_again(
        tmp_path: Path) -> None:
    db = tmp_path / "sequence.db"
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        alice = fake.add_person("Alice")
        channel = guild.channel_id
        with fake.pointed_at():
            async with running_bot(fake, guild, db):
                lobby = await (await alice.slash("sequence new", game="dice")).reply()
            lobby.deleted = True  # someone tidied the channel by hand
            async with running_bot(fake, guild, db):
                again = await fake.wait_for(
                    lambda: [m for m in fake.visible_messages(channel) if m.embeds], 10,
                    "the lobby shown again")
                assert len(again) == 1 and again[0] is not lobby
                assert "Alice" in again[0].text
