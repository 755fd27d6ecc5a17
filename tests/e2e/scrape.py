"""Reading the bot from outside, as Prometheus and a supervisor do: ``/metrics`` parsed with
prometheus-client's own text-format parser, and ``/healthz``'s status and line."""

from __future__ import annotations

from collections.abc import Mapping

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

Labels = frozenset[tuple[str, str]]


class Scrape:
    """Every sample of one scrape: ``scrape["sequence_moves_total", {"how": "dm"}]`` is the
    sum of the samples of that name whose labels include those given (0 if none)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.samples: dict[tuple[str, Labels], float] = {}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                self.samples[(sample.name, frozenset(sample.labels.items()))] = sample.value

    def __getitem__(self, key: tuple[str, Mapping[str, str]] | str) -> float:
        name, labels = (key, {}) if isinstance(key, str) else key
        wanted = set(labels.items())
        return sum(value for (n, have), value in self.samples.items()
                   if n == name and wanted <= have)

    def labels_of(self, name: str, label: str) -> set[str]:
        """The values ``label`` takes in the samples called ``name``."""
        return {dict(have)[label] for (n, have) in self.samples
                if n == name and label in dict(have)}

    def has(self, name: str) -> bool:
        return any(n == name for n, _ in self.samples)


async def scrape(base: str) -> Scrape:
    async with aiohttp.ClientSession() as session, session.get(f"{base}/metrics") as got:
        assert got.status == 200, got.status
        return Scrape(await got.text())


async def healthz(base: str) -> tuple[int, str]:
    """``/healthz``'s status and its one line."""
    async with aiohttp.ClientSession() as session, session.get(f"{base}/healthz") as got:
        return got.status, (await got.text()).strip()
