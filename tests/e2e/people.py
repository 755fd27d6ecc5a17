"""What players do and read, in the game's words, on top of the fake Discord's people."""

from __future__ import annotations

import re

from tests.fakediscord import ClientRefused, FakeDiscord, FakeMessage, Person


def boards(fake: FakeDiscord, channel_id: int) -> list[FakeMessage]:
    """The board pictures posted in a channel, oldest first."""
    return [m for m in fake.visible_messages(channel_id)
            if any(f.filename == "board.png" for f in m.files)]


def mentioned(message: FakeMessage) -> list[int]:
    return [int(x) for x in re.findall(r"<@!?(\d+)>", message.content)]


def hand_in(messages: list[FakeMessage]) -> FakeMessage | None:
    """The newest of ``messages`` that holds card buttons."""
    for message in reversed(messages):
        if any(c.startswith("seq:card:") for c in message.custom_ids()):
            return message
    return None


async def latest_hand(person: Person, after: int = 0) -> FakeMessage:
    """The newest hand by DM among DMs past the first ``after`` (waits for it)."""
    return await person.server.wait_for(lambda: hand_in(person.dms()[after:]), 5,
                                        f"{person.name}'s hand by DM")


async def choose_first(person: Person, prompt: FakeMessage):
    """Click the first offered move on a prompt (a button, or the first select option)."""
    buttons = [b for b in prompt.buttons() if b["custom_id"].startswith("seq:play:")]
    if buttons:
        return await person.click(prompt, buttons[0]["custom_id"])
    menu = prompt.selects()[0]
    return await person.select(prompt, menu["custom_id"], [menu["options"][0]["value"]])


async def play_from_hand(person: Person, hand: FakeMessage) -> str:
    """Play a card the way a child would: click cards until one offers a space, take it.

    Returns the custom_id of the move chosen.
    """
    for card_id in [c for c in hand.custom_ids() if c.startswith("seq:card:")]:
        prompt = await (await person.click(hand, card_id)).reply()
        if not prompt.components():
            continue  # refused (e.g. a dead card with no exchange left): try the next card
        click = await choose_first(person, prompt)
        await click.wait_ack()
        return card_id
    raise ClientRefused(f"{person.name} found no playable card")
