"""The fast encoding kernel: token lists to t(C) = (1/n) sum_j z_j e_(j) in bounded chunks.

:func:`repro.core.model.represent` computes the paper's text vector (eq. 3 and its variable-length
form, section 3.3) by gathering a (B, W, d) array of embeddings first. Here the same sum runs
without that array, chunk by chunk, so memory stays bounded in the number of texts:

1. **Lookup.** Each word maps straight to its **idf rank**, a whole chunk at once in NumPy,
   mostly outside the GIL (:meth:`repro.words.ranklookup.RankLookup.rows`, the step from token lists
   to rows of :meth:`repro.words.vocabulary.Vocabulary.rows`, which the encoder calls directly on the
   token lists it has checked); an unknown word
   maps to the sentinel V. The embedding table is kept with its rows in rank order (plus a zero row V), so
   a rank is also a table row.
2. **Order.** Sorting each text's ranks ascending is the paper's descending-idf order (ties by
   the word, as :class:`repro.words.vocabulary.Vocabulary` breaks them), and pushes unknown words and
   padding (the sentinel) to the end. n counts the known words only.
3. **Coefficients.** z_j / n depends only on (n, j): one small table for every length
   (:func:`coefficient_table`, from :func:`repro.core.model.interpolated_weights`), (W + 1) x W
   numbers, so only for short texts: a text of more than
   :func:`repro.encode.longtext.short_width` tokens (60 for the shipped weights) leaves its chunk, and
   one of more known words is summed by :mod:`repro.encode.longtext`, in memory and time linear in its
   length, NumPy only (issue 35).
4. **Weighted gather-sum.** The chunk's coefficients form a sparse (B, V) matrix S with n
   entries in row b, and the text vectors are S @ E. The product runs in row (CSR) order,
   straight from the rank rows (no sparse matrix is built): each text's row of the output
   stays in cache while its words' table rows are added to it in rank order, so every sum is
   accumulated in the same order as ``represent``'s.

With numba installed, once a process has encoded enough tokens to pay for loading them
(:func:`repro.words.numbakernels.kernels`), steps 1, 2 and 4 are compiled loops instead (:mod:`repro.words.numbakernels`: the probe straight from the tokens' bytes, and
each text's ranks sorted and summed four words per pass over its row), with the same bits.

Why this kernel: timed once while building it (100,000 texts of 20 words, 400 d, one thread,
the shared 2-core CPU under load, so only the ratios matter): a jitted XLA gather-multiply-sum
per chunk took 1.2-2.8 s, a NumPy take-and-accumulate per position 0.75 s, the sparse product
in row order 0.23-0.34 s (7.8k-word table) and 0.9 s (200k words, uniform), in column order
0.6 s on the latter; writing into the output in place saved another 20%. Under that load two
threads were no faster than one; on the quiet machine two threads (the default of
:class:`repro.encode.encoder.Encoder` on 2 cores) took 100,000 texts from about 240k to 270-370k texts/s on the
7.8k-word table, because one chunk's lookups (which then held the GIL) ran while another
chunk's sums and first-touch page faults (which do not) proceeded. Python dict lookups then
bound the 200,000-word table (0.45-0.6 s of 0.9-1.0 s); the chunk lookup of
:mod:`repro.words.ranklookup` holds the GIL only to join the tokens, and took two threads from
0.79-0.89 s to 0.34-0.42 s there (0.29-0.33 s to 0.21-0.32 s on 7.8k words). With the
words drawn by Zipf's law (benchmarks/bench_encode.py), the row order then beat the column
order: the sums of 100,000 texts on one thread 0.20 s against 0.24-0.28 s (7.8k words), 0.40 s
against 0.39-0.41 s (200k words), with the same bits, and no conversion to the column order;
``transform`` with two threads, both kernels in one process on the busy machine, 0.47 s against
0.73 s and 0.71 s against 1.04 s. What is left is near this kernel's floor: the sums take
0.10 s per 100,000 texts even when every word is one table row (no cache miss), 0.20 s under
Zipf's law, and the lookups 0.15-0.2 s more. The comparison with fse is
benchmarks/bench_encode.py (make bench).
"""

from __future__ import annotations

import functools
from typing import Sequence

import os

import numpy as np

from repro.encode import longtext
from repro.words import numbakernels
from repro.encode.longtext import LongTexts
from repro.progress import bar as progress_bar

#: Texts per chunk: the chunk's (B, d) output and sparse matrix stay within a few MB.
CHUNK = 4096

#: Below this many words in a chunk, :func:`weighted_sums` adds the rows in a NumPy loop over
#: rank positions (the same products and sums, in the same order, as SciPy's kernel): a call on a
#: few texts never imports SciPy (0.1 to 0.2 s of a command-line call).
SMALL = 2048


@functools.lru_cache(maxsize=None)
def _csr_matvecs():
    """The loop behind scipy's ``csr_matrix @ dense``, called so that it writes into our output;
    None for a scipy without it (the public product then, and one copy per chunk)."""
    try:
        from scipy.sparse._sparsetools import csr_matvecs
    except ImportError:
        return None
    return csr_matvecs


