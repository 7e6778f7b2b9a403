"""Document frequencies, in one home: counting them, the idf of eq. 1, and the words with their df.

idf (paper, eq. 1) needs df, the number of documents holding a word, and N, the number of
documents. A document is one paragraph (the Wikipedia stage, as in the original code) or one
text (a user's corpus). Both ways of counting are here:

* :func:`count_known`: the df of the words of a fixed vocabulary (a word index), one block
  of documents at a time, which the data stage :mod:`repro.data.wikipedia.paragraphdf` streams over a
  paragraph file with a pool of workers;
* :meth:`DocFreq.from_corpus`: the df and the word counts of every word of a corpus of texts.

:class:`DocFreq` is the one object of words with their df, N and (where counted) their word
counts, with their idf (:meth:`DocFreq.idf`) and **the unknown-word rule**: carried onto another
vocabulary (:meth:`DocFreq.translate`, the authors' ``docfreq.translate``), a word it does not
list gets df = 1 and word count 1. The encoder, Table 1's third column (other vectors,
:mod:`repro.evaluate.othervectorscolumn`) and the STS harness all take their df and counts that way. It never comes from the counts that gensim attaches to a loaded
word2vec or GloVe file: gensim invents those from the file's row order.
"""

from __future__ import annotations

import itertools

from collections import Counter
from typing import Iterable, NamedTuple

import numpy as np

from repro.words.text import tokenise, tokens


def idf(df, n_docs: int) -> np.ndarray:
    """idf = log(N / (1 + df)), natural log, as in the paper's equation 1.

    ``df`` holds document frequencies; ``n_docs`` is N, the number of documents. Only the
    order of idf values matters for the learned-weight model; the idf-weighted and tf-idf
    baselines use the values themselves.
    """
    df = np.asarray(df, dtype=np.float64)
    if n_docs <= 0:
        raise ValueError(f"n_docs must be positive, got {n_docs}")
    if (df < 0).any():
        raise ValueError("df: document frequencies must be non-negative")
    return np.log(n_docs / (1.0 + df))


class BlockCounts(NamedTuple):
    """Counts of the known words of a block of documents (:func:`count_known`)."""

    words: np.ndarray  # (K,) int64 indices of the words seen, unique
    df: np.ndarray  # (K,) int64 documents holding each
    terms: np.ndarray  # (K,) int64 occurrences of each (the word counts of SIF and uSIF)
    documents: int  # documents in the block


def count_known(documents: Iterable[Iterable[str]], index: dict[str, int]) -> BlockCounts:
    """Document frequencies and word counts of the words of ``index`` in ``documents``.

    Each document is an iterable of tokens; a token outside ``index`` is ignored. The word
    indices are unique, so block counts add up with ``df[words] += block.df``.
    """
    hits: list[int] = []
    n = 0
    for tokens in documents:
        hits.extend(i for i in (index.get(t) for t in tokens) if i is not None)
        hits.append(-1)  # the end of a document
        n += 1
    h = np.asarray(hits, dtype=np.int64)
    if not (h >= 0).any():
        empty = np.zeros(0, np.int64)
        return BlockCounts(empty, empty, empty, n)
    doc = np.cumsum(h < 0) - (h < 0)  # the document of every hit
    known = h >= 0
    words, terms = np.unique(h[known], return_counts=True)
    pairs = np.unique(np.stack([doc[known], h[known]], axis=1), axis=0)  # (document, word) once each
    _, df = np.unique(pairs[:, 1], return_counts=True)
    return BlockCounts(words, df.astype(np.int64), terms.astype(np.int64), n)


#: The df and the word count a vocabulary's word gets where the counts do not list it (the
#: authors' ``docfreq.translate``: "every other word gets df = 1").
UNKNOWN_DF = 1
UNKNOWN_COUNT = 1


