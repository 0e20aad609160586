"""What the API tells of a queued job: its status from the workers' result backend."""

from __future__ import annotations

from casino.api.context import services

_STATES = {"PENDING": "queued", "RECEIVED": "queued", "STARTED": "running",
           "RETRY": "running", "FAILURE": "failed", "SUCCESS": "completed"}  # fmt: skip


def job_status(job_id: str) -> str | None:
    """queued, running, completed or failed; None for an id this service never gave."""
    state = _STATES.get(services().jobs.state(job_id), "queued")
    # Celery cannot tell a queued task from one it never heard of: job ids are uuid4
    # hex, so anything else is certainly unknown.
    well_formed = len(job_id) == 32 and all(c in "0123456789abcdef" for c in job_id)
    return state if well_formed or state != "queued" else None
