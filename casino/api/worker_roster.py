"""How many connections each gunicorn worker holds, in memory its siblings share.

Made in the arbiter (when it loads the worker class), before it forks the workers: the
cells are an anonymous shared mapping, so every worker reads what every other one
writes. A worker takes a slot when it starts and gives it back when it stops; a slot
whose process has gone (killed, crashed) is taken again by the next worker to start,
and is never read as a sibling meanwhile. The counts are read without the lock: a
worker deciding whether to accept needs them about right, not exactly now.
"""

from __future__ import annotations

import multiprocessing
import os

SLOTS = 64  # workers beyond this many start without a slot: they accept as gthread does


class WorkerRoster:
    def __init__(self, slots: int = SLOTS) -> None:
        self._slots = slots
        self._claim_lock = multiprocessing.Lock()
        self._pids = multiprocessing.RawArray("q", slots)
        self._connections = multiprocessing.RawArray("q", slots)
        self._mine: int | None = None

    def join(self) -> bool:
        """Take a free slot for this process; False when every slot is taken."""
        pid = os.getpid()
        with self._claim_lock:
            for slot in range(self._slots):
                holder = self._pids[slot]
                if holder in (0, pid) or not _alive(holder):
                    self._connections[slot] = 0
                    self._pids[slot] = pid
                    self._mine = slot
                    return True
        return False

    def leave(self) -> None:
        """Give the slot back."""
        if self._mine is not None:
            self._pids[self._mine] = 0
            self._mine = None

    def publish(self, connections: int) -> None:
        if self._mine is not None:
            self._connections[self._mine] = connections

    def fewest_elsewhere(self) -> int | None:
        """The fewest connections a live sibling holds; None when there is none."""
        if self._mine is None:
            return None
        pid = os.getpid()
        fewest: int | None = None
        for slot in range(self._slots):
            holder = self._pids[slot]
            if holder in (0, pid) or not _alive(holder):
                continue
            held = self._connections[slot]
            if fewest is None or held < fewest:
                fewest = held
        return fewest


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
