"""The encoder's mapped word space, computed on one BLAS thread and cached beside the vectors
(issue 35, item 2; the map itself is not in the paper: :mod:`repro.spaces.wordmap`).

An encoder with a word map (the shipped default: Zipfian whitening) maps every word vector
once: p(w)-weighted moments of the whole table, O(V d^2) (:func:`repro.spaces.transforms.weighted_moments`),
then the product of every row with the map (:func:`repro.spaces.transforms.apply`). A command-line call
builds its encoder afresh, so every ``repro encode`` or ``repro similarity`` used to redo both.
Here they are done once per vectors, frequencies and options, and kept:

* **Where.** Beside the vectors: ``<vectors path>.mapped/`` (for ``glove300/``, the folder
  ``glove300.mapped/``), or the folder named by the environment variable ``REPRO_MAP_CACHE``;
  ``REPRO_MAP_CACHE=0`` turns the cache off. An installed source named (``wordllama``, kumo GloVe)
  caches beside its installed files (:func:`repro.spaces.vectors.home`), never in the working folder.
  In-memory vectors are never cached. A folder that
  cannot be written only means no cache.
* **Key.** Content, not file names or times: the SHA-256 of the unmapped table exactly as the
  encoder holds it (rank order, unit length, float32: so the vectors, their normalisation and the
  df source's idf order are all in it), of the word counts p(w) comes from, of the options
  (``word_weights``, ``whiten``, uSIF's length), of this module's :data:`VERSION` and of what the
  floats depend on (NumPy's version and CPU-feature pins, the BLAS library and its kernel). Other
  vectors or frequencies give another key, so a stale entry is never read.
* **Entries.** ``map-<key>.npz``: the map (shift, matrix, scale; small). ``table-<key>.npy``: the
  mapped table, (V + 1) x k float32, read back memory-mapped (a call that encodes two texts
  pages in only their rows). Each is written under a unique temporary name and renamed, so a
  reader sees a whole entry or none, also with two processes at once. An entry used is touched;
  past :data:`KEEP` tables (and maps) the least recently used are removed.
* **Bits.** A cached entry holds exactly the bits the computation gives (tests/test_mapcache.py).

**BLAS threads.** Both products run on :data:`THREADS` BLAS thread (threadpoolctl), cached or
not. The moments are a product whose inner dimension is the vocabulary (d x 65,536 by 65,536 x d
per block, and a 65,536-long matrix-vector product for the mean): OpenBLAS splits such a product
into many small steps and makes its threads meet after each, so on a 2-core machine that other
processes also use, every meeting waits for a thread that is not running. Measured on the
project's 2-core box under load (d = 50, 400,000 rows): the moments 0.34-0.54 s on one thread,
1.9-2.2 s on two; one 65,536 x 50 block product 0.02 s against a median 1.36 s; at d = 300
(100,000 rows) 1.9-2.2 s against 6.1-6.8 s. One thread also makes the map's last bits the same on
every machine with the same BLAS kernel: with two threads the mean's sum is split differently.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import weakref
import zipfile

import numpy as np

from repro.spaces import transforms, wordmap
from repro.io.cachefolder import folder, touch, write_entry
from repro.spaces.transforms import Transform

#: The format of the entries; a change of what they hold, or of how they are computed, bumps it.
VERSION = 1
#: Tables (and maps) kept in one cache folder, the most recently used.
KEEP = 4
#: BLAS threads of the map's products (the module docstring says why one).
THREADS = 1
_PARTS = ("shift", "matrix", "scale")


@contextlib.contextmanager
def blas_threads(n: int = THREADS):
    """BLAS limited to ``n`` threads inside the block (threadpoolctl)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=n, user_api="blas"):
        yield


def _platform() -> bytes:
    """What the floats of a map depend on besides its inputs: NumPy, its CPU pins, the BLAS."""
    from threadpoolctl import threadpool_info

    blas = sorted(f"{i.get('internal_api')} {i.get('version')} {i.get('architecture')}"
                  for i in threadpool_info() if i.get("user_api") == "blas")
    return repr((VERSION, THREADS, np.__version__, os.environ.get("NPY_DISABLE_CPU_FEATURES"),
                 os.environ.get("OPENBLAS_CORETYPE"), blas)).encode()


