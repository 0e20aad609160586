"""An argument parser whose usage errors are one line and exit with status 2."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

USAGE_ERROR = 2


class UsageError(Exception):
    """Bad input on the command line: reported in one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        fail(f"{self.prog}: {message}")


def fail(message: str) -> NoReturn:
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(USAGE_ERROR)
