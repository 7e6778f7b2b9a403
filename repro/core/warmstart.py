"""Learning that never loses to where it started: a warm start and a choice on validation couples
(issue 59; beyond the paper, which always starts Algorithm 1 from a constant, docs/FIDELITY.md).

A user's few thousand couples, often labelled by a rule, can be a weaker signal than the couples
shipped weights came from. So :func:`choose` learns in up to two ways, from the same prepared
couples and with the same kappa (the paper's cross-validation, run once from its own start):

* **paper**: Algorithm 1 from the paper's start (every weight 0.5, line 1): today's fit;
* **warm**: Algorithm 1 from the ``start`` weights (shipped, or a model's), the learning-rate
  drop and stopping rule unchanged (:func:`repro.core.train.train`'s ``init``);

and keeps, among them, the start as it is and, optionally, the warm fit shrunk toward the start
(``start + a (warm - start)`` for each ``a`` of ``shrink``), the candidate of the lowest split
error on the **validation couples** (:func:`validation_errors`: the optimal split of the paper's
section 5 chosen and read on those couples, balanced). Ties go to the candidate listed first:
the start, then the shrunk fits, the warm fit, the paper's fit. So the result is never worse than
the start on validation, and the validation couples never train (tests/test_warmstart.py).

A start of another length is the model's own interpolation of its weights onto ``n_max``
positions (:func:`start_weights`: the weights it gives a text of ``n_max`` words, section 3.3).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from repro.core.metrics import split
from repro.core.modelrecord import ModelRecord
from repro.core.pairset import PairSet

#: The candidates, in the order that breaks ties (the start first: never worse than it).
ORDER = ("start", "shrunk", "warm", "paper")


class Choice(NamedTuple):
    """What :func:`choose` kept: its weights and name (one of :data:`ORDER`, ``shrunk`` as
    ``shrunk-<a>``), every candidate's validation split error, and the records of the fits run
    (``paper`` and, from a start other than the paper's, ``warm``)."""
    weights: np.ndarray
    name: str
    errors: dict
    records: dict

    @property
    def kept_start(self) -> bool:
        return self.name == "start"


def start_weights(weights, n_max: int) -> np.ndarray:
    """(n_max,) float32 start from ``weights`` (m,): the same where m = n_max, else the model's
    interpolation of them onto n_max positions (:func:`repro.core.model.interpolated_weights`)."""
    w = np.asarray(weights, np.float32)
    if w.ndim != 1 or w.size < 1 or not np.isfinite(w).all():
        raise ValueError(f"init: expected a vector of finite weights, got shape {w.shape}")
    if w.size == n_max:
        return w.copy()
    from repro.core.model import interpolated_weights

    return np.asarray(interpolated_weights(w, np.array([n_max]), n_max), np.float32)[0]


def validation_errors(table, pairs: PairSet, weights, distance: str) -> np.ndarray:
    """(K,) validation split errors of the K weight vectors ``weights`` (K, n_max) on the couples
    ``pairs`` (rows of ``table``, the rank-ordered table without its zero row): each candidate's
    distances scored as the paper scores a split, the threshold chosen and read on these couples
    (:func:`repro.core.metrics.split`), balanced ((FPR + FNR) / 2)."""
    from repro.core.crossval import held_out_distances

    w = np.asarray(weights, np.float32)[:, None, :]
    d = held_out_distances(w, table, pairs.a[None], pairs.b[None], pairs.len_a[None], pairs.len_b[None],
                           kind="cosine" if distance == "cosine" else "euclidean")[:, 0]
    y = np.asarray(pairs.label) == 1
    return np.array([split(-row, y, -row, y).error for row in d.astype(np.float64)])


def choose(table, validation: PairSet, start, *, fit_paper, fit_warm, shrink=()) -> Choice:
    """The candidate of least validation split error (module docstring), the validation couples
    ``validation`` rows of ``table`` (rank-ordered, without its zero row). ``fit_paper()`` runs
    Algorithm 1 from the paper's start and returns its :class:`ModelRecord`; ``fit_warm(paper)``
    from ``start``, with that record's kappa, or returns None (no warm fit: the start is the paper's own)."""
    paper = fit_paper()
    records: dict = {"paper": paper}
    names, vectors = ["start"], [np.asarray(start, np.float32)]
    warm: ModelRecord | None = fit_warm(paper)
    if warm is not None:
        records["warm"] = warm
        for a in shrink:
            a = float(a)
            if not 0.0 < a < 1.0:
                raise ValueError(f"shrink: each coefficient must lie strictly between 0 and 1, got {a:g}")
            names.append(f"shrunk-{a:g}")
            vectors.append(vectors[0] + np.float32(a) * (warm.weights - vectors[0]))
        names.append("warm")
        vectors.append(warm.weights)
    names.append("paper")
    vectors.append(paper.weights)
    errors = validation_errors(table, validation, np.stack(vectors), paper.distance)
    best = int(np.argmin(errors))  # the first of the least: the start wins its ties
    return Choice(vectors[best].astype(np.float32), names[best], dict(zip(names, errors.tolist())), records)
