"""repro.core.clusters: the one cluster-to-bucket dealer of both corpora's splits and kappa's folds.

Each rule is checked by hand on small cases, and each caller against the function it replaced
(copied below as it stood before the dealer, at f4f52ed) on random inputs: every bucket, every
later draw, bit for bit (the committed splits and folds depend on them).
"""

from __future__ import annotations

import numpy as np
import pytest

from repro.core import crossval
from repro.data import couples
from repro.data.tweets import tweetpairs
from repro.core.clusters import RULES, deal


# ---------------------------------------------------------------------------------------
# the rules by hand
# ---------------------------------------------------------------------------------------

class FixedOrder:
    """A stand-in generator whose one permutation is given."""

    def __init__(self, order):
        self.order, self.calls = np.asarray(order), 0

    def permutation(self, n):
        assert n == self.order.size
        self.calls += 1
        return self.order.copy()


def test_greedy_deals_largest_first_to_the_bucket_furthest_below_its_target():
    sizes = [2, 5, 1, 5, 3]
    rng = FixedOrder([4, 3, 2, 1, 0])  # drawn order; the sort keeps 3 before 1 (both 5)
    bucket, order = deal(sizes, [9, 7], rng, "greedy")
    # 3 (5) -> 0 (need 9, 7 -> 4, 7); 1 (5) -> 1 (4, 2); 4 (3) -> 0 (1, 2); 0 (2) -> 1 (1, 0); 2 (1) -> 0
    assert order.tolist() == [3, 1, 4, 0, 2]
    assert bucket.tolist() == [1, 1, 0, 0, 0]
    assert rng.calls == 1


def test_greedy_with_equal_targets_takes_the_emptiest_bucket_ties_to_the_lowest():
    bucket, _ = deal([4, 4, 4, 1, 1], [0, 0, 0], FixedOrder([0, 1, 2, 3, 4]), "greedy")
    assert bucket.tolist() == [0, 1, 2, 0, 1]


def test_cuts_cut_the_drawn_order_at_the_nearest_boundaries():
    sizes = [3, 1, 4, 1, 5, 9]
    # drawn order 5, 0, 1, 2, 3, 4: running sums 0 9 12 13 17 18 23; targets 10, 8, 5 -> cuts near 10, 18
    bucket, order = deal(sizes, [10, 8, 5], FixedOrder([5, 0, 1, 2, 3, 4]), "cuts")
    assert order.tolist() == [5, 0, 1, 2, 3, 4]
    assert bucket.tolist() == [1, 1, 1, 1, 2, 0]  # 5 | 0 1 2 3 | 4
    # at least two clusters a bucket: the first cut moves to 2, the second to 4..4
    bucket, _ = deal(sizes, [10, 8, 5], FixedOrder([5, 0, 1, 2, 3, 4]), "cuts", least=2)
    assert bucket.tolist() == [0, 1, 1, 2, 2, 0]  # 5 0 | 1 2 | 3 4
    with pytest.raises(ValueError, match="5 groups cannot fill 3 splits"):
        deal(sizes[:5], [1, 1, 1], FixedOrder([0, 1, 2, 3, 4]), "cuts", least=2)


def test_an_unknown_rule_is_named():
    assert RULES == ("greedy", "cuts")
    with pytest.raises(ValueError, match="rule: unknown 'fair'"):
        deal([1], [1], np.random.default_rng(0), "fair")


# ---------------------------------------------------------------------------------------
# the former functions, as they stood
# ---------------------------------------------------------------------------------------

