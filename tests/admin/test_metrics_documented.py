"""Every metric the bot shows is explained to the admin in docs/ADMIN.md, and every metric
explained there is one the bot shows."""

from __future__ import annotations

import re
from pathlib import Path

from manager import GameManager, Store
from runtime.metrics import Metrics

ADMIN = Path(__file__).resolve().parents[2] / "docs" / "ADMIN.md"


async def test_every_metric_is_explained_in_admin_md_and_nothing_else(tmp_path: Path) -> None:
    async with await Store.open(tmp_path / "sequence.db") as store:
        metrics = Metrics()
        metrics.follow(GameManager(store))
        metrics.follow_shards(lambda: [(0, True, 0.05)])
        shown = {family.name for family in metrics.registry.collect()
                 if family.name.startswith("sequence_")}
    section = ADMIN.read_text(encoding="utf-8").split("## 15. Metrics and health")[1]
    table = [line for line in section.splitlines() if line.startswith("| `sequence_")]
    explained = {re.sub(r"_total$", "", line.split("`")[1]) for line in table}
    assert shown == explained
