"""Settings, read from the environment once, at start-up (never at import)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from casino.domain.gaming_day import GamingDayRule

# Gaming days start at 06:00 casino time unless configured otherwise.
DEFAULT_GAMING_DAY_START = 6
# Enough for the tables, rounds, shoes and players of a busy floor per process.
DEFAULT_STREAM_CACHE_SIZE = 4096


@dataclass(frozen=True)
class Settings:
    database_url: str | None  # None: the embedded Postgres in data_dir
    redis_url: str | None  # None: the embedded Redis in data_dir
    data_dir: Path
    pool_size: int
    task_queue: str  # the Celery queue the workers consume and the API submits to
    gaming_day: GamingDayRule = field(
        default_factory=lambda: GamingDayRule(DEFAULT_GAMING_DAY_START, "UTC")
    )
    # Test suites: check every command answer against its documented schema (they are
    # sent as they are, not dumped through marshmallow; see casino/api/idempotency.py).
    check_answers: bool = False
    # Streams each process keeps decoded between commands (casino/app/stream_cache.py);
    # 0 reads every stream from the log for every command.
    stream_cache_size: int = DEFAULT_STREAM_CACHE_SIZE

    @classmethod
    def from_environment(cls) -> Settings:
        return cls(
            database_url=os.environ.get("DATABASE_URL") or None,
            redis_url=os.environ.get("REDIS_URL") or None,
            data_dir=Path(os.environ.get("CASINO_DATA_DIR", "var")).expanduser().resolve(),
            pool_size=int(os.environ.get("CASINO_DB_POOL_SIZE", "10")),
            task_queue=os.environ.get("CASINO_TASK_QUEUE", "casino"),
            gaming_day=_gaming_day_from_environment(),
            check_answers=os.environ.get("CASINO_CHECK_ANSWERS") == "1",
            stream_cache_size=_count_from_environment(
                "CASINO_STREAM_CACHE_SIZE", DEFAULT_STREAM_CACHE_SIZE
            ),
        )


def _count_from_environment(name: str, default: int) -> int:
    text = os.environ.get(name, str(default))
    if not text.isascii() or not text.isdigit():
        raise ValueError(f"{name}: a whole number 0 or more, not {text!r}")
    return int(text)


def _gaming_day_from_environment() -> GamingDayRule:
    hour = os.environ.get("CASINO_GAMING_DAY_START_HOUR", str(DEFAULT_GAMING_DAY_START))
    zone = os.environ.get("CASINO_GAMING_DAY_TIME_ZONE", "UTC")
    if not hour.isascii() or not hour.isdigit():
        raise ValueError(f"CASINO_GAMING_DAY_START_HOUR: an hour 0-23, not {hour!r}")
    try:
        return GamingDayRule(int(hour), zone)
    except ValueError as error:
        raise ValueError(f"CASINO_GAMING_DAY_*: {error}") from None


def default_web_workers() -> int:
    """gunicorn workers (two threads each): two per core, so that a table system's
    connection has a worker (and its interpreter lock) to itself while there are few
    (casino/api/balanced_worker.py); at most 4, since each keeps a pool of ``pool_size``
    connections and a Postgres allows 100 by default."""
    return min(2 * (os.cpu_count() or 1), 4)
