"""Reconciliation requested over HTTP and run by a real Celery worker."""

from __future__ import annotations

import subprocess
import time

import pytest

from tests.e2e.client import Client, Keys

pytestmark = pytest.mark.e2e

DEADLINE = 60.0


def test_an_auditor_requests_a_run_and_reads_its_outcome(
    api: Client, keys: Keys, worker: subprocess.Popen[bytes]
) -> None:
    queued = api.request("POST", "/v1/reconciliations", keys.auditor, json={})
    assert queued.status_code == 202, queued.text
    run_id = queued.json()["run_id"]
    deadline = time.monotonic() + DEADLINE
    while True:
        answer = api.request("GET", f"/v1/reconciliations/{run_id}", keys.auditor)
        assert answer.status_code == 200, answer.text
        if answer.json()["status"] == "completed":
            break
        assert worker.poll() is None, "the worker died"
        assert time.monotonic() < deadline, answer.json()
        time.sleep(0.2)
    run = answer.json()
    assert {c["name"] for c in run["checks"]} >= {"ledger", "payouts", "chains", "read_models"}
    listed = api.request("GET", "/v1/reconciliations?limit=5", keys.auditor).json()["runs"]
    assert run_id in [r["run_id"] for r in listed]


def test_reconciliation_is_for_overseers_only(api: Client, keys: Keys) -> None:
    assert api.request("POST", "/v1/reconciliations", None, json={}).status_code == 401
    unknown = api.request("GET", "/v1/reconciliations/not-a-run", keys.admin)
    assert unknown.status_code == 404
    assert unknown.headers["Content-Type"].startswith("application/problem+json")
