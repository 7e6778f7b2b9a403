"""Document frequencies that name their words, for an :class:`repro.encoder.Encoder`.

idf (paper, eq. 1) needs df and N from a corpus of documents. They come from a corpus of
texts (:meth:`DocFreq.from_corpus`, one text = one document) or a df file
(:func:`repro.store.save_word_df`), never from the counts that gensim attaches to a loaded
word2vec or GloVe file: gensim invents those from the file's row order.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, NamedTuple

import numpy as np


class DocFreq(NamedTuple):
    words: list  # the words counted
    df: np.ndarray  # (len(words),) int64: documents holding each word
    n_docs: int  # N, the number of documents

    @classmethod
    def from_corpus(cls, texts: Iterable) -> "DocFreq":
        """df of every word of ``texts`` (raw strings, cleaned by :func:`repro.text.tokenise`,
        or token lists), one text being one document. ValueError for an empty corpus."""
        from repro.text import tokenise

        counts: Counter = Counter()
        n = 0
        for t in texts:
            counts.update(set(tokenise(t) if isinstance(t, str) else t))
            n += 1
        if n == 0:
            raise ValueError("corpus: no texts to count document frequencies in")
        words = sorted(counts)
        return cls(words, np.fromiter((counts[w] for w in words), np.int64, len(words)), n)

    @classmethod
    def load(cls, path: str) -> "DocFreq":
        from repro import store

        return cls(*store.load_word_df(path))

    def save(self, path: str) -> None:
        from repro import store

        store.save_word_df(path, self.words, self.df, self.n_docs)

    def onto(self, words) -> np.ndarray:
        """(len(words),) int64 df of other ``words``: a word this table does not list gets df = 1,
        the authors' rule for words outside the corpus vocabulary (as
        :func:`repro.data.othervectors.other_idf`)."""
        index = dict(zip(self.words, self.df.tolist()))
        return np.fromiter((index.get(w, 1) for w in words), np.int64, len(words))
