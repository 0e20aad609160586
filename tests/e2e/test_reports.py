"""Settlement reports asked for over HTTP, made by a real Celery worker, fetched as
JSON, CSV and PDF."""

from __future__ import annotations

import csv
import hashlib
import io
import subprocess
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pypdf import PdfReader

from tests.e2e.client import Client, Keys
from tests.e2e.test_reconciliations import DEADLINE

pytestmark = pytest.mark.e2e


def _play(api: Client, keys: Keys, rounds: int) -> tuple[str, int, int]:
    """Rounds at a table of the test's own; its handle and payouts from the deals."""
    table = api.open_table(keys.admin, main_paytable=4, doubles_paytable=3)
    key = api.table_key(keys.admin, table)
    players = [api.funded_player(key, 5_000_000) for _ in range(3)]
    handle = payouts = 0
    for _ in range(rounds):
        round_id = api.ok("POST", f"/v1/tables/{table}/rounds", key, json={})["round_id"]
        wagers = [{"seat": s, "player_id": p, "main": 500 * s, "doubles": 100}
                  for s, p in enumerate(players, start=1)]  # fmt: skip
        api.ok("POST", f"/v1/rounds/{round_id}/wagers", key, json={"wagers": wagers})
        dealt = api.ok("POST", f"/v1/rounds/{round_id}/deal", key)
        handle += dealt["handle"]
        payouts += dealt["payouts"]
    return table, handle, payouts


def _made(api: Client, key: str, report_id: str, worker: subprocess.Popen[bytes]) -> Any:
    deadline = time.monotonic() + DEADLINE
    while True:
        answer = api.request("GET", f"/v1/reports/{report_id}", key)
        assert answer.status_code == 200, answer.text
        if answer.json()["status"] == "completed":
            return answer.json()
        assert answer.json()["status"] in {"queued", "running"}, answer.json()
        assert worker.poll() is None, "the worker died"
        assert time.monotonic() < deadline, answer.json()
        time.sleep(0.2)


def _ask(api: Client, key: str, table: str, format_name: str) -> Any:
    now = datetime.now(UTC)
    body = {"from": (now - timedelta(hours=1)).isoformat(),
            "to": (now + timedelta(minutes=5)).isoformat(), "table_id": table,
            "format": format_name}  # fmt: skip
    return _queue(api, key, body)


def _queue(api: Client, key: str, body: dict[str, Any]) -> Any:
    queued = api.request("POST", "/v1/reports/settlement", key, json=body)
    assert queued.status_code == 202, queued.text
    assert queued.json()["status"] == "queued" and queued.json()["document"] is None
    return queued.json()


def test_an_auditor_gets_a_report_in_every_format(
    api: Client, keys: Keys, worker: subprocess.Popen[bytes]
) -> None:
    table, handle, payouts = _play(api, keys, rounds=3)
    asked = {f: _ask(api, keys.auditor, table, f) for f in ("json", "csv", "pdf")}
    # Listed among the newest at once (other tests, run beside this one, ask for reports
    # too: the listing is checked before they can push these three out of it).
    listed = api.ok("GET", "/v1/reports?limit=100", keys.auditor)["reports"]
    assert {a["report_id"] for a in asked.values()} <= {r["report_id"] for r in listed}
    made = {f: _made(api, keys.auditor, a["report_id"], worker) for f, a in asked.items()}
    documents = {}
    for format_name, summary in made.items():
        assert summary["requested_by"].startswith("auditor:")
        assert summary["software_version"] == "0.1.0"
        response = api.get(summary["document"], keys.auditor)
        assert response.status_code == 200
        assert hashlib.sha256(response.content).hexdigest() == summary["sha256"]
        assert response.headers["ETag"] == f'"{summary["sha256"]}"'
        assert summary["file_name"] in response.headers["Content-Disposition"]
        documents[format_name] = response
    documented = api.ok("GET", "/openapi.json")["paths"]["/v1/reports/{report_id}/document"]
    content = documented["get"]["responses"]["200"]["content"]
    for response in documents.values():  # every document's type is documented, as it is
        media_type = response.headers["Content-Type"].split(";")[0]
        expected = "object" if media_type == "application/json" else "string"
        assert content[media_type]["schema"]["type"] == expected
    assert documents["json"].headers["Content-Type"].startswith("application/json")
    report = documents["json"].json()
    (section,) = report["currencies"]
    assert section["totals"]["rounds"] == 3 and section["totals"]["seats"] == 9
    assert section["totals"]["handle"] == handle and section["totals"]["payouts"] == payouts
    assert section["totals"]["win"] == handle - payouts
    assert report["filters"]["table_id"] == table
    assert [(r["table_id"], r["main_paytable"], r["doubles_paytable"])
            for r in section["tables"]] == [(table, 4, 3)]  # fmt: skip
    assert documents["csv"].headers["Content-Type"].startswith("text/csv")
    (row,) = csv.DictReader(io.StringIO(documents["csv"].text))
    assert (row["table_id"], int(row["handle"]), int(row["win"])) == (
        table, handle, handle - payouts
    )  # fmt: skip
    assert documents["pdf"].headers["Content-Type"] == "application/pdf"
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(documents["pdf"].content)).pages)
    assert "Settlement report" in text and table in text and "casino 0.1.0" in text


