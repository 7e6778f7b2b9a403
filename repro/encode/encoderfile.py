"""Encoder files: what :meth:`repro.encode.encoder.Encoder.save` writes and :meth:`~repro.encode.encoder.Encoder.load`
reads back, checked (issue 33, item 3).

An encoder file is ``<name>.npz`` with ``<name>.json`` beside it (:func:`repro.io.store.save_encoder`,
both written atomically, the ``.npz`` last). The ``.npz`` holds

* ``weights`` (n_max,), the learned weights; ``df`` (V,), ``n_docs`` and ``idf`` (V,), the paper's
  eq. 1, checked against df and N on reading; ``df_unlisted`` (V,) bool, the vector words the df
  source did not list (files written before it hold none);
* after :meth:`~repro.encode.encoder.Encoder.fit_components`: ``components``, ``component_values``,
  ``component_scales`` (:class:`repro.spaces.components.Components`);
* after :meth:`~repro.encode.encoder.Encoder.fit`: the model record's arrays but the weights, each named
  :data:`RECORD_PREFIX` + its key (:class:`repro.core.modelrecord.ModelRecord`);
* a word map (beyond the paper, :mod:`repro.spaces.wordmap`): its parts ``map_shift``, ``map_matrix``,
  ``map_scale`` (:data:`MAP_PREFIX`, the scale in word order) and ``word_counts`` (V,), which p(w)
  came from. A file without them (every file written before issue 23) maps nothing.

The ``.json``'s settings include ``word_components`` (common components removed from the word
vectors, issue 33 item 2); a file written before it records none and loads with 0.

The ``.json``: the format, n_max, dim, vocab_size, the vocabulary's fingerprint, the metric and
where it came from (:data:`METRIC_FROM`), the out-of-vocabulary rule, the encoder's settings and
its provenance. The vectors are not copied: the encoder takes them from the recorded path, or
from its caller, checked against the fingerprint (:func:`check_vectors`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from repro.io import store
from repro.spaces import transforms, wordmap
from repro.spaces.components import Components
from repro.words.docfreq import DocFreq
from repro.errors import InputError
from repro.core.modelrecord import ModelRecord
from repro.words.text import fingerprint, tokeniser as tokeniser_named
from repro.core.textmetric import check_metric
from repro.spaces.transforms import Transform
from repro.spaces.vectors import available

#: Where an encoder's metric came from (:attr:`repro.encode.encoder.Encoder.metric_from`, saved with it):
#: "given" (by the caller), "training" (the distance :meth:`~repro.encode.encoder.Encoder.fit` learned
#: under), "shipped" (the shipped model's, :meth:`~repro.encode.encoder.Encoder.pretrained`), "default"
#: (the paper's Euclidean, neither given nor fitted), "file" (as recorded by a file saved before
#: encoders recorded where it came from).
METRIC_FROM = ("given", "training", "shipped", "default", "file")
#: The prefix of the model record's arrays in an encoder file.
RECORD_PREFIX = "fit_"
#: The prefix of the word map's arrays (``map_shift``, ``map_matrix``, ``map_scale``, word order).
MAP_PREFIX = "map_"
#: The out-of-vocabulary rule, as the ``.json`` states it.
OOV = "unknown words dropped, not counted in n; a text with no known word is the zero vector"


def save(path: str, space, weights: np.ndarray, *, components: Components | None, record: ModelRecord | None,
         metric: str, metric_from: str, settings: dict, provenance: dict) -> None:
    """Write an encoder with the :class:`repro.encode.wordspace.WordSpace` ``space`` to ``path`` (.npz) and ``.json``."""
    v = space.vocabulary
    comps = {} if components is None else {"components": components.vectors, "component_values": components.values,
                                           "component_scales": components.scales}
    fitted = {} if record is None else {RECORD_PREFIX + k: a for k, a in record.arrays().items()
                                        if k != "weights"}  # the weights are the encoder's
    mapped = {MAP_PREFIX + k: a for k, a in space.word_map._asdict().items() if a is not None}
    if space.counts is not None:
        mapped["word_counts"] = space.counts
    store.save_encoder(path, dict(weights=weights, df=v.df, n_docs=np.int64(v.n_docs), idf=v.idf,
                                  df_unlisted=space.unlisted, **comps, **fitted, **mapped), {
        "n_max": int(weights.shape[0]), "dim": space.dim, "vocab_size": len(v), "fingerprint": v.fingerprint(),
        "metric": metric, "metric_from": metric_from, "oov": OOV, **settings, "provenance": provenance})


class EncoderFile(NamedTuple):
    """An encoder file read and checked (:func:`read`): every part but the vectors."""

    weights: np.ndarray
    n_max: int
    df: np.ndarray
    n_docs: int
    unlisted: np.ndarray | None
    counts: np.ndarray | None
    word_map: Transform
    usif_length: float | None
    usif_length_from: str | None
    metric: str
    metric_from: str
    settings: dict  # normalize, lowercase, vectors (recorded), tokeniser, word_weights, whiten, components,
    # frequencies, word_components
    record: ModelRecord | None
    components: Components | None
    provenance: dict
    meta: dict


def read(path: str, metric: str | None = None, tokeniser: str | None = None) -> EncoderFile:
    """The encoder file at ``path``, every part checked that the file alone can check
    (:class:`repro.errors.InputError` naming the file and the part). ``metric``, ``tokeniser``:
    the caller's, over those the file records (files that record none: "euclidean", "paper")."""
    arrays, meta = store.load_encoder(path)
    try:
        checked = check_metric(metric or meta.get("metric", "euclidean"))
    except ValueError as err:
        raise InputError(path, str(err)) from None
    metric_from = "given" if metric else meta.get("metric_from", "file")
    if metric_from not in METRIC_FROM:
        raise InputError(path, f"metric_from: expected one of {', '.join(METRIC_FROM)}, got {metric_from!r}")
    if not np.array_equal(arrays["idf"], DocFreq([], arrays["df"], arrays["n_docs"]).idf()):
        raise InputError(path, "the idf table does not match the document frequencies")
    settings = {"normalize": meta.get("normalize", True), "lowercase": meta.get("lowercase", False),
                "vectors": meta.get("vectors"), "tokeniser": tokeniser or meta.get("tokeniser", "paper")}
    try:
        tokeniser_named(settings["tokeniser"])
        options = wordmap.check_options(meta.get("word_weights"), meta.get("whiten"), meta.get("components", 0),
                                        meta.get("frequencies", "corpus"), meta.get("word_components", 0))
    except ValueError as err:
        raise InputError(path, str(err)) from None
    settings.update(zip(("word_weights", "whiten", "components", "frequencies", "word_components"), options))
    size, dim = meta["vocab_size"], meta["dim"]
    unlisted = arrays.get("df_unlisted")
    if unlisted is not None and unlisted.shape != (size,):
        raise InputError(path, f"df_unlisted of shape {unlisted.shape} for {size:,} words")
    word_map, counts = _word_map(path, arrays, settings, size, dim)
    width = dim if word_map.matrix is None else word_map.matrix.shape[1]  # of the mapped table
    return EncoderFile(arrays["weights"], meta["n_max"], arrays["df"], arrays["n_docs"], unlisted, counts, word_map,
                       meta.get("usif_length"), meta.get("usif_length_from"), checked, metric_from, settings,
                       _record(path, arrays), _components(path, arrays, width), meta.get("provenance", {}), meta)


