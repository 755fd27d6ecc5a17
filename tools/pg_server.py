"""A throwaway PostgreSQL server for the tests and the benchmark: started, used, removed.

Nothing is started by hand: ``initdb`` into a temporary directory (once a process, or once
a test run: each further server starts from a copy of that first, untouched cluster, a few
times cheaper than ``initdb``; see ``shared_templates``), ``pg_ctl start`` on a
free loopback port (listening on 127.0.0.1 only, its unix socket inside that directory),
and at the end ``pg_ctl stop -m fast`` and the directory removed. PostgreSQL refuses to run
as root, so when we are root the directory is given to the ``postgres`` user and every
server command runs as that user (``runuser``). The binaries are found through
``pg_config --bindir`` or under ``/usr/lib/postgresql/*/bin``.

    python -m tools.pg_server      # start one, print its URL, stop it on Enter
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import glob
import hashlib
import logging
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

log = logging.getLogger(__name__)

#: Per binaries folder, the untouched cluster this process's servers copy: made by this
#: process (removed when it exits), or found in the folder ``TEMPLATES_ENV`` names.
_TEMPLATES: dict[Path, Path] = {}

#: A folder where the processes of one run share their untouched clusters (one ``initdb``
#: for the whole test run instead of one in each process that starts a server: 8 a run, a
#: CPU-second each). Set by ``shared_templates``; processes started meanwhile inherit it.
TEMPLATES_ENV = "PG_TEMPLATES"


def _postgres_owns(path: Path) -> None:
    owner = pwd.getpwnam("postgres")
    os.chown(path, owner.pw_uid, owner.pw_gid)


@contextlib.contextmanager
def shared_templates() -> Iterator[Path]:
    """While held, every server this process or its children start copies one cluster,
    made by whichever asks first; the folder goes at the end."""
    root = Path(tempfile.mkdtemp(prefix="pg-templates-"))
    if os.geteuid() == 0:
        _postgres_owns(root)  # (the copy runs as the postgres user)
    before = os.environ.get(TEMPLATES_ENV)
    os.environ[TEMPLATES_ENV] = str(root)
    try:
        yield root
    finally:
        if before is None:
            os.environ.pop(TEMPLATES_ENV, None)
        else:
            os.environ[TEMPLATES_ENV] = before
        shutil.rmtree(root, ignore_errors=True)


def find_bindir() -> Path | None:
    """Where ``initdb`` and ``pg_ctl`` are, or None when PostgreSQL is not installed."""
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True,
                             check=False)
        if out.returncode == 0:
            candidates.append(Path(out.stdout.strip()))
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                                           reverse=True)]
    for folder in candidates:
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return Path(initdb).parent
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One server in a temporary directory. ``start()``, then ``url(dbname)``; ``stop()``.

    ``durable=False`` (the tests) turns fsync off: a throwaway server need not survive a
    power cut, and it makes creating a database per test cheap. The benchmark keeps the
    defaults (fsync on, synchronous_commit on), to compare like with like with SQLite's
    synchronous=FULL."""

    def __init__(self, bindir: Path, *, durable: bool = True) -> None:
        self.bindir = bindir
        self.durable = durable
        self.port = 0
        self.dir = Path(tempfile.mkdtemp(prefix="pg-throwaway-"))
        self.data = self.dir / "data"
        self.sockets = self.dir / "sock"
        self.user = "postgres"
        self._as: list[str] = []
        if os.geteuid() == 0:
            # PostgreSQL will not run as root: the postgres user owns the folder and runs it.
            _postgres_owns(self.dir)
            self._as = ["runuser", "-u", "postgres", "--"]
        self.sockets.mkdir()
        if self._as:
            _postgres_owns(self.sockets)
        self.started = False

    def _run(self, *args: str) -> None:
        out = subprocess.run([*self._as, *args], capture_output=True, text=True, check=False)
        if out.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:2])} failed ({out.returncode}):\n"
                               f"{out.stdout}\n{out.stderr}\n{self._log_tail()}")

    def _log_tail(self) -> str:
        logfile = self.dir / "server.log"
        try:
            return logfile.read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    def template(self) -> Path:
        """The untouched cluster this server copies (made now, the first time)."""
        made = _TEMPLATES.get(self.bindir)
        if made is not None and made.exists():
            return made
        shared = os.environ.get(TEMPLATES_ENV)
        made = self._shared_template(Path(shared)) if shared else self._own_template()
        _TEMPLATES[self.bindir] = made
        return made

    def _own_template(self) -> Path:
        folder = Path(tempfile.mkdtemp(prefix="pg-template-"))
        atexit.register(shutil.rmtree, folder, True)
        return self._initdb(folder)

    def _shared_template(self, root: Path) -> Path:
        """The run's cluster for these binaries, made under a lock by the first process to
        ask and renamed into place whole, so no process ever copies a half-made one."""
        data = root / hashlib.sha256(str(self.bindir).encode()).hexdigest()[:16]
        if data.exists():
            return data
        with (root / "making.lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not data.exists():
                making = Path(tempfile.mkdtemp(prefix="making-", dir=root))
                try:
                    os.rename(self._initdb(making), data)
                finally:
                    shutil.rmtree(making, ignore_errors=True)
        return data

    def _initdb(self, folder: Path) -> Path:
        """A new cluster in ``folder``/data."""
        if self._as:
            _postgres_owns(folder)
        self._run(str(self.bindir / "initdb"), "-D", str(folder / "data"), "-U", self.user,
                  "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
        return folder / "data"

    def start(self) -> PostgresServer:
        self._run("cp", "-a", str(self.template()), str(self.data))
        for _ in range(5):  # a free port can be taken between asking and binding
            self.port = free_port()
            try:
                self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l",
                          str(self.dir / "server.log"), "-w", "-t", "60", "-o",
                          self._options(), "start")
                break
            except RuntimeError:
                if "could not bind" not in self._log_tail():
                    raise
        else:
            raise RuntimeError("no free port for PostgreSQL")
        self.started = True
        log.info("throwaway PostgreSQL on 127.0.0.1:%d in %s", self.port, self.dir)
        return self

    def _options(self) -> str:
        options = [f"-p {self.port}", "-c listen_addresses=127.0.0.1",
                   f"-c unix_socket_directories={self.sockets}", "-c max_connections=200",
                   "-c shared_buffers=32MB"]
        if not self.durable:
            options += ["-c fsync=off", "-c synchronous_commit=off",
                        "-c full_page_writes=off"]
        return " ".join(options)

    def pause(self) -> None:
        """Stop the server as an admin restarting it would (``pg_ctl stop -m fast``: every
        connection is cut at once), keeping its data directory and its port for ``resume``.
        An outage test's database going away."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w",
                  "stop")
        self.started = False

    def freeze(self) -> None:
        """SIGSTOP the server and its backends: a database that stops answering (a hung
        host, a network that drops packets) rather than one that refuses."""
        for pid in self._pids():
            os.kill(pid, signal.SIGSTOP)

    def thaw(self) -> None:
        for pid in self._pids():
            os.kill(pid, signal.SIGCONT)

    def _pids(self) -> list[int]:
        """The postmaster (``postmaster.pid``) and every process it started."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        pids = [postmaster]
        for stat in Path("/proc").glob("[0-9]*/stat"):
            with contextlib.suppress(OSError, ValueError, IndexError):
                fields = stat.read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == postmaster:
                    pids.append(int(stat.parent.name))
        return pids

    def resume(self) -> None:
        """Start the paused server again: the same data directory, the same port."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l",
                  str(self.dir / "server.log"), "-w", "-t", "60", "-o", self._options(),
                  "start")
        self.started = True

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{dbname}"

    def stop(self) -> None:
        """Stop the server (whatever a test did to it: paused, started again by hand,
        frozen) and remove its directory: a throwaway server never outlives its test."""
        try:
            if self.started or (self.data / "postmaster.pid").exists():
                with contextlib.suppress(OSError, ValueError, IndexError):
                    self.thaw()  # a frozen server would not hear the stop
                try:
                    self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m",
                              "fast", "-w", "-t", "30", "stop")
                except RuntimeError:
                    self._kill()
        finally:
            self.started = False
            shutil.rmtree(self.dir, ignore_errors=True)

    def _kill(self) -> None:
        """The last resort when ``pg_ctl stop`` fails: SIGKILL the postmaster and its
        backends (a throwaway server's data need not survive)."""
        with contextlib.suppress(OSError, ValueError, IndexError):
            for pid in self._pids():
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> int:
    bindir = find_bindir()
    if bindir is None:
        print("PostgreSQL is not installed (no initdb/pg_ctl found)")
        return 1
    with PostgresServer(bindir) as server:
        print(server.url(), flush=True)
        with contextlib.suppress(EOFError):
            input("Enter stops it\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
