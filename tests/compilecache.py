"""One JAX compilation cache for a test session: every program the suite compiles, in the test
process and in the commands it starts (``make`` chains, ``python -m repro``), is compiled once and
loaded from a folder after that. A loaded program is the executable the compiler wrote (the key
holds the program, the compiler options and ``XLA_FLAGS``), so results keep every bit. The tests
that check two fresh compilations agree start their processes :func:`without` it."""

from __future__ import annotations

import os
import sys

#: JAX's settings of the persistent cache, read from the environment when JAX is imported:
#: the folder, and no threshold, so the small programs of the tests are kept too
SETTINGS = ("JAX_COMPILATION_CACHE_DIR", "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS",
            "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES")


def enable(folder: str, environ=os.environ) -> None:
    """Cache every compilation in ``folder``: this process (before it imports JAX) and its children."""
    if "jax" in sys.modules:
        raise RuntimeError("compilecache.enable: JAX is already imported, so its cache settings are read")
    environ.update(dict(zip(SETTINGS, (folder, "0", "0"))))


def without(environ=os.environ) -> dict[str, str]:
    """A copy of ``environ`` with no compilation cache: a child process that compiles everything itself."""
    return {k: v for k, v in environ.items() if k not in SETTINGS}
