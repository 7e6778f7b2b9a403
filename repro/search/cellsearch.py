"""Search through k-means cells: the couples of a set that score at least a threshold, and the top k
of a query, scanning only a few cells per item (beyond the paper; issue 58).

Each item lives in its nearest cell (its *home*, :mod:`repro.search.cells`) and knows its
``probes`` nearest cells. A couple (x, y) is a candidate when y's home is among x's probed cells
or x's home among y's: cell by cell, the items that probe the cell are scored against its
members by float32 matrix products, in blocks. The result is approximate only in what it may
miss: every candidate whose float32 score reaches the threshold less a bound on float32
rounding (as in :mod:`repro.search.neighbours`) is scored exactly, in float64 by
:func:`repro.core.textmetric.vector_scores`, and only those that reach it are reported. So no
couple is reported that the exact path would not report, with the same score.
"""

from __future__ import annotations

import functools

import numpy as np

from repro.search.neighbours import PAIR_CHUNK, block_scores, down32, exact, left_operand, operand, rounding_bound
from repro.search.neighbours import norms as row_norms

#: probed cells per query for the top k
QUERY_PROBES = 256
#: rows of the probing items and of a cell's members per block product
Q_BLOCK, M_BLOCK = 4096, 4096
#: probed cells per item at most (a couple is found from either side), and how much lower than its
#: home's a probed centroid's score may be
MAX_PROBES, MARGIN = 10, 0.2


@functools.cache
def _upper() -> np.ndarray:
    """(M_BLOCK, M_BLOCK) bool, True above the diagonal (made on first use: 16 MB, a tenth of a second)."""
    return np.triu(np.ones((M_BLOCK, M_BLOCK), bool), 1)