def vectors_source(path: str, file: EncoderFile, vectors=None):
    """The vectors to load the encoder file ``file`` with: ``vectors``, else the recorded ones."""
    source = vectors if vectors is not None else file.settings["vectors"]
    if source is None:
        raise InputError(path, "saved from in-memory vectors: pass vectors= (the same words, in the same order)")
    if vectors is None and not available(source):
        raise InputError(path, f"the vectors it was saved with, {source}, are gone (moved?): give them with "
                               "--vectors (vectors= in Python)")
    return source


def check_vectors(path: str, file: EncoderFile, words: list, matrix) -> None:
    """InputError unless ``words`` are the vocabulary (fingerprint) and ``matrix`` of the dimension
    that the file was saved for."""
    meta = file.meta
    if len(words) != meta["vocab_size"] or fingerprint(words) != meta["fingerprint"]:
        raise InputError(path, f"weights saved for another vocabulary ({meta['vocab_size']:,} words, fingerprint "
                               f"{meta['fingerprint'][:12]}); the vectors have {len(words):,} words, fingerprint "
                               f"{fingerprint(words)[:12]}")
    if matrix.shape[1] != meta["dim"]:
        raise InputError(path, f"saved for {meta['dim']}-d vectors, but the vectors are {matrix.shape[1]}-d")


def _word_map(path: str, arrays: dict, settings: dict, size: int, dim: int) -> tuple[Transform, np.ndarray | None]:
    """The word map (word order; the identity for a file without one) and word counts a file holds, checked."""
    parts = {k[len(MAP_PREFIX):]: a for k, a in arrays.items() if k.startswith(MAP_PREFIX)}
    if set(parts) != wordmap.parts(*(settings[k] for k in ("word_weights", "whiten", "word_components"))):
        raise InputError(path, f"its word map ({', '.join(sorted(parts)) or 'none'}) does not match its options "
                               f"word_weights={settings['word_weights']!r}, whiten={settings['whiten']!r}")
    counts = arrays.get("word_counts")
    if counts is not None:
        if counts.shape != (size,) or (counts < 0).any():
            raise InputError(path, f"word_counts of shape {counts.shape} for {size:,} words")
        counts = counts.astype(np.int64)
    if not parts:
        return transforms.IDENTITY, counts
    try:
        return transforms.check(Transform(**parts), size, dim), counts
    except ValueError as err:
        raise InputError(path, f"word map: {err}") from None


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


def _components(path: str, arrays: dict, width: int) -> Components | None:
    """The common components a file holds, for text vectors of ``width`` dimensions; None without."""
    if "components" not in arrays:
        return None
    c = Components(arrays["components"], arrays["component_values"], arrays["component_scales"])
    if c.vectors.ndim != 2 or c.vectors.shape[1] != width or c.scales.shape != (c.vectors.shape[0],):
        raise InputError(path, f"components of shape {c.vectors.shape} for {width}-d vectors")
    return c
