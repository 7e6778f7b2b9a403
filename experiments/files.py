"""Shared edges of the experiment scripts: loading a data folder's corpus and couples (the README
blocks they fill are :mod:`repro.io.readmeblock`'s)."""

from __future__ import annotations

import numpy as np

from repro.io import store
from repro.io.layout import Layout
from repro.words.vocabulary import Vocabulary


def load_corpus(data: str) -> tuple[Vocabulary, np.ndarray]:
    """The corpus's vocabulary (words, df, N) and its word2vec table (V, d) float32."""
    layout = Layout(data)
    words, table = store.load_vectors(layout.w2v)
    df, n_docs = store.load_df(layout.df, vocab_size=len(words))
    return Vocabulary(words, df, n_docs), np.asarray(table, np.float32)


def load_words(data: str) -> list[str]:
    """The corpus's words (its vocab.txt: there before its vectors, make's vocab stage)."""
    return store.read_vocab(Layout(data).vocab)


def load_split(data: str, setting: str, split: str):
    return store.load_pairs(Layout(data).pairs(setting, split))
