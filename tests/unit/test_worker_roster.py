"""The shared count of connections per gunicorn worker, and how long a worker leaves
connections to a sibling (casino/api/worker_roster.py). The roster is shared across real
forked processes, as gunicorn's workers are; this test process plays the arbiter."""

from __future__ import annotations

import multiprocessing
import os
import signal
from multiprocessing.connection import Connection
from typing import Any

import pytest
from gunicorn.config import Config

from casino.api.balanced_worker import BalancedThreadWorker
from casino.api.worker_roster import Deferral, WorkerRoster

FORK = multiprocessing.get_context("fork")


class WorkerObject:
    """What gunicorn's arbiter makes before forking: its ``pid`` is set after the fork."""

    pid: object = "[booting]"


def _obey(roster: WorkerRoster, slot: int | None, orders: Connection) -> None:
    strangers: list[Sibling] = []
    while True:
        order, *arguments = orders.recv()
        if order == "stop":
            for stranger in strangers:
                stranger.stop()
            return
        if order == "enter":
            assert slot is not None
            roster.enter(slot, arguments[0])
        elif order == "publish":
            roster.publish(arguments[0])
        elif order == "leave":
            roster.leave()
        elif order == "fewest":
            orders.send(roster.fewest_elsewhere(*arguments))
            continue
        elif order == "spawn":  # a child of this worker, in a slot of its own: no sibling
            strangers.append(Sibling(roster, arguments[0], connections=0))
            orders.send(strangers[-1].pid)
            continue
        orders.send("done")


class Sibling:
    """A forked process in the place of a gunicorn worker, doing as it is told."""

    def __init__(self, roster: WorkerRoster, slot: int | None, connections: int | None) -> None:
        self._orders, theirs = FORK.Pipe()
        self.process = FORK.Process(target=_obey, args=(roster, slot, theirs))
        self.process.start()
        self.pid = self.process.pid
        if connections is not None:  # entered at once, as a worker whose app has loaded
            self.tell("enter", connections)

    def tell(self, *order: Any) -> Any:
        self._orders.send(order)
        assert self._orders.poll(30), f"the sibling did not answer {order}"
        return self._orders.recv()

    def stop(self) -> None:
        if self.process.is_alive():
            self._orders.send(("stop",))
            self.process.join(timeout=10)
        if self.process.is_alive():
            self.kill()

    def kill(self) -> None:
        os.kill(self.process.pid or 0, signal.SIGKILL)
        self.process.join(timeout=30)


def spawn(roster: WorkerRoster, connections: int | None = 0) -> Sibling:
    """As the arbiter does: a slot for the worker object, then the fork."""
    worker = WorkerObject()
    slot = roster.assign(worker)
    sibling = Sibling(roster, slot, connections)
    worker.pid = sibling.pid
    return sibling


@pytest.fixture
def siblings() -> Any:
    made: list[Sibling] = []
    yield made
    for sibling in made:
        sibling.stop()


def test_each_worker_reads_the_fewest_connections_its_siblings_hold(
    siblings: list[Sibling],
) -> None:
    roster = WorkerRoster(slots=4)
    siblings += [spawn(roster, connections) for connections in (5, 3, 2)]
    assert [sibling.tell("fewest") for sibling in siblings] == [2, 2, 3]
    siblings[2].tell("publish", 7)
    assert [sibling.tell("fewest") for sibling in siblings] == [3, 5, 3]
    # only those holding fewer than a bound: what a worker holding that many asks
    assert [siblings[0].tell("fewest", below) for below in (8, 7, 4, 3)] == [3, 3, 3, None]


def test_a_worker_counts_only_from_when_it_enters_until_it_leaves(
    siblings: list[Sibling],
) -> None:
    roster = WorkerRoster(slots=4)
    siblings += [spawn(roster, connections=2), spawn(roster, connections=None)]
    busy, booting = siblings
    assert busy.tell("fewest") is None  # loading its app: it cannot accept yet
    booting.tell("enter", 0)
    assert busy.tell("fewest") == 0
    booting.tell("leave")  # stopping
    assert busy.tell("fewest") is None


def test_a_worker_killed_in_its_slot_is_not_read(siblings: list[Sibling]) -> None:
    roster = WorkerRoster(slots=4)
    siblings += [spawn(roster, connections=3), spawn(roster, connections=0)]
    siblings[1].kill()  # it never left its slot
    assert siblings[0].tell("fewest") is None


def test_a_live_process_that_is_no_sibling_is_not_read(siblings: list[Sibling]) -> None:
    """A killed worker's pid taken by another process: here a child of a worker (its
    parent is not the arbiter) in a slot of its own."""
    roster = WorkerRoster(slots=4)
    siblings += [spawn(roster, connections=3), spawn(roster, connections=3)]
    stranger_slot = roster.assign(WorkerObject())
    assert siblings[1].tell("spawn", stranger_slot) > 0  # alive, entered, with 0
    assert siblings[0].tell("fewest") == 3


def test_the_arbiter_gives_again_only_the_slot_of_a_worker_that_ended(
    siblings: list[Sibling],
) -> None:
    roster = WorkerRoster(slots=2)
    siblings += [spawn(roster, connections=4), spawn(roster, connections=1)]
    assert roster.assign(WorkerObject()) is None  # both slots live: run without one
    siblings[1].kill()
    replacement = spawn(roster, connections=None)  # booting, in the killed one's slot
    siblings.append(replacement)
    assert siblings[0].tell("fewest") is None  # the killed one's count went with it
    replacement.tell("enter", 0)
    assert siblings[0].tell("fewest") == 0


def test_without_a_slot_a_worker_reads_no_sibling(siblings: list[Sibling]) -> None:
    roster = WorkerRoster(slots=1)
    siblings.append(spawn(roster, connections=0))
    siblings.append(Sibling(roster, roster.assign(WorkerObject()), connections=None))
    assert siblings[1].tell("fewest") is None  # accepts as gunicorn's own worker does


def test_connections_are_left_to_a_sibling_for_the_limit_however_far_apart_the_looks() -> None:
    deferral = Deferral(0.25)  # times below are exact in binary
    assert not deferral.running
    assert deferral.leave_to_sibling(10.0)
    assert deferral.running
    assert deferral.leave_to_sibling(10.125)  # a worker busy with its own requests
    assert deferral.leave_to_sibling(10.2421875)
    assert not deferral.leave_to_sibling(10.25)  # the limit: take it
    assert not deferral.leave_to_sibling(10.2578125)  # and every one waiting behind it
    assert not deferral.leave_to_sibling(12.0)


def test_once_none_are_waiting_the_next_connection_starts_afresh() -> None:
    deferral = Deferral(0.25)
    assert deferral.leave_to_sibling(1.0)
    deferral.none_waiting()  # a sibling took it
    assert not deferral.running
    assert deferral.leave_to_sibling(5.0)
    assert deferral.leave_to_sibling(5.125)
    assert not deferral.leave_to_sibling(5.25)


@pytest.mark.parametrize(("reuse_port", "balanced"), [(False, True), (True, False)])
def test_with_a_socket_per_worker_no_worker_leaves_connections_to_another(
    reuse_port: bool, balanced: bool
) -> None:
    """With --reuse-port the kernel hands each worker its own connections: one left to
    a sibling would only wait. Such a worker takes no slot, and so accepts as gthread."""
    config = Config()
    config.set("reuse_port", reuse_port)
    worker = BalancedThreadWorker(1, os.getpid(), [], None, 30, config, None)
    assert (worker._slot is not None) is balanced
