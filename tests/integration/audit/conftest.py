"""The application fixtures (a casino on a database of the test's own)."""

from tests.integration.app.conftest import fresh_casino

__all__ = ["fresh_casino"]
