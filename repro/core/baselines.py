"""The eight baselines of the paper's section 5.1, as vectorised numpy / scipy code.

Every function works on whole arrays (a :class:`~repro.core.pairset.PairSet` or its token
matrices) and walks over the rows in chunks, so that memory stays bounded on a million
texts; no Python loop runs over words.

Methods (the names used everywhere in this project, in Table 1's row order):

============== =============================================================== =========
name           text vector t(C) of a text with n words e_1..e_n (idf-sorted)   compare
============== =============================================================== =========
tfidf          sparse tf x idf vector, tf = raw count                          cosine
mean           (1/n) sum_i e_i                                       (eq. 11)  Euclid
max            elementwise max_i e_i                                           Euclid
minmax         [max_i e_i ; min_i e_i]  (2d dimensions)                        Euclid
mean_top30     mean over the k highest-idf words                               Euclid
max_top30      max over the k highest-idf words                                Euclid
minmax_top30   [max ; min] over the k highest-idf words                        Euclid
mean_idf       (1/n) sum_i idf_i e_i                                           Euclid
============== =============================================================== =========

Scores are similarities (higher = more related): ``-d`` with d the Euclidean distance
between the two text vectors, and the cosine for tf-idf. The original code reports
``1 - d/c`` with a method-specific constant c; evaluation min-max normalises every score
with the validation scores, so any increasing affine map of ``-d`` gives identical split
errors and JS divergences (docs/BASELINES.md).

Top 30%: ``top_rule="paper"`` (default) keeps k = max(1, floor(0.3 n)) words and the
top-mean divides by k; ``top_rule="code"`` is the authors' code, k = max(1, floor(n/3))
and the top-mean divides by n. Empty texts (n = 0) get the zero vector for every method
(tf-idf: an all-zero sparse row, cosine 0).
"""

from __future__ import annotations

import numpy as np

from repro.checks import check_idf, check_table, check_texts
from repro.core.chunks import CHUNK, host_chunks
from repro.core.pairset import PairSet
from repro.settings import BASELINES as METHODS
TOP_RULES = ("paper", "code")
IDF_METHODS = ("tfidf", "mean_idf")

# Elements (rows x width x dims) gathered at once; 2**22 float64 values = 32 MiB.
_CHUNK_ELEMENTS = 1 << 22


# ---------------------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------------------

def _check_method(method: str) -> None:
    if method not in METHODS:
        raise ValueError(f"method: unknown {method!r}; expected one of {', '.join(METHODS)}")


def _check_top_rule(top_rule: str) -> None:
    if top_rule not in TOP_RULES:
        raise ValueError(f"top_rule: unknown {top_rule!r}; expected 'paper' or 'code'")


def _check_idf(idf, vocab_size: int | None, method: str) -> np.ndarray | None:
    if idf is None:
        if method in IDF_METHODS:
            raise ValueError(f"idf: required for method {method!r}")
        return None
    return check_idf(idf, vocab_size)


# ---------------------------------------------------------------------------------------
# top 30%
# ---------------------------------------------------------------------------------------

def top_k(lengths, top_rule: str = "paper") -> np.ndarray:
    """Number of highest-idf words the top-30% baselines keep, per text (0 for n = 0).

    ``"paper"``: k = max(1, floor(3n / 10)), i.e. the words whose rank r (1-based) has
    r / n <= 30%, at least one; computed in integers, so no float rounding can move it.
    ``"code"``: k = max(1, floor(n / 3)), the authors' default ``top=1/3``.
    """
    _check_top_rule(top_rule)
    n = np.asarray(lengths, dtype=np.int64)
    k = (3 * n) // 10 if top_rule == "paper" else n // 3
    return np.where(n > 0, np.maximum(k, 1), 0)


def top_divisor(lengths, top_rule: str = "paper") -> np.ndarray:
    """What the top-mean divides its sum by: k (paper, a true mean) or n (the code)."""
    return top_k(lengths, top_rule) if top_rule == "paper" else np.asarray(lengths, dtype=np.int64)


# ---------------------------------------------------------------------------------------
# text vectors
# ---------------------------------------------------------------------------------------

def _output_dim(method: str, d: int) -> int:
    return 2 * d if method.startswith("minmax") else d


