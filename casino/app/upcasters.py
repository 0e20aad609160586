"""Upcasters of the domain's events: how an event written in an older schema is read.

When an event's data changes shape, its class's ``SCHEMA_VERSION`` goes up and an
upcaster from the previous version is registered here; the log is never rewritten.
"""

from __future__ import annotations

from casino.eventstore.upcasting import UpcasterRegistry

UPCASTERS = UpcasterRegistry()
