"""Word frequencies p(w) without a corpus: a frequency source for SIF, uSIF and whitening.

Not in the paper (issue 23). SIF (Arora et al., 2017), uSIF (Ethayarajh, 2018) and Zipfian
whitening weigh words by their unigram probability p(w). Where there is a corpus its own word
counts stay the default (``"corpus"``); a user who has only a vectors file can name
``"wordfreq:<lang>"`` (``frequencies="wordfreq:en"``): the frequencies of the ``wordfreq``
package (Speer, 2022; PyPI ``wordfreq`` 3.1.x, its data CC BY-SA 4.0; the optional extra
``freq``: ``pip install 'repro-deboom2016[freq]'``), taken as fse 1.0.0's ``lang_freq`` takes
them (``BaseSentence2VecModel._induce_frequencies``): every vector word w gets the count
``int(f(w) * (2**31 - 1))``, f its frequency in ``get_frequency_dict(lang, wordlist="best")``,
and a word the list lacks ``int(1e-8 * (2**31 - 1))`` = 21. The probabilities are then the
counts over the sum of counts of the vector vocabulary (:func:`repro.evaluate.peers.probabilities`).

Alone, without a corpus or a df file, ``"wordfreq:<lang>"`` is also the source of the document
frequencies (:meth:`repro.words.docfreq.DocFreq.from_frequencies`): df = the induced count and N =
:data:`DOMAIN`, so that idf = log(N / (1 + df)) (eq. 1) orders the words by -log p(w).
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np

from repro.errors import InputError

DOMAIN = 2 ** 31 - 1
"""fse's ``domain``: the total count the frequencies are scaled to."""
MISSING = 1e-8
"""fse's frequency of a word that the list lacks."""
EXTRA = "pip install 'repro-deboom2016[freq]' (or pip install 'wordfreq>=3.1,<3.2')"


def parse_source(source: str) -> tuple[str, str | None]:
    """``"corpus"`` -> ("corpus", None); ``"wordfreq:<lang>"`` -> ("wordfreq", lang); else an
    :class:`repro.errors.InputError` naming ``frequencies``."""
    if source == "corpus":
        return "corpus", None
    kind, _, lang = str(source).partition(":")
    if kind == "wordfreq" and lang:
        return "wordfreq", lang
    raise InputError("frequencies", f"expected 'corpus' or 'wordfreq:<language>' (e.g. 'wordfreq:en'), got {source!r}")


def frequency_dict(lang: str) -> dict:
    """wordfreq's ``get_frequency_dict(lang, wordlist="best")``: word -> frequency (they sum to
    about 1). An :class:`repro.errors.InputError` naming ``frequencies`` when the package is
    missing or does not know ``lang``."""
    try:
        import wordfreq
    except ImportError:
        raise InputError("frequencies", f"'wordfreq:{lang}' needs the wordfreq package: {EXTRA}") from None
    if lang not in wordfreq.available_languages(wordlist="best"):
        raise InputError("frequencies", f"wordfreq has no word list for language {lang!r}")
    return wordfreq.get_frequency_dict(lang, wordlist="best")


def frequency_file(lang: str) -> str | None:
    """The file :func:`frequency_dict` reads for exactly ``lang``: wordfreq's large list, else its
    small one (its "best"), found without importing wordfreq; None when wordfreq is not installed
    or has no file for that exact code (it may still match the code approximately)."""
    spec = importlib.util.find_spec("wordfreq")
    if spec is None or not spec.submodule_search_locations:
        return None
    data = os.path.join(list(spec.submodule_search_locations)[0], "data")
    for size in ("large", "small"):
        path = os.path.join(data, f"{size}_{lang}.msgpack.gz")
        if os.path.isfile(path):
            return path
    return None


def induced_counts(words, freq: dict) -> np.ndarray:
    """(V,) int64 counts of ``words`` from the frequencies ``freq`` as fse induces them:
    ``int(freq[w] * DOMAIN)``, and ``int(MISSING * DOMAIN)`` for a word ``freq`` lacks."""
    missing = int(MISSING * DOMAIN)
    get = freq.get
    return np.fromiter((missing if (f := get(w)) is None else int(f * DOMAIN) for w in words), np.int64, len(words))


def word_counts(source: str, words, corpus_counts=None, space=None) -> np.ndarray:
    """(V,) word counts of ``words`` from ``source``: ``"corpus"`` returns ``corpus_counts``
    (required then), ``"wordfreq:<lang>"`` the counts fse induces (:func:`induced_counts`), or,
    for the tokens of a token space ``space``, its counts of wordfreq's words
    (:meth:`repro.spaces.tokenspace.TokenSpace.wordfreq_counts`: wordfreq lists words, not tokens)."""
    kind, lang = parse_source(source)
    if kind == "corpus":
        if corpus_counts is None:
            raise InputError("frequencies", "'corpus' needs a corpus to count words in; without one, "
                                            "name 'wordfreq:<language>' (e.g. 'wordfreq:en')")
        counts = np.asarray(corpus_counts)
        if counts.shape != (len(words),):
            raise InputError("frequencies", f"{counts.shape} corpus counts for {len(words)} words")
        return counts
    if space is not None:
        return space.wordfreq_counts(lang)
    return induced_counts(words, frequency_dict(lang))
