"""Moments of the Activity a person meets, in Debian's Chromium: watching without a seat,
taps that must do nothing, a dead card, a tab left behind, and the bot killed mid-game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.activity.browser import BROWSER, TABLET, free_port, open_screen, served
from tests.activity.conftest import Table, a_table
from tests.activity.pages import hands_in
from tests.activity.taps import my_turn, tap_a_move
from tests.e2e.people import begin_game, boards
from tests.fakediscord import FakeDiscord
from tests.reliability.harness import BotProcess

pytestmark = BROWSER

SEED_WITH_A_DEAD_DRAGON = 1  # Kids, two seats: seat 0 deals a Dragon (dead: no chip yet)


async def test_a_spectator_sees_the_board_and_nothing_to_tap(browser_table: Table) -> None:
    table = browser_table
    await begin_game(table.discord, table["Alice"], table["Bob"])
    alice, carol = await table.screen("Alice"), await table.screen("Carol")
    await tap_a_move(alice)
    frame = await carol.table_where(lambda t: t["ply"] >= 1 and t["board"] is not None,
                                    "Carol sees Alice's move")
    assert frame["me"] is None
    await carol.page.wait_for_selector("#hand .who")
    assert await carol.page.locator(".card").count() == 0
    await carol.shot("phone-spectator")
    for space in ("A1", "C3", "F7"):
        await carol.tap(f'[data-space="{space}"]')
    assert carol.moves_sent() == [] and await carol.glowing() == []
    assert all(hands_in(f) == [] for f in carol.frames), "a spectator never gets a hand"


async def test_taps_that_must_do_nothing(browser_table: Table) -> None:
    table = browser_table
    await begin_game(table.discord, table["Alice"], table["Bob"])
    alice, bob = await table.screen("Alice"), await table.screen("Bob")
    frame = await my_turn(alice)
    waiting = await bob.table_where(lambda t: t["status"] == "playing", "Bob's page")
    # Bob, not to move: his cards and the board do nothing
    await bob.page.wait_for_selector(".card")
    await bob.tap(".card")
    await bob.tap('[data-space="B2"]')
    assert await bob.glowing() == [] and bob.moves_sent() == []
    # Alice, to move: a space before any card, and a space her card does not glow on
    await alice.tap('[data-space="B2"]')
    assert await alice.glowing() == []
    card = next(c for c in frame["me"]["hand"]
                if any(a.startswith(f"{c}@") for a in frame["me"]["legal"]))
    await alice.tap(f'[data-card="{card}"]')
    glowing = await alice.glowing()
    assert glowing
    dark = next(f"{col}{row}" for row in range(1, 8) for col in "ABCDEF"
                if f"{col}{row}" not in glowing)
    await alice.tap(f'[data-space="{dark}"]')
    await alice.tap("#seats")
    assert alice.moves_sent() == [], "nothing that does not glow sends a move"
    assert sorted(await alice.glowing()) == sorted(glowing), "her choice stays"
    assert table.bot.manager is not None
    assert table.bot.manager.get(frame["game_id"]).ply == frame["ply"] == waiting["ply"]


async def test_a_dead_card_shows_dead_and_a_tap_offers_the_exchange(
        tmp_path: Path, browser: Any) -> None:
    async with a_table(tmp_path, browser, game_seed=SEED_WITH_A_DEAD_DRAGON) as table:
        await begin_game(table.discord, table["Alice"], table["Bob"])
        alice = await table.screen("Alice")
        frame = await my_turn(alice)
        assert "dragon" in frame["me"]["dead"] and "dead:dragon" in frame["me"]["legal"]
        dead = alice.page.locator('[data-card="dragon"]')
        assert await dead.get_attribute("data-dead") == "true"
        src = await dead.locator("img").get_attribute("src")
        assert src is not None and src.endswith("dragon-dead.png"), "drawn dead, by render"
        await alice.tap('[data-card="dragon"]')
        await alice.page.wait_for_selector('[data-swap="dragon"]')
        assert await alice.glowing() == [], "a dead card has no space to glow"
        await alice.shot("phone-dead-card")
        await alice.tap('[data-swap="dragon"]')
        await alice.table_where(lambda t: t["ply"] > frame["ply"], "the exchange")
        assert alice.moves_sent()[-1]["action"] == "dead:dragon"
        assert table.bot.manager is not None
        record = await table.bot.manager.load_record(frame["game_id"])
        assert record is not None and record.actions[frame["ply"]] == "dead:dragon"


async def test_a_stale_tab_is_refused_by_its_turn_and_shows_the_table(
        browser_table: Table) -> None:
    """Alice has the game open twice. The second tab's news is late (held back, as a slow
    network would): she plays from the first, then taps the second tab's old glowing
    space. The bot refuses it by its turn (already played), and the tab shows the table
    as it is."""
    table = browser_table
    await begin_game(table.discord, table["Alice"], table["Bob"])
    first, second = await table.screen("Alice"), await table.screen("Alice")
    frame = await my_turn(first)
    stale = await my_turn(second)
    assert stale["ply"] == frame["ply"]
    await second.page.evaluate("() => { window.__seq.holding = true; }")
    await tap_a_move(first)  # the first tab plays
    card = next(c for c in stale["me"]["hand"]
                if any(a.startswith(f"{c}@") for a in stale["me"]["legal"]))
    await second.tap(f'[data-card="{card}"]')
    space = (await second.glowing())[0]
    await second.tap(f'[data-space="{space}"]')
    refused = await second.wait_for(
        lambda: [f for f in second.frames if f["t"] == "refused"], "the refusal")
    assert refused[0]["code"] == "already_played"
    assert second.moves_sent()[-1]["ply"] == stale["ply"]
    await second.page.evaluate("() => window.__seq.release()")
    await second.page.wait_for_selector("#toast:not([hidden])")
    await second.page.wait_for_function(
        "ply => window.__seq.frames > 0 && document.querySelectorAll('.space.glow').length"
        " === 0", arg=frame["ply"])
    assert table.bot.manager is not None
    assert table.bot.manager.get(frame["game_id"]).ply == frame["ply"] + 1
    assert len(first.moves_sent()) == 1


async def test_the_page_comes_back_by_itself_after_the_bot_is_killed(
        tmp_path: Path, browser: Any) -> None:
    async with FakeDiscord(activities=True) as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice", guild), fake.add_person("Bob", guild)
        port = free_port()
        bot = BotProcess(fake, tmp_path / "sequence.db", tmp_path / "bot.log",
                         guild_id=guild.id, computer_delay=0.0, extra_env={
                             "ACTIVITY_PORT": str(port), "SEQUENCE_SEED": "7",
                             "DISCORD_CLIENT_SECRET": fake.activities.client_secret})
        base = f"http://127.0.0.1:{port}"
        await bot.start()
        try:
            await served(base + "/")
            await begin_game(fake, alice, bob, timeout=10)
            screen = await open_screen(browser, fake, base, alice, guild.channel_id,
                                       size=TABLET)
            try:
                frame = await my_turn(screen)
                game_id = frame["game_id"]
                await screen.page.wait_for_function("() => window.__seq.firstBoard !== null")
                # the bot dies; Alice taps her move as it goes
                await bot.kill()
                card = next(c for c in frame["me"]["hand"]
                            if any(a.startswith(f"{c}@") for a in frame["me"]["legal"]))
                await screen.tap(f'[data-card="{card}"]')
                space = (await screen.glowing())[0]
                await screen.tap(f'[data-space="{space}"]')
                await screen.page.wait_for_selector("#banner:not([hidden])")
                assert "Reconnecting" in await screen.page.inner_text("#banner")
                await screen.shot("tablet-reconnecting")
                await bot.start()
                # the page is back by itself, on the same table, the move made once
                after = await screen.table_where(lambda t: t["ply"] > frame["ply"],
                                                 "the move after the restart", timeout=30)
                assert after["game_id"] == game_id
                await screen.page.wait_for_selector("#banner", state="hidden")
                moves = [m for m in screen.moves_sent() if m["ply"] == frame["ply"]]
                assert moves and all(m["action"] == moves[0]["action"] for m in moves)
                record = await loaded(tmp_path / "sequence.db", game_id)
                assert record[frame["ply"]] == moves[0]["action"]
                assert len(record) == after["ply"], "applied once"
                assert boards(fake, guild.channel_id)
            finally:
                await screen.close()
        finally:
            await bot.stop()


async def loaded(db: Path, game_id: int) -> list[str]:
    """The game's action log, as the store holds it."""
    from store import Store

    store = await Store.open(db)
    try:
        record = await store.games.load_game(game_id)
        assert record is not None
        return list(record.actions)
    finally:
        await store.close()



