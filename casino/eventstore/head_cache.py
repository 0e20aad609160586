"""The last known head (version, hash) of each stream, for chaining the next append.

Nothing here is ever invalidated for correctness: in an append-only log a (stream,
version) pair names one event forever, so an entry can be old but never wrong. The
database checks every head it is given under the append lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict


class HeadCache:
    """Bounded, thread-safe, least recently used entries evicted first."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._heads: OrderedDict[str, tuple[int, str]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, stream_id: str) -> tuple[int, str] | None:
        with self._lock:
            head = self._heads.get(stream_id)
            if head is not None:
                self._heads.move_to_end(stream_id)
            return head

    def put(self, stream_id: str, version: int, digest: str) -> None:
        """Remember a committed head; an older one never replaces a newer one."""
        with self._lock:
            known = self._heads.get(stream_id)
            if known is None or known[0] <= version:
                self._heads[stream_id] = (version, digest)
                self._heads.move_to_end(stream_id)
            while len(self._heads) > self._size:
                self._heads.popitem(last=False)

    def discard(self, stream_id: str) -> None:
        with self._lock:
            self._heads.pop(stream_id, None)
