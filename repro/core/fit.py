"""One way through training: kappa by cross-validation when it is not given, then Algorithm 1.

:func:`fit` is what every caller of training uses (:meth:`repro.encode.encoder.Encoder.fit`,
``experiments/train_weights.py`` and ``repro train``). It works on couples prepared once
(:func:`repro.core.prepared.prepare`): the data form is built once and shared by every kappa, every
cross-validation fold and the final run (paper, section 5.2):

1. the batch size the couples allow (:func:`fitting_batch`: the paper's 50 + 50, fewer for a
   small collection or small grouped folds);
2. for the median loss without a given kappa, five-fold cross-validation over
   :data:`repro.settings.KAPPA_GRID` (:func:`repro.core.crossval.select_kappa`);
3. Algorithm 1 on the whole training split with that kappa (:func:`repro.core.train.train`).

The result is a :class:`repro.core.modelrecord.ModelRecord`: the weights, the loss, kappa and where
it came from, the epochs and history, the settings of the run, the search and the timings,
which the model and encoder files hold.
"""

from __future__ import annotations

import time

import numpy as np

from repro import settings
from repro.core.crossval import fold_indices, search_calls, select_kappa
from repro.core.modelrecord import CVRecord, ModelRecord, check_kappa
from repro.core.prepared import Prepared
from repro.progress import bar
from repro.core.train import TrainConfig, train


def fitting_batch(labels, wanted: int, folds: int = 0, seed: int = 0, groups=None) -> int:
    """The batch size (couples of each class) that the couples allow: ``wanted`` (the paper's
    50), or less when a class, or with ``folds`` > 0 a class in a cross-validation training
    fold, is smaller (a small tweet collection has a few dozen couples per class). With
    ``groups`` the folds keep whole clusters and are trimmed to equal shapes
    (:func:`repro.core.crossval.fold_indices` from ``seed``), which can leave less room.
    ``ValueError`` when not even one couple per class (and fold) is left."""
    labels = np.asarray(labels)
    n = int(min((labels == 1).sum(), (labels == 0).sum()))
    room = (n // folds) * (folds - 1) if folds else n
    if room < 1:
        raise ValueError(f"{n} couple(s) of the smaller class: too few to train"
                         + (f" with {folds}-fold cross-validation" if folds else ""))
    batch = min(int(wanted), room)
    if folds and groups is not None:
        tr_rel, tr_unrel, _ = fold_indices(labels, folds, seed, groups)
        room = min(tr_rel.shape[1], tr_unrel.shape[1])
        if room < 1:
            raise ValueError(f"groups: the {folds} grouped folds leave no couple of a class to train on")
        batch = min(batch, room)
    return batch


def fit(prepared: Prepared, loss: str = "median", kappa: float | None = None, *, kappa_source: str | None = None,
        grid=settings.KAPPA_GRID, folds: int = 5, seed: int = 0, batch_related: int = 50, groups=None,
        progress: bool = False, init=None, **config) -> ModelRecord:
    """Learn the weights on the prepared couples (paper, section 5.2); the record of the run.

    Args:
      prepared: the training couples, prepared once (:func:`repro.core.prepared.prepare`).
      loss: "median" (eq. 8) or "contrastive" (eq. 5).
      kappa: the median loss's kappa; None chooses it by ``folds``-fold cross-validation over
        ``grid``. The contrastive loss takes none (:func:`repro.core.modelrecord.check_kappa`).
      kappa_source: where a given kappa came from: "given" (default) or "model" (read from
        another model's file by the caller, who names it in the record).
      seed: the folds and every batch draw flow from it.
      batch_related: the couples of each class per batch wanted (the paper's 50); fewer when
        a class (or, with cross-validation, a class in a training fold) is smaller.
      groups: (P,) int, the cluster of every related training couple (its article, or its
        component of related tweet couples): the cross-validation folds then keep whole
        clusters (:func:`repro.core.crossval.fold_indices`). None: folds of single couples.
      progress: one bar "train" over the kappa search's calls and the final run, past a
        second, on a terminal (:mod:`repro.progress`).
      init: None (the paper's constant start) or (n_max,) weights the final run starts from (a
        warm start, beyond the paper: :mod:`repro.core.warmstart`); the kappa search, when it
        runs, keeps the paper's start.
      config: other :class:`repro.core.train.TrainConfig` fields (``lam``, ``distance``,
        ``max_epochs``, ...).

    Returns:
      A :class:`repro.core.modelrecord.ModelRecord`: ``weights`` (n_max,) float32, the kappa used
      and its source, the epochs, the per-epoch mean losses and the search's errors per kappa.
    """
    search = loss == "median" and kappa is None
    if search and kappa_source is not None:
        raise ValueError(f"kappa_source: {kappa_source!r} names where a given kappa came from, and none was given")
    if not search:
        if kappa_source not in (None, "given", "model"):
            raise ValueError(f"kappa_source: {kappa_source!r}; a given kappa comes from 'given' or 'model'")
        source = kappa_source or ("given" if loss == "median" else "none")
        kappa = check_kappa(loss, kappa, source)
    batch = fitting_batch(prepared.labels, batch_related, folds if search else 0, seed, groups if search else None)
    cfg = TrainConfig(loss=loss, batch_related=batch, **config)
    cv = None
    steps = (search_calls(len(np.atleast_1d(grid))) if search else 0) + 1
    with bar(steps, "train", unit="step", show=progress) as shown:
        t0 = time.perf_counter()
        if search:
            cv = select_kappa(prepared, grid, folds=folds, config=cfg, seed=seed, groups=groups,
                              step=lambda: shown.update(1))
            kappa, source = cv.kappa, "cv"
        t1 = time.perf_counter()
        result = train(prepared, cfg, kappa, seed=seed, init=init)
        t2 = time.perf_counter()
        shown.update(1)
    return ModelRecord(result.weights, result.history, result.etas, result.epochs, loss, kappa, source, cfg.lam,
                       cfg.distance, seed=seed, train_pairs=prepared.pairs.size,
                       seconds={"prepare": prepared.seconds, "kappa_cv": t1 - t0, "train": t2 - t1},
                       batch_related=batch,
                       cv=None if cv is None else CVRecord(cv.grid, cv.errors, cv.epochs,
                                                           "couples" if groups is None else "grouped",
                                                           np.asarray(cv.extended, np.float64)))
