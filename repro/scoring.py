"""Distances and similarity scores of couples under learned weights, in bounded chunks: the
learned row of :mod:`repro.encodings` (the one scoring surface of every row)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from repro import encodings, losses
from repro.model import represent_unchecked
from repro.pairset import PairSet
from repro.textmetric import check_metric


def couple_distances(w, table, a, b, la, lb, kind):
    """(B,) distances of the couples (a, b) under weights ``w``, unchecked (``kind`` as
    :func:`repro.losses.distance`): the kappa search's held-out scoring (:mod:`repro.crossval`)
    maps it over the weights of every fold."""
    return losses.distance(represent_unchecked(w, table, a, la), represent_unchecked(w, table, b, lb), kind)


def padded_chunks(arrays, chunk: int):
    """:func:`repro.encodings.host_chunks` with the parts on the device."""
    for s, n, part in encodings.host_chunks(arrays, chunk):
        yield s, n, [jnp.asarray(x) for x in part]


def pair_distances(w, table, pairs: PairSet, kind: str = "euclidean", chunk: int = encodings.CHUNK) -> np.ndarray:
    """(P,) distances of every couple under learned weights ``w``: ``euclidean`` ||t(a) - t(b)||
    (paper, eq. 2) or ``cosine`` 1 - cos(t(a), t(b)); memory bounded by ``chunk``.

    Texts of length 0 (no in-vocabulary word) are the zero vector here, so the score of
    a couple with an empty text is still defined (docs/FIDELITY.md).
    """
    check_metric(kind, "kind")
    s = encodings.scores(encodings.Encoding("rank", w), table, pairs, kind, chunk)
    return -s if kind == "euclidean" else 1.0 - s


def learned_pair_scores(w, table, pairs: PairSet, chunk: int = encodings.CHUNK) -> np.ndarray:
    """Similarities under learned weights ``w`` (higher = more related): minus the Euclidean
    distance of the two text vectors (paper, eq. 2)."""
    return -pair_distances(w, table, pairs, "euclidean", chunk)
