"""The fake Discord serves the real discord.py client: a tiny bot does each thing once."""

from __future__ import annotations

import pytest

from tests.fakediscord import ClientRefused, FakeDiscord
from tests.fakediscord.conftest import running
from tests.fakediscord.tiny_bot import TinyBot


def people(fake: FakeDiscord):
    return list(fake.people.values())


async def test_a_real_client_connects_and_registers_its_commands(fake: FakeDiscord,
                                                                 tiny: TinyBot) -> None:
    guild = next(iter(fake.guilds.values()))
    assert tiny.user is not None and tiny.user.id == fake.application_id
    assert tiny.get_guild(guild.id) is not None
    commands = {c["name"]: c for c in fake.commands[guild.id]}
    assert {"ping", "dm", "secret", "picture", "buttons", "pick"} <= set(commands)
    assert commands["ping"]["description_localizations"] == {"no": "Svarer pong"}
    assert fake.identified == 1
    assert fake.unhandled == []


async def test_a_slash_command_gets_its_reply(fake: FakeDiscord, tiny: TinyBot) -> None:
    alice, _ = people(fake)
    reply = await (await alice.slash("ping", n=3)).reply()
    assert reply.content == "pong 3"
    assert not reply.ephemeral
    assert reply in alice.channel_messages()


async def test_the_discord_app_refuses_options_out_of_range(fake: FakeDiscord,
                                                            tiny: TinyBot) -> None:
    alice, _ = people(fake)
    with pytest.raises(ClientRefused):
        await alice.slash("ping", n=11)
    with pytest.raises(ClientRefused):
        await alice.slash("ping", colour="red")
    with pytest.raises(ClientRefused):
        await alice.slash("pick")  # animal is required


async def test_an_ephemeral_reply_is_seen_only_by_its_reader(fake: FakeDiscord,
                                                             tiny: TinyBot) -> None:
    alice, bob = people(fake)
    reply = await (await alice.slash("secret")).reply()
    assert reply.ephemeral and reply.content == "only you"
    assert reply in alice.ephemerals()
    assert reply not in bob.channel_messages()
    assert "only you" not in fake.public_texts()


async def test_a_dm_arrives_with_a_button_that_works(fake: FakeDiscord, tiny: TinyBot) -> None:
    alice, _ = people(fake)
    assert (await (await alice.slash("dm")).reply()).content == "sent"
    dm = await alice.next_dm()
    assert dm.content == "hello by DM"
    await (await alice.click(dm, "tiny:press:0")).wait_ack()
    assert dm.content == "pressed 1"
    assert dm.custom_ids() == ["tiny:press:1"]


async def test_closed_dms_answer_403_with_code_50007(fake: FakeDiscord, tiny: TinyBot) -> None:
    alice, _ = people(fake)
    fake.faults.closed_dms.add(alice.id)
    reply = await (await alice.slash("dm")).reply()
    assert reply.content == "closed 50007"
    assert alice.dms() == []


async def test_an_uploaded_file_keeps_its_bytes_and_alt_text(fake: FakeDiscord,
                                                             tiny: TinyBot) -> None:
    alice, _ = people(fake)
    reply = await (await alice.slash("picture")).reply()
    (png,) = reply.png_files()
    assert png.filename == "dot.png" and png.description == "one green dot"
    assert reply.data["attachments"][0]["description"] == "one green dot"


async def test_buttons_and_select_menus_reach_their_dynamic_items(fake: FakeDiscord,
                                                                  tiny: TinyBot) -> None:
    alice, _ = people(fake)
    message = await (await alice.slash("buttons")).reply()
    with pytest.raises(ClientRefused):
        await alice.select(message, "tiny:pick", ["99"])
    choice = await alice.select(message, "tiny:pick", ["7"])
    answer = await choice.reply()
    assert answer.content == "picked 7" and answer.ephemeral
    click = await alice.click(message, label="Pressed 0")
    assert click.callback_type == 7 and message.content == "pressed 1"


async def test_a_deferred_reply_is_filled_in_and_followed_up(fake: FakeDiscord,
                                                              tiny: TinyBot) -> None:
    alice, _ = people(fake)
    interaction = await alice.slash("slow")
    assert interaction.callback_type == 5
    await fake.wait_for(lambda: interaction.followups, 5, "the followup")
    assert interaction.original is not None
    assert interaction.original.content == "done slowly" and not interaction.original.loading
    assert interaction.followups[0].png_files()


async def test_channel_messages_are_sent_and_edited(fake: FakeDiscord, tiny: TinyBot) -> None:
    alice, _ = people(fake)
    assert (await (await alice.slash("post")).reply()).content == "posted"
    assert [m.content for m in fake.visible_messages(alice.guild.channel_id)] == ["edited"]


async def test_autocomplete_offers_the_bots_choices(fake: FakeDiscord, tiny: TinyBot) -> None:
    alice, _ = people(fake)
    choices = await alice.autocomplete("pick", "animal", "la")
    assert choices == [{"name": "Lamb", "value": "lamb"}]


async def test_a_late_answer_is_refused_as_unknown_interaction(fake: FakeDiscord,
                                                               tiny: TinyBot) -> None:
    alice, _ = people(fake)
    fake.interaction_deadline = 0.1
    interaction = fake.start_interaction(alice, 2, alice.command_data(
        "late", alice.guild.channel_id, {}, None), alice.guild.channel_id)
    await fake.wait_for(lambda: tiny.late_error, 5, "the late reply")
    assert tiny.late_error == 10062
    assert not interaction.acknowledged


