"""Common components of text vectors, NumPy only: fitted by an SVD and removed from every vector
(SIF's common component, Arora et al. 2017; uSIF's, Ethayarajh 2018; not in the paper).

t <- t - sum_k s_k (t.c_k) c_k, the c_k the first k right singular vectors of the texts' vectors
(not centred) and s_k each one's scale (:data:`COMPONENT_SCALES`). Encoding a text with an
encoder that removes components imports no JAX.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Components(NamedTuple):
    """Common components of texts: the top right singular vectors (k, d) of their vectors (not
    centred), their singular values (k,), and the scale of each when removed (k,)."""

    vectors: np.ndarray
    values: np.ndarray
    scales: np.ndarray


NO_COMPONENTS = Components(np.zeros((0, 1)), np.zeros(0), np.zeros(0))
"""Nothing to remove."""

#: How component k is scaled when removed: 1 (SIF), its share sigma_k^2 / sum sigma^2 (uSIF as
#: Ethayarajh publishes it), or the square of that share (fse 1.0.0's uSIF).
COMPONENT_SCALES = ("one", "share", "share_squared")


def fit_components(text_vectors, k: int, scales: str = "one") -> Components:
    """The first ``k`` right singular vectors of ``text_vectors`` (N, d), not centred, each removed
    with the scale ``scales`` names (:data:`COMPONENT_SCALES`; the shares are over the k kept)."""
    return fit_components_each(text_vectors, (k,), scales)[0]


def fit_components_each(text_vectors, ks, scales: str = "one") -> list[Components]:
    """:func:`fit_components` of the same ``text_vectors`` for every k of ``ks``, from one SVD (each
    the same bits as its own call; k = 0 needs none)."""
    if scales not in COMPONENT_SCALES:
        raise ValueError(f"scales: expected one of {', '.join(COMPONENT_SCALES)}, got {scales!r}")
    x = np.asarray(text_vectors, np.float64)
    for k in ks:
        if not 0 <= k <= min(x.shape):
            raise ValueError(f"k must lie in 0..{min(x.shape)}, got {k}")
    sigma, vt = (np.zeros(0), np.zeros((0, x.shape[1]))) if max(ks, default=0) == 0 else \
        np.linalg.svd(x, full_matrices=False)[1:]
    out = []
    for k in ks:
        values, vectors = sigma[:k], vt[:k]
        share = values ** 2 / max(np.sum(values ** 2), np.finfo(np.float32).eps)
        scale = {"one": np.ones(k), "share": share, "share_squared": share ** 2}[scales]
        out.append(Components(vectors, values, scale))
    return out


def remove_components(text_vectors, comps: Components) -> np.ndarray:
    """(N, d) float64: t - sum_k scale_k (t.c_k) c_k for every row t."""
    x = np.asarray(text_vectors, np.float64)
    if comps.vectors.shape[0] == 0:
        return x.copy()
    return x - ((x @ comps.vectors.T) * comps.scales) @ comps.vectors
