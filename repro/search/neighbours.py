"""Exact nearest neighbours of text vectors: the k items of a corpus that score highest with each
query, on a couple's score of :mod:`repro.core.textmetric`, in blocks (beyond the paper; issue 35).

The score is the encoder's metric (higher = more similar): the cosine, 0 where a vector is zero,
or minus the Euclidean distance (the paper's eq. 2 with its sign turned). The result is exact:
every returned score is :func:`repro.core.textmetric.vector_scores` of the two vectors in float64, and
the k returned are the k highest of those over the whole corpus, ties broken by the lower corpus
index, whatever the block sizes.

How (NumPy only). Queries go ``query_block`` at a time; for each, the corpus goes
``corpus_block`` rows at a time:

1. one float32 matrix product scores the block (cosine: the queries' unit rows times the raw
   rows, each column then scaled by 1 / |c|; Euclidean: the proxy 2 q.c - |c|^2 = |q|^2 - |q - c|^2,
   which orders the corpus as the distance does);
2. each query keeps a pool of the items that may still be in its exact top k: those whose
   float32 score reaches its k-th best float32 score so far less twice a bound e on float32's
   rounding (e = 2 (d + 6) 2^-24 for the cosine, about 4 (d + 3) 2^-24 |q| max|c| for the
   proxy). An item of the exact top k scores at least the exact k-th, which is at least the
   float32 k-th less e, so its float32 score is at least the float32 k-th less 2e: the pool
   never loses it. Only the block's entries that reach the query's threshold are added (on the
   first block, the k-th best of a sample of its columns gives one), so the pool stays near k;
3. at the end each pool is scored exactly (float64, :func:`repro.core.textmetric.vector_scores`) and
   its best k taken by (score, descending; index, ascending). A pool grown past ``4k + 256``
   items (many ties) is settled the same way at once: an item outside the exact top k of the
   items seen so far is outside the final one.

After the first block few entries pass step 2, so the cost is the matrix products, not a
partition of every score. Memory is bounded by the blocks (a ``query_block`` x ``corpus_block``
float32 matrix and its mask) and the pools, whatever the corpus's length; pass a memory-mapped
``.npy`` (``np.load(..., mmap_mode="r")``) to keep the corpus itself on disk: it is read one
block at a time, one pass per query block.
"""

from __future__ import annotations

import warnings

import numpy as np

from repro.errors import InputError
from repro.core.textmetric import check_metric, vector_scores

#: queries and corpus rows per block: a 1,024 x 8,192 float32 block is 32 MB
QUERY_BLOCK, CORPUS_BLOCK = 1024, 8192
#: couples scored exactly at once (bounds the memory of a block full of ties)
PAIR_CHUNK = 1 << 16
#: entries of a block taken at once into the pools (more: a slab of rows at a time)
CANDIDATES = 1 << 20
#: the corpus's float32 operands are kept from one query block to the next when they take at most this
OPERAND_CACHE_BYTES = 1 << 28
#: vectors longer than this are refused: their products would leave float32's range
MAX_NORM = 1e15
_U32, _U64 = 2.0 ** -24, 2.0 ** -53


