"""Modals through the fake Discord: the bot opens one, a person fills it in and submits."""

from __future__ import annotations

import pytest

from tests.fakediscord import ClientRefused, FakeDiscord
from tests.fakediscord.tiny_bot import TinyBot
from tests.fakediscord.validation import check_modal


def people(fake: FakeDiscord):
    return list(fake.people.values())


async def test_a_slash_command_opens_a_modal_and_its_submit_is_answered(
        fake: FakeDiscord, tiny: TinyBot) -> None:
    alice, _ = people(fake)
    opening = await alice.slash("child")
    assert opening.callback_type == 9
    modal = await alice.opened_modal()
    assert modal.title == "Add a child" and modal.interaction is opening
    assert [(f.label, f.style, f.required) for f in modal.fields] == [
        ("Child's name", 1, True), ("Note", 2, False)]
    assert modal.field("Child's name").max_length == 20
    submit = await alice.submit_modal(modal, {"Child's name": "Emma"})
    assert submit.type == 5 and submit.payload["data"]["custom_id"] == "tiny:child"
    reply = await submit.reply()
    assert reply.content == "added Emma (plays blue)"  # the untouched field keeps its text
    assert modal.closed and modal.submit is submit
    assert fake.open_modal(alice.id) is None


async def test_the_submit_carries_the_values_as_discord_sends_them(fake: FakeDiscord,
                                                                   tiny: TinyBot) -> None:
    alice, _ = people(fake)
    await alice.slash("child")
    submit = await alice.submit_modal(await alice.opened_modal(),
                                      {"tiny:child:name": "Ola", "Note": "plays red"})
    rows = submit.payload["data"]["components"]
    assert rows == [
        {"type": 1, "components": [{"type": 4, "custom_id": "tiny:child:name",
                                    "value": "Ola"}]},
        {"type": 1, "components": [{"type": 4, "custom_id": "tiny:child:note",
                                    "value": "plays red"}]},
    ]
    assert (await submit.reply()).content == "added Ola (plays red)"


async def test_a_labelled_modal_submits_its_value_inside_the_label(fake: FakeDiscord,
                                                                   tiny: TinyBot) -> None:
    alice, _ = people(fake)
    await alice.slash("child_label")
    modal = await alice.opened_modal()
    assert [f.label for f in modal.fields] == ["Child's name"]
    submit = await alice.submit_modal(modal, {"Child's name": "Emma"})
    (label,) = [c for c in submit.payload["data"]["components"] if c["type"] == 18]
    assert label["component"] == {"type": 4, "custom_id": "tiny:label:name", "value": "Emma",
                                  **({"id": label["component"]["id"]}
                                     if "id" in label["component"] else {})}
    assert (await submit.reply()).content == "added Emma"


async def test_a_modal_submit_may_be_deferred_and_filled_in(fake: FakeDiscord,
                                                            tiny: TinyBot) -> None:
    alice, _ = people(fake)
    await alice.slash("child", answer="defer")
    submit = await alice.submit_modal(await alice.opened_modal(), {"Child's name": "Emma"})
    assert submit.callback_type == 5
    assert (await submit.reply()).content == "added Emma (plays blue)"


async def test_a_modal_submit_may_be_answered_privately(fake: FakeDiscord,
                                                        tiny: TinyBot) -> None:
    alice, bob = people(fake)
    await alice.slash("child", answer="secret")
    reply = await (await alice.submit_modal(await alice.opened_modal(),
                                            {"Child's name": "Emma"})).reply()
    assert reply.ephemeral and reply in alice.ephemerals()
    assert reply not in bob.channel_messages()


async def test_a_button_opens_a_modal_whose_submit_updates_the_message(fake: FakeDiscord,
                                                                       tiny: TinyBot) -> None:
    alice, _ = people(fake)
    lobby = await (await alice.slash("lobby")).reply()
    click = await alice.click(lobby, label="Add a child")
    assert click.callback_type == 9
    modal = await alice.opened_modal()
    submit = await alice.submit_modal(modal, {"Child's name": "Emma"})
    assert submit.payload["message"]["id"] == str(lobby.id)
    assert submit.callback_type == 7
    assert lobby.content == "lobby: Emma" and lobby.buttons() == []


