"""The one scoring surface: how every row of the tables turns token rows into text vectors, and
both scores of couples of texts, chunk by chunk.

An :class:`Encoding` names how a row makes a text vector t from its n known words e_(1..n)
(idf-descending token rows, :class:`repro.core.pairset.PairSet`):

========== ===================================================== ==============================
kind       t                                                     computed
========== ===================================================== ==============================
``rank``   (1/n) sum_j z_j e_(j), z the learned weights per idf  JAX, table on the device
           rank interpolated onto n (paper, eq. 3, section 3.3)
``word``   (1/n) sum_j f(w_j) e_(j), one weight per word (SIF,   JAX, table on the device
           uSIF, any word weighting)
baselines  ``mean``, ``max``, ..., ``mean_idf`` (section 5.1,     NumPy (:mod:`repro.core.baselines`)
           ``weights`` the idf)
``tfidf``  sparse tf x idf (section 5.1)                         SciPy sparse
========== ===================================================== ==============================

then removes its common :class:`repro.spaces.components.Components` (none by default):
t <- t - sum_k s_k (t.c_k) c_k.
Any kind may first map the word vectors by a fixed :class:`repro.spaces.transforms.Transform`
(e'_w = s_w (e_w - shift) @ matrix: centring, Zipfian whitening, a per-word scale; not in the
paper): the row then aggregates the rows of the transformed table, made once per transform.

Every entry point checks the table and the couples once (:class:`Table` holds the checked host
array and its device copy), walks the texts ``chunk`` at a time with the last chunk padded to the
same shape (one compiled program serves every call) and returns float64 scores under both
metrics of :mod:`repro.core.textmetric` (minus the Euclidean distance, the paper's; the cosine), so
that every row of a table is scored by the same code.

A table's column is a :class:`Column`: the checked table, the couples of its splits and the
distinct training texts, checked once, and the training texts' spectrum under each encoding made
once (the common components of any number are read off it). A row of the column is a list of
:class:`Pass` (an encoding, its component sets, given or to fit, and its metrics), scored on every
split by one call, :meth:`Column.score`, which returns each pass's fitted encodings and scores
(:class:`Scored`). :func:`text_vectors` and :func:`couple_scores` are the same code on inputs
checked per call.
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np
import scipy.sparse as sp

from repro.core import baselines, pairset
from repro.spaces import transforms
from repro.core.chunks import CHUNK, host_chunks
from repro.checks import check_idf, check_pairs, check_table, check_texts, check_weights
from repro.spaces.components import (NO_COMPONENTS, Components, components_of, no_spectrum, remove_components,
                                     spectrum)
from repro.core.jitting import jit
from repro.core.model import column_sums, represent_rows
from repro.core.textmetric import METRICS, check_metric, vector_scores

KINDS = ("rank", "word") + baselines.METHODS


class Encoding(NamedTuple):
    """How a row makes text vectors: ``kind`` (:data:`KINDS`), its ``weights`` ((n_max,) per idf
    rank for ``rank``; (V,) per word for ``word``; the (V,) idf for ``mean_idf`` and ``tfidf``;
    None for the other baselines), the ``components`` it removes, the top-30% rule, and the
    ``transform`` of the word vectors it aggregates (:mod:`repro.spaces.transforms`; none by default)."""

    kind: str
    weights: np.ndarray | None = None
    components: Components = NO_COMPONENTS
    top_rule: str = "paper"
    transform: transforms.Transform = transforms.IDENTITY


class Table:
    """A (V, d) embedding table checked once, on the host and (made on first use) on the device;
    its transformed tables (:meth:`transformed`) are made once per transform and kept."""

    KEEP = 8  # transformed tables kept (V x k float32 each)

    def __init__(self, table, *, checked: bool = False):
        self.host = table if checked else check_table(table)
        self._device = None
        self._transformed = {}  # ids of the transform's parts -> (transform, Table)

    def mapped(self, t: transforms.Transform) -> "Table":
        """This table itself for the identity, else the table of e'_w (:func:`repro.spaces.transforms.apply`,
        one new (V, k) float32 array), not kept and not checked again: the map's parts are checked
        finite (:func:`repro.spaces.transforms.check`), so a finite table maps to finite rows."""
        return self if t.identity else Table(transforms.apply(t, self.host), checked=True)

    def transformed(self, t: transforms.Transform) -> "Table":
        """:meth:`mapped`, made on the first call with the very same arrays and kept (the last
        :attr:`KEEP`)."""
        if t.identity:
            return self
        key = tuple(id(x) for x in t)
        hit = self._transformed.get(key)
        if hit is not None and all(x is y for x, y in zip(hit[0], t)):
            return hit[1]
        out = self.mapped(t)
        if len(self._transformed) >= self.KEEP:
            self._transformed.pop(next(iter(self._transformed)))
        self._transformed[key] = (t, out)
        return out

    @property
    def device(self):
        if self._device is None:
            self._device = jnp.asarray(self.host)
        return self._device

    @property
    def shape(self):
        return self.host.shape


def as_table(table) -> Table:
    """``table`` itself when already a :class:`Table`, else it checked (once) and wrapped."""
    return table if isinstance(table, Table) else Table(table)


def check_encoding(enc: Encoding, vocab_size: int) -> Encoding:
    """``enc`` with its weights checked against its kind; ValueError naming the cause otherwise."""
    if not isinstance(enc.transform, transforms.Transform):
        raise ValueError(f"transform: expected a repro.spaces.transforms.Transform, got {type(enc.transform).__name__}")
    if enc.kind == "tfidf" and not enc.transform.identity:
        raise ValueError("transform: tf-idf does not read the word vectors; it takes no transform")
    if enc.kind not in KINDS:
        raise ValueError(f"encoding: unknown kind {enc.kind!r}; expected one of {', '.join(KINDS)}")
    if enc.kind == "rank":
        return enc._replace(weights=check_weights(enc.weights))
    if enc.kind == "word":
        w = np.asarray(enc.weights, np.float64)
        if w.shape != (vocab_size,) or not np.isfinite(w).all():
            raise ValueError(f"weights: need ({vocab_size},) finite word weights, got shape {w.shape}")
        return enc._replace(weights=w)
    if enc.kind in baselines.IDF_METHODS:
        return enc._replace(weights=check_idf(enc.weights, vocab_size))
    return enc


def _word_means(word_w, table, tokens, lengths):
    """(B, d): (1/n) sum_j word_w[w_j] e_(w_j) over the n first columns of ``tokens`` (B, W)."""
    live = jnp.arange(tokens.shape[1])[None, :] < lengths[:, None]
    z = jnp.where(live, word_w[tokens], 0.0).astype(table.dtype)
    return column_sums(z, table, tokens) / jnp.maximum(lengths, 1).astype(table.dtype)[:, None]


_rank_means_jit = jit(represent_rows)
_word_means_jit = jit(_word_means)




def _means(enc: Encoding, table: Table, tokens, lengths):
    """One chunk's text vectors before the components: (c, d) float64, or a sparse (c, V) matrix
    for tf-idf. Inputs already checked."""
    if enc.kind == "rank":
        w = jnp.asarray(enc.weights, jnp.float32)
        return np.asarray(_rank_means_jit(w, table.device, jnp.asarray(tokens), jnp.asarray(lengths)), np.float64)
    if enc.kind == "word":
        w = jnp.asarray(enc.weights, jnp.float32)
        return np.asarray(_word_means_jit(w, table.device, jnp.asarray(tokens), jnp.asarray(lengths)), np.float64)
    if enc.kind == "tfidf":
        return baselines.tfidf_block(tokens, lengths, enc.weights)
    return baselines.vectors_block(enc.kind, table.host, enc.weights, tokens, lengths, enc.top_rule)


def _sparse_scores(va: sp.csr_matrix, vb: sp.csr_matrix, metrics) -> np.ndarray:
    """(M, c) scores of sparse text vectors (tf-idf): cosine (0 where a vector is zero) and minus
    the Euclidean distance from the dot products."""
    dot, na, nb = baselines.row_dot(va, vb), baselines.row_dot(va, va), baselines.row_dot(vb, vb)
    out = []
    for m in metrics:
        if m == "cosine":
            norms = np.sqrt(na * nb)
            out.append(np.clip(np.divide(dot, norms, out=np.zeros_like(dot), where=norms > 0), -1.0, 1.0))
        else:
            out.append(-np.sqrt(np.maximum(na + nb - 2.0 * dot, 0.0)))
    return np.stack(out)


def _vectors(enc: Encoding, table: Table, tokens, lengths, components: bool, chunk: int) -> np.ndarray:
    """:func:`text_vectors` of checked inputs, ``table`` already the encoding's transformed table."""
    dim = 2 * table.shape[1] if enc.kind.startswith("minmax") else table.shape[1]
    out = np.empty((len(lengths), dim), np.float64)
    for s, n, (tok, ln) in host_chunks([tokens, lengths], chunk):
        v = _means(enc, table, tok, ln)[:n]
        out[s:s + n] = remove_components(v, enc.components) if components else v
    return out


