"""One JAX compilation cache for a test session: every program the suite compiles, in the test
process and in the commands it starts (``make`` chains, ``python -m repro``), is compiled once and
loaded from a folder after that; under ``make test`` the folder is kept for the next run
(:data:`KEEP`), one per machine. A loaded program is the executable the compiler wrote (the key
holds the program, the compiler options and ``XLA_FLAGS``; the folder, the CPU), so results keep
every bit. The tests that check two fresh compilations agree start their processes :func:`without` it."""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile

from repro import pins

#: JAX's settings of the persistent cache, read from the environment when JAX is imported:
#: the folder, and no threshold, so the small programs of the tests are kept too
SETTINGS = ("JAX_COMPILATION_CACHE_DIR", "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS",
            "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES")


#: ``make test``'s folder that keeps the compiled programs from one run of the suite to the next
#: (the Makefile's ``TEST_CACHE``): a rerun loads what an earlier run compiled. Unset, every run
#: compiles into a temporary folder of its own (as a fresh clone's first run does anyway).
KEEP = "REPRO_TEST_JAX_CACHE"

#: The most a kept folder holds. Past it, the programs written longest ago go first, down to half
#: of it: a change to the core leaves its old programs behind (one run writes about 30 MB).
LIMIT_BYTES = 1 << 30


def machine(info: dict | None = None) -> str:
    """The name of this machine's folder in a kept cache: its CPU (vendor, family, model) and a
    digest of its features. JAX's key of a program does not hold the CPU XLA compiled it for, so a
    kept folder on a disk that several machines share keeps each machine's programs apart."""
    info = pins.cpu_info() if info is None else info
    features = hashlib.sha256(" ".join(sorted(info.get("flags", ()))).encode()).hexdigest()[:12]
    return "-".join(str(info.get(k) or "unknown") for k in ("vendor", "family", "model")) + "-" + features


def session_folder(environ=os.environ) -> tuple[str, bool]:
    """The folder of this run's cache and whether it is kept after the run: this machine's folder
    (:func:`machine`) in the one named by :data:`KEEP` (made if missing, then :func:`prune`-d),
    else a new temporary one."""
    kept = environ.get(KEEP)
    if kept:
        kept = os.path.join(kept, machine())
        os.makedirs(kept, exist_ok=True)
        prune(kept)
        return kept, True
    return tempfile.mkdtemp(prefix="repro-jax-cache-"), False


def prune(folder: str, limit: int = LIMIT_BYTES) -> list[str]:
    """Delete the oldest entries of ``folder`` (by modification time, then name) while it holds more
    than ``limit`` bytes, until it holds at most half of it; the names deleted, oldest first."""
    entries = []
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            st = os.stat(path)
            entries.append((st.st_mtime_ns, name, st.st_size))
    total = sum(e[2] for e in entries)
    if total <= limit:
        return []
    gone = []
    for _, name, size in sorted(entries):
        if total <= limit // 2:
            break
        os.remove(os.path.join(folder, name))
        total -= size
        gone.append(name)
    return gone


def enable(folder: str, environ=os.environ) -> None:
    """Cache every compilation in ``folder``: this process (before it imports JAX) and its children."""
    if "jax" in sys.modules:
        raise RuntimeError("compilecache.enable: JAX is already imported, so its cache settings are read")
    environ.update(dict(zip(SETTINGS, (folder, "0", "0"))))


def without(environ=os.environ) -> dict[str, str]:
    """A copy of ``environ`` with no compilation cache: a child process that compiles everything itself."""
    return {k: v for k, v in environ.items() if k not in SETTINGS}
