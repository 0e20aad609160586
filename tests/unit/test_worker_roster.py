"""The shared count of connections per gunicorn worker (casino/api/worker_roster.py),
across real forked processes, as gunicorn's workers are."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from casino.api.worker_roster import WorkerRoster

FORK = multiprocessing.get_context("fork")


@contextmanager
def sibling(roster: WorkerRoster, then: Callable[[WorkerRoster], None]) -> Iterator[None]:
    """A forked process that joins ``roster``, does ``then``, and stays until the block
    ends; then it ends without leaving, as a killed worker would, unless ``then`` left."""
    ready, finish = FORK.Event(), FORK.Event()

    def live() -> None:
        assert roster.join()
        then(roster)
        ready.set()
        finish.wait(timeout=30)

    process = FORK.Process(target=live)
    process.start()
    try:
        assert ready.wait(timeout=30), "the sibling did not start"
        yield
    finally:
        finish.set()
        process.join(timeout=30)


def test_a_worker_reads_what_its_siblings_publish() -> None:
    roster = WorkerRoster(slots=4)
    assert roster.join()
    roster.publish(5)
    with sibling(roster, lambda it: it.publish(3)), sibling(roster, lambda it: it.publish(2)):
        assert roster.fewest_elsewhere() == 2
    roster.leave()


def test_a_sibling_that_left_or_whose_process_ended_is_not_read() -> None:
    roster = WorkerRoster(slots=4)
    assert roster.join()

    def publish_and_leave(it: WorkerRoster) -> None:
        it.publish(0)
        it.leave()

    with sibling(roster, publish_and_leave):
        assert roster.fewest_elsewhere() is None  # it left
    with sibling(roster, lambda it: it.publish(1)):
        assert roster.fewest_elsewhere() == 1
    assert roster.fewest_elsewhere() is None  # it ended still holding its slot


def test_the_slot_of_a_process_that_ended_is_taken_again() -> None:
    roster = WorkerRoster(slots=1)
    with sibling(roster, lambda it: it.publish(7)):
        assert not roster.join()  # every slot taken: this one goes without
        assert roster.fewest_elsewhere() is None  # and so reads no sibling
    assert roster.join()  # the sibling ended without leaving: its slot is free