class DocFreq(NamedTuple):
    """Words with their document frequencies, N, and (optionally) their word counts."""

    words: list  # the words counted
    df: np.ndarray  # (len(words),) int64: documents holding each word
    n_docs: int  # N, the number of documents
    counts: np.ndarray | None = None  # (len(words),) int64 occurrences of each (SIF, uSIF), or None

    @classmethod
    def from_corpus(cls, texts: Iterable, tokenise=tokenise, progress: bool = False) -> "DocFreq":
        """df and word counts of every word of ``texts`` (raw strings, split by ``tokenise``, by
        default the paper's rule :func:`repro.words.text.tokenise`, or token lists:
        :func:`repro.words.text.tokens`), one text being one document.
        ``progress``: one bar "count df" past a second, on a terminal (:mod:`repro.progress`).
        ValueError for an empty corpus."""
        from repro.progress import bar

        counts: Counter = Counter()
        terms: Counter = Counter()
        n = 0
        total = len(texts) if hasattr(texts, "__len__") else None
        with bar(total, "count df", unit="text", show=progress) as shown:
            for t in texts:
                toks = tokens(t, tokenise, f"corpus[{n}]")
                counts.update(set(toks))
                terms.update(toks)
                n += 1
                if n % 1024 == 0:
                    shown.update(1024)
            shown.update(n % 1024)
        if n == 0:
            raise ValueError("corpus: no texts to count document frequencies in")
        words = sorted(counts)
        return cls(words, np.fromiter((counts[w] for w in words), np.int64, len(words)), n,
                   np.fromiter((terms[w] for w in words), np.int64, len(words)))

    @classmethod
    def from_frequencies(cls, words, frequencies: str, space=None) -> "DocFreq":
        """The df of ``words`` from word frequencies instead of a corpus (not in the paper):
        ``frequencies="wordfreq:<lang>"`` gives every word the count fse induces from wordfreq,
        c(w) = int(p(w) (2**31 - 1)) (:func:`repro.words.wordfrequencies.word_counts`; for a token space
        ``space``, its counts of wordfreq's words), taken as df and word count, with N = 2**31 - 1.
        idf = log(N / (1 + c(w))) (eq. 1) then orders the words by -log p(w), the order a corpus
        of that distribution gives. An :class:`repro.errors.InputError` naming ``frequencies``
        for ``"corpus"`` (there is none) or when wordfreq is missing."""
        from repro.errors import InputError
        from repro.words.wordfrequencies import DOMAIN, parse_source, word_counts

        if parse_source(frequencies)[0] == "corpus":
            raise InputError("frequencies", "'corpus' is not a source of document frequencies without a corpus; "
                                            "name 'wordfreq:<language>' (e.g. 'wordfreq:en')")
        words = list(words)
        counts = np.minimum(np.asarray(word_counts(frequencies, words, space=space), np.int64), DOMAIN)
        return cls(words, counts, DOMAIN, counts)

    @classmethod
    def load(cls, path: str) -> "DocFreq":
        """The words, df, N and (where the file holds them) word counts of a file of
        :func:`repro.io.store.save_word_df`."""
        from repro.io import store

        return cls(*store.load_word_df(path, counts=True))

    def save(self, path: str) -> None:
        """The words, df, N and the word counts (when counted) to ``path`` (.npz)."""
        from repro.io import store

        store.save_word_df(path, self.words, self.df, self.n_docs, self.counts)

    def idf(self) -> np.ndarray:
        """(len(words),) float64 idf of every word (paper, eq. 1)."""
        return idf(self.df, self.n_docs)

    def lists(self, words) -> np.ndarray:
        """(len(words),) bool: which of ``words`` this table lists (the others get df = 1 by :meth:`translate`)."""
        listed = set(self.words)
        return np.fromiter(map(listed.__contains__, words), bool, len(words))

    def translate(self, words) -> "DocFreq":
        """These counts carried onto another vocabulary ``words`` (the authors' ``docfreq.translate``):
        a word this table lists keeps its df and word count, any other gets df = :data:`UNKNOWN_DF`
        and count = :data:`UNKNOWN_COUNT`; N stays. Its idf (eq. 1) is then log(N/2) for those
        words, the rarest level, so texts in words of both vocabularies keep their idf order."""
        for key, values in (("df", self.df), ("counts", self.counts)):
            if values is not None and len(values) != len(self.words):
                raise ValueError(f"{key}: {len(values):,} values for {len(self.words):,} words")
        words = list(words)
        row: dict = {}
        for i, w in enumerate(self.words):
            row.setdefault(w, i)
        where = np.fromiter(map(row.get, words, itertools.repeat(-1)), np.int64, len(words))
        listed, at = where >= 0, np.maximum(where, 0)

        def carried(values, unknown):
            return np.where(listed, np.asarray(values, np.int64)[at] if len(values) else 0, unknown).astype(np.int64)

        counts = None if self.counts is None else carried(self.counts, UNKNOWN_COUNT)
        return DocFreq(words, carried(self.df, UNKNOWN_DF), self.n_docs, counts)
