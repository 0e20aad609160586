"""Who issues a command: the role of the API key and its name, recorded in metadata."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Role(StrEnum):
    ADMIN = "admin"
    TABLE = "table"
    AUDITOR = "auditor"


@dataclass(frozen=True)
class Actor:
    role: Role
    name: str
    tables: frozenset[str] = field(default_factory=frozenset)  # for table keys: their scope

    @property
    def label(self) -> str:
        return f"{self.role.value}:{self.name}"

    def may_operate(self, table_id: str) -> bool:
        return self.role is Role.ADMIN or (self.role is Role.TABLE and table_id in self.tables)
