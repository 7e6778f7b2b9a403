"""Tables 1 and 2 through a static token space: WordLlama's rows and its members of both families
(issue 34 item 3; not in the paper).

The couples of the tables are texts of corpus words (word ids over the corpus vocabulary, sorted by
idf). On a token space (:mod:`repro.spaces.tokenspace`, WordLlama's 32,000 x 256 matrix and its Llama
tokenizer by default) the same couples are read as text: a side's words joined by spaces, split by
the space's own tokenizer (:func:`couples`). The token space then is a word space of token ids:

* **df and counts over token ids** (:func:`corpus_docfreq`): the corpus's paragraphs tokenised,
  each one document, as the corpus words' df is counted (docs/FIDELITY.md); a token the corpus
  never holds gets df 1 and count 1 (:meth:`repro.words.docfreq.DocFreq.translate`, the unknown-word
  rule). The texts of a couple are idf-sorted over these token ids;
* **the peer row** "WordLlama": its own mean pooling of the tokens of a text (the mean of their
  rows of the raw matrix, as WordLlama's ``embed``), the peer family's configuration ``mean``, no
  map, no component (:data:`ROW_CONFIG`);
* **the learned family's members** on the token space (:data:`repro.evaluate.family.TOKEN_MAPS`:
  the raw token vectors and the Zipfian-whitened ones, each under both training distances): the
  family's own :class:`repro.evaluate.family.Member` with ``space="tokens"``, fitted by
  :func:`repro.evaluate.family.fits` on the token couples with ``n_max`` from :func:`token_n_max`;
* **the peer family's configurations** on the token space (:data:`PEER_CONFIGS`: the mean of the
  raw or of the Zipfian-whitened token vectors).

Member keys are ``wordllama_<map>-<distance>`` (score files hold them under
:func:`repro.settings.family_method`), distinct from the word family's keys; :func:`repro.evaluate.family.member`
parses either space's keys, so the tables name every member the same way.
"""

from __future__ import annotations

import math

import numpy as np

from repro import settings
from repro.evaluate import family, peerfamily
from repro.spaces import tokenspace
from repro.words.vocabulary import Vocabulary

#: The token space of the tables' rows (:func:`repro.spaces.tokenspace.load`'s name of the WordLlama wheel).
SOURCE = tokenspace.WORDLLAMA
#: The peer family on the token space: the mean of the raw token vectors (WordLlama's own pooling) and
#: of the Zipfian-whitened ones (p(t) from the corpus's token counts), no common component (removing
#: one costs an SVD of the training texts' vectors per configuration, twice the stage's scoring time).
PEER_CONFIGS = tuple(peerfamily.Config("mean", None, m, 0) for m in ("none", "zipf"))
#: The configuration that is the row "WordLlama": its own mean pooling.
ROW_CONFIG = PEER_CONFIGS[0]


def peer_method(config: peerfamily.Config) -> str:
    """The method name of a token peer configuration in a score file (no ``/``: ``wordllama_peer:mean_zipf_1``)."""
    return f"{family.TOKEN_PREFIX}peer:{config.key.replace('/', '_')}"


def peer_label(config: peerfamily.Config) -> str:
    return f"WordLlama's tokens: {config.label}"


# ---- the couples on the token space ---------------------------------------------------------------


def load(source=SOURCE) -> tuple[list[str], np.ndarray, tokenspace.TokenSpace]:
    """(token names, (V, d) float32 raw matrix, the :class:`repro.spaces.tokenspace.TokenSpace`) of ``source``."""
    got = tokenspace.load(source)
    if got is None:
        raise ValueError(f"token space: {source!r} is not one (the WordLlama wheel, or a folder with a tokenizer.json)")
    names, matrix, space = got
    return names, np.asarray(matrix, np.float32), space


def corpus_docfreq(space: tokenspace.TokenSpace, texts):
    """The :class:`repro.words.docfreq.DocFreq` of every token of ``space`` over the corpus ``texts`` (each
    a document): df, N and counts; a token no text holds gets df 1 and count 1 (the unknown-word rule)."""
    return space.docfreq(list(texts)).translate(space.names)


def vocabulary(space: tokenspace.TokenSpace, df, n_docs: int) -> Vocabulary:
    """The token space's :class:`repro.words.vocabulary.Vocabulary` (idf ranks over token ids) of ``df`` (V,) and N."""
    return Vocabulary(space.names, df, n_docs, space=space)


def side_texts(rows, lengths, words) -> list[str]:
    """Each text of ``rows`` (N, W) word ids with its ``lengths`` (N,) as its words joined by spaces."""
    words = np.asarray(words, dtype=object)
    rows, lengths = np.asarray(rows), np.asarray(lengths)
    return [" ".join(words[r[:n]]) for r, n in zip(rows, lengths)]


def couples(vocab: Vocabulary, pairs, words):
    """The couples ``pairs`` (a :class:`repro.core.pairset.PairSet` of word ids over ``words``) on the token
    space of ``vocab``: the same couples in the same order, same labels, each side its words joined by
    spaces and split by the space's tokenizer, idf-sorted over token ids (a side without a token has
    length 0)."""
    a = side_texts(pairs.a, pairs.len_a, words)
    b = side_texts(pairs.b, pairs.len_b, words)
    return vocab.couples(a, b, np.asarray(pairs.label))[0]


def token_n_max(n_max: int, word_lengths, token_lengths) -> int:
    """The members' number of weights on the token space: the setting's ``n_max`` (words) times the
    tokens per word of the training texts (sum of ``token_lengths`` over sum of ``word_lengths``),
    rounded up: as many weights per word as the word family has (docs/FIDELITY.md)."""
    words, tokens = float(np.sum(word_lengths)), float(np.sum(token_lengths))
    if words <= 0 or tokens <= 0:
        raise ValueError("token n_max: the training texts hold no words or no tokens")
    return max(1, math.ceil(n_max * tokens / words - 1e-9))


def member_methods() -> list[str]:
    """The score-file methods of the members (:func:`repro.settings.family_method`)."""
    return [settings.family_method(m.key) for m in family.members("tokens")]