async def test_in_a_channel_with_no_table_the_page_opens_one(browser_table: Table) -> None:
    table = browser_table
    carol = await table.screen("Carol")
    await carol.page.wait_for_selector('[data-do="open"]')
    await carol.shot("phone-open-a-table")
    await carol.tap('[data-game="dice"]')
    await carol.tap('[data-computers="2"]')
    await carol.tap('[data-do="open"]')
    frame = await carol.table_where(lambda t: t["status"] == "playing", "the game opened")
    assert frame["game"] == "dice"
    assert [s["kind"] for s in frame["seats"]] == ["person", "computer", "computer"]
    # the chat sees the game as any other: its board in the channel
    await table.discord.wait_for(lambda: boards(table.discord, table.guild.channel_id), 5,
                                 "the board in the channel")


async def test_a_page_discord_does_not_place_here_says_so_and_stops_turning(
        browser_table: Table) -> None:
    """Logged in, but the Activity it names is not one Discord places this person in: the
    page says so in the bot's words, not that it could not tell who they are, and shows
    nothing on its way (no spinner)."""
    table = browser_table
    carol = await open_screen(table.browser, table.discord, table.base, table["Carol"],
                              table.guild.channel_id, instance_id="i-made-this-up")
    table.screens.append(carol)
    banner = carol.page.locator("#banner")
    await banner.get_by_text("This Activity is not running in a channel the bot can see",
                             exact=False).wait_for()
    assert not await carol.page.locator("#banner .spinner").is_visible()
    await carol.shot("phone-not-here")
