"""kappa by five-fold cross-validation and grid search (paper, section 5.2), on couples prepared once.

The (kappa, fold) trainings run as batched calls of the jitted Algorithm 1, all folds of
``KAPPAS_PER_CALL`` neighbouring kappas per call (the kappas of a fold on its batches, read once
for all of them: :func:`repro.core.train.make_grid_trainer`), and all their held-out distances in
chunks of ``HELD_OUT_CHUNK`` couples. For each fold, weights are trained on the other four folds of the training split
and scored on the held-out fold by its optimal split error (threshold and error both on that
fold, the paper's "optimal split error"). The kappa with the lowest mean error wins; ties go to
the smallest kappa, whatever the order of the grid (:func:`best_kappa`). The training couples
are a :class:`repro.core.prepared.Prepared`: the data form every fold's run reads is the one built once
for the whole training split (folds are index sets into it), and the final run of
:func:`repro.core.fit.fit` reads it too.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from repro import settings
from repro.core import losses, metrics
from repro.core.chunks import host_chunks
from repro.checks import check_groups
from repro.core.clusters import deal
from repro.core.jitting import jit
from repro.core.model import represent_unchecked
from repro.core.prepared import Prepared
from repro.core.train import TrainConfig, check_config, check_distance, make_grid_trainer

KAPPAS_PER_CALL = {"cpu": 2}
"""Kappas trained together in one batched call (with all their folds), by JAX backend; a
backend not listed takes the whole grid in one call. A batched ``while_loop`` runs until its
slowest run stops, and the epochs Algorithm 1 needs fall steeply with kappa (100 at kappa =
10, 9 at 2,560 on wikivar). On the CPU, where each run still costs part of a step, two
neighbouring kappas per call were fastest on the family's grid (wikivar's plain member, 2
cores: 10.2 s against 11.4 s for one call of all five kappas, and for one kappa per call;
14.1 s before the runs of a fold shared their batches' reads); on a GPU the 50 runs cost
about 1.3 times one, so one call is best. The calls share one compiled program. The weights
agree to float32 rounding for any grouping, not bit for bit: the products of a call's
kappas are one contraction."""


EXTEND = 2
"""Kappas the search adds beyond each edge of its grid at most (:func:`beyond_edge`), one at a time
while the winner sits at that edge, each a grid step (the ratio of the two kappas at that end)
further, within [:data:`KAPPA_FLOOR`, :data:`KAPPA_CEILING`]."""
KAPPA_FLOOR, KAPPA_CEILING = 1.0, 20480.0
"""The documented limits of an extended search: below 1 the median loss is nearly linear in the
distances' differences (a few hundredths), above 20,480 (four doublings past the paper grid's
5,120) its sigmoid is a step at float32's resolution of them."""


class CVResult(NamedTuple):
    kappa: float  # the chosen value
    grid: np.ndarray  # (K,) kappa values tried (the grid and any beyond its edges, ascending then)
    errors: np.ndarray  # (K, F) held-out optimal split error per kappa and fold
    epochs: np.ndarray  # (K, F) epochs Algorithm 1 ran
    weights: np.ndarray  # (K, F, n_max) the weights of every run
    extended: tuple = ()  # the kappas tried beyond the grid's edges, in the order they were added


def fold_indices(labels, folds: int, seed: int, groups=None):
    """Per-class folds: (train_rel, train_unrel, held_out) index arrays, each (F, ...).

    ``groups=None``: each class is shuffled from ``seed`` and cut into ``folds`` equal parts
    (a remainder of fewer than ``folds`` couples is left out), so every fold has the same
    shapes. With ``groups`` (P,) int (the cluster of every related couple: its article, or its
    component of related tweet couples; any id for an unrelated couple), whole clusters go to
    one fold (:func:`_grouped_folds`): couples of one article are not independent, and a
    held-out fold that shares articles with its training folds would flatter every kappa.
    """
    if groups is not None:
        return _grouped_folds(np.asarray(labels), folds, seed, groups)
    rng = np.random.default_rng(seed)
    parts = []
    for cls in (1, 0):
        idx = rng.permutation(np.flatnonzero(np.asarray(labels) == cls))
        size = idx.size // folds
        parts.append(idx[: size * folds].reshape(folds, size))
    return _train_and_held(*parts, folds)


def _train_and_held(rel, unrel, folds: int):
    """(F, m) related and (F, n) unrelated fold members -> (train_rel (F, (F-1) m) int32,
    train_unrel (F, (F-1) n) int32, held_out (F, m + n))."""
    train_rel = np.stack([np.concatenate(np.delete(rel, f, axis=0)) for f in range(folds)])
    train_unrel = np.stack([np.concatenate(np.delete(unrel, f, axis=0)) for f in range(folds)])
    held_out = np.concatenate([rel, unrel], axis=1)  # (F, rel + unrel)
    return train_rel.astype(np.int32), train_unrel.astype(np.int32), held_out


