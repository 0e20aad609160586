"""Settings read from the environment: the stream cache's size; the web worker count."""

from __future__ import annotations

import os

import pytest

from casino.config import DEFAULT_STREAM_CACHE_SIZE, Settings, default_web_workers


def test_the_stream_cache_size_defaults_and_can_be_set_or_turned_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CASINO_STREAM_CACHE_SIZE", raising=False)
    assert Settings.from_environment().stream_cache_size == DEFAULT_STREAM_CACHE_SIZE == 4096
    for text, size in (("100", 100), ("0", 0)):
        monkeypatch.setenv("CASINO_STREAM_CACHE_SIZE", text)
        assert Settings.from_environment().stream_cache_size == size


@pytest.mark.parametrize("text", ["-1", "ten", "1.5", "", "٣"])
def test_a_stream_cache_size_that_is_no_count_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    monkeypatch.setenv("CASINO_STREAM_CACHE_SIZE", text)
    with pytest.raises(ValueError, match="CASINO_STREAM_CACHE_SIZE"):
        Settings.from_environment()


@pytest.mark.parametrize(("cores", "workers"), [(None, 2), (1, 2), (2, 4), (3, 4), (64, 4)])
def test_two_web_workers_per_core_and_at_most_four(
    monkeypatch: pytest.MonkeyPatch, cores: int | None, workers: int
) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    assert default_web_workers() == workers
