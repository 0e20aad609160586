from __future__ import annotations

from casino.domain.events import EVENT_TYPES
from casino.webhooks.matching import KNOWN_EVENT_TYPES, EventFilter


def test_an_empty_filter_takes_everything_even_events_of_no_table() -> None:
    everything = EventFilter()
    assert everything.matches("RoundSettled", "T1")
    assert everything.matches("FundsDeposited", None)
    assert not everything.needs_tables


def test_event_types_filter_by_type() -> None:
    settled = EventFilter.of(["RoundSettled", "RoundVoided"], [])
    assert settled.matches("RoundVoided", "T1")
    assert settled.matches("RoundSettled", None)
    assert not settled.matches("WagerPlaced", "T1")


def test_tables_filter_by_table_and_drop_events_of_no_table() -> None:
    one_table = EventFilter.of([], ["T1"])
    assert one_table.needs_tables
    assert one_table.matches("WagerPlaced", "T1")
    assert not one_table.matches("WagerPlaced", "T2")
    assert not one_table.matches("FundsDeposited", None)


def test_both_filters_must_hold() -> None:
    both = EventFilter.of(["RoundSettled"], ["T1", "T2"])
    assert both.matches("RoundSettled", "T2")
    assert not both.matches("RoundSettled", "T3")
    assert not both.matches("WagerPlaced", "T1")


def test_every_domain_event_and_the_workers_findings_can_be_subscribed_to() -> None:
    assert set(EVENT_TYPES) < KNOWN_EVENT_TYPES
    assert "ReconciliationCompleted" in KNOWN_EVENT_TYPES
