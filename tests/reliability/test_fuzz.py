"""Random and forged interactions by the hundred: nothing breaks, every refusal is private,
and every game still equals the replay of its own log."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from .fuzz import Fuzzer, FuzzReport
from .harness import known_bug, unhandled_lines, unhandled_records
from .leaks import find_leaks
from .players import Player
from .rig import Rig, make_rig


@pytest.fixture
async def busy(tmp_path: Path) -> AsyncIterator[Rig]:
    """Two channels, a Kids game between Alice and Bob, a Dice game for Carol and Dan."""
    async for rig in make_rig(tmp_path, channels=("general", "other")):
        other = rig.guild.channel_ids[1]
        await rig.start(await rig.lobby("kids", "Alice", "Bob"), "Alice")
        await rig.start(await rig.lobby("dice", "Carol", "Dan", channel=other), "Carol", other)
        yield rig


async def fuzz_while_playing(rig: Rig, n: int, *, seed: int, unknown_ids: bool
                             ) -> FuzzReport:
    fuzzer = Fuzzer(rig.fake, list(rig.people.values()), list(rig.guild.channel_ids),
                    lambda: list(rig.games()), seed=seed, include_unknown_ids=unknown_ids,
                    quiet=rig.quiet)
    games = list(rig.games().values())
    playing = [asyncio.create_task(rig.play(g, time_limit=60)) for g in games]
    report = await fuzzer.run(n)
    await asyncio.gather(*playing)
    return report


def assert_all_well(rig: Rig, report: FuzzReport) -> None:
    """No new bug. Known ones (each shown by its own xfail test, see ``KNOWN_BUGS``) may
    turn up, and each of those that hit a command ends in one apology."""
    assert report.refusals > report.sent // 10, report.summary()  # the check has teeth
    assert report.public_refusals == [], report.public_refusals[:5]
    assert sum(report.unanswered.values()) == 0, report.summary()
    for game in rig.games().values():
        assert game.invariant_problems() == []
    assert unhandled_lines(rig.log.text, skip_known=True) == []
    known_apologies = sum(1 for r in unhandled_records(rig.log.text)
                          if known_bug(r) and " failed (user " in r)
    assert len(report.apologies) <= known_apologies, report.apologies[:5]
    assert find_leaks(rig.fake, rig.database, rig.log.text, rig.fake.token) == []


async def test_hundreds_of_random_interactions_break_nothing(busy: Rig) -> None:
    report = await fuzz_while_playing(busy, 400, seed=11, unknown_ids=True)
    assert report.sent >= 400
    assert_all_well(busy, report)


@pytest.mark.slow
async def test_thousands_of_random_interactions_break_nothing(busy: Rig) -> None:
    report = await fuzz_while_playing(busy, 3000, seed=12, unknown_ids=True)
    assert report.sent >= 3000
    assert_all_well(busy, report)


async def test_a_click_on_an_unknown_custom_id_is_answered(busy: Rig) -> None:
    """A button of an older bot version, or a forged or truncated id, gets an answer
    rather than Discord's "This interaction failed" (fixed in 2b0e757 after this test)."""
    message = busy.fake.create_message(busy.channel, {"components": [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "old", "custom_id": "seq:play"}]}]}, [])
    reply = await (await busy["Alice"].click(message, "seq:play")).reply()
    assert reply.ephemeral and reply.content, "an old or forged button gets a private answer"


async def test_a_hint_asked_as_the_turn_passes_is_refused_not_apologised_for(
        busy: Rig) -> None:
    fake = busy.fake
    game = busy.game_in()
    mover = fake.people[game.user_of(game.replayed().current_seat)]  # type: ignore[index]
    moved = asyncio.Event()
    held = asyncio.Event()

    async def hold_the_hints_defer(method: str, path: str, body: object) -> None:
        if "/callback" in path and isinstance(body, dict) and body.get("type") == 5 \
                and hint is not None and str(hint.id) in path:
            held.set()
            await moved.wait()  # Discord is slow to take the defer; the move lands first
        return None

    hint = None
    fake.before_answer.append(hold_the_hints_defer)  # type: ignore[arg-type]
    data = mover.command_data("sequence hint", busy.channel, {}, focused=None)
    hint = fake.start_interaction(mover, 2, data, busy.channel)
    await asyncio.wait_for(held.wait(), 5)  # the hint is being worked out: now the move
    assert await Player(mover, busy.ledger).take_turn(game)
    moved.set()
    reply = await hint.reply()
    assert "Sorry" not in reply.content, reply.content


async def test_a_rematch_button_with_a_game_id_beyond_64_bits_is_refused(busy: Rig) -> None:
    custom_id = "seq:rematch:again:" + "9" * 19
    message = busy.fake.create_message(busy.channel, {"components": [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "Rematch", "custom_id": custom_id}]}]}, [])
    reply = await (await busy["Alice"].click(message, custom_id)).reply()
    assert reply.ephemeral and "Sorry" not in reply.content, reply.content
    assert unhandled_lines(busy.log.text) == []
