"""The training couples' data forms: what one epoch of Algorithm 1 reads, each with its distances.

Training needs, for a batch of couples and the current weights w, the squared distances
d^2 = ||t(a) - t(b)||^2 of their text vectors (paper, eq. 3 and its variable-length form).
Each form below holds the couples in a shape that gives them, and has its own
``sq_distances(w, index)``; all give the same values up to float32 rounding (tested).
:func:`build` is the one place a form is chosen.

**Gathered** (``"gather"``): the embedding table and the token rows. A step gathers the 2W
embedding rows of every couple and contracts them with the coefficients z_j / n:
t_a - t_b = sum_j (z_j / n_a) e_(a,j) - sum_j (z_j / n_b) e_(b,j). Memory O(V d + P W).

**Gram forms** (``"gram"``). The text vector is linear in the weights, t = (1/n) E^T z, so

    t_a - t_b = M^T zeta,   M = [E_a ; -E_b] (2W, d),   zeta = [z_a / n_a ; z_b / n_b]
    d^2 = zeta^T G zeta,    G = M M^T (2W, 2W)          (:class:`PairGram`)

G does not depend on the weights, so it is computed once per training run instead of
gathering 2W embedding rows of every couple in every epoch. For fixed-length couples
(every n = W) z_a = z_b and the form shrinks to G = U U^T with U = E_a - E_b (W, W)
(:class:`DiffGram`). Memory P (2W)^2 (or P W^2) floats.

**Quadratic form** (``"quadratic"``, the default while it fits the memory budget). The
interpolation is linear too, z = B(n) w (:func:`repro.core.model.interpolation_matrix`), so

    t_a - t_b = M^T C w,   C = [B(n_a) / n_a ; B(n_b) / n_b] (2W, n_max)
    d^2 = w^T R w,         R = C^T G C = V^T V,   V = M^T C (d, n_max)     (:class:`QuadForm`)

an n_max x n_max matrix per couple (R = G / n^2 for fixed lengths with n_max = W). R is
symmetric, so a couple holds only its packed upper triangle (:func:`pack`): the T = n_max
(n_max + 1) / 2 numbers r_ii and r_ij + r_ji (i < j), and d^2 = sum_(i <= j) r'_ij w_i w_j, the
dot product of the packed row with the products w_i w_j (:func:`pair_products`). A training step
then reads T numbers per couple (465 against the 3,600 of the PairGram for W = n_max = 30, and
half the 900 of the full matrix, which made a step of the kappa search on the CPU 2 to 3 times
slower): no interpolation, no gather of w, no scatter-add. It is not a Gram matrix of
embeddings but a quadratic form in the weights, hence its name.

**The cosine** (not in the paper; ``distance="cosine"`` in :func:`build`). 1 - cos(t_a, t_b)
needs t_a.t_a, t_b.t_b and t_a.t_b, each a quadratic form in the weights too: every form but
:class:`DiffGram` (which holds only E_a - E_b) gives them by ``products(w, index)``: the gather
form from the two text vectors, the :class:`PairGram` from the blocks of G, and the
:class:`CosQuadForm` from three packed triangles per couple, of R_xy = V_x^T V_y with
V_x = E_x^T B(n_x) / n_x (three times the quadratic form's memory), read in one gather.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from repro.core.jitting import jit
from repro.core.model import HIGHEST, interpolation_matrix, mean_weights

FORMS = ("auto", "quadratic", "gram", "gather")
QUADRATIC_BUDGET = 4e9
"""Bytes the quadratic form may take under ``"auto"``; above it the gather form is used."""


class Gathered(NamedTuple):
    """The gather form: the embedding table and the couples' token rows, on the device."""

    table: jnp.ndarray  # (V, d)
    a: jnp.ndarray  # (P, W)
    b: jnp.ndarray  # (P, W)
    len_a: jnp.ndarray  # (P,)
    len_b: jnp.ndarray  # (P,)

    def sq_distances(self, w, index):
        """(B,) d^2 of the couples ``index``. The table is read (a gather) but never
        differentiated: the gradient with respect to ``w`` runs through contractions only."""
        # t_a - t_b in one contraction: the 2W rows of both texts with coefficients
        # [z_a / n_a ; -z_b / n_b] (paper, eq. 3 for each text); one gather, one einsum.
        la, lb = self.len_a[index], self.len_b[index]
        width = self.a.shape[1]
        coef = jnp.concatenate([mean_weights(w, la, width), -mean_weights(w, lb, width)], axis=1)
        coef = coef.astype(self.table.dtype)  # (B, 2W)
        rows = self.table[jnp.concatenate([self.a[index], self.b[index]], axis=1)]  # (B, 2W, d)
        diff = jnp.einsum("bk,bkd->bd", coef, rows, precision=HIGHEST)
        return jnp.sum(jnp.square(diff), axis=-1)

    def products(self, w, index):
        """(aa, bb, ab), each (B,): t_a.t_a, t_b.t_b and t_a.t_b of the couples ``index`` (for the
        cosine), the text vectors gathered and contracted as in :meth:`sq_distances`."""
        width = self.a.shape[1]
        ta = jnp.einsum("bk,bkd->bd", mean_weights(w, self.len_a[index], width).astype(self.table.dtype),
                        self.table[self.a[index]], precision=HIGHEST)
        tb = jnp.einsum("bk,bkd->bd", mean_weights(w, self.len_b[index], width).astype(self.table.dtype),
                        self.table[self.b[index]], precision=HIGHEST)
        return jnp.sum(ta * ta, -1), jnp.sum(tb * tb, -1), jnp.sum(ta * tb, -1)


