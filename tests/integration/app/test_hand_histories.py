"""Hand histories on the real Postgres: the last rounds of a seat or a player, and the
streamed exports of a period, checked against the events the rounds were made of."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import psycopg
import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.actors import Actor, Role
from casino.app.hand_histories.export import (
    HandHistoryExport,
    export_batches,
    export_chunks,
    rows_query,
)
from casino.app.hand_histories.formats import COLUMNS, ExportFormat
from casino.app.hand_histories.recall import (
    last_rounds_of_player,
    last_rounds_of_seat,
    player_rounds_query,
    seat_rounds_query,
)
from casino.app.queries import Queries
from casino.app.service import Casino
from casino.domain.errors import InvalidCommand, NotFound
from casino.domain.rounds import SeatWager
from casino.domain.streams import round_stream
from casino.eventstore.postgres import PostgresEventStore
from tests.integration.app.conftest import ADMIN

pytestmark = pytest.mark.integration

Pool = ConnectionPool[Connection[Any]]
Json = dict[str, Any]
START = datetime(2031, 3, 1, 10, 0, 0, 123_456, tzinfo=UTC)  # microseconds must survive


@dataclass
class Clock:
    """The time the casino decides at: set by the test, then a second later for each
    command (so a round closes after it opens)."""

    now: datetime = START

    def __call__(self) -> datetime:
        decided, self.now = self.now, self.now + timedelta(seconds=1)
        return decided


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def clocked(event_store: PostgresEventStore, pool: Pool, clock: Clock) -> Casino:
    return Casino(event_store, pool.connection, clock=clock)


@pytest.fixture
def read(pool: Pool) -> Iterator[Queries]:
    with pool.connection() as connection:
        yield Queries(connection)


def dealer(table_id: str) -> Actor:
    return Actor(Role.TABLE, "dealer", frozenset({table_id}))


def play(casino: Casino, table_id: str, wagers: list[SeatWager], end: str = "deal") -> str:
    """A round with ``wagers``, then dealt (``deal``), voided before the deal (``void``),
    dealt and then reversed by an admin (``reverse``), or left taking bets (``open``)."""
    key = dealer(table_id)
    round_id: str = casino.open_round(table_id, "seed", key).body["round_id"]
    casino.place_wagers(round_id, wagers, key)
    if end in ("deal", "reverse"):
        casino.deal(round_id, key)
    if end == "void":
        casino.void_round(round_id, "dealer error", key)
    if end == "reverse":
        casino.void_round(round_id, "misdeal found on review", ADMIN)
    return round_id


def ids(histories: list[Json]) -> list[str]:
    return [h["round_id"] for h in histories]


# --- the last rounds of a seat or a player ---------------------------------------------


def test_a_seats_last_rounds_are_its_latest_played_ones_oldest_first(
    casino: Casino,
    read: Queries,
    new_table: Callable[..., str],
    funded_player: Callable[..., str],
) -> None:
    table = new_table()
    alice, bob = funded_player(), funded_player()
    both = [SeatWager(1, alice, 100), SeatWager(2, bob, 200, 100)]
    first, second, third, fourth = (play(casino, table, both) for _ in range(4))
    alice_alone = play(casino, table, [SeatWager(1, alice, 100)])
    voided = play(casino, table, [SeatWager(2, bob, 100)], end="void")
    play(casino, table, [SeatWager(2, bob, 100)], end="open")  # still betting: not yet played

    last_three = last_rounds_of_seat(read, table, 2, 3)
    assert ids(last_three) == [third, fourth, voided]
    assert last_three == [read.round_history(r) for r in (third, fourth, voided)]
    assert ids(last_rounds_of_seat(read, table, 2, 100)) == [first, second, third, fourth, voided]
    assert ids(last_rounds_of_seat(read, table, 1, 2)) == [fourth, alice_alone]
    assert ids(last_rounds_of_seat(read, table, 1, 1)) == [alice_alone]
    assert last_rounds_of_seat(read, table, 7, 10) == []


def test_a_seats_rounds_refuse_what_is_not_there(
    read: Queries, new_table: Callable[..., str]
) -> None:
    table = new_table(seats=2)
    with pytest.raises(InvalidCommand) as beyond:
        last_rounds_of_seat(read, table, 3, 10)
    assert (beyond.value.code, beyond.value.field) == ("unknown_seat", "seat")
    for n in (0, 101):
        with pytest.raises(InvalidCommand) as count:
            last_rounds_of_seat(read, table, 1, n)
        assert (count.value.code, count.value.field) == ("invalid_count", "n")
    with pytest.raises(NotFound):
        last_rounds_of_seat(read, "no-such-table-anywhere", 1, 10)


def test_a_players_last_rounds_run_across_tables_in_opening_order(
    clocked: Casino,
    clock: Clock,
    read: Queries,
    new_table: Callable[..., str],
    funded_player: Callable[..., str],
) -> None:
    north, south = new_table(), new_table()
    player, other = funded_player(), funded_player()
    schedule = [  # (minute, table, wagers): the two tables take turns
        (0, north, [SeatWager(3, player, 100)]),
        (1, south, [SeatWager(5, player, 100), SeatWager(1, other, 100)]),
        (2, north, [SeatWager(3, player, 100), SeatWager(4, player, 300)]),  # two seats: once
        (3, south, [SeatWager(5, player, 100)]),
        (4, north, [SeatWager(3, player, 100)]),
        (5, north, [SeatWager(1, other, 100)]),  # without the player
    ]
    played = []
    for minute, table, wagers in schedule:
        clock.now = START + timedelta(minutes=minute)
        played.append(play(clocked, table, wagers))

    assert ids(last_rounds_of_player(read, player, 10)) == played[:5]
    assert ids(last_rounds_of_player(read, player, 2)) == played[3:5]
    assert ids(last_rounds_of_player(read, player, 10, table_id=south)) == [played[1], played[3]]
    assert last_rounds_of_player(read, player, 1) == [read.round_history(played[4])]
    assert last_rounds_of_player(read, "nobody-has-seen-this-player", 10) == []


def test_play_order_at_a_table_is_the_round_number_even_when_the_clock_went_back(
    clocked: Casino,
    clock: Clock,
    read: Queries,
    new_table: Callable[..., str],
    funded_player: Callable[..., str],
) -> None:
    table, player = new_table(), funded_player()
    clock.now = START + timedelta(hours=1)
    earlier_number = play(clocked, table, [SeatWager(1, player, 100)])
    clock.now = START  # the server's clock was set back before the next round
    later_number = play(clocked, table, [SeatWager(1, player, 100)])

    assert ids(last_rounds_of_seat(read, table, 1, 10)) == [earlier_number, later_number]
    assert ids(last_rounds_of_player(read, player, 10)) == [later_number, earlier_number]


# --- exports ---------------------------------------------------------------------------


def csv_records(data: bytes) -> list[dict[str, str]]:
    rows = list(csv.reader(io.StringIO(data.decode())))
    assert tuple(rows[0]) == COLUMNS
    return [dict(zip(COLUMNS, row, strict=True)) for row in rows[1:]]


def jsonl_records(data: bytes) -> list[Json]:
    records = [json.loads(line) for line in data.decode().splitlines()]
    assert all(tuple(record) == COLUMNS for record in records)
    return records


def as_csv(record: Json) -> dict[str, str]:
    """A record as its CSV cells: lists space-separated, null empty."""

    def cell(value: Any) -> str:
        if value is None:
            return ""
        return " ".join(map(str, value)) if isinstance(value, list) else str(value)

    return {name: cell(value) for name, value in record.items()}


def export_bytes(pool: Pool, export: HandHistoryExport, batch: int = 1000) -> bytes:
    return b"".join(export_chunks(pool.connection, export, batch))


def from_events(pool: Pool, read: Queries, round_ids: list[str]) -> list[Json]:
    """The rows an export must hold, built from each round's events alone (and, for the
    tiles' faces, from the round's recall)."""
    records = []
    with pool.connection() as connection:
        for round_id in round_ids:
            events = connection.execute(
                "SELECT type, data, metadata->>'at' FROM events WHERE stream_id = %s"
                " ORDER BY version",
                (round_stream(round_id),),
            ).fetchall()
            by_type = {kind: (data, at) for kind, data, at in events}
            opened, opened_at = by_type["RoundOpened"]
            wagers = {data["seat"]: data for kind, data, _ in events if kind == "WagerPlaced"}
            dealt = {s["seat"]: s for s in by_type.get("HandsDealt", ({"seats": []},))[0]["seats"]}
            settled = {
                s["seat"]: s for s in by_type.get("RoundSettled", ({"seats": []},))[0]["seats"]
            }
            closing = by_type.get("RoundSettled") or by_type["RoundVoided"]
            status = (
                "reversed" if "SettlementReversed" in by_type
                else "voided" if "RoundVoided" in by_type
                else "settled"
            )  # fmt: skip
            hands = {h["seat"]: h for h in read.round_history(round_id)["hands"]}
            for seat in sorted(wagers):
                deal, result, hand = dealt.get(seat, {}), settled.get(seat, {}), hands[seat]
                records.append({
                    "round_id": round_id, "table_id": opened["table_id"],
                    "round_number": opened["round_number"], "opened_at": opened_at,
                    "closed_at": closing[1], "status": status, "shoe_id": opened["shoe_id"],
                    "main_paytable": opened["main_paytable"],
                    "doubles_paytable": opened["doubles_paytable"],
                    "currency": opened["currency"], "seat": seat,
                    "player_id": wagers[seat]["player_id"], "main_stake": wagers[seat]["main"],
                    "doubles_stake": wagers[seat]["doubles"], "hand": deal.get("hand"),
                    "hand_faces": [t["face"] for t in hand["tiles"]] if hand["tiles"] else None,
                    "connector": deal.get("connector"),
                    "connector_face": hand["connector"]["face"] if hand["connector"] else None,
                    "positions": deal.get("positions"), "tile_scores": result.get("tile_scores"),
                    "connector_bonus": result.get("connector_bonus"), "total": result.get("total"),
                    "doubles_event": result.get("doubles_event"),
                    "main_odds": result.get("main_odds"), "main_payout": result.get("main_payout"),
                    "doubles_odds": result.get("doubles_odds"),
                    "doubles_payout": result.get("doubles_payout"),
                })  # fmt: skip
    return records


@pytest.fixture
def period_table(
    clocked: Casino,
    clock: Clock,
    new_table: Callable[..., str],
    funded_player: Callable[..., str],
) -> tuple[str, list[str], list[str]]:
    """A table with a round opened each minute from START: settled, voided, reversed,
    settled, settled; then one still taking bets. Returns the table, the five played
    rounds and the two players."""
    table = new_table()
    alice, bob = funded_player(), funded_player()
    ends = ["deal", "void", "reverse", "deal", "deal", "open"]
    rounds = []
    for minute, end in enumerate(ends):
        clock.now = START + timedelta(minutes=minute)
        wagers = [SeatWager(2, alice, 1_000, 500), SeatWager(6, bob, 300)]
        rounds.append(play(clocked, table, wagers, end))
    return table, rounds[:5], [alice, bob]


def test_a_tables_export_carries_the_exact_values_of_the_events(
    pool: Pool,
    database_url: str,
    read: Queries,
    period_table: tuple[str, list[str], list[str]],
) -> None:
    table, rounds, _ = period_table
    expected = from_events(pool, read, rounds)
    assert {r["status"] for r in expected} == {"settled", "voided", "reversed"}
    period: dict[str, Any] = {
        "opened_from": START,
        "opened_to": START + timedelta(hours=1),
        "table_id": table,
    }

    jsonl = export_bytes(pool, HandHistoryExport(**period, format=ExportFormat.JSONL))
    assert jsonl_records(jsonl) == expected
    csv_data = export_bytes(pool, HandHistoryExport(**period, format=ExportFormat.CSV))
    assert csv_records(csv_data) == [as_csv(r) for r in expected]

    # Times are UTC whatever the session's zone (the events record them so).
    def in_berlin() -> Connection[Any]:
        return psycopg.connect(database_url, autocommit=True, options="-c TimeZone=Europe/Berlin")

    export = HandHistoryExport(**period, format=ExportFormat.JSONL)
    assert b"".join(export_chunks(in_berlin, export)) == jsonl


def test_the_period_is_half_open_on_the_opening_time(
    pool: Pool, period_table: tuple[str, list[str], list[str]]
) -> None:
    table, rounds, _ = period_table
    minute, tick = timedelta(minutes=1), timedelta(microseconds=1)

    def exported(start: datetime, end: datetime) -> list[str]:
        export = HandHistoryExport(start, end, table_id=table, format=ExportFormat.JSONL)
        return list(dict.fromkeys(r["round_id"] for r in jsonl_records(export_bytes(pool, export))))

    assert exported(START + minute, START + 3 * minute) == rounds[1:3]
    assert exported(START + minute - tick, START + 3 * minute + tick) == rounds[1:4]
    assert exported(START + minute + tick, START + 3 * minute) == rounds[2:3]
    assert exported(START - minute, START) == []
    berlin = timezone(timedelta(hours=1))  # the same instants, written in another zone
    assert exported((START + minute).astimezone(berlin), START + 3 * minute) == rounds[1:3]


def test_a_players_export_holds_only_their_seats(
    pool: Pool, read: Queries, period_table: tuple[str, list[str], list[str]]
) -> None:
    _, rounds, (alice, _) = period_table
    export = HandHistoryExport(
        START, START + timedelta(hours=1), player_id=alice, format=ExportFormat.JSONL
    )
    records = jsonl_records(export_bytes(pool, export))
    assert records == [r for r in from_events(pool, read, rounds) if r["player_id"] == alice]
    assert [r["seat"] for r in records] == [2] * 5


def test_an_empty_export_is_a_header_or_nothing(pool: Pool) -> None:
    period: dict[str, Any] = {"opened_from": START, "opened_to": START + timedelta(days=1)}
    nobody = {**period, "player_id": "nobody-has-seen-this-player"}
    assert csv_records(export_bytes(pool, HandHistoryExport(**nobody))) == []
    assert export_bytes(pool, HandHistoryExport(**nobody, format=ExportFormat.JSONL)) == b""


@pytest.mark.parametrize(
    ("fields", "code", "field"),
    [
        ({}, "invalid_scope", "player_id"),
        ({"player_id": "P1", "table_id": "T1"}, "invalid_scope", "player_id"),
        ({"player_id": "bad id"}, "invalid_identifier", "player_id"),
        ({"table_id": "T1", "opened_to": START}, "invalid_period", "to"),
        ({"table_id": "T1", "opened_from": START.replace(tzinfo=None)}, "invalid_period", "from"),
    ],
)
def test_an_export_names_what_is_wrong_with_it(
    fields: dict[str, Any], code: str, field: str
) -> None:
    with pytest.raises(InvalidCommand) as caught:
        HandHistoryExport(**{"opened_from": START, "opened_to": START + timedelta(1), **fields})
    assert (caught.value.code, caught.value.field) == (code, field)


def test_the_export_is_fetched_a_batch_at_a_time_as_it_is_sent(
    pool: Pool, database_url: str, period_table: tuple[str, list[str], list[str]]
) -> None:
    """Ten rows in batches of three: when the first chunk is handed out, the server has
    sent three rows and holds the rest behind an open cursor; each later chunk is one
    more FETCH of three."""
    table, _, _ = period_table
    export = HandHistoryExport(START, START + timedelta(hours=1), table_id=table)
    used: list[Connection[Any]] = []

    @contextmanager
    def connect() -> Iterator[Connection[Any]]:
        with pool.connection() as connection:
            used.append(connection)
            yield connection

    def activity() -> tuple[str, str]:
        # A connection of its own: from the pool it could be the export's, given back.
        with psycopg.connect(database_url) as watcher:
            row = watcher.execute(
                "SELECT state, query FROM pg_stat_activity WHERE pid = %s",
                (used[0].info.backend_pid,),
            ).fetchone()
        assert row is not None
        return row[0], row[1]

    chunks = export_chunks(connect, export, batch=3)
    first = next(chunks)
    assert len(csv_records(first)) == 3
    assert activity() == ("idle in transaction", 'FETCH FORWARD 3 FROM "hand_history_export"')
    sizes = [len(list(csv.reader(io.StringIO(chunk.decode())))) for chunk in chunks]
    assert sizes == [3, 3, 1]
    assert activity()[0] == "idle"  # the cursor's transaction is over


def test_an_export_closed_early_gives_its_connection_back(
    pool: Pool, period_table: tuple[str, list[str], list[str]]
) -> None:
    table, _, _ = period_table
    export = HandHistoryExport(START, START + timedelta(hours=1), table_id=table)
    with pool.connection() as connection:
        batches = export_batches(connection, export, batch=2)
        assert len(next(batches)) == 2
        assert connection.info.transaction_status.name == "INTRANS"
        batches.close()  # what a client that goes away leads to
        assert connection.info.transaction_status.name == "IDLE"


# Twenty tables of a thousand rounds, three seats each, among two thousand players: the
# shape of a real log, so the planner chooses as it would in production.
_SYNTHETIC_LOG = [
    """
