"""A storm of Discord faults over several games at once, counted for the summary table.

Three tables play to the end in one process while Discord rate-limits message, DM,
interaction and webhook routes, answers bursts of 500 and 502, drops the gateway (once
with RESUME, once forcing a fresh IDENTIFY) and starts refusing one player's DMs.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from dataclasses import dataclass, field
from pathlib import Path

from .harness import board_count_problems, known_bug, unhandled_records
from .leaks import find_leaks
from .rig import Rig, make_rig
from .truth import expected_boards

ROUTES = {
    "messages": r"^/channels/\d+/messages$",
    "callback": r"^/interactions/\d+/[^/]+/callback$",
    "webhook": r"^/webhooks/\d+/[^/]+",
}


@dataclass
class StormReport:
    faults: int = 0
    games_started: int = 0
    games_finished_ok: int = 0
    moves_lost: int = 0
    duplicates: int = 0
    missing_boards: int = 0
    leaks: list[str] = field(default_factory=list)
    unhandled: list[str] = field(default_factory=list)
    known_bugs: int = 0


async def storm(workdir: Path, *, rounds: int = 6, time_limit: float = 120.0) -> StormReport:
    report = StormReport()
    async for rig in make_rig(workdir, ("Alice", "Bob", "Carol", "Dan", "Erin", "Finn"),
                              channels=("a", "b", "c")):
        await _storm(rig, report, rounds, time_limit)
    return report


async def _storm(rig: Rig, report: StormReport, rounds: int, time_limit: float) -> None:
    a, b, c = rig.guild.channel_ids
    games = [
        await rig.start(await rig.lobby("kids", "Alice", "Bob", channel=a), "Alice", a),
        await rig.start(await rig.lobby("dice", "Carol", "Dan", channel=b), "Carol", b),
        await rig.start(await rig.lobby("kids", "Erin", "Finn", channel=c), "Erin", c),
    ]
    playing = [asyncio.create_task(rig.play(g, time_limit=time_limit)) for g in games]
    faults = rig.fake.faults
    kinds = itertools.cycle(["429", "500", "429", "502", "resume", "429", "identify", "dms",
                             "stored-500"])
    extra = 0
    for _ in range(rounds * 9):
        if all(t.done() for t in playing):
            break
        kind = next(kinds)
        if any(f.hits < f.times for f in faults.http):
            # the last faults are not used up yet: never more than 4 failures in a row on
            # a route, within discord.py's 5 tries (beyond them: see
            # test_discord_faults.py::test_a_board_that_fails_five_times_is_shown_later)
            await asyncio.sleep(0.5)
            continue
        if kind == "429":
            for route in ROUTES.values():
                faults.rate_limit(times=2, path=route)
        elif kind in ("500", "502"):
            faults.server_errors(int(kind), times=2, method="POST", path=ROUTES["messages"])
        elif kind == "stored-500":  # made, but the answer lost: the retry must not double
            faults.server_errors(500, times=2, method="POST", path=ROUTES["messages"],
                                 after_handling=True)
        elif kind == "resume":
            await rig.fake.disconnect(resume=True)
            extra += 1
        elif kind == "identify":
            before = rig.fake.identified
            await rig.fake.disconnect(resume=False)
            extra += 1
            with contextlib.suppress(TimeoutError):
                await rig.fake.wait_for(lambda b=before: rig.fake.identified > b, 10,
                                        "a fresh IDENTIFY")
        elif kind == "dms" and rig["Finn"].id not in faults.closed_dms:
            faults.closed_dms.add(rig["Finn"].id)
            extra += 1
        await asyncio.sleep(0.5)
    ends = await asyncio.gather(*playing)
    faults.http.clear()
    # every error answer Discord gave, plus the gateway drops and the closed DMs
    report.faults = extra + sum(1 for r in rig.fake.requests if r.status in (429, 500, 502))
    truth = rig.games()
    report.moves_lost = len(rig.ledger.lost(truth))
    for channel, end in zip((a, b, c), ends, strict=True):
        await rig.settled(channel)
        report.games_started += 1
        if end.status == "finished" and not end.invariant_problems():
            report.games_finished_ok += 1
        expected = sum(expected_boards(g) for g in truth.values() if g.channel_id == channel)
        missing, doubled, on_recovery = board_count_problems(rig.fake, channel, expected)
        report.duplicates += doubled + on_recovery  # no restart here: any is a new bug
        report.missing_boards += missing
    for record in unhandled_records(rig.log.text):
        if known_bug(record):
            report.known_bugs += 1
        else:
            report.unhandled.append(record.split("\n", 1)[0])
    report.leaks = find_leaks(rig.fake, rig.database, rig.log.text, rig.fake.token)