def _small_sums(ranks, lengths, coef, table, out) -> None:
    """``out`` += the rows of :func:`weighted_sums`, one rank position j at a time: each row's
    terms coef * table, a float32 product then a float32 sum, in rank order from its current
    value, as SciPy's kernel adds them (the same bits, tests/test_encoder.py)."""
    for j in range(ranks.shape[1]):
        rows = np.flatnonzero(lengths > j)
        if rows.size == 0:
            break
        out[rows] += coef[lengths[rows], j][:, None] * table[ranks[rows, j]]


#: Coefficient tables computed once and shipped in the package (``make weights`` writes them, one
#: file per shipped model, for its weights at the encoder's first width, 2 n_max): arrays
#: ``weights``, ``table``. ``coefficients.npz``: the paper's weights (``wikivar-median``);
#: ``coefficients-best.npz``: the learned family's winner (``wikivar-best``); ``coefficients-default.npz``
#: (``make default``): ``Encoder.pretrained()``'s default (``default``).
_WEIGHTS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights")
PRECOMPUTED = tuple(os.path.join(_WEIGHTS_DIR, f"coefficients{s}.npz") for s in ("-default", "-best", ""))


def threads(workers: int | None) -> int:
    """Threads of :func:`encode` for :class:`repro.encode.encoder.Encoder`: ``workers``, or by default one
    per core, at most 8.

    Measured at 4cb9070 (100,000 texts of 20 words, 400 d; texts/s with 1, 2, 4, 8 threads):
    on 16 cores, 169k, 329k, 465k, 599k (7,800 words) and 159k, 278k, 344k, 482k (200,000 words).
    """
    return max(1, int(workers)) if workers is not None else min(8, os.cpu_count() or 1)


def precomputed_table(weights, width: int, path=PRECOMPUTED) -> np.ndarray | None:
    """The table of ``path`` (a file, or a sequence of files: the first that holds it) when it was
    computed for exactly these ``weights`` (same float32 bits) and ``width``, else None. Spares a
    command-line call JAX's import and compilation (about 1.2 s of a 2.6 s ``repro encode``),
    since the table is the encoder's only JAX step."""
    if not isinstance(path, (str, os.PathLike)):
        for one in path:
            table = precomputed_table(weights, width, one)
            if table is not None:
                return table
        return None
    if not os.path.exists(path):
        return None
    w = np.ascontiguousarray(weights, np.float32)
    with np.load(path) as z:
        held, table = z["weights"], z["table"]
    if held.dtype != np.float32 or held.shape != w.shape or held.tobytes() != w.tobytes():
        return None
    return table if table.shape == (int(width) + 1, int(width)) and table.dtype == np.float32 else None


def coefficient_table(weights, width: int, precomputed=PRECOMPUTED) -> np.ndarray:
    """(width + 1, width) float32: row n holds z_1/n .. z_n/n and zeros past n; row 0 is zero.

    z_j are the paper's interpolated weights (section 3.3), computed by
    :func:`repro.core.model.interpolated_weights`, so they are bit-identical to ``represent``'s; the
    table of ``precomputed`` (:func:`precomputed_table`; None: never) when it holds this one.
    """
    width = max(int(width), 1)
    held = precomputed_table(weights, width, precomputed) if precomputed else None
    if held is not None:
        return held.copy()
    from repro.core.model import interpolated_weights

    n = np.arange(width + 1)
    z = np.asarray(interpolated_weights(np.asarray(weights, np.float32), n, width), dtype=np.float32)
    return z / np.maximum(n, 1).astype(np.float32)[:, None]


def weighted_sums(ranks: np.ndarray, lengths: np.ndarray, coef: np.ndarray, table: np.ndarray,
                  out: np.ndarray | None = None, zeroed: bool = False) -> np.ndarray:
    """(B, d) float32 rows sum_j coef[n_b, j] table[ranks[b, j]] over j < n_b, with no (B, W, d) array.

    ``table`` is the (V + 1, d) C-contiguous float32 rank-ordered embedding table; ``coef`` a
    :func:`coefficient_table` at least as wide as ``ranks``. ``out``, a C-contiguous (B, d)
    float32 array, receives the result in place (no temporary of the chunk's size); ``zeroed``
    says it already holds zeros (a fresh ``np.zeros``, whose pages the kernel zeroes on first touch).
    """
    b, width = ranks.shape
    keep = np.arange(width) < lengths[:, None]
    data = coef[lengths, :width][keep]
    index = np.int32 if b * width < 2 ** 31 else np.int64  # one index type for the kernel: no conversion
    indptr = np.zeros(b + 1, dtype=index)
    np.cumsum(lengths, out=indptr[1:])
    indices = ranks[keep].astype(index, copy=False)
    if out is None:
        out = np.empty((b, table.shape[1]), np.float32)
    if data.size < SMALL:
        if not zeroed:
            out.fill(0.0)
        _small_sums(ranks, lengths, coef, table, out)
        return out
    matvecs = _csr_matvecs()
    if matvecs is not None and out.flags.c_contiguous and table.flags.c_contiguous:
        if not zeroed:  # y += S x, in place: scipy's own kernel of S @ x, without its result array
            out.fill(0.0)
        matvecs(b, table.shape[0], table.shape[1], indptr, indices, data, table.ravel(), out.ravel())
    else:
        import scipy.sparse as sp

        out[...] = sp.csr_matrix((data, indices, indptr), shape=(b, table.shape[0])) @ table
    return out


