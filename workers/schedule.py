"""The beat schedule: what runs periodically, and how often (overridable by environment)."""

from __future__ import annotations

import os
from datetime import timedelta

RECONCILE_EVERY = timedelta(minutes=float(os.environ.get("CASINO_RECONCILE_MINUTES", "15")))

BEAT_SCHEDULE = {
    "reconcile": {"task": "workers.tasks.reconcile", "schedule": RECONCILE_EVERY},
}
