"""The parts of the service around the API: probes, metrics, the OpenAPI document."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from tests.e2e.client import Client, Keys

pytestmark = pytest.mark.e2e


def test_probes_answer_without_a_key(api: Client) -> None:
    assert api.ok("GET", "/healthz") == {"status": "ok"}
    assert api.ok("GET", "/readyz") == {
        "status": "ready", "checks": {"database": "ok", "redis": "ok"},
    }  # fmt: skip


def test_the_openapi_document_and_its_browsable_docs(api: Client) -> None:
    document = api.ok("GET", "/openapi.json")
    assert document["openapi"].startswith("3.")
    operations = {
        f"{method.upper()} {path}"
        for path, item in document["paths"].items()
        for method in item
        if method != "parameters"
    }
    assert {
        "POST /v1/tables", "GET /v1/tables/{table_id}", "POST /v1/players/{player_id}/deposits",
        "POST /v1/players/{player_id}/withdrawals", "GET /v1/players/{player_id}",
        "POST /v1/tables/{table_id}/rounds", "POST /v1/rounds/{round_id}/wagers",
        "POST /v1/rounds/{round_id}/deal", "POST /v1/rounds/{round_id}/void",
        "GET /v1/rounds/{round_id}", "GET /v1/rounds", "GET /v1/shoes/{shoe_id}",
        "GET /v1/events", "GET /v1/paytables", "POST /v1/keys", "GET /healthz",
        "GET /readyz", "GET /metrics",
    } <= operations  # fmt: skip
    docs = api.get("/docs")
    assert docs.status_code == 200 and "/openapi.json" in docs.text


def test_metrics_count_requests_and_rounds(api: Client, keys: Keys) -> None:
    table = api.open_table(keys.admin)
    key = api.table_key(keys.admin, table)
    player = api.funded_player(key)
    round_id = api.ok("POST", f"/v1/tables/{table}/rounds", key)["round_id"]
    api.ok("POST", f"/v1/rounds/{round_id}/wagers", key,
           json={"seat": 1, "player_id": player, "main": 100})  # fmt: skip
    api.ok("POST", f"/v1/rounds/{round_id}/deal", key)
    text = api.get("/metrics").text
    assert re.search(r"^casino_rounds_dealt_total [1-9]", text, re.MULTILINE)
    assert re.search(
        r'^casino_http_request_duration_seconds_count\{endpoint="/v1/rounds/<id:round_id>/deal",'
        r'method="POST"\} [1-9]',
        text,
        re.MULTILINE,
    )


def test_paytables_carry_exact_fractions(api: Client, keys: Keys) -> None:
    paytables = api.ok("GET", "/v1/paytables", keys.auditor)
    assert [p["number"] for p in paytables["main"]] == [1, 2, 3, 4, 5]
    assert [p["number"] for p in paytables["doubles"]] == [1, 2, 3, 4]
    for paytable in paytables["main"] + paytables["doubles"]:
        numerator, denominator = map(int, paytable["rtp"]["fraction"].split("/"))
        assert paytable["rtp"]["value"] == pytest.approx(numerator / denominator)
        edge = paytable["house_edge"]["value"]
        assert edge == pytest.approx(1 - paytable["rtp"]["value"])
        assert 0 < edge < 0.2
        assert sum(Fraction(o["probability"]["fraction"]) for o in paytable["outcomes"]) == 1
