"""The Activity's server side with the real bot, against the fake Discord: who is who, what
each page sees, and moves made from a page or from chat reaching everyone (no browser:
``pages.PageClient`` does what the page's script does)."""

from __future__ import annotations

from typing import Any

import aiohttp

from engine.action import Action
from tests.activity.conftest import Table
from tests.activity.pages import PageClient, hands_in
from tests.e2e.people import begin_game, boards, game_of, latest_hand, turn_from_dm


def placing(frame: dict[str, Any]) -> str:
    """A legal move of the page's that places a chip (not an exchange)."""
    return next(a for a in frame["me"]["legal"] if "@" in a)


async def started(table: Table, *guests: str, game: str = "kids") -> int:
    """Alice opens a game in the channel with ``guests``; its id."""
    _, first = await begin_game(table.discord, table["Alice"],
                                *(table[g] for g in guests), game=game)
    game_id = game_of(first)
    assert game_id is not None
    return game_id


async def test_a_page_knows_its_player_only_through_discord(table: Table) -> None:
    await started(table, "Bob")
    alice = await table.page("Alice")
    welcome = (await alice.wait_for(lambda: alice.frames[:1], "the welcome"))[0]
    assert welcome["t"] == "welcome" and welcome["user"]["id"] == str(table["Alice"].id)
    frame = await alice.table_where(lambda t: t["status"] == "playing", "the game")
    me = frame["me"]
    assert me is not None and me["name"] == "Alice" and len(me["hand"]) == 3
    assert [s["you"] for s in frame["seats"]] == [True, False]


async def test_a_code_is_used_once_and_a_made_up_one_is_refused(table: Table) -> None:
    page = PageClient(table.base)
    try:
        code = table.discord.activities.authorize(table["Alice"])
        await page.login(code)
        for bad in (code, "made-up"):
            try:
                await page.login(bad)
            except PermissionError as exc:
                assert "bad_code" in str(exc)
            else:
                raise AssertionError(f"the code {bad!r} was taken")
    finally:
        await page.close()


async def test_the_client_secret_never_reaches_a_page(table: Table) -> None:
    secret = table.discord.activities.client_secret
    alice = await table.page("Alice")
    await alice.wait_for(lambda: alice.table is not None or alice.frames[1:], "a frame")
    async with aiohttp.ClientSession() as http:
        for path in ("/", "/.proxy/", "/.proxy/looks/palette.json"):
            async with http.get(table.base + path) as r:
                assert secret not in await r.text()
    assert all(secret not in str(f) for f in alice.frames)


async def test_a_forged_or_altered_session_is_refused(table: Table) -> None:
    alice = await table.page("Alice")
    assert alice.session is not None
    body, signature = alice.session.split(".")
    forged = PageClient(table.base)
    table.pages.append(forged)
    for session in (f"{body}.{'A' * len(signature)}", "not-a-session", None):
        await forged.connect(session=session, instance=alice.instance)
        await forged.wait_for(lambda: forged.closed_with is not None, "the socket closed")
        assert forged.closed_with == 4001
    assert forged.tables() == []


async def test_a_person_not_in_the_activity_sees_nothing(table: Table) -> None:
    await started(table, "Bob")
    alice = await table.page("Alice")
    # Carol logs in with Discord, but never opened the Activity that runs here
    carol = PageClient(table.base, table["Carol"])
    table.pages.append(carol)
    session = await carol.login(table.discord.activities.authorize(table["Carol"]))
    await carol.connect(session=session, instance=alice.instance)
    await carol.wait_for(lambda: carol.closed_with is not None, "Carol's socket closed")
    assert carol.closed_with == 4003 and carol.tables() == []
    # told so in words (the bot knows who she is: it is not her login that failed)
    assert [(f["code"], f["text"]) for f in carol.refusals()] == [
        ("not_here", "This Activity is not running in a channel the bot can see. Open it "
                     "again from the channel.")]


async def test_a_page_naming_an_activity_that_does_not_exist_is_told_in_its_language(
        table: Table) -> None:
    table["Carol"].locale = "no"
    carol = PageClient(table.base, table["Carol"])
    table.pages.append(carol)
    session = await carol.login(table.discord.activities.authorize(table["Carol"]))
    await carol.connect(session=session, instance="i-made-this-up")
    await carol.wait_for(lambda: carol.closed_with is not None, "Carol's socket closed")
    assert carol.closed_with == 4003, "not a login to try again"
    assert [f["code"] for f in carol.refusals()] == ["not_here"]
    assert carol.refusals()[0]["text"].startswith("Denne aktiviteten kjører ikke")


async def test_a_spectator_sees_the_board_and_no_hand(table: Table) -> None:
    await started(table, "Bob")
    carol = await table.page("Carol")
    frame = await carol.table_where(lambda t: t["board"] is not None, "the board")
    assert frame["me"] is None and not any(s["you"] for s in frame["seats"])
    assert hands_in(frame) == []


