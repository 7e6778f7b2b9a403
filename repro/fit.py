"""One way through training: kappa by cross-validation when it is not given, then Algorithm 1.

:func:`fit` is what every caller of training uses (:meth:`repro.encoder.Encoder.fit`,
``experiments/train_weights.py`` and ``repro train``). It works on couples prepared once
(:func:`repro.train.prepare`): the data form is built once and shared by every kappa, every
cross-validation fold and the final run (paper, section 5.2):

1. the batch size the couples allow (:func:`repro.train.fitting_batch`: the paper's 50 + 50,
   fewer for a small collection);
2. for the median loss without a given kappa, five-fold cross-validation over
   :data:`repro.settings.KAPPA_GRID` (:func:`repro.crossval.select_kappa`);
3. Algorithm 1 on the whole training split with that kappa (:func:`repro.train.train`).

The result names its loss and where kappa came from (:data:`KAPPA_SOURCES`), which the model
and encoder files record.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from repro import settings
from repro.crossval import CVResult, fold_indices, search_calls, select_kappa
from repro.progress import bar
from repro.train import Prepared, TrainConfig, fitting_batch, train

KAPPA_SOURCES = ("cv", "given", "model", "none")
"""Where a model's kappa came from: "cv" (the cross-validated grid search), "given" (a value
the caller chose), "model" (another model's file, named beside it), "none" (the contrastive
loss, which has no kappa)."""


class FitResult(NamedTuple):
    weights: np.ndarray  # (n_max,) learned weights
    history: np.ndarray  # (epochs,) mean L_total per epoch of the final run
    etas: np.ndarray  # (epochs,) learning rate of each epoch
    epochs: int
    loss: str  # "median" or "contrastive"
    kappa: float | None  # the median loss's kappa; None for the contrastive loss
    kappa_source: str  # one of KAPPA_SOURCES
    config: TrainConfig  # the hyperparameters of the final run (batch size included)
    cv: CVResult | None  # the grid search, when kappa came from it
    seconds: dict  # wall time of the kappa search ("kappa_cv") and of the final run ("train")


def fit(prepared: Prepared, loss: str = "median", kappa: float | None = None, *, kappa_source: str | None = None,
        grid=settings.KAPPA_GRID, folds: int = 5, seed: int = 0, batch_related: int = 50, groups=None,
        progress: bool = False, **config) -> FitResult:
    """Learn the weights on the prepared couples (paper, section 5.2).

    Args:
      prepared: the training couples, prepared once (:func:`repro.train.prepare`).
      loss: "median" (eq. 8) or "contrastive" (eq. 5).
      kappa: the median loss's kappa; None chooses it by ``folds``-fold cross-validation over
        ``grid``. The contrastive loss takes none.
      kappa_source: where a given kappa came from: "given" (default) or "model" (read from
        another model's file by the caller).
      seed: the folds and every batch draw flow from it.
      batch_related: the couples of each class per batch wanted (the paper's 50); fewer when
        a class (or, with cross-validation, a class in a training fold) is smaller.
      groups: (P,) int, the cluster of every related training couple (its article, or its
        component of related tweet couples): the cross-validation folds then keep whole
        clusters (:func:`repro.crossval.fold_indices`). None: folds of single couples.
      progress: one bar "train" over the kappa search's calls and the final run, past a
        second, on a terminal (:mod:`repro.progress`).
      config: other :class:`repro.train.TrainConfig` fields (``lam``, ``distance``,
        ``max_epochs``, ...).
    """
    if loss not in settings.LOSSES:
        raise ValueError(f"loss must be one of {settings.LOSSES}, got {loss!r}")
    if loss == "contrastive" and kappa is not None:
        raise ValueError("kappa: the contrastive loss has no kappa")
    if kappa is not None and not (np.isfinite(kappa) and kappa > 0):
        raise ValueError(f"kappa must be a positive number, got {kappa}")
    if kappa_source is not None and (kappa is None or kappa_source not in ("given", "model")):
        raise ValueError(f"kappa_source: {kappa_source!r} names where a given kappa came from ('given' or 'model')")
    search = loss == "median" and kappa is None
    batch = fitting_batch(prepared.labels, batch_related, folds if search else 0)
    if search and groups is not None:  # grouped folds are trimmed to equal shapes: maybe smaller
        tr_rel, tr_unrel, _ = fold_indices(prepared.labels, folds, seed, groups)
        room = min(tr_rel.shape[1], tr_unrel.shape[1])
        if room < 1:
            raise ValueError(f"groups: the {folds} grouped folds leave no couple of a class to train on")
        batch = min(batch, room)
    cfg = TrainConfig(loss=loss, batch_related=batch, **config)
    cv = None
    steps = (search_calls(len(np.atleast_1d(grid))) if search else 0) + 1
    with bar(steps, "train", unit="step", show=progress) as shown:
        t0 = time.perf_counter()
        if search:
            cv = select_kappa(prepared, grid, folds=folds, config=cfg, seed=seed, groups=groups,
                              step=lambda: shown.update(1))
            kappa, kappa_source = cv.kappa, "cv"
        elif loss == "median":
            kappa, kappa_source = float(kappa), kappa_source or "given"
        else:
            kappa_source = "none"
        t1 = time.perf_counter()
        result = train(prepared, cfg, kappa, seed=seed)
        t2 = time.perf_counter()
        shown.update(1)
    return FitResult(result.weights, result.history, result.etas, result.epochs, loss, kappa, kappa_source, cfg,
                     cv, {"kappa_cv": t1 - t0, "train": t2 - t1})