def old_assign(pair_groups, by, rng):
    n = len(pair_groups)
    if by == "pair":
        perm = rng.permutation(n)
        return np.split(perm, np.cumsum(couples.split_sizes(n))[:-1])
    uniq, inverse, counts = np.unique(pair_groups, return_inverse=True, return_counts=True)
    order = rng.permutation(len(uniq))
    position = np.empty(len(uniq), np.int64)
    position[order] = np.arange(len(uniq))
    cum = np.concatenate([[0], np.cumsum(counts[order])])
    targets = np.cumsum(couples.split_sizes(n))[:-1]
    least = 2 if len(uniq) >= 2 * len(couples.SPLITS) else 1
    cuts, lo = [], least
    for t in targets:
        hi = len(uniq) - least * (len(targets) - len(cuts))
        if lo > hi:
            raise ValueError(f"{len(uniq)} groups cannot fill {len(couples.SPLITS)} splits")
        b = lo + int(np.argmin(np.abs(cum[lo:hi + 1] - t)))
        cuts.append(b)
        lo = b + least
    bounds = [0, *cuts, len(uniq)]
    split_of_group = np.searchsorted(np.asarray(bounds[1:-1]), position, side="right")
    split_of_pair = split_of_group[inverse]
    pair_order = np.argsort(position[inverse], kind="stable")
    return [pair_order[split_of_pair[pair_order] == k] for k in range(len(couples.SPLITS))]


def old_component_splits(n, related, seed=0):
    rng = np.random.default_rng(seed)
    comp = tweetpairs.components(n, related)
    per_comp = np.bincount(comp[[i for i, _ in related]], minlength=n) if related else np.zeros(n, np.int64)
    targets = np.array([tweetpairs.paper_split_sizes(len(related))[k] for k in tweetpairs.SPLIT_NAMES], np.float64)
    roots = np.flatnonzero(per_comp)
    roots = roots[rng.permutation(roots.size)]
    roots = roots[np.argsort(-per_comp[roots], kind="stable")]
    fill = np.zeros(3)
    split_of_root = {}
    for r in roots.tolist():
        k = int(np.argmax(targets - fill))
        split_of_root[r] = k
        fill[k] += per_comp[r]
    shares = np.array([size for _, size in tweetpairs.PAPER_SPLITS], np.float64)
    loose = rng.choice(3, size=n, p=shares / shares.sum())
    split = np.array([split_of_root.get(int(c), int(loose[t])) for t, c in enumerate(comp)], np.int8)
    sizes = np.bincount(comp, minlength=n)
    big = int(roots[0]) if roots.size else -1
    names = tweetpairs.SPLIT_NAMES
    info = {"related": {name: int(fill[k]) for k, name in enumerate(names)},
            "tweets": {name: int((split == k).sum()) for k, name in enumerate(names)},
            "components_with_couples": int(roots.size),
            "largest_component": {"couples": int(per_comp[big]) if big >= 0 else 0,
                                  "tweets": int(sizes[big]) if big >= 0 else 0}}
    return split, info


def old_grouped_folds(labels, folds, seed, groups):
    groups = np.asarray(groups)
    rng = np.random.default_rng(seed)
    rel, unrel = np.flatnonzero(labels == 1), np.flatnonzero(labels == 0)
    uniq, inv, counts = np.unique(groups[rel], return_inverse=True, return_counts=True)
    order = rng.permutation(uniq.size)
    order = order[np.argsort(-counts[order], kind="stable")]
    fold_of, load = np.empty(uniq.size, np.int64), [0] * folds
    for g in order.tolist():
        f = load.index(min(load))
        fold_of[g] = f
        load[f] += int(counts[g])
    rel_fold = fold_of[inv.ravel()]
    pos = np.minimum(np.searchsorted(uniq, groups[unrel]), uniq.size - 1)
    known = uniq[pos] == groups[unrel]
    unrel_fold = np.where(known, fold_of[pos], -1)
    rest = rng.permutation(np.flatnonzero(~known))
    unrel_fold[rest] = np.repeat(np.arange(folds), crossval._fill(np.bincount(unrel_fold[known], minlength=folds),
                                                                   rest.size))
    parts = []
    for idx, fold in ((rel, rel_fold), (unrel, unrel_fold)):
        members = [rng.permutation(idx[fold == f]) for f in range(folds)]
        size = min(m.size for m in members)
        parts.append(np.stack([m[:size] for m in members]))
    return crossval._train_and_held(*parts, folds)


