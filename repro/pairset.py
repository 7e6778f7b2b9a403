"""Couples of short texts as plain arrays: the one data structure every stage shares.

A :class:`PairSet` holds P couples (text a, text b). Each text is a row of word indices
into an embedding table / vocabulary, already sorted by descending idf (paper, section
3.1), padded on the right to a common width; the padding value is 0 and is never read
because every consumer masks with the lengths. ``label`` is 1 for a related pair and 0
for an unrelated one.

Couples are built in one place: :func:`from_rows` picks them out of an array of token rows (the
row-level entry, used by every data stage, the STS harness and the benchmarks), and
:meth:`repro.vocabulary.Vocabulary.couples` turns texts into rows and then couples through it.

On disk a PairSet is an ``.npz`` archive (no pickles) with the keys ``a``, ``b``, ``len_a``,
``len_b`` and ``label``: :func:`repro.store.save_pairs` and :func:`repro.store.load_pairs`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class PairSet(NamedTuple):
    a: np.ndarray  # (P, W) int32, idf-descending word indices, 0-padded
    b: np.ndarray  # (P, W) int32
    len_a: np.ndarray  # (P,) int32, true lengths
    len_b: np.ndarray  # (P,) int32
    label: np.ndarray  # (P,) int8, 1 = related, 0 = unrelated

    @property
    def width(self) -> int:
        return int(self.a.shape[1])

    @property
    def size(self) -> int:
        """Number of couples P (``len()`` of a PairSet is its 5 fields, as for any tuple)."""
        return int(self.label.shape[0])

    def take(self, index) -> "PairSet":
        """The couples at ``index`` (an integer array or a boolean mask)."""
        return PairSet(*(np.asarray(x)[index] for x in self))


def from_rows(rows, lengths, a, b, label) -> PairSet:
    """The couples (text ``a[k]``, text ``b[k]``) of ``rows`` with ``label[k]``: the one place a
    :class:`PairSet` is assembled.

    Args:
      rows: (N, W) idf-sorted, 0-padded token rows of N texts; lengths: (N,) their lengths.
      a, b: (P,) integer indices into ``rows`` (or boolean masks over them, of one count) of
        each couple's two texts; label: (P,) 1 related, 0 unrelated.
    Returns:
      a PairSet of (P, W) int32 rows, (P,) int32 lengths and (P,) int8 labels.
    """
    rows, lengths = np.asarray(rows), np.asarray(lengths)
    a, b, label = np.asarray(a), np.asarray(b), np.asarray(label)
    if rows.ndim != 2 or lengths.shape != rows.shape[:1]:
        raise ValueError(f"rows: need (N, W) rows and (N,) lengths, got {rows.shape} and {lengths.shape}")
    la, lb = lengths[a], lengths[b]
    if la.shape != lb.shape or label.shape != la.shape:
        raise ValueError(f"couples: {la.shape[0]:,} texts a, {lb.shape[0]:,} texts b and {label.shape} labels")
    return PairSet(rows[a].astype(np.int32, copy=False), rows[b].astype(np.int32, copy=False),
                   la.astype(np.int32, copy=False), lb.astype(np.int32, copy=False), label.astype(np.int8, copy=False))
