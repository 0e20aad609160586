"""Background jobs, as the API sees them: submitted by task name to the Celery workers
on the Redis broker, without importing the workers' code."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from celery import Celery


class Jobs:
    def __init__(self, broker_url: str, queue: str) -> None:
        self.broker_url = broker_url
        self.queue = queue

    @cached_property
    def _client(self) -> Celery:
        # Connects lazily: the API starts (and keeps taking wagers) with Redis down.
        return Celery("casino-client", broker=self.broker_url, backend=self.broker_url)

    def submit(self, task: str, job_id: str, **arguments: Any) -> None:
        self._client.send_task(task, kwargs=arguments, task_id=job_id, queue=self.queue)

    def state(self, job_id: str) -> str:
        """PENDING (queued or unknown), STARTED, SUCCESS, FAILURE or RETRY."""
        return str(self._client.AsyncResult(job_id).state)