def text_vectors(enc: Encoding, table, tokens, lengths, *, components: bool = True, chunk: int = CHUNK) -> np.ndarray:
    """(N, d) float64 text vectors of the rows ``tokens`` (N, W), ``lengths`` (N,) under ``enc``,
    its components removed unless ``components=False``. A text of length 0 is the zero vector."""
    if enc.kind == "tfidf":
        raise ValueError("encoding: tf-idf vectors are sparse; score its couples with couple_scores")
    table = as_table(table)
    enc = check_encoding(enc, table.shape[0])
    tokens, lengths = check_texts(tokens, lengths, table.shape[0])
    return _vectors(enc, table.transformed(enc.transform), tokens, lengths, components, chunk)


def _couple_scores(enc: Encoding, table: Table, pairs, sets, metrics, chunk: int) -> np.ndarray:
    """:func:`couple_scores` of checked inputs, ``table`` already the encoding's transformed table
    and ``sets`` the component sets (S), ``metrics`` the checked metrics (M): (S, M, P)."""
    if enc.kind == "tfidf" and any(c.vectors.shape[0] for c in sets):
        raise ValueError("components: tf-idf vectors have no common components to remove")
    out = np.empty((len(sets), len(metrics), pairs.size), np.float64)
    for s, n, (a, b, la, lb) in host_chunks([np.asarray(x) for x in pairs[:4]], chunk):
        va, vb = _means(enc, table, a, la), _means(enc, table, b, lb)
        if enc.kind == "tfidf":
            out[:, :, s:s + n] = _sparse_scores(va, vb, metrics)[:, :n]
            continue
        va, vb = va[:n], vb[:n]
        for i, comps in enumerate(sets):
            ra, rb = remove_components(va, comps), remove_components(vb, comps)
            for j, m in enumerate(metrics):
                out[i, j, s:s + n] = vector_scores(ra, rb, m)
    return out