async def test_a_move_from_a_page_is_the_same_move_as_from_chat(table: Table) -> None:
    game_id = await started(table, "Bob")
    channel = table.guild.channel_id
    alice, bob = await table.page("Alice"), await table.page("Bob")
    frame = await alice.my_turn()
    hands_before = len(table["Alice"].dms())
    boards_before = len(boards(table.discord, channel))
    action = placing(frame)
    await alice.send({"t": "move", "action": action, "ply": frame["ply"]})
    # the channel gets its board, the DM hand is made true, every page sees the move
    await table.discord.wait_for(lambda: len(boards(table.discord, channel)) > boards_before,
                                 5, "the move's board in the channel")
    await bob.table_where(lambda t: t["ply"] > frame["ply"], "Bob's page shows the move")
    seen = await alice.table_where(lambda t: t["ply"] > frame["ply"], "Alice's page")
    assert seen["board"]["placed"] in (Action.parse(action).space, None)
    hand = await latest_hand(table["Alice"])
    assert len(table["Alice"].dms()) >= hands_before and hand is not None
    assert table.bot.manager is not None
    assert table.bot.manager.get(game_id).ply == seen["ply"]


async def test_a_chat_move_reaches_the_page_at_once(table: Table) -> None:
    await started(table, "Bob")
    alice = await table.page("Alice")
    frame = await alice.my_turn()
    await alice.send({"t": "move", "action": placing(frame), "ply": frame["ply"]})
    board = (await table.discord.wait_for(
        lambda: boards(table.discord, table.guild.channel_id)[1:], 5, "Alice's board"))[-1]
    ply = frame["ply"] + 1
    await alice.table_where(lambda t: t["ply"] >= ply, "Alice's move on her page")
    await turn_from_dm(table["Bob"], board)  # Bob plays from his DMs
    after = await alice.table_where(lambda t: t["ply"] > ply, "Bob's move on Alice's page")
    assert after["board"]["placed"] is not None


async def test_a_stale_move_is_refused_and_the_page_gets_the_table(table: Table) -> None:
    await started(table, "Bob")
    alice = await table.page("Alice")
    frame = await alice.my_turn()
    move = {"t": "move", "action": placing(frame), "ply": frame["ply"]}
    await alice.send(move)
    now = await alice.table_where(lambda t: t["ply"] > frame["ply"], "the move applied")
    # the same move again (a second tab, a retry after the connection dropped), and one of
    # a turn not come yet: refused by the ply, and the page gets the table as it is
    for stale in (move, {**move, "ply": frame["ply"] + 7}):
        start = len(alice.frames)
        await alice.send(stale)
        after = await alice.wait_for(
            lambda s=start: [f for f in alice.frames[s:] if f["t"] == "table"], "the table")
        refused = [f for f in alice.frames[start:] if f["t"] == "refused"]
        assert refused and refused[0]["code"] == "already_played", refused
        assert after[0]["ply"] == now["ply"]
    assert table.bot.manager is not None
    assert table.bot.manager.get(frame["game_id"]).ply == now["ply"]


async def test_bad_messages_are_refused_and_change_nothing(table: Table) -> None:
    game_id = await started(table, "Bob")
    alice = await table.page("Alice")
    frame = await alice.my_turn()
    ply = frame["ply"]
    bad = ["not json", "[1, 2]", {"t": "fly"}, {"t": "move", "action": "lion@B3; drop", "ply": ply},
           {"t": "move", "action": 7, "ply": ply}, {"t": "move", "action": "lion@B3"},
           {"t": "move", "action": placing(frame), "ply": True},
           {"t": "open", "game": "chess", "computers": 1},
           {"t": "move", "action": "x" * 600, "ply": ply}]
    for message in bad:
        await alice.send(message)
    await alice.wait_for(lambda: len(alice.refusals()) >= len(bad), "every refusal")
    assert {r["code"] for r in alice.refusals()} == {"bad_message"}
    # moves that are well formed but not legal: refused by the engine, with its reason
    for action in ("unicorn@A1", "lion@Z99"):
        await alice.send({"t": "move", "action": action, "ply": ply})
    await alice.wait_for(lambda: len(alice.refusals()) >= len(bad) + 2, "the engine's refusal")
    assert all(r["text"] for r in alice.refusals()[len(bad):])
    assert table.bot.manager is not None
    assert table.bot.manager.get(game_id).ply == ply


async def test_a_page_out_of_turn_is_refused(table: Table) -> None:
    await started(table, "Bob")
    bob = await table.page("Bob")
    frame = await bob.table_where(lambda t: t["status"] == "playing", "the game")
    assert frame["me"]["legal"] == []
    await bob.send({"t": "move", "action": "lion@B3", "ply": frame["ply"]})
    refusal = await bob.wait_for(lambda: bob.refusals(), "the refusal")
    assert refusal[0]["code"] in ("not_your_turn", "illegal")


