"""One HTTP POST of a delivery, with the standard library (no client to install).

Only a 2xx is a success. Redirects are not followed (a 3xx is a failure, as the Standard
Webhooks convention advises: the subscriber should fix its URL), so a signed request is
never re-sent somewhere the subscriber did not name.
"""

from __future__ import annotations

import email.utils
import http.client
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

ERROR_TEXT_LIMIT = 500  # characters of a failure kept in last_error


@dataclass(frozen=True)
class Response:
    status: int | None  # None: no HTTP answer at all (refused, timed out, reset)
    error: str | None = None
    retry_after: float | None = None  # seconds, when the receiver asked for a pause

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


Post = Callable[[str, bytes, Mapping[str, str], float], Response]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # the 3xx surfaces as an HTTPError


_OPENER = urllib.request.build_opener(_NoRedirect)


def post(url: str, payload: bytes, headers: Mapping[str, str], timeout: float) -> Response:
    request = urllib.request.Request(url, data=payload, headers=dict(headers), method="POST")
    try:
        with _OPENER.open(request, timeout=timeout) as answer:
            status = int(answer.status)
            if 200 <= status < 300:
                return Response(status)
            return Response(status, _describe(status, answer.read(ERROR_TEXT_LIMIT)))
    except urllib.error.HTTPError as error:
        try:
            text = _describe(error.code, error.read(ERROR_TEXT_LIMIT))
        finally:
            error.close()
        return Response(error.code, text, retry_after(error.headers.get("Retry-After")))
    except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
        reason = getattr(error, "reason", error)
        return Response(None, f"{type(error).__name__}: {reason}"[:ERROR_TEXT_LIMIT])


def _describe(status: int, content: bytes) -> str:
    return f"HTTP {status}: {content.decode('utf-8', 'replace')}"[:ERROR_TEXT_LIMIT]


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds from a ``Retry-After`` header: delay-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))
