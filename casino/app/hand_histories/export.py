"""A player's or a table's hand histories of a period, streamed in constant memory.

The rows come from a server-side cursor a batch at a time (one FETCH per batch) and
each batch is encoded and handed on before the next is fetched, so an export of years
holds no more than one batch, in the database client and in the encoder alike.

The period is half-open, ``[from, to)``, on the rounds' opening times; the rows run in
that order (then round id, then seat), served by rm_rounds_table_opened for a table and
by rm_seats_player for a player. Only played rounds count (as in ``recall``).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import islice
from typing import Any

import psycopg
from psycopg.rows import dict_row

from casino.app.hand_histories.formats import ENCODERS, ExportFormat, Record, seat_record
from casino.app.hand_histories.recall import PLAYED_STATUSES
from casino.domain import validation
from casino.domain.errors import InvalidCommand

Connect = Callable[[], AbstractContextManager[psycopg.Connection[Any]]]

IDLE_LIMIT = "2min"  # the longest a client may pause between batches
BATCH = 1000  # rows per FETCH and per chunk sent: a few hundred KB of CSV

_ROWS = """
SELECT r.round_id, r.table_id, r.round_number, r.opened_at, r.closed_at, r.status,
       r.shoe_id, r.main_paytable, r.doubles_paytable, r.currency, s.seat, s.player_id,
       s.main_stake, s.doubles_stake, s.hand, s.connector, s.positions, s.tile_scores,
       s.connector_bonus, s.total, s.doubles_event, s.main_odds, s.main_payout,
       s.doubles_odds, s.doubles_payout
  FROM rm_rounds r JOIN rm_seats s ON s.round_id = r.round_id
 WHERE {scope}
   AND r.opened_at >= %(opened_from)s AND r.opened_at < %(opened_to)s
   AND r.status = ANY(%(played)s)
 ORDER BY {order}, s.seat
"""
_BY_TABLE = "r.table_id = %(table_id)s"
_BY_PLAYER = "s.player_id = %(player_id)s"


@dataclass(frozen=True)
class HandHistoryExport:
    """What to export: exactly one of a player and a table, over ``[opened_from,
    opened_to)``. Checked on creation, so the API and the CLI refuse alike."""

    opened_from: datetime
    opened_to: datetime
    player_id: str | None = None
    table_id: str | None = None
    format: ExportFormat = ExportFormat.CSV

    def __post_init__(self) -> None:
        if (self.player_id is None) == (self.table_id is None):
            raise InvalidCommand(
                "invalid_scope", "give exactly one of player_id and table_id", "player_id"
            )
        if self.player_id is not None:
            validation.identifier(self.player_id, "player_id")
        if self.table_id is not None:
            validation.identifier(self.table_id, "table_id")
        for name, moment in (("from", self.opened_from), ("to", self.opened_to)):
            if moment.utcoffset() is None:
                raise InvalidCommand("invalid_period", f"{name} must give its time zone", name)
            try:
                moment.astimezone(UTC)
            except OverflowError:  # e.g. year 1 at +05:00: before the first UTC instant
                raise InvalidCommand(
                    "invalid_period", f"{name} is beyond the dates an export can cover", name
                ) from None
        if self.opened_from >= self.opened_to:
            raise InvalidCommand("invalid_period", "to must be later than from", "to")

    @property
    def file_name(self) -> str:
        subject = f"player-{self.player_id}" if self.player_id else f"table-{self.table_id}"
        period = "_".join(
            m.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ") for m in (self.opened_from, self.opened_to)
        )
        # A colon is legal in an id but not in every file system's names.
        return f"hand-histories_{subject}_{period}.{self.format.value}".replace(":", "-")


def rows_query(export: HandHistoryExport) -> tuple[str, dict[str, Any]]:
    """The export's query and its parameters."""
    scope = _BY_TABLE if export.table_id is not None else _BY_PLAYER
    params = {
        "table_id": export.table_id, "player_id": export.player_id,
        "opened_from": export.opened_from, "opened_to": export.opened_to,
        "played": PLAYED_STATUSES,
    }  # fmt: skip
    # Play order: at one table, the rounds' numbers (what recall uses too; they hold if the
    # clock steps back); across a player's tables, when each round opened.
    order = "r.round_number" if export.table_id is not None else "r.opened_at, r.round_id"
    return _ROWS.format(scope=scope, order=order), params


def export_batches(
    connection: psycopg.Connection[Any], export: HandHistoryExport, batch: int = BATCH
) -> Generator[list[Record], None, None]:
    """The export's rows, ``batch`` at a time, each batch one FETCH from the server."""
    query, params = rows_query(export)
    # A server-side cursor lives in a transaction (the pool's connections autocommit).
    with (
        connection.transaction(),
        connection.cursor(name="hand_history_export", row_factory=dict_row) as cursor,
    ):
        # A client that stops reading must not hold this snapshot (and VACUUM) for ever.
        connection.execute(f"SET LOCAL idle_in_transaction_session_timeout = '{IDLE_LIMIT}'")
        cursor.itersize = batch
        cursor.execute(query, params)
        rows = iter(cursor)
        # Taking exactly itersize rows ends on a FETCH boundary: the next one waits.
        while fetched := list(islice(rows, batch)):
            yield [seat_record(row) for row in fetched]


def export_chunks(
    connect: Connect, export: HandHistoryExport, batch: int = BATCH
) -> Iterator[bytes]:
    """The encoded export, a chunk per batch of rows.

    The query has run and its first batch is in hand when this returns: a failure there
    (the database gone) is raised to the caller, who can still answer with an error,
    rather than cutting short a response whose 200 has gone out.
    """
    chunks = _encoded(connect, export, batch)
    first = next(chunks, None)
    return _resumed(first, chunks)


def _encoded(
    connect: Connect, export: HandHistoryExport, batch: int
) -> Generator[bytes, None, None]:
    with connect() as connection:
        yield from ENCODERS[export.format](export_batches(connection, export, batch))


def _resumed(
    first: bytes | None, rest: Generator[bytes, None, None]
) -> Generator[bytes, None, None]:
    try:
        if first is not None:
            yield first
        yield from rest
    finally:
        rest.close()  # closed early (the client went away): the connection goes back now
