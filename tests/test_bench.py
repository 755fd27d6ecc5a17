"""Every bench module still runs: its quick mode (``python -m bench --quick NAME``) finishes
and writes its figures, as numbers. Nothing here looks at what the figures are: a time is
the bench's to print, never a test's to assert. One test per module, so a parallel run
spreads them; each writes to its own file, never to ``bench/latest.json``."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.__main__ import main, modules
from tests.test_layering import ROOT
from tools.pg_server import find_bindir

#: the modules that measure nothing without a PostgreSQL server (they say so and return no
#: figures); the others measure SQLite, or PostgreSQL beside it
NEEDS_POSTGRES = {"budget", "sharing"}
QUICK_TIMEOUT_S = 300  # a module hung: fail, saying which, rather than hold the run


def figures_of(path: Path) -> dict[str, float]:
    figures = json.loads(path.read_text())
    assert isinstance(figures, dict)
    return figures


def test_every_bench_module_is_found() -> None:
    assert {"e2e", "engine", "postgres", "render"} <= set(modules())


@pytest.mark.parametrize("name", modules())
def test_the_quick_bench_finishes_and_writes_its_figures(name: str, tmp_path: Path) -> None:
    if name in NEEDS_POSTGRES and find_bindir() is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is not installed: under CI=true the {name} bench must run")
        pytest.skip(f"PostgreSQL is not installed: the {name} bench measures nothing")
    out = tmp_path / "figures.json"
    ran = subprocess.run([sys.executable, "-m", "bench", "--quick", name, "--out", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=QUICK_TIMEOUT_S)
    assert ran.returncode == 0, f"{name} bench failed:\n{ran.stdout[-2000:]}{ran.stderr[-4000:]}"
    figures = figures_of(out)
    assert figures, f"the {name} bench wrote no figures:\n{ran.stdout[-2000:]}"
    not_numbers = {k: v for k, v in figures.items()
                   if isinstance(v, bool) or not isinstance(v, int | float) or math.isnan(v)}
    assert not not_numbers, f"the {name} bench wrote figures that are not numbers"


class Broken:
    def run(self, quick: bool = False) -> dict[str, float]:
        raise RuntimeError("the broken bench broke")


class Fine:
    def __init__(self, figures: dict[str, float]) -> None:
        self.figures = figures
        self.asked_quick: bool | None = None

    def run(self, quick: bool = False) -> dict[str, float]:
        self.asked_quick = quick
        return self.figures


def test_a_failing_module_is_named_and_the_others_still_write_their_figures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, last = Fine({"first_figure": 1.5}), Fine({"last_figure": 2.0})
    found = {"aardvark": first, "broken": Broken(), "zebra": last}
    out = tmp_path / "figures.json"

    status = main(["--quick", "--out", str(out)], find=lambda: sorted(found),
                  load=found.__getitem__)

    said = capsys.readouterr()
    assert status == 1
    assert "RuntimeError: the broken bench broke" in said.err  # the traceback
    assert "bench modules that failed: broken" in said.err
    assert figures_of(out) == {"first_figure": 1.5, "last_figure": 2.0}
    assert first.asked_quick is True and last.asked_quick is True


def test_an_unknown_module_name_is_refused_naming_the_known_ones(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "figures.json"
    status = main(["nosuch", "--out", str(out)], find=lambda: ["e2e"],
                  load=lambda name: Fine({}))
    assert status == 2
    assert "no bench module named nosuch (there are: e2e)" in capsys.readouterr().err
    assert not out.exists()
