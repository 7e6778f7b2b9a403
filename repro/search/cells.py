"""k-means cells of text vectors: the coarse partition behind the cell index (beyond the paper; issue 58).

The cells are learned by Lloyd's k-means, NumPy only, on the first ``train`` items of a set (the
prefix, not a sample: a set built at once and the same set built in parts and added to give the
same cells, so the same answers). Under the cosine the centroids are unit vectors and an item's
cell is the centroid of highest cosine (spherical k-means); under the Euclidean distance the
nearest centroid. Seeds: ``count`` distinct prefix items drawn by ``seed``; a cell left empty by
an iteration takes the prefix item farthest from its own centroid.

Every product here is float32 in blocks of :data:`BLOCK` rows whose start is a multiple of
``BLOCK``, the last one padded with zeros to a whole block: an item's cells are computed from the
same operands in the same shapes whether the set was built at once or in parts, so they are the
same bits (:func:`nearest_cells`).
"""

from __future__ import annotations

import numpy as np

from repro.errors import InputError
from repro.search.neighbours import norms as row_norms, operand

#: rows per block of every product with the centroids (blocks start at multiples of it)
BLOCK = 4096
#: items the cells are learned from: the first TRAIN of the set
TRAIN = 65536
#: items per cell aimed at on the training prefix (the count is a power of two up to MAX_CELLS)
PER_CELL = 32
MAX_CELLS = 2048
ITERATIONS = 10


def cell_count(n_train: int) -> int:
    """Cells for a training prefix of ``n_train`` items: the power of two nearest to
    n_train / :data:`PER_CELL` (at least 1, at most :data:`MAX_CELLS`)."""
    if n_train < 2 * PER_CELL:
        return 1
    return int(min(MAX_CELLS, 2 ** round(np.log2(n_train / PER_CELL))))


def _scores(x32: np.ndarray, cent: np.ndarray, cent_sq: np.ndarray, metric: str) -> np.ndarray:
    """(len(x32), C) float32: each item's score with each centroid, higher = nearer (cosine: the
    product of unit rows; Euclidean: 2 x.c - |c|^2)."""
    s = x32 @ cent.T
    if metric == "euclidean":
        s *= np.float32(2)
        s -= cent_sq[None, :]
    return s


def _padded_blocks(x, x_norms: np.ndarray, metric: str, start: int = 0):
    """(lo, rows, operand) of ``x[start:]`` in blocks of :data:`BLOCK` aligned to multiples of it
    (``start`` must be one), each operand padded with zero rows to a whole block."""
    for lo in range(start, x.shape[0], BLOCK):
        rows = np.asarray(x[lo:lo + BLOCK])
        op = operand(rows, x_norms[lo:lo + BLOCK], metric)
        if len(op) < BLOCK:
            op = np.concatenate([op, np.zeros((BLOCK - len(op), op.shape[1]), np.float32)])
        yield lo, len(rows), op


def _centroids_of(op: np.ndarray, label: np.ndarray, count: int, metric: str, far: np.ndarray) -> np.ndarray:
    """The mean of each cell's rows (unit length under the cosine); an empty cell takes the row
    that is farthest from its own centroid, by ``far`` (descending), one row per empty cell."""
    order = np.argsort(label, kind="stable")
    sizes = np.bincount(label, minlength=count)
    sums = np.zeros((count, op.shape[1]), np.float64)
    full = np.flatnonzero(sizes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])[full]
    sums[full] = np.add.reduceat(op[order].astype(np.float64), starts, axis=0)
    empty = np.flatnonzero(sizes == 0)
    if empty.size:
        donors = np.argsort(-far, kind="stable")[:empty.size]
        sums[empty], sizes[empty] = op[donors], 1
    cent = sums / sizes[:, None]
    if metric == "cosine":
        n = np.linalg.norm(cent, axis=1, keepdims=True)
        cent = np.divide(cent, n, out=np.zeros_like(cent), where=n > 0)
    return cent.astype(np.float32)


def train_cells(x, metric: str, count: int | None = None, *, train: int | None = None, seed: int = 0,
                iterations: int | None = None) -> np.ndarray:
    """(C, d) float32 centroids learned by k-means on the first ``train`` rows of ``x`` (an (n, d)
    array or memory map; default :data:`TRAIN`): ``count`` cells (default :func:`cell_count` of
    the prefix), ``iterations`` of Lloyd's (default :data:`ITERATIONS`)."""
    n_train = min(int(TRAIN if train is None else train), x.shape[0])
    iterations = ITERATIONS if iterations is None else int(iterations)
    if n_train < 1:
        raise InputError("vectors", "no vectors to learn cells from")
    prefix = np.asarray(x[:n_train])
    op = operand(prefix, row_norms(prefix, "vectors"), metric)
    count = cell_count(n_train) if count is None else int(count)
    if not 1 <= count <= n_train:
        raise InputError("cells", f"must lie in [1, {n_train}] (the training prefix), got {count}")
    rng = np.random.default_rng(seed)
    cent = op[np.sort(rng.choice(n_train, count, replace=False))].copy()
    for _ in range(iterations):
        cent_sq = np.einsum("ij,ij->i", cent, cent)
        label, best = np.empty(n_train, np.int64), np.empty(n_train, np.float32)
        for lo in range(0, n_train, BLOCK):
            s = _scores(op[lo:lo + BLOCK], cent, cent_sq, metric)
            label[lo:lo + BLOCK] = s.argmax(axis=1)
            best[lo:lo + BLOCK] = s[np.arange(len(s)), label[lo:lo + BLOCK]]
        cent = _centroids_of(op, label, count, metric, -best)
    return cent


def nearest_cells(x, centroids: np.ndarray, metric: str, probes: int, *, start: int = 0,
                  x_norms: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(cells, scores): (n - start, probes) int32 the ``probes`` cells of highest score (nearest
    first) of each row of ``x[start:]`` (``start`` a multiple of :data:`BLOCK`), and (n - start,
    probes) float32 those scores, in aligned, padded blocks."""
    if start % BLOCK:
        raise ValueError(f"start must be a multiple of {BLOCK}")
    probes = min(int(probes), len(centroids))
    x_norms = row_norms(x, "vectors") if x_norms is None else x_norms
    cent_sq = np.einsum("ij,ij->i", centroids, centroids)
    out = np.empty((x.shape[0] - start, probes), np.int32)
    scores = np.empty((x.shape[0] - start, probes), np.float32)
    for lo, m, op in _padded_blocks(x, x_norms, metric, start):
        s = _scores(op, centroids, cent_sq, metric)[:m]
        rows = np.arange(m)
        for p in range(probes):  # p argmax passes: far cheaper than a partition of every row
            best = s.argmax(axis=1)
            out[lo - start:lo - start + m, p] = best
            scores[lo - start:lo - start + m, p] = s[rows, best]
            s[rows, best] = -np.inf
    return out, scores
