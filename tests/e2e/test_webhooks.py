"""Webhook subscriptions over HTTP: made by an admin, read by auditors, replayed."""

from __future__ import annotations

import pytest

from tests.e2e.client import Client, Keys

pytestmark = pytest.mark.e2e


def test_an_admin_subscribes_and_overseers_follow_the_deliveries(api: Client, keys: Keys) -> None:
    made = api.request(
        "POST", "/v1/webhooks", keys.admin,
        json={"url": "https://tables.example/hooks", "event_types": ["RoundSettled"]},
    )  # fmt: skip
    assert made.status_code == 201, made.text
    subscription = made.json()
    assert subscription["secret"].startswith("whsec_")
    sub = subscription["id"]
    listed = api.request("GET", "/v1/webhooks", keys.auditor).json()["subscriptions"]
    assert sub in [s["id"] for s in listed]
    assert all("secret" not in s for s in listed)
    lag = api.request("GET", f"/v1/webhooks/{sub}", keys.auditor)
    assert lag.status_code == 200 and lag.json()["active"] is True
    page = api.request("GET", f"/v1/webhooks/{sub}/deliveries?status=dead", keys.auditor)
    assert page.status_code == 200 and page.json()["deliveries"] == []
    replayed = api.request(
        "POST", f"/v1/webhooks/{sub}/replay", keys.admin, json={"from_position": 0}
    )
    assert replayed.status_code == 200, replayed.text
    assert replayed.json()["generation"] == 1
    off = api.request("POST", f"/v1/webhooks/{sub}/deactivate", keys.admin)
    assert off.status_code == 200 and off.json()["active"] is False
    again = api.request("POST", f"/v1/webhooks/{sub}/replay", keys.admin, json={"from_position": 0})
    assert again.status_code == 409


def test_bad_subscriptions_and_wrong_roles_are_refused(api: Client, keys: Keys) -> None:
    bad_url = api.request("POST", "/v1/webhooks", keys.admin, json={"url": "ftp://x"})
    assert bad_url.status_code == 422
    assert bad_url.json()["field"] == "url"
    bad_type = api.request(
        "POST", "/v1/webhooks", keys.admin,
        json={"url": "https://x.example", "event_types": ["NoSuchEvent"]},
    )  # fmt: skip
    assert bad_type.status_code == 422
    by_auditor = api.request(
        "POST", "/v1/webhooks", keys.auditor, json={"url": "https://x.example"}
    )
    assert by_auditor.status_code == 403
    assert api.request("GET", "/v1/webhooks", None).status_code == 401
    assert api.request("GET", "/v1/webhooks/sub_missing", keys.admin).status_code == 404