def _hash_array(h, a) -> None:
    a = np.ascontiguousarray(a)
    h.update(repr((a.dtype.str, a.shape)).encode())
    h.update(memoryview(a).cast("B"))


class Space:
    """The cache of one encoder's mapped space: its folder (None: compute, never cache) and the
    digest of its unmapped table, computed once, when a map first needs it."""

    def __init__(self, vectors):
        self.folder = folder(vectors)
        self._base = lambda: None  # a weak reference to the table the digest is of (not kept alive)
        self._digest = b""

    def _key(self, base: np.ndarray, what: str, *parts) -> str:
        if self._base() is not base:
            h = hashlib.sha256(_platform())
            _hash_array(h, base)
            self._base, self._digest = weakref.ref(base), h.digest()
        h = hashlib.sha256(self._digest + what.encode())
        for p in parts:
            if isinstance(p, np.ndarray):
                _hash_array(h, p)
            else:
                h.update(repr(p).encode())
        return h.hexdigest()

    def fit_map(self, base: np.ndarray, counts, recipe: wordmap.WordMap, usif_length, texts=None,
                cache: bool = True) -> Transform:
        """:func:`repro.spaces.wordmap.word_map` of ``recipe`` for the unmapped (V + 1, d) ``base`` (its
        last row the zero row, left out), its (V,) ``counts`` (None where the map needs none) and
        the distinct ``texts`` (rows of ``base``, where the map removes common components), in
        rank order; on one BLAS thread, and from or into the cache (``cache=False``, or a map
        fitted on texts: computed, not cached)."""
        counts = None if counts is None else np.asarray(counts)
        path = None
        if cache and self.folder and not recipe.word_components:
            key = self._key(base, "map", counts, recipe.word_weights, recipe.whiten, usif_length, wordmap.SIF_A,
                            transforms.FLOOR)
            path = os.path.join(self.folder, f"map-{key}.npz")
            held = _read_map(path)
            if held is not None:
                return held
        with blas_threads():
            t = wordmap.word_map(recipe, base[:-1], counts, length=usif_length, texts=texts)
        if path:
            _write(path, lambda f: np.savez(f, **{k: v for k, v in t._asdict().items() if v is not None}), "map-")
        return t

    def table(self, ranked: Transform, base: np.ndarray, cache: bool = True) -> np.ndarray:
        """The mapped (V + 1, k) float32 table: every row of ``base`` but the last mapped by
        ``ranked`` (rank order), the last row zero (unknown words, padding); on one BLAS thread,
        and from or into the cache (read-only, memory-mapped, when it comes from there)."""
        v = base.shape[0] - 1
        width = base.shape[1] if ranked.matrix is None else ranked.matrix.shape[1]
        path = None
        if cache and self.folder:
            key = self._key(base, "table", *(getattr(ranked, k) if getattr(ranked, k) is not None else k
                                             for k in _PARTS))
            path = os.path.join(self.folder, f"table-{key}.npy")
            held = _read_table(path, (v + 1, width))
            if held is not None:
                return held
        table = np.empty((v + 1, width), np.float32)
        table[v] = 0.0  # unknown words and padding stay the zero row
        with blas_threads():
            transforms.apply(ranked, base[:v], out=table[:v])
        if path:
            _write(path, lambda f: np.save(f, table, allow_pickle=False), "table-")
        return table


def _read_map(path: str) -> Transform | None:
    try:
        with np.load(path, allow_pickle=False) as z:
            t = Transform(**{k: z[k] for k in z.files})
    except (OSError, ValueError, TypeError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    touch(path)
    return t


def _read_table(path: str, shape: tuple) -> np.ndarray | None:
    try:
        table = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if table.shape != shape or table.dtype != np.float32 or not table.flags.c_contiguous or table[-1].any():
        return None
    touch(path)
    return table


def _write(path: str, save, prefix: str) -> None:
    """:func:`repro.io.cachefolder.write_entry`: atomically, the :data:`KEEP` most recent entries kept."""
    write_entry(path, save, prefix, KEEP)
