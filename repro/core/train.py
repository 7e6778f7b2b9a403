"""Siamese training of the weights by Algorithm 1 of the paper, in one jitted program.

The whole run is a ``lax.while_loop`` over epochs around a ``lax.scan`` over batches, so
nothing runs per batch in Python and nothing recompiles between epochs; the same program
``vmap``s over kappa values and cross-validation folds (:func:`repro.core.crossval.select_kappa`).
It reads the couples in one of the data forms of :mod:`repro.core.forms`, built once by
:func:`repro.core.prepared.prepare` and shared by every kappa, fold and the final run;
:func:`repro.core.fit.fit` chains the kappa search and the final run and chooses the batch size.

Algorithm 1 (paper, section 5.2), with the choices recorded in docs/FIDELITY.md:
  w <- 0.5; eta <- 0.01; L_old <- inf
  repeat (one epoch over freshly drawn batches of 50 related + 50 unrelated couples):
      every batch: L_total = L_batch + lambda sum w^2; w <- w - eta dL_total/dw
      L_mean = mean of L_total over the epoch's batches
      if eta > 0.001 and L_mean > L_old:       eta <- 0.001
      elif eta == 0.001 and L_old - L_mean < 0.0005:   stop
      L_old <- L_mean
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from repro.core import losses as L
from repro import settings
from repro.core.jitting import jit
from repro.core.model import init_weights
from repro.core.modelrecord import check_kappa
from repro.core.prepared import Prepared


class TrainConfig(NamedTuple):
    """Hyperparameters of Algorithm 1; the defaults are the paper's (section 5.2). The median
    loss's kappa is not one of them: it is an argument of the run (traced), chosen by
    :func:`repro.core.fit.fit`."""

    loss: str = "median"  # "median" (eq. 8) or "contrastive" (eq. 5)
    lam: float = 1e-3  # L2 strength lambda
    distance: str = "euclidean"  # or "sqeuclidean" (the original code), or "cosine" (1 - cos, not the paper's)
    eta: float = 0.01  # initial learning rate
    eta_low: float = 0.001  # learning rate after the first rise of the mean epoch loss
    tol: float = 5e-4  # stop once eta is low and the mean loss improves by less than this
    batch_related: int = 50  # related couples per batch (as many unrelated ones)
    max_epochs: int = 100  # safety bound on the number of epochs


class TrainResult(NamedTuple):
    weights: np.ndarray  # (n_max,) final weights
    history: np.ndarray  # (epochs,) mean L_total per epoch
    etas: np.ndarray  # (epochs,) learning rate used in each epoch
    epochs: int


def batch_loss(w, form, index, n_related: int, config: TrainConfig, kappa):
    """L_total of one batch: the couples ``index`` (first ``n_related`` related) plus L2.

    ``form`` is any data form of :mod:`repro.core.forms`; all give the same loss up to float32
    rounding.
    """
    if config.distance == "cosine":  # not the paper's: 1 - cos from the three products of a couple
        d = L.cosine_from_products(*form.products(w, index))
    else:
        d = L.distance_from_squared(form.sq_distances(w, index), config.distance)
    d_rel, d_unrel = d[:n_related], d[n_related:]
    if config.loss == "median":
        loss = L.median_loss(d_rel, d_unrel, kappa)
    else:
        loss = L.contrastive_loss(d_rel, d_unrel)
    return loss + L.l2_penalty(w, config.lam)


def next_rate(eta, l_mean, l_old, config: TrainConfig):
    """Algorithm 1's learning-rate drop and stopping rule. Returns (eta, stop).

    The paper's listing checks the stop condition right after a drop, which would stop
    in the very epoch whose loss rose (L_old - L_mean < 0); its text says "after that",
    and the original code drops first and stops on a later epoch. So the stop test only
    runs in epochs that start at the low rate.
    """
    low = eta <= config.eta_low
    drop = jnp.logical_and(jnp.logical_not(low), l_mean > l_old)
    stop = jnp.logical_and(low, l_old - l_mean < config.tol)
    return jnp.where(drop, config.eta_low, eta), stop


def _draw_batches(key, related, unrelated, batch_related: int):
    """Fresh batches for one epoch: (n_batches, 2 * batch_related) couple indices."""
    n_batches = min(related.shape[0], unrelated.shape[0]) // batch_related
    k1, k2 = jax.random.split(key)
    r = jax.random.permutation(k1, related)[: n_batches * batch_related]
    u = jax.random.permutation(k2, unrelated)[: n_batches * batch_related]
    return jnp.concatenate(
        [r.reshape(n_batches, batch_related), u.reshape(n_batches, batch_related)], axis=1
    )


class LoopState(NamedTuple):
    """The carry of the epoch loop of :func:`make_trainer`."""

    w: jnp.ndarray  # (n_max,) weights
    opt_state: tuple  # optax state, with the injected learning rate
    eta: jnp.ndarray  # learning rate of the next epoch
    l_old: jnp.ndarray  # mean L_total of the previous epoch (inf before the first)
    epoch: jnp.ndarray  # epochs run so far
    stop: jnp.ndarray  # Algorithm 1's stop condition has fired
    key: jnp.ndarray  # PRNG key of the next epoch's batches
    history: jnp.ndarray  # (max_epochs,) mean L_total per epoch, NaN past the last
    etas: jnp.ndarray  # (max_epochs,) learning rate of each epoch, NaN past the last


def _optimizer(config: TrainConfig):
    return optax.inject_hyperparams(optax.sgd)(learning_rate=config.eta)


def make_step(config: TrainConfig):
    """One SGD step of Algorithm 1: ``step(w, opt_state, data, index, kappa) -> (w, opt_state, loss)``.

    ``value_and_grad`` of :func:`batch_loss` plus the optax update. For every data form
    and both losses it holds no scatter-add (tested on its HLO), so it is deterministic
    on GPUs without XLA's deterministic-ops flag.
    """
    nr = config.batch_related
    opt = _optimizer(config)
    grad_fn = jax.value_and_grad(batch_loss)

    def step(w, opt_state, data, index, kappa):
        loss, g = grad_fn(w, data, index, nr, config, kappa)
        updates, opt_state = opt.update(g, opt_state, w)
        return optax.apply_updates(w, updates), opt_state, loss

    return step


@functools.lru_cache(maxsize=None)
def make_trainer(config: TrainConfig, n_max: int, jitted: bool = True):
    """A jitted ``run(data, related, unrelated, kappa, key) -> (w, history, etas, epochs)``;
    ``data`` is a data form of :mod:`repro.core.forms`: Algorithm 1 for one kappa, the one run of
    :func:`make_grid_trainer` (the same loop, so a kappa's run is the same bits alone and among
    the kappa search's K).

    ``kappa`` and ``key`` are traced, so one compiled program serves every kappa, fold
    and seed; ``jax.vmap`` over them gives the batched cross-validation. ``jitted=False`` gives
    the function itself, for a caller that compiles it inside a larger program (the kappa
    search sharded over devices: JAX takes compiler options only at the top level).
    """
    grid = make_grid_trainer(config, n_max, jitted=False)

    def run(data, related, unrelated, kappa, key, start=None):
        w, history, etas, epochs = grid(data, related, unrelated, jnp.reshape(jnp.asarray(kappa, jnp.float32), (1,)),
                                        key, start)
        return w[0], history[0], etas[0], epochs[0]

    return jit(run) if jitted else run


@functools.lru_cache(maxsize=None)
def make_grid_trainer(config: TrainConfig, n_max: int, jitted: bool = True):
    """A ``run(data, related, unrelated, kappas, key) -> (w, history, etas, epochs)`` that runs
    Algorithm 1 for every kappa of ``kappas`` (K,) on the same batches, each with the arrays of
    :func:`make_trainer` gaining a leading K axis: w (K, n_max), history and etas (K, max_epochs),
    epochs (K,).

    The K runs draw one set of batches per epoch from the shared ``key`` and read each batch's
    couples from ``data`` once for all of them (the weights are ``vmap``-ed, the batch is not):
    the kappa search compares its kappas on the same batches anyway
    (:func:`repro.core.crossval.select_kappa`), and on the CPU, where reading the batch's rows is
    most of a step, K runs cost much less than K separate ones. A run that has stopped keeps
    its state while the others go on. :func:`make_trainer` is its one-kappa case; a kappa's run
    among K agrees with its run alone to float32 rounding (the products of the K runs are one
    contraction), not always bit for bit.
    """
    nr = config.batch_related
    opt = _optimizer(config)
    step = jax.vmap(make_step(config), in_axes=(0, 0, None, None, 0))  # the K runs share data and batch

    def lanes(on, new, old):
        """``new`` where the run is on (K,), ``old`` elsewhere, for every array of a state."""
        return jax.tree_util.tree_map(lambda a, b: jnp.where(on.reshape(on.shape + (1,) * (a.ndim - 1)), a, b), new, old)

    def run(data, related, unrelated, kappas, key, start=None):
        k = kappas.shape[0]
        # Algorithm 1, line 1 (the paper's constant start); ``start`` (n_max,): a warm start, not the paper's
        w0 = jnp.broadcast_to(init_weights(n_max) if start is None else start, (k, n_max))
        hist0 = jnp.full((k, config.max_epochs), jnp.nan, jnp.float32)
        state = LoopState(w0, jax.vmap(opt.init)(w0), jnp.full((k,), config.eta, jnp.float32),
                          jnp.full((k,), jnp.inf, jnp.float32), jnp.zeros((k,), jnp.int32),
                          jnp.zeros((k,), jnp.bool_), key, hist0, hist0)

        def running(s: LoopState):
            return jnp.logical_and(jnp.logical_not(s.stop), s.epoch < config.max_epochs)

        def body(s: LoopState):
            key, sub = jax.random.split(s.key)
            batches = _draw_batches(sub, related, unrelated, nr)  # (n_batches, 2 nr): one draw for the K runs
            opt_state = s.opt_state._replace(hyperparams={**s.opt_state.hyperparams, "learning_rate": s.eta})

            def batch(carry, index):
                w, o, loss = step(*carry, data, index, kappas)
                return (w, o), loss

            (w, opt_state), batch_losses = jax.lax.scan(batch, (s.w, opt_state), batches)
            l_mean = jnp.mean(batch_losses, axis=0)  # (K,)
            # every running run is at the loop's own epoch, max(epoch): one column for all (no scatter)
            at = jnp.max(s.epoch)
            eta, stop = next_rate(s.eta, l_mean, s.l_old, config)
            new = LoopState(w, opt_state, eta, l_mean, s.epoch + 1, stop, key,
                            jax.lax.dynamic_update_index_in_dim(s.history, l_mean, at, 1),
                            jax.lax.dynamic_update_index_in_dim(s.etas, s.eta, at, 1))
            return lanes(running(s), new._replace(key=None), s._replace(key=None))._replace(key=key)

        s = jax.lax.while_loop(lambda s: jnp.any(running(s)), body, state)
        return s.w, s.history, s.etas, s.epoch

    return jit(run) if jitted else run


def check_config(config: TrainConfig) -> None:
    """ValueError when ``config`` names an unknown loss or distance, or holds a rate, a batch
    or an epoch count that is not positive."""
    if config.loss not in settings.LOSSES:
        raise ValueError(f"loss must be one of {', '.join(settings.LOSSES)}, got {config.loss!r}")
    if config.distance not in L.DISTANCES:
        raise ValueError(f"distance must be one of {L.DISTANCES}, got {config.distance!r}")
    if config.batch_related < 1 or config.max_epochs < 1:
        raise ValueError("batch_related and max_epochs must be positive")
    if not (config.eta > 0 and config.eta_low > 0):
        raise ValueError("eta and eta_low must be positive")


def check_distance(prepared: Prepared, config: TrainConfig) -> None:
    """ValueError when ``config`` learns under the cosine from couples not prepared for it."""
    if config.distance == "cosine" and prepared.distance != "cosine":
        raise ValueError("distance: training under the cosine needs couples prepared with distance='cosine'")


def _class_indices(labels, batch_related: int, name: str):
    rel = np.flatnonzero(labels == 1).astype(np.int32)
    unrel = np.flatnonzero(labels == 0).astype(np.int32)
    if min(rel.size, unrel.size) < batch_related:
        raise ValueError(
            f"{name}: {rel.size} related and {unrel.size} unrelated couples; a batch needs "
            f"{batch_related} of each"
        )
    return rel, unrel


def train(prepared: Prepared, config: TrainConfig = TrainConfig(), kappa: float | None = None, *,
          seed: int = 0, init=None) -> TrainResult:
    """Learn the weights on all of ``prepared``'s couples by Algorithm 1.

    Args:
      prepared: the training couples (:func:`repro.core.prepared.prepare`; tokens sorted by descending idf).
      config: hyperparameters (paper defaults).
      kappa: the median loss's scale (eq. 8), required by it; the contrastive loss has none.
      seed: every batch draw flows from it; the same seed gives the same weights.
      init: None, Algorithm 1's constant start (line 1, the paper's; the same program as before it
        existed, so the same bits); or (n_max,) weights to start from (a warm start, not in the
        paper; :mod:`repro.core.warmstart`). The learning-rate drop and stopping rule are the same.
    """
    check_config(config)
    check_distance(prepared, config)
    kappa = check_kappa(config.loss, kappa)  # repro.core.fit.fit chooses the median loss's by cross-validation
    rel, unrel = _class_indices(prepared.labels, config.batch_related, "pairs")
    run = make_trainer(config, prepared.n_max)
    start = None
    if init is not None:
        start = np.asarray(init, np.float32)
        if start.shape != (prepared.n_max,) or not np.isfinite(start).all():
            raise ValueError(f"init: expected {prepared.n_max} finite weights, got shape {start.shape}")
        start = jnp.asarray(start)
    w, hist, etas, epochs = run(prepared.form, jnp.asarray(rel), jnp.asarray(unrel),
                                jnp.float32(0.0 if kappa is None else kappa), jax.random.PRNGKey(seed), start)
    e = int(epochs)
    return TrainResult(np.asarray(w), np.asarray(hist)[:e], np.asarray(etas)[:e], e)
