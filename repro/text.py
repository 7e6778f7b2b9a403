"""From text to token rows: the vocabulary, its idf order, and the padded rows the model reads.

A text is represented by the word indices of its in-vocabulary words sorted by descending
idf (paper, section 3.1), ties broken by the word string ascending (the original code sorts
(df, word) tuples), padded on the right with 0 to a common width.

:class:`Vocabulary` holds the words, their document frequencies and N, hence idf
(paper, eq. 1, :func:`repro.idf.idf`) and every word's idf rank. :meth:`Vocabulary.to_rows`
turns texts (raw strings, cleaned by the paper's rules, or token lists) into rows and
lengths; :func:`pack_texts` does the same for a flat array of many texts at once.
"""

from __future__ import annotations

import hashlib
from typing import Iterable, Sequence

import numpy as np

from repro.idf import idf as idf_from_df


def idf_order_rank(words: Sequence[str], df, n_docs: int) -> np.ndarray:
    """rank[i] = position of word i when sorted by descending idf, ties by the word ascending."""
    values = idf_from_df(df, n_docs)
    order = np.lexsort((np.asarray(words, dtype=object).astype(str), -values))
    rank = np.empty(len(words), dtype=np.int64)
    rank[order] = np.arange(len(words))
    return rank


def sort_text(ids, rank: np.ndarray) -> np.ndarray:
    """Word indices of one text in descending-idf order (word-string tie-break)."""
    ids = np.asarray(ids, dtype=np.int64)
    return ids[np.argsort(rank[ids], kind="stable")]


def pack_texts(flat: np.ndarray, lengths: np.ndarray, rank: np.ndarray, width: int) -> np.ndarray:
    """Every text sorted by descending idf and 0-padded: a (number of texts, width) int32 array.

    ``flat`` holds the texts' word indices one text after the other, ``lengths`` their lengths.
    """
    flat = np.asarray(flat, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    if lengths.size and lengths.max() > width:
        raise ValueError(f"lengths: a text of {int(lengths.max())} words exceeds the width {width}")
    text_of = np.repeat(np.arange(len(lengths)), lengths)
    order = np.lexsort((rank[flat], text_of))  # text by text, then by idf rank
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    packed = np.zeros((len(lengths), width), dtype=np.int32)
    packed[text_of, np.arange(len(flat)) - offsets[text_of]] = flat[order]
    return packed


def fingerprint(words: Iterable[str]) -> str:
    """SHA-256 of the words in order: weights and rows are only valid for the same list."""
    h = hashlib.sha256()
    for w in words:
        h.update(w.encode("utf-8") + b"\n")
    return h.hexdigest()


def tokenise(text: str) -> list[str]:
    """A raw text cleaned by the paper's rules (lower case, numbers to ``0``, characters outside
    ``[a-z0-9_]`` to spaces; :func:`repro.data.clean.clean_paragraph`) and split on spaces."""
    from repro.data.clean import clean_paragraph

    return clean_paragraph(text).split()


class Vocabulary:
    """Words with their document frequencies: idf, idf rank, and texts to token rows.

    Args:
      words: the vocabulary, row order of the embedding table.
      df: (V,) document frequencies (a document is one paragraph, as in the original code).
      n_docs: N, the number of documents.
    """

    def __init__(self, words: Sequence[str], df, n_docs: int):
        self.words = list(words)
        self.df = np.asarray(df, dtype=np.int64)
        if self.df.shape != (len(self.words),):
            raise ValueError(f"df: shape {self.df.shape} does not match {len(self.words)} words")
        self.n_docs = int(n_docs)
        self.idf = idf_from_df(self.df, self.n_docs)  # (V,) float64, paper eq. 1
        self.rank = idf_order_rank(self.words, self.df, self.n_docs)  # (V,) int64
        self.index = {w: i for i, w in enumerate(self.words)}
        if len(self.index) != len(self.words):
            raise ValueError("words: the vocabulary lists a word twice")

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
