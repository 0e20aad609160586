"""Settlement figures computed in the test, straight from the raw events in the log (and
the ledger from its postings), to check the report against: nothing here uses the
report's code or its read model."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from fractions import Fraction
from typing import Any
from zoneinfo import ZoneInfo

import psycopg

from casino.game.odds import odds_report


@dataclass
class Expected:
    rounds: int = 0
    seats: int = 0
    main_handle: int = 0
    main_payouts: int = 0
    doubles_wagers: int = 0
    doubles_handle: int = 0
    doubles_payouts: int = 0
    theoretical: Fraction = field(default_factory=Fraction)
    variance: Fraction = field(default_factory=Fraction)
    voids: int = 0
    voided_refunds: int = 0
    corrections: int = 0
    corrections_net: int = 0
    totals: Counter[int] = field(default_factory=Counter)

    @property
    def handle(self) -> int:
        return self.main_handle + self.doubles_handle

    @property
    def win(self) -> int:
        return self.handle - self.main_payouts - self.doubles_payouts


def gaming_day(at: datetime, start_hour: int, zone: str) -> date:
    return (at.astimezone(ZoneInfo(zone)) - timedelta(hours=start_hour)).date()


def raw_events(connection: psycopg.Connection[Any]) -> list[tuple[str, dict[str, Any], datetime]]:
    rows = connection.execute(
        "SELECT type, data, metadata->>'at' FROM events ORDER BY position"
    ).fetchall()
    return [(t, d, datetime.fromisoformat(at)) for t, d, at in rows]


def expected_figures(
    connection: psycopg.Connection[Any],
    start: datetime,
    end: datetime,
    start_hour: int,
    zone: str,
) -> dict[tuple[str, str, int, int, date], Expected]:
    """Per (currency, table, main paytable, Doubles paytable, gaming day)."""
    odds = odds_report()
    opened: dict[str, dict[str, Any]] = {}
    places: dict[tuple[str, str, int, int, date], Expected] = defaultdict(Expected)
    for event_type, data, at in raw_events(connection):
        if event_type == "RoundOpened":
            opened[data["round_id"]] = data
            continue
        if event_type not in {"RoundSettled", "RoundVoided", "SettlementReversed"}:
            continue
        if not start <= at < end:
            continue
        o = opened[data["round_id"]]
        place = places[o["currency"], o["table_id"], o["main_paytable"], o["doubles_paytable"],
                       gaming_day(at, start_hour, zone)]  # fmt: skip
        if event_type == "RoundVoided":
            place.voids += 1
            place.voided_refunds += data["refunded"]
        elif event_type == "SettlementReversed":
            place.corrections += 1
            place.corrections_net += data["reclaimed"] - data["refunded"]
        else:
            place.rounds += 1
            main, doubles = odds.main[o["main_paytable"]], odds.doubles[o["doubles_paytable"]]
            for seat in data["seats"]:
                place.seats += 1
                place.main_handle += seat["main_stake"]
                place.main_payouts += seat["main_payout"]
                place.theoretical += seat["main_stake"] * main.house_edge
                place.variance += seat["main_stake"] ** 2 * main.variance
                place.totals[seat["total"]] += 1
                if seat["doubles_stake"]:
                    place.doubles_wagers += 1
                    place.doubles_handle += seat["doubles_stake"]
                    place.doubles_payouts += seat["doubles_payout"]
                    place.theoretical += seat["doubles_stake"] * doubles.house_edge
                    place.variance += seat["doubles_stake"] ** 2 * doubles.variance
    return places


def summed(parts: list[Expected]) -> Expected:
    total = Expected()
    for part in parts:
        for name in ("rounds", "seats", "main_handle", "main_payouts", "doubles_wagers",
                     "doubles_handle", "doubles_payouts", "theoretical", "variance", "voids",
                     "voided_refunds", "corrections", "corrections_net"):  # fmt: skip
            setattr(total, name, getattr(total, name) + getattr(part, name))
        total.totals.update(part.totals)
    return total


@dataclass(frozen=True)
class LedgerFigures:
    handle: int
    payouts: int
    voided_refunds: int
    corrections_net: int


def ledger_figures(
    connection: psycopg.Connection[Any], currency: str, start: datetime, end: datetime
) -> LedgerFigures:
    """What the tables' ledger accounts took and paid for the rounds settled in the
    period, and what voids and corrections made in it moved."""

    def table_sum(event_type: str, rounds_of: str) -> int:
        row = connection.execute(
            "SELECT coalesce(sum(p.amount), 0) FROM ledger_postings p"
            " WHERE p.account LIKE 'table:%%' AND p.currency = %s AND p.event_type = %s"
            f" AND p.round_id IN ({rounds_of})",
            (currency, event_type, start, end),
        ).fetchone()
        assert row is not None
        return int(row[0])

    settled = (
        "SELECT data->>'round_id' FROM events WHERE type = 'RoundSettled'"
        " AND (metadata->>'at')::timestamptz >= %s AND (metadata->>'at')::timestamptz < %s"
    )
    voided = settled.replace("RoundSettled", "RoundVoided")
    corrected = settled.replace("RoundSettled", "SettlementReversed")
    return LedgerFigures(
        handle=table_sum("StakeDebited", settled),
        payouts=-table_sum("PayoutCredited", settled),
        voided_refunds=-table_sum("StakeRefunded", voided),
        corrections_net=table_sum("SettlementCorrected", corrected),
    )  # fmt: skip
