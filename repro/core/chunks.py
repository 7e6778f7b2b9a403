"""Rows of arrays in bounded chunks, the last one padded, so that one compiled shape serves
every call: the walk of the kappa search's held-out scoring (:mod:`repro.core.crossval`) and of
the tables' scoring surface (:mod:`repro.evaluate.scoring`)."""

from __future__ import annotations

import numpy as np

CHUNK = 8192
"""Texts encoded per call: the gathered embeddings of a chunk are chunk x W x d float32 (400 MB at
W = 30, d = 400), whatever the number of texts."""


def host_chunks(arrays, chunk: int):
    """Yield (start, n, parts): rows start..start+n of every array in ``arrays`` (one length P),
    ``chunk`` at a time; when P > ``chunk`` the last part is padded with zeros to ``chunk`` rows,
    so one compiled shape serves every call (drop its rows past n)."""
    total = len(arrays[0])
    size = max(1, min(int(chunk), total))
    for s in range(0, total, size):
        part = [np.asarray(x[s:s + size]) for x in arrays]
        n = part[0].shape[0]
        if n < size:
            part = [np.pad(x, [(0, size - n)] + [(0, 0)] * (x.ndim - 1)) for x in part]
        yield s, n, part
