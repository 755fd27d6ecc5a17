"""A game survives a restart of the bot, and the buttons already sent keep working."""

from __future__ import annotations

import asyncio
from pathlib import Path

from manager import Store
from tests.e2e.conftest import running_bot
from tests.e2e.people import begin_game, boards, choose_first, final_board, latest_hand, whose_turn
from tests.fakediscord import FakeDiscord, FakeMessage, Person


def hand_dms(person: Person) -> list[FakeMessage]:
    return [m for m in person.dms() if any(c.startswith("seq:card:") for c in m.custom_ids())]


async def begun(fake: FakeDiscord, alice: Person, bob: Person
                ) -> tuple[FakeMessage, Person, FakeMessage]:
    """Alice opens a Kids game, Bob joins, Alice starts: the first board, who is to move,
    and their hand by DM."""
    _, board = await begin_game(fake, alice, bob)
    mover = alice if whose_turn(board) == alice.id else bob
    return board, mover, await latest_hand(mover)


async def test_old_dm_buttons_work_after_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "sequence.db"
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice"), fake.add_person("Bob")
        channel = guild.channel_id
        with fake.pointed_at():
            async with running_bot(fake, guild, db):
                _, mover, hand = await begun(fake, alice, bob)
            # the bot is gone; a new one starts from the same database
            async with running_bot(fake, guild, db):
                # the new bot reads what the channel shows (the store says which message
                # is each hand and what it shows), finds nothing missing (the old one
                # announced everything), and so doubles nothing
                hands_before = len(hand_dms(mover))
                shown_before = len(boards(fake, channel))
                await fake.wait_for(lambda: any(r.method == "GET" and r.path.endswith(
                    f"/{channel}/messages") for r in fake.requests), 5, "the bot reading back")
                assert len(boards(fake, channel)) == shown_before
                assert len(hand_dms(mover)) == hands_before
                before = len(boards(fake, channel))
                for card in [c for c in hand.custom_ids() if c.startswith("seq:card:")]:
                    prompt = await (await mover.click(hand, card)).reply()
                    if list(prompt.components()):
                        break
                await (await choose_first(mover, prompt)).wait_ack()
                after = await fake.wait_for(
                    lambda: boards(fake, channel)[before:], 5, "a board after the restart")
                assert f"{mover.name} " in after[0].content
                assert fake.identified == 2


async def test_what_a_crash_kept_from_discord_is_shown_after_the_restart(tmp_path: Path
                                                                         ) -> None:
    db = tmp_path / "sequence.db"
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice"), fake.add_person("Bob")
        channel = guild.channel_id
        with fake.pointed_at():
            async with running_bot(fake, guild, db):
                board, mover, hand = await begun(fake, alice, bob)
            # as if the old process died before these reached Discord (so it never noted
            # which message is the hand either)
            board.deleted = True
            hand.deleted = True
            store = await Store.open(db)
            await store.database.write(lambda tx: tx.execute("DELETE FROM dm_hands"))
            await store.close()
            async with running_bot(fake, guild, db):
                shown = await fake.wait_for(lambda: [b for b in boards(fake, channel)
                                                     if "restarted" in b.content], 5,
                                            "the board shown again")
                assert whose_turn(shown[0]) == mover.id
                again = await latest_hand(mover)
                assert again is not hand and again.png_files()


async def test_a_final_board_a_crash_kept_from_discord_is_posted_after_the_restart(
        tmp_path: Path) -> None:
    """The game ended (Bob resigned), but the process died before its final board reached
    Discord: the next start finds the end committed but not shown, and posts the final
    board, with the rematch button. A final board that did get out is never posted again,
    even when it is no longer among the channel's recent messages."""
    db = tmp_path / "sequence.db"
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice"), fake.add_person("Bob")
        channel = guild.channel_id
        with fake.pointed_at():
            async with running_bot(fake, guild, db):
                await begun(fake, alice, bob)
                await (await bob.slash("sequence resign")).wait_ack()
                lost = await fake.wait_for(lambda: final_board(fake, channel), 5,
                                           "the final board")
            game_id = int(next(c for c in lost.custom_ids()
                               if c.startswith("seq:rematch:")).rsplit(":", 1)[1])
            # as if the old process died after the commit, before the final board got out
            lost.deleted = True
            fake.nonces.clear()
            store = await Store.open(db)
            await store.database.write(lambda tx: tx.execute(
                "UPDATE games SET end_shown = ? WHERE id = ?", (False, game_id)))
            await store.close()
            async with running_bot(fake, guild, db):
                again = await fake.wait_for(lambda: final_board(fake, channel), 5,
                                            "the final board posted after the restart")
                assert "Alice" in again.content and again.png_files()
            # shown now: gone from sight (scrolled away, deleted), it is still not posted
            again.deleted = True
            async with running_bot(fake, guild, db) as bot:
                assert bot.desk is not None
                await asyncio.wait_for(bot.desk.recovered.wait(), 10)  # all it shows again
                assert final_board(fake, channel) is None, "never posted twice"


def dm_channels_opened(fake: FakeDiscord) -> int:
    """Requests the bot made to open a DM channel (each counts against its global limit)."""
    return sum(1 for r in fake.requests if r.route == "POST /users/@me/channels")


async def test_a_restarted_bot_opens_no_dm_channel_it_already_knew(tmp_path: Path) -> None:
    db = tmp_path / "sequence.db"
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice"), fake.add_person("Bob")
        with fake.pointed_at():
            async with running_bot(fake, guild, db):
                # opening and joining say hello by DM: each person's channel is opened
                lobby = await (await alice.slash("sequence new", game="kids")).reply()
                join = next(b["custom_id"] for b in lobby.buttons()
                            if b["custom_id"].endswith(":join"))
                await (await bob.click(lobby, join)).wait_ack()
                await fake.wait_for(lambda: alice.dms() and bob.dms(), 5, "both hellos")
            assert dm_channels_opened(fake) == 2
            hellos = {p.name: len(p.dms()) for p in (alice, bob)}
            # the bot is gone; a new one deals the hands into the same DMs, opening nothing
            async with running_bot(fake, guild, db):
                start = next(b["custom_id"] for b in lobby.buttons()
                             if b["custom_id"].endswith(":start"))
                await (await alice.click(lobby, start)).wait_ack()
                for person in (alice, bob):
                    await latest_hand(person, after=hellos[person.name])
                assert dm_channels_opened(fake) == 2
