"""PostgreSQL stopped in the middle of a game under two ``python bot.py`` processes, and
started again (issue 26, item 1, "Done means").

A throwaway PostgreSQL of the test's own, behind a proxy (``tests/pg_proxy.py``); two
processes running shards 0 and 1 of 2; a Kids game in a server on shard 1 between Ann, Bob
and an easy computer player, played from the DMs (which Discord sends to shard 0). The
moment the database has committed one of Bob's moves, before his process hears so, it is
stopped with ``pg_ctl stop -m fast`` (every connection of both processes cut): the
computer player to move after him cannot have moved first, however slow the machine or
Discord (it waits for Bob's move's answer before it even looks). Bob is told his move was
played, people click meanwhile (a card in a DM hand, at shard 0; "My hand" on the board, at
shard 1), and after the outage the database is started again on the same data and port.
Then:

- every click was answered, privately, "The game cannot be saved right now; nothing
  changed. Try again in a few seconds." (the fake Discord refuses an answer after 3 s, so
  an answer at all is one within Discord's limit), and nothing public changed meanwhile;
- the computer's turn is played once the database is back (its player met the outage
  and did not stop), and the game goes on;
- every move that was acknowledged ("Played: ...") is stored;
- each process's log says the outage once with its reason, its end once with its length,
  that it listens for the other's changes again, and holds no traceback; neither took
  the other for dead (both had lost their connections to the restart).

Each process's ``/healthz`` says 503 (the database does not answer) during the outage and
200 after it. The test runs in stages (before, during, after), each with its own checks,
so a check at each stage is one line to add. The timeline
(every board as it came, every click's answer and how long it took, both logs around the
outage) is printed: ``pytest -s -m slow
tests/reliability/test_database_outage.py`` shows it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.people import boards, final_board, whose_turn
from tests.fakediscord import FakeDiscord, FakeMessage
from tests.pg_proxy import Cut, PostgresProxy
from tests.waiting import until
from tools.pg_server import PostgresServer

from .harness import BotProcess, error_lines, unhandled_lines
from .outage import COMPUTER_DELAY, PLAYED, Answer, Outage, outage_table

STORE_UNAVAILABLE = ("The game cannot be saved right now; nothing changed. "
                     "Try again in a few seconds.")


@pytest.mark.parametrize(("outage", "to_the_end", "slow_discord"), [
    pytest.param(5.0, True, False, marks=pytest.mark.slow,
                 id="5 s, the game played to its end"),
    pytest.param(3.0, False, False, id="3 s, a few moves after"),
    # Bob's "Played" answered after the computer's pause has run out, the computer's
    # board late too: a test that stopped the database once it read the "Played" found
    # the computer's move made before the outage (its turn was no longer pending)
    pytest.param(5.0, False, True, marks=pytest.mark.slow,
                 id="5 s, Discord slow as the computer's turn comes"),
])
async def test_postgres_stopped_mid_game_under_two_processes_loses_nothing_and_says_why(
        tmp_path: Path, pausable_postgres: PostgresServer, outage: float, to_the_end: bool,
        slow_discord: bool, capsys: pytest.CaptureFixture[str]) -> None:
    async with PostgresProxy(pausable_postgres) as proxy, \
            outage_table(tmp_path, pausable_postgres, proxy.url()) as run:
        ann, bob = run.ann, run.bob

        # -- before: play until Bob places a chip (an exchanged dead card keeps his turn):
        # the computer is to move after it, and the database stops as it commits it -----
        stop: Cut | None = None
        chip = ""

        def at_his_chip(action: str) -> None:
            nonlocal stop, chip
            if stop is None and run.acknowledged and "@" in action:
                stop, chip = run.stop_at_commit(proxy), action
                if slow_discord:
                    slow_as_the_computer_is_to_move(run)

        board = await run.next_board(0)
        while stop is None:
            mover = run.person(whose_turn(board))
            seen = len(boards(run.fake, run.channel))
            await run.turn(mover, at_his_chip if mover is bob else None)
            if stop is None:
                board = await run.next_board(seen)
        await run.stopped(stop)
        bob_ply, bob_action = run.acknowledged[-1]
        assert bob_action == chip, "Bob was told his chip was played: it was kept"
        # (his move's board was posted before his "Played", the database away meanwhile)
        assert whose_turn(boards(run.fake, run.channel)[-1]) is None, "the computer is next"
        assert final_board(run.fake, run.channel) is None

        # -- during: the database is away ------------------------------------------------
        public = run.public()
        ann_hand, bob_hand = await run.hand(ann), await run.hand(bob)
        assert ann_hand is not None and bob_hand is not None
        answers: list[Answer] = [
            await run.click_for_answer(ann, ann_hand, "a card in her DM hand", 0,
                                       custom_id=first_card(ann_hand)),
            await run.click_for_answer(ann, boards(run.fake, run.channel)[-1],
                                       '"My hand" on the board', 1, label="My hand"),
            await run.click_for_answer(bob, bob_hand, "a card in his DM hand", 0,
                                       custom_id=first_card(bob_hand)),
        ]
        for answer in answers:
            assert (answer.text, answer.ephemeral) == (STORE_UNAVAILABLE, True), answer
        for line in await run.health_says(503):
            assert line.startswith(("the database does not answer: ",
                                    "the database did not answer within ")), line
        assert run.public() == public, "nothing public changed while the database was away"
        # counted before the start: the computer may move (and its board come) before
        # ``pg_ctl start`` returns, which on a loaded machine took 1.6 s (the test then
        # waited for a second board nobody was to make)
        seen = len(boards(run.fake, run.channel))
        await run.start_database(after=outage)

        # -- after: the computer's turn is played, and the game goes on -------------------
        board = await run.next_board(seen)
        run.timeline.mark("first board after the database came back: the computer's move")
        assert await run.health_says(200) == ["ok", "ok"]
        for _ in range(10_000 if to_the_end else 3):
            if final_board(run.fake, run.channel) is not None:
                run.timeline.mark("the final board")
                break
            seen = len(boards(run.fake, run.channel))
            await run.turn(run.person(whose_turn(board)))
            board = await run.next_board(seen)
        if to_the_end:
            assert final_board(run.fake, run.channel) is not None, "the game ended"

        stored = await run.stored_actions()
        for ply, action in run.acknowledged:
            assert stored.get(ply, (None, "", 0.0))[1] == action, f"acknowledged move {ply}"
        seat, _, when = stored[bob_ply + 1]
        assert seat == 2, "the computer played the move after Bob's"
        assert run.timeline.stopped_wall is not None and when > run.timeline.stopped_wall, \
            "its turn, pending when the database stopped, was played after the outage"
    with capsys.disabled():
        print(f"\n-- outage of {outage:g} s: timeline (seconds since the database stopped)")
        print(run.report())
        print("-- both processes' logs around the outage")
        print(run.log_lines_around_the_outage())
    for process in run.shards:
        log = process.log()
        assert "Traceback" not in log and unhandled_lines(log) == [] and error_lines(log) == []
        began = [line for line in log.splitlines() if "database unreachable: " in line]
        ended = [line for line in log.splitlines() if "database back after " in line]
        assert len(began) == 1 and began[0].endswith("; retrying"), began
        assert len(ended) == 1, ended
        assert "listening for other processes' changes again" in log
        # a restart cut the other's connections too: it was not taken for dead meanwhile
        assert "another process died" not in log and "nobody played in time" not in log


def first_card(hand: FakeMessage) -> str:
    return next(c for c in hand.custom_ids() if c.startswith("seq:card:"))


def slow_as_the_computer_is_to_move(run: Outage) -> None:
    """Discord answers the next "Played" half a second after the computer's pause has run
    out, and the computer's first board 2 s late."""
    def once(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
        left = [1]

        def matches(body: Any) -> bool:
            if left[0] and isinstance(body, dict) and check(body):
                left[0] -= 1
                return True
            return False
        return matches

    run.fake.faults.slow(COMPUTER_DELAY + 0.5, method="PATCH", body=once(
        lambda body: str(body.get("content") or "").startswith(PLAYED)))
    run.fake.faults.slow(2.0, method="POST", body=once(
        lambda body: "Computer (easy) played" in str(body.get("content") or "")))


async def test_a_bot_started_while_postgres_is_down_waits_for_it_and_says_so_once(
        tmp_path: Path, pausable_postgres: PostgresServer) -> None:
    """Not "cannot reach Discord" (the database's refusal was taken for Discord's), not a
    traceback: one line while it waits, one when the database is reached, then ready."""
    await asyncio.to_thread(pausable_postgres.pause)
    async with FakeDiscord() as fake:
        bot = BotProcess(fake, tmp_path / "unused.db", tmp_path / "bot.log",
                         extra_env={"DATABASE_URL": pausable_postgres.url()})
        await bot.launch()
        try:
            await until(lambda: "database unreachable at start: " in bot.log(),
                        "the bot to say the database cannot be reached")
            assert bot.alive
            await asyncio.to_thread(pausable_postgres.resume)
            await until(lambda: " INFO sequence: ready" in bot.log(), "the bot to be ready",
                        timeout=30)
        finally:
            assert await bot.stop() == 0
    log = bot.log()
    assert "Traceback" not in log and error_lines(log) == [], log
    assert "cannot reach Discord" not in log, "the database's refusal is not Discord's"
    said = [line.split(": ", 1)[1] for line in log.splitlines() if " runtime.reachable: " in line]
    assert len(said) == 2, said
    assert said[0] == "database unreachable at start: connection refused; trying again every 2 s"
    assert said[1].startswith("database reached after ")
