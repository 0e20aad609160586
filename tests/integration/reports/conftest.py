"""Reports on a database of the test's own (tests/integration/app/conftest.py)."""

from __future__ import annotations

from tests.integration.app.conftest import fresh_casino

__all__ = ["fresh_casino"]
