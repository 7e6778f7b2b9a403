"""Searching the shards of a set too large for one machine, with Dask (issue 58, item 6).

A set of 100M short texts does not fit one machine's memory (100 GB of float32 vectors at 256 d):
it is kept as shards, each an index folder (``repro index``) or a ``.npy`` of vectors, on storage
every worker reads. :func:`sharded_top_k` searches them with Dask: one task per shard computes the
shard's exact top k of every query (:func:`repro.search.neighbours.top_k`, the shard memory-mapped
and read a block at a time; an index folder's kept lengths spare a pass), and the parts are merged
on the caller, each query's best k by (score, descending; global row, ascending). The result is
the exact top k of the whole set, ties to the lower row, as one scan of all the rows would give
(tests/test_search.py): an item outside its shard's top k has k items of that shard at least as
good and of lower rows, so it is outside the whole set's too.

Dask is the optional extra ``dask`` (the recipe of :mod:`repro.encode.daskencode`); this module
imports it only when called. Pass ``scheduler`` ("threads", "processes", "sync") or run it under a
``dask.distributed.Client``, whose workers then read the shards' paths. Near-duplicates across
shards are another matter (each couple needs both shards): not done here.

    from repro.search.shards import sharded_top_k
    ids, scores = sharded_top_k(queries, ["part-0/", "part-1/", "part-2.npy"], k=10)
"""

from __future__ import annotations

import os

import numpy as np

from repro.errors import InputError
from repro.search.neighbours import as_matrix, top_k


def shard_rows(shard) -> int:
    """The rows of a shard (an index folder, a ``.npy``, or an array), read without its vectors."""
    if isinstance(shard, (str, os.PathLike)):
        path = os.fspath(shard)
        if os.path.isdir(path):
            from repro.search.indexfolder import load
            return load(path).n
        if path.endswith(".npy") and os.path.isfile(path):
            return int(np.load(path, mmap_mode="r").shape[0])
        raise InputError(path, "a shard must be an index folder or a .npy of vectors")
    return int(as_matrix(shard, "shard").shape[0])


def shard_top_k(queries, shard, k: int, metric: str, offset: int) -> tuple[np.ndarray, np.ndarray]:
    """One task: (global rows, scores), (Q, min(k, rows)) each, the exact top k of one shard."""
    if isinstance(shard, (str, os.PathLike)) and os.path.isdir(os.fspath(shard)):
        from repro.search.indexfolder import load
        index = load(os.fspath(shard))
        if index.metric != metric:
            raise InputError(os.fspath(shard), f"the shard scores by {index.metric}, not {metric}")
        ids, scores = index.top_k(queries, k)
    else:
        x = np.load(os.fspath(shard), mmap_mode="r") if isinstance(shard, (str, os.PathLike)) else shard
        ids, scores = top_k(queries, x, min(k, len(x)), metric)
    return ids + offset, scores


def merge(parts, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each query's best k of the shards' parts [(rows, scores), ...] by (score, descending; row, ascending)."""
    ids = np.concatenate([p[0] for p in parts], axis=1)
    scores = np.concatenate([p[1] for p in parts], axis=1)
    k = min(k, ids.shape[1])
    order = np.lexsort((ids, -scores), axis=1)[:, :k]
    return np.take_along_axis(ids, order, axis=1), np.take_along_axis(scores, order, axis=1)


def sharded_top_k(queries, shards, k: int = 10, metric: str = "cosine", *, scheduler=None):
    """(ids, scores), (Q, k) each: the exact top k of ``queries`` over every shard, one Dask task a
    shard (module docstring); ``ids`` are rows of the shards taken in order as one set."""
    try:
        import dask
    except ImportError:
        raise InputError("shards", "searching shards needs Dask: pip install 'repro-deboom2016[dask]'") from None
    q = as_matrix(queries, "queries")
    if not shards:
        raise InputError("shards", "no shard given")
    sizes = [shard_rows(s) for s in shards]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).tolist()
    tasks = [dask.delayed(shard_top_k)(q, s, k, metric, int(o)) for s, o, n in zip(shards, offsets, sizes) if n]
    parts = dask.compute(*tasks, scheduler=scheduler)
    return merge(parts, k)
