"""A throwaway PostgreSQL server for the history's tests: Debian's binaries (initdb, pg_ctl), a data
folder in a temporary directory, a unix socket there and a free TCP port on 127.0.0.1 (password
required over TCP, trusted on the socket), stopped and removed at the end. As root it runs as the
`postgres` user the Debian package makes (initdb refuses root).

Without the binaries or psycopg the tests that need it skip with the reason; with
EVALKIT_REQUIRE_POSTGRES_TESTS=1 (set by .ci/run) they fail instead, so CI cannot pass by skipping them."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

USER = "evalkit"
PASSWORD = "pg-test-secret-4711"  # a test asserts no message ever shows it


def unavailable(reason: str) -> None:
    if os.environ.get("EVALKIT_REQUIRE_POSTGRES_TESTS") == "1":
        pytest.fail(f"PostgreSQL tests are required here (EVALKIT_REQUIRE_POSTGRES_TESTS=1) but {reason}")
    pytest.skip(f"no PostgreSQL to test against: {reason}")


def binaries() -> Path | None:
    """The folder of initdb and pg_ctl: EVALKIT_POSTGRES_BIN, else Debian's newest, else PATH's."""
    if os.environ.get("EVALKIT_POSTGRES_BIN"):
        return Path(os.environ["EVALKIT_POSTGRES_BIN"])
    debian = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if debian:
        return debian[-1].parent
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    folder: Path  # holds the data folder, the log and the unix socket
    port: int
    bin: Path
    as_user: list[str]  # the command prefix that runs a binary as the server's owner

    def socket_url(self, database: str) -> str:
        return f"postgresql://{USER}@/{database}?host={self.folder}&port={self.port}"

    def tcp_url(self, database: str, password: str = PASSWORD) -> str:
        return f"postgresql://{USER}:{password}@127.0.0.1:{self.port}/{database}"

    def admin(self, *statements: str) -> None:
        import psycopg

        with psycopg.connect(self.socket_url("postgres"), autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)

    def new_database(self) -> str:
        name = f"t_{uuid.uuid4().hex[:12]}"
        self.admin(f'CREATE DATABASE "{name}"')
        return name

    def stop(self) -> None:
        subprocess.run(
            [*self.as_user, str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop"],
            capture_output=True,
            timeout=120,
        )
        shutil.rmtree(self.folder, ignore_errors=True)


def start() -> Server:
    """A running server (or a skip/fail saying why there is none)."""
    try:
        import psycopg  # noqa: F401 - only whether it is there
    except ImportError:
        unavailable("psycopg is not installed (pip install 'evalkit[postgres]')")
    where = binaries()
    if where is None or not (where / "initdb").exists() or not (where / "pg_ctl").exists():
        unavailable("no initdb/pg_ctl (apt-get install -y postgresql)")
    assert where is not None
    folder = Path(tempfile.mkdtemp(prefix="evalkit-pg-"))  # short: a unix socket's path has a length limit
    as_user: list[str] = []
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(folder)
            unavailable("running as root and there is no `postgres` user to run the server as")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    (folder / "pw").write_text(PASSWORD + "\n")
    if as_user:
        os.chown(folder / "pw", owner.pw_uid, owner.pw_gid)
    server = Server(folder, _free_port(), where, as_user)
    steps = [
        [
            str(where / "initdb"),
            "-D",
            str(folder / "data"),
            "-U",
            USER,
            "--pwfile",
            str(folder / "pw"),
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        ],
        [
            str(where / "pg_ctl"),
            "-D",
            str(folder / "data"),
            "-l",
            str(folder / "log"),
            "-w",
            "-t",
            "180",
            "-o",
            f"-k {folder} -p {server.port} -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
        ],
    ]
    for step in steps:
        done = subprocess.run([*as_user, *step], capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            log = (folder / "log").read_text() if (folder / "log").exists() else ""
            server.stop()
            pytest.fail(f"{Path(step[0]).name} failed ({done.returncode}): {done.stderr or done.stdout}\n{log}")
    return server
