"""What a delivery sends: its body and its Standard Webhooks headers.

The body is the event as the feed (``GET /v1/events``) shows it, in canonical JSON::

    {"type", "position", "stream_id", "version", "schema_version", "recorded_at",
     "timestamp", "data"}

``timestamp`` is the Standard Webhooks payload field for when the event happened; it
equals ``recorded_at``. The body is signed exactly as sent: receivers must verify the
raw bytes, before parsing them.

``webhook-id`` names the event (``msg_<position>``): it stays the same across retries and
replays, so a receiver that deduplicates by it (as the convention advises) processes each
event once; the position in the body says the same. ``webhook-timestamp`` is the time of
the attempt, so a retry is signed afresh and passes a receiver's replay-age check.
"""

from __future__ import annotations

import base64
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from standardwebhooks import Webhook

from casino.eventstore.canonical import canonical_json

SECRET_BYTES = 32  # Standard Webhooks: at least 24, 32 recommended
USER_AGENT = "casino-webhooks/1"


def new_secret() -> str:
    """A fresh signing secret in the convention's serialisation, ``whsec_<base64>``."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def message_id(position: int) -> str:
    return f"msg_{position}"


@dataclass(frozen=True)
class EventRecord:
    """The parts of a logged event a delivery carries."""

    position: int
    stream_id: str
    version: int
    type: str
    schema_version: int
    recorded_at: datetime
    data: dict[str, Any]


def body(event: EventRecord) -> str:
    recorded_at = event.recorded_at.astimezone(UTC).isoformat()
    return canonical_json(
        {
            "type": event.type,
            "position": event.position,
            "stream_id": event.stream_id,
            "version": event.version,
            "schema_version": event.schema_version,
            "recorded_at": recorded_at,
            "timestamp": recorded_at,
            "data": event.data,
        }
    ).decode()


def signed_headers(secret: str, msg_id: str, payload: str, at: datetime) -> dict[str, str]:
    """The headers of one attempt to send ``payload``, signed with ``secret`` at ``at``."""
    # Webhook.sign reads the datetime's clock fields as UTC: give it UTC.
    at = at.astimezone(UTC)
    signature = Webhook(secret).sign(msg_id, at, payload)
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": signature,
        "content-type": "application/json",
        "user-agent": USER_AGENT,
    }
