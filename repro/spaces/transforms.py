"""Fixed maps of the word vectors applied before any row averages them (not in the paper).

A :class:`Transform` maps every word vector e_w of the (V, d) table to

    e'_w = scale_w (e_w - shift) @ matrix          shift (d,), matrix (d, k), scale (V,)

and the text vector is then the row's own aggregate of the e' (the mean, learned weights, ...).
Each part is optional (None: no shift, the identity, no per-word scale). With a fixed transform
the paper's text vector (eq. 3) stays linear in the learned weights, so Algorithm 1 and every
data form apply unchanged to the transformed table (:func:`apply`).

**Zipfian whitening** (Yokoi, Bao, Kurita and Shimodaira, "Zipfian Whitening", NeurIPS 2024,
their eq. for the whitening with the empirical word frequency p(w)):

    mu = sum_w p(w) e_w,   C = sum_w p(w) (e_w - mu)(e_w - mu)^T,   e'_w = C^(-1/2) (e_w - mu)

``mode="centre"`` keeps only the shift (e'_w = e_w - mu); ``mode="whiten"`` also whitens, with
C = Q diag(lambda) Q^T and matrix = Q diag(lambda)^(-1/2) Q^T (eigenvalues below ``floor`` times
the largest are floored to it, so a rank-deficient C stays finite). ``dims`` keeps the ``dims``
leading eigen-directions only (matrix (d, dims) = Q_k diag(lambda_k)^(-1/2)); distances and
cosines are those of the full symmetric map restricted to them. ``p="uniform"`` is uniform
whitening (every word of the vocabulary weighs 1/V), the variant the same paper compares with.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

EPS = float(np.finfo(np.float32).eps)  # fse's guard in uSIF's a = (1 - alpha) / (alpha Z + EPS)
MODES = ("centre", "whiten")
FLOOR = 1e-6
"""Eigenvalues of C below FLOOR x the largest are raised to it."""


# ---- p(w) and the word weights of SIF and uSIF (re-exported by repro.evaluate.peers) ----

def probabilities(counts) -> np.ndarray:
    """(V,) unigram probabilities p(w) = count(w) / sum of counts (float64)."""
    counts = np.asarray(counts, np.float64)
    if counts.ndim != 1 or counts.size == 0 or (counts < 0).any() or counts.sum() <= 0:
        raise ValueError("counts: need a non-empty (V,) array of non-negative word counts, not all 0")
    return counts / counts.sum()


def sif_weights(counts, a: float = 1e-3) -> np.ndarray:
    """(V,) SIF word weights a / (a + p(w))."""
    if not a > 0:
        raise ValueError(f"a must be positive, got {a}")
    return a / (a + probabilities(counts))


def usif_weights(counts, length: float) -> np.ndarray:
    """(V,) uSIF word weights a / (a / 2 + p(w)), a derived from V and the average text ``length``."""
    if not length > 0:
        raise ValueError(f"length must be positive, got {length}")
    p = probabilities(counts)
    v = p.size
    threshold = 1.0 - (1.0 - 1.0 / v) ** length
    alpha = np.sum(p > threshold) / v
    a = (1.0 - alpha) / (alpha * v / 2 + EPS)
    return a / (a / 2 + p)


class Transform(NamedTuple):
    """e'_w = scale_w (e_w - shift) @ matrix; None for a part means: none (see the module)."""

    shift: np.ndarray | None = None
    matrix: np.ndarray | None = None
    scale: np.ndarray | None = None

    @property
    def identity(self) -> bool:
        return self.shift is None and self.matrix is None and self.scale is None


IDENTITY = Transform()


def check(t: Transform, vocab_size: int, dim: int) -> Transform:
    """``t`` with float64 parts checked against a (vocab_size, dim) table; ValueError naming the
    part otherwise."""
    shift = None if t.shift is None else np.asarray(t.shift, np.float64)
    matrix = None if t.matrix is None else np.asarray(t.matrix, np.float64)
    scale = None if t.scale is None else np.asarray(t.scale, np.float64)
    if shift is not None and (shift.shape != (dim,) or not np.isfinite(shift).all()):
        raise ValueError(f"shift: need a finite ({dim},) vector, got shape {shift.shape}")
    if matrix is not None and (matrix.ndim != 2 or matrix.shape[0] != dim or matrix.shape[1] == 0
                               or not np.isfinite(matrix).all()):
        raise ValueError(f"matrix: need a finite ({dim}, k) matrix with k >= 1, got shape {matrix.shape}")
    if scale is not None and (scale.shape != (vocab_size,) or not np.isfinite(scale).all()):
        raise ValueError(f"scale: need finite ({vocab_size},) word scales, got shape {scale.shape}")
    return Transform(shift, matrix, scale)


BLOCK = 65_536
"""Rows of the table transformed at a time by :func:`apply`: its float64 temporaries are a block's
(200 MB at d = 400), not three copies of the table (21 GB at the paper's 2.2M x 400)."""
MIN_BLOCK = 64
"""A last block shorter than this joins the one before it: every block goes through the same
matrix product (a single row would take BLAS's matrix-vector path and round differently)."""


