"""An RNG audit requested over HTTP and run by a real Celery worker."""

from __future__ import annotations

import time

import pytest

from tests.e2e.client import Client, Keys
from tests.e2e.test_reconciliations import DEADLINE

pytestmark = pytest.mark.e2e


def test_an_auditor_requests_an_rng_audit_and_reads_its_report(
    api: Client, keys: Keys, worker: object
) -> None:
    queued = api.request("POST", "/v1/audits/rng", keys.auditor, json={"significance": 0.001})
    assert queued.status_code == 202, queued.text
    run_id = queued.json()["run_id"]
    deadline = time.monotonic() + DEADLINE
    while (answer := api.request("GET", f"/v1/audits/rng/{run_id}", keys.auditor)).json()[
        "status"
    ] != "completed":
        assert answer.status_code == 200, answer.text
        assert time.monotonic() < deadline, answer.json()
        time.sleep(0.2)
    report = answer.json()
    assert report["significance"] == 0.001
    assert report["shoes"]["failed"] == 0
    assert {t["name"] for t in report["tests"]} >= {"position_by_tile", "point_totals"}
    listed = api.request("GET", "/v1/audits/rng", keys.admin).json()["runs"]
    assert run_id in [r["run_id"] for r in listed]


def test_rng_audits_are_for_overseers_only(api: Client, keys: Keys) -> None:
    assert api.request("POST", "/v1/audits/rng", None, json={}).status_code == 401
    assert api.request("GET", "/v1/audits/rng/nope", keys.admin).status_code == 404
    bad = api.request("POST", "/v1/audits/rng", keys.admin, json={"significance": 2})
    assert bad.status_code == 422
