"""The RNG audit over the log: every closed shoe verified, then the across-shoe tests.

Shoes are read from the log itself (not ``rm_shoes``: read models are derived, and the
log alone knows where each ``ShoeOpened`` stands relative to the wagers). Postgres
aggregates each shoe into one JSON row and a named cursor streams them, so the client
holds one chunk of shoes at a time however long the log is; the count and the rows come
from one REPEATABLE READ snapshot.

Only shoes that pass verification feed the statistics: a failing shoe is reported on its
own, and its tiles say nothing about the RNG.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
import psycopg

from casino.audit import SIGNIFICANCE
from casino.audit.shoes import ClosedShoe, Deal, ShoeVerdict, seats_dealt, verify_shoe
from casino.audit.statistics import (
    AcrossShoes,
    StatisticalTest,
    Status,
    batch_shoes_for,
)

MAX_LISTED_FAILURES = 10_000  # beyond this, failing shoes are counted but not listed
_FETCH = 2_000

_SHOE_COUNTS = """
SELECT count(*) FILTER (WHERE type = 'ShoeOpened'), count(*) FILTER (WHERE type = 'ShoeClosed')
  FROM events
 WHERE stream_id LIKE 'shoe-%' AND type IN ('ShoeOpened', 'ShoeClosed')
"""

# One row per closed shoe: its own events, then what the rounds dealt from it say (the
# earliest wager, and the commitment each announced), found through the
# (stream_id, type, version) index.
_CLOSED_SHOES = """
WITH shoes AS (
    SELECT stream_id,
           min(position) FILTER (WHERE type = 'ShoeOpened') AS opened_position,
           (array_agg(data) FILTER (WHERE type = 'ShoeOpened'))[1] AS opened,
           (array_agg(data) FILTER (WHERE type = 'ShoeClosed'))[1] AS closed,
           coalesce(jsonb_agg(data ORDER BY version) FILTER (WHERE type = 'TilesDealt'),
                    '[]'::jsonb) AS deals
      FROM events
     WHERE stream_id LIKE 'shoe-%' AND type IN ('ShoeOpened', 'TilesDealt', 'ShoeClosed')
     GROUP BY stream_id
    HAVING bool_or(type = 'ShoeClosed')
),
rounds AS (
    SELECT d.stream_id,
           min(r.position) FILTER (WHERE r.type = 'WagerPlaced') AS first_wager,
           jsonb_agg(jsonb_build_array(r.data->'round_id', r.data->'commitment'))
               FILTER (WHERE r.type = 'RoundOpened') AS announced
      FROM events d
      JOIN events r ON r.stream_id = 'round-' || (d.data->>'round_id')
                   AND r.type IN ('WagerPlaced', 'RoundOpened')
     WHERE d.stream_id LIKE 'shoe-%' AND d.type = 'TilesDealt'
     GROUP BY d.stream_id
)
SELECT json_build_array(s.stream_id, s.opened_position, s.opened, s.closed, s.deals,
                        r.first_wager, r.announced)::text
  FROM shoes s LEFT JOIN rounds r USING (stream_id)
 ORDER BY s.stream_id
