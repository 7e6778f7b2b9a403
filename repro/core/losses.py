"""The contrastive-based and median-based losses (paper, section 3.2) and the L2 term.

Both take the distances of the related couples and of the unrelated couples of one
batch. p_C = +1 for a related couple and -1 for an unrelated one.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

DISTANCES = ("euclidean", "sqeuclidean", "cosine")


def distance(x, y, kind: str = "euclidean"):
    """Row-wise distance between (B, d) arrays.

    ``euclidean`` is the paper's choice (section 5); ``sqeuclidean`` is what the original
    code trained with (kappa = 160 was tuned on it); ``cosine``, 1 - cos(x, y), is not the
    paper's (:func:`cosine_from_products`).

    Args:
      x, y: (B, d) float text vectors.
      kind: "euclidean", "sqeuclidean" or "cosine".

    Returns:
      (B,) distances, in the inputs' float dtype.
    """
    if kind == "cosine":
        return cosine_from_products(jnp.sum(x * x, axis=-1), jnp.sum(y * y, axis=-1), jnp.sum(x * y, axis=-1))
    return distance_from_squared(jnp.sum(jnp.square(x - y), axis=-1), kind)


def cosine_from_products(aa, bb, ab):
    """1 - cos = 1 - ab / sqrt(aa bb) from the products t_a.t_a, t_b.t_b and t_a.t_b of a couple's
    text vectors (not in the paper; with t = (1/n) E^T z each is a quadratic form in the weights).

    A couple with a zero vector has distance 1 (cosine 0, as :mod:`repro.core.textmetric` scores it)
    and gradient 0 there (the double-``where`` guard)."""
    norm2 = aa * bb
    positive = norm2 > 0
    cos = jnp.where(positive, ab / jnp.sqrt(jnp.where(positive, norm2, 1.0)), 0.0)
    return 1.0 - jnp.clip(cos, -1.0, 1.0)


def distance_from_squared(sq, kind: str = "euclidean"):
    """The distance of ``kind`` from squared Euclidean distances ``sq``.

    The Euclidean gradient at a zero distance is taken as 0 (the double-``where`` guard),
    so identical texts give finite gradients. The cosine is no function of ``sq``: ValueError.
    """
    if kind == "cosine":
        raise ValueError("distance: the cosine needs the products t_a.t_a, t_b.t_b, t_a.t_b (cosine_from_products)")
    if kind == "sqeuclidean":
        return sq
    if kind == "euclidean":
        positive = sq > 0
        return jnp.where(positive, jnp.sqrt(jnp.where(positive, sq, 1.0)), 0.0)
    raise ValueError(f"distance must be one of {DISTANCES}, got {kind!r}")


def median_weights(d):
    """The coefficients of mu(B) on the batch's distances, from a non-differentiated argsort.

    (m,) with 1/2 on the two middle couples of an even batch (1 on the middle couple of an
    odd one) and 0 elsewhere. The order is a constant of the step (``stop_gradient``), and
    the mask is built by comparisons with an iota, so no gather of the distances is ever
    differentiated: the gradient holds no scatter-add (deterministic on GPUs too).
    """
    m = d.shape[0]
    order = jax.lax.stop_gradient(jnp.argsort(d))  # stable: ties keep their batch order
    middle = (order[m // 2],) if m % 2 else (order[m // 2 - 1], order[m // 2])
    iota = jnp.arange(m, dtype=order.dtype)
    mask = sum((iota == i).astype(d.dtype) for i in middle)
    return mask / len(middle)


def batch_median(d):
    """mu(B): the median of all distances in the batch (paper, eq. 7).

    For an even batch the mean of the two middle values, as the original code. The
    gradient flows into those two couples, half each, which gives the paper's term
    -dL_c(M(B))/dw (eq. 9): the subgradient of sorting, taken through the masks of
    :func:`median_weights`.
    """
    return jnp.sum(median_weights(d) * d)


def _check_batch(d_related, d_unrelated):
    """Shapes are static, so this check runs at trace time, also under ``jit``."""
    for name, d in (("d_related", d_related), ("d_unrelated", d_unrelated)):
        if jnp.ndim(d) != 1 or jnp.shape(d)[0] == 0:
            raise ValueError(f"{name} must be a non-empty 1-D array of distances, got shape {jnp.shape(d)}")


def contrastive_loss(d_related, d_unrelated):
    """L_c = p_C d, averaged over the couples of the batch (paper, eq. 5).

    Args:
      d_related: (R,) distances of the related couples (p_C = +1).
      d_unrelated: (U,) distances of the unrelated couples (p_C = -1).

    Returns:
      () float: the batch's mean loss.
    """
    _check_batch(d_related, d_unrelated)
    return jnp.mean(jnp.concatenate([d_related, -d_unrelated]))


def median_loss(d_related, d_unrelated, kappa):
    """L_m = ln(1 + exp(-kappa p_C (mu(B) - d))), averaged over the batch (paper, eq. 8).

    softplus is evaluated stably (``jax.nn.softplus``): kappa up to 1e4 and distances up
    to 1e3 give finite values and gradients. The original code sums the two class means,
    twice this value; with lambda > 0 matching it takes half the learning rate *and* twice
    lambda, and its absolute stop tolerance then applies to the doubled loss (docs/FIDELITY.md).

    Args:
      d_related: (R,) distances of the related couples (p_C = +1).
      d_unrelated: (U,) distances of the unrelated couples (p_C = -1).
      kappa: () float, the sharpness of the soft step around the batch median mu(B) (eq. 7).

    Returns:
      () float: the batch's mean loss.
    """
    _check_batch(d_related, d_unrelated)
    mu = batch_median(jnp.concatenate([d_related, d_unrelated]))
    related = jax.nn.softplus(kappa * (d_related - mu))  # p_C = +1
    unrelated = jax.nn.softplus(kappa * (mu - d_unrelated))  # p_C = -1
    return jnp.mean(jnp.concatenate([related, unrelated]))


def l2_penalty(w, lam):
    """lambda * sum_j w_j^2 (paper, section 5.2).

    Args:
      w: (n_max,) weights.
      lam: () float, lambda.

    Returns:
      () float: the penalty.
    """
    return lam * jnp.sum(jnp.square(w))