def blocks(rows: int, block: int | None = None) -> list[tuple[int, int]]:
    """(start, stop) of the row blocks of :func:`apply`: ``block`` rows each, the last one
    ``block`` + the remainder when that is under :data:`MIN_BLOCK`; one block when ``rows`` <=
    ``block`` (default :data:`BLOCK`)."""
    edges = list(range(0, rows, BLOCK if block is None else block)) + [rows]
    if len(edges) > 2 and edges[-1] - edges[-2] < MIN_BLOCK:
        del edges[-2]
    return list(zip(edges[:-1], edges[1:]))


def apply(t: Transform, table, out: np.ndarray | None = None) -> np.ndarray:
    """The (V, k) float32 transformed table scale_w (e_w - shift) @ matrix, computed in float64
    :data:`BLOCK` rows at a time: a table of at most :data:`BLOCK` rows in one product, as a whole;
    a larger one by blocks, each row as the whole table's product gives it up to BLAS's float64
    rounding at the rows where its threads split the work, then rounded to float32. Written into
    ``out`` (V, k) float32 when given (it may be ``table`` itself: a block is read before it is
    written)."""
    table = np.asarray(table)
    t = check(t, table.shape[0], table.shape[1])
    k = table.shape[1] if t.matrix is None else t.matrix.shape[1]
    if out is None:
        out = np.empty((table.shape[0], k), np.float32)
    elif out.shape != (table.shape[0], k) or out.dtype != np.float32:
        raise ValueError(f"out: need a ({table.shape[0]}, {k}) float32 array, got {out.shape} {out.dtype}")
    for start, stop in blocks(table.shape[0]):
        x = np.asarray(table[start:stop], np.float64)
        if t.shift is not None:
            x = x - t.shift
        if t.matrix is not None:
            x = x @ t.matrix
        if t.scale is not None:
            x = x * t.scale[start:stop, None]
        out[start:stop] = x
    return out


def _probabilities(p, vocab_size: int) -> np.ndarray:
    if isinstance(p, str):
        if p != "uniform":
            raise ValueError(f"p: expected word probabilities or 'uniform', got {p!r}")
        return np.full(vocab_size, 1.0 / vocab_size)
    p = np.asarray(p, np.float64)
    if p.shape != (vocab_size,) or (p < 0).any() or not p.sum() > 0:
        raise ValueError(f"p: need ({vocab_size},) non-negative word probabilities, not all 0, got shape {p.shape}")
    return p / p.sum()


def weighted_moments(table, p) -> tuple[np.ndarray, np.ndarray]:
    """mu = sum_w p(w) e_w (d,) and C = sum_w p(w) (e_w - mu)(e_w - mu)^T (d, d), float64
    (Yokoi et al. 2024); ``p`` the (V,) probabilities (normalised here) or ``"uniform"``.

    Summed over the row blocks of :func:`blocks` (two passes: mu, then C), so the float64
    temporaries are a block's, not the table's (7 GB at the paper's 2.2M x 400), and a table of
    400,000 rows takes a tenth of the time of one product over the whole (no fresh 160 MB arrays
    to fault in); the blocks are fixed, so the sums are the same bits on every run."""
    table = np.asarray(table)  # a memory map is read block by block, not copied
    p = _probabilities(p, table.shape[0])
    spans = blocks(table.shape[0])
    mu = np.zeros(table.shape[1])
    for start, stop in spans:
        mu += p[start:stop] @ np.asarray(table[start:stop], np.float64)
    cov = np.zeros((table.shape[1], table.shape[1]))
    for start, stop in spans:
        xc = np.asarray(table[start:stop], np.float64) - mu
        cov += (xc * p[start:stop, None]).T @ xc
    return mu, cov


def zipf_whitening(table, p, mode: str = "whiten", dims: int | None = None, floor: float = FLOOR) -> Transform:
    """The Zipfian whitening of ``table`` (V, d) under word probabilities ``p`` (module docstring):
    the shift only for ``mode="centre"``, shift and C^(-1/2) for ``"whiten"``, ``dims`` leading
    directions kept if given."""
    if mode not in MODES:
        raise ValueError(f"mode: expected one of {', '.join(MODES)}, got {mode!r}")
    mu, cov = weighted_moments(table, p)
    d = mu.shape[0]
    if dims is not None and not 1 <= int(dims) <= d:
        raise ValueError(f"dims: must lie in 1..{d}, got {dims}")
    if mode == "centre":
        if dims is not None:
            raise ValueError("dims: only whitening keeps leading directions; use mode='whiten'")
        return Transform(shift=mu)
    if not floor > 0:
        raise ValueError(f"floor: must be positive, got {floor}")
    lam, q = np.linalg.eigh(cov)  # ascending
    lam, q = lam[::-1], q[:, ::-1]
    lam = np.maximum(lam, floor * max(float(lam[0]), np.finfo(np.float64).tiny))
    if dims is None:
        return Transform(shift=mu, matrix=(q / np.sqrt(lam)) @ q.T)  # C^(-1/2), symmetric
    k = int(dims)
    return Transform(shift=mu, matrix=q[:, :k] / np.sqrt(lam[:k]))