INSERT INTO rm_rounds (round_id, table_id, round_number, shoe_id, commitment, currency, seats,
                       main_paytable, doubles_paytable, status, opened_at, closed_at, wagers,
                       handle, payouts, version)
SELECT 'R' || t || '-' || n, 'T' || t, n, 'S' || t || '-' || n, 'c', 'EUR', 7, 1, 1,
       'settled', %(start)s + n * interval '1 minute', NULL, 3, 300, 0, 5
  FROM generate_series(1, 20) t, generate_series(1, 1000) n
""",
    """
INSERT INTO rm_seats (round_id, seat, player_id, main_stake, doubles_stake)
SELECT 'R' || t || '-' || n, s, 'P' || ((t * 7 + n * 3 + s) % 2000), 100, 0
  FROM generate_series(1, 20) t, generate_series(1, 1000) n, generate_series(1, 3) s
""",
    "ANALYZE rm_rounds",
    "ANALYZE rm_seats",
]


def test_the_queries_are_served_by_their_indexes(fresh_database_url: str) -> None:
    start, end = START + timedelta(hours=2), START + timedelta(hours=3)
    expected = [
        ("rm_rounds_table_opened", rows_query(HandHistoryExport(start, end, table_id="T7"))),
        ("rm_seats_player", rows_query(HandHistoryExport(start, end, player_id="P42"))),
        ("rm_rounds_table_number", seat_rounds_query("T7", 2, 10)),
        ("rm_seats_player", player_rounds_query("P42", 10)),
    ]
    with psycopg.connect(fresh_database_url, autocommit=True) as connection:
        for statement in _SYNTHETIC_LOG:
            connection.execute(statement, {"start": START} if "%(start)s" in statement else None)
        for index, (query, params) in expected:
            plan = "\n".join(row[0] for row in connection.execute("EXPLAIN " + query, params))
            assert index in plan, plan
            assert "Seq Scan" not in plan, plan
