"""A large list of texts encoded once per distinct text, on several processes (beyond the paper; issue 58).

Repeated texts are common in what users deduplicate: each distinct text is encoded once, and
``rep`` maps every text to its row. The rows are encoded by ``processes`` processes (the caller
and forked children, which inherit the loaded encoder, so none loads it again), each a slice of
the distinct texts, all writing into one shared float32 array: the tokenizer runs in Python,
one core per process. The rows are the same bits as one :meth:`Encoder.transform` of the
distinct texts: a text's vector depends on that text alone (checked in tests/test_search.py).
Each process encodes :data:`CHUNK` texts at a time, so that the token lists it holds stay small.
Warnings raised in a child (unknown letters, empty texts) are not shown.
"""

from __future__ import annotations

import mmap
import os
import warnings

import numpy as np

#: distinct texts below which no process is forked (the fork costs more than it saves)
FORK_MIN = 20_000
#: texts a process encodes at once (bounds the token lists each holds)
CHUNK = 32_768


def distinct(texts: list) -> tuple[list, np.ndarray]:
    """(the distinct texts in order of first appearance, (N,) int64 each text's row among them)."""
    index: dict = {}
    rep = np.fromiter((index.setdefault(t, len(index)) for t in texts), np.int64, len(texts))
    return list(index), rep


def _encode(enc, texts: list, lo: int, hi: int, out: np.ndarray) -> None:
    """Rows ``lo:hi`` of ``out``: the vectors of ``texts[lo:hi]``, :data:`CHUNK` at a time."""
    for a in range(lo, hi, CHUNK):
        b = min(a + CHUNK, hi)
        out[a:b] = enc.transform(texts[a:b])


def transform_distinct(enc, texts: list, processes: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(vectors, rep): (R, d) float32 the encoder's vectors of the R distinct texts of ``texts``, and
    (N,) int64 each text's row. ``processes``: how many encode side by side (default: the cores,
    at most 8); 1, or fewer than :data:`FORK_MIN` distinct texts, encodes in this process."""
    import multiprocessing  # here: a command-line call on a few texts never starts a process

    rows, rep = distinct(texts)
    processes = min(os.cpu_count() or 1, 8) if processes is None else max(1, int(processes))
    if processes == 1 or len(rows) < FORK_MIN or "fork" not in multiprocessing.get_all_start_methods():
        out = np.empty((len(rows), enc.dim), np.float32)
        _encode(enc, rows, 0, len(rows), out)
        return out, rep
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # no warning from tokenizers in a child
    size = len(rows) * enc.dim * 4
    buf = mmap.mmap(-1, max(size, 1))  # anonymous and shared: the children write into it
    out = np.frombuffer(buf, np.float32, len(rows) * enc.dim).reshape(len(rows), enc.dim)
    bounds = np.linspace(0, len(rows), processes + 1).astype(int)
    ctx = multiprocessing.get_context("fork")
    children = [ctx.Process(target=_encode, args=(enc, rows, bounds[p], bounds[p + 1], out), daemon=True)
                for p in range(1, processes)]
    with warnings.catch_warnings():  # the children run NumPy and the tokenizer only, never JAX
        warnings.filterwarnings("ignore", "os.fork", RuntimeWarning)
        for c in children:
            c.start()
    try:
        _encode(enc, rows, bounds[0], bounds[1], out)
    finally:
        for c in children:
            c.join()
    failed = [c.exitcode for c in children if c.exitcode != 0]
    if failed:
        raise RuntimeError(f"encoding: {len(failed)} of {processes - 1} worker processes failed (exit {failed[0]})")
    return out, rep
