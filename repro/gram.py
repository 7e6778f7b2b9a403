"""Exact training data in Gram form: the squared distance as a quadratic form in the weights.

The text vector is linear in the weights, t = (1/n) E^T z, so for a couple

    t_a - t_b = M^T zeta,   M = [E_a ; -E_b] (2W, d),   zeta = [z_a / n_a ; z_b / n_b]
    d^2 = zeta^T G zeta,    G = M M^T (2W, 2W).

G does not depend on the weights, so it is computed once per training run instead of
gathering 2W embedding rows of every couple in every epoch. For fixed-length couples
(every n = W) z_a = z_b and the form shrinks to G = U U^T with U = E_a - E_b (W, W).
An epoch then reads (2W)^2 or W^2 numbers per couple instead of 2Wd (a tenth or less for
W = 20, d = 400), which is what makes many epochs and the batched kappa search cheap.
The memory is P (2W)^2 (or P W^2) floats, so large variable-length sets use the gather
form (:class:`repro.train.Data`) instead; ``repro.train.prepare`` chooses.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from repro.model import _interpolated_weights


class DiffGram(NamedTuple):
    """Fixed-length couples (n = W for every text): G = U U^T, U = E_a - E_b."""

    gram: jnp.ndarray  # (P, W, W)
    len_a: jnp.ndarray  # (P,)
    len_b: jnp.ndarray  # (P,)


class PairGram(NamedTuple):
    """Any couples: G = M M^T with M = [E_a ; -E_b]."""

    gram: jnp.ndarray  # (P, 2W, 2W)
    len_a: jnp.ndarray
    len_b: jnp.ndarray


def _rows(table, a, b, fixed: bool):
    ea, eb = table[a], table[b]
    return ea - eb if fixed else jnp.concatenate([ea, -eb], axis=1)  # U (B, W, d) or M (B, 2W, d)


@partial(jax.jit, static_argnames="fixed")
def _grams(table, a, b, fixed: bool):
    """Gram matrices of (C, B, W) blocks of couples, one small block at a time so that the
    gathered rows stay in cache: -> (C, B, K, K)."""
    def block(ab):
        m = _rows(table, ab[0], ab[1], fixed)
        return jnp.einsum("bid,bjd->bij", m, m)

    return jax.lax.map(block, (a, b))


def gram_bytes(pairs, fixed: bool) -> int:
    k = pairs.a.shape[1] * (1 if fixed else 2)
    return int(pairs.label.shape[0]) * k * k * 4


def is_fixed(pairs) -> bool:
    w = pairs.a.shape[1]
    return bool(np.all(pairs.len_a == w) and np.all(pairs.len_b == w))


def build(table, pairs, block: int = 64):
    """The Gram form of ``pairs`` (DiffGram when every length equals the width)."""
    fixed = is_fixed(pairs)
    p, w = pairs.a.shape
    pad = (-p) % block

    def blocks(x):
        return jnp.asarray(np.pad(np.asarray(x), ((0, pad), (0, 0))).reshape(-1, block, w))

    g = _grams(jnp.asarray(table), blocks(pairs.a), blocks(pairs.b), fixed)
    g = g.reshape((p + pad,) + g.shape[2:])[:p]
    cls = DiffGram if fixed else PairGram
    return cls(g, jnp.asarray(pairs.len_a), jnp.asarray(pairs.len_b))


def sq_distances(w, data, index):
    """Squared distances of the couples ``index`` from their Gram form. -> (B,)"""
    g = data.gram[index]
    la, lb = data.len_a[index], data.len_b[index]
    if isinstance(data, DiffGram):
        width = g.shape[1]
        zeta = _interpolated_weights(w, la, width) / la[:, None].astype(w.dtype)
    else:
        width = g.shape[1] // 2
        za = _interpolated_weights(w, la, width) / jnp.maximum(la, 1)[:, None].astype(w.dtype)
        zb = _interpolated_weights(w, lb, width) / jnp.maximum(lb, 1)[:, None].astype(w.dtype)
        zeta = jnp.concatenate([za, zb], axis=1)
    sq = jnp.einsum("bi,bij,bj->b", zeta, g.astype(w.dtype), zeta)
    return jnp.maximum(sq, 0.0)  # rounding can make an exact 0 slightly negative