def couple_scores(enc: Encoding, table, pairs, *, components=None, metrics=METRICS,
                  chunk: int = CHUNK) -> np.ndarray:
    """(S, M, P) float64 scores (higher = more related) of the ``pairs`` couples under ``enc``'s
    text vectors with each of ``components`` (S sets; default ``[enc.components]``) removed, under
    each of ``metrics`` (M). Every chunk's vectors are computed once for all S x M scores."""
    metrics = [check_metric(m) for m in metrics]
    table = as_table(table)
    enc = check_encoding(enc, table.shape[0])
    check_pairs(pairs, vocab_size=table.shape[0])
    sets = [enc.components] if components is None else list(components)
    return _couple_scores(enc, table.transformed(enc.transform), pairs, sets, metrics, chunk)


class Pass(NamedTuple):
    """One pass of a row over the couples of a :class:`Column`: each chunk's text vectors under
    ``encoding`` are made once, each of the S sets of ``components`` is removed from them and each
    result scored under each of the M ``metrics``.

    A set is a :class:`repro.spaces.components.Components`, or a number k: the first k common
    components of the column's distinct training texts under the encoding (:meth:`Column.fit`),
    removed at ``scales`` (:data:`repro.spaces.components.COMPONENT_SCALES`; SIF's rule, 1, by
    default). None (the default) is the encoding's own components, one set."""

    encoding: Encoding
    components: tuple | None = None
    metrics: tuple = METRICS
    scales: str = "one"


