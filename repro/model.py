"""The idf-rank weighted aggregation model (paper, section 3.1 and section 3.3).

A text is a row of word indices sorted by descending idf. Its vector is

    t(C) = (1/n) sum_j z_j e_(j)                      (paper, eq. 3 and its variable form)

with one learned weight per rank position. For a text of n words and n_max learned
weights, the z_j are the n_max weights linearly interpolated onto n positions (section
3.3), computed as the original code does (see docs/FIDELITY.md): 0-based positions
I_j = linspace(0, n_max - 1, n)[j] and

    z_j = (w[ceil I_j] - w[floor I_j]) (I_j - floor I_j) / (ceil I_j - floor I_j + eps) + w[floor I_j]

with eps = 1e-5, evaluated as the linear map z = B(n) w (:func:`_interpolation_matrix`). The paper adds w[ceil I_j] at the end, an evident typo: with it an
integer position would not give back its own weight.

Everything here is a pure function on arrays. The public functions check their inputs
on the host and raise ``ValueError`` naming the argument; the ``_`` versions are the
jit-friendly cores used inside training.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

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


def _interpolation_matrix(lengths, n_max: int, width: int, dtype=jnp.float32):
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
    b = _interpolation_matrix(lengths, w.shape[0], width, w.dtype)
    return jnp.einsum("bjk,k->bj", b, w, precision=HIGHEST)


def _represent(w, table, tokens, lengths):
    """Core of :func:`represent`, no checks. -> (B, d)."""
    z = _interpolated_weights(w, lengths, tokens.shape[1])  # (B, W)
    emb = table[tokens]  # (B, W, d)
    total = jnp.einsum("bw,bwd->bd", z.astype(table.dtype), emb, precision=HIGHEST)
    return total / jnp.maximum(lengths, 1).astype(table.dtype)[:, None]


def _check_lengths(lengths, width: int, allow_empty: bool):
    lengths = np.asarray(lengths)
    if lengths.ndim != 1:
        raise ValueError(f"lengths must be 1-D, got shape {lengths.shape}")
    if not np.issubdtype(lengths.dtype, np.integer):
        raise ValueError(f"lengths must hold integers, got dtype {lengths.dtype}")
    if lengths.size == 0:
        raise ValueError("lengths is empty: nothing to represent")
    if lengths.max() > width:
        raise ValueError(f"lengths: a length of {int(lengths.max())} exceeds the width {width}")
    low = 0 if allow_empty else 1
    bad = np.flatnonzero(lengths < low)
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"lengths[{i}] is {int(lengths[i])}: a text needs at least one in-vocabulary word "
            "(pass allow_empty=True to map empty texts to the zero vector)"
            if lengths[i] == 0 else f"lengths[{i}] is negative"
        )
    return lengths


def _check_weights(w):
    w = np.asarray(w)
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"w must be a non-empty 1-D weight vector, got shape {w.shape}")
    if not np.isfinite(w).all():
        raise ValueError("w contains NaN or infinite values")
    return w


def check_table(table, name: str = "table") -> None:
    """ValueError unless ``table`` is a finite 2-D (V, d) embedding matrix."""
    shape = np.shape(table)
    if len(shape) != 2 or shape[0] == 0 or shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty (V, d) matrix, got shape {shape}")
    if not bool(jnp.isfinite(jnp.asarray(table)).all()):
        raise ValueError(f"{name} contains NaN or infinite values")


def check_tokens(tokens, vocab_size: int, name: str = "tokens") -> np.ndarray:
    """ValueError unless ``tokens`` is a (B, W) integer array of rows 0..vocab_size-1."""
    tokens = np.asarray(tokens)
    if tokens.ndim != 2:
        raise ValueError(f"{name} must be 2-D (B, width), got shape {tokens.shape}")
    if not np.issubdtype(tokens.dtype, np.integer):
        raise ValueError(f"{name} must hold integer word indices, got dtype {tokens.dtype}")
    if tokens.size and (tokens.min() < 0 or tokens.max() >= vocab_size):
        raise ValueError(f"{name}: word indices must lie in 0..{vocab_size - 1}")
    return tokens


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
    w = _check_weights(w)
    lengths = _check_lengths(lengths, int(width), allow_empty=True)
    return _interpolated_weights(jnp.asarray(w, jnp.float32), jnp.asarray(lengths), int(width))


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
      (B, d) text vectors.
    """
    w = _check_weights(w)
    check_table(table)
    tokens = check_tokens(tokens, np.shape(table)[0])
    if tokens.shape[0] == 0:
        raise ValueError("tokens is empty: nothing to represent")
    lengths = _check_lengths(lengths, tokens.shape[1], allow_empty)
    if lengths.shape[0] != tokens.shape[0]:
        raise ValueError(f"lengths has {lengths.shape[0]} entries but tokens has {tokens.shape[0]} rows")
    return _represent_jit(jnp.asarray(w, jnp.float32), jnp.asarray(table), jnp.asarray(tokens), jnp.asarray(lengths))


_represent_jit = jax.jit(_represent)
