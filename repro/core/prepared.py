"""Training couples prepared once: checked at the API boundary, on the device, in one data form.

:func:`prepare` builds the data form that :func:`repro.core.forms.build` chooses, once; every kappa
and cross-validation fold of :func:`repro.core.crossval.select_kappa` and the final run of
Algorithm 1 (:func:`repro.core.train.train`), chained by :func:`repro.core.fit.fit`, read the result
(paper, section 5.2).
"""

from __future__ import annotations

import time
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from repro.core import forms
from repro.core import losses as L
from repro.checks import check_pairs, check_table
from repro.core.pairset import PairSet


class Prepared(NamedTuple):
    """Training couples prepared once (:func:`prepare`): checked, on the device, in one data form."""

    form: tuple  # the data form of repro.core.forms that Algorithm 1 reads
    table: jnp.ndarray  # (V, d) float32 on the device, for scoring held-out couples
    pairs: PairSet  # the couples on the host (labels, token rows)
    n_max: int  # number of weights
    distance: str = "euclidean"  # what the form was built for: "cosine" needs both texts' products
    seconds: float = 0.0  # wall time of the preparation (a model record's "prepare" seconds)

    @property
    def labels(self) -> np.ndarray:
        return np.asarray(self.pairs.label)


def prepare(table, pairs: PairSet, n_max: int | None = None, *, form: str = "auto",
            budget: float = forms.QUADRATIC_BUDGET, name: str = "pairs", distance: str = "euclidean",
            checked: bool = False) -> Prepared:
    """Check ``table`` (unless ``checked``: the caller passes down a table checked where it entered,
    a :class:`repro.evaluate.scoring.Table`'s host) and ``pairs`` once at the API boundary, move them to the device and build the data form that
    :func:`repro.core.forms.build` chooses (``form``: "auto", "quadratic", "gram" or "gather"; "auto"
    takes the quadratic form while it fits ``budget`` bytes) for ``n_max`` weights (default: the
    pairs' width), for training under ``distance`` (the forms of the cosine hold both texts'
    products). Every kappa, fold and final run of :func:`repro.core.fit.fit` reads the result.

    Args:
      table: (V, d) float word embeddings (float32 on the device).
      pairs: the training :class:`repro.core.pairset.PairSet`: (P, W) int32 token rows a and b,
        their (P,) lengths and (P,) int8 labels (1 related, 0 unrelated).
      n_max: the number of weights (default: the rows' width W).

    Returns:
      A :class:`Prepared`: the (V, d) float32 device table, the couples' data form (its name in
      ``form``), their (P,) labels and ``n_max``.
    """
    t0 = time.perf_counter()
    if distance not in L.DISTANCES:
        raise ValueError(f"distance: expected one of {', '.join(L.DISTANCES)}, got {distance!r}")
    table = table if checked else check_table(table)
    check_pairs(pairs, name=name, vocab_size=table.shape[0])
    if pairs.size and (pairs.len_a.min() < 1 or pairs.len_b.min() < 1):
        raise ValueError(f"{name}: every text needs at least one in-vocabulary word (a length is 0)")
    n_max = pairs.width if n_max is None else int(n_max)
    if n_max < 1:
        raise ValueError(f"n_max must be at least 1, got {n_max}")
    table = jnp.asarray(table, jnp.float32)
    built = forms.build(table, pairs, n_max, form, budget, distance)
    return Prepared(built, table, pairs, n_max, distance, time.perf_counter() - t0)
