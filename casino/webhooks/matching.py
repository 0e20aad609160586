"""Which events a subscription receives: its event types and its tables.

An event belongs to a table when its data names the table (``table_id``), or names a
round or a shoe of that table (``round_id``, ``shoe_id``): so a table's subscriber also
gets its rounds' wagers and settlements, its shoes' deals and the players' stakes and
payouts of its rounds. Events of no table (deposits, withdrawals, reconciliations) go
only to subscriptions without a table filter. ``fanout`` finds each event's table in SQL.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from casino.domain.events import EVENT_TYPES

# The types a subscription may ask for: the domain's, and those the workers append
# (casino/reconcile/run.py). A worker that appends a new type adds it here.
WORKER_EVENT_TYPES = frozenset(
    {"DiscrepanciesFound", "ReconciliationCompleted", "RngAuditCompleted"}
)
KNOWN_EVENT_TYPES = frozenset(EVENT_TYPES) | WORKER_EVENT_TYPES


@dataclass(frozen=True)
class EventFilter:
    event_types: frozenset[str] = frozenset()  # empty: every type
    tables: frozenset[str] = frozenset()  # empty: every table, and events of none

    @classmethod
    def of(cls, event_types: Iterable[str], tables: Iterable[str]) -> EventFilter:
        return cls(frozenset(event_types), frozenset(tables))

    @property
    def needs_tables(self) -> bool:
        """Whether matching needs each event's table (a lookup worth skipping)."""
        return bool(self.tables)

    def matches(self, event_type: str, table_id: str | None) -> bool:
        if self.event_types and event_type not in self.event_types:
            return False
        return not self.tables or table_id in self.tables