async def test_the_discord_app_refuses_a_submit_outside_the_fields_limits(
        fake: FakeDiscord, tiny: TinyBot) -> None:
    alice, bob = people(fake)
    await alice.slash("child")
    modal = await alice.opened_modal()
    sent_before = len(fake.interactions)
    with pytest.raises(ClientRefused, match="required"):
        await alice.submit_modal(modal, {})  # the name is required and empty
    with pytest.raises(ClientRefused, match="at most 20"):
        await alice.submit_modal(modal, {"Child's name": "E" * 21})
    with pytest.raises(ClientRefused, match="at most 100"):
        await alice.submit_modal(modal, {"Child's name": "Emma", "Note": "x" * 101})
    with pytest.raises(ClientRefused, match="one line"):
        await alice.submit_modal(modal, {"Child's name": "Em\nma"})
    with pytest.raises(ClientRefused, match="no text input"):
        await alice.submit_modal(modal, {"Age": "6"})
    with pytest.raises(ClientRefused, match="someone else's"):
        await bob.submit_modal(modal, {"Child's name": "Emma"})
    assert len(fake.interactions) == sent_before and not modal.closed
    await alice.submit_modal(modal, {"Child's name": "Emma"})
    with pytest.raises(ClientRefused, match="no longer open"):
        await alice.submit_modal(modal, {"Child's name": "Emma"})


async def test_a_dismissed_modal_tells_the_bot_nothing(fake: FakeDiscord, tiny: TinyBot) -> None:
    alice, _ = people(fake)
    await alice.slash("child")
    modal = await alice.opened_modal()
    sent_before = len(fake.interactions)
    alice.dismiss_modal(modal)
    assert fake.open_modal(alice.id) is None and len(fake.interactions) == sent_before
    with pytest.raises(TimeoutError):
        await alice.opened_modal(timeout=0.05)


async def test_discord_refuses_a_modal_with_a_title_over_45_characters(
        fake: FakeDiscord, tiny: TinyBot) -> None:
    alice, _ = people(fake)
    interaction = fake.start_interaction(alice, 2, alice.command_data(
        "badmodal", alice.guild.channel_id, {}, None), alice.guild.channel_id)
    await fake.wait_for(lambda: tiny.modal_error, 5, "the refused modal")
    assert tiny.modal_error == 50035
    assert not interaction.acknowledged and fake.open_modal(alice.id) is None


def _modal(**text_input: object) -> dict[str, object]:
    field = {"type": 4, "custom_id": "name", "label": "Name", "style": 1, **text_input}
    return {"custom_id": "m", "title": "Add a child",
            "components": [{"type": 1, "components": [field]}]}


@pytest.mark.parametrize(("modal", "problem"), [
    ({**_modal(), "title": "T" * 46}, "title"),
    ({**_modal(), "components": []}, "1 to 5"),
    ({**_modal(), "components": _modal()["components"] * 6}, "1 to 5"),  # type: ignore[operator]
    (_modal(style=3), "style"),
    (_modal(label="L" * 46), "label"),
    (_modal(label=None), "label"),
    (_modal(custom_id=""), "custom_id"),
    (_modal(min_length=4001), "min_length"),
    (_modal(max_length=0), "max_length"),
    (_modal(max_length=4001), "max_length"),
    (_modal(min_length=10, max_length=5), "over max_length"),
    ({"custom_id": "m", "title": "Two rows, one id",
      "components": _modal()["components"] * 2}, "used twice"),  # type: ignore[operator]
])
def test_discord_checks_a_modal_like_this(modal: dict[str, object], problem: str) -> None:
    found = check_modal(modal)
    assert found is not None and problem in found


def test_a_label_wrapping_a_text_input_is_a_valid_modal_row() -> None:
    modal = {"custom_id": "m", "title": "Add a child", "components": [
        {"type": 10, "content": "Who plays with you?"},
        {"type": 18, "label": "Child's name",
         "component": {"type": 4, "custom_id": "name", "style": 1, "max_length": 20}}]}
    assert check_modal(modal) is None
    assert check_modal(_modal(min_length=0, max_length=4000)) is None
