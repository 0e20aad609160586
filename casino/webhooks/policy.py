"""How deliveries are retried: exponential backoff, a cap, a last attempt, a timeout.

The defaults retry for about a day (5 s, 10 s, 20 s, ... capped at 6 h, 16 attempts),
as the Standard Webhooks recommendations suggest; tests set them to fractions of a second
through the environment.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class DeliveryPolicy:
    backoff_base: float = 5.0  # seconds before the second attempt
    backoff_cap: float = 6 * 3600.0  # no wait is longer
    max_attempts: int = 16  # the last attempt; when it fails too, the delivery is dead
    timeout: float = 10.0  # per socket operation (connect, each read) of one attempt
    jitter: float = 0.1  # each wait is shortened by up to this fraction, at random
    concurrency: int = 8  # attempts in flight at once (each on its own stream)

    def __post_init__(self) -> None:
        if not self.backoff_base > 0 or self.backoff_cap < self.backoff_base:
            raise ValueError("backoff needs 0 < base <= cap")
        if self.max_attempts < 1 or self.concurrency < 1:
            raise ValueError("max_attempts and concurrency must be at least 1")
        if not self.timeout > 0 or not 0 <= self.jitter < 1:
            raise ValueError("timeout must be positive and jitter in [0, 1)")

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] = os.environ) -> DeliveryPolicy:
        default = cls()

        def number(name: str, value: float) -> float:
            return float(environ.get(f"CASINO_WEBHOOK_{name}", value))

        return cls(
            backoff_base=number("BACKOFF_SECONDS", default.backoff_base),
            backoff_cap=number("BACKOFF_CAP_SECONDS", default.backoff_cap),
            max_attempts=int(number("MAX_ATTEMPTS", default.max_attempts)),
            timeout=number("TIMEOUT_SECONDS", default.timeout),
            jitter=number("JITTER", default.jitter),
            concurrency=int(number("CONCURRENCY", default.concurrency)),
        )

    def is_last(self, attempts: int) -> bool:
        """Whether a delivery that has failed ``attempts`` times is now dead."""
        return attempts >= self.max_attempts

    def delay(
        self,
        attempts: int,
        retry_after: float | None = None,
        draw: Callable[[], float] = random.random,
    ) -> float:
        """Seconds to wait after the ``attempts``-th failed attempt: base * 2^(attempts-1),
        capped, less the jitter; at least what the receiver's ``Retry-After`` asked for
        (itself capped, so a receiver cannot park a delivery for ever)."""
        if attempts < 1:
            raise ValueError("attempts counts from 1")
        # The exponent is clamped: 2.0 ** 1100 overflows, and the cap wins long before.
        exponent = min(attempts - 1, 64)
        wait = min(self.backoff_cap, self.backoff_base * 2.0**exponent)
        wait *= 1 - self.jitter * draw()
        if retry_after is not None and retry_after > 0:
            wait = max(wait, min(retry_after, self.backoff_cap))
        return wait