def inverted(cells: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(items, starts): the items of each cell of ``cells`` ((n,) or (n, p) cell numbers, -1 for
    none) in ascending order, cell c's at items[starts[c]:starts[c + 1]]."""
    cells = cells.reshape(len(cells), -1)
    flat = cells.ravel()
    order = np.argsort(flat, kind="stable")
    order = order[flat[order] >= 0]
    items = (order // cells.shape[1]).astype(np.int64)
    starts = np.zeros(count + 1, np.int64)
    np.cumsum(np.bincount(flat[flat >= 0], minlength=count), out=starts[1:])
    return items, starts


def probed(cells: np.ndarray, scores: np.ndarray, probes: int, margin: float) -> np.ndarray:
    """(n, probes) the cells an item probes: its home, then each of its next nearest cells whose
    centroid scores at least its home's less ``margin`` (-1 in place of the others)."""
    out = cells[:, :probes].copy()
    out[:, 1:][scores[:, 1:probes] < scores[:, :1] - np.float32(margin)] = -1
    return out


def threshold_bound(a_norms: np.ndarray, t: float, metric: str) -> np.ndarray:
    """Per row, the exact least value of :func:`repro.search.neighbours.block_scores` of a couple
    scoring ``t``: t for the cosine, |a|^2 - t^2 for the Euclidean proxy 2 a.b - |b|^2."""
    return np.full(len(a_norms), t) if metric == "cosine" else a_norms ** 2 - t * t


def _passing(s: np.ndarray, bound32: np.ndarray, q_ids: np.ndarray, m_ids: np.ndarray, n: int,
             upper: bool = False) -> np.ndarray:
    """Keys i * n + j (i < j) of the entries of ``s`` (rows ``q_ids``, columns ``m_ids``) whose
    float32 score reaches their row's bound; ``upper``: only those above the diagonal (a block of
    a cell's members against themselves)."""
    mask = s >= bound32[:, None]
    if upper:
        mask &= _upper()[:mask.shape[0], :mask.shape[1]]
    flat = np.flatnonzero(mask)  # faster than a 2-d nonzero
    i, j = q_ids[flat // s.shape[1]], m_ids[flat % s.shape[1]]
    i, j = i[i != j], j[i != j]
    return np.minimum(i, j) * np.int64(n) + np.maximum(i, j)


def candidates(x, x_norms: np.ndarray, cells: np.ndarray, count: int, threshold: float, metric: str,
               probes: int = MAX_PROBES, progress=None) -> np.ndarray:
    """Sorted distinct keys i * n + j (i < j) of the candidate couples (module docstring) whose float32
    score reaches the threshold less the rounding bound: a cell's members against themselves (each
    couple once) and the items that probe it from another home against its members."""
    n, dim, t = x.shape[0], x.shape[1], float(threshold)
    probes = min(probes, cells.shape[1])
    members, m_starts = inverted(cells[:, 0], count)
    visiting = cells[:, 1:probes]  # the probed cells other than the home
    probing, q_starts = inverted(visiting, count) if probes > 1 else (np.zeros(0, np.int64), np.zeros(count + 1, np.int64))
    keys = []
    for c in range(count):
        m_all = members[m_starts[c]:m_starts[c + 1]]
        q_all = probing[q_starts[c]:q_starts[c + 1]]
        if progress is not None:
            progress(m_all.size)
        for m0 in range(0, m_all.size, M_BLOCK):
            m_ids = m_all[m0:m0 + M_BLOCK]
            m_norms = x_norms[m_ids]
            b32 = operand(np.asarray(x[m_ids]), m_norms, metric)
            m_max = m_norms.max()
            # the members against the members from this block on (this block: above its diagonal)
            for a0 in range(m0, m_all.size, M_BLOCK):
                a_ids = m_all[a0:a0 + M_BLOCK]
                keys.append(_block_keys(x, x_norms, a_ids, m_ids, b32, m_norms, m_max, t, metric, dim, n, a0 == m0))
            for q0 in range(0, q_all.size, Q_BLOCK):
                q_ids = q_all[q0:q0 + Q_BLOCK]
                keys.append(_block_keys(x, x_norms, q_ids, m_ids, b32, m_norms, m_max, t, metric, dim, n, False))
    if not keys:
        return np.zeros(0, np.int64)
    keys = np.sort(np.concatenate(keys))
    return keys[np.concatenate([[True], keys[1:] != keys[:-1]])] if keys.size else keys


def _block_keys(x, x_norms, q_ids, m_ids, b32, m_norms, m_max, t, metric, dim, n, upper):
    """:func:`_passing` of the rows ``q_ids`` against the members ``m_ids`` (operand ``b32``)."""
    q_norms = x_norms[q_ids]
    s = block_scores(left_operand(np.asarray(x[q_ids]), q_norms, metric), b32, m_norms, metric)
    bound32 = down32(threshold_bound(q_norms, t, metric) - rounding_bound(q_norms, m_max, dim, metric))
    return _passing(s, bound32, q_ids, m_ids, n, upper)


def float64_norms(x, block: int = 65536) -> np.ndarray:
    """(n,) the float64 lengths of the rows of ``x`` as :func:`repro.core.textmetric.vector_scores`
    computes them (``np.linalg.norm`` of each float64 row: the same bits whatever the block)."""
    out = np.empty(x.shape[0])
    for lo in range(0, x.shape[0], block):
        out[lo:lo + block] = np.linalg.norm(np.asarray(x[lo:lo + block], np.float64), axis=1)
    return out


def exact_scores(x, i: np.ndarray, j: np.ndarray, metric: str, norms64: np.ndarray | None = None) -> np.ndarray:
    """float64 scores of the couples (x[i], x[j]), bit for bit as
    :func:`repro.core.textmetric.vector_scores` gives them; under the cosine from the rows'
    :func:`float64_norms` ``norms64`` when given (the same per-row operations, not done twice)."""
    if metric != "cosine" or norms64 is None:
        return exact(x, i, x, j, metric)
    return _cosine(np.asarray(x[i], np.float64), np.asarray(x[j], np.float64), norms64[i] * norms64[j])


def _cosine(a: np.ndarray, b: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """The cosine of float64 rows a[i], b[i] from the product of their lengths, by the operations of
    :func:`repro.core.textmetric.vector_scores` (0 where a length is 0; clipped to [-1, 1])."""
    dots = np.einsum("ij,ij->i", a, b)
    cosine = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
    return np.clip(cosine, -1.0, 1.0, out=cosine)


def self_scores(x, metric: str, block: int = 65536) -> np.ndarray:
    """(n,) each row's exact score with itself (what two items sharing a row score), in blocks, by
    the operations of :func:`repro.core.textmetric.vector_scores` on the row twice (the same bits)."""
    out = np.empty(x.shape[0])
    for lo in range(0, x.shape[0], block):
        a = np.asarray(x[lo:lo + block], np.float64)
        if metric == "euclidean":
            out[lo:lo + len(a)] = -np.linalg.norm(a - a, axis=1)
            continue
        n = np.linalg.norm(a, axis=1)
        out[lo:lo + len(a)] = _cosine(a, a, n * n)
    return out


def scored(x, keys: np.ndarray, threshold: float, metric: str,
           norms64: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(i, j, score) of the couples ``keys`` (i * n + j) whose exact score reaches ``threshold``, in
    the keys' order; scores as :func:`repro.core.textmetric.vector_scores` gives them (float64;
    ``norms64``: :func:`float64_norms` of ``x``, to compute them once)."""
    n = np.int64(x.shape[0])
    out_i, out_j, out_s = [], [], []
    for lo in range(0, keys.size, PAIR_CHUNK):
        k = keys[lo:lo + PAIR_CHUNK]
        i, j = k // n, k % n
        sc = exact_scores(x, i, j, metric, norms64)
        ok = sc >= threshold
        out_i.append(i[ok])
        out_j.append(j[ok])
        out_s.append(sc[ok])
    if not out_i:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return np.concatenate(out_i), np.concatenate(out_j), np.concatenate(out_s)


def couples(x, x_norms: np.ndarray, cells: np.ndarray, count: int, threshold: float, metric: str,
            probes: int = MAX_PROBES, progress=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(i, j, score): the candidate couples (module docstring) scoring at least ``threshold``, each
    once with i < j, sorted by (i, j); scores exact (float64). ``x``: (n, d) vectors; ``x_norms``:
    their lengths; ``cells``: (n, P) each item's nearest cells, nearest first (P >= ``probes``);
    ``count``: the number of cells. ``progress``: called with each cell's number of members."""
    keys = candidates(x, x_norms, cells, count, threshold, metric, probes, progress)
    return scored(x, keys, float(threshold), metric, float64_norms(x) if metric == "cosine" else None)


def top_k(x, home: np.ndarray, centroids: np.ndarray, queries, q_cells: np.ndarray, k: int,
          metric: str) -> tuple[np.ndarray, np.ndarray]:
    """(ids, scores), (Q, k) each: per query, the ``k`` items of highest exact score among the
    members of its cells ``q_cells`` ((Q, p), nearest first), best first, ties by the lower id;
    where those cells hold fewer than ``k`` items, more of the query's cells are added (nearest
    first) until they hold k. ``home``: (n,) each item's home cell."""
    members, starts = inverted(home, len(centroids))
    queries = np.asarray(queries)
    q_norms = row_norms(queries, "queries")
    dim, n = x.shape[1], x.shape[0]
    k = min(int(k), n)
    ids, scores = np.empty((len(queries), k), np.int64), np.empty((len(queries), k))
    for q in range(len(queries)):
        cand = np.concatenate([members[starts[c]:starts[c + 1]] for c in q_cells[q]])
        if cand.size < k:  # too few: the query's cells by score until they hold k
            order = _ranked_cells(queries[q:q + 1], q_norms[q:q + 1], centroids, metric)
            enough = int(np.searchsorted(np.cumsum((starts[1:] - starts[:-1])[order]), k)) + 1
            cand = np.sort(np.concatenate([members[starts[c]:starts[c + 1]] for c in order[:enough]]))
        rows = np.asarray(x[cand])
        c_norms = row_norms(rows, "vectors")
        qa = left_operand(queries[q:q + 1], q_norms[q:q + 1], metric)
        s = block_scores(qa, operand(rows, c_norms, metric), c_norms, metric)[0]
        kth = np.partition(s, s.size - k)[s.size - k]
        err = rounding_bound(q_norms[q:q + 1], c_norms.max(), dim, metric)[0]
        keep = s >= down32(np.array([float(kth) - 2 * err]))[0]
        pool = cand[keep]
        exact_s = exact(queries[q:q + 1], np.zeros(pool.size, np.int64), rows[keep], np.arange(pool.size), metric)
        best = np.lexsort((pool, -exact_s))[:k]
        ids[q], scores[q] = pool[best], exact_s[best]
    return ids, scores


def _ranked_cells(query, q_norm, centroids, metric) -> np.ndarray:
    """Every cell, nearest to the (1, d) ``query`` first."""
    s = operand(query, q_norm, metric) @ centroids.T
    if metric == "euclidean":
        s = 2 * s - np.einsum("ij,ij->i", centroids, centroids)[None, :]
    return np.argsort(-s[0], kind="stable")