class DiffGram(NamedTuple):
    """Fixed-length couples (n = W for every text): G = U U^T, U = E_a - E_b."""

    gram: jnp.ndarray  # (P, W, W)
    len_a: jnp.ndarray  # (P,)
    len_b: jnp.ndarray  # (P,)

    def sq_distances(self, w, index):
        """(B,) d^2 = zeta^T G zeta of the couples ``index``, zeta = z / n."""
        g = self.gram[index]
        zeta = mean_weights(w, self.len_a[index], g.shape[1])
        return _gram_quadratic(zeta, g, w.dtype)

    def products(self, w, index):
        raise ValueError("distance: the fixed-length Gram form holds only t_a - t_b; build it with distance='cosine'")


class PairGram(NamedTuple):
    """Any couples: G = M M^T with M = [E_a ; -E_b]."""

    gram: jnp.ndarray  # (P, 2W, 2W)
    len_a: jnp.ndarray  # (P,)
    len_b: jnp.ndarray  # (P,)

    def sq_distances(self, w, index):
        """(B,) d^2 = zeta^T G zeta of the couples ``index``, zeta = [z_a / n_a ; z_b / n_b]."""
        g = self.gram[index]
        width = g.shape[1] // 2
        zeta = jnp.concatenate([mean_weights(w, self.len_a[index], width),
                                mean_weights(w, self.len_b[index], width)], axis=1)
        return _gram_quadratic(zeta, g, w.dtype)

    def products(self, w, index):
        """(aa, bb, ab) of the couples ``index`` from the blocks of G = M M^T, M = [E_a ; -E_b]:
        t_a.t_a = za^T G_aa za, t_b.t_b = zb^T G_bb zb, t_a.t_b = -za^T G_ab zb (z = weights / n)."""
        g = self.gram[index].astype(w.dtype)
        width = g.shape[1] // 2
        za, zb = mean_weights(w, self.len_a[index], width), mean_weights(w, self.len_b[index], width)
        aa = jnp.einsum("bi,bij,bj->b", za, g[:, :width, :width], za, precision=HIGHEST)
        bb = jnp.einsum("bi,bij,bj->b", zb, g[:, width:, width:], zb, precision=HIGHEST)
        ab = -jnp.einsum("bi,bij,bj->b", za, g[:, :width, width:], zb, precision=HIGHEST)
        return aa, bb, ab


class QuadForm(NamedTuple):
    """Any couples: d^2 = w^T R w with R = C^T G C, each couple's R packed (:func:`pack`)."""

    r: jnp.ndarray  # (P, T), T = n_max (n_max + 1) / 2

    def sq_distances(self, w, index):
        """(B,) d^2 = w^T R_b w of the couples ``index``."""
        return jnp.maximum(packed_values(w, self.r[index]), 0.0)  # rounding can make an exact 0 slightly negative

    def products(self, w, index):
        raise ValueError("distance: this quadratic form holds only ||t_a - t_b||^2; build it with distance='cosine'")


