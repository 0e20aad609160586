"""The bundle's shape (``casino-dominoes/round-verification``, format version 1).

The service builds a ``Bundle`` and answers ``Bundle.as_json()``; an auditor's checker
reads the JSON back (parsed by ``casino.eventstore.canonical.parse_json``, so numbers
re-hash exactly) with ``read_bundle``, which refuses anything not of this shape
(``BundleFormatError``) so that the checks never guess at a field.

Events keep ``data`` and ``metadata`` as they were hashed. Everything outside the
events (the shoe's fields, the dealt tiles) is a summary for people: the checks prove
it against the events, never the other way round.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from casino.eventstore.canonical import ZERO_HASH
from casino.game.tiles import face_index_of_tile, face_text

FORMAT = "casino-dominoes/round-verification"
FORMAT_VERSION = 1
HASH_CHAIN_NAME = "sha256-rfc8785-chain/v1"
HASHED_MEMBERS = (
    "data",
    "metadata",
    "previous_hash",
    "schema_version",
    "stream",
    "type",
    "version",
)
HASH_CHAIN: dict[str, Any] = {
    "name": HASH_CHAIN_NAME,
    "covers": list(HASHED_MEMBERS),
    "genesis_previous_hash": ZERO_HASH,
    "description": (
        "hash = lowercase hex SHA-256 of the RFC 8785 canonical JSON of the object "
        "{data, metadata, previous_hash, schema_version, stream, type, version}, where "
        "stream is the event's stream_id; previous_hash is the hash of the stream's "
        "previous event, or genesis_previous_hash for version 1. position and "
        "recorded_at are not hashed: log checkpoints bind them."
    ),
}

T = TypeVar("T")


class BundleFormatError(ValueError):
    """The document is not a verification bundle of a known format."""


@dataclass(frozen=True)
class BundleEvent:
    stream_id: str
    version: int
    position: int
    type: str
    schema_version: int
    data: dict[str, Any]
    metadata: dict[str, Any]
    recorded_at: str
    previous_hash: str
    hash: str

    def as_json(self) -> dict[str, Any]:
        return {
            "stream_id": self.stream_id, "version": self.version, "position": self.position,
            "type": self.type, "schema_version": self.schema_version, "data": self.data,
            "metadata": self.metadata, "recorded_at": self.recorded_at,
            "previous_hash": self.previous_hash, "hash": self.hash,
        }  # fmt: skip


@dataclass(frozen=True)
class DealtTile:
    id: int
    face: str
    position: int

    @classmethod
    def at(cls, tile_id: int, position: int) -> DealtTile:
        return cls(tile_id, face_text(face_index_of_tile(tile_id)), position)

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "face": self.face, "position": self.position}


@dataclass(frozen=True)
class DealtSeat:
    """One seat's three hand tiles and its Connector, with their shoe positions."""

    seat: int
    tiles: tuple[DealtTile, ...]
    connector: DealtTile

    def as_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "tiles": [tile.as_json() for tile in self.tiles],
            "connector": self.connector.as_json(),
        }


@dataclass(frozen=True)
class BundleRound:
    round_id: str
    table_id: str
    stream_id: str
    events: tuple[BundleEvent, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "round_id": self.round_id, "table_id": self.table_id, "stream_id": self.stream_id,
            "events": [event.as_json() for event in self.events],
        }  # fmt: skip


@dataclass(frozen=True)
class BundleShoe:
    shoe_id: str
    stream_id: str
    algorithm: str
    commitment: str
    client_seed: str
    nonce: int
    status: str  # "live" or "closed"
    server_seed: str | None  # only once the shoe is closed (revealed in ShoeClosed)
    tiles_dealt: int
    events: tuple[BundleEvent, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "shoe_id": self.shoe_id, "stream_id": self.stream_id, "algorithm": self.algorithm,
            "commitment": self.commitment, "client_seed": self.client_seed,
            "nonce": self.nonce, "status": self.status, "server_seed": self.server_seed,
            "tiles_dealt": self.tiles_dealt, "events": [e.as_json() for e in self.events],
        }  # fmt: skip


@dataclass(frozen=True)
class BundleCheckpoint:
    """A running hash of the global log up to ``position`` (context: it cannot be checked
    from the bundle alone, only against the log or a checkpoint kept earlier)."""

    position: int
    event_count: int
    hash: str
    created_at: str | None

    def as_json(self) -> dict[str, Any]:
        return {
            "position": self.position, "event_count": self.event_count, "hash": self.hash,
            "created_at": self.created_at,
        }  # fmt: skip


@dataclass(frozen=True)
class Bundle:
    round: BundleRound
    shoe: BundleShoe
    dealt: tuple[DealtSeat, ...]
    checkpoint: BundleCheckpoint | None
    format: str = FORMAT
    format_version: int = FORMAT_VERSION
    hash_chain: Mapping[str, Any] | None = None  # as the document states it; None: ours

    def as_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "format_version": self.format_version,
            "hash_chain": dict(HASH_CHAIN if self.hash_chain is None else self.hash_chain),
            "round": self.round.as_json(),
            "shoe": self.shoe.as_json(),
            "dealt": [seat.as_json() for seat in self.dealt],
            "checkpoint": None if self.checkpoint is None else self.checkpoint.as_json(),
        }


