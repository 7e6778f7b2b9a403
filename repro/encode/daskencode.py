"""Encoding a data set of texts on a Dask cluster: one encoder per worker, built from its saved file.

    import dask.dataframe as dd
    from repro.encode.daskencode import encode_frame

    texts = dd.read_parquet("texts.parquet")                  # a string column "text"
    vectors = encode_frame(texts, "enc.npz", column="text")   # lazy: columns v0 .. v{d-1}, float32
    vectors.to_parquet("vectors.parquet")                     # or .compute(), .to_dask_array(lengths=True)

:func:`encode_frame` is Dask's ``map_partitions`` with :func:`encode_partition`. A task carries
the *paths* of the encoder file (``Encoder.save``: weights, idf table, the vectors' path and
fingerprint; a few kB) and of the vectors, never an :class:`repro.encode.encoder.Encoder`: each worker
process builds the encoder once, on its first partition (:func:`encoder_for`, cached per process
and locked, so the threads of a worker share one), and memory-maps the vectors when they are a
folder of ``repro vectors``, so the workers of one machine share one copy in the page cache.
The vectors must be at the same path on every worker (a shared file system), or passed as
``vectors=``. Each partition is encoded in one thread of its worker (``workers=1``): Dask
already runs one task per core. The vectors are those of ``Encoder.transform``, bit for bit
(tests/test_daskencode.py).

Dask is an optional extra (``pip install -e '.[dask]'``; ``make test`` installs it): this module
never imports it (it calls the ``map_partitions`` of the frame it is given), and nothing else
in the package imports this module.
"""

from __future__ import annotations

import os
import threading

import numpy as np
import pandas as pd

from repro.encode.encoder import Encoder

_LOCK = threading.Lock()
_ENCODERS: dict = {}


def encoder_for(model: str, vectors: str | None = None, workers: int = 1) -> Encoder:
    """The encoder saved at ``model`` (on ``vectors``, default the path it records), built once
    per process and shared by its threads."""
    key = (os.path.abspath(model), None if vectors is None else os.path.abspath(vectors), int(workers))
    with _LOCK:
        enc = _ENCODERS.get(key)
        if enc is None:
            enc = _ENCODERS[key] = Encoder.load(model, vectors=vectors, workers=workers)
    return enc


def columns(dim: int) -> list[str]:
    """The names of the output columns: v0 .. v{dim-1}."""
    return [f"v{j}" for j in range(dim)]


def encode_partition(frame: pd.DataFrame, model: str, column: str = "text", vectors: str | None = None,
                     workers: int = 1) -> pd.DataFrame:
    """The vectors of ``frame[column]`` (raw texts, one a row) as a DataFrame of float32 columns
    v0 .. v{d-1} on ``frame``'s index, by the process's encoder (:func:`encoder_for`)."""
    enc = encoder_for(model, vectors, workers)
    if column not in frame.columns:
        raise ValueError(f"{column}: no such column (the columns are {', '.join(map(str, frame.columns))})")
    matrix = enc.transform(frame[column].tolist()) if len(frame) else np.zeros((0, enc.dim), np.float32)
    return pd.DataFrame(matrix, index=frame.index, columns=columns(enc.dim))


def encode_frame(frame, model: str, column: str = "text", vectors: str | None = None, workers: int = 1):
    """A lazy Dask DataFrame of the texts' vectors: ``frame.map_partitions(encode_partition, ...)``.

    ``frame``: a Dask DataFrame with a string column ``column`` (e.g. ``dd.read_parquet``);
    ``model``: an encoder file of :meth:`repro.encode.encoder.Encoder.save` (``repro train``), readable
    by every worker. Only that file is read here (for the output's dimension), not the vectors.
    """
    from repro.io import store

    dim = int(store.load_encoder(model)[1]["dim"])
    meta = pd.DataFrame({name: pd.Series([], dtype=np.float32) for name in columns(dim)})
    return frame.map_partitions(encode_partition, model, column=column, vectors=vectors, workers=workers, meta=meta)
