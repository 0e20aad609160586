"""Settings, read from the environment once, at start-up (never at import)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    database_url: str | None  # None: the embedded Postgres in data_dir
    redis_url: str | None  # None: the embedded Redis in data_dir
    data_dir: Path
    pool_size: int
    task_queue: str  # the Celery queue the workers consume and the API submits to

    @classmethod
    def from_environment(cls) -> Settings:
        return cls(
            database_url=os.environ.get("DATABASE_URL") or None,
            redis_url=os.environ.get("REDIS_URL") or None,
            data_dir=Path(os.environ.get("CASINO_DATA_DIR", "var")).expanduser().resolve(),
            pool_size=int(os.environ.get("CASINO_DB_POOL_SIZE", "10")),
            task_queue=os.environ.get("CASINO_TASK_QUEUE", "casino"),
        )
