"""What every command line of the project shares: the bad-input error and its one line."""

from __future__ import annotations

import sys


class InputError(ValueError):
    """Bad input: ``str()`` is ``"<file>: <cause>"``, the one line a command prints."""

    def __init__(self, path: str, cause: str):
        super().__init__(path, cause)
        self.path, self.cause = path, cause

    def __str__(self) -> str:
        return f"{self.path}: {self.cause}"


def fail(err: BaseException, out: str = "") -> int:
    """Print ``error: <file>: <cause>`` (or that ``out`` was interrupted) and return exit status 1."""
    message = f"{out or 'run'}: interrupted (no output was completed)" if isinstance(err, KeyboardInterrupt) else str(err)
    print(f"error: {message}", file=sys.stderr)
    return 1
