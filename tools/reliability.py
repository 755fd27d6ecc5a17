"""``make reliability``: the bot under faults, abuse and load, summed up in one table.

Runs, each bounded in time and count, everything on 127.0.0.1:

- kills: ``python bot.py`` SIGKILLed 32 times at chosen moments of 6 tables of Kids and Dice
  games (lobby, board of a committed move, mid-turn prompt, hand DM, computer thinking,
  random), restarted on the same database each time (tests/reliability/chaos.py);
- discord: a storm of 429s, 500/502 bursts (some after the message was made), gateway
  drops with and without RESUME and a player's DMs closing, over three games at once
  (tests/reliability/storm.py);
- fuzz: 3,000 random and forged interactions while two games are played
  (tests/reliability/fuzz.py);
- two processes: two ``python bot.py`` (shards 0 and 1 of 2) on a throwaway PostgreSQL,
  SIGKILLed alternately 6 times (2 with ``--quick``) while 4 tables in servers on both
  shards play Kids and Dice from DMs and boards, with computers and a turn timer; the note
  gives the longest takeover of a computer turn or timer by the live process
  (tests/reliability/two_chaos.py);
- load: bench/load_bench.py (its figures go to bench/latest.json).

Exit status 1 if anything was lost (or never shown), doubled, leaked or unhandled, or if a
killed process's due work was not taken over by the live one within 10 s.

    python -m tools.reliability [--quick] [--no-load] [--only two-processes]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADER = ("suite", "faults injected", "games finished", "moves lost", "duplicates", "leaks",
          "unhandled", "known bugs", "late takeovers")
#: Seconds within which a live process takes over what a killed one left due (issue 32)
TAKEOVER_WITHIN = 10.0


def kills(workdir: Path, quick: bool) -> tuple[tuple[object, ...], str]:
    from tests.reliability.chaos import LONG_RUN_TABLES, KillRun, TableSpec

    tables = [TableSpec("kids"), TableSpec("dice", people=1, computers=("easy",))] \
        if quick else LONG_RUN_TABLES
    run = KillRun(workdir, tables, kills=4 if quick else 32, time_limit=60 if quick else 150)
    r = asyncio.run(run.run())
    row = ("kill -9 + restart", r.kills, f"{r.games_finished_ok}/{r.games_started}",
           len(r.moves_lost) + len(r.committed_lost), r.boards_duplicated, len(r.leaks),
           len(r.unhandled) + len(r.invariant_problems), sum(r.known_bugs.values()), 0)
    return row, r.summary()


def discord(workdir: Path, quick: bool) -> tuple[tuple[object, ...], str]:
    from tests.reliability.storm import storm

    r = asyncio.run(storm(workdir, rounds=2 if quick else 6))
    row = ("discord faults", r.faults, f"{r.games_finished_ok}/{r.games_started}",
           r.moves_lost, r.duplicates, len(r.leaks), len(r.unhandled), r.known_bugs, 0)
    first_lines = [u.split("\n", 1)[0] for u in r.unhandled[:3]]
    return row, f"boards missing {r.missing_boards}; unhandled {first_lines}"


def fuzz(workdir: Path, quick: bool) -> tuple[tuple[object, ...], str]:
    from store import Status
    from tests.reliability.fuzz import Fuzzer
    from tests.reliability.harness import known_bug, unhandled_records
    from tests.reliability.leaks import find_leaks
    from tests.reliability.rig import make_rig

    async def go() -> tuple[tuple[object, ...], str]:
        async for rig in make_rig(workdir, channels=("general", "other")):
            other = rig.guild.channel_ids[1]
            await rig.start(await rig.lobby("kids", "Alice", "Bob"), "Alice")
            await rig.start(await rig.lobby("dice", "Carol", "Dan", channel=other), "Carol",
                            other)
            playing = [asyncio.create_task(rig.play(g, time_limit=90))
                       for g in rig.games().values()]
            fuzzer = Fuzzer(rig.fake, list(rig.people.values()), list(rig.guild.channel_ids),
                            lambda r=rig: list(r.games()), seed=int(time.time()),
                            quiet=rig.quiet)
            report = await fuzzer.run(400 if quick else 3000, time_limit=120)
            ends = await asyncio.gather(*playing)
            records = unhandled_records(rig.log.text)
            known = sum(1 for x in records if known_bug(x))
            known_apologies = sum(1 for x in records if known_bug(x) and " failed (user " in x)
            broken = [p for g in rig.games().values() for p in g.invariant_problems()]
            # (a game as stored: its status is the stored text)
            finished = sum(1 for e in ends if not Status(e.status).is_open)
            row = ("fuzz", report.sent, f"{finished}/{len(ends)}",
                   len(rig.ledger.lost(rig.games())), 0,
                   len(find_leaks(rig.fake, rig.database, rig.log.text, rig.fake.token)),
                   len(records) - known + len(broken) + len(report.public_refusals)
                   + sum(report.unanswered.values())
                   + max(0, len(report.apologies) - known_apologies), known, 0)
            return row, report.summary()
        raise RuntimeError("no rig")

    return asyncio.run(go())


def two_processes(workdir: Path, quick: bool) -> tuple[tuple[object, ...], str]:
    from tests.reliability.two_chaos import full_run, quick_run, row
    from tools.pg_server import find_bindir

    if find_bindir() is None:
        return (("2 processes, PostgreSQL", 0, "-", 0, 0, 0, 0, 0, 0),
                "skipped: PostgreSQL is not installed (no initdb/pg_ctl found)")
    run = quick_run(workdir) if quick else full_run(workdir)
    report = asyncio.run(run.run())
    return row(report, TAKEOVER_WITHIN), report.summary()


def load() -> str:
    from bench import load_bench

    figures = load_bench.run()
    path = ROOT / "bench" / "latest.json"
    merged = json.loads(path.read_text()) if path.exists() else {}
    merged.update(figures)
    path.write_text(json.dumps(merged, indent=2, sort_keys=True) + "\n")
    return ", ".join(f"{k} {v}" for k, v in figures.items())


def table(rows: list[tuple[object, ...]]) -> str:
    cells = [HEADER, *[tuple(str(c) for c in r) for r in rows]]
    widths = [max(len(str(r[i])) for r in cells) for i in range(len(HEADER))]
    lines = [" | ".join(str(c).rjust(w) if i else str(c).ljust(w)
                        for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             for r in cells]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


SUITES = ("kills", "discord", "fuzz", "two-processes")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few of each (about three minutes)")
    parser.add_argument("--no-load", action="store_true", help="skip the load bench")
    parser.add_argument("--only", choices=SUITES, action="append",
                        help="run only this suite (again for more); implies --no-load")
    args = parser.parse_args(argv)
    # the bot's warnings and errors are caught and counted by the suites, not printed
    logging.getLogger().setLevel(logging.WARNING)
    logging.getLogger().addHandler(logging.NullHandler())
    rows, notes = [], []
    started = time.monotonic()
    for name, suite in (("kills", kills), ("discord", discord), ("fuzz", fuzz),
                        ("two-processes", two_processes)):
        if args.only and name not in args.only:
            continue
        print(f"== {name} ...", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            row, note = suite(Path(tmp), args.quick)
        rows.append(row)
        notes.append(f"{name}: {note}")
        print(f"   {note}", flush=True)
    if not args.no_load and not args.only:
        print("== load ...", flush=True)
        notes.append("load: " + load())
    print()
    print(table(rows))
    print()
    for note in notes:
        print(note)
    print(f"({time.monotonic() - started:.0f} s)")
    bad = sum(int(r[3]) + int(r[4]) + int(r[5]) + int(r[6]) + int(r[8])  # type: ignore[call-overload]
              for r in rows)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
