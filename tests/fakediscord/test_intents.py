"""The fake Discord sends a gateway session only what its IDENTIFY's intents ask for, as
Discord does (``intents.py``), to the real discord.py; and people chat in a server
(``chatter.py``) without the bot asking to hear it.

What a session was *not* sent is read after a barrier: a click (INTERACTION_CREATE goes to
every session) made after everything else, so once the client has it, anything sent
before it has arrived too (one connection, in order)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import discord
import pytest

from tests.fakediscord import FakeDiscord, Person
from tests.fakediscord.conftest import running
from tests.fakediscord.intents import (
    DIRECT_MESSAGE_REACTIONS,
    DIRECT_MESSAGE_TYPING,
    DIRECT_MESSAGES,
    GUILD_MESSAGE_REACTIONS,
    GUILD_MESSAGE_TYPING,
    GUILD_MESSAGES,
    GUILDS,
    MESSAGE_CONTENT,
)

TALK = ("MESSAGE_CREATE", "TYPING_START", "MESSAGE_REACTION_ADD")
SERVER_TALK = GUILD_MESSAGES | GUILD_MESSAGE_TYPING | GUILD_MESSAGE_REACTIONS
DM_TALK = DIRECT_MESSAGES | DIRECT_MESSAGE_TYPING | DIRECT_MESSAGE_REACTIONS


class Listener(discord.Client):
    """A client that notes what the gateway tells it of people's talk, and of clicks."""

    def __init__(self, intents: discord.Intents) -> None:
        super().__init__(intents=intents, guild_ready_timeout=0.01)
        self.messages: list[discord.Message] = []
        self.edits: list[discord.RawMessageUpdateEvent] = []
        self.deletions: list[discord.RawMessageDeleteEvent] = []
        self.typing: list[discord.RawTypingEvent] = []
        self.reactions: list[discord.RawReactionActionEvent] = []
        self.clicks: list[discord.Interaction] = []

    async def on_message(self, message: discord.Message) -> None:
        self.messages.append(message)

    async def on_raw_message_edit(self, event: discord.RawMessageUpdateEvent) -> None:
        self.edits.append(event)

    async def on_raw_message_delete(self, event: discord.RawMessageDeleteEvent) -> None:
        self.deletions.append(event)

    async def on_raw_typing(self, event: discord.RawTypingEvent) -> None:
        self.typing.append(event)

    async def on_raw_reaction_add(self, event: discord.RawReactionActionEvent) -> None:
        self.reactions.append(event)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        self.clicks.append(interaction)


@pytest.fixture
async def people() -> AsyncIterator[tuple[FakeDiscord, Person, Person]]:
    async with FakeDiscord() as fake:
        fake.add_guild("Family", channels=("general", "chat"))
        alice, bob = fake.add_person("Alice"), fake.add_person("Bob")
        with fake.pointed_at():
            yield fake, alice, bob


async def heard_up_to_now(fake: FakeDiscord, listener: Listener, person: Person,
                          channel: int) -> None:
    """Everything sent to ``listener`` so far has reached it (see the module's doc)."""
    before = len(listener.clicks)
    fake.start_interaction(person, 2, {"id": "1", "name": "barrier", "type": 1}, channel)
    await fake.wait_for(lambda: len(listener.clicks) > before, 5, "the barrier click")


def talk_in(fake: FakeDiscord, alice: Person, bob: Person, where: str) -> int:
    """Alice types and writes, Bob reacts to what she wrote: in the server or in her DM
    with the bot. The channel."""
    channel = alice.guild.channel_id if where == "server" else fake.dm_channel(alice.id)
    alice.type_in(channel)
    said = alice.say("hello", channel=channel)
    bob.react(said, "🎉")
    return channel


def intents_of(value: int) -> discord.Intents:
    return discord.Intents._from_value(value)


@pytest.mark.parametrize("where, asked", [
    pytest.param("server", GUILDS | SERVER_TALK, id="server"),
    pytest.param("DM", GUILDS | DM_TALK, id="DM"),
])
async def test_a_session_that_asks_for_messages_typing_and_reactions_gets_each(
        people: tuple[FakeDiscord, Person, Person], where: str, asked: int) -> None:
    fake, alice, bob = people
    async with running(Listener(intents_of(asked)), fake) as client:
        assert isinstance(client, Listener)
        channel = talk_in(fake, alice, bob, where)
        await heard_up_to_now(fake, client, alice, alice.guild.channel_id)
        assert [(m.author.id, m.channel.id) for m in client.messages] == [(alice.id, channel)]
        assert [(t.user_id, t.channel_id) for t in client.typing] == [(alice.id, channel)]
        assert [(r.user_id, str(r.emoji)) for r in client.reactions] == [(bob.id, "🎉")]
        assert fake.session is not None and not fake.session.withheld


