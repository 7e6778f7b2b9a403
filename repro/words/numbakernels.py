"""The encoder's two hot loops compiled by numba, when it is installed (the extra ``fast``).

:mod:`repro.words.ranklookup` and :mod:`repro.encode.weightedsums` compute, in NumPy and SciPy, a chunk's idf
ranks (a hash probe per token) and its text vectors t(C) = (1/n) sum_j z_j e_(j) (paper, eq. 3
and its variable-length form, section 3.3). Here the same two steps are plain loops that numba
compiles for this CPU, each a single pass with the GIL released:

1. :func:`probe` reads the tokens straight from the chunk's NUL-joined UTF-8 buffer, builds each
   token's (lo, hi) key, hashes it (the same multiply-xorshift as :func:`repro.words.ranklookup._home`)
   and walks RankLookup's slot table, in place of the NumPy arrays of keys, homes and
   gathered slots.
2. :func:`sorted_sums` sorts each text's known ranks (the paper's descending idf order) and adds
   its words' table rows into its output row, four words per pass over the row, so the row is
   read and written a quarter as often; each element's sum still takes its terms one by one in
   rank order, from zero, a product then a sum, as ``represent`` and SciPy's product do.

The results are bit for bit those of the NumPy path (tests/test_numbakernels.py), so which path
runs is invisible but for the time. No fastmath: a multiply and an add are never fused, and the
order of the sum does not depend on the CPU, so the bits are the same on every x86-64
(tested with numba's generic CPU).

**When.** Loading the compiled loops costs about 0.95 s in a fresh process (numba's import,
which imports scipy.linalg, and reading its on-disk cache; compiling them the first time on a
machine, 1-3 s more), and they save about 50 ns of wall-clock time per token with two threads
(100 ns with one). So they load once a process has asked :func:`kernels` to encode
:data:`MIN_TOKENS` tokens in all, about where the saved time has paid for the load, and are used
from then on by every call; a command-line call on a few texts never imports numba.
``REPRO_NUMBA=0`` turns them off, ``REPRO_NUMBA=1`` on from the first token. Without numba every
call takes the NumPy path.

Timed while building it (100,000 texts of 20 Zipf-distributed words, 400 d, 7,800-word table,
one thread of the 2-core Xeon): the lookup 0.20 s in NumPy, 0.03 s here; the sums 0.21 s in
SciPy's row-order product, 0.15 s in the same loop compiled here, 0.14 s four words per pass
(0.065 s when every word is one cached row). ``transform`` with two threads: 0.15-0.23 s
against 0.29-0.44 s (benchmarks/bench_encode.py, make bench).
"""

from __future__ import annotations

import os
import threading
from types import SimpleNamespace

import numpy as np

#: The environment variable: "0" never compiled, "1" compiled for any size; unset: by :data:`MIN_TOKENS`.
ENV = "REPRO_NUMBA"
#: Tokens a process encodes before the compiled loops load: at 50-100 ns saved per token, their
#: load of about 0.95 s is paid back after 10-20 million (the 2-core Xeon of the bench).
MIN_TOKENS = 10_000_000
#: Texts of at most this many known words are sorted in place by insertion; longer ones by np.sort.
INSERTION = 32

_loaded: SimpleNamespace | None = None
_missing = False  # numba could not be imported
_asked = 0  # tokens this process has asked kernels() to encode
_lock = threading.Lock()


def probe(buf, count, slots, bits, key_bytes, sentinel, mix, out, odd_at, odd_start, odd_len):
    """Ranks of the ``count`` tokens NUL-joined in ``buf`` (uint8) into ``out`` (count,) int32.

    ``slots``: RankLookup's (2**bits, 3) uint64 table (lo, hi, rank; lo 0 = empty); ``key_bytes``:
    the longest key (:data:`repro.words.ranklookup.KEY_BYTES`, at most 16: lo holds bytes 0-7, hi
    8-15); ``mix``: the hash's three uint64 multipliers. A token of 0 or more than ``key_bytes``
    bytes is not probed: its index, byte offset and byte length go to ``odd_at``, ``odd_start``,
    ``odd_len``. Returns the number of such tokens, or -1 when ``buf`` does not hold exactly
    ``count`` tokens (a NUL in one).
    """
    size = buf.shape[0]
    mask = (np.int64(1) << np.int64(bits)) - np.int64(1)
    shift = np.uint64(64 - bits)
    m0, m1, m2 = mix[0], mix[1], mix[2]
    empty = np.uint64(0)
    n_odd = 0
    s = 0
    for t in range(count):
        if s > size:  # fewer tokens than count
            return -1
        e = s
        while e < size and buf[e] != 0:
            e += 1
        length = e - s
        if length == 0 or length > key_bytes:
            odd_at[n_odd] = t
            odd_start[n_odd] = s
            odd_len[n_odd] = length
            n_odd += 1
            out[t] = sentinel
        else:
            lo = np.uint64(0)
            hi = np.uint64(0)
            for i in range(min(length, 8)):
                lo |= np.uint64(buf[s + i]) << np.uint64(8 * i)
            for i in range(8, length):
                hi |= np.uint64(buf[s + i]) << np.uint64(8 * (i - 8))
            h = lo * m0
            h ^= hi * m1
            h ^= h >> np.uint64(32)
            h *= m2
            at = np.int64(h >> shift)
            rank = sentinel
            while slots[at, 0] != empty:
                if slots[at, 0] == lo and slots[at, 1] == hi:
                    rank = np.int64(slots[at, 2])
                    break
                at = (at + 1) & mask
            out[t] = rank
        s = e + 1
    if s != size + 1:  # more tokens than count
        return -1
    return n_odd


