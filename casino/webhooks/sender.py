"""Sending: post due deliveries, ordered per stream, at least once, with backoff.

A round claims the due deliveries that head their stream (no earlier delivery of the same
subscription and stream is pending) with ``FOR UPDATE SKIP LOCKED``, posts them in
parallel (they are on different streams), records each outcome, and commits. The row
locks are held through the posts, so concurrent senders never post one delivery at once,
and the stream's next delivery is not a candidate until this one is settled: per stream,
at most one post is in flight, and the next starts after the previous was answered 2xx
(or went dead). A sender that dies mid-round commits nothing: its deliveries stay pending
and are posted again (at least once; a receiver deduplicates by ``webhook-id``).

After ``max_attempts`` failures a delivery is dead and its stream moves on: a receiver
that cannot take one event must not block every later event of that stream for ever.
The dead letter stays listed, and a replay sends it again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from psycopg import Connection

from casino.eventstore.canonical import parse_json
from casino.eventstore.upcasting import UpcasterRegistry
from casino.webhooks.message import EventRecord, body, message_id, signed_headers
from casino.webhooks.policy import DeliveryPolicy
from casino.webhooks.transactions import require_autocommit
from casino.webhooks.transport import Post, Response, post

_CLAIM = """
SELECT d.id, d.attempts, s.url, s.secret, e.position, e.stream_id, e.version, e.type,
       e.schema_version, e.recorded_at, e.data::text
  FROM webhook_deliveries d
  JOIN webhook_subscriptions s ON s.id = d.subscription_id
  JOIN events e ON e.position = d.position
 WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND s.active
   AND NOT EXISTS (
       SELECT 1 FROM webhook_deliveries p
        WHERE p.subscription_id = d.subscription_id AND p.stream_id = d.stream_id
          AND p.status = 'pending' AND (p.position, p.generation) < (d.position, d.generation))
 ORDER BY d.next_attempt_at, d.id
 LIMIT %s
 FOR UPDATE OF d SKIP LOCKED
"""
_DELIVERED = """
UPDATE webhook_deliveries
   SET status = 'delivered', attempts = attempts + 1, delivered_at = clock_timestamp(),
       last_attempt_at = %s, last_status_code = %s, last_error = NULL
 WHERE id = %s
"""
_FAILED = """
UPDATE webhook_deliveries
   SET status = %s, attempts = attempts + 1,
       next_attempt_at = clock_timestamp() + make_interval(secs => %s),
       last_attempt_at = %s, last_status_code = %s, last_error = %s
 WHERE id = %s
"""


@dataclass
class SendReport:
    rounds: int = 0
    attempted: int = 0
    delivered: int = 0
    retrying: int = 0  # failed, another attempt is scheduled
    dead: int = 0  # failed for the last time

    def as_json(self) -> dict[str, int]:
        return dict(vars(self))


@dataclass(frozen=True)
class _Claimed:
    delivery_id: int
    attempts: int
    url: str
    secret: str
    row: tuple[Any, ...]  # the event: position ... data::text, as _CLAIM reads it


@dataclass(frozen=True)
class _Attempt:
    at: datetime
    response: Response


class Sender:
    """Posts due deliveries; one per worker process (it keeps a thread pool)."""

    def __init__(
        self,
        policy: DeliveryPolicy,
        upcasters: UpcasterRegistry | None = None,
        transport: Post = post,
    ) -> None:
        self.policy = policy
        self.upcasters = upcasters or UpcasterRegistry()
        self.transport = transport
        self._threads = ThreadPoolExecutor(policy.concurrency, "webhook-send")

    def close(self) -> None:
        self._threads.shutdown()

    def send_due(
        self,
        connection: Connection[Any],
        max_seconds: float | None = None,
        batch_size: int | None = None,
    ) -> SendReport:
        """Post what is due, round after round, until nothing is (or ``max_seconds``)."""
        require_autocommit(connection)
        deadline = None if max_seconds is None else time.monotonic() + max_seconds
        limit = batch_size or self.policy.concurrency
        report = SendReport()
        while deadline is None or time.monotonic() < deadline:
            if not self._round(connection, limit, report):
                break
        return report

    def _round(self, connection: Connection[Any], limit: int, report: SendReport) -> bool:
        with connection.transaction():
            rows = connection.execute(_CLAIM, (limit,)).fetchall()
            claimed = [_Claimed(r[0], r[1], r[2], r[3], r[4:]) for r in rows]
            if not claimed:
                return False
            attempts = list(self._threads.map(self._attempt, claimed))
            self._record(connection, claimed, attempts, report)
        report.rounds += 1
        return True

    def _event(self, claimed: _Claimed) -> EventRecord:
        position, stream_id, version, event_type, schema_version, recorded_at, data = claimed.row
        schema_version, upcast = self.upcasters.upcast(event_type, schema_version, parse_json(data))
        return EventRecord(
            position, stream_id, version, event_type, schema_version, recorded_at, upcast
        )

    def _attempt(self, claimed: _Claimed) -> _Attempt:
        at = datetime.now(UTC)
        try:
            event = self._event(claimed)
            payload = body(event)
            headers = signed_headers(claimed.secret, message_id(event.position), payload, at)
            response = self.transport(claimed.url, payload.encode(), headers, self.policy.timeout)
        except Exception as error:  # an upcaster's bug, say: kept on the delivery, not lost
            response = Response(None, f"not sent: {type(error).__name__}: {error}")
        return _Attempt(at, response)

    def _record(
        self,
        connection: Connection[Any],
        claimed: Sequence[_Claimed],
        attempts: Sequence[_Attempt],
        report: SendReport,
    ) -> None:
        delivered = []
        failed = []
        for delivery, attempt in zip(claimed, attempts, strict=True):
            response = attempt.response
            report.attempted += 1
            if response.ok:
                delivered.append((attempt.at, response.status, delivery.delivery_id))
                report.delivered += 1
                continue
            failures = delivery.attempts + 1
            dead = self.policy.is_last(failures)
            wait = 0.0 if dead else self.policy.delay(failures, response.retry_after)
            failed.append(
                (
                    "dead" if dead else "pending",
                    wait,
                    attempt.at,
                    response.status,
                    response.error,
                    delivery.delivery_id,
                )
            )
            if dead:
                report.dead += 1
            else:
                report.retrying += 1
        with connection.cursor() as cursor:
            if delivered:
                cursor.executemany(_DELIVERED, delivered)
            if failed:
                cursor.executemany(_FAILED, failed)