"""


@dataclass(frozen=True)
class RngAudit:
    """The outcome of one audit; ``as_json`` is the documented ``casino audit rng --json``."""

    significance: float
    started_at: datetime
    finished_at: datetime
    shoes_closed: int
    shoes_open: int  # not auditable until their seeds are revealed
    shoes_verified: int
    shoes_failed: int
    hands: int
    batch_shoes: int
    failures: list[ShoeVerdict]  # the first MAX_LISTED_FAILURES failing shoes
    tests: list[StatisticalTest]

    @property
    def ok(self) -> bool:
        return self.shoes_failed == 0 and all(t.status is not Status.FAIL for t in self.tests)

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "significance": self.significance,
            "started_at": self.started_at.isoformat(),
            "finished_at": self.finished_at.isoformat(),
            "shoes": {
                "closed": self.shoes_closed,
                "open": self.shoes_open,
                "verified": self.shoes_verified,
                "failed": self.shoes_failed,
                "failures_listed": len(self.failures),
            },
            "hands": self.hands,
            "batch_shoes": self.batch_shoes,
            "failures": [f.as_json() for f in self.failures],
            "tests": [t.as_json() for t in self.tests],
        }


def audit_shoes(
    shoes: Iterable[ClosedShoe],
    expected_shoes: int,
    significance: float = SIGNIFICANCE,
    batch_shoes: int | None = None,
    shoes_open: int = 0,
) -> RngAudit:
    """Verify each shoe and run the across-shoe tests over the verified ones.

    ``expected_shoes`` (the number ``shoes`` will yield) sizes the second-level batches
    before the stream starts, so nothing has to be held to count it.
    """
    if not 0 < significance < 1:
        raise ValueError(f"a significance level is between 0 and 1, got {significance}")
    started = datetime.now(UTC)
    batch = batch_shoes or batch_shoes_for(expected_shoes)
    tests = AcrossShoes(batch)
    closed = verified = hands = 0
    failures: list[ShoeVerdict] = []
    for shoe in shoes:
        closed += 1
        verdict = verify_shoe(shoe)
        if not verdict.ok or verdict.order is None:
            if len(failures) < MAX_LISTED_FAILURES:
                failures.append(verdict)
            continue
        verified += 1
        seats = seats_dealt(shoe)
        hands += len(seats)
        tests.add_shoe(verdict.order, seats)
    return RngAudit(
        significance=significance,
        started_at=started,
        finished_at=datetime.now(UTC),
        shoes_closed=closed,
        shoes_open=shoes_open,
        shoes_verified=verified,
        shoes_failed=closed - verified,
        hands=hands,
        batch_shoes=batch,
        failures=failures,
        tests=tests.results(significance),
    )


def audit_rng(
    connection: psycopg.Connection[Any],
    significance: float = SIGNIFICANCE,
    batch_shoes: int | None = None,
) -> RngAudit:
    """Audit every closed shoe in the log (``connection`` in autocommit mode)."""
    with connection.transaction():
        connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        opened, closed = connection.execute(_SHOE_COUNTS).fetchone() or (0, 0)
        return audit_shoes(
            closed_shoes(connection), closed, significance, batch_shoes, opened - closed
        )


def stream_json(connection: psycopg.Connection[Any], name: str, query: str) -> Iterator[Any]:
    """Each row of ``query`` (one JSON text column), decoded, through a named cursor.

    Must run inside a transaction: a named cursor lives as long as one.
    """
    with connection.cursor(name=name) as cursor:
        cursor.itersize = _FETCH
        cursor.execute(query)
        loads = orjson.loads
        for (row,) in cursor:
            yield loads(row)


def closed_shoes(connection: psycopg.Connection[Any]) -> Iterator[ClosedShoe]:
    """Every closed shoe of the log, with the rounds dealt from it, by stream id."""
    for row in stream_json(connection, "audit_closed_shoes", _CLOSED_SHOES):
        stream_id, opened_position, opened, closed, deals, first_wager, announced = row
        opened = opened or {}
        yield ClosedShoe(
            shoe_id=stream_id.removeprefix("shoe-"),
            opened_position=opened_position,
            algorithm=opened.get("algorithm", ""),
            commitment=opened.get("commitment", ""),
            client_seed=opened.get("client_seed", ""),
            nonce=opened.get("nonce", 0),
            server_seed=closed.get("server_seed", ""),
            tiles_dealt=closed.get("tiles_dealt", -1),
            deals=tuple(Deal(d["round_id"], d["first_position"], tuple(d["tiles"])) for d in deals),
            first_wager_position=first_wager,
            round_commitments=tuple((r, c) for r, c in announced or ()),
        )
