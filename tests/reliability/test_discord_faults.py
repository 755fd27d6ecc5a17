"""Discord misbehaving: rate limits, server errors, gateway drops, closed DMs.

Whatever Discord does, no move is lost, none is applied twice, no board is posted twice
for one move, and the bot still answers afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Iterator

import pytest

from cogs.table.posts import RATE_LIMITED_AGAIN
from tests.fakediscord import HttpFault

from .harness import board_messages
from .rig import Rig

MESSAGES = r"^/channels/\d+/messages$"
CALLBACK = r"^/interactions/\d+/[^/]+/callback$"
WEBHOOK = r"^/webhooks/\d+/[^/]+"


@contextlib.asynccontextmanager
async def keep_failing(rig: Rig, make: list[tuple[str, dict[str, object]]], every: float = 0.2
                       ) -> AsyncIterator[list[HttpFault]]:
    """Re-arm the faults in ``make`` whenever they are used up, until the block ends."""
    armed: list[HttpFault] = []

    def arm() -> Iterator[HttpFault]:
        for kind, kwargs in make:
            if kind == "429":
                yield rig.fake.faults.rate_limit(**kwargs)  # type: ignore[arg-type]
            else:
                yield rig.fake.faults.server_errors(int(kind), **kwargs)  # type: ignore[arg-type]

    async def loop() -> None:
        live: list[HttpFault] = []
        while True:
            if all(f.hits >= f.times for f in live):
                live = list(arm())
                armed.extend(live)
            await asyncio.sleep(every)

    task = asyncio.create_task(loop())
    try:
        yield armed
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        rig.fake.faults.http.clear()


async def still_answers(rig: Rig) -> None:
    """After the faults, a new command is answered (in another channel-free way: /rules)."""
    reply = await (await rig["Carol"].slash("sequence rules")).reply()
    assert "Sequence" in reply.text


async def test_rate_limits_on_message_dm_and_interaction_routes_lose_and_double_nothing(
        rig: Rig) -> None:
    lobby = await rig.lobby("kids", "Alice", "Bob")
    game = await rig.start(lobby, "Alice")
    faults = [("429", {"times": 2, "method": "POST", "path": MESSAGES}),  # boards and DMs
              ("429", {"times": 1, "method": "POST", "path": CALLBACK}),
              ("429", {"times": 1, "path": WEBHOOK})]
    async with keep_failing(rig, faults) as armed:
        end = await rig.play(game)
    # Every route was rate limited, again and again (how often depends on how long the
    # game lasts and how the re-arming falls, so only a floor per route).
    hits = {path: sum(f.hits for f in armed if f.path == path)
            for path in (MESSAGES, CALLBACK, WEBHOOK)}
    assert all(n >= 2 for n in hits.values()), f"rate limits hit per route: {hits}"
    assert end.status == "finished"
    assert rig.problems() == []
    await still_answers(rig)


async def test_bursts_of_500_and_502_lose_and_double_nothing(rig: Rig) -> None:
    lobby = await rig.lobby("dice", "Alice", "Bob")
    game = await rig.start(lobby, "Alice")
    # discord.py waits 1 s before it retries: a 500, a few moves, a 502 (`make reliability`
    # has longer bursts)
    rig.fake.faults.server_errors(500, times=1, method="POST", path=MESSAGES)
    players = rig.players()
    for _ in range(3):
        g = rig.game_in()
        await players[g.user_of(g.replayed().current_seat)].take_turn(g)  # type: ignore[index]
    rig.fake.faults.server_errors(502, times=1, method="POST", path=MESSAGES)
    end = await rig.play(game)
    assert [f.hits for f in rig.fake.faults.http] == [1, 1]
    assert end.status == "finished"
    assert rig.problems() == []
    await still_answers(rig)


async def test_a_gateway_drop_with_resume_delivers_the_click_made_meanwhile(rig: Rig) -> None:
    lobby = await rig.lobby("kids", "Alice", "Bob")
    game = await rig.start(lobby, "Alice")
    players = rig.players()
    player = players[game.user_of(game.replayed().current_seat)]  # type: ignore[index]
    await rig.fake.disconnect(resume=True)
    # the click happens while the bot is away; Discord replays it after RESUME
    assert await player.take_turn(game)
    assert rig.fake.resumed == 1 and rig.fake.identified == 1
    end = await rig.play(game)
    assert end.status == "finished"
    assert rig.problems() == []
    await still_answers(rig)


@pytest.mark.slow  # discord.py waits 1 to 5 s before a fresh IDENTIFY
async def test_a_gateway_drop_without_resume_then_the_bot_answers_again(rig: Rig) -> None:
    lobby = await rig.lobby("dice", "Alice", "Bob")
    game = await rig.start(lobby, "Alice")
    await rig.fake.disconnect(resume=False)
    # discord.py waits 1 to 5 s before it identifies again; the game waits with it
    await rig.fake.wait_for(lambda: rig.fake.identified == 2, 10, "a fresh IDENTIFY")
    await rig.fake.wait_until_connected()
    end = await rig.play(game)
    assert end.status == "finished"
    assert rig.problems() == []
    await still_answers(rig)


async def test_dms_closed_mid_game_the_game_goes_on_and_the_dm_is_not_retried(rig: Rig) -> None:
    lobby = await rig.lobby("kids", "Alice", "Bob")
    game = await rig.start(lobby, "Alice")
    bob = rig["Bob"]
    await rig.fake.wait_for(lambda: any(m.png_files() for m in bob.dms()), 5, "Bob's hand")
    # his DMs worked for the deal; from now on they fail (a game can end in a few moves,
    # so they close before Bob's first draw)
    rig.fake.faults.closed_dms.add(bob.id)
    rig.no_dm_hand.add(bob.id)  # he knows: no waiting for a DM hand
    attempts_before = rig.fake.dm_attempts(bob.id)
    end = await rig.play(game)
    assert end.status == "finished"
    # one failed DM marks Bob's DMs closed: no further attempt, let alone a retry loop
    failed = rig.fake.dm_attempts(bob.id) - attempts_before
    assert failed == 1, f"{failed} DM attempts after Bob's DMs closed"
    notices = [m for m in rig.fake.visible_messages(rig.channel) if m.visible_to is None
               and bob.mention in m.content and "direct messages" in m.content]
    assert len(notices) == 1, "the channel is told once that Bob's DMs are closed"
    assert rig.ledger.fallbacks > 0, "Bob played through the ephemeral hand"
    assert rig.problems() == []


async def test_boards_are_posted_once_per_move_under_rate_limits(rig: Rig) -> None:
    """Rate limits on every board post: each board still appears once, in move order."""
    lobby = await rig.lobby("dice", "Alice", "Bob")
    game = await rig.start(lobby, "Alice")
    async with keep_failing(rig, [("429", {"times": 1, "method": "POST", "path": MESSAGES})]):
        end = await rig.play(game)
    texts = [m.content for m in board_messages(rig.fake, rig.channel)]
    assert all(a != b for a, b in itertools.pairwise(texts)), "no board twice"
    assert end.status == "finished" and rig.problems() == []


async def test_a_board_rate_limited_past_discord_pys_tries_is_posted_in_its_place(
        rig: Rig) -> None:
    """discord.py gives up after five 429s in a row. Discord carried out none of them, so
    the bot posts the same board again a moment later: every move's board once, in order,
    each with its own move's words (none left to a later "here is where it stands")."""
    lobby = await rig.lobby("dice", "Alice", "Bob")
    game = await rig.start(lobby, "Alice")
    refusing = rig.fake.faults.rate_limit(times=5, method="POST",
                                          path=rf"^/channels/{rig.channel}/messages$")
    end = await rig.play(game)
    assert refusing.hits == 5
    assert not [m for m in rig.fake.visible_messages(rig.channel)
                if "did not get through" in m.content]
    assert end.status == "finished" and rig.problems() == []
    assert "could not post" not in rig.log.text


