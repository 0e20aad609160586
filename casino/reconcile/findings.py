"""What a reconciliation check reports."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Finding:
    """One discrepancy: which check, about what, what was expected and what was found."""

    check: str
    subject: str
    expected: Any
    found: Any

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CheckResult:
    name: str
    examined: int  # events, rows, rounds or streams looked at
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings
