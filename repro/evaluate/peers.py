"""The peers users compare with: SIF (Arora et al., 2017) and uSIF (Ethayarajh, 2018), on the same
word vectors and token rows as the paper's methods. Not in the paper (docs/RESULTS.md, "Against the peers").

Both weigh every word by its unigram probability p(w) (word counts of the corpus) and average:
t = (1/n) sum_j f(p(w_j)) e_(j) over the n known words of a text, repeats included, then remove
the texts' common components (the top singular vectors of the training texts' vectors, not
centred, fitted once on every distinct training text and applied to every later text):

* **SIF**: f(p) = a / (a + p) (``a`` about 1e-3); remove the first component, t <- t - (t.c) c.
* **uSIF**: a is derived, not tuned: with V words and n-bar the average text length,
  threshold = 1 - (1 - 1/V)^n-bar, alpha = |{w : p(w) > threshold}| / V, Z = V / 2,
  a = (1 - alpha) / (alpha Z) and f(p) = a / (a / 2 + p); remove the first 5 components, each
  scaled by its share of the squared singular values, t <- t - sum_k s_k (t.c_k) c_k with
  s_k = sigma_k^2 / sum sigma^2, as Ethayarajh's paper and code define it (the default,
  ``usif_scales="share"``); fse 1.0.0 removes them with s_k^2 (``usif_scales="share_squared"``).

* **Zipfian whitening** (Yokoi, Bao, Kurita and Shimodaira, NeurIPS 2024): the plain mean of the
  word vectors whitened with the p(w)-weighted mean and covariance, e'_w = C^(-1/2)(e_w - mu)
  (:func:`repro.spaces.transforms.zipf_whitening`), or only centred, e'_w = e_w - mu: which of the two is
  chosen on the validation couples per metric. **Uniform whitening** (``uwhiten``) is the same
  with p uniform over the vocabulary, the variant that paper compares with.

SIF and uSIF are the definitions fse 1.0.0 implements (its ``SIF`` and ``uSIF``, the latter with the
squared shares), written here from the papers and checked against fse to float tolerance where
the side environment of ``make bench`` exists (tests/test_peers.py). Every peer is an
:class:`repro.evaluate.scoring.Encoding` of kind ``word`` (or ``rank`` for the learned weights with
components removed) and is scored by the one surface of every row, under both metrics.
"""

from __future__ import annotations

import numpy as np

from repro.evaluate import scoring
from repro.spaces import transforms
from repro.spaces.components import NO_COMPONENTS
from repro.evaluate.scoring import Encoding
from repro.core.textmetric import METRICS
# p(w) and SIF's and uSIF's word weights live in repro.spaces.transforms (NumPy only: the encoder's word
# map reads them without this module's JAX); re-exported here
from repro.spaces.transforms import EPS, probabilities, sif_weights, usif_weights  # noqa: F401

USIF_SCALES = ("share", "share_squared")
#: The peers that whiten the word vectors before the mean (Yokoi et al. 2024): Zipfian (p(w)
#: from the corpus's word counts) and uniform (p = 1/V).
WHITENING = ("zipf", "uwhiten")


def weighted_means(table, tokens, lengths, weights) -> np.ndarray:
    """(B, d) float64 text vectors (1/n) sum_j weights[w_j] e_(w_j); a text of length 0 is 0."""
    return scoring.text_vectors(Encoding("word", weights), table, tokens, lengths)


def weighting(name: str, counts, mean_length: float, weights=None, a: float = 1e-3,
              length: float | None = None, table=None, mode: str = "whiten") -> Encoding:
    """The encoding of peer ``name`` ("sif", "usif", "learned" with its ``weights`` per idf rank,
    or "zipf" / "uwhiten": the mean of the word vectors of ``table`` centred or whitened, ``mode``,
    under the corpus's p(w) or a uniform p, :func:`repro.spaces.transforms.zipf_whitening`) before its
    common components: uSIF's ``length`` defaults to the training texts' ``mean_length``."""
    if name in WHITENING:
        if table is None:
            raise ValueError(f"table: peer {name!r} whitens the word vectors and needs their table")
        p = probabilities(counts) if name == "zipf" else "uniform"
        return Encoding("mean", transform=transforms.zipf_whitening(table, p, mode))
    if name == "learned":
        return Encoding("rank", np.asarray(weights, np.float32))
    if name == "sif":
        return Encoding("word", sif_weights(counts, a))
    if name == "usif":
        return Encoding("word", usif_weights(counts, mean_length if length is None else float(length)))
    raise ValueError(f"peer must be one of {tuple(GRIDS)}, got {name!r}")


def component_scales(name: str, usif_scales: str = "share") -> str:
    """How peer ``name`` scales its removed components (:data:`repro.spaces.components.COMPONENT_SCALES`)."""
    if usif_scales not in USIF_SCALES:
        raise ValueError(f"usif_scales: expected one of {', '.join(USIF_SCALES)}, got {usif_scales!r}")
    return usif_scales if name == "usif" else "one"


