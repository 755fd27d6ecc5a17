"""deploy/sequence-bot.service: a unit systemd accepts, that runs the bot the way ADMIN.md
says (its own user, the .env, restarts on failure, a graceful SIGTERM)."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "deploy" / "sequence-bot.service"
INSTALLED_AT = "/opt/sequence-bot"


def service_section() -> dict[str, str]:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(UNIT.read_text())
    return dict(parser["Service"])


def test_the_unit_restarts_on_failure_and_stops_by_sigterm_as_its_own_user() -> None:
    service = service_section()
    assert service["Restart"] == "on-failure"
    assert service["KillSignal"] == "SIGTERM"
    assert service["User"] not in ("", "root")
    assert service["EnvironmentFile"] == f"{INSTALLED_AT}/.env"
    assert service["WorkingDirectory"] == INSTALLED_AT
    assert service["ExecStart"] == f"{INSTALLED_AT}/.venv/bin/python bot.py"
    assert service["NoNewPrivileges"] == "true" and service["ProtectSystem"] == "full"
    assert f"{INSTALLED_AT}/data" in service["ReadWritePaths"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                    reason="systemd-analyze is not installed here (no systemd): the unit "
                           "is checked only by reading it")
def test_systemd_accepts_the_unit(tmp_path: Path) -> None:
    # The unit as installed: the same text with the clone at tmp_path instead of /opt,
    # so systemd can check that the program and the folders exist.
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    os.symlink(sys.executable, tmp_path / ".venv" / "bin" / "python")
    (tmp_path / "data").mkdir()
    (tmp_path / ".env").write_text("DISCORD_TOKEN=x\n")
    unit = tmp_path / "sequence-bot.service"
    unit.write_text(UNIT.read_text().replace(INSTALLED_AT, str(tmp_path)))
    done = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "sequence-bot.service" not in done.stderr, done.stderr