async def test_a_board_that_fails_every_try_is_shown_later(rig: Rig) -> None:
    lobby = await rig.lobby("kids", "Alice", "Bob")
    game = await rig.start(lobby, "Alice")
    await hands_delivered(rig, "Alice", "Bob")
    every_try = 5 * (len(RATE_LIMITED_AGAIN) + 1)  # discord.py's five, each time it is asked
    rig.fake.faults.rate_limit(times=every_try, method="POST",
                               path=rf"^/channels/{rig.channel}/messages$")
    players = rig.players(timeout=15)  # the mover's answer follows the board's every try
    g = rig.game_in()
    assert await players[g.user_of(g.replayed().current_seat)].take_turn(g)  # type: ignore[index]
    await rig.fake.wait_for(lambda: rig.fake.faults.http[0].hits == every_try, 10,
                            f"{every_try} 429s")
    # some later moment (a retry, the next event): the position is shown after all
    await rig.fake.wait_for(lambda: any("did not get through" in m.content
                                        for m in rig.fake.visible_messages(rig.channel)),
                            10, "the board shown again")
    await rig.settled(timeout=5)
    assert rig.problems() == [] and game.id == rig.game_in().id


async def hands_delivered(rig: Rig, *names: str) -> None:
    for name in names:
        await rig.fake.wait_for(lambda n=name: any(m.png_files() for m in rig[n].dms()), 5,
                                f"{name}'s hand")