class Scored(NamedTuple):
    """A :class:`Pass` scored on a :class:`Column`: the pass's encoding with each of its S component
    sets in turn (fitted sets included), and {split: (S, M, P) float64 scores} (higher = more
    related; M metrics, P couples of the split), as :func:`couple_scores` gives them."""

    encodings: tuple
    scores: dict


def _content(x) -> tuple | None:
    """A key of an array's values: its dtype, shape and the SHA-256 of its bytes; None for None."""
    if x is None:
        return None
    a = np.ascontiguousarray(x)
    return a.dtype.str, a.shape, hashlib.sha256(a.reshape(-1).view(np.uint8)).hexdigest()


class Column:
    """One column of a table, its inputs checked once and its mapped state kept: what every row of
    the column is scored from, in one call per row (:meth:`score`). A column of Table 1 is a
    setting's couples and word vectors (wiki20, wikivar, other vectors: paper, section 5.3).

    It holds the word vectors as a checked :class:`Table` (each transform's table made once,
    :meth:`Table.transformed`), the couples of each split (checked when the column is made), the
    distinct texts of the ``train`` couples (:func:`repro.core.pairset.training_texts`, checked on
    first use) and, per encoding, the :class:`repro.spaces.components.Spectrum` of those texts'
    vectors: the training texts' means under an encoding (its weights and word map) are made once
    and every number of common components any row asks of that encoding is read off the one SVD
    (:meth:`fit`). An encoding is known by its values, not its identity, so two rows that build the
    same weighting apart share it.

    Args:
      table: (V, d) float word vectors, or a checked :class:`Table`.
      splits: {split name: :class:`repro.core.pairset.PairSet`} of the couples the rows score
        (e.g. ``validation`` and ``test``); word ids in 0..V-1.
      train: the training :class:`~repro.core.pairset.PairSet`, whose distinct texts the common
        components are fitted on (SIF's and uSIF's rule; not in the paper); None where no row fits any.
    """

    def __init__(self, table, splits: dict | None = None, train=None):
        self.table = as_table(table)
        self.splits = dict(splits or {})
        for name, pairs in self.splits.items():
            check_pairs(pairs, name, vocab_size=self.table.shape[0])
        self.train = train
        self._texts = None
        self._spectra = {}  # the values of an encoding's weights and map -> Spectrum of the training texts

    @property
    def texts(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct training texts, checked: tokens (N, W) and lengths (N,), made once."""
        if self._texts is None:
            if self.train is None:
                raise ValueError("train: this column has no training couples to fit common components on")
            self._texts = check_texts(*pairset.training_texts(self.train), self.table.shape[0])
        return self._texts

    def fit(self, enc: Encoding, ks, scales: str = "one") -> list[Components]:
        """The first k common components of the distinct training texts' vectors under ``enc``
        (before any of its own components) for every k of ``ks``: the top right singular vectors,
        not centred, each removed at ``scales`` (:func:`repro.spaces.components.components_of`; the
        same bits as :func:`repro.spaces.components.fit_components` of :func:`text_vectors`).

        Args:
          enc: the :class:`Encoding` (not tf-idf: its vectors have no components to remove).
          ks: numbers of components, each in 0..min(N, d); k = 0 makes no text vector.
          scales: how each component is scaled when removed.

        Returns:
          One :class:`repro.spaces.components.Components` per k: vectors (k, d), values, scales (k,).
        """
        return self._fit(check_encoding(enc, self.table.shape[0]), ks, scales)

    def _fit(self, enc: Encoding, ks, scales: str) -> list[Components]:
        """:meth:`fit` of a checked encoding."""
        if enc.kind == "tfidf":
            raise ValueError("components: tf-idf vectors have no common components to remove")
        ks = list(ks)
        if max(ks, default=0) == 0:
            d = self.table.shape[1] if enc.transform.matrix is None else np.shape(enc.transform.matrix)[1]
            return components_of(no_spectrum(0, 2 * d if enc.kind.startswith("minmax") else d), ks, scales)
        key = (enc.kind, enc.top_rule, _content(enc.weights), tuple(_content(x) for x in enc.transform))
        found = self._spectra.get(key)
        if found is None:
            tokens, lengths = self.texts
            found = spectrum(_vectors(enc, self.table.transformed(enc.transform), tokens, lengths, False, CHUNK))
            self._spectra[key] = found
        return components_of(found, ks, scales)

    def score(self, passes, splits=None, chunk: int = CHUNK) -> list[Scored]:
        """Every :class:`Pass` of ``passes`` (a row's) on the couples of each of ``splits`` (default:
        every split of the column; () fits the passes' components and scores nothing): its encoding
        checked, its transformed table, its fitted components (:meth:`fit`) and each chunk's text
        vectors made once for all its S x M scores, chunk by chunk (``chunk`` couples at a time).

        Returns:
          One :class:`Scored` per pass: the encoding with each of its S sets, and {split: (S, M, P)}.
        """
        names = list(self.splits) if splits is None else list(splits)
        unknown = [name for name in names if name not in self.splits]
        if unknown:
            raise ValueError(f"splits: this column has no {', '.join(map(str, unknown))} couples "
                             f"(it has {', '.join(self.splits) or 'none'})")
        out = []
        for p in passes:
            metrics = [check_metric(m) for m in p.metrics]
            enc = check_encoding(p.encoding, self.table.shape[0])
            given = [enc.components] if p.components is None else list(p.components)
            ks = [c for c in given if not isinstance(c, Components)]
            fitted = iter(self._fit(enc, ks, p.scales) if ks else ())
            sets = [c if isinstance(c, Components) else next(fitted) for c in given]
            mapped = self.table.transformed(enc.transform)
            scores = {name: _couple_scores(enc, mapped, self.splits[name], sets, metrics, chunk) for name in names}
            out.append(Scored(tuple(p.encoding._replace(components=c) for c in sets), scores))
        return out


def scores(enc: Encoding, table, pairs, metric: str = "euclidean", chunk: int = CHUNK) -> np.ndarray:
    """(P,) scores of the couples under one ``metric``: :func:`couple_scores` for one set."""
    return couple_scores(enc, table, pairs, metrics=(metric,), chunk=chunk)[0, 0]


def pair_distances(w, table, pairs, kind: str = "euclidean", chunk: int = CHUNK) -> np.ndarray:
    """(P,) float64 distances of every couple under learned weights ``w`` (n_max,): ``euclidean``
    ||t(a) - t(b)|| (paper, eq. 2) or ``cosine`` 1 - cos(t(a), t(b)); memory bounded by ``chunk``.

    Texts of length 0 (no in-vocabulary word) are the zero vector here, so the score of
    a couple with an empty text is still defined (docs/FIDELITY.md).
    """
    check_metric(kind, "kind")
    s = scores(Encoding("rank", w), table, pairs, kind, chunk)
    return -s if kind == "euclidean" else 1.0 - s


def learned_pair_scores(w, table, pairs, chunk: int = CHUNK) -> np.ndarray:
    """(P,) float64 similarities under learned weights ``w`` (higher = more related): minus the
    Euclidean distance of the two text vectors (paper, eq. 2)."""
    return -pair_distances(w, table, pairs, "euclidean", chunk)
