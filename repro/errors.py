"""The ground floor of every command: bad input as one line, and the one error path.

Bad input raises :class:`InputError` (a ``ValueError``) whose text is ``"<file>: <cause>"``.
:func:`run` is the only place that turns an error into output: every command of
``python -m repro`` (:mod:`repro.cli`), every data stage and every experiment script runs its
``main`` through it, so all of them print ``error: <file>: <cause>`` on one line and exit with
status 1, and none leaves a partial output (writers are atomic, :mod:`repro.io.store`).

This module imports nothing of the project, so any module may use it.
"""

from __future__ import annotations

import sys


class InputError(ValueError):
    """Bad input: ``str()`` is ``"<file>: <cause>"``, the one line a command prints."""

    def __init__(self, path: str, cause: str):
        super().__init__(path, cause)
        self.path, self.cause = path, cause

    def __str__(self) -> str:
        return f"{self.path}: {self.cause}"


def fail(err: BaseException) -> int:
    """Print ``error: <file>: <cause>`` (or that the run was interrupted) and return exit status 1."""
    message = "interrupted (no output was completed)" if isinstance(err, KeyboardInterrupt) else str(err)
    print(f"error: {message}", file=sys.stderr)
    return 1


def run(main, argv=None) -> int:
    """Run ``main(argv)``; bad input (``ValueError``, ``OSError``) or an interrupt becomes one
    line on stderr and exit status 1; a ``main`` that returns a status passes it through."""
    try:
        code = main(argv)
    except (ValueError, OSError, KeyboardInterrupt) as err:
        return fail(err)
    return int(code or 0)
