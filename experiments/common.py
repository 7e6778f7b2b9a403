"""Shared edges of the experiment scripts: loading a setting, CLI error handling."""

from __future__ import annotations

import os
import time

import numpy as np

from repro import pairset
from repro.cli import fail
from repro.vectors import load_vectors

SPLITS = ("train", "validation", "test")
SETTINGS = ("wiki20", "wikivar")


def load_split(data: str, setting: str, split: str) -> pairset.PairSet:
    return pairset.load(os.path.join(data, setting, f"{split}.npz"))


def load_corpus(data: str):
    """(words, table (V, d) float32, df (V,), n_docs) of the corpus's own word2vec and df."""
    words, table = load_vectors(os.path.join(data, "w2v"))
    path = os.path.join(data, "df.npz")
    if not os.path.exists(path):
        raise ValueError(f"{path}: no such file")
    with np.load(path, allow_pickle=False) as z:
        df, n_docs = z["df"], int(z["n_docs"])
    if df.shape != (len(words),):
        raise ValueError(f"{path}: {df.shape[0]} document frequencies for {len(words)} words")
    return words, np.asarray(table, np.float32), df, n_docs


def run_cli(main, argv=None) -> int:
    """Run ``main(argv)``; bad input becomes one line on stderr and exit status 1."""
    start = time.perf_counter()
    try:
        main(argv)
    except (ValueError, OSError, KeyboardInterrupt) as err:
        return fail(err)
    print(f"done in {time.perf_counter() - start:.1f} s")
    return 0
