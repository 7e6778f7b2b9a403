"""Long texts in memory and time linear in their length, with NumPy only (issue 35, item 1).

A text's vector is t(C) = (1/n) sum_j z_j e_(j) (paper, eq. 3): its n known words sorted by
descending idf (eq. 1), z_j the n_max learned weights interpolated onto the n positions
(section 3.3) by the code's rule (docs/FIDELITY.md): 0-based positions I_j = j (n_max - 1) / (n - 1)
and z_j = (w[ceil I_j] - w[floor I_j]) (I_j - floor I_j) / (ceil I_j - floor I_j + eps) + w[floor I_j],
eps = 1e-5 (:data:`repro.core.model.EPS`).

The encoder's short-text kernel (:mod:`repro.encode.weightedsums`) reads z_j / n from a table with a row
per length, (width + 1) x width numbers, made by JAX: right for the short texts the paper is
about, quadratic in the length of a long one. Here a text longer than that table is wide takes
a path that is O(n) in memory and time (plus the O(V) of a counting sort where n is at least a
quarter of the vocabulary, else a sort of its n ranks):

1. **Words and counts.** The text's known ranks, sorted, are runs of equal ranks (a word said
   k times holds k consecutive positions): its distinct words in rank order and their counts,
   by a counting sort (:func:`distinct`); no (n,) sorted copy is needed.
2. **Coefficients.** z_j is computed for :data:`BLOCK` positions at a time, in float64, and each
   word's run of positions is summed into its coefficient c_w = sum over its positions of z_j / n.
3. **Sum.** t(C) = sum_w c_w e_w over the distinct words, in float64, :data:`ROWS` table rows at a
   time, then rounded once to float32.

Everything is summed in float64: the short path adds n float32 terms one after the other,
which is exact enough for tens of words, but at a million words each term is a few units in the
last place of the running sum, so float32 would lose the vector's trailing digits. The two paths
agree to float32 rounding wherever both run (tests/test_longtext.py), and the short path keeps
its bits.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from repro.settings import N_MAX

#: Texts of at most this many words (or 2 n_max where that is more) are summed in their chunk
#: with the coefficient table, as before issue 35 (their bits are unchanged): twice the
#: variable-length setting's n_max, the width of the shipped coefficient tables
#: (:data:`repro.encode.weightedsums.PRECOMPUTED`), so a text past it never needs JAX.
SHORT_WORDS = 2 * N_MAX
#: The interpolation's eps (the original code's; the same as :data:`repro.core.model.EPS`, which
#: imports JAX and so cannot be imported here).
EPS = 1e-5
#: Positions of a long text whose z_j are computed at once (float64): 8 MB per array.
BLOCK = 1 << 20
#: Table rows summed at once (float64 copies of ROWS x d numbers).
ROWS = 8192


class LongTexts(NamedTuple):
    """What :func:`repro.encode.weightedsums.encode` needs for texts longer than its coefficient table."""

    width: int  # texts with more tokens than this leave the chunks; with more known words, this path
    ranks: Callable  # token lists -> (total tokens,) int32 ranks, the sentinel V for an unknown word
    weights: np.ndarray  # (n_max,) learned weights


def short_width(n_max: int) -> int:
    """The most known words of a text the coefficient table sums (:data:`SHORT_WORDS`, or 2 n_max)."""
    return max(SHORT_WORDS, 2 * int(n_max))


def interpolated(weights, n: int, start: int = 0, stop: int | None = None) -> np.ndarray:
    """(stop - start,) float64 z_j of positions start <= j < stop of a text of ``n`` known words
    (section 3.3, the code's formula of the module docstring). The positions come from the exact
    integer product j (n_max - 1), as :func:`repro.core.model.interpolated_weights` takes them; n = 1
    gives w[0], n = n_max gives w itself."""
    w = np.asarray(weights, np.float64)
    n_max, stop = w.shape[0], n if stop is None else stop
    pos = np.arange(start, stop, dtype=np.int64) * (n_max - 1) / max(n - 1, 1)
    lo = np.floor(pos)
    frac = pos - lo
    hi = np.ceil(pos)
    frac /= hi - lo + EPS
    lo_i = np.minimum(lo.astype(np.intp), n_max - 1)
    hi_i = np.minimum(hi.astype(np.intp), n_max - 1)
    w_lo = w[lo_i]
    return (w[hi_i] - w_lo) * frac + w_lo


def distinct(ranks: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(words, counts): the distinct values of ``ranks`` (each below ``size``) in ascending order
    and how often each occurs; by counting (O(n + size)) where n >= size / 4, else by sorting."""
    ranks = np.asarray(ranks)
    if 4 * ranks.size >= size:
        counts = np.bincount(ranks, minlength=size)
        words = np.flatnonzero(counts)
        return words, counts[words]
    words, counts = np.unique(ranks, return_counts=True)
    return words.astype(np.intp), counts


def word_coefficients(ranks: np.ndarray, weights, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(words, c): the distinct ranks of one text's known words (each below ``size``, in any
    order) ascending, and float64 c_w = sum over the word's positions of z_j / n (steps 1-2)."""
    n = int(np.asarray(ranks).size)
    words, counts = distinct(ranks, size)
    ends = np.cumsum(counts)  # the position after each word's run
    coef = np.zeros(words.size, np.float64)
    for start in range(0, n, BLOCK):
        stop = min(n, start + BLOCK)
        z = interpolated(weights, n, start, stop)
        first = int(np.searchsorted(ends, start, side="right"))  # the run holding position start
        last = int(np.searchsorted(ends, stop - 1, side="right"))  # ... and position stop - 1
        bounds = np.empty(last - first + 1, np.intp)
        bounds[0] = 0
        bounds[1:] = ends[first:last] - start  # where the later runs begin inside the block
        coef[first:last + 1] += np.add.reduceat(z, bounds)
    coef /= n
    return words, coef


def text_vector(ranks: np.ndarray, weights, table: np.ndarray) -> np.ndarray:
    """(d,) float32 t(C) of one text (eq. 3) from its known words' ranks (rows of the rank-ordered
    ``table``, (V + 1, d), any order; none may be the sentinel V): O(n) memory, float64 sums."""
    ranks = np.asarray(ranks)
    if not ranks.size:
        return np.zeros(table.shape[1], np.float32)
    words, coef = word_coefficients(ranks, weights, table.shape[0])
    total = np.zeros(table.shape[1], np.float64)
    for s in range(0, words.size, ROWS):
        part = table[words[s:s + ROWS]].astype(np.float64)
        part *= coef[s:s + ROWS, None]
        total += part.sum(axis=0)
    return total.astype(np.float32)


def known_ranks(tokens, ranks: Callable, sentinel: int) -> np.ndarray:
    """(n,) int32 ranks of the known words of one token list (``ranks``: a lookup such as
    :meth:`repro.words.ranklookup.RankLookup.ranks`, which takes a long list in bounded blocks)."""
    r = ranks([tokens])
    return r[r < sentinel]


#: The most words with a vector that a text of :meth:`repro.encode.encoder.Encoder.fit`'s couples may
#: hold. Learning pads every text to the longest one (the (2P, W) token rows of
#: :class:`repro.core.pairset.PairSet`), and the kappa search gathers the embeddings of 8,192
#: held-out couples at a time (:data:`repro.core.crossval.HELD_OUT_CHUNK`): 2 x 8,192 x W x d x 4
#: bytes, 5 GB at W = 256 and d = 300. The paper's texts hold at most 30 words (35 on Twitter).
#: Encoding (``transform``, ``similarity``, ``repro evaluate``) takes texts of any length.
FIT_MAX_WORDS = 256


def fit_tokens(tokens: list, ranks: Callable, sentinel: int, couples: int, limit: int | None = None) -> list:
    """The 2P token lists of ``couples`` couples (every text a, then every text b) for learning:
    a text of more than ``limit`` (default :data:`FIT_MAX_WORDS`) tokens is reduced to its known
    words (the same vector and n, and rows no wider than they need be); ValueError naming the
    couple when it has more than ``limit`` known words."""
    limit = FIT_MAX_WORDS if limit is None else int(limit)
    out = tokens
    for i, t in enumerate(tokens):
        if len(t) <= limit:
            continue
        r = ranks([t])
        known = r < sentinel
        n = int(known.sum())
        if n > limit:
            which = f"couple {i % couples} (text {'ab'[i // couples]})"
            raise ValueError(
                f"couples: {which} has {n:,} words with a vector, and learning takes texts of at most {limit:,} "
                "(repro.encode.longtext.FIT_MAX_WORDS): every text is padded to the longest, and the kappa search "
                "holds 2 x 8,192 x that many x d floats; split the text or leave the couple out (encoding "
                "takes texts of any length)")
        if out is tokens:
            out = list(tokens)
        out[i] = [w for w, k in zip(t, known.tolist()) if k]
    return out
