"""Couples of short texts as plain arrays: the one data structure every stage shares.

A :class:`PairSet` holds P couples (text a, text b). Each text is a row of word indices
into an embedding table / vocabulary, already sorted by descending idf (paper, section
3.1), padded on the right to a common width; the padding value is 0 and is never read
because every consumer masks with the lengths. ``label`` is 1 for a related pair and 0
for an unrelated one.

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
