from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta, timezone

import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from casino.webhooks.message import EventRecord, body, message_id, new_secret, signed_headers

EVENT = EventRecord(
    position=42,
    stream_id="round-r1",
    version=3,
    type="WagerPlaced",
    schema_version=1,
    recorded_at=datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=timezone(timedelta(hours=2))),
    data={"round_id": "r1", "seat": 2, "player_id": "ann", "main": 500, "doubles": 0, "é": "ü"},
)


def signed(secret: str, at: datetime | None = None) -> tuple[str, dict[str, str]]:
    payload = body(EVENT)
    return payload, signed_headers(
        secret, message_id(EVENT.position), payload, at or datetime.now(UTC)
    )


def test_a_new_secret_is_whsec_and_32_random_bytes() -> None:
    secret = new_secret()
    assert secret.startswith("whsec_")
    assert len(base64.b64decode(secret.removeprefix("whsec_"))) == 32
    assert new_secret() != secret


def test_the_package_own_verifier_accepts_the_signature_and_returns_the_body() -> None:
    secret = new_secret()
    payload, headers = signed(secret)
    assert Webhook(secret).verify(payload, headers) == json.loads(payload)
    assert Webhook(secret).verify(payload.encode(), headers) == json.loads(payload)


def test_headers_are_the_convention_ones() -> None:
    at = datetime(2026, 5, 6, 7, 8, 9, tzinfo=UTC)
    _, headers = signed(new_secret(), at)
    assert headers["webhook-id"] == "msg_42"
    assert headers["webhook-timestamp"] == str(int(at.timestamp()))
    assert headers["webhook-signature"].startswith("v1,")
    assert headers["content-type"] == "application/json"


def test_a_timestamp_in_another_zone_is_signed_as_the_same_instant() -> None:
    secret = new_secret()
    now = datetime.now(UTC)
    payload, headers = signed(secret, now.astimezone(timezone(timedelta(hours=-5))))
    assert headers["webhook-timestamp"] == str(int(now.timestamp()))
    Webhook(secret).verify(payload, headers)


@pytest.mark.parametrize("part", ["body", "id", "timestamp", "secret"])
def test_any_change_fails_verification(part: str) -> None:
    secret = new_secret()
    payload, headers = signed(secret)
    if part == "body":
        payload = payload.replace("500", "5000")
    elif part == "id":
        headers["webhook-id"] = "msg_43"
    elif part == "timestamp":
        headers["webhook-timestamp"] = str(int(headers["webhook-timestamp"]) - 1)
    else:
        secret = new_secret()
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(payload, headers)


def test_an_old_attempt_is_refused_by_the_receiver() -> None:
    secret = new_secret()
    payload, headers = signed(secret, datetime.now(UTC) - timedelta(minutes=10))
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(payload, headers)


def test_the_body_is_the_event_in_canonical_json() -> None:
    payload = body(EVENT)
    assert json.loads(payload) == {
        "type": "WagerPlaced",
        "position": 42,
        "stream_id": "round-r1",
        "version": 3,
        "schema_version": 1,
        "recorded_at": "2026-01-02T01:04:05.678000+00:00",
        "timestamp": "2026-01-02T01:04:05.678000+00:00",
        "data": EVENT.data,
    }
    assert ", " not in payload and ": " not in payload  # minified
    assert payload == body(EVENT)  # the same bytes every time: retries sign the same body
