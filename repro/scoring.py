"""Distances and similarity scores of couples under learned weights, in bounded chunks."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from repro import losses
from repro.model import _check_weights, _represent, check_table, check_tokens
from repro.pairset import PairSet, validate


def _distances(w, table, a, b, la, lb, kind):
    return losses.distance(_represent(w, table, a, la), _represent(w, table, b, lb), kind)


_distances_jit = jax.jit(_distances, static_argnums=6)


def pair_distances(w, table, pairs: PairSet, kind: str = "euclidean", chunk: int = 8192) -> np.ndarray:
    """(P,) distances d(t(a), t(b)) of every couple; memory bounded by ``chunk``.

    Texts of length 0 (no in-vocabulary word) are the zero vector here, so the score of
    a couple with an empty text is still defined (docs/FIDELITY.md).
    """
    w = jnp.asarray(_check_weights(w), jnp.float32)
    check_table(table)
    table = jnp.asarray(table)
    validate(pairs, vocab_size=table.shape[0])
    check_tokens(pairs.a, table.shape[0], "pairs.a")
    out = np.empty(pairs.size, np.float64)
    for s in range(0, pairs.size, chunk):
        part = [jnp.asarray(np.asarray(x)[s:s + chunk]) for x in pairs[:4]]
        n = part[0].shape[0]
        if n < chunk and pairs.size > chunk:  # pad the tail so one compiled shape serves all
            part = [jnp.pad(x, [(0, chunk - n)] + [(0, 0)] * (x.ndim - 1)) for x in part]
        out[s:s + n] = np.asarray(_distances_jit(w, table, *part, kind))[:n]
    return out


def pair_scores(w, table, pairs: PairSet, chunk: int = 8192) -> np.ndarray:
    """Similarities (higher = more related): minus the Euclidean distance (paper, eq. 2)."""
    return -pair_distances(w, table, pairs, "euclidean", chunk)
