"""The beat schedule: what runs periodically, and how often (overridable by environment)."""

from __future__ import annotations

import os
from datetime import timedelta

RECONCILE_EVERY = timedelta(minutes=float(os.environ.get("CASINO_RECONCILE_MINUTES", "15")))
# A round still open after this long is reported by reconciliation.
STUCK_ROUND_MINUTES = float(os.environ.get("CASINO_STUCK_ROUND_MINUTES", "30"))
RNG_AUDIT_EVERY = timedelta(minutes=float(os.environ.get("CASINO_RNG_AUDIT_MINUTES", "60")))
WEBHOOK_FANOUT_EVERY = timedelta(
    seconds=float(os.environ.get("CASINO_WEBHOOK_FANOUT_SECONDS", "2"))
)
WEBHOOK_SEND_EVERY = timedelta(seconds=float(os.environ.get("CASINO_WEBHOOK_SEND_SECONDS", "2")))

# `expires` keeps beat from piling up runs while a slow one drains a backlog.
BEAT_SCHEDULE = {
    "reconcile": {
        "task": "workers.tasks.reconcile",
        "schedule": RECONCILE_EVERY,
        "kwargs": {"stuck_minutes": STUCK_ROUND_MINUTES},
    },
    "rng-audit": {"task": "workers.tasks.audit_rng", "schedule": RNG_AUDIT_EVERY},
    "webhooks-fanout": {
        "task": "workers.webhooks.fanout",
        "schedule": WEBHOOK_FANOUT_EVERY,
        "options": {"expires": WEBHOOK_FANOUT_EVERY.total_seconds()},
    },
    "webhooks-send": {
        "task": "workers.webhooks.send_due",
        "schedule": WEBHOOK_SEND_EVERY,
        "options": {"expires": WEBHOOK_SEND_EVERY.total_seconds()},
    },
}
