"""Whole clusters dealt into buckets: the one place that decides which couples go together.

A cluster is a set of couples that must not be parted (the couples of one Wikipedia article, or
of one component of related tweets); a bucket is a split (train, test, validation) or a fold
of the kappa search (paper, section 5). :func:`deal` gives each of C clusters of ``sizes``
couples a bucket, aiming at the buckets' ``targets`` (couples per bucket), under one of two
rules, both drawing their only random number from ``rng`` (one ``rng.permutation(C)``, so a
caller's later draws are the same whichever rule ran):

* ``"greedy"`` (the tweet splits, :func:`repro.data.tweets.tweetpairs.component_splits`, and
  the folds, :func:`repro.core.crossval.fold_indices`): the clusters in a drawn order, then sorted
  largest first (a stable sort: ties stay in the drawn order), each to the bucket furthest
  below its target, ties to the lowest bucket. With equal targets (folds) that is the bucket
  with the fewest couples so far.
* ``"cuts"`` (the Wikipedia splits, :func:`repro.data.couples.make_splits`): the clusters in a
  drawn order, cut into consecutive runs at the cluster boundaries nearest to the cumulative
  targets, every bucket holding at least ``least`` clusters.

Each rule is the one its caller used before this module existed, moved here unchanged (tests
compare them with the former functions on random inputs): the committed splits and folds
depend on every draw.
"""

from __future__ import annotations

import numpy as np

#: The rules :func:`deal` knows.
RULES = ("greedy", "cuts")


def deal(sizes, targets, rng: np.random.Generator, rule: str = "greedy", least: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The bucket of every cluster, and the order in which the clusters were dealt.

    Args:
      sizes: (C,) couples per cluster (non-negative integers).
      targets: (B,) couples wanted per bucket; under ``"cuts"`` only their running sums
        before the last bucket matter (the last takes the rest).
      rng: the only source of randomness (one permutation of C).
      rule: ``"greedy"`` or ``"cuts"`` (module docstring).
      least: ``"cuts"`` only: the fewest clusters a bucket gets.
    Returns:
      ((C,) int64 bucket of each cluster, (C,) int64 the clusters in dealt order).
    Raises:
      ValueError for an unknown rule, or under ``"cuts"`` when C clusters cannot give every
      bucket ``least`` of them.
    """
    sizes = np.asarray(sizes, np.int64)
    if rule == "greedy":
        return _greedy(sizes, targets, rng)
    if rule == "cuts":
        return _cuts(sizes, targets, rng, least)
    raise ValueError(f"rule: unknown {rule!r}; expected one of {', '.join(RULES)}")


def _greedy(sizes: np.ndarray, targets, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    order = rng.permutation(sizes.size)
    order = order[np.argsort(-sizes[order], kind="stable")]  # largest first, ties in the drawn order
    need = [int(t) for t in targets]  # Python integers: exact, whatever the sizes
    bucket = np.empty(sizes.size, np.int64)
    for c, size in zip(order.tolist(), sizes[order].tolist()):
        k = need.index(max(need))  # furthest below its target; ties to the lowest bucket
        bucket[c] = k
        need[k] -= size
    return bucket, order


def _cuts(sizes: np.ndarray, targets, rng: np.random.Generator, least: int) -> tuple[np.ndarray, np.ndarray]:
    c = sizes.size
    order = rng.permutation(c)
    position = np.empty(c, np.int64)
    position[order] = np.arange(c)
    cum = np.concatenate([[0], np.cumsum(sizes[order])])  # couples before each boundary
    bounds = np.cumsum(np.asarray(targets, np.int64))[:-1]
    cuts, lo = [], least
    for t in bounds:
        hi = c - least * (len(bounds) - len(cuts))  # leave clusters for every later bucket
        if lo > hi:
            raise ValueError(f"{c} groups cannot fill {len(bounds) + 1} splits")
        b = lo + int(np.argmin(np.abs(cum[lo:hi + 1] - t)))
        cuts.append(b)
        lo = b + least
    return np.searchsorted(np.asarray(cuts), position, side="right").astype(np.int64), order
