"""The encoder's fixed map of the word vectors: word weights, centring, Zipfian whitening (not in the paper).

Issue 23's model is the paper's text vector (eq. 3) on mapped word vectors,

    t = (1/n) sum_j z_j s(w_j) P(e_(j) - mu)

with z the learned weights per idf rank, s a fixed weight per word and P, mu a fixed linear map.
Since s(w) P(e_w - mu) depends on the word only, the map is applied once to the embedding table
(rows s(w) (e_w - mu) @ P, a :class:`repro.transforms.Transform`), and Algorithm 1, the kappa
search, every data form and the encoding kernel run unchanged on the mapped table: t stays linear
in the weights, so every distance stays a quadratic form in them.

The parts, each optional, from the unigram probabilities p(w) = count(w) / sum of counts
(:func:`repro.transforms.probabilities`):

* ``word_weights="sif"``: s(w) = a / (a + p(w)), a = :data:`SIF_A` (Arora, Liang and Ma, 2017;
  :func:`repro.transforms.sif_weights`); ``"usif"``: s(w) = a / (a/2 + p(w)) with a derived from V and
  the mean text length (Ethayarajh, 2018; :func:`repro.transforms.usif_weights`).
* ``whiten="centre"``: mu = sum_w p(w) e_w, P the identity; ``"zipf"``: Zipfian whitening (Yokoi,
  Bao, Kurita and Shimodaira, NeurIPS 2024), mu as above and P = C^(-1/2) with
  C = sum_w p(w) (e_w - mu)(e_w - mu)^T (:func:`repro.transforms.zipf_whitening`).

p(w) comes from word counts: a corpus's own (:attr:`repro.docfreq.DocFreq.counts`, carried onto
the vector words by :meth:`~repro.docfreq.DocFreq.translate`: a word the corpus never saw counts
1) or ``frequencies="wordfreq:<lang>"`` (:mod:`repro.frequencies`, fse's ``lang_freq``).
"""

from __future__ import annotations

import numpy as np

from repro import transforms
from repro.transforms import IDENTITY, Transform

WORD_WEIGHTS = ("sif", "usif")
WHITEN = ("centre", "zipf")
SIF_A = 1e-3
"""SIF's a (Arora et al. 2017 recommend 1e-4 to 1e-3; fse's default, and the STS harness's)."""


def check_options(word_weights, whiten, components, frequencies: str) -> tuple:
    """(word_weights, whiten, components, frequencies) checked; ValueError naming the argument."""
    from repro.frequencies import parse_source

    if word_weights is not None and word_weights not in WORD_WEIGHTS:
        raise ValueError(f"word_weights: expected None or one of {', '.join(WORD_WEIGHTS)}, got {word_weights!r}")
    if whiten is not None and whiten not in WHITEN:
        raise ValueError(f"whiten: expected None or one of {', '.join(WHITEN)}, got {whiten!r}")
    if isinstance(components, bool) or not isinstance(components, (int, np.integer)) or components < 0:
        raise ValueError(f"components: expected a whole number >= 0 of common components, got {components!r}")
    parse_source(frequencies)  # an InputError naming frequencies
    return word_weights, whiten, int(components), frequencies


def needs_counts(word_weights, whiten) -> bool:
    """Whether the map needs p(w): any word weights or whitening."""
    return word_weights is not None or whiten is not None


def parts(word_weights, whiten) -> set:
    """The parts of :class:`repro.transforms.Transform` that the options' map has."""
    return ({"scale"} if word_weights is not None else set()) | ({"shift"} if whiten is not None else set()) | \
        ({"matrix"} if whiten == "zipf" else set())


def map_counts(words, counts, frequencies: str, space=None) -> np.ndarray:
    """(V,) int64 word counts of the vector ``words`` from ``frequencies``: ``"corpus"`` takes
    ``counts`` (the df source's, already on ``words``; None when the source has none: a df file
    written without counts, or a Vocabulary), ``"wordfreq:<lang>"`` the counts fse induces (for a
    token space ``space``, its counts of wordfreq's words, :mod:`repro.tokenspace`).
    :class:`repro.errors.InputError` naming ``frequencies`` when there are none."""
    from repro.errors import InputError
    from repro.frequencies import parse_source, word_counts as source_counts

    if parse_source(frequencies)[0] == "corpus" and counts is None:
        raise InputError("frequencies", "word weights and whitening need word counts, and the df source holds "
                                        "none (a df file without counts, or a Vocabulary): pass corpus= (texts; "
                                        "--corpus) or frequencies='wordfreq:en' (--frequencies wordfreq:en)")
    return np.asarray(source_counts(frequencies, list(words), counts, space), np.int64)


def word_map(table, counts, word_weights=None, whiten=None, usif_length: float | None = None,
             a: float = SIF_A) -> Transform:
    """The :class:`repro.transforms.Transform` of the module (scale s, shift mu, matrix P) for
    the (V, d) word vectors ``table`` and their (V,) ``counts`` in the same row order; the
    identity when both options are None. uSIF needs ``usif_length``, the mean text length."""
    if not needs_counts(word_weights, whiten):
        return IDENTITY
    scale = None
    if word_weights == "sif":
        scale = transforms.sif_weights(counts, a)
    elif word_weights == "usif":
        if usif_length is None:
            raise ValueError("usif_length: uSIF needs the mean text length (fit the encoder, give a corpus, "
                             "or usif_length=)")
        scale = transforms.usif_weights(counts, float(usif_length))
    if whiten is None:
        return Transform(scale=scale)
    t = transforms.zipf_whitening(table, transforms.probabilities(counts), "centre" if whiten == "centre" else "whiten")
    return Transform(shift=t.shift, matrix=t.matrix, scale=scale)
