"""The encoder's word space: one immutable value (issue 33, item 1).

A text's vector (paper, eq. 3) reads three things of each word: whether it has a vector, its idf
rank (eq. 1) and its row of the table. :class:`WordSpace` holds them, and what made the rows:

* ``vocabulary``: the vector words in the vectors' order, their document frequencies, idf and idf
  ranks (:class:`repro.words.vocabulary.Vocabulary`); for a token space also its tokenizer
  (``vocabulary.space``, :mod:`repro.spaces.tokenspace`), whose token ids are then the words.
* ``tokenise``: how a raw text becomes words: the paper's rule or the Unicode rule
  (:mod:`repro.words.text`), or the token space's tokenizer.
* ``table``: (V + 1, k) float32, row r the vector of the word of idf rank r (unit length unless the
  encoder says otherwise), mapped by ``word_map``; row V is zero (unknown words, padding).
* ``unlisted``: (V,) bool, the vector words the df source does not list (df = 1, the authors' rule).
* ``counts``: (V,) int64 word counts that p(w) comes from, where the word map needs them; else None.
* ``word_map``: the fixed map of every word vector (a :class:`repro.spaces.transforms.Transform`, its
  scale in word order; :data:`repro.spaces.transforms.IDENTITY`, the paper's, by default; the maps are
  :mod:`repro.spaces.wordmap`'s, not in the paper), and ``usif_length``, ``usif_length_from``: uSIF's
  mean text length and where it came from ("given", "corpus", "fit"; None without uSIF). The map
  of ``word_components`` (the learned family's ``cc``) is fitted on distinct texts: a corpus's, then
  the training couples' (:meth:`WordSpace.refitted`).
* ``base``: the unmapped table, kept only while :meth:`repro.encode.encoder.Encoder.fit` may still
  rebuild the map (:func:`refits`); else None.
* ``cache``: where the ranks and the mapped space are cached beside the vectors
  (:class:`repro.spaces.cachedspace.Space`, :mod:`repro.words.cachedranks`); ``source``: the vectors' recorded path.

:meth:`WordSpace.of` makes the space an encoder's arguments describe; :meth:`WordSpace.build` the
unmapped space of given words, vectors and df.

Nothing in it is assigned after it is made: :meth:`WordSpace.map` returns a new value. An encoder
swaps its word space whole, so a step that fails leaves the old one.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from typing import Callable

import numpy as np

from repro.spaces import wordmap
from repro.words.docfreq import DocFreq
from repro.encode.longtext import FIT_MAX_WORDS, fit_tokens
from repro.spaces.cachedspace import Space
from repro.words.text import token_lists, tokeniser as tokeniser_named
from repro.encode.textwarnings import unseen_df_message
from repro.spaces.transforms import IDENTITY, Transform
from repro.spaces.vectors import home, load_space, normalise, source_label
from repro.words.vocabulary import Vocabulary


def read_vectors(vectors, lowercase: bool, progress: bool = False):
    """(words, (V, d) matrix as stored: float32, or a token space's own float type, source label,
    token space or None) by :func:`repro.spaces.vectors.load_space`; :meth:`WordSpace.build`
    normalises them into its float32 table."""
    words, matrix, space = load_space(vectors, normalize=False, lowercase=lowercase, progress=progress, as_stored=True)
    return words, matrix, source_label(vectors), space


def docfreq_of(df, corpus, tokenise, progress: bool = False, frequencies: str = "corpus", words=None,
               space=None) -> DocFreq:
    """The document frequencies of an encoder's ``df`` or ``corpus`` argument (exactly one of
    them), or, with neither, of ``frequencies="wordfreq:<lang>"`` (-log p(w) orders, eq. 1)."""
    if df is None and corpus is None and frequencies != "corpus":  # word frequencies alone: -log p(w) orders
        return DocFreq.from_frequencies(words, frequencies, space)
    if (df is None) == (corpus is None):
        raise ValueError("df: give exactly one of df (a df file, DocFreq or Vocabulary) and corpus (texts), or "
                         "neither with frequencies='wordfreq:<lang>'")
    if corpus is not None:  # a token space counts its token ids
        if space is not None:
            return space.docfreq(corpus, progress)
        return DocFreq.from_corpus(corpus, tokenise, progress=progress)
    if isinstance(df, DocFreq):
        return df
    if isinstance(df, Vocabulary):
        return DocFreq(df.words, df.df, df.n_docs)
    if isinstance(df, (str, os.PathLike)):
        return DocFreq.load(os.fspath(df))
    raise ValueError(f"df: expected a df file path, DocFreq or Vocabulary, got {type(df).__name__}")


def refits(recipe: wordmap.WordMap, usif_length_from) -> bool:
    """Whether :meth:`repro.encode.encoder.Encoder.fit` rebuilds the word map of ``recipe``: uSIF's mean
    length (unless given) and the map's common components are then the training texts'."""
    return bool(recipe.word_weights == "usif" and usif_length_from != "given" or recipe.word_components)


def recipe_of(settings: dict) -> wordmap.WordMap:
    """The word map of an encoder's settings (``word_weights``, ``whiten``, ``word_components``;
    :func:`repro.spaces.wordmap.of`)."""
    return wordmap.of(settings.get("word_weights"), settings.get("whiten"), settings.get("word_components", 0))


@dataclasses.dataclass(frozen=True, eq=False)
class WordSpace:
    """The words, their df, idf ranks and (mapped) vectors of an encoder; see the module."""

    vocabulary: Vocabulary
    tokenise: Callable
    table: np.ndarray
    unlisted: np.ndarray
    cache: Space
    counts: np.ndarray | None = None
    word_map: Transform = IDENTITY
    usif_length: float | None = None
    usif_length_from: str | None = None
    base: np.ndarray | None = None
    source: str | None = None  # the vectors' recorded path or name (None: given in memory)
    #: the arguments of :meth:`of` that shaped the space (``normalize``, ``lowercase``, ``tokeniser``,
    #: ``word_weights``, ``whiten``, ``frequencies``, ``word_components``); None for :meth:`build`'s
    options: dict | None = None

    @classmethod
    def of(cls, vectors, df=None, corpus=None, *, normalize: bool = True, lowercase: bool = False,
           tokeniser: str = "paper", word_weights=None, whiten=None, frequencies: str = "corpus",
           usif_length: float | None = None, word_components: int = 0, weighted: bool = False,
           progress: bool = False) -> "WordSpace":
        """The space that :class:`repro.encode.encoder.Encoder`'s arguments describe (see there), its
        options checked, mapped by the word map of ``word_weights``, ``whiten`` and ``word_components``
        (:func:`repro.spaces.wordmap.of`) unless it waits for uSIF's mean length or the common components'
        texts from the training couples (no ``corpus``); ``weighted``: the encoder has its weights
        already, so the map needs them now."""
        if usif_length is not None and not (isinstance(usif_length, (int, float)) and usif_length > 0):
            raise ValueError(f"usif_length: expected a positive mean text length, got {usif_length!r}")
        tokenise = tokeniser_named(tokeniser)
        words, matrix, source, space = read_vectors(vectors, lowercase, progress)
        if space is not None and tokeniser != "paper":
            raise ValueError(f"tokeniser: a token space splits texts with its own tokenizer, not {tokeniser!r}")
        freq = docfreq_of(df, corpus, tokenise, progress, frequencies, words, space)
        carried = freq.translate(words)
        recipe = wordmap.of(word_weights, whiten, word_components)
        needs = recipe.needs
        ws = cls.build(words, matrix, carried.df, freq.n_docs, tokeniser=tokeniser, normalize=normalize, source=source,
                       space=space, unlisted=~freq.lists(words), counts=wordmap.map_counts(
                           words, carried.counts, frequencies, space) if "counts" in needs else None)
        ws = dataclasses.replace(ws, options=dict(normalize=bool(normalize), lowercase=bool(lowercase), tokeniser=tokeniser,
                                                  word_weights=word_weights, whiten=whiten, frequencies=frequencies,
                                                  word_components=word_components))
        length, length_from = (None, None) if usif_length is None else (float(usif_length), "given")
        texts = None
        if corpus is not None and ("texts" in needs or "length" in needs and length is None):
            texts = ws.distinct(token_lists(list(corpus), ws.tokenise, "corpus"), "texts" in needs)
            if "length" in needs and length is None:
                length, length_from = float(np.mean(texts[1])), "corpus"
        if "length" in needs and length is None or "texts" in needs and texts is None:
            if weighted:
                raise ValueError("usif_length: uSIF needs the mean text length, and an encoder with given weights "
                                 "is not fitted: pass corpus= (texts) or usif_length=" if "texts" not in needs else
                                 "corpus: word_components removes common components of texts from the word vectors, "
                                 "and an encoder with given weights is not fitted: pass corpus= (texts)")
            return ws
        return ws.mapped_by(recipe, length, length_from, texts) if recipe.parts else ws

    @classmethod
    def build(cls, words, matrix, df, n_docs, *, tokeniser: str = "paper", normalize: bool = True, source=None,
              space=None, unlisted=None, counts=None) -> "WordSpace":
        """The unmapped space of vectors ``words``, ``matrix`` (V, d) with their ``df`` and N; ``source``
        the vectors' recorded path (None: in memory, nothing cached), ``space`` a token space,
        ``counts`` the (V,) word counts for p(w)."""
        cache = Space(home(source))  # the mapped table's cache beside the vectors (repro.spaces.cachedspace)
        vocabulary = Vocabulary(words, df, n_docs, space=space, cache=cache.folder)  # repro.words.cachedranks
        v, d = matrix.shape
        # rows in idf-rank order (unit length unless normalize=False, written in one pass from the
        # vectors as loaded, e.g. memory-mapped), and a zero row V for unknown words and padding
        table = np.empty((v + 1, d), np.float32)
        table[v] = 0.0
        if normalize:
            normalise(matrix, out=table, rows=vocabulary.rank)
        else:
            table[vocabulary.rank] = matrix
        unlisted = np.zeros(len(words), bool) if unlisted is None else np.asarray(unlisted, bool)
        tokenise = tokeniser_named(tokeniser) if space is None else space.encode
        counts = None if counts is None else np.asarray(counts, np.int64)
        return cls(vocabulary, tokenise, table, unlisted, cache, counts, source=source)

    @property
    def space(self):
        """The token space (:class:`repro.spaces.tokenspace.TokenSpace`), or None for a word space."""
        return self.vocabulary.space

    @property
    def dim(self) -> int:
        return int(self.table.shape[1])

    @functools.cached_property
    def unlisted_rank(self) -> np.ndarray:
        """(V + 1,) bool: ``unlisted`` by idf rank, the sentinel row V (unknown words) never set."""
        out = np.zeros(len(self.unlisted) + 1, bool)
        out[self.vocabulary.rank] = self.unlisted
        return out

    @property
    def unmapped(self) -> np.ndarray:
        """The table before the word map."""
        if self.base is None and not self.word_map.identity:
            raise ValueError("word map: this space keeps no unmapped table (its map is final)")
        return self.table if self.base is None else self.base

    def unseen_df(self, tokens: list, chunk: int) -> str:
        """The warning's words when many words with a vector of the first ``chunk`` token lists are
        not in the df source (:func:`repro.encode.textwarnings.unseen_df_message`); "" otherwise."""
        return unseen_df_message(tokens, chunk, self.vocabulary.lookup, self.unlisted_rank, self.vocabulary.n_docs)

    def tokens(self, texts: list, name: str = "texts", dropped: list | None = None) -> list:
        """The words of ``texts`` (raw strings or token lists, :func:`repro.words.text.token_lists`; for a
        token space their token ids, one batch); ``dropped`` collects the raw texts that lost letters."""
        if self.space is not None:
            return self.space.ids(texts, name)
        try:
            return token_lists(texts, self.tokenise, name, dropped=dropped)
        except ValueError as err:
            raise ValueError(str(err)) from None

    def couples(self, couples, labels, dropped: list | None = None) -> tuple:
        """(PairSet of idf-rank rows, (P,) bool kept, the 2P texts, their 2P token lists: every text
        a, then every text b) of ``couples`` (pairs (text_a, text_b)) with ``labels`` (1 related, 0
        unrelated), checked; a couple with a text without known words dropped
        (:meth:`repro.words.vocabulary.Vocabulary.couples`); texts longer than
        :data:`repro.encode.longtext.FIT_MAX_WORDS` become their known words (or an error). ``dropped``: as
        for :meth:`tokens`."""
        couples, labels = list(couples), np.asarray(labels)
        if not couples:
            raise ValueError("couples: no couples")
        if labels.shape != (len(couples),) or not np.isin(labels, (0, 1)).all():
            raise ValueError(f"labels: need one 0 (unrelated) or 1 (related) per couple, got shape {labels.shape}")
        if any(not isinstance(c, (tuple, list)) or len(c) != 2 for c in couples):
            raise ValueError("couples: every couple must be a pair (text_a, text_b)")
        p = len(couples)
        texts = [c[0] for c in couples] + [c[1] for c in couples]
        tokens = self.tokens(texts, "couples", dropped)
        if max(map(len, tokens), default=0) > FIT_MAX_WORDS:
            tokens = fit_tokens(tokens, self.vocabulary.lookup.ranks, len(self.vocabulary), p)
        pairs, kept = self.vocabulary.couples(tokens[:p], tokens[p:], labels, order="idf", drop_empty=True)
        return pairs, kept, texts, tokens

    def distinct(self, tokens: list, components: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The distinct texts of ``tokens`` with a known word (rows of the unmapped rank-ordered table,
        lengths), as :func:`repro.core.pairset.training_texts` takes the training texts: uSIF's mean text
        length and the word map's common components (``components``) come from them."""
        from repro.core.pairset import distinct_texts

        rows, lengths = self.vocabulary.rows(tokens, order="idf")
        keep = lengths > 0
        if not keep.any():
            raise ValueError("corpus: no text has a word with a vector" +
                             ("" if components else ", so uSIF has no mean text length"))
        return distinct_texts(rows[keep], lengths[keep])

    def refitted(self, recipe: wordmap.WordMap, pairs) -> "WordSpace":
        """The space :meth:`repro.encode.encoder.Encoder.fit` learns on from the training couples ``pairs``
        (a PairSet of this space's rows): where :func:`refits`, the map of ``recipe`` fitted again on
        their distinct texts (:func:`repro.core.pairset.training_texts`; uSIF's mean length, unless given,
        and the common components), as the learned family fits its maps (:func:`repro.evaluate.family.member_map`);
        else this space."""
        if not refits(recipe, self.usif_length_from):
            return self
        from repro.core.pairset import training_texts

        texts, length, source = training_texts(pairs), self.usif_length, self.usif_length_from
        if recipe.word_weights == "usif" and source != "given":
            length, source = float(np.mean(texts[1])), "fit"
        return self.mapped_by(recipe, length, source, texts)

    def word_map_of(self, recipe: wordmap.WordMap, usif_length: float | None, texts=None,
                    final: bool = True) -> Transform:
        """The word map of ``recipe`` (:func:`repro.spaces.wordmap.word_map`) on the unmapped unit-length
        table, ``counts`` and the distinct ``texts`` (rows of that table, where the map removes common
        components), its scale in word order; cached (:mod:`repro.spaces.cachedspace`) when ``final``."""
        rank = self.vocabulary.rank
        counts = None if self.counts is None else np.empty_like(self.counts)
        if counts is not None:
            counts[rank] = self.counts  # into table (idf-rank) order
        t = self.cache.fit_map(self.unmapped, counts, recipe, usif_length, texts, cache=final)
        return t if t.scale is None else t._replace(scale=t.scale[rank])

    def mapped_by(self, recipe: wordmap.WordMap, usif_length: float | None = None,
                  usif_length_from: str | None = None, texts=None) -> "WordSpace":
        """:meth:`map` by the word map of ``recipe`` (:meth:`word_map_of`), final unless :func:`refits`."""
        final = not refits(recipe, usif_length_from)
        return self.map(self.word_map_of(recipe, usif_length, texts, final), final=final,
                        usif_length=usif_length, usif_length_from=usif_length_from)

    def map(self, t: Transform, *, final: bool = True, usif_length: float | None = None,
            usif_length_from: str | None = None) -> "WordSpace":
        """A new space, every row of the unmapped table mapped by ``t`` (word order; the zero row V
        kept), made with uSIF's length ``usif_length``. ``final``: the map never changes again, so
        the mapped table is cached and no unmapped table is kept; else it is kept, and nothing cached."""
        base = self.unmapped
        table = base
        if not t.identity:
            ranked = t if t.scale is None else t._replace(scale=np.empty_like(t.scale))
            if t.scale is not None:
                ranked.scale[self.vocabulary.rank] = t.scale
            table = self.cache.table(ranked, base, cache=final)
        return dataclasses.replace(self, table=table, word_map=t, base=None if final else base,
                                   usif_length=usif_length, usif_length_from=usif_length_from)
