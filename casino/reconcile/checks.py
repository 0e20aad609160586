"""The reconciliation checks, each over the whole log or the ledger.

Ledger and wager checks run inside Postgres (set-based, streamed by the server). Payouts
are recomputed by the game core from each round's own events, a round at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import orjson
import psycopg

from casino.domain.events import HandsDealt, RoundOpened, RoundSettled, WagerPlaced, decode
from casino.domain.rounds import settle_seat
from casino.eventstore.verify import create_checkpoint, verify_chains, verify_checkpoints
from casino.reconcile.findings import CheckResult, Finding
from casino.reconcile.read_models import check_read_models

# Every money event's postings must sum to zero.
_UNBALANCED_EVENTS = """
SELECT e.stream_id, e.version, s.total
  FROM events e
  CROSS JOIN LATERAL (SELECT coalesce(sum((p->>'amount')::bigint), 0)::bigint AS total
                        FROM jsonb_array_elements(e.data->'postings') p) s
 WHERE e.data ? 'postings' AND s.total <> 0
"""
_MONEY_EVENTS = "SELECT count(*) FROM events WHERE data ? 'postings'"

# Each account event's balance_after = the previous one's + its own posting to the player.
_BALANCE_CHAIN = """
WITH moves AS (
    SELECT e.stream_id, e.version, (e.data->>'balance_after')::bigint AS balance_after,
           lag((e.data->>'balance_after')::bigint, 1, 0::bigint)
               OVER (PARTITION BY e.stream_id ORDER BY e.version) AS before,
           (SELECT coalesce(sum((p->>'amount')::bigint), 0)::bigint
              FROM jsonb_array_elements(e.data->'postings') p
             WHERE p->>'account' = 'player:' || (e.data->>'player_id')) AS change
      FROM events e
     WHERE e.stream_id LIKE 'account-%'
)
SELECT stream_id, version, before + change AS expected, balance_after
  FROM moves WHERE balance_after <> before + change OR balance_after < 0
"""

# The balance read model against the sum of the player's postings in the ledger.
_BALANCES_VS_POSTINGS = """
SELECT b.player_id, b.currency, b.balance, coalesce(l.total, 0)::bigint AS postings
  FROM rm_balances b
  LEFT JOIN (SELECT account, currency, sum(amount) AS total FROM ledger_postings
              GROUP BY account, currency) l
         ON l.account = 'player:' || b.player_id AND l.currency = b.currency
 WHERE b.balance <> coalesce(l.total, 0) OR b.balance < 0
"""

# Every wager is settled or voided exactly once.
_WAGER_OUTCOMES = """
WITH rounds AS (
    SELECT stream_id,
           count(*) FILTER (WHERE type = 'WagerPlaced') AS wagers,
           count(*) FILTER (WHERE type = 'RoundSettled') AS settled,
           count(*) FILTER (WHERE type = 'RoundVoided') AS voided,
           coalesce(max(jsonb_array_length(data->'seats'))
                    FILTER (WHERE type = 'RoundSettled'), 0) AS seats_settled,
           bool_or(type = 'RoundOpened') AS opened
      FROM events WHERE stream_id LIKE 'round-%' GROUP BY stream_id
)
SELECT stream_id, wagers, settled, voided, seats_settled FROM rounds
 WHERE settled + voided > 1
    OR (settled = 1 AND seats_settled <> wagers)
    OR (voided = 1 AND seats_settled <> 0)
"""
_ROUND_COUNT = "SELECT count(DISTINCT stream_id) FROM events WHERE stream_id LIKE 'round-%'"

_STUCK = """
SELECT round_id, opened_at FROM rm_rounds
 WHERE status = 'betting' AND opened_at < now() - %s
