"""The peers users compare with: SIF (Arora et al., 2017) and uSIF (Ethayarajh, 2018), on the same
word vectors and token rows as the paper's methods. Not in the paper (README, "Against the peers").

Both weigh every word by its unigram probability p(w) (word counts of the corpus) and average:
t = (1/n) sum_j f(p(w_j)) e_(j) over the n known words of a text, repeats included, then remove
the texts' common components (the top singular vectors of the training texts' vectors, not
centred, fitted once and applied to every later text):

* **SIF**: f(p) = a / (a + p) (``a`` about 1e-3); remove the first component, t <- t - (t.c) c.
* **uSIF**: a is derived, not tuned: with V words and n-bar the average text length,
  threshold = 1 - (1 - 1/V)^n-bar, alpha = |{w : p(w) > threshold}| / V, Z = V / 2,
  a = (1 - alpha) / (alpha Z) and f(p) = a / (a / 2 + p); remove the first 5 components, each
  scaled by its share of the squared singular values: t <- t - sum_k s_k^2 (t.c_k) c_k with
  s_k = sigma_k^2 / sum sigma^2 (the squared share is how fse 1.0.0 applies the weights).

These are the definitions fse 1.0.0 implements (its ``SIF`` and ``uSIF``), written here from the
papers and checked against fse to float tolerance where the side environment of ``make bench``
exists (tests/test_peers.py). Texts are compared by cosine similarity, the peers' convention
(:func:`repro.textmetric.couple_scores`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from repro.baselines import text_vectors
from repro.textmetric import couple_scores

EPS = float(np.finfo(np.float32).eps)  # fse's guard in uSIF's a = (1 - alpha) / (alpha Z + EPS)
BLOCK = 65_536
"""Couples whose text vectors are held at once when scoring (2 x 65,536 x d float64: 400 MB at d = 400)."""
LEARNED_CHUNK = 8192
"""Texts the learned weights encode per call (their gathered embeddings: 8,192 x 30 x 400 float32, 400 MB)."""
COMPONENT_TEXTS = 100_000
"""Training texts the common components are fitted on: all of them up to this many, else a
seeded uniform sample of this many (a whole dump has 6M; the top 5 directions of 400 need far
fewer, and 6M x 400 float64 would be 19 GB)."""


def probabilities(counts) -> np.ndarray:
    """(V,) unigram probabilities p(w) = count(w) / sum of counts (float64)."""
    counts = np.asarray(counts, np.float64)
    if counts.ndim != 1 or counts.size == 0 or (counts < 0).any() or counts.sum() <= 0:
        raise ValueError("counts: need a non-empty (V,) array of non-negative word counts, not all 0")
    return counts / counts.sum()


def sif_weights(counts, a: float = 1e-3) -> np.ndarray:
    """(V,) SIF word weights a / (a + p(w))."""
    if not a > 0:
        raise ValueError(f"a must be positive, got {a}")
    return a / (a + probabilities(counts))


def usif_weights(counts, length: float) -> np.ndarray:
    """(V,) uSIF word weights a / (a / 2 + p(w)), a derived from V and the average text ``length``."""
    if not length > 0:
        raise ValueError(f"length must be positive, got {length}")
    p = probabilities(counts)
    v = p.size
    threshold = 1.0 - (1.0 - 1.0 / v) ** length
    alpha = np.sum(p > threshold) / v
    a = (1.0 - alpha) / (alpha * v / 2 + EPS)
    return a / (a / 2 + p)


def weighted_means(table, tokens, lengths, weights) -> np.ndarray:
    """(B, d) float64 text vectors (1/n) sum_j weights[w_j] e_(w_j); a text of length 0 is 0.
    The idf-weighted mean of :mod:`repro.baselines` with ``weights`` in place of idf, in bounded
    blocks (sums in the table's dtype, as every baseline row)."""
    return text_vectors("mean_idf", table, tokens, lengths, weights)


class Components(NamedTuple):
    """Common components of texts: the top right singular vectors (k, d) of their vectors (not
    centred), their singular values (k,), and the scale of each when removed (k,)."""

    vectors: np.ndarray
    values: np.ndarray
    scales: np.ndarray


def fit_components(text_vectors, k: int, weighted: bool = False) -> Components:
    """The first ``k`` singular vectors of ``text_vectors`` (N, d). ``weighted``: each removed
    with the square of its share sigma^2 / sum sigma^2 (uSIF); else with 1 (SIF)."""
    x = np.asarray(text_vectors, np.float64)
    if not 0 <= k <= min(x.shape):
        raise ValueError(f"k must lie in 0..{min(x.shape)}, got {k}")
    _, sigma, vt = np.linalg.svd(x, full_matrices=False)
    values, vectors = sigma[:k], vt[:k]
    share = values ** 2 / max(np.sum(values ** 2), EPS) if weighted else np.ones(k)
    return Components(vectors, values, share ** 2 if weighted else share)


def remove_components(text_vectors, comps: Components) -> np.ndarray:
    """t - sum_k scale_k (t.c_k) c_k for every row t."""
    x = np.asarray(text_vectors, np.float64)
    if comps.vectors.shape[0] == 0:
        return x.copy()
    return x - ((x @ comps.vectors.T) * comps.scales) @ comps.vectors


class Peer(NamedTuple):
    """A fitted encoder and the common components it removes: weights per word, (V,), for SIF,
    uSIF or any weighted mean (``name`` other than "learned"), or the paper's learned weights per
    idf rank, (n_max,), paper eq. 3 (``name`` "learned")."""

    name: str
    weights: np.ndarray
    components: Components

    def means(self, table, tokens, lengths) -> np.ndarray:
        """(B, d) text vectors before the common components are removed."""
        if self.name == "learned":  # in chunks: JAX gathers (rows, width, d) embeddings at once
            from repro.model import represent

            out = np.empty((len(lengths), np.shape(table)[1]), np.float64)
            for s in range(0, len(lengths), LEARNED_CHUNK):
                e = s + LEARNED_CHUNK
                out[s:e] = np.asarray(represent(self.weights, table, tokens[s:e], lengths[s:e], allow_empty=True))
            return out
        return weighted_means(table, tokens, lengths, self.weights)

    def vectors(self, table, tokens, lengths) -> np.ndarray:
        return remove_components(self.means(table, tokens, lengths), self.components)

    def pair_scores(self, table, pairs, block: int = BLOCK) -> np.ndarray:
        """(P,) cosine similarity of every couple's two texts, ``block`` couples at a time (memory
        bounded by the block, not by P; the scores do not depend on it)."""
        return _scores_in_blocks(self, [self.components], table, pairs, block)[0]


def _scores_in_blocks(peer: Peer, components: list, table, pairs, block: int) -> np.ndarray:
    """(len(components), P) cosine scores of ``pairs`` under ``peer``'s word weighting with each of
    ``components`` removed: every block's text vectors are computed once for all of them."""
    out = np.empty((len(components), pairs.size), np.float64)
    for s in range(0, pairs.size, block):
        e = s + block
        va = peer.means(table, pairs.a[s:e], pairs.len_a[s:e])
        vb = peer.means(table, pairs.b[s:e], pairs.len_b[s:e])
        for j, comps in enumerate(components):
            out[j, s:e] = couple_scores(remove_components(va, comps), remove_components(vb, comps), "cosine")
    return out


NO_COMPONENTS = Components(np.zeros((0, 1)), np.zeros(0), np.zeros(0))
"""Nothing to remove: a peer before :func:`fit_components`, or a row without removal."""


def _training_texts(train):
    """The texts of the training couples, each once per side: (tokens, lengths); beyond
    :data:`COMPONENT_TEXTS` texts a uniform sample of that many, in their order, drawn with seed 0."""
    tokens, lengths = np.concatenate([train.a, train.b]), np.concatenate([train.len_a, train.len_b])
    limit = COMPONENT_TEXTS
    if lengths.size > limit:
        keep = np.sort(np.random.default_rng(0).choice(lengths.size, limit, replace=False))
        return tokens[keep], lengths[keep]
    return tokens, lengths


def _unfitted(name: str, counts, mean_length: float, weights=None, a: float = 1e-3, length: float | None = None) -> Peer:
    """The peer ``name`` ("sif", "usif" or "learned" with its ``weights``) before its common
    components: uSIF's ``length`` defaults to the training texts' ``mean_length``."""
    if name == "learned":
        return Peer("learned", np.asarray(weights, np.float32), NO_COMPONENTS)
    if name == "sif":
        return Peer("sif", sif_weights(counts, a), NO_COMPONENTS)
    length = mean_length if length is None else float(length)
    return Peer("usif", usif_weights(counts, length), NO_COMPONENTS)


def _fitted(peer: Peer, train_means, components: int) -> Peer:
    """``peer`` with the first ``components`` common components of the training texts' vectors
    (uSIF's weighted by their share, as it defines them)."""
    return peer._replace(components=fit_components(train_means, components, weighted=peer.name == "usif"))


def _mean_length(train) -> float:
    """The training texts' average number of known words (uSIF's n-bar), over every text."""
    return float(np.mean(np.concatenate([train.len_a, train.len_b])))


def _fit(name: str, table, counts, train, components: int, **params) -> Peer:
    tokens, lengths = _training_texts(train)
    peer = _unfitted(name, counts, _mean_length(train), **params)
    return _fitted(peer, peer.means(table, tokens, lengths), components)


def fit_sif(table, counts, train, a: float = 1e-3, components: int = 1) -> Peer:
    """SIF with its common components fitted on the texts of the ``train`` couples."""
    return _fit("sif", table, counts, train, components, a=a)


def fit_usif(table, counts, train, components: int = 5, length: float | None = None) -> Peer:
    """uSIF; ``length`` defaults to the training texts' average number of known words."""
    return _fit("usif", table, counts, train, components, length=length)


def fit_learned(table, weights, train, components: int = 1) -> Peer:
    """The paper's learned weights (n_max,) with the first ``components`` common components of
    the training texts' vectors removed, as SIF removes its own (beyond the paper)."""
    return _fit("learned", table, None, train, components, weights=weights)


#: The hyperparameters tried for each peer; the one of lowest optimal split error on the
#: validation couples wins (the test couples are never looked at).
GRIDS = {
    "sif": tuple({"a": a, "components": k} for a in (1e-4, 1e-3, 1e-2) for k in (0, 1)),
    "usif": tuple({"components": k} for k in (0, 5)),
    "learned": tuple({"components": k} for k in (1, 2, 5)),
}


def select(name: str, table, counts, train, validation, weights=None, block: int = BLOCK) -> tuple[Peer, dict, float]:
    """The peer ``name`` ("sif", "usif", or "learned" with the learned ``weights``) of
    :data:`GRIDS` with the lowest optimal split error on ``validation`` (threshold and error
    both on it), its components fitted on ``train``: (peer, its hyperparameters, that validation
    error). Ties go to the earlier grid entry.

    One word weighting at a time: its training texts' vectors (at most :data:`COMPONENT_TEXTS`)
    give the components of each of its grid entries, and the validation couples are scored
    ``block`` at a time for all of them at once, so memory does not grow with the couples."""
    from repro import metrics

    if name not in GRIDS:
        raise ValueError(f"peer must be one of {tuple(GRIDS)}, got {name!r}")
    tokens, lengths = _training_texts(train)
    mean_length = _mean_length(train)
    keys = {}  # word weighting -> the grid entries (index, params) that share it, in grid order
    for i, params in enumerate(GRIDS[name]):
        keys.setdefault(tuple(sorted((k, v) for k, v in params.items() if k != "components")), []).append((i, params))
    results = {}  # grid index -> (fitted peer, validation error)
    for key, entries in keys.items():
        peer = _unfitted(name, counts, mean_length, weights, **dict(key))
        train_means = peer.means(table, tokens, lengths)
        fitted = [_fitted(peer, train_means, params["components"]) for _, params in entries]
        del train_means
        scores = _scores_in_blocks(peer, [f.components for f in fitted], table, validation, block)
        for j, (i, _) in enumerate(entries):
            results[i] = (fitted[j], float(metrics.split(scores[j], validation.label, scores[j], validation.label).error))
    best = min(results, key=lambda i: (results[i][1], i))
    return results[best][0], dict(GRIDS[name][best]), results[best][1]