def known_counts(flat, offsets, sentinel, lengths):
    """(B,) known words n_b (ranks below ``sentinel``) of the texts ``flat[offsets[b]:offsets[b+1]]``
    into ``lengths``; returns the largest."""
    most = 0
    for b in range(offsets.shape[0] - 1):
        n = 0
        for t in range(offsets[b], offsets[b + 1]):
            if flat[t] < sentinel:
                n += 1
        lengths[b] = n
        most = max(most, n)
    return most


def sorted_sums(flat, offsets, sentinel, lengths, coef, table, out, width):
    """Each text's known ranks sorted ascending, and ``out[b] += sum_j coef[n_b, j] table[r_j]``.

    ``flat``: (T,) int32 ranks, text b at ``offsets[b]:offsets[b+1]``, those below ``sentinel``
    known; ``lengths``: its known words n_b (:func:`known_counts`); ``coef``: (W + 1, W) float32 coefficients z_j / n, W at
    least the largest n_b; ``table``: (V + 1, d) float32 rank-ordered rows, more than ``sentinel``; ``out``: (B, d)
    float32, zeros. ``width``: at least the largest text's number of tokens (a scratch row).
    """
    d = table.shape[1]
    known = np.empty(max(width, 1), np.int32)
    for b in range(offsets.shape[0] - 1):
        n = lengths[b]
        if n == 0:
            continue
        k = 0
        for t in range(offsets[b], offsets[b + 1]):
            r = flat[t]
            if r < sentinel:
                known[k] = r
                k += 1
        if n <= INSERTION:
            for i in range(1, n):
                r = known[i]
                j = i
                while j > 0 and known[j - 1] > r:
                    known[j] = known[j - 1]
                    j -= 1
                known[j] = r
        else:
            known[:n].sort()
        row = out[b]
        j = 0
        while j + 4 <= n:  # four words per pass over the row, each element's terms still in order
            c0, c1, c2, c3 = coef[n, j], coef[n, j + 1], coef[n, j + 2], coef[n, j + 3]
            x0, x1, x2, x3 = table[known[j]], table[known[j + 1]], table[known[j + 2]], table[known[j + 3]]
            for i in range(d):
                row[i] = (((row[i] + c0 * x0[i]) + c1 * x1[i]) + c2 * x2[i]) + c3 * x3[i]
            j += 4
        while j < n:
            c0 = coef[n, j]
            x0 = table[known[j]]
            for i in range(d):
                row[i] += c0 * x0[i]
            j += 1


def load() -> SimpleNamespace | None:
    """The compiled :func:`probe`, :func:`known_counts` and :func:`sorted_sums` (and numba's
    ``version``), compiled or read from numba's cache once per process; None without numba."""
    global _loaded, _missing
    if _loaded is not None or _missing:
        return _loaded
    with _lock:
        if _loaded is None and not _missing:
            try:
                import numba
            except ImportError:
                _missing = True
                return None
            jit = numba.njit(nogil=True, cache=True)
            _loaded = SimpleNamespace(probe=jit(probe), known_counts=jit(known_counts),
                                      sorted_sums=jit(sorted_sums), version=numba.__version__)
    return _loaded


def mode() -> str:
    """``REPRO_NUMBA``: "0", "1" or "" (unset: by size); anything else is an error."""
    value = os.environ.get(ENV, "").strip()
    if value not in ("", "0", "1"):
        raise ValueError(f"{ENV}={value!r}: give 0 (never compiled), 1 (always) or leave it unset (by size)")
    return value


def kernels(tokens: int) -> SimpleNamespace | None:
    """The compiled loops for a call that encodes ``tokens`` tokens, or None for the NumPy path.

    None with ``REPRO_NUMBA=0`` or without numba; else loaded (:func:`load`) when
    ``REPRO_NUMBA=1``, or once the calls of this process (this one included) have asked for
    :data:`MIN_TOKENS` tokens in all; loaded, they serve every call."""
    global _asked
    _asked += max(int(tokens), 0)
    if _asked >= MIN_TOKENS and mode() == "":
        load()
    return loaded()


def loaded() -> SimpleNamespace | None:
    """The compiled loops if they are loaded (or ``REPRO_NUMBA=1`` loads them), else None; counts
    no tokens: for the steps of a call that :func:`kernels` has counted (a chunk's lookup)."""
    chosen = mode()
    if chosen == "0":
        return None
    return load() if chosen == "1" else _loaded
