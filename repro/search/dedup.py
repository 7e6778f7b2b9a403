"""Near-duplicate groups of a set of text vectors: the items joined by chains of couples scoring at
least a threshold (beyond the paper; issue 35).

The rule: items i and j are in one group when a chain i = a_0, a_1, ..., a_m = j exists whose
every link scores at least ``threshold`` (:func:`repro.core.textmetric.vector_scores`, in float64:
the cosine, or minus the Euclidean distance): the connected components of the graph whose
edges are the couples scoring at least the threshold (single linkage). Two members of one group
may therefore score below it. An item with no such couple is a group of one.

How (NumPy only): the set goes ``block`` rows at a time against itself (each couple once, j > i);
one float32 matrix product per pair of blocks, the couples whose float32 score reaches the
threshold less a bound on float32 rounding (as in :mod:`repro.search.neighbours`) are scored exactly,
and those at or above it join their groups in a union-find (each root points to a smaller one,
so a group's root is its first item). Memory is bounded by the blocks and ``edge_budget``
couples held before they are joined, whatever the set's size.
"""

from __future__ import annotations

import math

import numpy as np

from repro.errors import InputError
from repro.search.neighbours import (PAIR_CHUNK, as_matrix, block_scores, buffer, down32, exact, left_operand, norms, operand,
                              rounding_bound)
from repro.core.textmetric import check_metric

#: rows per block of the set against itself
BLOCK = 4096
#: couples found before they are joined into the groups
EDGE_BUDGET = 1 << 22


def check_threshold(threshold, metric: str, name: str = "threshold") -> float:
    """``threshold`` as a float within the metric's range: [-1, 1] for the cosine, at most 0 for
    minus the Euclidean distance (InputError naming ``name`` otherwise)."""
    check_metric(metric)
    try:
        t = float(threshold)
    except (TypeError, ValueError):
        raise InputError(name, f"must be a number, got {threshold!r}") from None
    if metric == "cosine" and not -1.0 <= t <= 1.0:
        raise InputError(name, f"the cosine lies in [-1, 1], got {threshold!r}")
    if metric == "euclidean" and not (math.isfinite(t) and t <= 0):
        raise InputError(name, f"scores under euclidean are minus a distance, so at most 0 (0: identical "
                               f"vectors only), got {threshold!r}")
    return t


def roots(parent: np.ndarray) -> np.ndarray:
    """Every item's root: ``parent`` followed until it stops (pointer jumping)."""
    while True:
        up = parent[parent]
        if np.array_equal(up, parent):
            return parent
        parent = up


