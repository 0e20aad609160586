from __future__ import annotations

import pytest

from casino.domain.errors import InvalidCommand
from casino.webhooks.subscriptions import validate_event_types, validate_url
from casino.webhooks.transport import Response, retry_after


@pytest.mark.parametrize(
    "url",
    ["https://tables.example.com/hooks", "http://127.0.0.1:8080/x?table=T1", "HTTPS://A.B/"],
)
def test_http_and_https_urls_are_taken(url: str) -> None:
    assert validate_url(url) == url


@pytest.mark.parametrize(
    "url",
    [
        "",
        "ftp://example.com/",
        "example.com/hooks",
        "https://",
        "https://user:pw@example.com/",
        "https://example.com/#part",
        "https://example.com/a b",
        "https://example.com:99999/",
        "https://example.com/" + "x" * 2000,
        None,
        7,
    ],
)
def test_other_urls_are_refused_naming_the_field(url: object) -> None:
    with pytest.raises(InvalidCommand) as refused:
        validate_url(url)
    assert refused.value.field == "url"


def test_event_types_are_known_ones_deduplicated() -> None:
    assert validate_event_types(["RoundSettled", "WagerPlaced", "RoundSettled"]) == [
        "RoundSettled",
        "WagerPlaced",
    ]
    with pytest.raises(InvalidCommand) as refused:
        validate_event_types(["RoundSettled", "RoundExploded"])
    assert refused.value.field == "event_types[1]"


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after("120") == 120
    assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10
    assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412490.0) == 0
    assert retry_after("soon") is None
    assert retry_after(None) is None


def test_only_2xx_is_success() -> None:
    assert Response(200).ok and Response(204).ok
    assert not Response(301).ok and not Response(503).ok and not Response(None).ok
