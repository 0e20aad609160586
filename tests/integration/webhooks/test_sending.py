from __future__ import annotations

import itertools
import socket
import threading
from collections.abc import Callable, Sequence

import pytest

from casino.eventstore.upcasting import UpcasterRegistry
from casino.webhooks.fanout import fanout
from casino.webhooks.policy import DeliveryPolicy
from casino.webhooks.queries import dead_letters, deliveries, lag
from casino.webhooks.replay import replay
from casino.webhooks.sender import Sender
from casino.webhooks.subscriptions import create_subscription
from tests.integration.webhooks.receiver import (
    Answer,
    Receiver,
    always,
    fail_first,
    refuse_positions,
)
from tests.integration.webhooks.scene import (
    Fresh,
    Pool,
    expected,
    log,
    play,
    scalar,
    versions_by_stream,
    wait_until,
)

pytestmark = pytest.mark.integration

Receivers = Callable[[Answer], Receiver]
FAST = DeliveryPolicy(backoff_base=0.02, backoff_cap=0.2, max_attempts=50, timeout=5, jitter=0)


def subscribe(pool: Pool, receiver: Receiver, event_types: Sequence[str] = ()) -> str:
    with pool.connection() as connection:
        made = create_subscription(connection, receiver.url, event_types, from_position=0)
        fanout(connection)
    receiver.secret = made["secret"]
    return str(made["id"])


def count(pool: Pool, subscription_id: str, status: str) -> int:
    sql = "SELECT count(*) FROM webhook_deliveries WHERE subscription_id = %s AND status = %s"
    return int(scalar(pool, sql, subscription_id, status))


def send_until_settled(
    pool: Pool, subscription_id: str, policy: DeliveryPolicy, senders: int = 1
) -> None:
    """Run ``senders`` concurrent senders until nothing of the subscription is pending."""
    stop = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        sender = Sender(policy)
        try:
            with pool.connection() as connection:
                while not stop.is_set():
                    sender.send_due(connection, max_seconds=1)
                    stop.wait(0.005)
        except BaseException as error:
            errors.append(error)
        finally:
            sender.close()

    threads = [threading.Thread(target=run) for _ in range(senders)]
    for thread in threads:
        thread.start()
    try:
        wait_until(lambda: bool(errors) or count(pool, subscription_id, "pending") == 0)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert errors == []


def test_a_flaky_receiver_gets_every_event_once_in_stream_order_signed(
    fresh_casino: Fresh, receiver: Receivers
) -> None:
    casino, pool = fresh_casino
    play(casino, rounds=3)
    flaky = receiver(fail_first(25))
    subscription = subscribe(pool, flaky)
    send_until_settled(pool, subscription, FAST, senders=3)  # senders race for deliveries
    want = expected(log(pool))
    assert flaky.forgeries == []
    assert len(flaky.accepted()) == len(want)  # none lost, none twice
    assert flaky.by_stream() == versions_by_stream(want)  # nor reordered within a stream
    assert count(pool, subscription, "delivered") == len(want)
    retried = [r for r in flaky.requests if not r.accepted]
    assert len(retried) == 25
    assert all(flaky.attempts_of(r.webhook_id)[-1].accepted for r in retried)


def test_retries_back_off_exponentially_then_the_delivery_is_dead(
    fresh_casino: Fresh, receiver: Receivers
) -> None:
    casino, pool = fresh_casino
    play(casino, ("T1",), rounds=1)
    down = receiver(always(503))
    subscription = subscribe(pool, down, event_types=["TableOpened"])
    policy = DeliveryPolicy(backoff_base=0.04, backoff_cap=0.25, max_attempts=6, jitter=0)
    send_until_settled(pool, subscription, policy)
    attempts = [r.at for r in down.requests]
    assert len(attempts) == 6
    gaps = [later - earlier for earlier, later in itertools.pairwise(attempts)]
    for failures, gap in enumerate(gaps, start=1):
        assert gap >= policy.delay(failures) - 0.005, gaps  # 0.04, 0.08, 0.16, 0.25, 0.25
    with pool.connection() as connection:
        dead = dead_letters(connection, subscription)["deliveries"]
    assert [(d["event_type"], d["attempts"], d["last_status_code"]) for d in dead] == [
        ("TableOpened", 6, 503)
    ]
    assert dead[0]["last_error"].startswith("HTTP 503") and dead[0]["next_attempt_at"] is None


