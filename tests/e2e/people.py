"""What players do and read, in the game's words, on top of the fake Discord's people."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from tests.fakediscord import ClientRefused, FakeDiscord, FakeMessage, Interaction, Person

# A move's answer to the mover (the hand kept in place, "Played: ...", a roll that allowed
# no move) comes after the move's board, and a channel's pace (the bot's CHANNEL_PACE,
# Discord's 5 messages per 5 s) holds a board up to 5 s when people play as fast as a
# bench's do: a wait for such an answer must cover it (the tests run with no pace)
AFTER_BOARD_S = 15.0

Turn = Callable[[Person, FakeMessage], Awaitable[object]]


def boards(fake: FakeDiscord, channel_id: int) -> list[FakeMessage]:
    """The board pictures posted in a channel, oldest first."""
    return [m for m in fake.visible_messages(channel_id)
            if any(f.filename == "board.png" for f in m.files)]


def boards_posted(fake: FakeDiscord, channel_id: int) -> list[FakeMessage]:
    """Every board picture posted in a channel, oldest first, those tidied away since (only
    the newest board stays, where a server asks so and in the bot's own DM) included."""
    return [m for m in fake.channel_messages.get(channel_id, []) if m.visible_to is None
            and any(f.filename == "board.png" for f in m.files)]


def final_board(fake: FakeDiscord, channel_id: int) -> FakeMessage | None:
    return next((b for b in boards(fake, channel_id)
                 if any(c.startswith("seq:rematch:") for c in b.custom_ids())), None)


def whose_turn(message: FakeMessage) -> int | None:
    """The person mentioned on the last line ("It's @Bob's turn."), if any."""
    last = message.content.strip().splitlines()[-1] if message.content.strip() else ""
    found = re.findall(r"<@!?(\d+)>", last)
    return int(found[-1]) if found else None


def hand_in(messages: list[FakeMessage]) -> FakeMessage | None:
    """The newest of ``messages`` that holds card buttons."""
    for message in reversed(messages):
        if any(c.startswith("seq:card:") for c in message.custom_ids()):
            return message
    return None


async def begin_game(fake: FakeDiscord, host: Person, *guests: Person, game: str = "kids",
                     channel: int | None = None, timeout: float = 5.0, **options: object
                     ) -> tuple[FakeMessage, FakeMessage]:
    """The one way a test starts a game through Discord: ``host`` opens a lobby
    (``/sequence new`` with ``options``), each guest presses Join, the host presses Start.
    Returns the lobby message and the first board (in the channel, or in the thread opened
    from the lobby message when the server plays each game in a thread of its own)."""
    lobby = await (await host.slash("sequence new", channel=channel, game=game,
                                     timeout=timeout, **options)).reply(timeout=timeout)
    for guest in guests:
        join = next(b["custom_id"] for b in lobby.buttons() if b["custom_id"].endswith(":join"))
        await (await guest.click(lobby, join, timeout=timeout)).wait_ack(timeout)
        await fake.wait_for(lambda g=guest: g.name in lobby.text, timeout, f"{guest.name} seated")
    start = next(b["custom_id"] for b in lobby.buttons() if b["custom_id"].endswith(":start"))
    await (await host.click(lobby, start, timeout=timeout)).wait_ack(timeout)
    first = await fake.wait_for(
        lambda: (boards(fake, lobby.channel_id) or boards(fake, lobby.id))[:1], timeout,
        "the first board")
    return lobby, first[0]


async def latest_hand(person: Person, after: int = 0, timeout: float = 15.0) -> FakeMessage:
    """The newest hand by DM among DMs past the first ``after`` (waits for it)."""
    return await person.server.wait_for(lambda: hand_in(person.dms()[after:]), timeout,
                                        f"{person.name}'s hand by DM")


async def choose_first(person: Person, prompt: FakeMessage, timeout: float = 5.0
                       ) -> Interaction:
    """Click the first offered move on a prompt (a button, or the first select option)."""
    buttons = [b for b in prompt.buttons() if b["custom_id"].startswith("seq:play:")]
    if buttons:
        return await person.click(prompt, buttons[0]["custom_id"], timeout=timeout)
    menu = prompt.selects()[0]
    return await person.select(prompt, menu["custom_id"], [menu["options"][0]["value"]],
                               timeout=timeout)


NOT_YOUR_TURN = "It's not your turn."
GAME_OVER = "That game is no longer running."


def game_of(board: FakeMessage) -> int | None:
    """The game a board (or a hand message) belongs to, read from its buttons."""
    for custom_id in board.custom_ids():
        found = re.match(r"seq:(?:hand|card|back|play|spaces|roll|rematch:again):(\d+)",
                         custom_id)
        if found:
            return int(found[1])
    return None


def card_ids(message: FakeMessage) -> list[str]:
    return [c for c in message.custom_ids() if c.startswith("seq:card:")]


def shows_choices(message: FakeMessage) -> bool:
    """Whether a message offers moves (numbered spaces, menus, an exchange)."""
    return any(c.startswith(("seq:play:", "seq:spaces:")) for c in message.custom_ids())


def hand_message(person: Person, game_id: int | None) -> FakeMessage | None:
    """The newest message in ``person``'s DMs that is a hand of this game (its cards, or one
    card's choices on it): the one a person plays from."""
    for message in reversed(person.dms()):
        if game_of(message) == game_id and (card_ids(message) or shows_choices(message)):
            return message
    return None


async def tap_card(person: Person, hand: FakeMessage, card_id: str, timeout: float = 5.0
                   ) -> FakeMessage:
    """Tap one card of a hand and return what the person reads back: on the hand message
    kept in the DMs, that message itself (a card tapped before left its choices there:
    back to the cards first); elsewhere, the answer."""
    if card_id not in hand.custom_ids():
        back = next((c for c in hand.custom_ids() if c.startswith("seq:back:")), None)
        if back is not None:
            await (await person.click(hand, back, timeout=timeout)).reply(timeout)
    return await (await person.click(hand, card_id, timeout=timeout)).changed(timeout)


async def play_from_hand(person: Person, hand: FakeMessage) -> str | None:
    """Play a card the way a child would: tap cards until one offers a space, take it.

    On the hand message kept in the DMs, a tap changes that very message: into the card's
    choices (then the first is taken, and the message becomes the new hand), or into the
    hand as it is if it was out of date (then the cards are tapped again). On an ephemeral
    hand ("My hand"), the choices come as an ephemeral answer.

    Returns the custom_id of the card played, or None when the bot says it is not their turn
    after all, or that the game is over: a forced pass can follow the board that called them
    (after their last dead card was exchanged), and that pass can end the game in a draw.
    They wait for the next board.
    """
    refusals: list[str] = []
    for _ in range(3):  # the cards again, if the message turned out to be out of date
        for card_id in card_ids(hand):
            prompt = await tap_card(person, hand, card_id)
            if prompt.id == hand.id and not shows_choices(prompt):
                break  # it was out of date and shows the hand as it is now
            if not shows_choices(prompt):
                if prompt.content in (NOT_YOUR_TURN, GAME_OVER, *OVER):
                    return None
                refusals.append(prompt.content)
                continue  # refused (e.g. a dead card with no exchange left): the next card
            await (await choose_first(person, prompt)).wait_ack()
            if prompt.id == hand.id:  # the move made: the message becomes the new hand
                await person.server.wait_for(lambda: not shows_choices(hand), AFTER_BOARD_S,
                                             f"{person.name}'s new hand in place")
            return card_id
        else:
            break
    raise ClientRefused(f"{person.name} found no playable card in {hand!r}: {refusals}")


# -- ways to take a turn -----------------------------------------------------------------

OVER = ("**This game is over.**", "**Dette partiet er over.**")


async def turn_from_dm(person: Person, board: FakeMessage, *, reload: bool = True) -> None:
    """Play from the hand message kept in your DMs, as a family does: the app reloaded
    first (the tablet slept, it was handed over), so every ephemeral message is gone and
    only what stays in the DM is there to play from (``reload``: False to keep them)."""
    if reload:
        person.reload_app()
    game_id = game_of(board)
    fake = person.server
    # A forced pass after your last exchange can end the game in a draw: then the final
    # board comes instead of your turn.
    hand = await fake.wait_for(lambda: hand_message(person, game_id)
                               or final_board(fake, board.channel_id), 15,
                               f"{person.name}'s hand by DM, or the end of the game")
    if any(c.startswith("seq:rematch:") for c in hand.custom_ids()):
        return  # (the final board: in the bot's own DM, the board's channel is the hand's)
    await play_from_hand(person, hand)


async def turn_from_my_hand_button(person: Person, board: FakeMessage) -> None:
    """DMs closed: "My hand" on the board gives the hand as an ephemeral reply."""
    hand = await (await person.click(board, label="My hand")).reply()
    assert hand.ephemeral and hand.png_files()
    await play_from_hand(person, hand)


async def slash_play(person: Person, board: FakeMessage) -> Interaction:
    """``/sequence play`` with what autocomplete offers, card first, then space, typed in
    the channel the board is in: the command sent, its answer not waited for."""
    where = board.channel_id
    cards = await person.autocomplete("sequence play", "card", "", channel=where)
    assert cards, "autocomplete offers the playable cards"
    card = cards[0]["value"]
    if card.startswith("dead:"):
        return await person.slash("sequence play", card=card, channel=where)
    spaces = await person.autocomplete("sequence play", "space", "", card=card, channel=where)
    assert spaces, f"autocomplete offers a space for {card}"
    return await person.slash("sequence play", card=card, space=spaces[0]["value"],
                              channel=where)


async def turn_by_slash_command(person: Person, board: FakeMessage) -> None:
    """``slash_play``, and its answer: "Played: ...", to the mover alone."""
    reply = await (await slash_play(person, board)).reply(AFTER_BOARD_S)
    assert reply.ephemeral and "Played" in reply.content, reply.content


async def turn_by_roll(person: Person, board: FakeMessage) -> None:
    """Sequence Dice: Roll on the board, then the first space offered."""
    prompt = await (await person.click(board, label="Roll")).reply(AFTER_BOARD_S)
    assert prompt.ephemeral
    if list(prompt.components()):
        await (await choose_first(person, prompt)).wait_ack()


async def play_until_over(fake: FakeDiscord, channel_id: int, people: list[Person],
                          turn: Turn, *, max_turns: int = 400,
                          stop_after: int | None = None) -> FakeMessage:
    """Let the people take their turns (computers play themselves) until the game ends.

    Checks on the way that every board is a real PNG with alt text. Returns the final board,
    or (``stop_after``: a bench's quick run) the board after that many people's turns.
    """
    by_id = {p.id: p for p in people}
    seen = 0
    for taken in range(max_turns):
        def ready(after: int = seen) -> FakeMessage | None:
            done = final_board(fake, channel_id)
            if done is not None:
                return done
            posted = boards_posted(fake, channel_id)
            if len(posted) > after and whose_turn(posted[-1]) is not None:
                return posted[-1]
            return None

        board = await fake.wait_for(ready, 15, "a board saying whose turn it is")
        for b in boards(fake, channel_id):
            assert b.png_files() and b.files[0].description, "a PNG board with alt text"
        if any(c.startswith("seq:rematch:") for c in board.custom_ids()):
            return board
        if taken == stop_after:
            return board
        seen = len(boards_posted(fake, channel_id))
        player = by_id[whose_turn(board)]  # type: ignore[index]
        await turn(player, board)
    raise AssertionError("the game did not end")


SEAT_HAND = re.compile(r"seq:(?:card|back):(?P<game>\d+):(?P<seat>\d)(?::|$)")


def kept_hand(person: Person, game_id: int, seat: int) -> FakeMessage | None:
    """The hand message kept in ``person``'s DMs for one seat of one game: the newest DM
    that stays there (not an ephemeral answer, which the app forgets when it reloads)
    whose buttons belong to that seat's hand (its cards, or the way back to them from its
    choice)."""
    for message in reversed(person.dms()):
        if message.ephemeral:
            continue
        for custom_id in message.custom_ids():
            found = SEAT_HAND.match(custom_id)
            if found and int(found["game"]) == game_id and int(found["seat"]) == seat:
                return message
    return None


def cards_shown(message: FakeMessage | None) -> str | None:
    """The cards a hand message shows, as its picture's alt text names them (None: it
    shows no hand now, e.g. the choice after a card was tapped)."""
    if message is None:
        return None
    return next((f.description for f in message.files if f.filename == "hand.png"), None)


def assert_no_hand_in_public(fake: FakeDiscord, channel_id: int) -> None:
    """No hand picture and no card button ever reached the channel for everyone."""
    public = fake.visible_messages(channel_id)
    assert not any(f.filename == "hand.png" for m in public for f in m.files)
    assert not any(c.startswith("seq:card:") for m in public for c in m.custom_ids())