async def test_a_dm_that_fails_for_a_passing_reason_is_not_called_closed(rig: Rig) -> None:
    # (the hands dealt at the start go by DM; a mover's new hand after a move from the DMs
    # comes in the click's own answer, so the deal is where a DM can be made to fail)
    lobby = await rig.lobby("kids", "Alice", "Bob")
    bob = rig["Bob"]
    dm = rig.fake.dm_channel(bob.id)  # opened when Bob joined (the bot said hello)
    rig.fake.faults.rate_limit(times=5, method="POST", path=rf"^/channels/{dm}/messages$")
    sent = len(bob.dms())
    await rig.start(lobby, "Alice")
    await rig.fake.wait_for(lambda: rig.fake.faults.http[0].hits == 5, 5, "five 429s")
    await rig.settled()
    assert not [m for m in rig.fake.visible_messages(rig.channel)
                if "cannot send you direct messages" in m.content], "DMs are not closed"
    # The hand is sent once more a little later (once: no retry loop).
    await rig.fake.wait_for(lambda: any(m.png_files() for m in bob.dms()[sent:]), 15,
                            "the hand sent again")


async def test_a_board_stored_but_answered_with_a_500_is_not_posted_twice(rig: Rig) -> None:
    """The worst 5xx: Discord made the message, the answer was lost, the client retried.
    discord.py sends every message with a nonce and enforce_nonce, so Discord (and the
    fake, which honours it) answers the retry with the first message instead of a twin."""
    lobby = await rig.lobby("kids", "Alice", "Bob")
    game = await rig.start(lobby, "Alice")
    # the next board and its first retry are carried out, and answered 500
    fault = rig.fake.faults.server_errors(500, times=2, method="POST",
                                          path=rf"^/channels/{rig.channel}/messages$",
                                          after_handling=True)
    end = await rig.play(game)
    await rig.settled(timeout=10)  # the retries wait 1 s, then 3 s
    assert fault.hits == 2 and rig.fake.nonce_repeats >= 2
    texts = [m.content for m in board_messages(rig.fake, rig.channel)]
    assert all(a != b for a, b in itertools.pairwise(texts)), "no board twice"
    assert end.status == "finished" and rig.problems() == []
