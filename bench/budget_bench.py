"""One token, four processes: global 429s, requests/s and board latency, before and after
the bot's own global budget (issue 26, item 3), in one run.

Four ``python bot.py`` processes (``SHARD_COUNT=4``, one shard each) on one throwaway
PostgreSQL, one fake Discord enforcing Discord's limits over all of them at once, and a
load that would overdraw the token: ``BUDGET_COMPUTER_CHANNELS`` channels a shard of
computer games with no delay in tidy servers (a board and a deletion a move, about one
move a second a channel), plus ``BUDGET_PEOPLE_TABLES`` tables a shard of two people at a
person's pace whose click-to-board times are the board latency
(``tests/reliability/one_token.py``). "before": ``DISCORD_GLOBAL_LIMIT=0``, each process
keeping only discord.py's own limits, as before the budget; "after": each process paces
itself to its share. The window starts when every table is asked to open, at once, and
lasts ``BUDGET_WINDOW_S``: the same span from the same start in both phases. Figures are
the fake's, in the window: global 429s, rate-limited requests Discord accepted per
second, boards per second, board latency p50/p99; the ratios are after / before (0: no
figure before, e.g. no person's move got its board in the window).

Caveat: the four processes, PostgreSQL, the fake and its people share this machine's
cores, so latencies are those of the whole loop.

    python -m bench budget
"""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
from pathlib import Path

from tests.reliability.one_token import Load, Phase, before_and_after
from tools.pg_server import PostgresServer, find_bindir

# 6 busy channels a shard ask about 50 requests a second of the token in all, well over its
# budget; at 10 a shard this shared 2-core machine (the fake Discord is one Python process
# serving four bots and their people) falls behind in both phases, not only in "before"
LOAD = Load(computer_channels=int(os.environ.get("BUDGET_COMPUTER_CHANNELS", "6")),
            people_tables=int(os.environ.get("BUDGET_PEOPLE_TABLES", "1")),
            window_s=float(os.environ.get("BUDGET_WINDOW_S", "25")))
# two processes, one busy channel and one table each, for 3 s: they still start, share the
# token and stop, in both phases (the module still works; the figures mean little)
QUICK = Load(computer_channels=1, people_tables=1, window_s=3.0, shards=2)


def _figures(phase: Phase) -> dict[str, float]:
    name = phase.name
    return {
        f"budget_{name}_global_429s": float(phase.global_429s),
        f"budget_{name}_route_429s": float(phase.route_429s),
        f"budget_{name}_requests_per_s": round(phase.requests_per_s, 1),
        f"budget_{name}_attempts_per_s": round(phase.attempts_per_s, 1),
        f"budget_{name}_boards_per_s": round(phase.boards_per_s, 1),
        f"budget_{name}_board_ms_p50": round(phase.board_ms_at(0.5), 1),
        f"budget_{name}_board_ms_p99": round(phase.board_ms_at(0.99), 1),
        f"budget_{name}_people_moves": float(len(phase.board_ms)),
        # steps of the people that never got their answer (lost to Discord's refusals)
        f"budget_{name}_stalls": float(phase.stalls),
        f"budget_{name}_unopened_channels": float(phase.unopened),
        f"budget_{name}_error_lines": float(len(phase.errors)),
        f"budget_{name}_error_lines_at_stop": float(len(phase.errors_at_stop)),
    }


def _ratio(after: float, before: float) -> float:
    return round(after / before, 2) if before else 0.0


def run(quick: bool = False) -> dict[str, float]:
    logging.getLogger("tests").setLevel(logging.ERROR)
    bindir = find_bindir()
    if bindir is None:
        print("   (PostgreSQL is not installed: budget bench skipped)", flush=True)
        return {}
    with tempfile.TemporaryDirectory() as tmp, PostgresServer(bindir, durable=False) as pg:
        before, after = asyncio.run(before_and_after(pg.url(), Path(tmp),
                                                     QUICK if quick else LOAD))
        for phase in (before, after):
            print(f"   {phase.name}: " + "; ".join(line.split("sequence: ", 1)[-1]
                                                for line in phase.budget_lines[:1]), flush=True)
            for line in phase.errors[:3]:
                print(f"      {line[:200]}", flush=True)
            for stall in phase.stalled[:3]:
                print(f"      stalled: {stall[:200]}", flush=True)
    figures = {**_figures(before), **_figures(after)}
    for key in ("requests_per_s", "boards_per_s", "board_ms_p50", "board_ms_p99"):
        figures[f"budget_{key}_ratio"] = _ratio(figures[f"budget_after_{key}"],
                                                figures[f"budget_before_{key}"])
    return figures
