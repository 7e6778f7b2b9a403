"""The cache folder beside a set of vectors, and its entries: each written whole under a
temporary name and renamed, the most recent few of a kind kept. One home for the caches of
:mod:`repro.words.cachedranks` (idf ranks and lookup), :mod:`repro.spaces.cachedspace` (the mapped word space)
and :mod:`repro.spaces.tokenspace` (a token space's wordfreq counts)."""

from __future__ import annotations

import os
import tempfile

#: The environment variable that names another folder for every cache beside the vectors (this
#: module's, :mod:`repro.spaces.cachedspace`'s, the token spaces' wordfreq counts), or turns them off ("0").
ENV = "REPRO_MAP_CACHE"


def folder(vectors) -> str | None:
    """The cache folder of the vectors at ``vectors`` (a path, or None for in-memory vectors):
    ``<path>.mapped``, or ``$REPRO_MAP_CACHE``; None when there is none or it is off."""
    env = os.environ.get(ENV)
    if env is not None:
        return None if env.strip().lower() in ("", "0", "off", "no", "false") else env
    if vectors is None:
        return None
    return os.fspath(vectors).rstrip("/\\") + ".mapped"


def touch(path: str) -> None:
    """Mark an entry used (its time: :func:`write_entry` keeps the most recent)."""
    try:
        os.utime(path)
    except OSError:
        pass


def write_entry(path: str, save, prefix: str, keep: int) -> None:
    """Write an entry by ``save(file)`` under a unique temporary name in its folder, then rename
    it to ``path``; then keep the ``keep`` most recent entries of its kind (``prefix``). Any
    OSError (a folder not writable, a full disk) leaves no entry and is not an error."""
    tmp = None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-", suffix=os.path.splitext(path)[1])
        with os.fdopen(fd, "wb") as f:
            save(f)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would keep the entry from the vectors' other users
        os.replace(tmp, path)
        tmp = None
        _prune(os.path.dirname(path), prefix, keep)
    except OSError:
        pass
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.remove(tmp)


def _prune(where: str, prefix: str, keep: int) -> None:
    entries = []
    for name in os.listdir(where):
        if name.startswith(prefix) and name.endswith((".npy", ".npz")):
            try:
                entries.append((os.stat(os.path.join(where, name)).st_mtime_ns, name))
            except OSError:
                pass
    for _, name in sorted(entries, reverse=True)[keep:]:
        try:
            os.remove(os.path.join(where, name))
        except OSError:
            pass