class CosQuadForm(NamedTuple):
    """Any couples, for the cosine (not in the paper): t_a.t_a = w^T R_aa w, t_b.t_b = w^T R_bb w
    and t_a.t_b = w^T R_ab w, with R_xy = V_x^T V_y, V_x = E_x^T B(n_x) / n_x (d, n_max): the
    three packed (:func:`pack`) side by side, so that a batch reads them in one gather."""

    r: jnp.ndarray  # (P, 3, T): R_aa, R_bb, R_ab packed

    def products(self, w, index):
        """(aa, bb, ab), each (B,), of the couples ``index``."""
        q = packed_values(w, self.r[index])  # (B, 3)
        return jnp.maximum(q[:, 0], 0.0), jnp.maximum(q[:, 1], 0.0), q[:, 2]

    def sq_distances(self, w, index):
        """(B,) ||t_a - t_b||^2 = aa + bb - 2 ab."""
        aa, bb, ab = self.products(w, index)
        return jnp.maximum(aa + bb - 2.0 * ab, 0.0)


def _gram_quadratic(zeta, g, dtype):
    sq = jnp.einsum("bi,bij,bj->b", zeta, g.astype(dtype), zeta, precision=HIGHEST)
    return jnp.maximum(sq, 0.0)  # rounding can make an exact 0 slightly negative


def packed_size(n_max: int) -> int:
    """T = n_max (n_max + 1) / 2, the numbers of a packed (n_max, n_max) symmetric form."""
    return int(n_max) * (int(n_max) + 1) // 2


def pack(r):
    """(..., n, n) -> (..., T): the upper triangle of r + r^T, halved on the diagonal (r_ii and
    r_ij + r_ji for i < j, row by row), so that w^T r w = sum_t pack(r)_t pair_products(w)_t
    for any square r, symmetric or not."""
    i, j = np.triu_indices(r.shape[-1])
    return jnp.where(jnp.asarray(i == j), r[..., i, j], r[..., i, j] + r[..., j, i])


def pair_products(w):
    """(n,) -> (T,): w_i w_j for i <= j in :func:`pack`'s order. Each factor is a product with a
    one-hot matrix, exact, so that the gradient holds no scatter-add (a gather of w would)."""
    n = w.shape[-1]
    i, j = np.triu_indices(n)
    eye = np.eye(n, dtype=w.dtype)
    return jnp.dot(eye[i], w, precision=HIGHEST) * jnp.dot(eye[j], w, precision=HIGHEST)


def packed_values(w, packed):
    """w^T R w of every packed form of ``packed`` (..., T), for the (n_max,) weights ``w``;
    ValueError when the forms were packed for another number of weights."""
    if packed.shape[-1] != packed_size(w.shape[0]):
        raise ValueError(f"w has {w.shape[0]} weights but the quadratic form was built for "
                         f"n_max = {_n_of(packed.shape[-1])} ({packed.shape[-1]} packed entries)")
    return jnp.einsum("...t,t->...", packed.astype(w.dtype), pair_products(w), precision=HIGHEST)


def _n_of(t: int) -> int:
    """The n of a packed size T = n (n + 1) / 2."""
    return int(round((np.sqrt(8 * t + 1) - 1) / 2))


# ---- building the forms ----------------------------------------------------------------------


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
    """R = V^T V of (C, B, W) blocks of couples, V = E_a^T B(n_a)/n_a - E_b^T B(n_b)/n_b,
    packed: -> (C, B, T). ``identity``: every n = W = n_max, so B(n) = I and V = U/n."""
    def block(args):
        a, b, la, lb = args
        ea, eb = table[a], table[b]  # (B, W, d)
        if identity:
            v = (ea - eb) / la[:, None, None].astype(table.dtype)  # (B, n_max, d)
        else:
            w = a.shape[1]
            ca = interpolation_matrix(la, n_max, w, table.dtype) / la[:, None, None].astype(table.dtype)
            cb = interpolation_matrix(lb, n_max, w, table.dtype) / lb[:, None, None].astype(table.dtype)
            v = (jnp.einsum("bwk,bwd->bkd", ca, ea, precision=HIGHEST)
                 - jnp.einsum("bwk,bwd->bkd", cb, eb, precision=HIGHEST))
        return pack(jnp.einsum("bkd,bld->bkl", v, v, precision=HIGHEST))

    return jax.lax.map(block, (a, b, la, lb))


@jit(static_argnames=("n_max",))
def _cos_quads(table, a, b, la, lb, n_max: int):
    """R_aa, R_bb, R_ab of (C, B, W) blocks of couples, packed: -> (C, B, 3, T)."""
    def block(args):
        a, b, la, lb = args
        w = a.shape[1]
        va, vb = [jnp.einsum("bwk,bwd->bkd", interpolation_matrix(n, n_max, w, table.dtype)
                             / n[:, None, None].astype(table.dtype), table[x], precision=HIGHEST)
                  for x, n in ((a, la), (b, lb))]

        def packed(x, y):
            return pack(jnp.einsum("bkd,bld->bkl", x, y, precision=HIGHEST))

        return jnp.stack([packed(va, va), packed(vb, vb), packed(va, vb)], axis=1)

    return jax.lax.map(block, (a, b, la, lb))


