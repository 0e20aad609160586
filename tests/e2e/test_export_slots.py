"""Streamed exports hold a pooled connection while their client reads, so a process
streams only a few at once: one more is told to come back (503), and a slot is free
again once an export ends or its client goes away. In an app of the test's own, with a
pool of 4 connections (one export slot)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from casino.api import create_app
from casino.bootstrap import bootstrap
from casino.config import Settings
from tests.e2e.client import PROBLEM, Client, Keys, Server

pytestmark = pytest.mark.e2e

PERIOD = "from=2020-01-01T00:00:00Z&to=2040-01-01T00:00:00Z&format=csv"


@pytest.fixture
def app(server: Server, redis_url: str, tmp_path: Path) -> Iterator[Flask]:
    settings = Settings(server.database_url, redis_url, tmp_path, pool_size=4, task_queue="unused")
    services = bootstrap(settings, migrate=False)
    yield create_app(services)
    services.close()


def test_one_export_too_many_is_told_to_retry(app: Flask, api: Client, keys: Keys) -> None:
    table = api.open_table(keys.admin)
    path = f"/v1/exports/hand-histories?table_id={table}&{PERIOD}"
    headers = {"Authorization": f"Bearer {keys.auditor}"}
    client = app.test_client()
    # A WSGI server closes every response (PEP 3333); the test client closes only what
    # the test closes, so each response here is closed by its with-block.
    with client.get(path, headers=headers, buffered=False) as streaming:
        assert streaming.status_code == 200
        with client.get(path, headers=headers) as refused:
            assert refused.status_code == 503 and refused.content_type == PROBLEM
            assert refused.json is not None and refused.json["code"] == "exports_busy"
            assert refused.headers["Retry-After"] == "30"
        assert streaming.get_data().startswith(b"round_id,")  # read to the end
    with client.get(path, headers=headers) as again:
        assert again.status_code == 200, again.get_data(as_text=True)
    with client.get(path, headers=headers, buffered=False) as abandoned:
        assert abandoned.status_code == 200  # and the client goes away before reading
    with client.get(path, headers=headers) as last:
        assert last.status_code == 200
