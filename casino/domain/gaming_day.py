"""Gaming days and report periods (pure).

A gaming day starts at a configured hour in the casino's time zone and lasts until that
hour the next calendar day; it is named by the date it starts on. A round belongs to
the gaming day in which it was settled. A report covers a half-open period of instants
[start, end): whole gaming days when asked by date, or any span (a shift) when asked by
date and time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from casino.domain.errors import InvalidCommand

HOURS_IN_DAY = 24


@dataclass(frozen=True)
class GamingDayRule:
    start_hour: int  # 0-23, in the time zone below
    time_zone: str  # an IANA name, e.g. "Europe/Malta"

    def __post_init__(self) -> None:
        if not 0 <= self.start_hour < HOURS_IN_DAY:
            raise ValueError(f"a gaming day starts at an hour 0-23, not {self.start_hour}")
        zone_of(self.time_zone)

    @property
    def zone(self) -> tzinfo:
        return zone_of(self.time_zone)

    def start_of(self, day: date) -> datetime:
        """The instant the gaming day ``day`` starts (in UTC)."""
        local = datetime.combine(day, time(self.start_hour), tzinfo=self.zone)
        return local.astimezone(UTC)

    def day_of(self, instant: datetime) -> date:
        """The gaming day an instant falls in."""
        local = instant.astimezone(self.zone)
        return (local - timedelta(hours=self.start_hour)).date()


def zone_of(name: str) -> tzinfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r} (an IANA name, e.g. Europe/Malta)") from None


@dataclass(frozen=True)
class Period:
    start: datetime  # inclusive
    end: datetime  # exclusive
    requested_from: str
    requested_to: str


def resolve_period(from_text: str, to_text: str, rule: GamingDayRule) -> Period:
    """The period a report request names.

    A date is a gaming day: ``from`` its start, ``to`` the end of that day (inclusive).
    A date and time without an offset is the casino's local time. ``from`` must come
    before ``to``.
    """
    start = _bound(from_text, "from", rule, end_of_day=False)
    end = _bound(to_text, "to", rule, end_of_day=True)
    if end <= start:
        raise InvalidCommand("empty_period", f"'to' ({to_text}) must come after 'from'", "to")
    return Period(start, end, from_text, to_text)


def _bound(text: str, field: str, rule: GamingDayRule, end_of_day: bool) -> datetime:
    text = text.strip()
    try:
        if len(text) == len("2026-11-21"):
            day = date.fromisoformat(text)
            return rule.start_of(day + timedelta(days=1) if end_of_day else day)
        instant = datetime.fromisoformat(text)
        if instant.tzinfo is None:
            instant = instant.replace(tzinfo=rule.zone)
        return instant.astimezone(UTC)
    except ValueError:
        raise InvalidCommand(
            "invalid_period",
            f"{field}: a gaming day (YYYY-MM-DD) or a date and time (ISO 8601), got {text!r}",
            field,
        ) from None
    except OverflowError:  # e.g. the day after 9999-12-31, or year 1 east of UTC
        raise InvalidCommand(
            "invalid_period", f"{field}: {text!r} is beyond the dates a report can cover", field
        ) from None
