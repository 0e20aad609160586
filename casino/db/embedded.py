"""An embedded Postgres (the ``pgserver`` package) for when ``DATABASE_URL`` is unset.

The server binaries come with the Python package; the data lives in a local folder and
survives restarts. The server listens on a Unix socket only, inside the data folder (or a
short runtime path when that one is too long for a socket name).
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from pgserver.postgres_server import PostgresServer

# The account pgserver runs Postgres as when it is started by root.
SYSTEM_USER = "pgserver"


def ensure_system_user(name: str = SYSTEM_USER) -> None:
    """Create the account Postgres runs as, one process at a time, when run as root.

    pgserver creates it itself when missing, but unlocked. On a fresh machine,
    processes starting servers at once (the test suite's workers) raced. One of
    them ran initdb as the account while another was still creating it, and initdb
    failed ("could not change permissions of directory"). The race was reproduced:
    one start in 18, with the account deleted before each batch of 6.
    """
    if os.name != "posix" or os.geteuid() != 0:
        return  # not root: pgserver runs Postgres as the user itself
    import fcntl  # noqa: PLC0415  # POSIX only
    import pwd  # noqa: PLC0415

    try:
        pwd.getpwnam(name)
        return
    except KeyError:
        pass
    lock_path = Path(tempfile.gettempdir()) / "casino-embedded-postgres-user.lock"
    lock = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        from pgserver.utils import ensure_user_exists  # noqa: PLC0415  # see _server

        ensure_user_exists(name)
    finally:
        os.close(lock)  # and the lock with it


def _server(data_dir: Path | str, cleanup_mode: Literal["stop", "delete"]) -> PostgresServer:
    with warnings.catch_warnings():
        # pgserver keeps a lock file in the user's runtime folder; where XDG_RUNTIME_DIR
        # is unset (containers, CI) platformdirs warns and falls back to /tmp: fine here.
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR")
        ensure_system_user()
        # Imported here, not at module level: importing pgserver looks up that folder.
        from pgserver.postgres_server import get_server  # noqa: PLC0415

        return get_server(Path(data_dir).expanduser().resolve(), cleanup_mode=cleanup_mode)


def start_embedded(data_dir: Path | str, *, delete_on_exit: bool = False) -> str:
    """Start (or join) the embedded server whose data is in ``data_dir``; return its URL.

    The folder is created if missing (its parent must exist). The server stops when the
    last process using it exits; with ``delete_on_exit`` the folder is removed then too.
    A process killed before its exit handlers run leaves the server running: for
    throwaway servers prefer ``embedded_postgres``.
    """
    return _server(data_dir, "delete" if delete_on_exit else "stop").get_uri()


@contextmanager
def embedded_postgres(data_dir: Path | str) -> Iterator[str]:
    """A throwaway embedded server (tests, benchmarks): stopped and its folder deleted
    when the block ends, rather than left to process exit."""
    server = _server(data_dir, "delete")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


def database_url(data_dir: Path | str) -> str:
    """``DATABASE_URL`` when set, else the URL of the embedded server in ``data_dir``."""
    url = os.environ.get("DATABASE_URL")
    if url:
        return url
    Path(data_dir).parent.mkdir(parents=True, exist_ok=True)
    return start_embedded(data_dir)
