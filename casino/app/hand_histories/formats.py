"""The rows of a hand-history export, and their encodings: CSV and JSON lines.

One row per seat of each round. Times are UTC in ISO 8601, as the events record them;
amounts are integers in minor units; tiles are their ids in the shoe (0-55), listed in
deal order, with their faces beside them for a human reader. In CSV a list is its items
separated by spaces and a null is an empty cell; JSON lines keep lists and nulls as such.

Each encoder turns a batch of rows into one chunk, so a chunk is sent as soon as its
batch is fetched and nothing is held beyond one batch.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import orjson

from casino.game.tiles import face_index_of_tile, face_text

Record = dict[str, Any]

COLUMNS = (
    "round_id", "table_id", "round_number", "opened_at", "closed_at", "status", "shoe_id",
    "main_paytable", "doubles_paytable", "currency", "seat", "player_id", "main_stake",
    "doubles_stake", "hand", "hand_faces", "connector", "connector_face", "positions",
    "tile_scores", "connector_bonus", "total", "doubles_event", "main_odds", "main_payout",
    "doubles_odds", "doubles_payout",
)  # fmt: skip


class ExportFormat(StrEnum):
    CSV = "csv"
    JSONL = "jsonl"

    @property
    def media_type(self) -> str:
        return {"csv": "text/csv", "jsonl": "application/x-ndjson"}[self.value]


def seat_record(row: Mapping[str, Any]) -> Record:
    """An export row from a joined rm_rounds / rm_seats row (``COLUMNS``, in order)."""
    record = {name: row.get(name) for name in COLUMNS}
    record["opened_at"] = _utc(row["opened_at"])
    record["closed_at"] = _utc(row["closed_at"])
    hand, connector = row["hand"], row["connector"]
    record["hand_faces"] = None if hand is None else [_face(tile) for tile in hand]
    record["connector_face"] = None if connector is None else _face(connector)
    return record


def _utc(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).isoformat()


def _face(tile: int) -> str:
    return face_text(face_index_of_tile(tile))


def csv_chunks(batches: Iterable[list[Record]]) -> Iterator[bytes]:
    """The header row and then each batch's rows (RFC 4180). The header goes out with
    the first batch: no byte is sent before the query has answered."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(COLUMNS)
    for batch in batches:
        writer.writerows([_csv_cell(record[name]) for name in COLUMNS] for record in batch)
        yield _drain(buffer)
    if buffer.tell():  # no rows at all: the header alone
        yield _drain(buffer)


def _csv_cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(map(str, value))
    return value


def _drain(buffer: io.StringIO) -> bytes:
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text.encode()


def jsonl_chunks(batches: Iterable[list[Record]]) -> Iterator[bytes]:
    """Each row as one JSON object on a line of its own."""
    for batch in batches:
        yield b"".join(orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE) for record in batch)


ENCODERS = {ExportFormat.CSV: csv_chunks, ExportFormat.JSONL: jsonl_chunks}