async def test_a_rate_limit_is_waited_out_transparently(fake: FakeDiscord, tiny: TinyBot) -> None:
    alice, _ = people(fake)
    fault = fake.faults.rate_limit(times=1, retry_after=0.05, method="POST", path=r"/messages$")
    assert (await (await alice.slash("post")).reply(timeout=5)).content == "posted"
    assert fault.hits == 1
    statuses = [r.status for r in fake.requests if r.path.endswith("/messages")]
    assert statuses[:2] == [429, 200]


async def test_a_server_error_is_retried(fake: FakeDiscord, tiny: TinyBot) -> None:
    alice, _ = people(fake)
    fake.faults.server_errors(502, times=1, method="POST", path=r"/messages$")
    assert (await (await alice.slash("post")).reply(timeout=5)).content == "posted"
    assert [m.content for m in fake.visible_messages(alice.guild.channel_id)] == ["edited"]


async def test_a_dropped_gateway_resumes_and_replays_what_was_missed(fake: FakeDiscord,
                                                                     tiny: TinyBot) -> None:
    alice, _ = people(fake)
    await fake.disconnect(resume=True)
    # sent while the bot is away: buffered, then replayed on RESUME
    interaction = fake.start_interaction(alice, 2, alice.command_data(
        "ping", alice.guild.channel_id, {"n": 2}, None), alice.guild.channel_id)
    assert (await interaction.reply()).content == "pong 2"
    assert fake.resumed == 1 and fake.identified == 1


@pytest.mark.slow
async def test_an_invalidated_session_identifies_again(fake: FakeDiscord, tiny: TinyBot) -> None:
    alice, _ = people(fake)
    await fake.disconnect(resume=False)
    # discord.py waits 5 s before a repeated IDENTIFY (Client.before_identify_hook)
    await fake.wait_for(lambda: fake.identified == 2, 10, "a new IDENTIFY")
    assert (await (await alice.slash("ping")).reply()).content == "pong 1"


async def test_everything_the_bot_sent_is_recorded(fake: FakeDiscord, tiny: TinyBot) -> None:
    alice, _ = people(fake)
    await (await alice.slash("picture")).reply()
    callbacks = [r for r in fake.requests if r.path.endswith("/callback")]
    assert callbacks[-1].files and callbacks[-1].files[0][1].startswith(b"\x89PNG")
    assert any(f.get("op") == 2 for f in fake.gateway_received)
    assert all(fake.token not in str(r.body) for r in fake.requests)


async def test_an_auto_sharded_bot_finds_the_gateway_through_gateway_bot(fake: FakeDiscord
                                                                        ) -> None:
    import discord
    from discord.ext import commands

    bot = commands.AutoShardedBot(command_prefix=commands.when_mentioned,
                                  intents=discord.Intents.default(), guild_ready_timeout=0.01)
    async with running(bot, fake):
        assert bot.shard_count == 1 and bot.is_ready()
    assert any(r.path == "/gateway/bot" for r in fake.requests)


async def test_with_the_members_intent_every_member_arrives_without_chunking(
        fake: FakeDiscord) -> None:
    import discord
    from discord.ext import commands

    intents = discord.Intents.default()
    intents.members = True
    bot = commands.Bot(command_prefix=commands.when_mentioned, intents=intents,
                       guild_ready_timeout=0.01)
    async with running(bot, fake):
        guild = bot.guilds[0]
        assert guild.chunked and {m.name for m in guild.members} >= {"Alice", "Bob"}


async def test_a_reloaded_app_forgets_ephemeral_messages_but_keeps_the_rest(
        fake: FakeDiscord, tiny: TinyBot) -> None:
    alice, bob = people(fake)
    await (await alice.slash("dm")).reply()  # "sent" (ephemeral) and a DM with a button
    dm = await alice.next_dm()
    secret = await (await alice.slash("secret")).reply()
    public = await (await alice.slash("buttons")).reply()
    assert secret in alice.channel_messages() and secret.ephemeral
    alice.reload_app()
    assert secret not in alice.channel_messages() and alice.ephemerals() == []
    assert public in alice.channel_messages() and dm in alice.dms()
    with pytest.raises(ClientRefused, match="forgot"):
        await alice.click(secret, "tiny:press:0")
    await (await alice.click(dm, "tiny:press:0")).wait_ack()  # the DM stays clickable
    # one person's reload is theirs alone, and what comes after it is shown again
    again = await (await alice.slash("secret")).reply()
    assert again in alice.channel_messages()
    bobs = await (await bob.slash("secret")).reply()
    alice.reload_app()
    assert bobs in bob.channel_messages()


async def test_a_wait_that_times_out_names_the_bots_last_requests(fake: FakeDiscord,
                                                                   tiny: TinyBot) -> None:
    # (a flake then says what the bot did instead of what the test waited for)
    alice, _ = people(fake)
    await (await alice.slash("ping", n=3)).reply()
    with pytest.raises(TimeoutError) as failed:
        await fake.wait_for(lambda: None, 0.2, "something that never comes")
    said = str(failed.value)
    assert "waiting for something that never comes" in said
    assert "the bot's last requests" in said
    assert "POST /interactions/{id}/{token}/callback -> 200: type 4; 'pong 3'" in said, said
