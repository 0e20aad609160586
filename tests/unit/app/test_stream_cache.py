"""The stream cache: each view of a stream, extended by appends, equals a read of the log."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from casino.app.stream_cache import (
    DISTRUSTED_READS,
    LAST,
    WHOLE,
    CachedStream,
    StreamCache,
    View,
    latest_view,
)
from casino.app.unit import Command
from casino.domain.events import DomainEvent, RoundStarted, ShoeStarted, TableOpened, encode
from casino.eventstore.memory import InMemoryEventStore
from casino.eventstore.model import NewEvent

TABLE = TableOpened("T1", "Table", "EUR", 7, 1, 1, 100, 1000, 100, 500, None)


def started(n: int) -> RoundStarted:
    return RoundStarted("T1", f"r{n}", n, "s1")


def shoe(n: int) -> ShoeStarted:
    return ShoeStarted("T1", f"s{n}", n)


def read_fresh(view: View, stream: list[DomainEvent]) -> CachedStream:
    """The entry a command makes of ``view`` when it reads the stream from a log."""
    store = InMemoryEventStore()
    if stream:
        store.append("s", 0, [NewEvent(e.TYPE, encode(e), e.SCHEMA_VERSION) for e in stream])
    cache = StreamCache()
    command = Command(store, "test", "read", datetime.now(UTC), cache, fresh=True)
    if view == WHOLE:
        command.load("s")
    else:
        command.load_latest(["s"], None if view == LAST else list(view))
    entry = cache.get("s", view)
    assert entry is not None and entry.version == len(stream)
    return entry


events = st.lists(
    st.one_of(
        st.just(TABLE), st.builds(started, st.integers(1, 99)), st.builds(shoe, st.integers(1, 9))
    ),
    max_size=12,
)
views = st.sampled_from([WHOLE, LAST, latest_view(["TableOpened", "ShoeStarted"])])


@given(events, events, views)
def test_an_entry_extended_by_appends_equals_a_fresh_read(
    before: list[DomainEvent], appended: list[DomainEvent], view: View
) -> None:
    assert read_fresh(view, before).extended(appended) == read_fresh(view, before + appended)


def test_latest_view_names_types_in_one_order() -> None:
    assert latest_view(["B", "A", "B"]) == ("A", "B") == latest_view(("A", "B"))
    assert latest_view(None) == LAST


def test_appends_extend_an_entry_only_from_the_head_it_was_built_on() -> None:
    cache = StreamCache()
    cache.put("t", read_fresh(WHOLE, [TABLE]))
    cache.appended("t", 1, [started(1)])
    assert cache.get("t", WHOLE) == read_fresh(WHOLE, [TABLE, started(1)])
    cache.appended("t", 5, [started(2)])  # built on a head the cache did not hold
    assert cache.get("t", WHOLE) is None
    cache.appended("new", 0, [TABLE])  # a new stream is known whole
    assert cache.get("new", WHOLE) == read_fresh(WHOLE, [TABLE])


def test_a_read_never_replaces_a_newer_entry_of_its_view() -> None:
    cache = StreamCache()
    newer = read_fresh(LAST, [TABLE, started(1)])
    cache.put("t", newer)
    cache.put("t", read_fresh(LAST, [TABLE]))
    assert cache.get("t", LAST) == newer
    assert cache.get("t", WHOLE) is None  # another view is not served from this one
    cache.put("t", read_fresh(WHOLE, [TABLE]))
    assert cache.get("t", WHOLE) == read_fresh(WHOLE, [TABLE])


def test_forgotten_streams_and_the_least_recently_used_beyond_the_size_are_gone() -> None:
    cache = StreamCache(size=2)
    for stream in ("a", "b"):
        cache.put(stream, read_fresh(WHOLE, [TABLE]))
    assert cache.get("a", WHOLE) is not None  # "b" is now the least recently used
    cache.put("c", read_fresh(WHOLE, [TABLE]))
    assert (cache.get("a", WHOLE) is not None, cache.get("b", WHOLE), len(cache)) == (
        True,
        None,
        2,
    )
    cache.forget(["a", "unknown"])
    assert cache.get("a", WHOLE) is None and len(cache) == 1
    disabled = StreamCache(size=0)
    disabled.put("a", read_fresh(WHOLE, [TABLE]))
    assert disabled.get("a", WHOLE) is None


def test_a_stream_found_stale_is_read_from_the_log_for_its_next_reads() -> None:
    cache = StreamCache()
    entry = read_fresh(WHOLE, [TABLE])
    cache.put("t", entry)
    cache.distrust(["t"])
    skipped = []
    for _ in range(DISTRUSTED_READS):
        cache.put("t", entry)  # as each of those reads of the log would
        skipped.append(cache.get("t", WHOLE))
    assert skipped == [None] * DISTRUSTED_READS
    assert cache.get("t", WHOLE) == entry


def test_a_stream_found_stale_again_and_again_is_read_from_the_log_longer_each_time() -> None:
    cache = StreamCache()
    entry = read_fresh(WHOLE, [TABLE])

    def reads_skipped() -> int:
        skipped = 0
        while True:
            cache.put("t", entry)
            if cache.get("t", WHOLE) is not None:
                return skipped
            skipped += 1

    lengths = []
    for _ in range(9):
        cache.distrust(["t"])
        lengths.append(reads_skipped())
    assert lengths == [8, 16, 32, 64, 128, 256, 512, 1024, 1024]
    cache.trusted(["t"])  # a decision on its cached state committed
    cache.distrust(["t"])
    assert reads_skipped() == DISTRUSTED_READS
