from __future__ import annotations

import pytest

from casino.webhooks.policy import DeliveryPolicy


def test_waits_double_from_the_base_up_to_the_cap() -> None:
    policy = DeliveryPolicy(backoff_base=5, backoff_cap=60, jitter=0)
    assert [policy.delay(n) for n in range(1, 8)] == [5, 10, 20, 40, 60, 60, 60]


def test_a_huge_attempt_count_is_capped_not_an_overflow() -> None:
    assert DeliveryPolicy(jitter=0).delay(5000) == DeliveryPolicy().backoff_cap


def test_jitter_only_shortens_a_wait_and_by_at_most_its_fraction() -> None:
    policy = DeliveryPolicy(backoff_base=8, backoff_cap=100, jitter=0.25)
    assert policy.delay(2, draw=lambda: 0.0) == 16
    assert policy.delay(2, draw=lambda: 0.999999) == pytest.approx(12, abs=1e-4)


def test_retry_after_lengthens_a_wait_but_never_beyond_the_cap() -> None:
    policy = DeliveryPolicy(backoff_base=1, backoff_cap=30, jitter=0)
    assert policy.delay(1, retry_after=7) == 7
    assert policy.delay(3, retry_after=2) == 4  # the backoff is longer
    assert policy.delay(1, retry_after=10_000) == 30


def test_the_last_attempt_is_max_attempts() -> None:
    policy = DeliveryPolicy(max_attempts=3)
    assert [policy.is_last(n) for n in (1, 2, 3, 4)] == [False, False, True, True]


def test_the_default_schedule_retries_for_about_a_day() -> None:
    policy = DeliveryPolicy(jitter=0)
    total = sum(policy.delay(n) for n in range(1, policy.max_attempts))
    assert 12 * 3600 < total < 3 * 24 * 3600


def test_settings_come_from_the_environment() -> None:
    policy = DeliveryPolicy.from_environment(
        {
            "CASINO_WEBHOOK_BACKOFF_SECONDS": "0.1",
            "CASINO_WEBHOOK_BACKOFF_CAP_SECONDS": "2",
            "CASINO_WEBHOOK_MAX_ATTEMPTS": "4",
            "CASINO_WEBHOOK_TIMEOUT_SECONDS": "1.5",
            "CASINO_WEBHOOK_JITTER": "0",
            "CASINO_WEBHOOK_CONCURRENCY": "3",
        }
    )
    assert policy == DeliveryPolicy(0.1, 2, 4, 1.5, 0, 3)
    assert DeliveryPolicy.from_environment({}) == DeliveryPolicy()


@pytest.mark.parametrize(
    "settings",
    [
        {"backoff_base": 0},
        {"backoff_base": 10, "backoff_cap": 5},
        {"max_attempts": 0},
        {"timeout": 0},
        {"jitter": 1},
        {"concurrency": 0},
    ],
)
def test_nonsense_settings_are_refused(settings: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        DeliveryPolicy(**settings)  # type: ignore[arg-type]


def test_attempts_count_from_one() -> None:
    with pytest.raises(ValueError):
        DeliveryPolicy().delay(0)