def test_an_event_the_receiver_never_takes_goes_dead_and_its_stream_moves_on(
    fresh_casino: Fresh, receiver: Receivers
) -> None:
    casino, pool = fresh_casino
    play(casino, ("T1",), rounds=2)
    want = expected(log(pool))
    poisoned = next(e for e in want if e.stream_id.startswith("round-") and e.version == 2)
    picky = receiver(refuse_positions({poisoned.position}))
    subscription = subscribe(pool, picky)
    send_until_settled(pool, subscription, DeliveryPolicy(0.01, 0.05, max_attempts=3, jitter=0))
    assert len(picky.attempts_of(f"msg_{poisoned.position}")) == 3
    rest = [e for e in want if e.position != poisoned.position]
    assert picky.by_stream() == versions_by_stream(rest)
    last_refusal = picky.attempts_of(f"msg_{poisoned.position}")[-1].at
    later = [r for r in picky.accepted() if r.event["stream_id"] == poisoned.stream_id][1:]
    assert later and all(r.at > last_refusal for r in later)  # held back until it was dead
    with pool.connection() as connection:
        dead = dead_letters(connection)["deliveries"]
        status = lag(connection, subscription)
    assert [d["position"] for d in dead if d["subscription_id"] == subscription] == [
        poisoned.position
    ]
    assert (status["pending"], status["dead"], status["positions_behind"]) == (0, 1, 0)


def test_replay_from_a_position_delivers_those_events_again_in_order(
    fresh_casino: Fresh, receiver: Receivers
) -> None:
    casino, pool = fresh_casino
    play(casino, rounds=2)
    everything = expected(log(pool))
    sink = receiver(always(200))
    subscription = subscribe(pool, sink)
    send_until_settled(pool, subscription, FAST)
    first_pass = len(sink.accepted())
    middle = everything[len(everything) // 2].position
    with pool.connection() as connection:
        replayed = replay(connection, subscription, middle)
        fanout(connection)
    assert replayed["generation"] == 1
    send_until_settled(pool, subscription, FAST)
    again = sink.accepted()[first_pass:]
    assert [r.event["position"] for r in again] != []
    assert sorted(r.event["position"] for r in again) == [
        e.position for e in everything if e.position > middle
    ]
    assert {r.webhook_id for r in again} <= {r.webhook_id for r in sink.accepted()[:first_pass]}
    replayed_by_stream: dict[str, list[int]] = {}
    for r in again:
        replayed_by_stream.setdefault(r.event["stream_id"], []).append(r.event["version"])
    assert replayed_by_stream == versions_by_stream(e for e in everything if e.position > middle)
    with pool.connection() as connection:
        generations = connection.execute(
            "SELECT generation, count(*) FROM webhook_deliveries WHERE subscription_id = %s"
            " GROUP BY generation ORDER BY generation",
            (subscription,),
        ).fetchall()
    assert generations == [(0, len(everything)), (1, len(again))]


def test_a_receiver_that_never_answers_2xx_leaves_dead_letters_page_by_page(
    fresh_casino: Fresh, receiver: Receivers
) -> None:
    casino, pool = fresh_casino
    play(casino, ("T1",), rounds=1)
    broken = receiver(always(500))
    subscription = subscribe(pool, broken)
    send_until_settled(pool, subscription, DeliveryPolicy(0.01, 0.02, max_attempts=2, jitter=0))
    total = len(log(pool))
    with pool.connection() as connection:
        pages, after = [], 0
        while page := deliveries(connection, subscription, "dead", after, limit=7)["deliveries"]:
            pages.append(page)
            after = page[-1]["id"]
        status = lag(connection, subscription)
    assert sum(len(p) for p in pages) == total and len(pages) == -(-total // 7)
    assert {d["attempts"] for p in pages for d in p} == {2}
    assert (status["dead"], status["pending"]) == (total, 0)
    assert status["oldest_pending_position"] is None


def test_an_unreachable_receiver_is_recorded_as_no_answer(fresh_casino: Fresh) -> None:
    casino, pool = fresh_casino
    play(casino, ("T1",), rounds=1)
    with socket.socket() as closed:  # a port nothing listens on once closed
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with pool.connection() as connection:
        made = create_subscription(
            connection, f"http://127.0.0.1:{port}/", ["TableOpened"], from_position=0
        )
        fanout(connection)
    send_until_settled(pool, made["id"], DeliveryPolicy(0.01, 0.02, max_attempts=1))
    with pool.connection() as connection:
        (dead,) = dead_letters(connection, made["id"])["deliveries"]
    assert dead["last_status_code"] is None and "refused" in dead["last_error"].lower()


def test_events_are_sent_upcast_like_the_feed_and_a_failing_upcaster_is_recorded(
    fresh_casino: Fresh, receiver: Receivers
) -> None:
    casino, pool = fresh_casino
    play(casino, ("T1",), rounds=1)
    upcasters = UpcasterRegistry()
    upcasters.add("TableOpened", 1, lambda data: {**data, "dealer": "none"})
    upcasters.add("RoundSettled", 1, lambda data: {**data, "x": 1 // 0})
    sink = receiver(always(200))
    subscription = subscribe(pool, sink, ["TableOpened", "RoundSettled"])
    sender = Sender(DeliveryPolicy(0.01, 0.02, max_attempts=1), upcasters)
    with pool.connection() as connection:
        sender.send_due(connection)
        (dead,) = dead_letters(connection, subscription)["deliveries"]
    sender.close()
    (opened,) = [r.event for r in sink.accepted()]
    assert (opened["type"], opened["schema_version"], opened["data"]["dealer"]) == (
        "TableOpened",
        2,
        "none",
    )
    assert dead["event_type"] == "RoundSettled" and "ZeroDivisionError" in dead["last_error"]
