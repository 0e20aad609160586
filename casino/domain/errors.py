"""Domain errors: each has a stable code, a message, and the field it is about."""

from __future__ import annotations

from enum import StrEnum


class ErrorKind(StrEnum):
    INVALID = "invalid"  # the command itself is malformed or out of range
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"  # the command is valid but the state does not allow it now
    FORBIDDEN = "forbidden"


class DomainError(Exception):
    kind: ErrorKind = ErrorKind.CONFLICT

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field


class InvalidCommand(DomainError):
    kind = ErrorKind.INVALID


class NotFound(DomainError):
    kind = ErrorKind.NOT_FOUND


class RuleViolation(DomainError):
    kind = ErrorKind.CONFLICT


class Forbidden(DomainError):
    kind = ErrorKind.FORBIDDEN
