"""Distances and similarity scores of couples under learned weights, in bounded chunks."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from repro import losses
from repro.checks import check_pairs, check_table, check_weights
from repro.jitting import jit
from repro.model import _represent
from repro.pairset import PairSet


def _distances(w, table, a, b, la, lb, kind):
    return losses.distance(_represent(w, table, a, la), _represent(w, table, b, lb), kind)


_distances_jit = jit(_distances, static_argnums=6)


def padded_chunks(arrays, chunk: int):
    """Yield (start, n, parts): the rows start..start+n of every host array in ``arrays`` (one
    length P), on the device, ``chunk`` at a time; when P > ``chunk`` the last part is padded
    with zeros to ``chunk`` rows, so one compiled shape serves every call (drop its rows past n)."""
    total = len(arrays[0])
    size = max(1, min(chunk, total))  # no rows: no parts
    for s in range(0, total, size):
        part = [np.asarray(x[s:s + size]) for x in arrays]
        n = part[0].shape[0]
        if n < size:
            part = [np.pad(x, [(0, size - n)] + [(0, 0)] * (x.ndim - 1)) for x in part]
        yield s, n, [jnp.asarray(x) for x in part]


def pair_distances(w, table, pairs: PairSet, kind: str = "euclidean", chunk: int = 8192) -> np.ndarray:
    """(P,) distances d(t(a), t(b)) of every couple; memory bounded by ``chunk``.

    Texts of length 0 (no in-vocabulary word) are the zero vector here, so the score of
    a couple with an empty text is still defined (docs/FIDELITY.md).
    """
    w = jnp.asarray(check_weights(w), jnp.float32)
    table = jnp.asarray(check_table(table))
    check_pairs(pairs, vocab_size=table.shape[0])
    out = np.empty(pairs.size, np.float64)
    for s, n, part in padded_chunks([np.asarray(x) for x in pairs[:4]], chunk):
        out[s:s + n] = np.asarray(_distances_jit(w, table, *part, kind))[:n]
    return out


def learned_pair_scores(w, table, pairs: PairSet, chunk: int = 8192) -> np.ndarray:
    """Similarities under learned weights ``w`` (higher = more related): minus the Euclidean
    distance of the two text vectors (paper, eq. 2). The baselines' scores are
    :func:`repro.baselines.baseline_pair_scores`."""
    return -pair_distances(w, table, pairs, "euclidean", chunk)