def test_a_period_without_play_is_a_no_activity_report(
    api: Client, keys: Keys, worker: subprocess.Popen[bytes]
) -> None:
    body = {"from": "2001-01-01", "to": "2001-01-02", "format": "json"}
    summary = _made(api, keys.admin, _queue(api, keys.admin, body)["report_id"], worker)
    assert summary["period"] == {"start": "2001-01-01T06:00:00+00:00",
                                 "end": "2001-01-03T06:00:00+00:00"}  # fmt: skip
    report = api.get(summary["document"], keys.admin).json()
    assert report["no_activity"] is True and report["currencies"] == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"from": "2026-11-21", "to": "2026-11-20"}, "to"),
        ({"from": "soon", "to": "2026-11-20"}, "from"),
        ({"from": "2026-11-20", "to": "2026-11-21", "format": "xlsx"}, "format"),
        ({"from": "2026-11-20"}, "to"),
        ({"from": "2026-11-20", "to": "2026-11-21", "table_id": "bad id!"}, "table_id"),
        ({"from": "2026-11-20", "to": "2026-11-21", "colour": "red"}, "colour"),
        ({"from": "2026-01-01", "to": "9999-12-31"}, "to"),
        ({"from": "0001-01-01T00:00:00+05:00", "to": "2026-01-01"}, "from"),
    ],
)
def test_bad_requests_are_problems_naming_the_field(
    api: Client, keys: Keys, body: dict[str, Any], field: str
) -> None:
    response = api.request("POST", "/v1/reports/settlement", keys.auditor, json=body)
    assert response.status_code in (400, 422), response.text
    assert response.headers["Content-Type"].startswith("application/problem+json")
    assert field in response.text


def test_reports_are_for_overseers_only(api: Client, keys: Keys) -> None:
    body = {"from": "2026-11-20", "to": "2026-11-21"}
    assert api.request("POST", "/v1/reports/settlement", None, json=body).status_code == 401
    table = api.open_table(keys.admin)
    key = api.table_key(keys.admin, table)
    assert api.request("POST", "/v1/reports/settlement", key, json=body).status_code == 403
    unknown = api.request("GET", "/v1/reports/" + "0" * 32, keys.auditor)
    assert unknown.status_code == 404
    assert unknown.headers["Content-Type"].startswith("application/problem+json")


def test_a_document_not_yet_made_is_a_conflict(api: Client, keys: Keys) -> None:
    """With no worker running, the request stays queued and its document is not there."""
    body = {"from": "2026-11-20", "to": "2026-11-21"}
    report_id = _queue(api, keys.auditor, body)["report_id"]
    answer = api.get(f"/v1/reports/{report_id}/document", keys.auditor)
    assert answer.status_code == 409, answer.text
    assert answer.json()["code"] == "report_not_ready"


def test_a_retried_request_with_its_idempotency_key_gets_the_same_report(
    api: Client, keys: Keys
) -> None:
    body = {"from": "2026-11-20", "to": "2026-11-21", "format": "csv"}
    headers = {"Idempotency-Key": f"finance-{time.monotonic_ns()}"}
    first = api.request("POST", "/v1/reports/settlement", keys.auditor, json=body,
                        headers=headers)  # fmt: skip
    again = api.request("POST", "/v1/reports/settlement", keys.auditor, json=body,
                        headers=headers)  # fmt: skip
    assert first.status_code == again.status_code == 202, again.text
    assert again.json()["report_id"] == first.json()["report_id"]
    assert again.headers["Idempotent-Replayed"] == "true"
    other = api.request("POST", "/v1/reports/settlement", keys.auditor,
                        json={**body, "format": "pdf"}, headers=headers)  # fmt: skip
    assert other.status_code == 422
    assert other.json()["code"] == "idempotency_key_reused"
    # The key belongs to the API key that sent it: another caller's is another report.
    admins = api.request("POST", "/v1/reports/settlement", keys.admin, json=body,
                         headers=headers)  # fmt: skip
    assert admins.status_code == 202
    assert admins.json()["report_id"] != first.json()["report_id"]


def test_a_table_key_reads_no_report(api: Client, keys: Keys) -> None:
    body = {"from": "2026-11-20", "to": "2026-11-21"}
    report_id = _queue(api, keys.auditor, body)["report_id"]
    key = api.table_key(keys.admin, api.open_table(keys.admin))
    for path in (f"/v1/reports/{report_id}", f"/v1/reports/{report_id}/document"):
        refused = api.get(path, key)
        assert refused.status_code == 403, refused.text
        assert refused.headers["Content-Type"].startswith("application/problem+json")
