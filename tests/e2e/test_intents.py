"""The bot asks Discord's gateway for what the game needs and nothing more (issue 46, item
5): its servers, their channels and threads (GUILDS), and no message, typing, reaction,
member, presence or voice event; and it keeps no cache of messages. People chatting in its
server then cost it nothing, and a whole game still plays among them."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import World, running_bot
from tests.e2e.people import (
    assert_no_hand_in_public,
    play_until_over,
    turn_by_slash_command,
    turn_from_dm,
)
from tests.fakediscord import FakeDiscord, FakeMessage, Person
from tests.fakediscord.intents import GUILDS

#: what the bot would hear of people's talk, and of its own messages, had it asked
TALK = ("MESSAGE_CREATE", "MESSAGE_UPDATE", "MESSAGE_DELETE", "TYPING_START",
        "MESSAGE_REACTION_ADD")


def identified_with(fake: FakeDiscord) -> list[int]:
    """The intents of every IDENTIFY the bot sent, as the fake received them."""
    return [int(f["d"]["intents"]) for f in fake.gateway_received if f.get("op") == 2]


async def test_the_bot_identifies_asking_for_its_servers_and_nothing_else(world: World
                                                                          ) -> None:
    assert identified_with(world.discord) == [GUILDS]


async def test_every_shard_identifies_asking_for_its_servers_and_nothing_else(
        tmp_path: Path) -> None:
    async with FakeDiscord(shards=2) as fake:
        guild = fake.add_guild("Family", shard=1)
        with fake.pointed_at():
            async with running_bot(fake, guild, tmp_path / "sequence.db", shard_count=2):
                await fake.wait_until_connected(5)
                assert sorted(identified_with(fake)) == [GUILDS, GUILDS]


async def test_a_whole_game_plays_while_people_chat_and_the_bot_keeps_none_of_it(
        world: World) -> None:
    fake, channel = world.discord, world.guild.channel_id
    alice, bob = world["Alice"], world["Bob"]
    # Carol and Dan (and the players between turns) talk in the game's channel
    async with fake.chatter(world.guild, per_second=20, limit=5000) as talk:
        await fake.wait_for(lambda: talk.said >= 10, 5, "the chatter under way")
        final = await whole_game(fake, channel, alice, bob)
        assert not talk.done, "the chatter went on through the whole game"
    assert "🏆" in final.content or "draw" in final.content
    assert_no_hand_in_public(fake, channel)
    dm = next(m for m in alice.dms() if m.png_files())
    assert "#general on Family" in dm.content  # (the names GUILDS brings)
    assert list(world.bot.cached_messages) == []
    session = fake.session
    assert session is not None and session.events(*TALK) == []
    assert session.withheld["MESSAGE_CREATE"] > talk.said  # theirs, and the bot's own posts
    assert session.withheld["TYPING_START"] == talk.typed
    assert identified_with(fake) == [GUILDS]


async def whole_game(fake: FakeDiscord, channel: int, alice: Person, bob: Person
                     ) -> FakeMessage:
    """A Kids game opened by slash command, joined and started by buttons in the channel,
    Alice playing from the hand buttons in her DMs and Bob by slash command."""
    lobby = await (await alice.slash("sequence new", game="kids")).reply()
    await (await bob.click(lobby, label="Join")).wait_ack()
    await fake.wait_for(lambda: "Bob" in lobby.text, 5, "Bob seated")
    await (await alice.click(lobby, label="Start")).wait_ack()

    async def turn(person: Person, board: FakeMessage) -> None:
        await (turn_from_dm if person is alice else turn_by_slash_command)(person, board)

    return await play_until_over(fake, channel, [alice, bob], turn)