def _grouped_folds(labels, folds: int, seed: int, groups):
    """:func:`fold_indices` with whole clusters per fold.

    The distinct groups of the related couples, shuffled from ``seed``, are dealt largest first,
    each to the fold with the fewest related couples so far (ties in the shuffled order, to the
    lowest fold: :func:`repro.core.clusters.deal`, rule ``greedy``); related couples follow their group. An unrelated couple whose group is one of
    those goes with it; the others, shuffled, fill the folds with the fewest unrelated couples.
    Then each fold keeps, per class, as many couples as the smallest fold has (a random choice
    of its own), so every fold has the same shapes, as the batched trainer needs.
    """
    groups = check_groups(groups, labels)
    rng = np.random.default_rng(seed)
    rel, unrel = np.flatnonzero(labels == 1), np.flatnonzero(labels == 0)
    uniq, inv, counts = np.unique(groups[rel], return_inverse=True, return_counts=True)
    if uniq.size < folds:
        raise ValueError(f"groups: {uniq.size} clusters of related couples cannot fill {folds} folds")
    fold_of = deal(counts, [0] * folds, rng, "greedy")[0]  # largest first, ties shuffled, to the emptiest fold
    rel_fold = fold_of[inv.ravel()]
    pos = np.minimum(np.searchsorted(uniq, groups[unrel]), uniq.size - 1)
    known = uniq[pos] == groups[unrel]
    unrel_fold = np.where(known, fold_of[pos], -1)
    rest = rng.permutation(np.flatnonzero(~known))
    unrel_fold[rest] = np.repeat(np.arange(folds), _fill(np.bincount(unrel_fold[known], minlength=folds), rest.size))
    parts = []
    for idx, fold in ((rel, rel_fold), (unrel, unrel_fold)):
        members = [rng.permutation(idx[fold == f]) for f in range(folds)]
        size = min(m.size for m in members)
        parts.append(np.stack([m[:size] for m in members]))
    return _train_and_held(*parts, folds)


def _fill(have, n: int) -> np.ndarray:
    """(F,) how many of ``n`` more items each fold takes so that the counts ``have`` (F,) end as
    even as possible: every fold is raised to a common level L (the highest that ``n`` can pay
    for), and the items left over go one each to the lowest-numbered folds at L."""
    have = np.asarray(have, np.int64)
    lo, hi = int(have.min()), int(have.max()) + n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if np.maximum(0, mid - have).sum() <= n else (lo, mid - 1)
    add = np.maximum(0, lo - have)
    at_level = np.flatnonzero(have + add == lo)
    add[at_level[: n - int(add.sum())]] += 1
    return add


def couple_distances(w, table, a, b, la, lb, kind):
    """(B,) distances of the couples (a, b) (B, W) under weights ``w`` (n_max,), unchecked
    (``kind`` as :func:`repro.core.losses.distance`): the held-out scoring of one fold."""
    return losses.distance(represent_unchecked(w, table, a, la), represent_unchecked(w, table, b, lb), kind)


def padded_chunks(arrays, chunk: int):
    """:func:`repro.core.chunks.host_chunks` with the parts on the device."""
    for s, n, part in host_chunks(arrays, chunk):
        yield s, n, [jnp.asarray(x) for x in part]


HELD_OUT_CHUNK = 8192
"""Held-out couples scored per call: the gathered embeddings of a chunk are 2 x chunk x W x d
floats (400 MB at W = 30, d = 400), whatever the size of the fold."""


@jit(static_argnames="kind")
def _held_out_chunk(w_f, table, a, b, len_a, len_b, kind="euclidean"):
    """(K, n_max) weights of one fold's runs, a chunk of its held-out couples (C, W), (C,)
    -> (K, C) distances (``kind``: Euclidean, or 1 - cos): the chunk's embeddings gathered once,
    shared by the K weight vectors (``vmap``); the same core as :func:`repro.evaluate.scoring.pair_distances`."""
    return jax.vmap(couple_distances, in_axes=(0,) + (None,) * 5 + (None,))(w_f, table, a, b, len_a, len_b, kind)


def held_out_distances(w, table, a, b, len_a, len_b, chunk: int = HELD_OUT_CHUNK, kind: str = "euclidean") -> np.ndarray:
    """Distances (``kind``: "euclidean", or "cosine" for weights learned under it) of every
    held-out fold under every kappa's weights.

    w (K, F, n_max); a, b (F, H, W) and len_a, len_b (F, H) on the host: the held-out couples
    of each fold. -> (K, F, H) float32. Memory is bounded by ``chunk`` couples per call (the
    tail is padded, so one compiled shape serves every call), not by the fold's size.
    """
    w, table = np.asarray(w), jnp.asarray(table)  # a fold's weights are taken on the host (a copy, nothing compiled)
    (k, folds, _), held = w.shape, a.shape[1]
    out = np.empty((k, folds, held), np.float32)
    for f in range(folds):
        for s, n, part in padded_chunks([x[f] for x in (a, b, len_a, len_b)], chunk):
            out[:, f, s:s + n] = np.asarray(_held_out_chunk(w[:, f], table, *part, kind=kind))[:, :n]
    return out


