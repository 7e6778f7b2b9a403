"""The contrastive-based and median-based losses (paper, section 3.2) and the L2 term.

Both take the distances of the related couples and of the unrelated couples of one
batch. p_C = +1 for a related couple and -1 for an unrelated one.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

DISTANCES = ("euclidean", "sqeuclidean")


def distance(x, y, kind: str = "euclidean"):
    """Row-wise distance between (B, d) arrays.

    ``euclidean`` is the paper's choice (section 5); ``sqeuclidean`` is what the original
    code trained with (kappa = 160 was tuned on it).
    """
    return distance_from_squared(jnp.sum(jnp.square(x - y), axis=-1), kind)


def distance_from_squared(sq, kind: str = "euclidean"):
    """The distance of ``kind`` from squared Euclidean distances ``sq``.

    The Euclidean gradient at a zero distance is taken as 0 (the double-``where`` guard),
    so identical texts give finite gradients.
    """
    if kind == "sqeuclidean":
        return sq
    if kind == "euclidean":
        positive = sq > 0
        return jnp.where(positive, jnp.sqrt(jnp.where(positive, sq, 1.0)), 0.0)
    raise ValueError(f"distance must be one of {DISTANCES}, got {kind!r}")


def batch_median(d):
    """mu(B): the median of all distances in the batch (paper, eq. 7).

    For an even batch the mean of the two middle values, as the original code. The
    gradient flows through the sort into those two couples, which gives the paper's
    term -dL_c(M(B))/dw.
    """
    s = jnp.sort(d)
    m = s.shape[0]
    if m % 2:
        return s[m // 2]
    return 0.5 * (s[m // 2 - 1] + s[m // 2])


def _check_batch(d_related, d_unrelated):
    """Shapes are static, so this check runs at trace time, also under ``jit``."""
    for name, d in (("d_related", d_related), ("d_unrelated", d_unrelated)):
        if jnp.ndim(d) != 1 or jnp.shape(d)[0] == 0:
            raise ValueError(f"{name} must be a non-empty 1-D array of distances, got shape {jnp.shape(d)}")


def contrastive_loss(d_related, d_unrelated):
    """L_c = p_C d, averaged over the couples of the batch (paper, eq. 5)."""
    _check_batch(d_related, d_unrelated)
    return jnp.mean(jnp.concatenate([d_related, -d_unrelated]))


def median_loss(d_related, d_unrelated, kappa):
    """L_m = ln(1 + exp(-kappa p_C (mu(B) - d))), averaged over the batch (paper, eq. 8).

    softplus is evaluated stably (``jax.nn.softplus``): kappa up to 1e4 and distances up
    to 1e3 give finite values and gradients. The original code sums the two class means,
    twice this value; the factor only rescales the learning rate.
    """
    _check_batch(d_related, d_unrelated)
    mu = batch_median(jnp.concatenate([d_related, d_unrelated]))
    related = jax.nn.softplus(kappa * (d_related - mu))  # p_C = +1
    unrelated = jax.nn.softplus(kappa * (mu - d_unrelated))  # p_C = -1
    return jnp.mean(jnp.concatenate([related, unrelated]))


def l2_penalty(w, lam):
    """lambda * sum_j w_j^2 (paper, section 5.2)."""
    return lam * jnp.sum(jnp.square(w))
