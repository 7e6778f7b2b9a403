"""The two dedup rules, on the couples of a set that score at least a threshold (beyond the paper; issue 58).

**Groups** (single linkage): items joined by a chain of couples are one group, the connected
components of the graph of couples. Two members of a group may score below the threshold, and on
a large set a chain can join unrelated texts into one large group.

**Keep first** (semhash's rule): go through the items in order; an item that scores at least the
threshold with an item kept before it is dropped, as a duplicate of the kept item it scores
highest with (ties: the lower id); any other item is kept. Every dropped item is within the
threshold of its kept item, so no chain forms; the kept set depends on the order.

Both take the couples of *rows*, with ``rep`` mapping each item to its row: items with the same row
(the same text, encoded once) score with each other the row's score with itself, ``self_score``
(1 under the cosine for a non-zero vector, up to rounding; 0 for a zero vector).
"""

from __future__ import annotations

import numpy as np

from repro.search.dedup import join, roots


def numbered(root: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(group, size) from each item's root, groups numbered in the order of their first item."""
    _, first, group = np.unique(root, return_index=True, return_inverse=True)
    renumber = np.empty(len(first), np.int64)
    renumber[np.argsort(first, kind="stable")] = np.arange(len(first))
    group = renumber[group]
    return group.astype(np.int64), np.bincount(group).astype(np.int64)


def groups(i: np.ndarray, j: np.ndarray, rep: np.ndarray, self_ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(group, size) of the items under single linkage (module docstring): (N,) int64 each item's
    group, numbered in the order of each group's first item, and (G,) int64 the sizes. ``i, j``:
    couples of rows scoring at least the threshold; ``rep``: (N,) each item's row; ``self_ok``:
    per row, whether two items of that row score at least the threshold."""
    rows = len(self_ok)
    n = len(rep)
    first_item = np.full(rows, n, np.int64)
    np.minimum.at(first_item, rep, np.arange(n))
    # join on items: each item to its row's first item (where the row scores with itself), and
    # the couples of rows through their first items
    parent = np.arange(n)
    same = self_ok[rep]
    parent = join(parent, np.arange(n)[same], first_item[rep[same]])
    used = (first_item[i] < n) & (first_item[j] < n)  # rows no item stands on join nothing
    parent = join(parent, first_item[i][used], first_item[j][used])
    return numbered(roots(parent))


def keep_first(i: np.ndarray, j: np.ndarray, score: np.ndarray, rep: np.ndarray, self_ok: np.ndarray,
               self_score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(kept, duplicate_of, score) under the keep-first rule (module docstring): (N,) bool each item
    kept; (N,) int64 the kept item a dropped one duplicates (-1 for a kept one); (N,) float64 their
    score (NaN for a kept one). ``i, j, score``: couples of rows and their exact scores (each
    once); ``rep``: (N,) each item's row; ``self_ok``, ``self_score``: per row, whether two items of
    the row score at least the threshold, and that score."""
    n, rows = len(rep), len(self_ok)
    # each row's neighbouring rows and scores, both directions, as CSR
    a, b, s = np.concatenate([i, j]), np.concatenate([j, i]), np.concatenate([score, score])
    order = np.lexsort((b, a))
    a, b, s = a[order], b[order], s[order]
    starts = np.zeros(rows + 1, np.int64)
    np.cumsum(np.bincount(a, minlength=rows), out=starts[1:])
    kept = np.ones(n, bool)
    dup = np.full(n, -1, np.int64)
    dup_score = np.full(n, np.nan)
    count = np.bincount(rep, minlength=rows)
    busy = (starts[1:] > starts[:-1]) | (self_ok & (count > 1))  # rows whose items may be dropped
    first_kept_l, busy_l, self_ok_l = [-1] * rows, busy.tolist(), self_ok.tolist()  # a row's first kept item
    starts_l, b_l, s_l, self_score_l = starts.tolist(), b.tolist(), s.tolist(), self_score.tolist()
    for item, r in enumerate(rep.tolist()):
        if not busy_l[r]:
            if first_kept_l[r] < 0:
                first_kept_l[r] = item
            continue
        best, best_s = -1, -np.inf
        if self_ok_l[r] and first_kept_l[r] >= 0:
            best, best_s = first_kept_l[r], self_score_l[r]
        for e in range(starts_l[r], starts_l[r + 1]):
            other = first_kept_l[b_l[e]]
            if other >= 0 and (s_l[e] > best_s or (s_l[e] == best_s and other < best)):
                best, best_s = other, s_l[e]
        if best >= 0:
            kept[item], dup[item], dup_score[item] = False, best, best_s
        elif first_kept_l[r] < 0:
            first_kept_l[r] = item
    return kept, dup, dup_score


def largest_cluster(kept: np.ndarray, duplicate_of: np.ndarray) -> int:
    """The most items one kept item stands for under keep-first: itself and its dropped duplicates."""
    if kept.all():
        return 1
    return int(np.bincount(duplicate_of[~kept]).max()) + 1