def _chunk_rows(width: int, dims: int, chunk_size: int | None) -> int:
    if chunk_size is not None:
        if int(chunk_size) < 1:
            raise ValueError(f"chunk_size: must be a positive number of rows, got {chunk_size}")
        return int(chunk_size)
    return max(1, _CHUNK_ELEMENTS // max(1, width * dims))


def mean_vectors(table, tokens, lengths, chunk: int = CHUNK) -> np.ndarray:
    """The ``mean`` baseline (section 5.1) of every row, ``chunk`` rows at a time.

    Args:
      table: (V, d) float word vectors, checked.
      tokens: (N, W) int token rows, lengths (N,) in 0..W, checked.
      chunk: rows per block (the last block padded, as the scoring surface walks them).

    Returns:
      (N, d) float64: (1/n) sum_j e_(j) over each row's n words; zero for an empty row.
    """
    out = np.empty((len(lengths), table.shape[1]), np.float64)
    for s, n, (tok, ln) in host_chunks([tokens, lengths], chunk):
        out[s:s + n] = vectors_block("mean", table, None, tok, ln, "paper")[:n]
    return out


def vectors_block(method, table, idf, tokens, lengths, top_rule) -> np.ndarray:
    """Text vectors of one block of rows (inputs already checked), returned as float64.

    Gathers and sums run in the table's dtype (float32 for word2vec tables: a relative
    error near 1e-7 on a sum of at most a few dozen terms); max and min are exact.
    """
    d = table.shape[1]
    n = lengths.astype(np.int64)
    used = top_k(n, top_rule) if method.endswith("_top30") else n
    width = int(used.max()) if used.size else 0
    out = np.zeros((tokens.shape[0], _output_dim(method, d)), dtype=np.float64)
    if width == 0:
        return out  # every text of the block is empty: zero vectors
    tok = tokens[:, :width]
    mask = np.arange(width) < used[:, None]  # (c, w): True on the words that count
    empty = used == 0
    if method in ("mean", "mean_top30", "mean_idf"):
        safe = np.where(mask, tok, 0)  # padding gathers row 0 and gets weight 0
        emb = np.take(table, safe, axis=0)  # (c, w, d), in the table's dtype
        weights = mask.astype(table.dtype)
        if method == "mean_idf":
            weights *= idf[safe].astype(table.dtype)
        total = np.matmul(weights[:, None, :], emb)[:, 0, :]
        div = top_divisor(n, top_rule) if method == "mean_top30" else n
        out[:] = total / np.maximum(div, 1)[:, None]  # empty texts: 0 / 1 = 0
        return out
    # max / min: padding repeats the text's first word, which cannot change a max or min
    first = np.where(empty, 0, tok[:, 0])
    emb = np.take(table, np.where(mask, tok, first[:, None]), axis=0)
    hi = emb.max(axis=1)
    hi[empty] = 0
    if method in ("max", "max_top30"):
        out[:] = hi
        return out
    lo = emb.min(axis=1)
    lo[empty] = 0
    out[:, :d] = hi
    out[:, d:] = lo
    return out


def _tfidf_idf(table, idf) -> np.ndarray:
    """The checked idf for tf-idf; ``table`` is optional and only fixes the vocabulary size."""
    if table is not None:
        table = np.asarray(table)
        if table.ndim != 2:
            raise ValueError(f"table: must be a 2-D (vocabulary, dims) array, got shape {table.shape}")
    return _check_idf(idf, None if table is None else table.shape[0], "tfidf")


def tfidf_vectors(tokens, lengths, idf) -> "sp.csr_matrix":
    """Sparse (P, V) tf x idf matrix: entry (p, w) = count of word w in text p times idf_w.

    Repeated words are summed into one entry (their count), so norms are exact. A text
    with no words is an all-zero row.
    """
    idf = _check_idf(idf, None, "tfidf")
    tokens, lengths = check_texts(tokens, lengths, idf.shape[0])
    return tfidf_block(tokens, lengths, idf)


def tfidf_block(tokens, lengths, idf) -> "sp.csr_matrix":
    import scipy.sparse as sp  # here, not at import: the encoder's path never builds tf-idf (a CLI call's 0.2 s)

    mask = np.arange(tokens.shape[1]) < lengths[:, None]
    rows = np.nonzero(mask)[0]
    cols = tokens[mask].astype(np.int64)
    m = sp.csr_matrix((idf[cols], (rows, cols)), shape=(tokens.shape[0], idf.shape[0]))
    m.sum_duplicates()  # a repeated word becomes one entry count * idf
    return m


def baseline_vectors(method: str, table, tokens, lengths, idf=None, *, top_rule: str = "paper",
                 chunk_size: int | None = None, dtype=np.float64):
    """Text vectors of ``method`` for every row of ``tokens``.

    table: (V, d) word vectors; tokens: (P, W) int word indices, idf-descending and
    right-padded; lengths: (P,) true lengths; idf: (V,) (needed by ``mean_idf`` and
    ``tfidf``). Returns a (P, d) array, (P, 2d) for the min/max methods, in ``dtype``;
    for ``tfidf`` a scipy CSR (P, V) matrix (``table`` may then be None). Texts of length
    0 get the zero vector. ``chunk_size`` rows are processed at a time (default: about
    4M gathered values per block).
    """
    _check_method(method)
    _check_top_rule(top_rule)
    if method == "tfidf":
        return tfidf_vectors(tokens, lengths, _tfidf_idf(table, idf))
    table = check_table(table)
    idf = _check_idf(idf, table.shape[0], method)
    tokens, lengths = check_texts(tokens, lengths, table.shape[0])
    rows = _chunk_rows(tokens.shape[1], table.shape[1], chunk_size)
    out = np.empty((tokens.shape[0], _output_dim(method, table.shape[1])), dtype=dtype)
    for s in range(0, tokens.shape[0], rows):
        out[s:s + rows] = vectors_block(method, table, idf, tokens[s:s + rows], lengths[s:s + rows], top_rule)
    return out


# ---------------------------------------------------------------------------------------
# pair scores
# ---------------------------------------------------------------------------------------

def row_dot(x, y) -> np.ndarray:
    """Row-wise dot products of two scipy CSR matrices of one shape; (P,)."""
    return np.asarray(x.multiply(y).sum(axis=1)).ravel()


def tfidf_cosine(tokens_a, len_a, tokens_b, len_b, idf, *, chunk_size: int | None = None) -> np.ndarray:
    """Cosine similarity of the tf-idf vectors of text a and text b, per row; (P,) float64.

    0 where either text is empty or has an all-zero tf-idf vector, and where no word is
    shared (a zero dot product).
    """
    idf = _check_idf(idf, None, "tfidf")
    tokens_a, len_a = check_texts(tokens_a, len_a, idf.shape[0], "tokens_a")
    tokens_b, len_b = check_texts(tokens_b, len_b, idf.shape[0], "tokens_b")
    if tokens_a.shape[0] != tokens_b.shape[0]:
        raise ValueError(f"tokens_b: {tokens_b.shape[0]} rows but tokens_a has {tokens_a.shape[0]}")
    width = max(tokens_a.shape[1], tokens_b.shape[1])
    rows = _chunk_rows(width, 16, chunk_size)
    out = np.zeros(tokens_a.shape[0], dtype=np.float64)
    for s in range(0, tokens_a.shape[0], rows):
        va = tfidf_block(tokens_a[s:s + rows], len_a[s:s + rows], idf)
        vb = tfidf_block(tokens_b[s:s + rows], len_b[s:s + rows], idf)
        norms = np.sqrt(row_dot(va, va) * row_dot(vb, vb))
        dot = row_dot(va, vb)
        ok = norms > 0
        out[s:s + rows][ok] = dot[ok] / norms[ok]
    return out


def baseline_pair_scores(method: str, table, pairs: PairSet, idf=None, *, top_rule: str = "paper",
                chunk_size: int | None = None, empty_score: float | None = None) -> np.ndarray:
    """Similarity of text a and text b for every couple of ``pairs``; (P,) float64.

    Embedding methods: -||t(a) - t(b)||_2 (Euclidean, paper section 4). ``tfidf``: cosine
    of the tf-idf vectors (``table`` may be None). Higher means more related. Empty texts
    are zero vectors; ``empty_score``, when given, overrides the score of every couple
    with at least one empty text (the authors' code returned a constant there).
    """
    _check_method(method)
    _check_top_rule(top_rule)
    a, b, la, lb = (np.asarray(x) for x in pairs[:4])
    if a.ndim != 2 or b.shape != a.shape:
        raise ValueError(f"pairs: a and b must be 2-D arrays of one shape, got {a.shape} and {b.shape}")
    if method == "tfidf":
        out = tfidf_cosine(a, la, b, lb, _tfidf_idf(table, idf), chunk_size=chunk_size)
    else:
        table = check_table(table)
        idf = _check_idf(idf, table.shape[0], method)
        a, la = check_texts(a, la, table.shape[0], "pairs.a")
        b, lb = check_texts(b, lb, table.shape[0], "pairs.b")
        rows = _chunk_rows(a.shape[1], 2 * table.shape[1], chunk_size)
        out = np.empty(a.shape[0], dtype=np.float64)
        for s in range(0, a.shape[0], rows):
            va = vectors_block(method, table, idf, a[s:s + rows], la[s:s + rows], top_rule)
            vb = vectors_block(method, table, idf, b[s:s + rows], lb[s:s + rows], top_rule)
            out[s:s + rows] = -np.linalg.norm(va - vb, axis=1)
    if empty_score is not None:
        out[(la == 0) | (lb == 0)] = float(empty_score)
    return out