def peer_encoding(name: str, column: scoring.Column, counts, weights=None, **params) -> Encoding:
    """Peer ``name``'s encoding on the ``column`` (:func:`weighting` with the grid entry ``params``,
    its ``components`` aside) before its common components: uSIF's length is the mean length of
    the column's distinct training texts, a whitening's table the column's."""
    params = {k: v for k, v in params.items() if k != "components"}
    return weighting(name, counts, float(np.mean(column.texts[1])), weights, **params,
                     table=column.table.host if name in WHITENING else None)


def fit_peer(name: str, column: scoring.Column, counts, *, weights=None, components: int = 1,
             usif_scales: str = "share", **params) -> Encoding:
    """Peer ``name`` (:func:`peer_encoding`, with ``params``) with the first ``components`` common
    components of the distinct texts of the ``column``'s training couples removed
    (:meth:`repro.evaluate.scoring.Column.fit`)."""
    enc = peer_encoding(name, column, counts, weights, **params)
    return enc._replace(components=column.fit(enc, (components,), component_scales(name, usif_scales))[0])


#: The hyperparameters tried for each peer; the one of lowest optimal split error on the
#: validation couples wins, under each metric (the test couples are never looked at).
GRIDS = {
    "sif": tuple({"a": a, "components": k} for a in (1e-4, 1e-3, 1e-2) for k in (0, 1)),
    "usif": tuple({"components": k} for k in (0, 5)),
    "learned": tuple({"components": k} for k in (1, 2, 5)),
    "zipf": tuple({"mode": m, "components": 0} for m in transforms.MODES),
    "uwhiten": tuple({"mode": m, "components": 0} for m in transforms.MODES),
}


def select(name: str, column: scoring.Column, counts, weights=None, *, metrics=METRICS,
           usif_scales: str = "share", split: str = "validation") -> dict:
    """Per metric of ``metrics``: (encoding, its hyperparameters, its validation split error), the
    entry of :data:`GRIDS` [``name``] of the lowest optimal split error on the ``column``'s
    ``split`` couples (threshold and error both on them) under that metric, its components
    fitted on the distinct texts of the column's training couples. Ties go to the earlier grid
    entry.

    One call of :meth:`repro.evaluate.scoring.Column.score` for the whole grid: a pass per word
    weighting, whose training vectors are made once for all its component counts and whose
    validation couples are scored once for all of them under every metric (chunk by chunk, so
    memory does not grow with the couples)."""
    from repro.core import metrics as protocol

    if name not in GRIDS:
        raise ValueError(f"peer must be one of {tuple(GRIDS)}, got {name!r}")
    keys = {}  # word weighting -> the grid entries (index, params) that share it, in grid order
    for i, params in enumerate(GRIDS[name]):
        keys.setdefault(tuple(sorted((k, v) for k, v in params.items() if k != "components")), []).append((i, params))
    scales = component_scales(name, usif_scales)
    mean_length, host = float(np.mean(column.texts[1])), column.table.host if name in WHITENING else None
    grid = [scoring.Pass(weighting(name, counts, mean_length, weights, **dict(key), table=host),
                         tuple(p["components"] for _, p in entries), tuple(metrics), scales)
            for key, entries in keys.items()]
    labels = column.splits[split].label
    results = {m: {} for m in metrics}  # metric -> grid index -> (encoding, validation error)
    for entries, scored in zip(keys.values(), column.score(grid, splits=(split,))):
        s = scored.scores[split]
        for j, (i, _) in enumerate(entries):
            for k, m in enumerate(metrics):
                err = protocol.split(s[j, k], labels, s[j, k], labels).error
                results[m][i] = (scored.encodings[j], float(err))
    out = {}
    for m in metrics:
        best = min(results[m], key=lambda i: (results[m][i][1], i))
        out[m] = (results[m][best][0], dict(GRIDS[name][best]), results[m][best][1])
    return out


def passes(name: str, picked: dict, usif_scales: str = "share") -> list[tuple[scoring.Pass, list]]:
    """How to score peer ``name``'s row, its choices ``picked`` ({metric: (encoding, its grid entry,
    error)}, :func:`select`'s), in as few passes as there are word weightings among them:
    [(:class:`repro.evaluate.scoring.Pass`, [(metric, index of its component set)])].

    The metrics whose choices share a word weighting (every hyperparameter but the number of
    components) share one pass, which computes each chunk's text vectors once and removes every
    component set from them; each set is the number of components of its entry, fitted by the
    column (:meth:`repro.evaluate.scoring.Column.fit`, at :func:`component_scales` of ``name`` and
    ``usif_scales``, the choice's: the same bits as :func:`select`'s fit, read off the same
    spectrum), so an encoding ``picked`` holds may come with its components or without. A metric's
    scores are the same bits as scoring its own choice alone."""
    groups = {}  # word weighting -> (encoding, {params: (set index, components)}, [(metric, set index)])
    for metric, (enc, params, _) in picked.items():
        weighting_key = tuple(sorted((k, v) for k, v in params.items() if k != "components"))
        base, sets, picks = groups.setdefault(weighting_key, (enc._replace(components=NO_COMPONENTS), {}, []))
        index = sets.setdefault(tuple(sorted(params.items())), (len(sets), int(params["components"])))[0]
        picks.append((metric, index))
    scales = component_scales(name, usif_scales)
    return [(scoring.Pass(base, tuple(k for _, k in sets.values()), tuple(m for m, _ in picks), scales), picks)
            for base, sets, picks in groups.values()]