@pytest.mark.parametrize("where, asked", [
    # the DM intents do not hear a server, the server's do not hear a DM
    pytest.param("server", GUILDS | DM_TALK, id="server, asking for DMs"),
    pytest.param("DM", GUILDS | SERVER_TALK, id="DM, asking for servers"),
    pytest.param("server", GUILDS, id="server, asking for servers only"),
    pytest.param("DM", GUILDS, id="DM, asking for servers only"),
])
async def test_a_session_that_does_not_ask_for_messages_never_gets_one(
        people: tuple[FakeDiscord, Person, Person], where: str, asked: int) -> None:
    fake, alice, bob = people
    async with running(Listener(intents_of(asked)), fake) as client:
        assert isinstance(client, Listener)
        talk_in(fake, alice, bob, where)
        await heard_up_to_now(fake, client, alice, alice.guild.channel_id)
        assert (client.messages, client.typing, client.reactions) == ([], [], [])
        assert fake.session is not None and fake.session.events(*TALK) == []
        assert fake.session.withheld == {event: 1 for event in TALK}
        assert client.get_guild(alice.guild.id) is not None  # (GUILDS: its servers came)


@pytest.mark.parametrize("asked, mentioned, shown", [
    pytest.param(GUILDS | GUILD_MESSAGES, False, "", id="no content intent"),
    pytest.param(GUILDS | GUILD_MESSAGES, True, "hi <@{bot}>", id="the bot named"),
    pytest.param(GUILDS | GUILD_MESSAGES | MESSAGE_CONTENT, False, "hi", id="content intent"),
])
async def test_a_server_message_comes_without_its_words_unless_the_session_asks_or_is_named(
        people: tuple[FakeDiscord, Person, Person], asked: int, mentioned: bool,
        shown: str) -> None:
    fake, alice, _ = people
    async with running(Listener(intents_of(asked)), fake) as client:
        assert isinstance(client, Listener)
        alice.say(f"hi <@{fake.application_id}>" if mentioned else "hi")
        await heard_up_to_now(fake, client, alice, alice.guild.channel_id)
        assert [m.content for m in client.messages] == [shown.format(bot=fake.application_id)]


async def test_the_bots_own_messages_come_back_only_to_a_session_that_asks_for_messages(
        people: tuple[FakeDiscord, Person, Person]) -> None:
    fake, alice, _ = people
    for asked, heard in ((GUILDS | GUILD_MESSAGES, True), (GUILDS, False)):
        async with running(Listener(intents_of(asked)), fake) as client:
            assert isinstance(client, Listener)
            channel = client.get_channel(alice.guild.channel_id)
            assert isinstance(channel, discord.TextChannel)
            posted = await channel.send("a board")
            await posted.edit(content="the board, changed")
            await posted.delete()
            await heard_up_to_now(fake, client, alice, alice.guild.channel_id)
            assert [m.id for m in client.messages] == ([posted.id] if heard else [])
            assert [e.message_id for e in client.edits] == ([posted.id] if heard else [])
            assert [e.message_id for e in client.deletions] == ([posted.id] if heard else [])
            assert fake.session is not None
            assert sum(fake.session.withheld.values()) == (0 if heard else 3)


async def test_a_session_without_the_guilds_intent_is_not_sent_its_servers(
        people: tuple[FakeDiscord, Person, Person]) -> None:
    fake, _, _ = people
    async with running(Listener(intents_of(GUILD_MESSAGES)), fake):
        assert fake.session is not None
        assert fake.session.events("GUILD_CREATE") == []
        assert fake.session.withheld["GUILD_CREATE"] == 1
        assert fake.session.events("READY")  # (READY goes to every session)


async def test_chatter_talks_in_every_channel_and_stops_by_itself(
        people: tuple[FakeDiscord, Person, Person]) -> None:
    fake, alice, bob = people
    async with running(Listener(discord.Intents.default()), fake) as client:
        assert isinstance(client, Listener)
        async with fake.chatter(per_second=200, limit=20, react_every=5) as talk:
            await fake.wait_for(lambda: talk.done, 10, "the chatter's 20 messages")
        assert (talk.said, talk.typed, talk.reacted) == (20, 20, 4)
        for channel in alice.guild.channel_ids:  # half of them in each, kept there
            written = [m for m in fake.visible_messages(channel) if not m.data["author"]["bot"]]
            assert len(written) == 10
            assert {int(m.data["author"]["id"]) for m in written} <= {alice.id, bob.id}
        # a client with discord.py's defaults hears every word of it, and keeps it
        await heard_up_to_now(fake, client, alice, alice.guild.channel_id)
        assert (len(client.messages), len(client.typing), len(client.reactions)) == (20, 20, 4)
        assert len(client.cached_messages) == 20


async def test_chatter_stops_when_its_block_ends(
        people: tuple[FakeDiscord, Person, Person]) -> None:
    fake, _, _ = people
    async with fake.chatter(per_second=1000) as talk:
        await fake.wait_for(lambda: talk.said >= 5, 5, "a few messages")
    said = talk.said
    assert said < talk.limit
    # while another chatter says all it has to say, the first says nothing more
    async with fake.chatter(per_second=1000, limit=10) as other:
        await fake.wait_for(lambda: other.done, 5, "the other chatter's 10 messages")
    assert talk.said == said
