"""Run every benchmark module and print and save its figures.

Each ``bench/<name>_bench.py`` has ``run(quick: bool = False) -> dict[str, float]``.
``quick`` is the same measurement at small sizes, seconds rather than minutes: ``make test``
runs every module that way (tests/test_bench.py), so a bench that no longer runs is seen
before a change lands, not at the next ``make bench``. Its figures say only that the
module works; the full run's are the ones to quote.

Figures are printed as they come and written together to ``bench/latest.json`` (a quick run:
``bench/quick.json``; ``--out FILE``: there). Timings on a shared machine are noisy:
compare a new way with an old way inside one run, never against a fixed number in a test.

A module that fails has its traceback printed (stderr) and the others still run; the file
is written with every figure measured, and the run exits 1 naming the modules that failed.

    python -m bench                       # everything, full sizes
    python -m bench engine                # only bench/engine_bench.py
    python -m bench --quick               # everything, small sizes
    python -m bench --quick e2e render    # two modules, small sizes
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import pkgutil
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

HERE = Path(__file__).parent
FULL_OUT = HERE / "latest.json"
QUICK_OUT = HERE / "quick.json"


class BenchModule(Protocol):
    """What a ``bench/<name>_bench.py`` module is to the runner."""

    def run(self, quick: bool = False) -> dict[str, float]: ...


def modules() -> list[str]:
    """Every bench module's short name (``e2e`` for ``bench/e2e_bench.py``), sorted."""
    return sorted(m.name.removesuffix("_bench") for m in pkgutil.iter_modules([str(HERE)])
                  if m.name.endswith("_bench"))


def load(name: str) -> BenchModule:
    """The module ``bench/<name>_bench.py``, imported."""
    module: BenchModule = importlib.import_module(f"bench.{name}_bench")
    return module


def _arguments(argv: list[str], known: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench",
                                     description=(__doc__ or "").splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="name",
                        help=f"modules to run (default: all of {', '.join(known)})")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes: seconds a module, to see that it still works")
    parser.add_argument("--out", type=Path, default=None,
                        help="where the figures go (default: bench/latest.json, "
                             "or bench/quick.json with --quick)")
    return parser.parse_args(argv)


def main(argv: list[str], *, find: Callable[[], list[str]] = modules,
         load: Callable[[str], BenchModule] = load) -> int:
    """Run the modules ``argv`` names (all that ``find`` gives when it names none), each
    brought in by ``load``; 0 when every one ran, 1 when any failed, 2 for a bad name."""
    logging.basicConfig(level=logging.WARNING)
    known = find()
    args = _arguments(argv, known)
    unknown = [name for name in args.names if name not in known]
    if unknown:
        print(f"no bench module named {', '.join(unknown)} (there are: {', '.join(known)})",
              file=sys.stderr)
        return 2
    out_path: Path = args.out or (QUICK_OUT if args.quick else FULL_OUT)
    figures: dict[str, float] = {}
    if args.names and args.out is None and out_path.exists():
        figures = json.loads(out_path.read_text())  # keep the figures of other modules
    failed: list[str] = []
    for name in args.names or known:
        started = time.perf_counter()
        print(f"== {name}_bench{' (quick)' if args.quick else ''}", flush=True)
        try:
            result = load(name).run(quick=args.quick)
        except Exception:  # one module's fault is said, and the others still run
            traceback.print_exc()
            sys.stderr.flush()
            print(f"   {name}_bench FAILED ({time.perf_counter() - started:.1f} s)",
                  flush=True)
            failed.append(name)
            continue
        for key, value in result.items():
            print(f"{key:40s} {value}", flush=True)
        print(f"   ({time.perf_counter() - started:.1f} s)", flush=True)
        figures.update(result)
        # written after each module: a run stopped half-way keeps what it measured
        _write(out_path, figures)
    _write(out_path, figures)
    print(f"wrote {out_path}")
    if failed:
        print(f"bench modules that failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def _write(path: Path, figures: dict[str, float]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