"""


def read_models(connection: psycopg.Connection[Any]) -> CheckResult:
    """Every read-model row equals what the log gives (streamed: constant memory)."""
    tables = check_read_models(connection)
    findings = [
        Finding(
            "read_models",
            t.table,
            "every row as the log gives it",
            {"missing": t.missing, "extra": t.extra, "differing": t.differing},
        )
        for t in tables
        if not t.equal
    ]
    return CheckResult("read_models", sum(t.rows for t in tables), findings)


def ledger(connection: psycopg.Connection[Any]) -> CheckResult:
    findings = [
        Finding("ledger", f"{stream}@{version}", 0, total)
        for stream, version, total in connection.execute(_UNBALANCED_EVENTS)
    ]
    findings += [
        Finding("ledger", f"{stream}@{version}", expected, found)
        for stream, version, expected, found in connection.execute(_BALANCE_CHAIN)
    ]
    findings += [
        Finding("ledger", f"balance {player} {currency}", postings, balance)
        for player, currency, balance, postings in connection.execute(_BALANCES_VS_POSTINGS)
    ]
    (examined,) = connection.execute(_MONEY_EVENTS).fetchone() or (0,)
    return CheckResult("ledger", examined, findings)


def wagers(connection: psycopg.Connection[Any]) -> CheckResult:
    findings = [
        Finding(
            "wagers",
            stream,
            {"outcomes": 1, "seats_settled": placed if settled else 0},
            {"settled": settled, "voided": voided, "seats_settled": seats},
        )
        for stream, placed, settled, voided, seats in connection.execute(_WAGER_OUTCOMES)
    ]
    (examined,) = connection.execute(_ROUND_COUNT).fetchone() or (0,)
    return CheckResult("wagers", examined, findings)


def _round_events(connection: psycopg.Connection[Any]) -> Iterator[tuple[str, list[Any]]]:
    """Each round stream's events, a stream at a time (constant memory)."""
    with connection.transaction(), connection.cursor(name="reconcile_rounds") as cursor:
        cursor.itersize = 2000
        cursor.execute(
            "SELECT stream_id, json_build_array(type, data)::text FROM events"
            " WHERE stream_id LIKE 'round-%%' AND type IN"
            " ('RoundOpened', 'WagerPlaced', 'HandsDealt', 'RoundSettled')"
            " ORDER BY stream_id, version"
        )
        current: str | None = None
        events: list[Any] = []
        for stream_id, text in cursor:
            if stream_id != current:
                if current is not None:
                    yield current, events
                current, events = stream_id, []
            event_type, data = orjson.loads(text)
            events.append(decode(event_type, data))
        if current is not None:
            yield current, events


def payouts(connection: psycopg.Connection[Any]) -> CheckResult:
    """Every settled round paid what the game core computes from its dealt tiles."""
    findings: list[Finding] = []
    examined = 0
    for stream, events in _round_events(connection):
        opened = next((e for e in events if isinstance(e, RoundOpened)), None)
        dealt = next((e for e in events if isinstance(e, HandsDealt)), None)
        settled = next((e for e in events if isinstance(e, RoundSettled)), None)
        if opened is None or dealt is None or settled is None:
            continue
        examined += 1
        placed = {e.seat: e for e in events if isinstance(e, WagerPlaced)}
        expected = [settle_seat(placed[d["seat"]], d, opened) for d in dealt.seats]
        if expected != settled.seats:
            findings.append(Finding("payouts", stream, expected, settled.seats))
        elif sum(s["main_payout"] + s["doubles_payout"] for s in expected) != settled.payouts:
            findings.append(Finding("payouts", stream, "sum of seat payouts", settled.payouts))
    return CheckResult("payouts", examined, findings)


def chains(connection: psycopg.Connection[Any]) -> CheckResult:
    report = verify_chains(connection)
    findings = [
        Finding(
            "chains",
            f"{b.stream_id}@{b.version} (position {b.position}): {b.problem}",
            b.expected,
            b.found,
        )
        for b in report.breaks
    ]
    return CheckResult("chains", report.events, findings)


def checkpoints(connection: psycopg.Connection[Any]) -> CheckResult:
    """Check every stored checkpoint against the log, then extend them to its end."""
    report = verify_checkpoints(connection)
    findings = [
        Finding("checkpoints", f"position {m.position}: {m.problem}", m.expected, m.found)
        for m in report.mismatches
    ]
    if not findings:
        create_checkpoint(connection)
    return CheckResult("checkpoints", report.checkpoints, findings)


def stuck_rounds(connection: psycopg.Connection[Any], max_age: timedelta) -> CheckResult:
    rows = connection.execute(_STUCK, (max_age,)).fetchall()
    findings = [
        Finding("stuck_rounds", round_id, f"settled or voided within {max_age}", f"open since {at}")
        for round_id, at in rows
    ]
    (examined,) = connection.execute(
        "SELECT count(*) FROM rm_rounds WHERE status = 'betting'"
    ).fetchone() or (0,)
    return CheckResult("stuck_rounds", examined, findings)
