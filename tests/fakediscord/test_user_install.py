"""The fake Discord does what Discord does for an app installed to people's accounts
(issue 48, item 6): commands with their install types and contexts, group DMs and DMs
between people the bot is not in, servers that never invited it, 5 follow-ups where only
the user's install authorizes, tokens that die after 15 minutes, activities there."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from tests.fakediscord import ClientRefused, FakeDiscord, Person
from tests.fakediscord.conftest import running
from tests.fakediscord.rest import USER_INSTALL_REFUSALS
from tests.fakediscord.roaming_bot import RoamingBot
from tests.fakediscord.tiny_bot import TinyBot


def people(fake: FakeDiscord) -> tuple[Person, Person]:
    alice, bob = (p for p in fake.people.values() if isinstance(p, Person))
    return alice, bob


async def call(fake: FakeDiscord, method: str, path: str, *, body: Any = None,
               token: bool = True) -> tuple[int, Any]:
    """A raw request to the fake (the bot's token, or none as on interaction endpoints)."""
    headers = {"Authorization": f"Bot {fake.token}"} if token else {}
    async with aiohttp.ClientSession() as session, session.request(
            method, fake.api_base + path, json=body, headers=headers) as response:
        if response.status == 204:
            return 204, None
        return response.status, await response.json()


@pytest.fixture
async def roaming(fake: FakeDiscord) -> AsyncIterator[RoamingBot]:
    bot = RoamingBot()
    async with running(bot, fake):
        await fake.wait_for(lambda: fake.commands.get(None), 5, "the global command sync")
        yield bot


def command(fake: FakeDiscord, name: str) -> dict[str, Any]:
    return next(c for c in fake.commands[None] if c["name"] == name)


# ----------------------------------------------------------------- commands
async def test_commands_carry_their_install_types_and_contexts_at_sync(
        fake: FakeDiscord, roaming: RoamingBot) -> None:
    roam = command(fake, "roam")
    assert roam["integration_types"] == [0, 1] and roam["contexts"] == [0, 1, 2]
    home = command(fake, "homebody")  # nothing said: Discord's defaults
    assert home["integration_types"] == [0] and home["contexts"] is None
    status, listed = await call(fake, "GET", f"/applications/{fake.application_id}/commands")
    assert status == 200 and {c["name"]: c["integration_types"] for c in listed}["roam"] == [0, 1]


@pytest.mark.parametrize("field, value", [("contexts", [0, 3]), ("integration_types", [2]),
                                          ("contexts", "everywhere")])
async def test_a_sync_with_an_unknown_install_type_or_context_is_an_invalid_form_body(
        fake: FakeDiscord, field: str, value: Any) -> None:
    good = {"name": "ok", "description": "fine", "type": 1}
    bad = {"name": "bad", "description": "wrong", "type": 1, field: value}
    status, answer = await call(fake, "PUT", f"/applications/{fake.application_id}/commands",
                                body=[good, bad])
    assert status == 400 and answer["code"] == 50035
    assert answer["message"] == "Invalid Form Body"
    assert field in answer["errors"]["1"]  # (the second command's field, as Discord points)
    assert fake.commands.get(None) is None  # nothing kept
    assert [r.code for r in fake.refused_requests()] == [50035]


async def test_which_commands_a_person_sees_depends_on_the_place_and_their_install(
        fake: FakeDiscord, roaming: RoamingBot) -> None:
    guild = next(iter(fake.guilds.values()))

    def names(**where: Any) -> set[str]:
        return {c["name"] for c in fake.commands_visible(**where)}

    everything = {"roam", "ask", "homebody", "post", "spam", "later", "play"}
    assert names(context=0, guild_id=guild.id) == everything
    assert names(context=1) == everything  # the bot's DM: the app's servers installed it
    assert names(context=2) == set()  # a group DM: only a user's install reaches it
    assert names(context=2, installed_by_user=True) == everything - {"homebody"}
    foreign = fake.private.foreign_guild("Elsewhere")
    assert names(context=0, guild_id=foreign.id) == set()
    assert names(context=0, guild_id=foreign.id, installed_by_user=True) == (
        everything - {"homebody"})


async def test_the_app_offers_no_command_in_a_group_dm_to_one_who_did_not_install_it(
        fake: FakeDiscord, roaming: RoamingBot) -> None:
    alice, bob = people(fake)
    group = fake.private.group_dm(alice, bob, name="Family chat")
    with pytest.raises(ClientRefused, match="not offered here"):
        await alice.slash("roam", channel=group)
    alice.install_app()
    with pytest.raises(ClientRefused, match="not offered here"):
        await alice.slash("homebody", channel=group)  # a server install's command only
    await alice.slash("roam", channel=group)  # (now it is offered)
    with pytest.raises(ClientRefused):
        await bob.slash("roam", channel=group)  # Bob did not install it


# ----------------------------------------------------------------- where the bot is not
async def test_a_command_in_a_group_dm_is_authorized_by_its_installer_alone(
        fake: FakeDiscord, roaming: RoamingBot) -> None:
    alice, bob = people(fake)
    alice.install_app()
    group = fake.private.group_dm(alice, bob)
    used = await alice.slash("roam", channel=group)
    assert used.payload["context"] == 2
    assert used.payload["authorizing_integration_owners"] == {"1": str(alice.id)}
    assert used.payload["channel"]["type"] == 3
    assert {u["id"] for u in used.payload["channel"]["recipients"]} == {str(alice.id),
                                                                      str(bob.id)}
    assert "guild_id" not in used.payload and used.payload["user"]["id"] == str(alice.id)
    reply = await used.reply()
    assert reply.content == f"private owners 1={alice.id} guild None"
    assert reply in bob.channel_messages(group)  # the answer is in the group DM


async def test_the_bot_cannot_post_in_a_group_dm_it_is_not_in(
        fake: FakeDiscord, roaming: RoamingBot) -> None:
    alice, bob = people(fake)
    alice.install_app()
    group = fake.private.group_dm(alice, bob)
    reply = await (await alice.slash("post", channel=group)).reply()
    assert reply.content == "refused 50001" and roaming.codes == [50001]
    message = f"/channels/{group}/messages/{reply.id}"
    for method, path in [("GET", f"/channels/{group}/messages"), ("GET", f"/channels/{group}"),
                         ("PATCH", message), ("PUT", message + "/reactions/%F0%9F%91%8D/@me")]:
        status, answer = await call(fake, method, path, body={"content": "x"})
        assert (status, answer["code"], answer["message"]) == (403, 50001, "Missing Access")
    refused = fake.refused_requests(USER_INSTALL_REFUSALS)
    assert (refused[0].route, refused[0].status, refused[0].code) == (
        "POST /channels/{id}/messages", 403, 50001)
    assert len(refused) == 5


async def test_the_bot_hears_nothing_of_a_group_dm_but_the_interactions_from_it(
        fake: FakeDiscord, roaming: RoamingBot) -> None:
    alice, bob = people(fake)
    alice.install_app()
    group = fake.private.group_dm(alice, bob)
    bob.say("hello all", channel=group)
    bob.type_in(group)
    await (await alice.slash("roam", channel=group)).reply()  # (its answer lands there)
    assert fake.session is not None
    heard = [e for e in fake.session.sent if isinstance(e.get("d"), dict)
             and e["d"].get("channel_id") == str(group)]
    assert [e["t"] for e in heard] == ["INTERACTION_CREATE"]


async def test_a_dm_between_two_people_is_a_private_channel_too(
        fake: FakeDiscord, roaming: RoamingBot) -> None:
    alice, bob = people(fake)
    bob.install_app()
    between = fake.private.dm_between(alice, bob)
    assert between != fake.dm_channel(bob.id) and fake.private.dm_between(bob, alice) == between
    used = await bob.slash("roam", channel=between)
    assert used.payload["context"] == 2 and used.payload["channel"]["type"] == 1
    assert (await used.reply()).content == f"private owners 1={bob.id} guild None"
    await (await bob.slash("post", channel=between)).reply()
    assert roaming.codes == [50001]


async def test_a_click_by_anyone_in_a_group_dm_is_an_interaction_there(
        fake: FakeDiscord, roaming: RoamingBot) -> None:
    alice, bob = people(fake)
    alice.install_app()
    group = fake.private.group_dm(alice, bob)
    posted = await (await alice.slash("roam", channel=group)).reply()
    clicked = await bob.click(posted, "roam:wave")
    assert clicked.channel_id == group and clicked.payload["context"] == 2
    # the installer who made the message authorizes the click, not the clicker
    assert clicked.payload["authorizing_integration_owners"] == {"1": str(alice.id)}
    assert (await clicked.reply()).content == (
        f"wave by {bob.id}: private owners 1={alice.id} guild None")


async def test_a_modal_opened_in_a_group_dm_is_submitted_with_its_openers_owners(
        fake: FakeDiscord, roaming: RoamingBot) -> None:
    alice, bob = people(fake)
    alice.install_app()
    group = fake.private.group_dm(alice, bob)
    await alice.slash("ask", channel=group)
    submitted = await alice.submit_modal(await alice.opened_modal(), {"Answer": "blue"})
    assert submitted.payload["context"] == 2
    assert (await submitted.reply()).content == f"blue: private owners 1={alice.id} guild None"


async def test_a_server_that_never_invited_the_bot_sends_context_0_with_only_the_user(
        fake: FakeDiscord, roaming: RoamingBot) -> None:
    elsewhere = fake.private.foreign_guild("Elsewhere")
    carol = fake.add_person("Carol", elsewhere)
    carol.install_app()
    used = await carol.slash("roam")
    assert used.payload["context"] == 0 and used.payload["guild_id"] == str(elsewhere.id)
    assert used.payload["authorizing_integration_owners"] == {"1": str(carol.id)}
    assert (await used.reply()).content == (
        f"guild owners 1={carol.id} guild {elsewhere.id}")
    await (await carol.slash("post")).reply()
    assert roaming.codes == [50001]
    assert fake.session is not None
    ready_guilds = [g.id for g in fake.guilds.values()]
    assert elsewhere.id not in ready_guilds  # never in READY, no GUILD_CREATE
    status, answer = await call(
        fake, "PUT", f"/applications/{fake.application_id}/guilds/{elsewhere.id}/commands",
        body=[])
    assert (status, answer["code"]) == (403, 50001)
    with pytest.raises(ClientRefused):
        await carol.slash("homebody")  # the server's install is what offers it


async def test_the_bots_own_dm_is_authorized_by_the_server_install_as_discord_says(
        fake: FakeDiscord, roaming: RoamingBot) -> None:
    alice, _ = people(fake)
    used = await alice.slash("roam", channel=fake.dm_channel(alice.id))
    assert used.payload["context"] == 1
    assert used.payload["authorizing_integration_owners"] == {"0": "0"}
    assert (await used.reply()).content == "bot_dm owners 0=0 guild None"
    alice.install_app()
    again = await alice.slash("roam", channel=fake.dm_channel(alice.id))
    assert again.payload["authorizing_integration_owners"] == {"0": "0", "1": str(alice.id)}


async def test_a_server_that_invited_the_bot_authorizes_by_its_id(
        fake: FakeDiscord, roaming: RoamingBot) -> None:
    alice, bob = people(fake)
    guild = next(iter(fake.guilds.values()))
    bob.install_app()
    assert (await alice.slash("roam")).payload["authorizing_integration_owners"] == {
        "0": str(guild.id)}
    assert (await bob.slash("homebody")).payload["authorizing_integration_owners"] == {
        "0": str(guild.id)}  # a server-only command: the user's install does not count
    assert (await bob.slash("roam")).payload["authorizing_integration_owners"] == {
        "0": str(guild.id), "1": str(bob.id)}


# ----------------------------------------------------------------- follow-ups and tokens
async def test_a_sixth_followup_is_refused(fake: FakeDiscord, roaming: RoamingBot) -> None:
    alice, bob = people(fake)
    alice.install_app()
    group = fake.private.group_dm(alice, bob)
    used = await alice.slash("spam", channel=group, n=6)
    await fake.wait_for(lambda: len(roaming.codes) == 6, 5, "six follow-ups tried")
    assert roaming.codes == [0, 0, 0, 0, 0, 40094]
    assert len(used.followups) == 5
    (refused,) = fake.refused_requests([40094])
    assert refused.status == 400 and refused.route == "POST /webhooks/{id}/{token}"


async def test_where_a_server_installed_the_app_follow_ups_are_not_limited_to_five(
        fake: FakeDiscord, roaming: RoamingBot) -> None:
    alice, _ = people(fake)
    alice.install_app()  # (the server's install authorizes too: no limit)
    used = await alice.slash("spam", n=7)
    await fake.wait_for(lambda: len(roaming.codes) == 7, 5, "seven follow-ups")
    assert roaming.codes == [0] * 7 and len(used.followups) == 7
    assert fake.refused_requests() == []


async def test_a_token_is_dead_after_fifteen_minutes(fake: FakeDiscord,
                                                      roaming: RoamingBot) -> None:
    alice, bob = people(fake)
    alice.install_app()
    group = fake.private.group_dm(alice, bob)
    used = await alice.slash("later", channel=group)
    await fake.wait_for(lambda: roaming.waiting, 5, "the deferral")
    (waiting,) = roaming.waiting
    await waiting.edit_original_response(content="still in time")  # at 0 minutes
    fake.clock.advance(14 * 60)
    await waiting.followup.send("at 14 minutes")
    fake.clock.advance(2 * 60)
    for method, path in [("POST", ""), ("GET", "/messages/@original"),
                         ("PATCH", "/messages/@original"),
                         ("DELETE", f"/messages/{used.followups[0].id}")]:
        status, answer = await call(fake, method,
                                    f"/webhooks/{fake.application_id}/{used.token}{path}",
                                    body={"content": "too late"}, token=False)
        assert (status, answer["code"], answer["message"]) == (404, 10015, "Unknown Webhook")
    assert len(fake.refused_requests(USER_INSTALL_REFUSALS)) == 4
    assert used.original is not None and used.original.content == "still in time"


async def test_the_three_second_deadline_runs_on_the_same_clock(
        fake: FakeDiscord, roaming: RoamingBot) -> None:
    alice, _ = people(fake)
    hold = fake.faults.slow(5.0, method="POST", path=r"/callback$")  # the bot's answer waits
    roam = {"id": command(fake, "roam")["id"], "name": "roam", "type": 1}
    used = fake.start_interaction(alice, 2, roam, next(iter(fake.guilds.values())).channel_id)
    await fake.wait_for(lambda: hold.holding, 5, "the bot's callback, held")
    fake.clock.advance(4)
    hold.release()
    await fake.wait_for(lambda: fake.refused_requests([10062]), 5, "the late callback refused")
    assert not used.acknowledged


# ----------------------------------------------------------------- activities
@pytest.fixture
async def with_activity() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(activities=True) as server:
        server.add_guild("Family")
        server.add_person("Alice")
        server.add_person("Bob")
        with server.pointed_at():
            yield server


async def instance(fake: FakeDiscord, instance_id: str) -> dict[str, Any]:
    status, answer = await call(
        fake, "GET", f"/applications/{fake.application_id}/activity-instances/{instance_id}")
    assert status == 200, answer
    assert isinstance(answer, dict)
    return answer


async def test_an_activity_in_a_group_dm_is_of_kind_pc(with_activity: FakeDiscord) -> None:
    fake = with_activity
    alice, bob = people(fake)
    group = fake.private.group_dm(alice, bob)
    guild = next(iter(fake.guilds.values()))
    async with running(TinyBot(guild.id), fake):  # (a bot on the gateway, which ignores it)
        clicked = fake.start_interaction(alice, 2, {"id": "1", "name": "launch", "type": 1},
                                         group)
        status, answer = await call(
            fake, "POST", f"/interactions/{clicked.id}/{clicked.token}/callback",
            body={"type": 12}, token=False)
    assert status == 200, answer
    (launch,) = fake.activities.launches
    assert answer["resource"]["activity_instance"]["id"] == launch.instance.id
    location = (await instance(fake, launch.instance.id))["location"]
    assert location["kind"] == "pc" and location["channel_id"] == str(group)
    assert "guild_id" not in location and location["id"].startswith("pc-")
    assert (await instance(fake, launch.instance.id))["users"] == [str(alice.id)]
    in_dm = fake.activities.open(bob, fake.private.dm_between(alice, bob))
    assert (await instance(fake, in_dm.id))["location"]["kind"] == "pc"
    in_server = fake.activities.open(bob, guild.channel_id)
    location = (await instance(fake, in_server.id))["location"]
    assert location["kind"] == "gc" and location["guild_id"] == str(guild.id)
