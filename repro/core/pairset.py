"""Couples of short texts as plain arrays: the one data structure every stage shares.

A :class:`PairSet` holds P couples (text a, text b). Each text is a row of word indices
into an embedding table / vocabulary, already sorted by descending idf (paper, section
3.1), padded on the right to a common width; the padding value is 0 and is never read
because every consumer masks with the lengths. ``label`` is 1 for a related pair and 0
for an unrelated one.

Couples are built in one place: :func:`from_rows` picks them out of an array of token rows (the
row-level entry, used by every data stage, the STS harness and the benchmarks), and
:meth:`repro.words.vocabulary.Vocabulary.couples` turns texts into rows and then couples through it.

On disk a PairSet is an ``.npz`` archive (no pickles) with the keys ``a``, ``b``, ``len_a``,
``len_b`` and ``label``: :func:`repro.io.store.save_pairs` and :func:`repro.io.store.load_pairs`.
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


COMPONENT_TEXTS = 100_000
"""Distinct training texts the common components are fitted on: all of them up to this many,
else a seeded uniform sample of this many (a whole dump has 6M; the top 5 directions of 400 need
far fewer, and 6M x 400 float64 would be 19 GB)."""


def distinct_texts(tokens, lengths) -> tuple[np.ndarray, np.ndarray]:
    """The distinct texts of the rows (N, W), (N,): each once, in the order of its first row
    (only the first ``length`` columns of a row count)."""
    tokens, lengths = np.asarray(tokens), np.asarray(lengths)
    if lengths.size == 0:
        return tokens, lengths
    keyed = np.where(np.arange(tokens.shape[1])[None, :] < lengths[:, None], tokens, -1).astype(np.int64)
    keyed = np.ascontiguousarray(np.concatenate([lengths[:, None].astype(np.int64), keyed], axis=1))
    rows = keyed.view(np.dtype((np.void, keyed.dtype.itemsize * keyed.shape[1]))).ravel()
    _, first = np.unique(rows, return_index=True)
    keep = np.sort(first)
    return tokens[keep], lengths[keep]


def training_texts(train) -> tuple[np.ndarray, np.ndarray]:
    """The distinct texts of the training couples (a text in several couples counts once):
    (tokens, lengths); beyond :data:`COMPONENT_TEXTS` of them a uniform sample of that many, in
    their order, drawn with seed 0."""
    tokens, lengths = distinct_texts(np.concatenate([train.a, train.b]), np.concatenate([train.len_a, train.len_b]))
    limit = COMPONENT_TEXTS
    if lengths.size > limit:
        keep = np.sort(np.random.default_rng(0).choice(lengths.size, limit, replace=False))
        return tokens[keep], lengths[keep]
    return tokens, lengths