def is_fixed(pairs) -> bool:
    """Every text as long as the rows are wide (the fixed-length setting)."""
    w = pairs.a.shape[1]
    return bool(np.all(pairs.len_a == w) and np.all(pairs.len_b == w))


def quad_bytes(pairs, n_max: int, distance: str = "euclidean") -> int:
    """Memory of the quadratic form of ``pairs``: P T float32, T = n_max (n_max + 1) / 2 (three
    times that for the cosine)."""
    return int(pairs.label.shape[0]) * packed_size(n_max) * 4 * (3 if distance == "cosine" else 1)


def _blocks(x, block: int, fill=0):
    """(P, ...) -> (P / block, block, ...) on the device, padded with ``fill``."""
    x = np.asarray(x)
    pad = (-x.shape[0]) % block
    x = np.pad(x, ((0, pad),) + ((0, 0),) * (x.ndim - 1), constant_values=fill)
    return jnp.asarray(x.reshape((-1, block) + x.shape[1:]))


def quadratic(table, pairs, n_max: int, block: int = 64, distance: str = "euclidean"):
    """The quadratic form of ``pairs`` for ``n_max`` weights (every length must be >= 1): a
    :class:`QuadForm`, or for ``distance="cosine"`` a :class:`CosQuadForm`."""
    p, w = pairs.a.shape
    n_max = int(n_max)
    if distance == "cosine":
        parts = _cos_quads(jnp.asarray(table), _blocks(pairs.a, block), _blocks(pairs.b, block),
                           _blocks(pairs.len_a, block, 1), _blocks(pairs.len_b, block, 1), n_max)
        return CosQuadForm(parts.reshape((-1,) + parts.shape[2:])[:p])
    identity = is_fixed(pairs) and n_max == w
    r = _quads(jnp.asarray(table), _blocks(pairs.a, block), _blocks(pairs.b, block), _blocks(pairs.len_a, block, 1),
               _blocks(pairs.len_b, block, 1), n_max, identity)
    return QuadForm(r.reshape((-1,) + r.shape[2:])[:p])


def gram(table, pairs, block: int = 64, distance: str = "euclidean"):
    """The Gram form of ``pairs``: a :class:`DiffGram` when every length equals the width (and
    ``distance`` is not the cosine, which needs both texts' blocks), else a :class:`PairGram`."""
    fixed = is_fixed(pairs) and distance != "cosine"
    p = pairs.a.shape[0]
    g = _grams(jnp.asarray(table), _blocks(pairs.a, block), _blocks(pairs.b, block), fixed)
    g = g.reshape((-1,) + g.shape[2:])[:p]
    cls = DiffGram if fixed else PairGram
    return cls(g, jnp.asarray(pairs.len_a), jnp.asarray(pairs.len_b))


def gathered(table, pairs) -> Gathered:
    """The gather form of ``pairs``."""
    return Gathered(jnp.asarray(table), jnp.asarray(pairs.a), jnp.asarray(pairs.b),
                    jnp.asarray(pairs.len_a), jnp.asarray(pairs.len_b))


def choose(pairs, n_max: int, form: str = "auto", budget: float = QUADRATIC_BUDGET, distance: str = "euclidean") -> str:
    """The form to build: ``form`` itself, or for ``"auto"`` the quadratic form while it fits
    ``budget`` bytes, else the gather form. ValueError for an unknown name."""
    if form not in FORMS:
        raise ValueError(f"data form must be one of {FORMS}, got {form!r}")
    if form == "auto":
        return "quadratic" if quad_bytes(pairs, n_max, distance) <= budget else "gather"
    return form


def build(table, pairs, n_max: int, form: str = "auto", budget: float = QUADRATIC_BUDGET, distance: str = "euclidean"):
    """The data form of ``pairs`` that :func:`choose` names, built from the (V, d) float32
    device ``table`` for training under ``distance`` (the cosine needs both texts' products):
    the one place where a form is chosen."""
    form = choose(pairs, n_max, form, budget, distance)
    if form == "quadratic":
        return quadratic(table, pairs, n_max, distance=distance)
    if form == "gram":
        return gram(table, pairs, distance=distance)
    return gathered(table, pairs)
