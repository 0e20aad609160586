"""How many connections each gunicorn worker holds, in memory its siblings share.

The roster is made in the arbiter (when it loads the worker class), before it forks any
worker: its cells are an anonymous shared mapping, so every worker reads what every
other one writes. The arbiter, which makes every worker object before forking it and
runs single-threaded, gives each a slot (``assign``): no lock, so nothing a killed
process could leave locked. A worker enters its slot once its application is loaded
and it is about to accept (``enter``), and leaves it when it stops, so siblings never
wait for one that cannot accept yet or any more. A slot counts only while its process
is a live child of the arbiter: a worker killed before it left, or its pid taken by an
unrelated process since, is never read as a sibling. Counts are read without a lock: a
worker deciding whether to accept needs them about right, not exactly now.
"""

from __future__ import annotations

import mmap
import os
from pathlib import Path
from typing import Protocol

SLOTS = 64  # workers beyond this many run without a slot: they accept as gthread does
_CELL = 8  # bytes of one signed 64-bit cell; a slot is two: pid, connections


class Worker(Protocol):
    pid: object  # gunicorn's arbiter sets the child's pid once it has forked it


class WorkerRoster:
    def __init__(self, slots: int = SLOTS) -> None:
        self._slots = slots
        self._cells = memoryview(mmap.mmap(-1, 2 * _CELL * slots)).cast("q")
        self._arbiter = os.getpid()
        self._given: dict[int, Worker] = {}  # in the arbiter: slot -> the worker given it
        self._mine: int | None = None  # in a worker: its slot, once entered

    def assign(self, worker: Worker) -> int | None:
        """In the arbiter, before forking ``worker``: a slot no live worker was given,
        emptied; None when every slot is held."""
        given: int | None = None
        for slot in range(self._slots):
            holder = self._given.get(slot)
            if holder is not None and self._is_worker(holder.pid):
                continue
            self._cells[2 * slot] = 0  # every slot of a worker gone is emptied: its pid
            self._given.pop(slot, None)  # could come back as another child's
            if given is None:
                given = slot
        if given is not None:
            self._given[given] = worker
            self._cells[2 * given + 1] = 0
        return given

    def enter(self, slot: int, connections: int) -> None:
        """In the worker, ready to accept: siblings count it from now on."""
        self._mine = slot
        self._cells[2 * slot + 1] = connections
        self._cells[2 * slot] = os.getpid()

    def leave(self) -> None:
        mine = self._mine
        if mine is not None:
            self._mine = None
            self._cells[2 * mine] = 0

    def publish(self, connections: int) -> None:
        mine = self._mine
        if mine is not None:
            self._cells[2 * mine + 1] = connections

    def fewest_elsewhere(self, below: int | None = None) -> int | None:
        """The fewest connections a sibling holds (of those holding fewer than
        ``below``); None when there is none, or this worker has no slot (and so
        accepts as gthread does)."""
        if self._mine is None:
            return None
        me = os.getpid()
        fewest = below
        for slot in range(self._slots):
            pid = self._cells[2 * slot]
            held = self._cells[2 * slot + 1]
            if pid in (0, me) or (fewest is not None and held >= fewest):
                continue
            if self._is_worker(pid):  # a file read: only for a slot that would count
                fewest = held
        return None if fewest == below else fewest

    def _is_worker(self, pid: object) -> bool:
        """Whether ``pid`` is a live (not yet dead) child of the arbiter."""
        if not isinstance(pid, int) or pid <= 0:
            return False  # a worker object never forked
        if not _PROC:  # existence is the best there is
            return _exists(pid)
        return live_parent(pid) == self._arbiter


_PROC = Path("/proc/self/stat").exists()  # Linux; elsewhere a pid is all there is


def live_parent(pid: int) -> int | None:
    """The parent of process ``pid`` while it lives (not a zombie); None once it has
    ended, or is ending (Linux: from ``/proc/<pid>/stat``)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:  # gone, or going
        return None
    # "pid (command) state ppid ...": the command may hold spaces and parentheses
    state, parent = stat[stat.rindex(b")") + 2 :].split(b" ", 2)[:2]
    return None if state in (b"Z", b"X") else int(parent)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Deferral:
    """When a worker that would rather leave waiting connections to a sibling stops
    leaving them: ``limit`` seconds after it first left one that is still waiting.

    Kept apart from the worker's loop so that its rules are tested alone: the time runs
    from the first connection left, however far apart the worker looks again (a worker
    whose own requests hold the interpreter may look every 50 ms), and once it has run
    out the worker takes every waiting connection, until it finds none waiting.
    """

    def __init__(self, limit: float) -> None:
        self._limit = limit
        self._since: float | None = None

    def leave_to_sibling(self, now: float) -> bool:
        """For a waiting connection a sibling with fewer should take: whether to leave
        it (True), or take it, since it or those before it have waited long enough."""
        if self._since is None:
            self._since = now
        return now - self._since < self._limit

    @property
    def running(self) -> bool:
        """Whether connections were left to a sibling since none were last waiting."""
        return self._since is not None

    def none_waiting(self) -> None:
        """The worker listened and no connection was waiting: the next starts afresh."""
        self._since = None