def _skewed_groups(rng, n, n_groups):
    """Group ids with sizes from one huge to many singletons, ids not contiguous."""
    ids = rng.choice(10 * n_groups, size=n_groups, replace=False)
    weights = rng.pareto(1.0, n_groups) + 0.1
    return ids[rng.choice(n_groups, size=n, p=weights / weights.sum())]


# ---------------------------------------------------------------------------------------
# each caller against its former function
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("trial", range(40))
def test_the_wikipedia_splits_are_the_former_ones(trial):
    data = np.random.default_rng(1000 + trial)
    n = int(data.integers(3, 400))
    groups = _skewed_groups(data, n, int(data.integers(1, 60)))
    seed = int(data.integers(2**31))
    new_rng, old_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    try:
        want = old_assign(groups, "group", old_rng)
    except ValueError as err:
        with pytest.raises(ValueError, match=str(err)):
            couples._assign(groups, "group", new_rng)
        return
    got = couples._assign(groups, "group", new_rng)
    assert [g.tolist() for g in got] == [w.tolist() for w in want]
    assert new_rng.integers(2**62) == old_rng.integers(2**62)  # the same draws taken


def test_the_wikipedia_splits_whole_are_the_former_ones(monkeypatch):
    data = np.random.default_rng(7)
    width, n_rel = 6, 300
    lengths = data.integers(1, width + 1, 2 * n_rel)
    packed = np.where(np.arange(width) < lengths[:, None], data.integers(0, 50, (2 * n_rel, width)), 0)
    groups = np.repeat(_skewed_groups(data, n_rel, 40), 2)
    got = couples.make_splits(packed, lengths, groups, np.random.default_rng(3))
    monkeypatch.setattr(couples, "_assign", old_assign)
    want = couples.make_splits(packed, lengths, groups, np.random.default_rng(3))
    for name in got[0]:
        for x, y in zip(got[0][name], want[0][name]):
            assert np.asarray(x).tobytes() == np.asarray(y).tobytes()
        assert got[3][name].tobytes() == want[3][name].tobytes()
    assert got[1:3] == want[1:3]


@pytest.mark.parametrize("trial", range(40))
def test_the_tweet_splits_are_the_former_ones(trial):
    data = np.random.default_rng(2000 + trial)
    n = int(data.integers(1, 300))
    m = int(data.integers(0, 2 * n))
    related = [(int(i), int(j)) for i, j in data.integers(0, n, (m, 2)) if i != j]
    # a few big components too: chains through one hub
    if n > 10 and trial % 3 == 0:
        related += [(0, int(j)) for j in data.integers(1, n, n // 3)]
    seed = int(data.integers(2**31))
    split, info = tweetpairs.component_splits(n, related, seed)
    want_split, want_info = old_component_splits(n, related, seed)
    assert split.tobytes() == want_split.tobytes() and split.dtype == want_split.dtype
    assert info == want_info


@pytest.mark.parametrize("trial", range(40))
def test_the_grouped_folds_are_the_former_ones(trial):
    data = np.random.default_rng(3000 + trial)
    p = int(data.integers(20, 500))
    folds = int(data.integers(2, 7))
    labels = (data.random(p) < data.uniform(0.2, 0.8)).astype(np.int8)
    labels[:2] = (1, 0)
    groups = _skewed_groups(data, p, int(data.integers(folds, 80)))
    if trial % 4 == 0:  # unrelated couples of groups without related ones, too
        groups[labels == 0] = data.integers(10_000, 10_050, int((labels == 0).sum()))
    if np.unique(groups[labels == 1]).size < folds:
        return
    seed = int(data.integers(2**31))
    got = crossval.fold_indices(labels, folds, seed, groups)
    want = old_grouped_folds(labels, folds, seed, groups)
    for x, y in zip(got, want):
        assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