async def test_pages_are_paced_per_person(table: Table) -> None:
    await started(table, "Bob")
    bob = await table.page("Bob")
    await bob.table_where(lambda t: t["status"] == "playing", "the game")
    for _ in range(20):
        await bob.send({"t": "move", "action": "lion@B3", "ply": 0})
    await bob.wait_for(lambda: [r for r in bob.refusals() if r["code"] == "too_fast"],
                       "a too_fast refusal")


async def test_no_hand_reaches_anyone_but_its_holder(table: Table) -> None:
    await started(table, "Bob")
    pages = {n: await table.page(n) for n in ("Alice", "Bob", "Carol")}
    for _ in range(3):  # a few moves each way
        frame = await pages["Alice"].my_turn()
        await pages["Alice"].send({"t": "move", "action": placing(frame),
                                   "ply": frame["ply"]})
        frame = await pages["Bob"].my_turn()
        await pages["Bob"].send({"t": "move", "action": placing(frame),
                                 "ply": frame["ply"]})
    assert table.bot.manager is not None
    for name, page in pages.items():
        seat = {"Alice": 0, "Bob": 1, "Carol": None}[name]
        for frame in page.frames:
            for held_by, _ in hands_in(frame):
                assert held_by == seat, f"{name} got seat {held_by}'s hand"
    assert hands_in(pages["Carol"].table or {}) == []


async def test_a_norwegian_player_gets_the_page_in_norwegian(table: Table) -> None:
    await started(table, "Bob")
    table["Bob"].locale = "no"
    bob = await table.page("Bob")
    welcome = (await bob.wait_for(lambda: bob.frames[:1], "the welcome"))[0]
    assert welcome["lang"] == "no"
    assert welcome["words"]["activity.turn.you"] == "Din tur"
    await bob.send({"t": "move", "action": "lion@B3", "ply": 0})
    refused = await bob.wait_for(lambda: bob.refusals(), "the refusal")
    assert refused[0]["text"] and "turn" not in refused[0]["text"]


async def test_play_again_from_the_end_seats_everyone_again(table: Table) -> None:
    game_id = await started(table, "Bob")
    pages = {"Alice": await table.page("Alice"), "Bob": await table.page("Bob")}
    while True:
        frame = await pages["Alice"].table_where(
            lambda t: t["over"] is not None or bool(t["me"] and t["me"]["legal"])
            or not t["seats"][0]["to_move"], "a turn or the end")
        if frame["over"] is not None:
            break
        mover = pages["Alice"] if frame["seats"][0]["to_move"] else pages["Bob"]
        turn = await mover.table_where(
            lambda t: t["over"] is not None or bool(t["me"] and t["me"]["legal"]), "turn")
        if turn["over"] is not None:
            break
        legal = turn["me"]["legal"]
        await mover.play(next((a for a in legal if "@" in a), legal[0]), turn["ply"])
    end = await pages["Bob"].table_where(lambda t: t["over"] is not None, "the end")
    assert end["over"]["played"]
    await pages["Bob"].tap({"t": "rematch"}, lambda t: t["game_id"] != game_id, "a rematch")
    lobby = await pages["Alice"].table_where(
        lambda t: t["status"] == "lobby" and t["game_id"] != game_id, "the rematch's lobby")
    assert [s["name"] for s in lobby["seats"]] == ["Alice", "Bob"]
    assert lobby["lobby"]["start"], "Alice, the first person seated, is its host"
    await pages["Alice"].tap({"t": "start"}, lambda t: t["status"] == "playing", "the start")
    await pages["Bob"].table_where(lambda t: t["status"] == "playing"
                                   and t["game_id"] == lobby["game_id"], "the new game")


async def test_a_change_is_built_once_for_all_the_pages_of_its_table(table: Table) -> None:
    """Three pages on one table (two players and a spectator, one of them in Norwegian):
    a move is built once per language, and each page gets its own view of that build."""
    game_id = await started(table, "Bob")
    table["Carol"].locale = "no"
    pages = {n: await table.page(n) for n in ("Alice", "Bob", "Carol")}
    for page in pages.values():
        await page.table_where(lambda t: t["status"] == "playing", "the game")
    activity = table.bot.activity_app
    assert activity is not None and activity.hub is not None
    hub = activity.hub
    builds, frames = hub.builds, hub.frames
    frame = await pages["Alice"].my_turn()
    await pages["Alice"].play(placing(frame), frame["ply"])
    for page in pages.values():
        await page.table_where(lambda t, p=frame["ply"]: t["ply"] > p, "the move on every page")
    assert hub.frames - frames == 3, "each page its own frame"
    assert hub.builds - builds == 2, "the table built once in each language, not once a page"
    assert table.bot.manager is not None and table.bot.manager.get(game_id).ply > frame["ply"]
