"""A lobby changed by a click on it is shown through that click (an interaction endpoint,
outside the token's global limit), so a room of tables opening at once does not hold a
family's Join or Start behind everyone's hellos and hands; changed any other way (a
command), its message is edited as before."""

from __future__ import annotations

from tests.community.play import add_computer, lobby_of, seat
from tests.e2e.conftest import World
from tests.e2e.people import boards
from tests.fakediscord import FakeDiscord, FakeMessage


def lobby_edits(fake: FakeDiscord, lobby: FakeMessage) -> tuple[int, int]:
    """The lobby's edits: through the token's budget (``PATCH /channels/…/messages/…``),
    and through a click's webhook (``PATCH /webhooks/…/@original`` of a click on it)."""
    counted = sum(1 for r in fake.rate_limited_requests()
                  if r.method == "PATCH" and r.path == f"/channels/{lobby.channel_id}"
                  f"/messages/{lobby.id}")
    clicked = {i.token for i in fake.interactions.values()
               if i.payload.get("message", {}).get("id") == str(lobby.id)}
    through = sum(1 for r in fake.interaction_requests()
                  if r.method == "PATCH" and r.path.endswith("/messages/@original")
                  and any(token in r.path for token in clicked))
    return counted, through


async def test_join_a_computer_and_start_clicked_on_the_lobby_edit_it_through_the_clicks(
        world: World) -> None:
    fake, channel = world.discord, world.guild.channel_id
    alice, bob = world["Alice"], world["Bob"]
    lobby = await lobby_of(world, alice)
    await seat(world, lobby, bob)
    await add_computer(world, lobby, alice, "easy")
    assert lobby_edits(fake, lobby) == (0, 2)
    start = next(b for b in lobby.buttons() if b["custom_id"].endswith(":start"))
    await (await alice.click(lobby, start["custom_id"])).wait_ack()
    await fake.wait_for(lambda: boards(fake, channel), 5, "the first board")
    await fake.wait_for(lambda: not lobby.buttons() or "start" not in " ".join(
        lobby.custom_ids()), 5, "the lobby closed")
    counted, through = lobby_edits(fake, lobby)
    assert counted == 0 and through == 3
    assert "Bob" in lobby.text


async def test_a_lobby_changed_by_a_command_is_edited_as_before(world: World) -> None:
    fake = world.discord
    alice, bob = world["Alice"], world["Bob"]
    lobby = await lobby_of(world, alice)
    await (await bob.slash("sequence join")).wait_ack()
    await fake.wait_for(lambda: "Bob" in lobby.text, 5, "Bob seated")
    assert lobby_edits(fake, lobby) == (1, 0)
