"""The vocabulary of an embedding table: its words' document frequencies, idf ranks, and texts to rows.

:class:`Vocabulary` holds the words in the table's row order with their document frequencies
(a :class:`repro.words.docfreq.DocFreq`), hence idf (paper, eq. 1) and every word's idf rank
(:func:`idf_order_rank`: descending idf, ties by the word string ascending, as the original
code's sort of (df, word) tuples).

**The text boundary.** Texts become rows and couples here, one way for every caller (the encoder's
``fit`` and ``transform``, the tweet sets, the Wikipedia couples, the STS harness):

* :meth:`Vocabulary.rows`: texts (raw strings or token lists, decided by
  :func:`repro.words.text.token_lists`) to the idf-sorted, 0-padded rows the model reads, their numbers
  word indices (``order="word"``: rows of the table in word order) or idf ranks
  (``order="idf"``: rows of the table in idf order, as the encoder keeps it). The lookup is
  :meth:`repro.words.ranklookup.RankLookup.rows`;
* :meth:`Vocabulary.pack`: the same rows from word indices already looked up (the Wikipedia
  windows, :func:`repro.words.text.pack_texts`);
* :meth:`Vocabulary.couples`: texts a and b to a :class:`repro.core.pairset.PairSet`, through
  :meth:`rows` and :func:`repro.core.pairset.from_rows` (the row-level entry, the one place a
  PairSet is assembled).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from repro.words import cachedranks
from repro.words.docfreq import DocFreq
from repro.core.pairset import PairSet, from_rows
from repro.words.ranklookup import RankLookup
from repro.words.text import fingerprint, pack_texts, token_lists, tokenise

#: What the numbers of a token row are: word indices (rows of the table in word order) or idf
#: ranks (rows of the table in idf order).
ORDERS = ("word", "idf")


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
      space: the :class:`repro.spaces.tokenspace.TokenSpace` of a token space (its words are then its
        token names, and texts are lists of token ids: :meth:`lookup` is its id lookup), or None.
    """

    def __init__(self, words: Sequence[str], df, n_docs: int, space=None, cache: str | None = None):
        self.space = space
        self.words = list(words)
        df = np.asarray(df, dtype=np.int64)
        if df.shape != (len(self.words),):
            raise ValueError(f"df: shape {df.shape} does not match {len(self.words):,} words")
        self.docfreq = DocFreq(self.words, df, int(n_docs))
        self.idf = self.docfreq.idf()  # (V,) float64, paper eq. 1
        self._index = self._lookup = None
        key = None
        if cache and space is None and len(self.words) >= cachedranks.MIN_WORDS:
            key = cachedranks.key(self.words, self.idf)  # words and idf: all the rank and the lookup depend on
            held = cachedranks.read(cache, key, self.words)
            if held is not None:  # written only for words found unique
                self.rank, self._lookup = held
                return
        self.rank = idf_order_rank(self.words, self.idf)  # (V,) int64
        if len(self.index) != len(self.words):
            raise ValueError("words: the vocabulary lists a word twice")
        if key is not None:
            cachedranks.write(cache, key, self.rank, self.lookup)

    @property
    def index(self) -> dict:
        """word -> its row in the table (word order), built once."""
        if self._index is None:
            self._index = {w: i for i, w in enumerate(self.words)}
        return self._index

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
        """From a ``vocab.txt`` and a ``df.npz`` (:mod:`repro.io.store`), checked against each other."""
        from repro.io import store

        words = store.read_vocab(vocab_path)
        df, n_docs = store.load_df(df_path, vocab_size=len(words))
        return cls(words, df, n_docs)

    def __len__(self) -> int:
        return len(self.words)

    def fingerprint(self) -> str:
        """SHA-256 of the words in order (:func:`fingerprint`)."""
        return fingerprint(self.words)

    @property
    def lookup(self) -> RankLookup:
        """word -> idf rank for whole chunks of tokens (:class:`repro.words.ranklookup.RankLookup`; a token
        space's id -> rank, :class:`repro.spaces.tokenspace.IdLookup`), built once."""
        if getattr(self, "_lookup", None) is None:
            space = getattr(self, "space", None)
            self._lookup = RankLookup(self.words, self.rank) if space is None else space.lookup(self.rank)
        return self._lookup

    @property
    def word_of_rank(self) -> np.ndarray:
        """(V + 1,) int32: the word index of every idf rank, and 0 for the sentinel V (padding)."""
        if getattr(self, "_word_of_rank", None) is None:
            out = np.zeros(len(self.words) + 1, np.int32)
            out[self.rank] = np.arange(len(self.words), dtype=np.int32)
            self._word_of_rank = out
        return self._word_of_rank

    def rows(self, texts, width: int | None = None, *, order: str = "word",
             tokenise=tokenise) -> tuple[np.ndarray, np.ndarray]:
        """Texts to idf-sorted, 0-padded token rows (paper, section 3.1): the one way from texts to rows.

        Args:
          texts: raw strings (split by ``tokenise``, by default the paper's rule
            :func:`repro.words.text.tokenise`; in a token space by its tokenizer) or token lists
            (:func:`repro.words.text.token_lists`; in a token space lists of token ids or names).
          width: columns of the rows; defaults to the longest text (at least 1).
          order: "word" (the numbers are word indices) or "idf" (idf ranks, 0 = highest idf).
        Returns:
          rows (N, width) int32 and lengths (N,) int32, the number of in-vocabulary words.
          Out-of-vocabulary words are dropped and not counted.
        """
        if order not in ORDERS:
            raise ValueError(f"order: expected one of {', '.join(ORDERS)}, got {order!r}")
        space = getattr(self, "space", None)
        if space is not None and not (isinstance(texts, list) and all(type(t) is list for t in texts)):
            tokens = space.ids(texts)  # a token space: raw strings by its tokenizer, to token ids
        else:
            tokens = token_lists(texts, tokenise)
        ranks, lengths = self.lookup.rows(tokens)
        longest = int(lengths.max()) if lengths.size else 0
        if width is not None:
            width = int(width)
            if longest > width:
                raise ValueError(f"texts: a text has {longest} in-vocabulary words, more than the width {width}")
            if width > ranks.shape[1]:
                ranks = np.pad(ranks, ((0, 0), (0, width - ranks.shape[1])), constant_values=self.lookup.sentinel)
            else:
                ranks = ranks[:, :width]
        if order == "word":
            return self.word_of_rank[ranks], lengths
        return np.where(ranks == self.lookup.sentinel, 0, ranks).astype(np.int32, copy=False), lengths

    def word_ids(self, texts) -> np.ndarray:
        """(total tokens,) int64 word index of every token of ``texts`` (token lists) in order,
        -1 for an out-of-vocabulary one: the lookup of :meth:`rows`, for a caller that walks the
        tokens itself (the Wikipedia windows, :mod:`repro.data.wikipedia.wikipairs`)."""
        word_of_rank, lookup = self.word_of_rank, self.lookup
        ranks = lookup.ranks(texts)
        return np.where(ranks == lookup.sentinel, -1, word_of_rank[ranks]).astype(np.int64)

    def pack(self, flat, lengths, width: int) -> np.ndarray:
        """(number of texts, width) int32 rows of word indices already looked up: ``flat`` holds
        the texts' in-vocabulary word indices one text after the other, ``lengths`` their
        lengths; each text sorted by descending idf and 0-padded (:func:`repro.words.text.pack_texts`)."""
        return pack_texts(flat, lengths, self.rank, width)

    def couples(self, texts_a, texts_b, labels, *, width: int | None = None, order: str = "word",
                tokenise=tokenise, drop_empty: bool = False) -> tuple[PairSet, np.ndarray]:
        """Couples (texts_a[k], texts_b[k]) with ``labels[k]`` (1 related, 0 unrelated) as a
        :class:`repro.core.pairset.PairSet`: both sides in one call of :meth:`rows` (one width,
        ``width`` or the longest text), then :func:`repro.core.pairset.from_rows`.

        ``drop_empty``: leave out the couples with a text without an in-vocabulary word (such a
        text has no representation, paper section 3). Returns (the PairSet, (P,) bool: which of
        the P couples it holds).
        """
        texts_a, texts_b, labels = list(texts_a), list(texts_b), np.asarray(labels)
        p = len(texts_a)
        if len(texts_b) != p or labels.shape != (p,):
            raise ValueError(f"couples: {p:,} texts a, {len(texts_b):,} texts b and labels of shape {labels.shape}")
        rows, lengths = self.rows(texts_a + texts_b, width, order=order, tokenise=tokenise)
        kept = (lengths[:p] > 0) & (lengths[p:] > 0) if drop_empty else np.ones(p, bool)
        a = np.flatnonzero(kept)
        return from_rows(rows, lengths, a, p + a, labels[kept]), kept