def kappas_per_call(grid_size: int) -> int:
    """The kappas of one batched call of :func:`select_kappa` for a grid of ``grid_size`` on this
    backend (:data:`KAPPAS_PER_CALL`)."""
    return min(KAPPAS_PER_CALL.get(jax.default_backend(), grid_size), grid_size)


def search_calls(grid_size: int) -> int:
    """The batched calls of :func:`select_kappa` for a grid of ``grid_size`` kappas on this backend."""
    return -(-grid_size // kappas_per_call(grid_size))


def select_kappa(prepared: Prepared, grid=settings.KAPPA_GRID, *, folds: int = 5,
                 config: TrainConfig = TrainConfig(), seed: int = 0, groups=None, step=None,
                 extend: int = EXTEND) -> CVResult:
    """Grid search of the median loss's kappa with ``folds``-fold cross-validation on the
    prepared training couples (``config.loss`` must be "median"); with ``groups`` (P,) the
    clusters of the related couples, whole clusters per fold (:func:`fold_indices`).
    Where the winner sits at an edge of the grid, the search goes on beyond it, one grid step at a
    time, up to ``extend`` kappas a side within the limits of :func:`beyond_edge`; the result
    records them (``extended``). ``step()``, if given, is called after each of the
    :func:`search_calls` batched calls of the grid (a progress bar)."""
    if config.loss != "median":
        raise ValueError(f"loss: kappa is the median loss's; the {config.loss!r} loss has none to select")
    check_config(config)
    check_distance(prepared, config)
    grid = np.asarray(grid, dtype=np.float32)
    if grid.ndim != 1 or grid.size == 0 or not np.all(grid > 0):
        raise ValueError("grid must be a non-empty list of positive kappa values")
    if folds < 2:
        raise ValueError(f"folds must be at least 2, got {folds}")
    pairs, data, table, n_max = prepared.pairs, prepared.form, prepared.table, prepared.n_max
    tr_rel, tr_unrel, held = fold_indices(pairs.label, folds, seed, groups)
    if min(tr_rel.shape[1], tr_unrel.shape[1]) < config.batch_related:
        raise ValueError(
            f"pairs: {tr_rel.shape[1]} related and {tr_unrel.shape[1]} unrelated couples per training fold; "
            f"a batch needs {config.batch_related} of each")
    f = folds
    # one key per fold, shared by every kappa: the kappas are compared on the same batches
    pad = (-f) % jax.device_count()  # whole shards: the last fold repeated, its copies dropped
    rel, unrel, keys = (_padded(x, pad) for x in
                        (jnp.asarray(tr_rel), jnp.asarray(tr_unrel), jax.random.split(jax.random.PRNGKey(seed), f)))
    batched = _batched_trainer(config, n_max)
    kind = "cosine" if config.distance == "cosine" else "euclidean"  # sqeuclidean: the same order
    held_rows = [np.asarray(x)[held] for x in pairs[:4]]
    labels = np.asarray(pairs.label)[held]  # (F, H)

    # kappas per call: the grid's, for every call (one compiled program, whose runs are the
    # same bits on any number of devices; a kappa beyond the grid's edge fills its call alone)
    g = kappas_per_call(grid.size)

    def search(kappas: np.ndarray, step=None):
        """(errors (K, F), epochs (K, F), weights (K, F, n_max)) of ``kappas``, ``g`` per call."""
        k = kappas.size
        calls = -(-k // g)
        # the last call repeats the last kappa to keep one compiled shape; its extra runs are dropped
        kap = np.concatenate([kappas, np.repeat(kappas[-1:], calls * g - k)])
        ws, eps = [], []
        for c in range(calls):
            w_c, _, _, ep_c = batched(data, rel, unrel, jnp.asarray(kap[c * g:(c + 1) * g]), keys)  # (F, g, ...)
            ws.append(w_c)  # (F + pad, g, ...): the padding folds dropped on the host below
            eps.append(ep_c)
            if step is not None:  # the call done (JAX dispatches it asynchronously), then one step
                ep_c.block_until_ready()
                step()
        def joined(parts):  # the calls' (F + pad, g, ...) arrays -> (F, K, ...), on the host: copies, nothing compiled
            return np.concatenate([np.asarray(x)[:f] for x in parts], axis=1)[:, :k]

        w = np.ascontiguousarray(joined(ws).transpose(1, 0, 2))  # (K, F, n_max)
        epochs = np.ascontiguousarray(joined(eps).T)  # (K, F)
        # the held-out distances of every (kappa, fold), HELD_OUT_CHUNK couples of a fold per jitted
        # call, scored on the host
        d = held_out_distances(w, table, *held_rows, kind=kind).astype(np.float64)
        errors = np.array([[metrics.split_error(-d[i, j], labels[j], -d[i, j], labels[j])[0] for j in range(f)]
                           for i in range(k)]).reshape(k, f)
        return errors, epochs, np.asarray(w)

    errors, epochs, w = search(grid, step)
    tried, added = grid, []
    for _ in range(2 * extend):  # kappa off the grid's edge: one value further while the winner is at an edge
        new = beyond_edge(tried, best_kappa(tried, errors.mean(axis=1)), grid, extend)
        if new is None:
            break
        e, ep, wk = search(np.asarray([new], np.float32))
        tried, errors, epochs, w = (np.concatenate(x) for x in ((tried, [np.float32(new)]), (errors, e), (epochs, ep), (w, wk)))
        added.append(float(new))
    if added:  # the kappas tried, ascending (the grid's own order kept without extension)
        order = np.argsort(tried, kind="stable")
        tried, errors, epochs, w = tried[order], errors[order], epochs[order], w[order]
    return CVResult(best_kappa(tried, errors.mean(axis=1)), tried, errors, epochs, w, tuple(added))


def beyond_edge(tried, kappa: float, grid, extend: int = EXTEND) -> float | None:
    """The next kappa to try when ``kappa``, the winner of the ``tried`` values (the ``grid`` and
    any added beyond it), sits at an edge of them: one grid step (the ratio of the two kappas at
    that end) beyond that edge, if fewer than ``extend`` were already added on that side of the
    ``grid`` and it stays within [:data:`KAPPA_FLOOR`, :data:`KAPPA_CEILING`]; None otherwise (the
    winner is interior, or a limit is reached)."""
    t, grid = np.sort(np.asarray(tried, np.float64)), np.asarray(grid, np.float64)
    if t.size < 2:
        return None
    if kappa == t[0]:
        new, done = t[0] * t[0] / t[1], int((t < grid.min()).sum())
    elif kappa == t[-1]:
        new, done = t[-1] * t[-1] / t[-2], int((t > grid.max()).sum())
    else:
        return None
    return float(new) if KAPPA_FLOOR <= new <= KAPPA_CEILING and done < extend else None


def _padded(x, pad: int):
    """``x`` with its last row repeated ``pad`` times (axis 0)."""
    return x if pad == 0 else jnp.concatenate([x, jnp.repeat(x[-1:], pad, axis=0)])


@functools.lru_cache(maxsize=None)
def _batched_trainer(config: TrainConfig, n_max: int):
    """Algorithm 1 over the folds and a few kappas: ``batched(data, rel, unrel, kappas, keys)``
    with the folds on axis 0 of ``rel``, ``unrel`` and ``keys``, the (g,) ``kappas`` shared by
    every fold; returns arrays (F, g, ...). Per fold, :func:`repro.core.train.make_grid_trainer`
    runs the kappas on the fold's batches, read once for all of them. On one device, the
    ``vmap`` of it over the folds; on several, one program with the folds split across every
    device JAX sees (a one-axis mesh, the data and kappas replicated).

    Each fold's arithmetic is the same on any number of devices, so the weights are bitwise
    those of one device (tested on 4 forced CPU devices). The same code serves several GPUs,
    and with ``jax.distributed.initialize()`` the devices of several hosts (docs/GPU.md)."""
    devices = jax.devices()
    if len(devices) == 1:
        return jit(jax.vmap(make_grid_trainer(config, n_max, jitted=False), in_axes=(None, 0, 0, None, 0)))
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    mesh = Mesh(np.array(devices), ("folds",))
    folds, replicated = NamedSharding(mesh, PartitionSpec("folds")), NamedSharding(mesh, PartitionSpec())
    whole = jax.vmap(make_grid_trainer(config, n_max, jitted=False), in_axes=(None, 0, 0, None, 0))
    return jit(whole, in_shardings=(replicated, folds, folds, replicated, folds), out_shardings=folds)


TIE_RTOL = 1e-9
"""Mean held-out errors within this relative distance of the lowest one tie: means of the same
fold errors summed in another order differ in the last digits."""


def best_kappa(grid, mean_errors) -> float:
    """The kappa of the lowest mean held-out error; among ties (within a relative
    :data:`TIE_RTOL` of the lowest) the smallest kappa, in whatever order the grid is given."""
    grid, mean_errors = np.asarray(grid), np.asarray(mean_errors)
    return float(grid[np.isclose(mean_errors, mean_errors.min(), rtol=TIE_RTOL, atol=0)].min())
