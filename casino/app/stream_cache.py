"""The state of recently used streams, kept between one process's commands.

A command reads the streams it decides on: a table, its round, the round's shoe, the
players' accounts. Reading them again for every command cost a fifth of a round's work,
and the process wrote most of what it would read. So each stream's decoded events are
kept here, as read or as this process committed them, and a command takes a stream from
here instead of the log when it is here.

Nothing here has to be current. A (stream, version) pair names one event forever, so an
entry is at worst old: another process may have appended since. Every stream a command
decides on is checked at its commit, under the append lock, against the version it was
decided at (appended streams by their appends, streams only read by
``UnitOfWork.expect``): a decision taken on old state is refused as a whole, and the
command forgets its streams here and is decided again on the log's state
(``Casino._execute``). A stream whose version the client pins (If-Match) is always read
from the log (``casino.app.unit``).

The check is by version, not by hash, for a stream only read: a log restored from a
backup to an earlier point while the service ran on would need the service restarted,
as for any cache.

Each entry holds one view of its stream: all its events (``Command.load``), its last
event (``Command.load_latest`` without types), or its latest event of each of some types.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from casino.domain.events import DomainEvent

WHOLE = "whole"  # every event of the stream
LAST = "last"  # the stream's last event
View = str | tuple[str, ...]  # WHOLE, LAST, or the (sorted) types whose latest are kept


def latest_view(types: Sequence[str] | None) -> View:
    """The view ``Command.load_latest`` reads for ``types``."""
    return LAST if types is None else tuple(sorted(set(types)))


@dataclass(frozen=True, slots=True)
class CachedStream:
    """A stream at ``version``: the events of ``view``, as (version, event), in order."""

    view: View
    version: int
    events: tuple[tuple[int, DomainEvent], ...]

    def extended(self, new: Sequence[DomainEvent]) -> CachedStream:
        """This view after ``new`` were appended at the head."""
        numbered = [(self.version + offset, event) for offset, event in enumerate(new, 1)]
        version = self.version + len(new)
        if self.view == WHOLE:
            return CachedStream(WHOLE, version, (*self.events, *numbered))
        if self.view == LAST:
            return CachedStream(LAST, version, tuple(numbered[-1:]) or self.events)
        latest = {event.TYPE: (v, event) for v, event in (*self.events, *numbered)}
        kept = sorted((pair for t, pair in latest.items() if t in self.view), key=_version)
        return CachedStream(self.view, version, tuple(kept))


def _version(pair: tuple[int, DomainEvent]) -> int:
    return pair[0]


# How many reads of a stream that was found stale skip the cache. Where another process
# writes a stream too (requests of one table spread over processes without affinity),
# its entry here is mostly old: a decision on it is refused and taken again, which costs
# more than a read of the log. So such a stream is read from the log for a while: 8
# reads the first time, twice as many each time it is found stale again (up to 1024),
# until a decision taken on its cached state commits.
DISTRUSTED_READS = 8
MOST_DISTRUSTED_READS = 1024


class StreamCache:
    """Bounded and thread-safe; the least recently used stream is forgotten first."""

    def __init__(self, size: int = 4096) -> None:
        if size < 0:
            raise ValueError("a cache holds zero or more streams")
        self._size = size
        self._streams: OrderedDict[str, CachedStream] = OrderedDict()
        self._distrusted: OrderedDict[str, int] = OrderedDict()  # stream: reads to skip
        self._strikes: OrderedDict[str, int] = OrderedDict()  # stream: times found stale
        self._lock = threading.Lock()

    def get(self, stream_id: str, view: View) -> CachedStream | None:
        """The stream's entry, when one of this view is kept (and the stream is trusted)."""
        with self._lock:
            skips = self._distrusted.get(stream_id)
            if skips is not None:
                if skips <= 1:
                    del self._distrusted[stream_id]
                else:
                    self._distrusted[stream_id] = skips - 1
                return None
            entry = self._streams.get(stream_id)
            if entry is None or entry.view != view:
                return None
            self._streams.move_to_end(stream_id)
            return entry

    def put(self, stream_id: str, entry: CachedStream) -> None:
        """Keep ``entry`` (read from the log), unless a newer one of its view is kept."""
        with self._lock:
            known = self._streams.get(stream_id)
            if known is not None and known.view == entry.view and known.version > entry.version:
                return
            self._keep(stream_id, entry)

    def appended(self, stream_id: str, before: int, new: Sequence[DomainEvent]) -> None:
        """``new`` were committed to ``stream_id`` at version ``before``: extend its entry
        if it was at that version, else forget it (it was not the head we built on)."""
        with self._lock:
            known = self._streams.get(stream_id)
            if known is not None and known.version == before:
                self._keep(stream_id, known.extended(new))
            elif before == 0:  # a new stream: all of it is known
                self._keep(stream_id, CachedStream(WHOLE, 0, ()).extended(new))
            else:
                self._streams.pop(stream_id, None)

    def forget(self, stream_ids: Iterable[str]) -> None:
        with self._lock:
            for stream_id in stream_ids:
                self._streams.pop(stream_id, None)

    def distrust(self, stream_ids: Iterable[str]) -> None:
        """Forget streams found stale, and skip the cache for their next reads."""
        with self._lock:
            for stream_id in stream_ids:
                self._streams.pop(stream_id, None)
                strikes = self._strikes.pop(stream_id, 0) + 1
                self._strikes[stream_id] = strikes
                skips = DISTRUSTED_READS << min(strikes - 1, 20)
                self._distrusted[stream_id] = min(skips, MOST_DISTRUSTED_READS)
                self._distrusted.move_to_end(stream_id)
            for kept in (self._distrusted, self._strikes):
                while len(kept) > self._size:
                    kept.popitem(last=False)

    def trusted(self, stream_ids: Iterable[str]) -> None:
        """Streams whose cached state a committed decision rested on: current after all."""
        with self._lock:
            for stream_id in stream_ids:
                self._strikes.pop(stream_id, None)

    def __len__(self) -> int:
        return len(self._streams)

    @property
    def size(self) -> int:
        """How many streams it keeps at most."""
        return self._size

    def _keep(self, stream_id: str, entry: CachedStream) -> None:
        self._streams[stream_id] = entry
        self._streams.move_to_end(stream_id)
        while len(self._streams) > self._size:
            self._streams.popitem(last=False)
