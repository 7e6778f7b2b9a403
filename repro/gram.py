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

The quadratic form (:class:`QuadForm`, the default) goes one step further. The
interpolation is linear too, z = B(n) w (:func:`repro.model._interpolation_matrix`), so

    t_a - t_b = M^T C w,   C = [B(n_a) / n_a ; B(n_b) / n_b] (2W, n_max)
    d^2 = w^T R w,         R = C^T G C = V^T V,   V = M^T C (d, n_max),

an n_max x n_max matrix per couple (R = G / n^2 for fixed lengths with n_max = W). A
training step then reads R[index] and computes w^T R w and its gradient 2 R w: no
interpolation, no gather of w, no scatter-add, and n_max^2 numbers per couple (900
against the 3,600 of the PairGram for W = n_max = 30).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from repro.jitting import jit
from repro.model import HIGHEST, _interpolation_matrix, _mean_weights


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


class QuadForm(NamedTuple):
    """Any couples: d^2 = w^T R w with R = C^T G C (P, n_max, n_max), symmetric."""

    r: jnp.ndarray  # (P, n_max, n_max)


def _rows(table, a, b, fixed: bool):
    ea, eb = table[a], table[b]
    return ea - eb if fixed else jnp.concatenate([ea, -eb], axis=1)  # U (B, W, d) or M (B, 2W, d)


@jit(static_argnames="fixed")
def _grams(table, a, b, fixed: bool):
    """Gram matrices of (C, B, W) blocks of couples, one small block at a time so that the
    gathered rows stay in cache: -> (C, B, K, K)."""
    def block(ab):
        m = _rows(table, ab[0], ab[1], fixed)
        return jnp.einsum("bid,bjd->bij", m, m, precision=HIGHEST)

    return jax.lax.map(block, (a, b))


@jit(static_argnames=("n_max", "identity"))
def _quads(table, a, b, la, lb, n_max: int, identity: bool):
    """R = V^T V of (C, B, W) blocks of couples, V = E_a^T B(n_a)/n_a - E_b^T B(n_b)/n_b:
    -> (C, B, n_max, n_max). ``identity``: every n = W = n_max, so B(n) = I and V = U/n."""
    def block(args):
        a, b, la, lb = args
        ea, eb = table[a], table[b]  # (B, W, d)
        if identity:
            v = (ea - eb) / la[:, None, None].astype(table.dtype)  # (B, n_max, d)
        else:
            w = a.shape[1]
            ca = _interpolation_matrix(la, n_max, w, table.dtype) / la[:, None, None].astype(table.dtype)
            cb = _interpolation_matrix(lb, n_max, w, table.dtype) / lb[:, None, None].astype(table.dtype)
            v = (jnp.einsum("bwk,bwd->bkd", ca, ea, precision=HIGHEST)
                 - jnp.einsum("bwk,bwd->bkd", cb, eb, precision=HIGHEST))
        r = jnp.einsum("bkd,bld->bkl", v, v, precision=HIGHEST)
        return 0.5 * (r + jnp.swapaxes(r, 1, 2))  # exactly symmetric, for the 2 R w gradient

    return jax.lax.map(block, (a, b, la, lb))


def quad_bytes(pairs, n_max: int) -> int:
    """Memory of the quadratic form of ``pairs``: P n_max^2 float32."""
    return int(pairs.label.shape[0]) * int(n_max) ** 2 * 4


def build_quadratic(table, pairs, n_max: int, block: int = 64) -> QuadForm:
    """The quadratic form of ``pairs`` for ``n_max`` weights (every length must be >= 1)."""
    p, w = pairs.a.shape
    n_max = int(n_max)
    pad = (-p) % block
    identity = is_fixed(pairs) and n_max == w

    def blocks(x, fill):
        x = np.asarray(x)
        x = np.pad(x, ((0, pad),) + ((0, 0),) * (x.ndim - 1), constant_values=fill)
        return jnp.asarray(x.reshape((-1, block) + x.shape[1:]))

    r = _quads(jnp.asarray(table), blocks(pairs.a, 0), blocks(pairs.b, 0), blocks(pairs.len_a, 1),
               blocks(pairs.len_b, 1), n_max, identity)
    return QuadForm(r.reshape((p + pad, n_max, n_max))[:p])


def quad_sq_distances(w, r):
    """w^T R_b w of every (n_max, n_max) matrix of ``r`` (B, n, n), with gradient 2 R_b w.

    One pass over R: u = R sg(w) is computed once, and 2 u.w - sg(u.w) has the value
    u.w = w^T R w (exactly: 2x - x = x in floating point) and the gradient 2 R w, which
    is the gradient of w^T R w for a symmetric R.
    """
    u = jnp.einsum("bij,j->bi", r.astype(w.dtype), jax.lax.stop_gradient(w), precision=HIGHEST)
    q = jnp.einsum("bi,i->b", u, w, precision=HIGHEST)
    sq = 2.0 * q - jax.lax.stop_gradient(q)
    return jnp.maximum(sq, 0.0)  # rounding can make an exact 0 slightly negative


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
    """Squared distances of the couples ``index`` from their Gram or quadratic form. -> (B,)"""
    if isinstance(data, QuadForm):
        if data.r.shape[-1] != w.shape[0]:
            raise ValueError(f"w has {w.shape[0]} weights but the quadratic form was built for "
                             f"n_max = {data.r.shape[-1]}")
        return quad_sq_distances(w, data.r[index])
    g = data.gram[index]
    la, lb = data.len_a[index], data.len_b[index]
    if isinstance(data, DiffGram):
        width = g.shape[1]
        zeta = _mean_weights(w, la, width)
    else:
        width = g.shape[1] // 2
        zeta = jnp.concatenate([_mean_weights(w, la, width), _mean_weights(w, lb, width)], axis=1)
    sq = jnp.einsum("bi,bij,bj->b", zeta, g.astype(w.dtype), zeta, precision=HIGHEST)
    return jnp.maximum(sq, 0.0)  # rounding can make an exact 0 slightly negative
