"""Run every benchmark module and print and save its figures.

Each ``bench/<name>_bench.py`` has ``run() -> dict[str, float]``. Figures are printed as they
come and written together to ``bench/latest.json``. Timings on a shared machine are noisy:
compare a new way with an old way inside one run, never against a fixed number in a test.

    python -m bench            # everything
    python -m bench engine     # only bench/engine_bench.py
"""

from __future__ import annotations

import importlib
import json
import logging
import pkgutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent


def main(argv: list[str]) -> int:
    logging.basicConfig(level=logging.WARNING)
    wanted = set(argv)
    names = sorted(
        m.name for m in pkgutil.iter_modules([str(HERE)]) if m.name.endswith("_bench")
    )
    out_path = HERE / "latest.json"
    figures: dict[str, float] = {}
    if wanted and out_path.exists():
        figures = json.loads(out_path.read_text())  # keep the figures of other modules
    for name in names:
        if wanted and name.removesuffix("_bench") not in wanted:
            continue
        module = importlib.import_module(f"bench.{name}")
        started = time.perf_counter()
        print(f"== {name}", flush=True)
        result = module.run()
        for key, value in result.items():
            print(f"{key:40s} {value}", flush=True)
        print(f"   ({time.perf_counter() - started:.1f} s)", flush=True)
        figures.update(result)
    out_path.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
    print(f"wrote {out_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