# --- reading ----------------------------------------------------------------------------


def read_bundle(document: Any) -> Bundle:
    """A bundle from parsed JSON, every field checked for its type."""
    top = _object(document, "bundle")
    found = (top.get("format"), top.get("format_version"))
    if found != (FORMAT, FORMAT_VERSION):
        raise BundleFormatError(
            f"format {found[0]!r} version {found[1]!r}: this checker reads "
            f"{FORMAT!r} version {FORMAT_VERSION}"
        )
    round_ = _object(top.get("round"), "round")
    shoe = _object(top.get("shoe"), "shoe")
    checkpoint = top.get("checkpoint")
    return Bundle(
        format=FORMAT,
        format_version=FORMAT_VERSION,
        hash_chain=_object(top.get("hash_chain"), "hash_chain"),
        round=BundleRound(
            round_id=_get(round_, "round_id", str, "round"),
            table_id=_get(round_, "table_id", str, "round"),
            stream_id=_get(round_, "stream_id", str, "round"),
            events=_events(round_.get("events"), "round.events"),
        ),
        shoe=BundleShoe(
            shoe_id=_get(shoe, "shoe_id", str, "shoe"),
            stream_id=_get(shoe, "stream_id", str, "shoe"),
            algorithm=_get(shoe, "algorithm", str, "shoe"),
            commitment=_get(shoe, "commitment", str, "shoe"),
            client_seed=_get(shoe, "client_seed", str, "shoe"),
            nonce=_get(shoe, "nonce", int, "shoe"),
            status=_get(shoe, "status", str, "shoe"),
            server_seed=_optional(shoe, "server_seed", str, "shoe"),
            tiles_dealt=_get(shoe, "tiles_dealt", int, "shoe"),
            events=_events(shoe.get("events"), "shoe.events"),
        ),
        dealt=tuple(
            _seat(seat, f"dealt[{i}]") for i, seat in enumerate(_list(top.get("dealt"), "dealt"))
        ),
        checkpoint=None if checkpoint is None else _checkpoint(checkpoint),
    )


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BundleFormatError(f"{where}: expected an object")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise BundleFormatError(f"{where}: expected a list")
    return value


def _get(container: Mapping[str, Any], name: str, kind: type[T], where: str) -> T:
    value = container.get(name)
    # bool is an int to Python, never to JSON readers: refuse it where a number is due.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BundleFormatError(f"{where}.{name}: expected {kind.__name__}, got {value!r}")
    return value


def _optional(container: Mapping[str, Any], name: str, kind: type[T], where: str) -> T | None:
    if container.get(name) is None:
        return None
    return _get(container, name, kind, where)


def _events(value: Any, where: str) -> tuple[BundleEvent, ...]:
    return tuple(_event(item, f"{where}[{i}]") for i, item in enumerate(_list(value, where)))


def _event(value: Any, where: str) -> BundleEvent:
    event = _object(value, where)
    return BundleEvent(
        stream_id=_get(event, "stream_id", str, where),
        version=_get(event, "version", int, where),
        position=_get(event, "position", int, where),
        type=_get(event, "type", str, where),
        schema_version=_get(event, "schema_version", int, where),
        data=_get(event, "data", dict, where),
        metadata=_get(event, "metadata", dict, where),
        recorded_at=_get(event, "recorded_at", str, where),
        previous_hash=_get(event, "previous_hash", str, where),
        hash=_get(event, "hash", str, where),
    )


def _tile(value: Any, where: str) -> DealtTile:
    tile = _object(value, where)
    return DealtTile(
        _get(tile, "id", int, where), _get(tile, "face", str, where),
        _get(tile, "position", int, where),
    )  # fmt: skip


def _seat(value: Any, where: str) -> DealtSeat:
    seat = _object(value, where)
    tiles = _list(seat.get("tiles"), f"{where}.tiles")
    return DealtSeat(
        seat=_get(seat, "seat", int, where),
        tiles=tuple(_tile(tile, f"{where}.tiles[{i}]") for i, tile in enumerate(tiles)),
        connector=_tile(seat.get("connector"), f"{where}.connector"),
    )


def _checkpoint(value: Any) -> BundleCheckpoint:
    checkpoint = _object(value, "checkpoint")
    return BundleCheckpoint(
        position=_get(checkpoint, "position", int, "checkpoint"),
        event_count=_get(checkpoint, "event_count", int, "checkpoint"),
        hash=_get(checkpoint, "hash", str, "checkpoint"),
        created_at=_optional(checkpoint, "created_at", str, "checkpoint"),
    )
