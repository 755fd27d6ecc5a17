"""Thousands of random interactions: commands, options, forged buttons, other people's DMs.

The fuzzer acts as the Discord app would deliver it (options within the types, choices and
ranges Discord itself enforces) but with anything inside those: unicode, empty and 100-char
strings, SQL and format strings, real and forged action strings, other games' ids, huge
numbers. Buttons and select menus are forged: a custom_id of any shape, on a copy of a
message or on someone else's DM. Interactions go out in small concurrent batches.

``FuzzReport`` says what came back: every interaction should be acknowledged within
Discord's 3 s; every refusal should be an ephemeral message; nothing should end in the
bot's apology for an unexpected error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakediscord import ClientRefused, FakeDiscord, FakeMessage, Person
from tests.waiting import until

LOCALES = Path(__file__).resolve().parents[2] / "data" / "locales"

NASTY = [
    "", " ", "\t", "\u200b", "lion@B3", "LION@b3", "dead:lion", "dead:", "roll", "pass",
    "place@E2", "remove@C3", "replace@A1", "unicorn@F6", "dragon@A1", "lion@Z99", "lion@",
    "@", "@@", "lion@B3@C4", "🦁", "🦁@B3", "Løve", "ＬＩＯＮ", "l\u0131on", "null", "None",
    "'; DROP TABLE games; --", "%s%s%s", "{0}", "{move}", "\\", "\x00", "resign:0", "skip",
    "computer:1", "x" * 100, "9" * 100, "🂡" * 50, "-1", "1e309", "NaN",
]
HUGE_IDS = ["0", "1", "9" * 19, "9" * 30, "18446744073709551616", "00001"]
REMATCH_OPTIONS = ["", "teams=1", "level=1", "level=zz", "sequence_length=7", "bogus=1",
                   "teams=1,sequence_length=5", "level=normal,teams=0", ",,,", "=", "a" * 80]
LOBBY_WORDS = ["join", "leave", "start", "cancel", "cpu-easy", "cpu-hard", "cpu-x", "zz"]
CARD_WORDS = ["lion", "tiger", "unicorn", "dragon", "zebra", "nothing", "LION", "dead"]


def refusal_patterns() -> list[re.Pattern[str]]:
    """Every refusal text of the bot (English and Norwegian), placeholders as wildcards."""
    out = []
    for path in LOCALES.glob("*.json"):
        for key, text in json.loads(path.read_text()).items():
            if key.startswith("error.") and key != "error.unexpected":
                pattern = re.escape(text)
                pattern = re.sub(r"\\\{[^}]*\\\}", ".*", pattern)
                out.append(re.compile(pattern, re.S))
    return out


def apology_texts() -> list[str]:
    return [json.loads(p.read_text())["error.unexpected"] for p in LOCALES.glob("*.json")]


@dataclass
class FuzzReport:
    sent: int = 0
    acknowledged: int = 0
    client_refused: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    unanswered: Counter[str] = field(default_factory=Counter)  # kind -> count
    unanswered_examples: list[str] = field(default_factory=list)
    refusals: int = 0
    public_refusals: list[str] = field(default_factory=list)
    apologies: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (f"{self.sent} interactions ({dict(self.kinds)}), {self.acknowledged} "
                f"acknowledged, unanswered {dict(self.unanswered)} "
                f"{self.unanswered_examples[:3]}, {self.refusals} refusals "
                f"({len(self.public_refusals)} public), {len(self.apologies)} apologies, "
                f"{self.client_refused} refused by the client")


class Fuzzer:
    """Random interactions against a running bot; ``await run(n)``."""

    def __init__(self, fake: FakeDiscord, people: list[Person], channels: list[int],
                 game_ids: Any, *, seed: int = 1, batch: int = 8,
                 include_unknown_ids: bool = True,
                 quiet: Callable[[], bool] | None = None) -> None:
        self.fake = fake
        # "no click is under way in the bot": what the end of a run waits for, so the last
        # answers (a deferral filled in, a followup) are read; without it, the deferrals
        self.quiet = quiet
        self.people = people
        self.channels = channels
        self.game_ids = game_ids  # a callable giving the current game ids
        self.rng = random.Random(seed)
        self.batch = batch
        self.include_unknown_ids = include_unknown_ids
        self.report = FuzzReport()
        self.sent: list[tuple[str, Any]] = []  # (kind, Interaction)

    # ------------------------------------------------------------------ values
    def text(self, limit: int = 100) -> str:
        r = self.rng.random()
        if r < 0.5:
            return self.rng.choice(NASTY)[:limit]
        if r < 0.7:
            return f"{self.rng.choice(CARD_WORDS)}@{self.rng.choice('ABCDEFGHIJ')}" \
                   f"{self.rng.randint(0, 12)}"
        n = self.rng.randint(0, limit)
        return "".join(chr(self.rng.choice([self.rng.randint(32, 126),
                                             self.rng.randint(0x80, 0x2FFF),
                                             self.rng.randint(0x1F300, 0x1FAFF)]))
                       for _ in range(n))

    def gid(self) -> str:
        ids = list(self.game_ids())
        if ids and self.rng.random() < 0.7:
            return str(self.rng.choice(ids))
        return self.rng.choice(HUGE_IDS)

    def custom_id(self) -> tuple[str, str, list[str] | None]:
        """(kind, custom_id, select values or None)."""
        g, ply = self.gid(), str(self.rng.choice([0, 1, 2, 5, 50, 10**12]))
        action = self.rng.choice([a for a in NASTY if re.fullmatch(r"[A-Za-z0-9@:]+", a)]
                                 + ["lion@B3", "place@C3", "roll"])
        shapes = [
            ("lobby", f"seq:lobby:{g}:{self.rng.choice(LOBBY_WORDS)}"),
            ("hand", f"seq:hand:{g}"),
            ("card", f"seq:card:{g}:{self.rng.choice(CARD_WORDS).lower()}"),
            ("play", f"seq:play:{g}:{ply}:{action}"),
            ("roll", f"seq:roll:{g}:{ply}"),
            ("rematch", f"seq:rematch:again:{g}"),
            ("rematch", "seq:rematch:{}:{}".format(self.rng.choice(["kids", "dice"]),
                                                   self.rng.choice(REMATCH_OPTIONS))),
        ]
        if self.include_unknown_ids:
            shapes.append(("unknown", self.rng.choice(
                ["seq:", "seq:play", "seq:card:1", "seq:lobby:1:", "seq:hand:-1",
                 "seq:play:1:2:lion@B3:extra:", "seq:🦁", "seq:" + "x" * 96])))
            # not the bot's own shape at all: only a forged client sends these, and the bot
            # may leave them unanswered (another app's button, as far as it can tell)
            shapes.append(("foreign", self.rng.choice(["nope", "x" * 100, "🦁", " "])))
        kind, cid = self.rng.choice(shapes)
        if self.rng.random() < 0.15:
            return "spaces", f"seq:spaces:{g}:{ply}:{self.rng.randint(0, 9)}", [
                self.text(100) or "x"]
        return kind, cid[:100], None

    # ------------------------------------------------------------------ acts
    def slash(self, person: Person, channel: int) -> tuple[str, Any] | None:
        guild_id = self.fake.channel_guild.get(channel)
        roots = self.fake.commands.get(guild_id, []) + self.fake.commands.get(None, [])
        root = roots[0]
        sub = self.rng.choice([o for o in root.get("options") or [] if o["type"] == 1])
        options: dict[str, Any] = {}
        for spec in sub.get("options") or []:
            if not spec.get("required") and self.rng.random() < 0.4:
                continue
            options[spec["name"]] = self.value(spec)
        kind = f"/{sub['name']}"
        try:
            if self.rng.random() < 0.2 and any(o.get("autocomplete")
                                               for o in sub.get("options") or []):
                focused = self.rng.choice([o for o in sub["options"] if o.get("autocomplete")])
                options[focused["name"]] = self.text()
                data = person.command_data(f"{root['name']} {sub['name']}", channel, options,
                                            focused=focused["name"])
                return kind + " autocomplete", self.fake.start_interaction(person, 4, data,
                                                                           channel)
            data = person.command_data(f"{root['name']} {sub['name']}", channel, options,
                                        focused=None)
        except ClientRefused:
            self.report.client_refused += 1
            return None
        return kind, self.fake.start_interaction(person, 2, data, channel)

    def value(self, spec: dict[str, Any]) -> Any:
        if spec.get("choices"):
            return self.rng.choice(spec["choices"])["value"]
        kind = spec["type"]
        if kind == 3:
            lo, hi = spec.get("min_length", 0), spec.get("max_length", 100)
            s = self.text(min(hi, 100))
            return s if len(s) >= lo else s + "x" * (lo - len(s))
        if kind in (4, 10):
            lo = spec.get("min_value", -(2**53))
            hi = spec.get("max_value", 2**53)
            return self.rng.choice([lo, hi, self.rng.randint(int(lo), int(hi)), 0
                                    if lo <= 0 <= hi else lo])
        if kind == 5:
            return self.rng.random() < 0.5
        if kind == 6:
            return self.rng.choice(self.people)
        return self.text()

    def click(self, person: Person) -> tuple[str, Any]:
        kind, cid, values = self.custom_id()
        where = self.rng.random()
        if where < 0.25:
            # someone else's DM: a message in another person's DM channel
            other = self.rng.choice(self.people)
            channel = self.fake.dm_channel(other.id)
        else:
            channel = self.rng.choice(self.channels)
        if values is None:
            component = {"type": 2, "style": 1, "label": "x", "custom_id": cid}
            data: dict[str, Any] = {"custom_id": cid, "component_type": 2}
        else:
            component = {"type": 3, "custom_id": cid,
                         "options": [{"label": "x", "value": v} for v in values]}
            data = {"custom_id": cid, "component_type": 3, "values": values}
        # a forged copy (FakeDiscord.create_message: not recorded as something the bot sent)
        message: FakeMessage = FakeDiscord.create_message(
            self.fake, channel, {"components": [{"type": 1, "components": [component]}]}, [])
        return kind, self.fake.start_interaction(person, 3, data, channel, message)

    # ------------------------------------------------------------------ run
    async def run(self, n: int, *, time_limit: float = 120.0) -> FuzzReport:
        loop = asyncio.get_running_loop()
        end = loop.time() + time_limit
        while self.report.sent < n and loop.time() < end:
            batch = []
            for _ in range(self.batch):
                person = self.rng.choice(self.people)
                if self.rng.random() < 0.5:
                    sent = self.slash(person, self.rng.choice(self.channels))
                else:
                    sent = self.click(person)
                if sent is None:
                    continue
                self.report.sent += 1
                self.report.kinds[sent[0].split()[0] if sent[0].startswith("/")
                                  else "button"] += 1
                batch.append(sent)
            self.sent += batch
            await asyncio.gather(*(self._acked(i) for kind, i in batch if kind != "foreign"))
        await self.answers_given()
        self.conclude()
        return self.report

    async def answers_given(self, timeout: float = 10.0) -> None:
        """Wait until the bot has given every answer it started (bounded: one it never
        gives is counted by ``conclude``, not waited for)."""
        def given() -> bool:
            filled = all(i.original is None or not i.original.loading or i.followups
                         for _, i in self.sent if i.callback_type == 5)
            return filled and (self.quiet is None or self.quiet())

        with contextlib.suppress(AssertionError):
            await until(given, "the bot's last answers", timeout)

    async def _acked(self, interaction: Any) -> None:
        with contextlib.suppress(TimeoutError):
            await interaction.wait_ack(3.5)

    def conclude(self) -> None:
        patterns = refusal_patterns()
        apologies = apology_texts()
        by_interaction: dict[int, list[FakeMessage]] = {}
        for message in self.fake.messages.values():
            if message.interaction_id is not None:
                by_interaction.setdefault(message.interaction_id, []).append(message)
        for kind, interaction in self.sent:
            if interaction.acknowledged:
                self.report.acknowledged += 1
            elif kind != "foreign":
                self.report.unanswered[kind] += 1
                self.report.unanswered_examples.append(str(interaction.payload["data"])[:120])
            for message in by_interaction.get(interaction.id, []):
                text = message.content
                if any(a in text for a in apologies):
                    self.report.apologies.append(f"{kind}: {interaction.payload['data']}")
                if any(p.fullmatch(text.strip()) for p in patterns):
                    self.report.refusals += 1
                    if not message.ephemeral:
                        self.report.public_refusals.append(f"{kind}: {text[:80]}")
