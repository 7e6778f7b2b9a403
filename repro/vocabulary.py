"""The vocabulary of an embedding table: its words' document frequencies, idf ranks, and texts to rows.

:class:`Vocabulary` holds the words in the table's row order with their document frequencies
(a :class:`repro.docfreq.DocFreq`), hence idf (paper, eq. 1) and every word's idf rank
(:func:`idf_order_rank`: descending idf, ties by the word string ascending, as the original
code's sort of (df, word) tuples). :meth:`Vocabulary.to_rows` turns texts (raw strings, cleaned
by the paper's rules, :func:`repro.text.tokenise`, or token lists) into the idf-sorted, padded
rows the model reads (:func:`repro.text.pack_texts`).
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from repro.docfreq import DocFreq
from repro.text import fingerprint, pack_texts, tokenise


def idf_order_rank(words: Sequence[str], idf) -> np.ndarray:
    """rank[i] = position of word i when sorted by descending ``idf``, ties by the word ascending."""
    order = np.lexsort((np.asarray(words, dtype=object).astype(str), -np.asarray(idf, np.float64)))
    rank = np.empty(len(words), dtype=np.int64)
    rank[order] = np.arange(len(words))
    return rank


class Vocabulary:
    """Words with their document frequencies: idf, idf rank, and texts to token rows.

    Args:
      words: the vocabulary, row order of the embedding table.
      df: (V,) document frequencies (a document is one paragraph, as in the original code).
      n_docs: N, the number of documents.
    """

    def __init__(self, words: Sequence[str], df, n_docs: int):
        self.words = list(words)
        df = np.asarray(df, dtype=np.int64)
        if df.shape != (len(self.words),):
            raise ValueError(f"df: shape {df.shape} does not match {len(self.words)} words")
        self.docfreq = DocFreq(self.words, df, int(n_docs))
        self.idf = self.docfreq.idf()  # (V,) float64, paper eq. 1
        self.rank = idf_order_rank(self.words, self.idf)  # (V,) int64
        self.index = {w: i for i, w in enumerate(self.words)}
        if len(self.index) != len(self.words):
            raise ValueError("words: the vocabulary lists a word twice")

    @property
    def df(self) -> np.ndarray:
        """(V,) int64 document frequencies."""
        return self.docfreq.df

    @property
    def n_docs(self) -> int:
        """N, the number of documents."""
        return self.docfreq.n_docs

    @classmethod
    def load(cls, vocab_path: str, df_path: str) -> "Vocabulary":
        """From a ``vocab.txt`` and a ``df.npz`` (:mod:`repro.store`), checked against each other."""
        from repro import store

        words = store.read_vocab(vocab_path)
        df, n_docs = store.load_df(df_path, vocab_size=len(words))
        return cls(words, df, n_docs)

    def __len__(self) -> int:
        return len(self.words)

    def fingerprint(self) -> str:
        """SHA-256 of the words in order (:func:`fingerprint`)."""
        return fingerprint(self.words)

    def ids(self, tokens: Iterable[str]) -> list[int]:
        """Indices of the in-vocabulary tokens; out-of-vocabulary ones are dropped (not counted)."""
        get = self.index.get
        return [i for i in (get(t) for t in tokens) if i is not None]

    def to_rows(self, texts, width: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Texts to idf-sorted, 0-padded token rows.

        Args:
          texts: raw strings (cleaned and tokenised by :func:`tokenise`) or token lists.
          width: columns of the rows; defaults to the longest text (at least 1).
        Returns:
          rows (N, width) int32 and lengths (N,) int32, the number of in-vocabulary words.
        """
        flat: list[int] = []
        lengths = []
        for t in texts:
            ids = self.ids(tokenise(t) if isinstance(t, str) else t)
            flat.extend(ids)
            lengths.append(len(ids))
        lengths = np.asarray(lengths, dtype=np.int32)
        longest = int(lengths.max()) if lengths.size else 0
        width = max(longest, 1) if width is None else int(width)
        if longest > width:
            raise ValueError(f"texts: a text has {longest} in-vocabulary words, more than the width {width}")
        return pack_texts(np.asarray(flat, dtype=np.int64), lengths, self.rank, width), lengths
