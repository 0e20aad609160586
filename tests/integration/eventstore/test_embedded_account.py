"""The account the embedded Postgres runs as when started by root (casino/db/embedded.py)."""

from __future__ import annotations

import multiprocessing
import os
import pwd
import secrets
import subprocess
from pathlib import Path

import pytest

from casino.db.embedded import ensure_system_user

pytestmark = pytest.mark.integration

STARTS = 6  # processes starting embedded servers at once, as the test suite's workers do


def test_processes_starting_at_once_create_the_account_once() -> None:
    name = f"casino{secrets.token_hex(4)}"  # a throwaway account, not pgserver's own
    processes = [
        multiprocessing.get_context("fork").Process(target=ensure_system_user, args=(name,))
        for _ in range(STARTS)
    ]
    try:
        for process in processes:
            process.start()
        for process in processes:
            process.join(timeout=60)
        assert [process.exitcode for process in processes] == [0] * STARTS
        if os.geteuid() == 0:
            assert pwd.getpwnam(name).pw_name == name
            rows = Path("/etc/passwd").read_text().splitlines()
            rows = [row for row in rows if row.startswith(f"{name}:")]
            assert len(rows) == 1
        else:  # pgserver runs Postgres as this user itself: nothing to create
            with pytest.raises(KeyError):
                pwd.getpwnam(name)
    finally:
        if os.geteuid() == 0:
            subprocess.run(["userdel", name], check=False, capture_output=True)
