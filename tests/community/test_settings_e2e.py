"""/sequence settings: only for Manage Server, every change stored and shown back."""

from __future__ import annotations

from pathlib import Path

from tests.community.conftest import MANAGE_GUILD
from tests.community.play import lobby_of
from tests.e2e.conftest import World, running_bot
from tests.fakediscord import FakeDiscord, Person
from tests.fakediscord.payloads import MEMBER_PERMISSIONS


def admin(world: World, name: str = "Mum", locale: str = "en-US") -> Person:
    return world.discord.add_person(name, world.guild, locale=locale,
                                    permissions=MEMBER_PERMISSIONS | MANAGE_GUILD)


def fields(message) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {f["name"]: f["value"] for e in message.embeds for f in e.get("fields", [])}


async def test_a_player_without_manage_server_cannot_change_settings(world: World) -> None:
    reply = await (await world["Bob"].slash("sequence settings", turn_timer=1)).reply()
    assert reply.ephemeral and reply.content == (
        "Only people who may Manage Server can change the settings.")
    settings = await world.bot.manager.guild_settings(world.guild.id)
    assert settings.turn_timer is None


async def test_the_turn_timer_and_what_happens_on_time_out_are_saved_and_shown(world: World
                                                                              ) -> None:
    mum = admin(world)
    reply = await (await mum.slash("sequence settings", turn_timer=2, on_timeout="skip")).reply()
    assert reply.ephemeral and reply.content.startswith("Saved.")
    got = fields(reply)
    assert got["Turn timer"] == "2 min per turn"
    assert got["When a turn times out"] == "Their turn is skipped"
    settings = await world.bot.manager.guild_settings(world.guild.id)
    assert (settings.turn_timer, settings.timeout_action) == (120, "skip")
    off = fields(await (await mum.slash("sequence settings", turn_timer=0)).reply())
    assert off["Turn timer"] == "off" and off["When a turn times out"] == "Their turn is skipped"


async def test_default_options_apply_to_the_next_new_game(world: World) -> None:
    mum = admin(world)
    reply = await (await mum.slash("sequence settings", defaults_for="kids", level="1")).reply()
    assert fields(reply)["Default options"] == "Sequence for Kids: Beginner 1"
    lobby = await lobby_of(world, world["Alice"])
    assert "Level: Beginner 1" in lobby.text
    reply = await (await mum.slash("sequence settings", defaults_for="dice",
                                   sequence_length=5)).reply()
    assert fields(reply)["Default options"] == (
        "Sequence for Kids: Beginner 1\nSequence Dice: 5 in a row")


async def test_an_option_of_the_other_game_is_explained(world: World) -> None:
    mum = admin(world)
    reply = await (await mum.slash("sequence settings", defaults_for="dice", level="2")).reply()
    assert reply.ephemeral and "Sequence for Kids option" in reply.content
    reply = await (await mum.slash("sequence settings", level="2")).reply()
    assert "Say which game" in reply.content
    assert (await world.bot.manager.guild_settings(world.guild.id)).defaults == {}


async def test_thread_and_tidy_choices_are_kept(world: World) -> None:
    mum = admin(world)
    await (await mum.slash("sequence settings", own_thread=True)).reply()
    shown = fields(await (await mum.slash("sequence settings", tidy_boards=True)).reply())
    assert shown["Games in a thread of their own"] == "on"
    assert shown["Tidy old board messages"] == "on"
    looked = await (await mum.slash("sequence settings")).reply()
    assert looked.content.startswith("This is how Family plays now")
    assert fields(looked)["Games in a thread of their own"] == "on"


async def test_the_settings_speak_norwegian(norsk: World) -> None:
    mor = admin(norsk, "Mor", locale="no")
    refusal = await (await norsk["Ola"].slash("sequence settings", turn_timer=3)).reply()
    assert "Bare de som kan administrere serveren" in refusal.content
    reply = await (await mor.slash("sequence settings", turn_timer=3,
                                   on_timeout="computer")).reply()
    got = fields(reply)
    assert reply.content.startswith("Lagret.")
    assert got["Turtid"] == "3 min per tur"
    assert got["Når tiden for en tur går ut"] == "En datamaskinspiller gjør trekket"
    assert got["Språk i kanalene"] == "Norsk (bokmål)"


async def test_the_new_commands_have_norwegian_names(norsk: World) -> None:
    (sequence,) = [c for c in norsk.discord.commands[norsk.guild.id] if c["name"] == "sequence"]
    subs = {o["name"]: o for o in sequence["options"]}
    assert subs["stats"]["name_localizations"]["no"] == "statistikk"
    assert subs["leaderboard"]["name_localizations"]["no"] == "toppliste"
    assert subs["settings"]["name_localizations"]["no"] == "innstillinger"
    timer = next(o for o in subs["settings"]["options"] if o["name"] == "turn_timer")
    assert (timer["min_value"], timer["max_value"]) == (0, 1440)
    assert timer["name_localizations"]["no"] == "turtid"


async def test_settings_survive_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "sequence.db"
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        alice = fake.add_person("Alice", guild)
        mum = fake.add_person("Mum", guild, permissions=MEMBER_PERMISSIONS | MANAGE_GUILD)
        with fake.pointed_at():
            async with running_bot(fake, guild, db):
                await (await mum.slash("sequence settings", language="no", turn_timer=5,
                                       tidy_boards=True)).reply()
            async with running_bot(fake, guild, db) as bot:
                shown = fields(await (await mum.slash("sequence settings")).reply())
                assert shown["Language in channels"] == "Norsk (bokmål)"
                assert shown["Turn timer"] == "5 min per turn"
                assert shown["Tidy old board messages"] == "on"
                assert bot.desk is not None and bot.desk.prefs.tidies(guild.id)
                lobby = await (await alice.slash("sequence new", game="dice")).reply()
                assert "et nytt parti" in lobby.text