def _long_text(tokens, long: LongTexts, table: np.ndarray, coef_for, out: np.ndarray) -> int:
    """Sum one long token list into ``out`` (a zeroed (d,) row); -> its number of known words."""
    known = longtext.known_ranks(tokens, long.ranks, table.shape[0] - 1)
    n = int(known.size)
    if 0 < n <= long.width:  # as short as the chunks' texts: their sums, bit for bit
        known.sort()
        weighted_sums(known[None, :], np.array([n], np.int32), coef_for(n), table, out[None, :], zeroed=True)
    elif n:
        out[:] = longtext.text_vector(known, long.weights, table)
    return n


def encode(texts: Sequence[Sequence[str]], lookup, table: np.ndarray, coef_for,
           chunk: int = CHUNK, progress: bool = False, workers: int = 1,
           desc: str = "encode", long: LongTexts | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Text vectors (N, d) float32 and known-word counts n (N,) of token lists, chunk by chunk.

    ``lookup``: the word space's :class:`repro.words.ranklookup.RankLookup` (or a lookup with its
    interface): ``lookup.rows(part)`` turns a chunk of token lists into (B, W) rank rows, sorted
    ascending, and (B,) known-word counts (steps 1 and 2 above); the padding past a text's count
    is never read. With numba's loops loaded (:func:`repro.words.numbakernels.kernels`), the chunk's
    flat ``lookup.ranks`` are sorted and summed by one compiled loop instead
    (:func:`repro.words.numbakernels.sorted_sums`), with the same bits. ``coef_for(width)`` returns a
    coefficient table at least ``width`` wide. With ``workers`` > 1
    several chunks are in flight at once in threads: NumPy and the sums release the GIL, so two
    threads overlap (benchmarks/results/encode.json). The output is the same for any
    ``workers`` and ``chunk``: each text is computed alone. ``progress``: one bar named ``desc``
    (:func:`repro.progress.bar`: past a second, on a terminal), never for a single chunk.

    ``long``: a text of more than ``long.width`` tokens leaves its chunk (whose (B, W) rows would
    grow with it) and is encoded alone: with at most ``long.width`` known words by the same sums
    (the same bits), with more by :func:`repro.encode.longtext.text_vector`, in memory and time linear
    in its length. Without ``long`` every text is summed in its chunk.
    """
    n = len(texts)
    out = np.zeros((n, table.shape[1]), dtype=np.float32)  # zero pages, touched once by the sums
    lengths = np.empty(n, dtype=np.int32)
    raw = np.fromiter(map(len, texts), np.int64, n)  # tokens per text
    compiled = None
    if table.dtype == np.float32 and table.flags.c_contiguous and table.shape[0] > lookup.sentinel:
        compiled = numbakernels.kernels(int(raw.sum()))
    table_array = np.asarray(table)  # a memory map as a plain array (no copy), for the compiled loop

    def job(start: int) -> int:
        part = texts[start:start + chunk]
        count = raw[start:start + len(part)]
        far = np.flatnonzero(count > long.width).tolist() if long is not None else []
        if far:
            part, count = list(part), count.copy()
            for i in far:
                part[i] = []  # summed below, alone
            count[far] = 0
        if compiled is not None:
            offsets = np.zeros(len(part) + 1, np.int64)
            np.cumsum(count, out=offsets[1:])
            flat = lookup.ranks(part, int(offsets[-1]))
            known = lengths[start:start + len(part)]
            most = compiled.known_counts(flat, offsets, lookup.sentinel, known)
            compiled.sorted_sums(flat, offsets, lookup.sentinel, known, coef_for(max(most, 1)), table_array,
                                 out[start:start + len(part)], int(count.max()) if len(part) else 0)
        else:
            ranks, n_known = lookup.rows(part)
            weighted_sums(ranks, n_known, coef_for(ranks.shape[1]), table, out[start:start + len(part)], zeroed=True)
            lengths[start:start + len(part)] = n_known
        for i in far:
            lengths[start + i] = _long_text(texts[start + i], long, table, coef_for, out[start + i])
        return len(part)

    starts = range(0, n, chunk)
    with progress_bar(n, desc, unit="text", show=progress and len(starts) > 1) as bar:
        if workers > 1 and len(starts) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(workers) as pool:
                for done in pool.map(job, starts):
                    bar.update(done)
        else:
            for start in starts:
                bar.update(job(start))
    return out, lengths
