"""``make pytest`` runs the tests with their temporary files in memory
(``tools/memory_tmp.py``): a folder of the run's own, removed after, and the disk where
there is no memory file system."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools.memory_tmp import PREFIX, filesystem_of, main, memory_root, remove_left_behind, run

MOUNTS = """\
/dev/vda / ext4 rw,relatime 0 0
tmpfs /dev/shm tmpfs rw,relatime,size=24683656k 0 0
/dev/vdb /srv/data\\040files xfs rw 0 0
tmpfs /srv/data\\040files/cache tmpfs rw 0 0
"""


def said_tmpdir(tmp_path: Path) -> list[str]:
    """A command that writes the TMPDIR it was given, and makes a file there."""
    out = tmp_path / "said.json"
    code = ("import json, os, sys, tempfile; d = os.environ.get('TMPDIR'); "
            "open(os.path.join(tempfile.gettempdir(), 'made'), 'w').write('x'); "
            f"json.dump(d, open({str(out)!r}, 'w'))")
    return [sys.executable, "-c", code]


def test_a_path_is_on_the_file_system_of_the_longest_mount_point_above_it() -> None:
    assert filesystem_of(Path("/dev/shm/x/y"), MOUNTS) == "tmpfs"
    assert filesystem_of(Path("/dev/shmem"), MOUNTS) == "ext4"  # a name, not a folder, above
    assert filesystem_of(Path("/srv/data files/a"), MOUNTS) == "xfs"
    assert filesystem_of(Path("/srv/data files/cache"), MOUNTS) == "tmpfs"


def test_only_a_writable_memory_file_system_with_room_is_a_root(tmp_path: Path) -> None:
    def on(kind: str) -> str:
        return f"/dev/vda / ext4 rw 0 0\nnone {tmp_path.resolve()} {kind} rw 0 0\n"

    assert memory_root(tmp_path, need=1, mounts=on("tmpfs")) == tmp_path.resolve()
    assert memory_root(tmp_path, need=1, mounts=on("ext4")) is None
    assert memory_root(tmp_path, need=2**62, mounts=on("tmpfs")) is None  # no room
    assert memory_root(tmp_path / "absent", need=1, mounts=on("tmpfs")) is None


def test_the_command_gets_a_folder_of_its_own_which_is_removed_after(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    assert run(said_tmpdir(tmp_path), root) == 0
    given = Path(json.loads((tmp_path / "said.json").read_text()))
    assert given.parent == root and given.name == f"{PREFIX}{os.getpid()}"
    assert not given.exists()
    assert list(root.iterdir()) == []


def test_without_a_root_the_command_keeps_the_usual_tmpdir(tmp_path: Path) -> None:
    assert run(said_tmpdir(tmp_path), None) == 0
    assert json.loads((tmp_path / "said.json").read_text()) == os.environ.get("TMPDIR")


def test_the_commands_exit_status_is_the_runs_and_a_failed_runs_files_stay_for_a_look(
        tmp_path: Path) -> None:
    mine = tmp_path / f"{PREFIX}{os.getpid()}"
    assert run([sys.executable, "-c", "raise SystemExit(3)"], tmp_path) == 3
    assert mine.is_dir()
    shutil.rmtree(mine)
    killed = "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"
    assert run([sys.executable, "-c", killed], tmp_path) == 128 + 15
    assert mine.is_dir()
    shutil.rmtree(mine)


def test_a_folder_left_by_a_killed_run_is_removed_and_a_running_ones_is_kept(
        tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    left = tmp_path / f"{PREFIX}{gone.pid}"
    (left / "pg-throwaway-1").mkdir(parents=True)
    running = tmp_path / f"{PREFIX}{os.getppid()}"
    running.mkdir()
    other = tmp_path / "not-ours-1"
    other.mkdir()

    assert remove_left_behind(tmp_path) == [left]

    assert not left.exists() and running.exists() and other.exists()


def test_no_command_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--root", "/dev/shm", "--"])
    assert stopped.value.code == 2
    assert "no command given" in capsys.readouterr().err
