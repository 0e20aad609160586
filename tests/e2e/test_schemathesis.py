"""Property-based bad (and good) input drawn from the OpenAPI document itself.

A bounded schemathesis run (examples, coverage and fuzzing phases, positive and
negative data) over /openapi.json with an admin key, which may call everything: no
request may get a 5xx, and no answer may break what the document declares for it
(body schema, content type, status code).

schemathesis' own pytest integration cannot load a schema from a fixture under this
pytest, so its engine runs inside one test and every failure is reported together.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from schemathesis.engine import Status
from schemathesis.engine.events import FatalError, NonFatalError, ScenarioFinished

from tests.e2e.client import Keys, Server

pytestmark = pytest.mark.e2e

MAX_EXAMPLES = 50  # per operation and phase: keeps the run within about a minute
CHECKS = (
    "not_a_server_error",
    "response_schema_conformance",
    "content_type_conformance",
    "status_code_conformance",
)


def _config(admin_key: str) -> Any:
    return schemathesis.Config.from_dict({
        "seed": 20240601,  # the same cases on every run, so a failure can be replayed
        "cache": {"enabled": False},  # no state carried between runs (nor files left behind)
        "headers": {"Authorization": f"Bearer {admin_key}"},
        "generation": {"max-examples": MAX_EXAMPLES},
        "phases": {"stateful": {"enabled": False}},
        "checks": {"enabled": False, **{name: {"enabled": True} for name in CHECKS}},
    })  # fmt: skip


def _failures(event: Any) -> list[str]:
    if isinstance(event, NonFatalError):
        return [f"{event.label}: {event.info.format()}"]
    if isinstance(event, FatalError):
        return [f"the engine failed: {event.exception!r}"]
    if not isinstance(event, ScenarioFinished) or event.status is not Status.FAILURE:
        return []
    recorder = event.recorder
    found = []
    for checks in recorder.checks.values():
        for check in checks:
            if check.status is Status.FAILURE and check.failure_info is not None:
                failure = check.failure_info.failure
                found.append(
                    f"{recorder.label} [{check.name}] {failure.title}: {failure.message}\n"
                    f"    {check.failure_info.code_sample}"
                )
    return found


def test_the_api_keeps_its_documented_promises(server: Server, keys: Keys) -> None:
    schema = schemathesis.openapi.from_url(
        f"{server.base_url}/openapi.json", config=_config(keys.admin)
    )
    failures: list[str] = []
    scenarios = 0
    for event in schemathesis.engine.from_schema(schema).execute():
        scenarios += isinstance(event, ScenarioFinished)
        failures += _failures(event)
    assert scenarios > 0
    assert not failures, "\n".join(failures)
