"""The answer to a move's COMMIT lost on its way back, under two ``python bot.py`` processes
on PostgreSQL (issue 32, item 2, "Done means").

A PostgreSQL of the test's own with ``tests/pg_proxy.py`` between it and both processes;
Ann, Bob and an easy computer at a table in a server on shard 1, played from the hands in
the DMs (which Discord sends to shard 0's process). At one of a person's moves the proxy
lets its COMMIT through, throws PostgreSQL's answer away and cuts the connection; in the
second case it also stops the database at that moment and starts it again 3 s later. The
bot cannot know from the driver whether the move is stored, so it asks the database by the
move's interaction id once it answers. Then:

- the person is told, on the hand message they played from, that the move was kept and
  the board follows, never "nothing changed" (which was what they were told before);
- the board of that move follows within 10 s of the cut (before: 30 s, when the
  announcement's promise ran out), and the next player is prompted;
- the move is stored exactly once, with its interaction's id, and the game goes on;
- no traceback, no error line.

The timeline (what the person saw when, the board's delay from the cut) is printed:
``pytest -s tests/reliability/test_commit_cut.py``.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import asyncpg
import pytest

from tests.e2e.people import boards, choose_first, shows_choices, tap_card, whose_turn
from tests.pg_proxy import PostgresProxy
from tools.pg_server import PostgresServer

from .harness import error_lines, unhandled_lines
from .outage import move_of, outage_table, played_or_refused

KEPT = "The database answered late, but your move was kept: the board follows."
NOTHING_CHANGED = "nothing changed"
BOARD_WITHIN = 10.0  # seconds from the cut


@pytest.mark.parametrize("stopped", [
    pytest.param(0.0, id="the answer lost"),
    pytest.param(3.0, id="the database stopped for 3 s at the cut"),
])
async def test_a_move_whose_commit_answer_was_lost_is_told_kept_and_its_board_follows(
        tmp_path: Path, pausable_postgres: PostgresServer, stopped: float,
        capsys: pytest.CaptureFixture[str]) -> None:
    async with PostgresProxy(pausable_postgres) as proxy, \
            outage_table(tmp_path, pausable_postgres, proxy.url()) as run:
        timeline = run.timeline
        board = await run.next_board(0)  # a person's turn
        mover = run.person(whose_turn(board))
        hand = await run.hand(mover)
        assert hand is not None
        prompt = None
        for card in [c for c in hand.custom_ids() if c.startswith("seq:card:")]:
            prompt = await tap_card(mover, hand, card, timeout=10)
            if shows_choices(prompt):
                break
        assert prompt is not None and shows_choices(prompt), "a card with a space to play"

        stopped_at: list[float] = []

        def stop() -> None:  # (in the proxy's thread, between the answer and the cut)
            pausable_postgres.pause()
            stopped_at.append(time.perf_counter())

        cut = proxy.cut_after_commit(b"INSERT INTO actions",
                                     before_answer=stop if stopped else None)
        seen = len(boards(run.fake, run.channel))
        chosen = await choose_first(mover, prompt, timeout=10)
        timeline.mark(f"{mover.name} chose a space (interaction {chosen.id})", chosen.sent_at)
        ply, action = move_of(chosen)
        await cut.happened(20)
        assert cut.at is not None
        for at in stopped_at:
            timeline.mark("database stopped (pg_ctl stop -m fast), after it answered the "
                          "COMMIT and before the answer reached the bot", at)
        timeline.mark("the proxy cut the connection: PostgreSQL had answered the COMMIT, "
                      "the bot never heard it", cut.at)
        if stopped:
            await asyncio.sleep(max(0.0, stopped - (time.perf_counter() - cut.at)))
            await asyncio.to_thread(pausable_postgres.resume)
            timeline.mark("database started again")
        said = await run.fake.wait_for(lambda: played_or_refused(chosen, prompt), 30,
                                       "the move's answer")
        timeline.mark(f"{mover.name} reads on the hand message: {said!r}")
        assert NOTHING_CHANGED not in said, "the move was stored: never 'nothing changed'"
        assert KEPT in said, said
        board_of_move = await run.fake.wait_for(
            lambda: boards(run.fake, run.channel)[seen]
            if len(boards(run.fake, run.channel)) > seen else None, 30, "the move's board")
        timeline.mark(f"the board of the move: {board_of_move.content.splitlines()[0]!r}",
                      board_of_move.at)
        delay = board_of_move.at - cut.at
        assert delay < BOARD_WITHIN, f"the board came {delay:.1f} s after the cut"
        assert mover.name in board_of_move.content

        # stored once, with the interaction that made it; the game goes on
        stored = await run.stored_actions()
        assert stored[ply][1] == action
        conn = await asyncpg.connect(pausable_postgres.url())
        try:
            found = await conn.fetch("SELECT ply FROM actions WHERE game_id = $1 AND"
                                     " request_id = $2", run.game_id, str(chosen.id))
        finally:
            await conn.close()
        assert [r[0] for r in found] == [ply], "stored exactly once, by its interaction"
        board = await run.next_board(seen)
        timeline.mark("the next person's turn on a board")
        for _ in range(2):
            if whose_turn(board) is None:
                break
            seen = len(boards(run.fake, run.channel))
            await run.turn(run.person(whose_turn(board)))
            board = await run.next_board(seen)
        timeline.mark("two more moves played")
    with capsys.disabled():
        what = " and the database stopped" if stopped else ""
        print(f"\n-- the answer to a move's COMMIT lost{what}: timeline (seconds since the "
              f"cut; the board {delay:.2f} s after it)")
        timeline.stopped_at = cut.at
        print(timeline.report())
    for process in run.shards:
        log = process.log()
        assert "Traceback" not in log and unhandled_lines(log) == [] and error_lines(log) == []
