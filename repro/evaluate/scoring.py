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
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
import numpy as np
import scipy.sparse as sp

from repro.core import baselines
from repro.spaces import transforms
from repro.core.chunks import CHUNK, host_chunks
from repro.checks import check_idf, check_pairs, check_table, check_texts, check_weights
from repro.spaces.components import NO_COMPONENTS, Components, remove_components
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


def text_vectors(enc: Encoding, table, tokens, lengths, *, components: bool = True, chunk: int = CHUNK) -> np.ndarray:
    """(N, d) float64 text vectors of the rows ``tokens`` (N, W), ``lengths`` (N,) under ``enc``,
    its components removed unless ``components=False``. A text of length 0 is the zero vector."""
    if enc.kind == "tfidf":
        raise ValueError("encoding: tf-idf vectors are sparse; score its couples with couple_scores")
    table = as_table(table)
    enc = check_encoding(enc, table.shape[0])
    tokens, lengths = check_texts(tokens, lengths, table.shape[0])
    table = table.transformed(enc.transform)
    dim = 2 * table.shape[1] if enc.kind.startswith("minmax") else table.shape[1]
    out = np.empty((len(lengths), dim), np.float64)
    for s, n, (tok, ln) in host_chunks([tokens, lengths], chunk):
        v = _means(enc, table, tok, ln)[:n]
        out[s:s + n] = remove_components(v, enc.components) if components else v
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
    table = table.transformed(enc.transform)
    sets = [enc.components] if components is None else list(components)
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
