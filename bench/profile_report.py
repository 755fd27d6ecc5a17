"""Where the bot's CPU goes, from a py-spy sample file (``--format raw``, collapsed stacks).

The e2e bench writes one with ``E2E_BENCH_PYSPY=FILE`` (the bot sampled while the games
run, start-up excluded). This sums it up three ways, so a cut is chosen by evidence:

- **parts**: each sample is charged to the first part (in the order of ``PARTS``) whose
  frame is on its stack, so the parts add up to 100 % (drawing a board charges the board,
  not Pillow; a log line inside the store charges the store);
- **inclusive**: the share of samples with a given function anywhere on the stack;
- **self**: the leaf function (where the CPU actually burns) and the leaf's module.

Samples whose leaf is a wait (``IDLE``: the event loop's ``select``, a worker thread
waiting for work) are left out: in a container py-spy cannot always tell a sleeping thread
from a running one, and those samples are not CPU (with them, the samples add up to far
more than the CPU the bench measured for the bot; without them, about that).

    python -m bench.profile_report /tmp/bot-paced.txt [--moves N]

``--moves``: the committed moves of the run, to turn shares into milliseconds per move
(with ``--cpu-ms-per-move``, the bench's ``e2e_bot_cpu_ms_per_move``).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

_FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^()]*?)(?::(?P<line>\d+))?\)$")

#: (part, predicate on "file:function") in priority order: the first match on a stack wins.
PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("render: board picture", ("render/board.py:",)),
    ("render: hand picture", ("render/hand.py:",)),
    ("render: choice picture", ("render/choice.py:",)),
    ("render: alt text", ("render/alt.py:",)),
    ("render: other", ("render/",)),
    ("logging", ("/logging/",)),
    ("store (sqlite, aiosqlite)", ("store/", "/aiosqlite/", "/sqlite3/")),
    ("engine: rules, observation, AI", ("engine/game", "engine/kids", "engine/dice",
                                         "engine/observation", "engine/ai/", "engine/board",
                                         "engine/options", "engine/spaces", "engine/factory")),
    ("engine: manager", ("manager/",)),
    ("discord.py: gateway in (parse events)", ("discord/gateway.py:", "discord/state.py:")),
    ("discord.py: HTTP out (requests, multipart)", ("discord/http.py:",
                                                     "discord/webhook/")),
    ("discord.py: building messages, views", ("discord/message.py:", "discord/ui/",
                                              "discord/interactions.py:", "discord/abc.py:",
                                              "discord/file.py:", "discord/embeds.py:",
                                              "discord/utils.py:")),
    ("discord.py: other", ("discord/",)),
    ("cogs (adapter)", ("cogs/",)),
    ("aiohttp (sockets, HTTP)", ("/aiohttp/", "/yarl/", "/multidict/")),
    ("asyncio event loop", ("/asyncio/",)),
)


#: leaf functions that wait rather than work ("function (file)", file as ``_short`` gives)
IDLE = frozenset({
    "EpollSelector.select (selectors.py)",
    "_worker (concurrent/futures/thread.py)",
    "_connection_worker_thread (aiosqlite/core.py)",
    "Condition.wait (threading.py)",
    "Event.wait (threading.py)",
})


def samples(path: Path) -> Iterator[tuple[list[tuple[str, str]], int]]:
    """(stack root first as (file, function), count) for each line of a raw py-spy file."""
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = []
        for raw in stack.split(";"):
            match = _FRAME.match(raw)
            if match:
                frames.append((_short(match["file"]), match["func"]))
            else:
                frames.append((raw, raw))
        yield frames, int(count)


def _short(file: str) -> str:
    """Paths from the project root or site-packages on, so the report reads the same
    on any machine."""
    for marker in ("site-packages/", "/lib/python3"):
        if marker in file:
            return file.split(marker, 1)[1] if marker == "site-packages/" else \
                "/" + file.split(marker, 1)[1].split("/", 1)[-1]
    for top in ("cogs/", "render/", "engine/", "bench/", "bot.py", "tests/"):
        at = file.find(top)
        if at >= 0:
            return file[at:]
    return file


def part_of(frames: list[tuple[str, str]]) -> str:
    keys = ["/" + f"{file}:{func}" for file, func in frames]
    for part, needles in PARTS:
        if any(n in k for k in keys for n in needles):
            return part
    return "other (interpreter, threads, C)"


def report(path: Path, *, moves: int = 0, cpu_ms_per_move: float = 0.0, top: int = 25) -> str:
    parts: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    leaf: Counter[str] = Counter()
    leaf_module: Counter[str] = Counter()
    total = idle = 0
    for frames, count in samples(path):
        file, func = frames[-1]
        if f"{func} ({file})" in IDLE:
            idle += count
            continue
        total += count
        parts[part_of(frames)] += count
        seen = set()
        for file, func in frames:
            key = f"{func} ({file})"
            if key not in seen:
                seen.add(key)
                inclusive[key] += count
        file, func = frames[-1]
        leaf[f"{func} ({file})"] += count
        leaf_module[file] += count
    if not total:
        return f"no samples in {path}\n"

    def row(name: str, n: int) -> str:
        share = n / total
        ms = f" | {share * cpu_ms_per_move:5.2f}" if cpu_ms_per_move else ""
        return f"| {share * 100:5.1f} %{ms} | {name} |"

    head_ms = " ms/move |" if cpu_ms_per_move else ""
    rule_ms = "---:|" if cpu_ms_per_move else ""
    out = [f"{total} samples from {path.name} ({idle} waiting samples left out)"
           + (f", {moves} committed moves" if moves else "") + "\n"]
    out += ["### By part (each sample charged once)\n", f"| share |{head_ms} part |",
            f"|---:|{rule_ms}---|"]
    out += [row(name, n) for name, n in parts.most_common()]
    out += ["", "### Inclusive (on the stack), project and library functions\n",
            f"| share |{head_ms} function |", f"|---:|{rule_ms}---|"]
    interesting = [(k, n) for k, n in inclusive.most_common()
                   if not k.startswith(("<module>", "run (", "_run (", "run_forever",
                                        "_run_once", "main (", "run_until_complete",
                                        "_bootstrap", "worker (", "_worker ("))]
    out += [row(k, n) for k, n in interesting[:top]]
    out += ["", "### Self (the leaf: where the CPU burns)\n", f"| share |{head_ms} function |",
            f"|---:|{rule_ms}---|"]
    out += [row(k, n) for k, n in leaf.most_common(top)]
    out += ["", "### Self by module\n", f"| share |{head_ms} module |", f"|---:|{rule_ms}---|"]
    out += [row(k, n) for k, n in leaf_module.most_common(top)]
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--moves", type=int, default=0)
    parser.add_argument("--cpu-ms-per-move", type=float, default=0.0)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    sys.stdout.write(report(args.file, moves=args.moves, cpu_ms_per_move=args.cpu_ms_per_move,
                            top=args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
