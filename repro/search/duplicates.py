"""Near-duplicates of a set of text vectors under either rule, by the exact scan or through k-means
cells, whichever is faster for the set's size (beyond the paper; issue 58).

* **exact** (:mod:`repro.search.dedup`): every couple scored, in blocks; the cost grows as the
  square of the set. The default below :data:`CROSSOVER` rows, always under the Euclidean
  distance or a cosine threshold below :data:`CELLS_MIN_COSINE`, and whenever ``exact=True``.
  Under the groups rule on a set without repeated rows it is :func:`repro.search.dedup.groups`,
  the groups of earlier versions bit for bit.
* **cells** (:mod:`repro.search.cells`, :mod:`repro.search.cellsearch`): each row scanned against
  the rows of its nearest few cells. Approximate only in what it may miss: every couple it reports
  is scored exactly, with the exact path's score.

The set is given as rows and, optionally, ``rep``: each item's row, where items share a row (a
text repeated, encoded once); the rules (:mod:`repro.search.rules`) then treat two items of one row
as scoring the row's score with itself.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from repro.errors import InputError
from repro.search import cells as cellmod
from repro.search import cellsearch, dedup, rules
from repro.search.neighbours import as_matrix, norms

#: rows below which the exact scan is the default (measured on 2 cores: docs/SEARCH.md)
CROSSOVER = 40_000
#: the least cosine threshold the cells are used for (lower ones: nearly every couple qualifies)
CELLS_MIN_COSINE = 0.5
RULES = ("groups", "first")


class Duplicates(NamedTuple):
    """What :func:`near_duplicates` found. ``rule``: "groups" or "first"; ``method``: "exact" or
    "cells"; ``couples``: the number of couples of rows scoring at least the threshold.
    Groups: ``group`` (N,) and ``size`` (G,). Keep first: ``kept`` (N,) bool, ``duplicate_of`` (N,)
    (-1 where kept) and ``score`` (N,) (NaN where kept). The other rule's fields are None."""
    rule: str
    method: str
    couples: int
    group: np.ndarray | None = None
    size: np.ndarray | None = None
    kept: np.ndarray | None = None
    duplicate_of: np.ndarray | None = None
    score: np.ndarray | None = None

    def largest(self) -> int:
        """The largest group (groups), or the most items one kept item stands for (keep first)."""
        if self.rule == "groups":
            return int(self.size.max())
        return rules.largest_cluster(self.kept, self.duplicate_of)


def check_rule(rule: str) -> str:
    if rule not in RULES:
        raise InputError("rule", f"must be one of {', '.join(RULES)}, got {rule!r}")
    return rule


def uses_cells(rows: int, threshold: float, metric: str, exact: bool | None) -> bool:
    """Whether :func:`near_duplicates` goes through the cells: never under ``exact=True``, the
    Euclidean distance or a cosine threshold below :data:`CELLS_MIN_COSINE`; else from
    :data:`CROSSOVER` rows on, or always under ``exact=False``."""
    if exact or metric != "cosine" or threshold < CELLS_MIN_COSINE:
        return False
    return exact is False or rows >= CROSSOVER


def cell_couples(v, threshold: float, metric: str = "cosine", *, seed: int = 0, probes: int = cellsearch.MAX_PROBES,
                 margin: float = cellsearch.MARGIN, v_norms: np.ndarray | None = None, progress=None):
    """(i, j, score) of the rows of ``v`` through k-means cells learned on its first rows
    (``v_norms``: their lengths, where known)."""
    v_norms = norms(v, "vectors") if v_norms is None else v_norms
    centroids = cellmod.train_cells(v, metric, seed=seed)
    near, near_scores = cellmod.nearest_cells(v, centroids, metric, probes, x_norms=v_norms)
    probed = cellsearch.probed(near, near_scores, probes, margin)
    return cellsearch.couples(v, v_norms, probed, len(centroids), threshold, metric, probes, progress)


def near_duplicates(vectors, threshold: float, metric: str = "cosine", *, rule: str = "groups", rep=None,
                    exact: bool | None = None, seed: int = 0, cells_of=None, row_norms: np.ndarray | None = None,
                    progress=None) -> Duplicates:
    """The near-duplicates of a set under ``rule`` ("groups": single linkage; "first": keep the first,
    drop what scores at least ``threshold`` with a kept item). ``vectors``: (R, d) rows (an array or
    a memory map); ``rep``: (N,) each item's row (default: item i is row i); ``exact``: True forces
    the exact scan, False the cells, None chooses by size (:func:`uses_cells`); ``cells_of``: the
    rows' probed cells and their number, where known (an index folder's), else learned here;
    ``row_norms``: the rows' lengths (:func:`repro.search.neighbours.norms`), where known."""
    v = as_matrix(vectors, "vectors")
    t = dedup.check_threshold(threshold, metric)
    check_rule(rule)
    rows = v.shape[0]
    rep = np.arange(rows) if rep is None else np.asarray(rep, np.int64)
    cells = uses_cells(rows, t, metric, exact)
    if not cells and rule == "groups" and rep.size == rows and np.array_equal(rep, np.arange(rows)):
        group, size = dedup.groups(v, t, metric)  # the exact groups of earlier versions
        return Duplicates("groups", "exact", -1, group=group, size=size)
    if cells and cells_of is not None:
        probed, count = cells_of
        v_norms = norms(v, "vectors") if row_norms is None else row_norms
        i, j, s = cellsearch.couples(v, v_norms, probed, count, t, metric, probed.shape[1], progress)
    elif cells:
        i, j, s = cell_couples(v, t, metric, seed=seed, v_norms=row_norms, progress=progress)
    else:
        i, j, s = dedup.couples(v, t, metric)
    self_score = cellsearch.self_scores(v, metric)
    self_ok = self_score >= t
    method = "cells" if cells else "exact"
    if rule == "groups":
        group, size = rules.groups(i, j, rep, self_ok)
        return Duplicates("groups", method, int(i.size), group=group, size=size)
    kept, dup, score = rules.keep_first(i, j, s, rep, self_ok, self_score)
    return Duplicates("first", method, int(i.size), kept=kept, duplicate_of=dup, score=score)
