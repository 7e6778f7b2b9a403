"""The vocabulary's idf order and word -> rank lookup table, cached beside the vectors (issue 35,
item 2), next to the mapped space of :mod:`repro.spaces.cachedspace` and in the same folder.

A command-line call builds its :class:`repro.words.vocabulary.Vocabulary` afresh: the idf rank of every
word (:func:`repro.words.vocabulary.idf_order_rank`, the paper's sort of eq. 1: a sort of 400,000 word
strings) and the open-addressing table of :class:`repro.words.ranklookup.RankLookup`, together about
0.6 s of a ``repro similarity`` call on GloVe's 400,000 words. Both are functions of the words
(in order) and their idf alone, so they are kept, keyed by exactly that content:

* **Key.** The SHA-256 of :data:`VERSION`, NumPy's version, the words (their UTF-8 bytes joined
  by NUL, and every word's length where a word holds a NUL, so that no two lists of words give
  the same bytes) and the (V,) float64
  idf. Other words, another order, other df or another N give another key: a stale entry is
  never read. Hashing the key reads a few megabytes (no table of vectors).
* **Entries.** ``rank-<key>.npz``: the (V,) int64 ranks and the few words the table cannot key
  (longer than :data:`repro.words.ranklookup.KEY_BYTES` bytes). ``lookup-<key>.npy``: the table's
  slots, read back memory-mapped. Each is written whole under a temporary name and renamed
  (:func:`repro.io.cachefolder.write_entry`); a reader takes an entry only when both are there and well formed, else
  computes them (and writes them). An entry is only written after the words were found unique.
* **Bits.** The ranks and the slots read are those the computation gives (tests/test_rankcache.py).
* **When.** Vocabularies of at least :data:`MIN_WORDS` words (below, building is faster than
  reading); never for a token space (:mod:`repro.spaces.tokenspace`, its own id lookup).
"""

from __future__ import annotations

import hashlib
import os
import zipfile

import numpy as np

from repro.words import ranklookup
from repro.io.cachefolder import touch, write_entry

#: The format of the entries; a change of what they hold, or of how they are computed, bumps it.
VERSION = 2
#: Entries of each kind kept in one cache folder, the most recently used.
KEEP = 4
#: The smallest vocabulary whose rank and lookup table are cached.
MIN_WORDS = 20_000


def key(words, idf) -> str:
    """The content key of ``words`` (in order) and their (V,) ``idf``."""
    h = hashlib.sha256(repr((VERSION, ranklookup.KEY_BYTES, np.__version__, len(words))).encode())
    joined = "\0".join(words)
    if joined.count("\0") != max(len(words) - 1, 0):  # a word holds a NUL: the separators alone are ambiguous
        h.update(b"lengths")
        h.update(np.fromiter(map(len, words), dtype=np.int64, count=len(words)).tobytes())
    h.update(joined.encode("utf-8", "surrogatepass"))
    h.update(np.ascontiguousarray(idf, dtype=np.float64).tobytes())
    return h.hexdigest()


def read(folder: str, key_: str, words):
    """(rank, lookup) of the entry ``key_`` of the vocabulary ``words``, or None when it is
    missing or not well formed."""
    size = len(words)
    try:
        with np.load(os.path.join(folder, f"rank-{key_}.npz"), allow_pickle=False) as z:
            rank, other, other_lengths, other_values = z["rank"], z["other"], z["other_lengths"], z["other_values"]
        slots = np.load(os.path.join(folder, f"lookup-{key_}.npy"), mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    n = slots.shape[0] if slots.ndim == 2 else 0
    if (rank.shape != (size,) or rank.dtype != np.int64 or slots.dtype != np.uint64 or slots.ndim != 2
            or slots.shape[1] != 3 or n < 16 or n & (n - 1) or other_lengths.sum() != other.size
            or other_values.shape != other_lengths.shape):
        return None
    for name in (f"rank-{key_}.npz", f"lookup-{key_}.npy"):
        touch(os.path.join(folder, name))
    data, ends = other.tobytes(), np.cumsum(other_lengths).tolist()
    odd = [data[e - m:e] for e, m in zip(ends, other_lengths.tolist())]
    return rank, ranklookup.RankLookup.from_state(words, rank, n.bit_length() - 1, slots,
                                                   dict(zip(odd, other_values.tolist())))


def write(folder: str, key_: str, rank: np.ndarray, lookup) -> None:
    """Write the entry ``key_`` (``rank`` and the slots of ``lookup``), each file atomically."""
    _, slots, other = lookup.state()
    other = list(other.items())
    parts = dict(rank=np.asarray(rank, np.int64),
                 other=np.frombuffer(b"".join(k for k, _ in other), np.uint8),
                 other_lengths=np.array([len(k) for k, _ in other], np.int64),
                 other_values=np.array([v for _, v in other], np.int64))
    write_entry(os.path.join(folder, f"lookup-{key_}.npy"),
                lambda f: np.save(f, np.asarray(slots), allow_pickle=False), "lookup-", KEEP)
    write_entry(os.path.join(folder, f"rank-{key_}.npz"), lambda f: np.savez(f, **parts), "rank-", KEEP)
