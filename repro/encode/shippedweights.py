"""The shipped weights (``repro/weights/``: make weights, make default) and the encoder options each records.

:meth:`repro.encode.encoder.Encoder.pretrained` builds an encoder from one of them: :data:`PRETRAINED`
names the models, :func:`read` reads a model's weights with the options its ``.json`` records
(``encoder_options``), and :meth:`Shipped.arguments` merges them with the caller's.

* ``default`` (:data:`SHIPPED_DEFAULT`, make default, :mod:`experiments.ship_default`): the space and
  model of the best STS-B dev Pearson; its ``.json`` records the space (``vectors``: loaded when the
  caller gives none, :func:`repro.spaces.vectors.default_vectors`) and its options, ``normalize`` among them,
  which applies on that space only (another space gets the encoder's unit length unless the caller
  says otherwise).
* ``best`` (:data:`SHIPPED_BEST`, make weights, :mod:`experiments.ship_weights`): the learned
  family's winner on the wikivar validation couples, with the options that make its word map
  exactly (:meth:`repro.spaces.wordmap.WordMap.options`; the ``cc`` map as ``word_components: 1``, fitted
  on the distinct texts of the caller's ``corpus``, as the family fits it on its training texts).
* ``paper`` (:data:`SHIPPED`): the paper's weights, plain word vectors, Euclidean.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from repro.io import store
from repro.spaces import wordmap
from repro.errors import InputError
from repro.spaces.vectors import default_vectors

_HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights")
#: The paper's shipped weights: median loss, variable-length Wikipedia setting, plain word vectors,
#: Euclidean (make weights): ``Encoder.pretrained(model="paper")``.
SHIPPED = os.path.join(_HERE, "wikivar-median.npz")
#: The learned family's winner on the wikivar validation couples (:mod:`repro.evaluate.family`, make
#: weights): the paper's weights learned on Zipfian-whitened word vectors under 1 - cos, scored by
#: the cosine; its ``.json``'s ``encoder_options`` say which. ``Encoder.pretrained(model="best")``.
SHIPPED_BEST = os.path.join(_HERE, "wikivar-best.npz")
#: ``Encoder.pretrained()``'s default: the space and model of the best STS-B dev Pearson (make default,
#: experiments/stsdefault.py); its ``.json`` records the choice, its space and its options.
SHIPPED_DEFAULT = os.path.join(_HERE, "default.npz")
#: ``Encoder.pretrained``'s models: name -> shipped weights file.
PRETRAINED = {"default": SHIPPED_DEFAULT, "best": SHIPPED_BEST, "paper": SHIPPED}
#: The encoder options a weights file's ``encoder_options`` may set (``normalize`` applied only on
#: the space its ``.json`` records as ``vectors``, the space it was chosen on).
OPTIONS = ("normalize", "word_weights", "whiten", "components", "word_components", "metric")
#: The shipped models ``make default`` scores on each space it measures (its candidates' keys,
#: ``<space>/<model>``), by their name in :data:`PRETRAINED`.
MEASURED_ELSEWHERE = {"paper": "paper", "wikivar-best": "best"}


def default_elsewhere(provenance: dict, vectors) -> str:
    """The shipped model ``Encoder.pretrained()`` takes on ``vectors`` other than the space its
    default was chosen on (``provenance``: the default's ``.json``): of the shipped Wikipedia models,
    the one of the best STS-B dev Pearson that ``make default`` measured on those vectors (GloVe 6B
    50d, WordLlama); on vectors it did not measure, the learned family's winner (``"best"``)."""
    from repro.spaces import tokenspace
    from repro.spaces.vectors import KUMO_NAME

    space = {KUMO_NAME: "glove", tokenspace.WORDLLAMA: "wordllama"}.get(vectors) if isinstance(vectors, str) else None
    scored = [(c["dev_pearson"], MEASURED_ELSEWHERE[c["key"].split("/", 1)[1]])
              for c in provenance.get("candidates", []) if space and c["key"].split("/", 1)[0] == space
              and c["key"].split("/", 1)[1] in MEASURED_ELSEWHERE]
    return max(scored)[1] if scored else "best"


class Shipped(NamedTuple):
    """A weights file read by :func:`read`: its name, path, weights, provenance and encoder options."""

    name: str
    path: str
    weights: np.ndarray
    provenance: dict
    options: dict

    def on(self, vectors) -> tuple:
        """(the model, the vectors) for ``vectors``: none, the installed ones, this model's space first
        (:func:`repro.spaces.vectors.default_vectors`); the default on vectors other than its own space: the
        shipped model :func:`default_elsewhere` picks from what ``make default`` measured on them."""
        if vectors is None:
            vectors = default_vectors(self.provenance.get("vectors"))
        if self.name == "default" and not (isinstance(vectors, str) and vectors == self.provenance.get("vectors")):
            return read(default_elsewhere(self.provenance, vectors)), vectors
        return self, vectors

    def arguments(self, vectors, df, corpus, options: dict) -> tuple:
        """(vectors, corpus, options) of the encoder: the caller's ``options`` over the file's (its
        ``normalize`` only on the space it records, ``vectors``); no ``vectors``: the installed ones,
        that space first (:func:`repro.spaces.vectors.default_vectors`); no ``df`` nor ``corpus``: wordfreq's
        English frequencies."""
        space = self.provenance.get("vectors")
        if vectors is None:
            vectors = default_vectors(space)
        shipped = dict(self.options)
        if not (isinstance(vectors, str) and vectors == space):
            shipped.pop("normalize", None)  # the space's own option, for the space it was chosen on
        merged = {**shipped, **options}
        if df is None and corpus is None:
            merged.setdefault("frequencies", "wordfreq:en")
        if (merged.get("components") or merged.get("word_components")) and corpus is not None and \
                not isinstance(corpus, (list, tuple)):
            corpus = list(corpus)  # read twice: the df, then the common components
        return vectors, corpus, merged

    def explained(self, err: InputError, merged: dict) -> InputError:
        """``err`` of building the encoder, in the words of these weights when their map lacks word counts."""
        if err.path != "frequencies" or merged.get("frequencies", "corpus") != "corpus" or \
                not wordmap.needs_counts(self.options.get("word_weights"), self.options.get("whiten")):
            return err
        what = self.provenance.get("member_label") or self.provenance.get("member") or self.name
        return InputError(f"Encoder.pretrained(model={self.name!r})", (
            f"its weights ({what}) need word counts for p(w), and the df source holds none (a df file "
            "without counts, or no corpus): pass corpus= (texts; --corpus), a df file written by `repro df` "
            "(it holds the counts), frequencies='wordfreq:en', or model='paper' (--pretrained paper), the "
            "paper's weights, which need none"))

    def record(self) -> dict:
        """The encoder's ``provenance_``: the model's name, its file and the file's provenance."""
        return {"model": self.name, "weights": self.provenance.get("source", self.path), **self.provenance}


def read(model: str = "default", weights_path=None) -> Shipped:
    """The shipped ``model`` (:data:`PRETRAINED`), or any weights file of
    :func:`repro.io.store.save_weights` at ``weights_path`` (then ``model`` is not used)."""
    if weights_path is None:
        if model not in PRETRAINED:
            raise ValueError(f"model: expected one of {', '.join(map(repr, PRETRAINED))}, got {model!r}")
        weights_path, name = PRETRAINED[model], model
    else:
        name = os.fspath(weights_path)
    weights, provenance = store.load_weights(weights_path)
    options = {k: v for k, v in (provenance.get("encoder_options") or {}).items() if k in OPTIONS}
    return Shipped(name, weights_path, weights, provenance, options)