def check_k(k, n: int, name: str = "k") -> int:
    """``k`` as an int of at least 1, at most ``n`` (a larger one is cut to ``n``, with a warning)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise InputError(name, f"must be a whole number, got {k!r}")
    if k < 1:
        raise InputError(name, f"must be at least 1, got {k}")
    if k > n:
        warnings.warn(f"{name}={k} is more than the {n:,} items of the corpus: each query gets all {n:,}", stacklevel=3)
    return int(min(k, n))


def as_matrix(x, name: str, dim: int | None = None, whose: str = "the encoder's"):
    """``x`` as an (n, d) array of real numbers (a memory map stays one), of ``dim`` columns when
    given (``whose`` vectors have that many); InputError naming ``name`` otherwise."""
    if not isinstance(x, np.ndarray):
        try:
            x = np.asarray(x, np.float64)
        except (TypeError, ValueError):
            raise InputError(name, "expected an (n, d) array of numbers") from None
    if x.ndim != 2 or not (np.issubdtype(x.dtype, np.floating) or np.issubdtype(x.dtype, np.integer)):
        raise InputError(name, f"expected an (n, d) array of numbers, got shape {x.shape} of {x.dtype}")
    if x.shape[0] == 0 or x.shape[1] == 0:
        raise InputError(name, f"no vectors (shape {x.shape})")
    if dim is not None and x.shape[1] != dim:
        raise InputError(name, f"{x.shape[1]}-d vectors, but {whose} are {dim}-d")
    return x


def vectors_of(x, name: str, dim: int, encode):
    """``x`` as (n, ``dim``) vectors: an array as it is (checked by :func:`as_matrix`), texts
    through ``encode`` (e.g. ``Encoder.transform``); a single string is refused."""
    if isinstance(x, (str, bytes)):
        raise InputError(name, "expected a list of texts or an (n, d) array, got a single string")
    return as_matrix(x if isinstance(x, np.ndarray) else encode(x), name, dim)


def norms(x, name: str, block: int = CORPUS_BLOCK) -> np.ndarray:
    """(n,) float64 lengths of the rows of ``x``, read a block at a time, each row checked: finite
    and not too long for float32 products (InputError naming ``name`` and the row)."""
    out = np.empty(x.shape[0])
    for lo in range(0, x.shape[0], block):
        rows = np.asarray(x[lo:lo + block], np.float64)
        bad = ~np.isfinite(rows).all(axis=1)
        if bad.any():
            raise InputError(name, f"row {lo + int(np.argmax(bad))} holds NaN or inf")
        out[lo:lo + len(rows)] = np.sqrt(np.einsum("ij,ij->i", rows, rows))
    if out.max() > MAX_NORM:
        raise InputError(name, f"row {int(np.argmax(out))} is too long for float32 products "
                               f"(norm {out.max():.3g} > {MAX_NORM:g})")
    return out


def operand(rows: np.ndarray, row_norms: np.ndarray, metric: str) -> np.ndarray:
    """The float32 operand of the block products: unit rows for the cosine (a zero row stays
    zero), the rows themselves for the Euclidean distance."""
    rows = np.asarray(rows, np.float32)
    if metric == "cosine":
        inverse = np.divide(1.0, row_norms, out=np.zeros_like(row_norms), where=row_norms > 0)
        return rows * inverse.astype(np.float32)[:, None]
    return rows


def left_operand(rows: np.ndarray, row_norms: np.ndarray, metric: str) -> np.ndarray:
    """:func:`operand`, times 2 for the Euclidean proxy (exact): the left side of :func:`block_scores`."""
    a = operand(rows, row_norms, metric)
    return a if metric == "cosine" else a * np.float32(2)


def block_scores(left: np.ndarray, b32: np.ndarray, b_norms: np.ndarray, metric: str, out=None) -> np.ndarray:
    """(len(a), len(b)) float32 scores that order each row as the metric does: the cosine of
    unit rows, or the proxy 2 a.b - |b|^2 (= |a|^2 - |a - b|^2); ``left``: :func:`left_operand`
    of a, ``b32``: :func:`operand` of b; ``out``: a C-contiguous float32 array to write into."""
    s = np.matmul(left, b32.T, out=out)
    if metric == "euclidean":
        s -= (b_norms ** 2).astype(np.float32)[None, :]
    return s


def buffer(flat: np.ndarray, shape: tuple) -> np.ndarray:
    """A C-contiguous array of ``shape`` on the front of the 1-d buffer ``flat`` (reused, so a block
    costs no fresh pages)."""
    return flat[:shape[0] * shape[1]].reshape(shape)


def rounding_bound(a_norms: np.ndarray, b_norm_max: float, dim: int, metric: str) -> np.ndarray:
    """Per row of ``a``, twice a bound on |float32 score - exact score| of :func:`block_scores`
    (inputs rounded to float32 and scaled there, a d-term float32 sum, the proxy's subtraction,
    float64's own error)."""
    if metric == "cosine":
        return np.full(a_norms.shape, 2 * ((dim + 6) * _U32 + (dim + 3) * _U64))
    c = float(b_norm_max)
    return 2 * ((2 * (dim + 3) * a_norms * c + 2 * c * c) * _U32 + 4 * (dim + 3) * _U64 * (a_norms + c) ** 2)


def down32(x: np.ndarray) -> np.ndarray:
    """float64 thresholds as float32 values at most as large (-inf stays -inf, +inf stays +inf)."""
    y = x.astype(np.float32)
    return np.where(np.isposinf(x), y, np.nextafter(y, np.float32(-np.inf)))


def exact(a_rows, a_idx, b_rows, b_idx, metric: str) -> np.ndarray:
    """float64 scores of the couples (a_rows[a_idx[i]], b_rows[b_idx[i]]), as
    :func:`repro.core.textmetric.vector_scores` scores them."""
    return vector_scores(np.asarray(a_rows[a_idx], np.float64), np.asarray(b_rows[b_idx], np.float64), metric)


def _best(r: np.ndarray, ids: np.ndarray, scores: np.ndarray, rows: int):
    """Entries sorted by (row; score, descending; id, ascending): (order, each row's count, each row's start)."""
    order = np.lexsort((ids, -scores, r))
    counts = np.bincount(r, minlength=rows)
    return order, counts, np.cumsum(counts) - counts


def _by_row_descending(r: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The order of entries by (row; float32 score, descending), by one sort of 64-bit keys: the row
    above, the score's bits made to sort in its order and turned (equal scores in any order)."""
    bits = np.ascontiguousarray(s, np.float32).view(np.uint32)
    ascending = np.where(bits >> 31 == 1, ~bits, bits | np.uint32(1 << 31))
    return np.argsort((r.astype(np.uint64) << np.uint64(32)) | (~ascending).astype(np.uint64))


class Pool:
    """Per query of a block, the items that may still be in its exact top k (step 2 of the module's
    docstring): flat arrays of (query row, corpus id, float32 score) and each row's float32 threshold."""

    def __init__(self, rows: int, k: int, err: np.ndarray, settle, cap: int):
        self.rows, self.k, self.err, self.settle, self.cap = rows, k, err, settle, cap
        self.r, self.ids, self.s = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32)
        self.thr = np.full(rows, -np.inf, np.float32)

    def raise_to(self, rows: np.ndarray, kth: np.ndarray) -> None:
        """Thresholds of ``rows`` raised to their k-th best float32 score ``kth`` less twice the bound."""
        self.thr[rows] = np.maximum(self.thr[rows], down32(kth.astype(np.float64) - 2 * self.err[rows]))

    def add(self, r: np.ndarray, ids: np.ndarray, s: np.ndarray) -> None:
        r, ids, s = np.concatenate([self.r, r]), np.concatenate([self.ids, ids]), np.concatenate([self.s, s])
        order = _by_row_descending(r, s)
        r, ids, s = r[order], ids[order], s[order]
        counts = np.bincount(r, minlength=self.rows)
        starts = np.cumsum(counts) - counts
        full = np.flatnonzero(counts >= self.k)
        self.raise_to(full, s[starts[full] + self.k - 1])
        keep = s >= self.thr[r]
        self.r, self.ids, self.s = r[keep], ids[keep], s[keep]
        crowded = np.flatnonzero(np.bincount(self.r, minlength=self.rows) > self.cap)
        if crowded.size:  # many near ties: keep the exact top k of what these rows have seen
            mine = np.isin(self.r, crowded)
            exact_s = self.settle(self.r[mine], self.ids[mine])
            top = self._exact_top(self.r[mine], self.ids[mine], exact_s)
            keep = ~mine
            keep[np.flatnonzero(mine)[top]] = True
            self.r, self.ids, self.s = self.r[keep], self.ids[keep], self.s[keep]

    def _exact_top(self, r, ids, exact_s) -> np.ndarray:
        """Positions of each row's k best entries by exact score (then the lower id)."""
        order, counts, starts = _best(r, ids, exact_s, self.rows)
        rows = np.flatnonzero(counts)
        return order[(starts[rows][:, None] + np.arange(self.k)).ravel()]

    def best(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids, exact scores), (rows, k) each, of the rows with a pool (every row but those skipped)."""
        exact_s = self.settle(self.r, self.ids)
        top = self._exact_top(self.r, self.ids, exact_s).reshape(-1, self.k)
        return self.ids[top], exact_s[top]


def _candidates(s: np.ndarray, thr: np.ndarray):
    """(rows, columns, float32 scores) of the entries of ``s`` reaching their row's threshold, a
    slab of rows at a time when there are more than :data:`CANDIDATES`."""
    mask = s >= thr[:, None]
    width = s.shape[1]
    step = s.shape[0] if np.count_nonzero(mask) <= CANDIDATES else max(1, CANDIDATES // width)
    for lo in range(0, s.shape[0], step):
        flat = np.flatnonzero(mask[lo:lo + step])  # faster than a 2-d nonzero
        yield flat // width + lo, flat % width, s[lo:lo + step].ravel()[flat]


def _search_block(pool: Pool, s: np.ndarray, c0: int, filling: np.ndarray) -> None:
    """Add one corpus block's entries that reach their row's threshold (rows c0.. of the corpus,
    float32 scores ``s``) to ``pool``; ``filling``: the rows with fewer than k entries so far."""
    k, width = pool.k, s.shape[1]
    if filling.any() and width > k:  # the k-th of a sample of the block's columns bounds what can enter
        sample = min(width, max(4 * k, 2048))
        pool.raise_to(np.flatnonzero(filling), np.partition(s[filling, :sample], sample - k, axis=1)[:, sample - k])
    for r, c, values in _candidates(s, pool.thr):
        pool.add(r, c0 + c, values)


def top_k(queries, corpus, k: int, metric: str = "cosine", *, query_block: int = QUERY_BLOCK,
          corpus_block: int = CORPUS_BLOCK, corpus_norms: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(ids, scores) of the ``k`` corpus items that score highest with each query: (Q, k) int64
    row indices of ``corpus`` and (Q, k) float64 scores, best first, ties by the lower index.

    ``queries``: (Q, d) vectors; ``corpus``: (N, d) vectors (an array or a memory map, read one
    block at a time); ``metric``: "cosine" or "euclidean" (minus the distance), as
    :func:`repro.core.textmetric.vector_scores` scores a couple. ``k`` larger than N is cut to N (a
    warning). ``corpus_norms``: :func:`norms` of ``corpus``, where kept (an index folder's), so that a
    few queries do not read every row twice. Bad input raises :class:`repro.errors.InputError`
    naming the argument.
    """
    check_metric(metric)
    queries, corpus = as_matrix(queries, "queries"), as_matrix(corpus, "corpus")
    if corpus.shape[1] != queries.shape[1]:
        raise InputError("corpus", f"{corpus.shape[1]}-d vectors, but the queries are {queries.shape[1]}-d")
    for name, size in (("query_block", query_block), ("corpus_block", corpus_block)):
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
            raise InputError(name, f"must be a whole number of at least 1, got {size!r}")
    (nq, dim), n = queries.shape, corpus.shape[0]
    k = check_k(k, n)
    q_all = norms(queries, "queries")
    c_all = norms(corpus, "corpus") if corpus_norms is None else corpus_norms  # :func:`norms` of it, kept (an index's)
    ids, scores = np.empty((nq, k), np.int64), np.empty((nq, k))
    flat = np.empty(min(query_block, nq) * min(corpus_block, n), np.float32)  # every block's scores, in turn
    # cosine: the raw rows times the queries' unit rows, each column then scaled by 1 / |c| (no unit
    # copy of the corpus to make: the same rounding bound, float32's error of the product and two scalings)
    inverse = np.divide(1.0, c_all, out=np.zeros_like(c_all), where=c_all > 0).astype(np.float32) \
        if metric == "cosine" else None
    kept = {} if metric != "cosine" and nq > query_block and n * dim * 4 <= OPERAND_CACHE_BYTES else None
    for q0 in range(0, nq, query_block):
        q_rows, q_norms = np.asarray(queries[q0:q0 + query_block]), q_all[q0:q0 + query_block]
        qa = left_operand(q_rows, q_norms, metric)
        skip = (q_norms == 0) if metric == "cosine" else np.zeros(len(q_rows), bool)  # cosine 0 with every item
        pool = Pool(len(q_rows), k, rounding_bound(q_norms, c_all.max(), dim, metric),
                    lambda r, i: exact(q_rows, r, corpus, i, metric), cap=4 * k + 256)
        pool.thr[skip] = np.inf
        for c0 in range(0, n, corpus_block):
            c_rows, c_norms = np.asarray(corpus[c0:c0 + corpus_block]), c_all[c0:c0 + corpus_block]
            filling = (np.bincount(pool.r, minlength=len(q_rows)) < k) & ~skip
            if inverse is not None:
                s = np.matmul(qa, np.asarray(c_rows, np.float32).T, out=buffer(flat, (len(qa), len(c_rows))))
                s *= inverse[c0:c0 + corpus_block][None, :]
            else:
                ca = kept[c0] if kept and c0 in kept else operand(c_rows, c_norms, metric)
                if kept is not None:
                    kept[c0] = ca
                s = block_scores(qa, ca, c_norms, metric, buffer(flat, (len(qa), len(c_rows))))
            _search_block(pool, s, c0, filling)
        block_ids, block_scores_ = ids[q0:q0 + len(q_rows)], scores[q0:q0 + len(q_rows)]
        block_ids[skip], block_scores_[skip] = np.arange(k), 0.0
        block_ids[~skip], block_scores_[~skip] = pool.best()
    return ids, scores
