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


class Spectrum(NamedTuple):
    """The SVD of N text vectors (N, d), not centred: their singular values (r,) and right singular
    vectors (r, d), r = min(N, d) (r = 0 where no SVD was needed), and N."""

    values: np.ndarray
    vectors: np.ndarray
    texts: int


def spectrum(text_vectors) -> Spectrum:
    """The :class:`Spectrum` of ``text_vectors`` (N, d), in float64: what every number of common
    components is read off (:func:`components_of`), so the SVD is made once for all of them."""
    x = np.asarray(text_vectors, np.float64)
    values, vectors = np.linalg.svd(x, full_matrices=False)[1:]
    return Spectrum(values, vectors, x.shape[0])


def no_spectrum(texts: int, dim: int) -> Spectrum:
    """The :class:`Spectrum` of ``texts`` vectors of ``dim`` dimensions before any SVD: it serves
    k = 0 alone (no component), so no text vector need be made for it."""
    return Spectrum(np.zeros(0), np.zeros((0, dim)), texts)


def _check(ks, s: Spectrum, scales: str) -> None:
    """ValueError naming ``scales`` unless one of :data:`COMPONENT_SCALES`, or a k of ``ks`` out of
    0..min(N, d) of the spectrum ``s``."""
    if scales not in COMPONENT_SCALES:
        raise ValueError(f"scales: expected one of {', '.join(COMPONENT_SCALES)}, got {scales!r}")
    for k in ks:
        if not 0 <= k <= min(s.texts, s.vectors.shape[1]):
            raise ValueError(f"k must lie in 0..{min(s.texts, s.vectors.shape[1])}, got {k}")


def components_of(s: Spectrum, ks, scales: str = "one") -> list[Components]:
    """The first k right singular vectors of the spectrum ``s`` for every k of ``ks``, each removed
    with the scale ``scales`` names (:data:`COMPONENT_SCALES`; the shares are over the k kept): the
    same bits as :func:`fit_components` of the text vectors ``s`` is the SVD of.

    Args:
      s: a :class:`Spectrum` of N text vectors (N, d) (:func:`spectrum`; :func:`no_spectrum` for k = 0 alone).
      ks: numbers of components, each in 0..min(N, d).
      scales: how each component is scaled when removed.

    Returns:
      One :class:`Components` per k of ``ks``: vectors (k, d), values (k,), scales (k,).
    """
    _check(ks, s, scales)
    out = []
    for k in ks:
        if k > s.values.shape[0]:
            raise ValueError(f"k = {k}: no SVD was made for this spectrum (make it by spectrum())")
        values, vectors = s.values[:k], s.vectors[:k]
        share = values ** 2 / max(np.sum(values ** 2), np.finfo(np.float32).eps)
        scale = {"one": np.ones(k), "share": share, "share_squared": share ** 2}[scales]
        out.append(Components(vectors, values, scale))
    return out


def fit_components(text_vectors, k: int, scales: str = "one") -> Components:
    """The first ``k`` right singular vectors of ``text_vectors`` (N, d), not centred, each removed
    with the scale ``scales`` names (:data:`COMPONENT_SCALES`; the shares are over the k kept)."""
    return fit_components_each(text_vectors, (k,), scales)[0]


def fit_components_each(text_vectors, ks, scales: str = "one") -> list[Components]:
    """:func:`fit_components` of the same ``text_vectors`` for every k of ``ks``, from one SVD (each
    the same bits as its own call; k = 0 needs none)."""
    x = np.asarray(text_vectors, np.float64)
    none = no_spectrum(*x.shape)
    _check(ks, none, scales)  # before the SVD
    return components_of(spectrum(x) if max(ks, default=0) else none, ks, scales)


def remove_components(text_vectors, comps: Components) -> np.ndarray:
    """(N, d) float64: t - sum_k scale_k (t.c_k) c_k for every row t."""
    x = np.asarray(text_vectors, np.float64)
    if comps.vectors.shape[0] == 0:
        return x.copy()
    return x - ((x @ comps.vectors.T) * comps.scales) @ comps.vectors
