"""Gaming days and report periods."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from casino.domain.errors import InvalidCommand
from casino.domain.gaming_day import GamingDayRule, resolve_period

MALTA = GamingDayRule(6, "Europe/Malta")


def test_a_gaming_day_runs_from_its_start_hour_to_the_next_days() -> None:
    assert MALTA.start_of(date(2026, 11, 20)) == datetime(2026, 11, 20, 5, tzinfo=UTC)
    assert MALTA.day_of(datetime(2026, 11, 20, 4, 59, 59, tzinfo=UTC)) == date(2026, 11, 19)
    assert MALTA.day_of(datetime(2026, 11, 20, 5, 0, tzinfo=UTC)) == date(2026, 11, 20)
    assert MALTA.day_of(datetime(2026, 11, 21, 4, 0, tzinfo=UTC)) == date(2026, 11, 20)


def test_summer_time_moves_the_start_in_utc() -> None:
    assert MALTA.start_of(date(2026, 7, 1)) == datetime(2026, 7, 1, 4, tzinfo=UTC)
    # The clocks go back at 03:00 on 25 Oct 2026: gaming day 24 Oct lasts 25 hours.
    length = MALTA.start_of(date(2026, 10, 25)) - MALTA.start_of(date(2026, 10, 24))
    assert length.total_seconds() == 25 * 3600


def test_dates_ask_for_whole_gaming_days() -> None:
    period = resolve_period("2026-11-20", "2026-11-21", MALTA)
    assert period.start == datetime(2026, 11, 20, 5, tzinfo=UTC)
    assert period.end == datetime(2026, 11, 22, 5, tzinfo=UTC)


def test_a_shift_is_any_span_in_local_time_or_with_an_offset() -> None:
    shift = resolve_period("2026-11-20T06:00", "2026-11-20T14:00+01:00", MALTA)
    assert shift.start == datetime(2026, 11, 20, 5, tzinfo=UTC)
    assert shift.end == datetime(2026, 11, 20, 13, tzinfo=UTC)


@pytest.mark.parametrize(
    ("start", "end", "field", "code"),
    [
        ("2026-11-21", "2026-11-20", "to", "empty_period"),
        ("2026-11-20T10:00", "2026-11-20T10:00", "to", "empty_period"),
        ("yesterday", "2026-11-20", "from", "invalid_period"),
        ("2026-11-20", "2026-13-01", "to", "invalid_period"),
        ("2026-01-01", "9999-12-31", "to", "invalid_period"),  # its end is past year 9999
        ("0001-01-01T00:00:00+05:00", "2026-01-01", "from", "invalid_period"),
    ],
)
def test_bad_periods_name_their_field(start: str, end: str, field: str, code: str) -> None:
    with pytest.raises(InvalidCommand) as raised:
        resolve_period(start, end, MALTA)
    assert (raised.value.field, raised.value.code) == (field, code)


def test_a_rule_refuses_a_bad_hour_or_zone() -> None:
    with pytest.raises(ValueError, match="0-23"):
        GamingDayRule(24, "UTC")
    with pytest.raises(ValueError, match="unknown time zone"):
        GamingDayRule(6, "Mars/Olympus")


@given(
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1),
                 timezones=st.just(UTC)),
    st.integers(0, 23),
    st.sampled_from(["UTC", "Europe/Malta", "America/Los_Angeles", "Asia/Macau"]),
)  # fmt: skip
def test_every_instant_falls_in_the_day_whose_span_holds_it(
    instant: datetime, hour: int, zone: str
) -> None:
    rule = GamingDayRule(hour, zone)
    day = rule.day_of(instant)
    period = resolve_period(day.isoformat(), day.isoformat(), rule)
    assert period.start <= instant < period.end
