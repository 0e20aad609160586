"""`casino up` on the embedded defaults: the README's run command, end to end."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
import requests

pytestmark = pytest.mark.e2e

DEADLINE = 120.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start(data_dir: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    environment = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    environment["CASINO_DATA_DIR"] = str(data_dir)
    return subprocess.Popen(
        [sys.executable, "-m", "casino.cli.main", "up", "--port", str(port),
         "--web-workers", "1"],
        env=environment,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )  # fmt: skip


def wait_ready(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()
        try:
            if requests.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    pytest.fail(f"casino up did not become ready:\n{log.read_text()}")


def stop(process: subprocess.Popen[bytes]) -> int:
    process.send_signal(signal.SIGINT)
    return process.wait(60)


def test_casino_up_runs_the_stack_on_embedded_defaults_and_keeps_its_data(
    tmp_path: Path,
) -> None:
    # Not under pytest's folders: see server_url in tests/integration/conftest.py.
    data_dir, port = Path(tempfile.mkdtemp(prefix="casino-test-up-")) / "var", free_port()
    first_log = tmp_path / "first.log"
    process = start(data_dir, port, first_log)
    try:
        wait_ready(port, process, first_log)
        found = re.search(
            r"first admin key \(shown once, keep it safe\): (\S+)", first_log.read_text()
        )
        assert found, first_log.read_text()
        headers = {"Authorization": f"Bearer {found.group(1)}"}
        table: dict[str, Any] = {
            "table_id": "up-test", "name": "Up", "currency": "EUR", "seats": 2,
            "main_paytable": 1, "doubles_paytable": 1, "main_min": 100, "main_max": 1_000,
            "doubles_min": 100, "doubles_max": 1_000,
        }  # fmt: skip
        created = requests.post(
            f"http://127.0.0.1:{port}/v1/tables", json=table, headers=headers, timeout=10
        )
        assert created.status_code == 201, created.text
    finally:
        assert stop(process) == 0
    assert "stopped" in first_log.read_text()

    second_log = tmp_path / "second.log"
    process = start(data_dir, port, second_log)
    try:
        wait_ready(port, process, second_log)
        assert "first admin key" not in second_log.read_text()
        again = requests.get(
            f"http://127.0.0.1:{port}/v1/tables/up-test", headers=headers, timeout=10
        )
        assert again.status_code == 200, again.text
        assert again.json()["name"] == "Up"
    finally:
        assert stop(process) == 0
        shutil.rmtree(data_dir.parent, ignore_errors=True)