def join(parent: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``parent`` with the groups of a[i] and b[i] joined for every i; each root then points to
    the smallest item of its group."""
    parent = roots(parent)
    while a.size:
        ra, rb = parent[a], parent[b]
        apart = ra != rb
        a, b, ra, rb = a[apart], b[apart], ra[apart], rb[apart]
        if not a.size:
            break
        np.minimum.at(parent, np.maximum(ra, rb), np.minimum(ra, rb))  # a root hooked to a smaller one
        parent = roots(parent)
    return parent


def _block_edges(a_rows, a_norms, b_rows, b_norms, s, t: float, metric: str, diagonal: bool, a_roots, b_roots,
                 with_scores: bool = False):
    """(i, j) of the couples of one pair of blocks (rows of ``a`` against rows of ``b``) scoring at
    least ``t``, those whose roots (``a_roots``, ``b_roots``) are already one left out (none when
    ``a_roots`` is None); with their exact scores when ``with_scores``."""
    err = rounding_bound(a_norms, b_norms.max(), a_rows.shape[1], metric)
    bound = np.full(len(a_norms), t) if metric == "cosine" else a_norms ** 2 - t * t  # on the proxy's scale
    mask = s >= down32(bound - err)[:, None]
    if diagonal:
        mask &= np.triu(np.ones(mask.shape, bool), 1)
    flat = np.flatnonzero(mask)
    i, j = flat // s.shape[1], flat % s.shape[1]
    if a_roots is not None:
        apart = a_roots[i] != b_roots[j]
        i, j = i[apart], j[apart]
    found_i, found_j, found_s = [], [], []
    for lo in range(0, i.size, PAIR_CHUNK):
        ii, jj = i[lo:lo + PAIR_CHUNK], j[lo:lo + PAIR_CHUNK]
        sc = exact(a_rows, ii, b_rows, jj, metric)
        keep = sc >= t
        found_i.append(ii[keep])
        found_j.append(jj[keep])
        found_s.append(sc[keep])
    if with_scores:
        return np.concatenate(found_i or [i]), np.concatenate(found_j or [j]), np.concatenate(found_s or [np.zeros(0)])
    return np.concatenate(found_i or [i]), np.concatenate(found_j or [j])


def _block_pairs(x, block: int, metric: str):
    """Every pair of blocks of ``x`` against itself (each once, the second from the first on):
    (a0, b0, a_rows, a_norms, b_rows, b_norms, float32 scores of :func:`block_scores`), the scores
    in one reused buffer."""
    n = x.shape[0]
    all_norms = norms(x, "vectors")
    flat = np.empty(min(block, n) ** 2, np.float32)  # every pair of blocks' scores, in turn
    for a0 in range(0, n, block):
        a_rows, a_norms = np.asarray(x[a0:a0 + block]), all_norms[a0:a0 + block]
        left = left_operand(a_rows, a_norms, metric)
        for b0 in range(a0, n, block):
            b_rows, b_norms = np.asarray(x[b0:b0 + block]), all_norms[b0:b0 + block]
            yield a0, b0, a_rows, a_norms, b_rows, b_norms, block_scores(
                left, operand(b_rows, b_norms, metric), b_norms, metric, buffer(flat, (len(left), len(b_rows))))


def groups(vectors, threshold: float, metric: str = "cosine", *, block: int = BLOCK,
           edge_budget: int = EDGE_BUDGET) -> tuple[np.ndarray, np.ndarray]:
    """(group, size): (N,) int64 each item's group, numbered 0, 1, ... in the order of each group's
    first item (so item 0 is in group 0), and (G,) int64 each group's number of items, under the
    rule of this module's docstring. ``vectors``: (N, d), an array or a memory map (read one block
    at a time); ``metric``: "cosine" or "euclidean". Bad input raises
    :class:`repro.errors.InputError` naming the argument."""
    x = as_matrix(vectors, "vectors")
    t = check_threshold(threshold, metric)
    if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 1:
        raise InputError("block", f"must be a whole number of at least 1, got {block!r}")
    n = x.shape[0]
    parent = np.arange(n)
    held_a, held_b, held = [], [], 0
    for a0, b0, a_rows, a_norms, b_rows, b_norms, s in _block_pairs(x, block, metric):
        i, j = _block_edges(a_rows, a_norms, b_rows, b_norms, s, t, metric, a0 == b0, parent[a0:a0 + block],
                            parent[b0:b0 + block])
        held_a.append(a0 + i)
        held_b.append(b0 + j)
        held += i.size
        if held >= edge_budget:
            parent = join(parent, np.concatenate(held_a), np.concatenate(held_b))
            held_a, held_b, held = [], [], 0
    if held:
        parent = join(parent, np.concatenate(held_a), np.concatenate(held_b))
    _, group = np.unique(roots(parent), return_inverse=True)  # roots are first items: groups in their order
    return group.astype(np.int64), np.bincount(group).astype(np.int64)


def couples(vectors, threshold: float, metric: str = "cosine", *, block: int = BLOCK):
    """(i, j, score): every couple of the set scoring at least ``threshold``, exactly, each once with
    i < j, sorted by (i, j), and its float64 score (:func:`repro.core.textmetric.vector_scores`):
    the pairs of blocks of :func:`groups`, none skipped. Their number can grow as the square of a
    group's size (a text repeated m times gives m (m - 1) / 2 couples)."""
    x = as_matrix(vectors, "vectors")
    t = check_threshold(threshold, metric)
    out_i, out_j, out_s = [], [], []
    for a0, b0, a_rows, a_norms, b_rows, b_norms, s in _block_pairs(x, block, metric):
        i, j, sc = _block_edges(a_rows, a_norms, b_rows, b_norms, s, t, metric, a0 == b0, None, None, True)
        out_i.append(a0 + i)
        out_j.append(b0 + j)
        out_s.append(sc)
    i, j, sc = np.concatenate(out_i), np.concatenate(out_j), np.concatenate(out_s)
    order = np.lexsort((j, i))
    return i[order], j[order], sc[order]
