"""kappa by five-fold cross-validation and grid search (paper, section 5.2).

All (kappa, fold) trainings run as one ``vmap``-ed call of the jitted Algorithm 1. For
each fold, weights are trained on the other four folds of the training split and scored
on the held-out fold by its optimal split error (threshold and error both on that
fold, the paper's "optimal split error"). The kappa with the lowest mean error wins;
ties go to the smaller kappa.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from repro import metrics
from repro.scoring import pair_scores
from repro.train import TrainConfig, _check_config, make_trainer, prepare
from repro.pairset import PairSet

DEFAULT_GRID = tuple(10.0 * 2.0**k for k in range(10))  # 10, 20, ..., 160, ..., 5120


class CVResult(NamedTuple):
    kappa: float  # the chosen value
    grid: np.ndarray  # (K,) kappa values tried
    errors: np.ndarray  # (K, F) held-out optimal split error per kappa and fold
    epochs: np.ndarray  # (K, F) epochs Algorithm 1 ran
    weights: np.ndarray  # (K, F, n_max) the weights of every run


def fold_indices(labels, folds: int, seed: int):
    """Per-class folds: (train_rel, train_unrel, held_out) index arrays, each (F, ...).

    Each class is shuffled from ``seed`` and cut into ``folds`` equal parts (a remainder
    of fewer than ``folds`` couples is left out), so every fold has the same shapes.
    """
    rng = np.random.default_rng(seed)
    parts = []
    for cls in (1, 0):
        idx = rng.permutation(np.flatnonzero(np.asarray(labels) == cls))
        size = idx.size // folds
        parts.append(idx[: size * folds].reshape(folds, size))
    rel, unrel = parts
    train_rel = np.stack([np.concatenate(np.delete(rel, f, axis=0)) for f in range(folds)])
    train_unrel = np.stack([np.concatenate(np.delete(unrel, f, axis=0)) for f in range(folds)])
    held_out = np.concatenate([rel, unrel], axis=1)  # (F, rel + unrel)
    return train_rel.astype(np.int32), train_unrel.astype(np.int32), held_out


def select_kappa(table, pairs: PairSet, grid=DEFAULT_GRID, *, folds: int = 5,
                 config: TrainConfig = TrainConfig(), n_max: int | None = None,
                 seed: int = 0) -> CVResult:
    """Grid search of kappa for the median loss with ``folds``-fold cross-validation."""
    config = config._replace(loss="median")
    _check_config(config)
    grid = np.asarray(grid, dtype=np.float32)
    if grid.ndim != 1 or grid.size == 0 or not np.all(grid > 0):
        raise ValueError("grid must be a non-empty list of positive kappa values")
    if folds < 2:
        raise ValueError(f"folds must be at least 2, got {folds}")
    data = prepare(table, pairs, config=config)
    table = jnp.asarray(table, jnp.float32)
    tr_rel, tr_unrel, held = fold_indices(pairs.label, folds, seed)
    if min(tr_rel.shape[1], tr_unrel.shape[1]) < config.batch_related:
        raise ValueError(
            f"pairs: {tr_rel.shape[1]} related and {tr_unrel.shape[1]} unrelated couples per training fold; "
            f"a batch needs {config.batch_related} of each")
    n_max = pairs.width if n_max is None else int(n_max)
    run = make_trainer(config, n_max)

    k, f = grid.size, folds
    kap = jnp.repeat(jnp.asarray(grid), f)  # (K*F,)
    rel = jnp.tile(jnp.asarray(tr_rel), (k, 1))
    unrel = jnp.tile(jnp.asarray(tr_unrel), (k, 1))
    # one key per fold, shared by every kappa: the kappas are compared on the same batches
    keys = jnp.tile(jax.random.split(jax.random.PRNGKey(seed), f), (k, 1))
    w, _, _, epochs = jax.vmap(run, in_axes=(None, 0, 0, 0, 0))(data, rel, unrel, kap, keys)
    w = np.asarray(w).reshape(k, f, -1)

    errors = np.zeros((k, f))
    for j in range(f):
        part = pairs.take(held[j])
        for i in range(k):
            s = pair_scores(w[i, j], table, part)
            errors[i, j] = metrics.split_error(s, part.label, s, part.label)[0]
    mean = errors.mean(axis=1)
    best = int(np.flatnonzero(mean == mean.min())[0])
    return CVResult(float(grid[best]), grid, errors, np.asarray(epochs).reshape(k, f), w)
