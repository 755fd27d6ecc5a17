"""Run a command with its temporary files in memory, and remove them after.

    python -m tools.memory_tmp [--root /dev/shm] -- COMMAND ...

``make pytest`` runs the tests through this. They write thousands of short-lived files
(each test's SQLite databases, a PostgreSQL cluster copied for each throwaway server and
the WAL it writes, the browser's profiles), and on these machines' disk (ext4 in a VM) the
kernel's work on them was a third of a run's CPU: the same run took 224 s and 412 CPU-s of
the machine with them on disk, 169 s and 286 CPU-s with them in ``/dev/shm``. No test is
about the disk: a process killed mid-write leaves the same file on either (the kernel
keeps it), and none asks what survives a power cut. The bot itself and ``make bench``
keep their files on disk, where a real server has them.

The command gets ``TMPDIR`` set to a new folder under ``--root``, made for this run only
and removed when it passes. A failed run's folder is kept for a look at its logs and
databases (the path is printed) until the next run, which removes every folder whose run
is over (its name says its process, which is gone), so memory is not held until a
reboot. Where ``--root`` is not a memory file system with room to spare (no
``/dev/shm``, a small one, another OS), the command runs with the usual ``TMPDIR``, and
this says so.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

log = logging.getLogger("sequence.memory_tmp")

#: A test run holds about 1.5 GB at its peak (up to 30 PostgreSQL clusters of 39 MB at
#: once, the browsers' profiles); below this much free, the disk is the safer place.
NEED_BYTES = 3 * 2**30
#: The run's folder under the root: this prefix, then the process that made it.
PREFIX = "sequence-tmp-"
MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs"})


def filesystem_of(path: Path, mounts: str) -> str | None:
    """The type of the file system ``path`` is on, from a ``/proc/mounts`` text: that of
    the longest mount point above it."""
    best, kind = -1, None
    target = str(path)
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        above = target == point or target.startswith(point.rstrip("/") + "/")
        if above and len(point) > best:
            best, kind = len(point), fields[2]
    return kind


def memory_root(root: Path, need: int = NEED_BYTES, mounts: str | None = None) -> Path | None:
    """``root`` if it is a writable memory file system with ``need`` bytes free, else None
    (and why, in the log). ``mounts``: the text of ``/proc/mounts`` (read if None)."""
    try:
        if mounts is None:
            mounts = Path("/proc/mounts").read_text()
        resolved = root.resolve(strict=True)
        free = shutil.disk_usage(resolved).free
    except OSError as exc:
        log.info("temporary files stay on disk: %s (%s)", root, exc.strerror or exc)
        return None
    kind = filesystem_of(resolved, mounts)
    if kind not in MEMORY_FILESYSTEMS:
        log.info("temporary files stay on disk: %s is %s, not in memory", root, kind)
        return None
    if free < need:
        log.info("temporary files stay on disk: %s has %d MiB free, %d wanted", root,
                 free >> 20, need >> 20)
        return None
    if not os.access(resolved, os.W_OK | os.X_OK):
        log.info("temporary files stay on disk: %s is not writable", root)
        return None
    return resolved


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def remove_left_behind(root: Path) -> list[Path]:
    """Remove the folders of runs whose process is gone; the folders removed."""
    removed = []
    for folder in root.glob(f"{PREFIX}*"):
        pid = folder.name.removeprefix(PREFIX)
        if pid.isdigit() and not _alive(int(pid)) and folder.is_dir():
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def run(command: Sequence[str], root: Path | None) -> int:
    """Run ``command`` with ``TMPDIR`` in a new folder under ``root`` (None: as it is), wait
    for it, remove the folder if it passed; its exit status (128 + the signal that ended
    it)."""
    env = dict(os.environ)
    folder = None
    status = -1  # (not started)
    if root is not None:
        for left in remove_left_behind(root):
            log.info("removed %s, left by an earlier run", left)
        folder = root / f"{PREFIX}{os.getpid()}"
        folder.mkdir()
        # as /tmp is: the tests run PostgreSQL as the `postgres` user in folders of its own
        folder.chmod(0o1777)
        env["TMPDIR"] = str(folder)
    try:
        child = subprocess.Popen(list(command), env=env)
        # Ctrl-C reaches the whole process group: the command decides what it means (pytest
        # stops and reports), and this waits for it so as to clean up after it
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            status = child.wait()
        finally:
            signal.signal(signal.SIGINT, previous)
    finally:
        if folder is not None and status != 0:
            log.info("the run failed: its temporary files (logs, databases) are kept in %s "
                     "until the next run", folder)
        elif folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    return 128 - status if status < 0 else status


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.memory_tmp", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path("/dev/shm"),
                        help="the memory file system to make the folder in (default /dev/shm)")
    parser.add_argument("command", nargs=argparse.REMAINDER,
                        help="the command and its arguments, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (put it after --)")
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    with contextlib.suppress(KeyboardInterrupt):
        return run(command, memory_root(args.root))
    return 130


if __name__ == "__main__":
    sys.exit(main())
