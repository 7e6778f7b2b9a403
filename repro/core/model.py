"""The idf-rank weighted aggregation model (paper, section 3.1 and section 3.3).

A text is a row of word indices sorted by descending idf. Its vector is

    t(C) = (1/n) sum_j z_j e_(j)                      (paper, eq. 3 and its variable form)

with one learned weight per rank position. For a text of n words and n_max learned
weights, the z_j are the n_max weights linearly interpolated onto n positions (section
3.3), computed as the original code does (see docs/FIDELITY.md): 0-based positions
I_j = linspace(0, n_max - 1, n)[j] and

    z_j = (w[ceil I_j] - w[floor I_j]) (I_j - floor I_j) / (ceil I_j - floor I_j + eps) + w[floor I_j]

with eps = 1e-5, evaluated as the linear map z = B(n) w (:func:`interpolation_matrix`). The
paper adds w[ceil I_j] at the end, an evident typo: with it an integer position would not give
back its own weight.

Everything here is a pure function on arrays. The public functions check their inputs
on the host and raise ``ValueError`` naming the argument; the ``_`` versions are the
jit-friendly cores, without checks, that other jitted code builds on: the data forms of
training (:mod:`repro.core.forms`), the scoring of couples (:mod:`repro.evaluate.scoring`, also behind the
held-out folds of :mod:`repro.core.crossval`) and the encoder's sums (:mod:`repro.encode.weightedsums`, through :func:`interpolated_weights`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from repro.checks import check_lengths, check_table, check_tokens, check_weights
from repro.core.jitting import jit

EPS = 1e-5


def init_weights(n_max: int) -> jnp.ndarray:
    """The weight vector of Algorithm 1, line 1: every entry 0.5. Shape (n_max,)."""
    if int(n_max) < 1:
        raise ValueError(f"n_max must be at least 1, got {n_max}")
    return jnp.full((int(n_max),), 0.5, dtype=jnp.float32)


HIGHEST = jax.lax.Precision.HIGHEST
"""Every contraction of the library asks for full float32 precision: GPUs would otherwise
run float32 matrix products in TF32 (10-bit mantissa) by default. On the CPU it changes
nothing."""


def interpolation_matrix(lengths, n_max: int, width: int, dtype=jnp.float32):
    """B(n) of every text: (B, width, n_max) with z = B(n) w (section 3.3, the code's formula).

    Row j of B(n) holds 1 - f_j at column floor(I_j) and f_j at column ceil(I_j), with
    f_j = (I_j - floor I_j) / (ceil I_j - floor I_j + eps), so that B(n) w is exactly the
    interpolation formula of the module docstring written as a linear map; rows j >= n are
    zero. B depends on the lengths only, so the weights enter every text vector through a
    contraction, whose gradient is a contraction too (no gather of w, hence no scatter-add).
    """
    j = jnp.arange(width, dtype=jnp.int32)[None, :]  # (1, W)
    n = lengths.astype(jnp.int32)[:, None]  # (B, 1)
    # linspace(0, n_max-1, n)[j] = j (n_max-1) / (n-1); the integer product keeps
    # positions that should be integers exactly integral. n = 1 gives position 0.
    pos = (j * (n_max - 1)).astype(dtype) / jnp.maximum(n - 1, 1).astype(dtype)
    lo = jnp.floor(pos)
    hi = jnp.ceil(pos)
    f = (pos - lo) / (hi - lo + EPS)
    f = jnp.where(j < n, f, 0.0)[..., None]  # (B, W, 1)
    live = (j < n)[..., None]
    k = jnp.arange(n_max, dtype=jnp.int32)[None, None, :]
    lo_i = jnp.clip(lo.astype(jnp.int32), 0, n_max - 1)[..., None]
    hi_i = jnp.clip(hi.astype(jnp.int32), 0, n_max - 1)[..., None]
    at_lo = jnp.logical_and(live, k == lo_i).astype(dtype)
    at_hi = jnp.logical_and(live, k == hi_i).astype(dtype)
    return at_lo * (1.0 - f) + at_hi * f


def _interpolated_weights(w, lengths, width: int):
    """Core of :func:`interpolated_weights`, no checks. w (n_max,), lengths (B,) -> (B, width)."""
    b = interpolation_matrix(lengths, w.shape[0], width, w.dtype)
    return jnp.einsum("bjk,k->bj", b, w, precision=HIGHEST)


def mean_weights(w, lengths, width: int):
    """z_j / n of every text: the coefficients of its word vectors in t(C) (eq. 3). -> (B, width)"""
    return _interpolated_weights(w, lengths, width) / jnp.maximum(lengths, 1)[:, None].astype(w.dtype)


def represent_unchecked(w, table, tokens, lengths):
    """Core of :func:`represent`, no checks, for ``vmap`` over weights (the kappa search's held-out
    couples: one gather for every weight vector). -> (B, d)."""
    z = _interpolated_weights(w, lengths, tokens.shape[1])  # (B, W)
    emb = table[tokens]  # (B, W, d)
    total = jnp.einsum("bw,bwd->bd", z.astype(table.dtype), emb, precision=HIGHEST)
    return total / jnp.maximum(lengths, 1).astype(table.dtype)[:, None]


def column_sums(z, table, tokens):
    """(B, d): sum_j z[:, j] table[tokens[:, j]] for (B, W) ``z`` and ``tokens``, one column j at a
    time, from j = 0 up: no (B, W, d) array of gathered rows. On the CPU it is 2 to 4 times as
    fast as the einsum of :func:`represent_unchecked`, and the same bits (the einsum adds the columns in
    the same order; tests/test_model.py checks it under every instruction-set cap). Not for a
    ``vmap`` over weights, where the einsum's one gather serves them all."""
    z = z.astype(table.dtype)

    def add(j, total):
        return total + z[:, j, None] * table[tokens[:, j]]

    return jax.lax.fori_loop(0, tokens.shape[1], add, jnp.zeros((tokens.shape[0], table.shape[1]), table.dtype))


def represent_rows(w, table, tokens, lengths):
    """:func:`represent_unchecked` by :func:`column_sums`: the same (B, d) bits, faster, for one weight vector."""
    total = column_sums(_interpolated_weights(w, lengths, tokens.shape[1]), table, tokens)
    return total / jnp.maximum(lengths, 1).astype(table.dtype)[:, None]


_interpolated_weights_jit = jit(_interpolated_weights, static_argnames="width")


def interpolated_weights(w, lengths, width: int) -> jnp.ndarray:
    """Per-text weights z_j of the variable-length model (paper, section 3.3).

    Args:
      w: (n_max,) learned weights.
      lengths: (B,) integer text lengths n, 0 <= n <= width.
      width: number of columns of the result.
    Returns:
      (B, width): row b holds z_1..z_n for n = lengths[b] and zeros past n. n = 1 gives
      w[0]; n = n_max gives w itself; n > n_max spaces the positions closer together.
    """
    w = check_weights(w)
    lengths = check_lengths(lengths, int(width), allow_empty=True)
    return _interpolated_weights_jit(jnp.asarray(w, jnp.float32), jnp.asarray(lengths), int(width))


def represent(w, table, tokens, lengths, *, allow_empty: bool = False) -> jnp.ndarray:
    """Text vectors t(C) = (1/n) sum_j z_j e_(j) (paper, eq. 3 and its variable-length form).

    Args:
      w: (n_max,) learned weights.
      table: (V, d) word embeddings.
      tokens: (B, W) rows of ``table``, each text sorted by descending idf, padded.
      lengths: (B,) true lengths. Fixed length is the case n = n_max for every text.
      allow_empty: a text of length 0 (no in-vocabulary word) has no representation in
        the paper; by default it is an error. With ``allow_empty=True`` it maps to the
        zero vector (the original code scores such a text with a constant).
    Returns:
      (B, d) text vectors, in ``table``'s float dtype (float32 for word2vec tables).
    """
    w = check_weights(w)
    table = check_table(table)
    tokens = check_tokens(tokens, table.shape[0])
    if tokens.shape[0] == 0:
        raise ValueError("tokens: empty, nothing to represent")
    lengths = check_lengths(lengths, tokens.shape[1], allow_empty, rows=tokens.shape[0])
    return _represent_jit(jnp.asarray(w, jnp.float32), jnp.asarray(table), jnp.asarray(tokens), jnp.asarray(lengths))


_represent_jit = jit(represent_rows)
