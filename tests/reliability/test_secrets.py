"""Secrets: hands and the deck order reach nobody but their owner; the token reaches no log;
the database is the owner's alone; SQL is built from constants only."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

from tests.fakediscord import FakeDiscord

from .harness import BotProcess, RecordingDiscord, unhandled_lines
from .leaks import find_leaks, secrets_of
from .players import newest_with
from .rig import Rig
from .sqlcheck import unsafe_sql
from .truth import read_games


async def test_no_hand_and_no_deck_order_reaches_anyone_but_its_owner(rig: Rig) -> None:
    """A Kids game of three to the end: Alice and Bob by DM, Carol with DMs closed (her
    hand comes as ephemeral replies), with /sequence board and hint asked on the way."""
    rig.fake.faults.closed_dms.add(rig["Carol"].id)
    rig.no_dm_hand.add(rig["Carol"].id)
    game = await rig.start(await rig.lobby("kids", "Alice", "Bob", "Carol"), "Alice")
    await (await rig["Dan"].slash("sequence board")).reply()
    g = rig.game_in()
    mover = rig.fake.people[g.user_of(g.replayed().current_seat)]  # type: ignore[index]
    await (await mover.slash("sequence hint")).reply()
    end = await rig.play(game)
    assert end.status == "finished"
    assert rig.ledger.fallbacks > 0, "Carol played through the ephemeral hand"
    secrets = secrets_of(rig.games())
    assert secrets.hand_texts and secrets.deck_fragments, "there were secrets to keep"
    assert find_leaks(rig.fake, rig.database, rig.log.text, rig.fake.token) == []


async def test_the_leak_check_finds_planted_leaks(rig: Rig) -> None:
    """The check has teeth: a hand said in public, card buttons in the channel, one
    player's cards in another's DM, a deck order in the log are each found."""
    await rig.start(await rig.lobby("kids", "Alice", "Bob"), "Alice")
    hand = await rig.fake.wait_for(lambda: newest_with(rig["Alice"].dms(), "seq:card:"), 5,
                                   "Alice's hand")
    alice_cards = read_games(rig.database)[1].replayed().observation(0)["hand"]
    names = hand.files[0].description  # the hand, as the bot describes it
    assert names and ", " in names
    plant = RecordingDiscord.create_message
    plant(rig.fake, rig.channel, {"content": f"Alice holds {names}"}, [])
    row = {"type": 1, "components": [{"type": 2, "style": 1, "label": "x",
                                      "custom_id": c} for c in hand.custom_ids()]}
    plant(rig.fake, rig.channel, {"components": [row]}, [])
    plant(rig.fake, rig.fake.dm_channel(rig["Bob"].id), {"components": [row]}, [])
    deck = rig.bot.manager.game_state(1)["deck"]
    log = f'state {{"deck": ["{deck[0]}", "{deck[1]}", "{deck[2]}"]}}'
    leaks = find_leaks(rig.fake, rig.database, log, rig.fake.token)
    assert len(alice_cards) == 3
    assert any("shows the hand" in x and "everyone" in x for x in leaks), leaks
    assert any("card buttons to everyone" in x for x in leaks), leaks
    assert any("never their hand" in x for x in leaks), leaks
    assert any("deck order" in x for x in leaks), leaks


async def test_the_token_reaches_no_log_even_at_debug_level_or_when_refused(
        tmp_path: Path) -> None:
    secret = "token-" + os.urandom(12).hex()
    async with FakeDiscord(token=secret) as fake:
        guild = fake.add_guild("Family")
        alice = fake.add_person("Alice")
        bot = BotProcess(fake, tmp_path / "bot.db", tmp_path / "debug.log", guild_id=guild.id,
                         extra_env={"LOG_LEVEL": "DEBUG"})
        await bot.start()
        try:
            # a rate limit and a server error make discord.py log the request it retries
            fake.faults.rate_limit(times=1, path=r"/callback$")
            fake.faults.server_errors(502, times=1, path=r"^/webhooks/")
            lobby = await (await alice.slash("sequence new", game="kids", timeout=10)).reply(10)
            assert lobby.button(label="Join")
        finally:
            await bot.stop()
        assert len(bot.log()) > 10_000, "DEBUG logging was on"
        assert secret not in bot.log()
        # a token Discord refuses: the bot says so without repeating it
        wrong = "wrong-" + secret
        refused = BotProcess(fake, tmp_path / "bot.db", tmp_path / "refused.log",
                             extra_env={"DISCORD_TOKEN": wrong})
        process = await refused.launch()
        assert await asyncio.wait_for(process.wait(), 30) == 1
        assert "refused the token" in refused.log()
        assert wrong not in refused.log() and secret not in refused.log()


async def test_the_database_and_its_journal_are_the_owners_alone(rig: Rig) -> None:
    await rig.start(await rig.lobby("kids", "Alice", "Bob"), "Alice")
    files = [p for p in rig.database.parent.iterdir() if p.name.startswith(rig.database.name)]
    assert rig.database in files
    for path in files:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == 0o600, f"{path.name} is {oct(mode)}"
    assert unhandled_lines(rig.log.text, skip_known=True) == []


#: SQL built from more than constants, each with why it is safe. A new site fails the test.
REVIEWED_SQL = {
    'row = await self._fetchone(f"PRAGMA {name}")':
        "Connection.pragma (diagnostics): name is checked to be letters and underscores",
    'row = await self._fetchone(f"PRAGMA {name} = {int(value)}")':
        "Connection.pragma setting one (tests: a full disk, a read-only file): the name as "
        "above, the value an int",
    "await self._conn.executescript(":
        "migrations: SQL files of the repository, and an int schema number",
    "await conn.execute(sql)":
        "PostgreSQL migrations: the text of the repository's numbered SQL files",
    'row = await store.database.fetchone(f"SELECT COUNT(*) FROM {table}")':
        "sqlite_to_postgres: table names from its constant TABLES",
    'data[table] = await source.database.fetchall(f"SELECT {names} FROM {table}")':
        "sqlite_to_postgres: TABLES, and column names the target's information_schema gave",
    "await tx.executemany(":
        "sqlite_to_postgres: the same table and column names; the values are parameters",
    "await conn.execute(held.also[0], *held.also[1])":
        "postgres.write under a game's lock: shared.WRITE_PROMISE, a module constant; the values "
        "(game id, owner, seconds) are parameters",
    "await conn.execute(sql, *args)":
        "postgres.write's last statements and shared.schedule: shared._schedule's list, "
        "the module constant SCHEDULE; the chore's values are parameters",
    "await conn.execute(full)":
        "SessionLocks.reset: asyncpg's own reset query (Connection.get_reset_query), the "
        "pool's default for a connection that may still hold an advisory lock",
    'await admin.execute(f\'CREATE DATABASE "{dbname}"\')':
        "bench.sharing_bench: a database name made of a constant prefix and the constant "
        "names of the ways measured, on a throwaway server",
}


def test_sql_is_built_from_constants_and_values_go_in_parameters() -> None:
    sites = unsafe_sql()
    unreviewed = [str(s) for s in sites if s.source not in REVIEWED_SQL]
    assert unreviewed == []
    assert {s.source for s in sites} == set(REVIEWED_SQL), "a reviewed site is gone: update"


def test_the_sql_check_has_teeth(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "def f(db, name, n):\n"
        "    db.execute(f\"SELECT * FROM games WHERE name = '{name}'\")\n"
        "    db.execute(\"SELECT * FROM games WHERE id = %s\" % n)\n"
        "    db.execute(\"SELECT * FROM games WHERE id = {}\".format(n))\n"
        "    where = ['a = ?']\n"
        "    where.append(name)\n"
        "    db.execute('SELECT 1 WHERE ' + ' AND '.join(where))\n"
        "    db.execute('SELECT 1 WHERE id = ?', (n,))\n"
        "def g(db, sql):\n"  # a nested function does not make its outer's text safe
        "    def inner(conn):\n"
        "        conn.execute(sql)\n"
        "def fetchone(db, sql):\n"  # ... unless the outer is an execute-like wrapper
        "    def inner(conn):\n"
        "        conn.execute(sql)\n"
        "    def rebound(sql):\n"
        "        conn.execute(sql)\n")
    import tests.reliability.sqlcheck as sqlcheck

    old = sqlcheck.ROOT
    sqlcheck.ROOT = tmp_path
    try:
        lines = [s.line for s in unsafe_sql([bad])]
    finally:
        sqlcheck.ROOT = old
    assert lines == [2, 3, 4, 7, 11, 16]
