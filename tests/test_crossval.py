"""Cross-validation folds of whole clusters (repro.core.crossval.fold_indices with groups), the tie
rule of the kappa search, and where train_weights finds the training couples' clusters."""

import numpy as np
import pytest

from repro.core import crossval
from repro.io import store


def old_fold_indices(labels, folds, seed):
    """fold_indices as it was before groups (commit 8129641), verbatim."""
    rng = np.random.default_rng(seed)
    parts = []
    for cls in (1, 0):
        idx = rng.permutation(np.flatnonzero(np.asarray(labels) == cls))
        size = idx.size // folds
        parts.append(idx[: size * folds].reshape(folds, size))
    rel, unrel = parts
    train_rel = np.stack([np.concatenate(np.delete(rel, f, axis=0)) for f in range(folds)])
    train_unrel = np.stack([np.concatenate(np.delete(unrel, f, axis=0)) for f in range(folds)])
    held_out = np.concatenate([rel, unrel], axis=1)
    return train_rel.astype(np.int32), train_unrel.astype(np.int32), held_out


@pytest.mark.parametrize("seed, folds", [(0, 5), (3, 5), (7, 3), (11, 2)])
def test_without_groups_folds_are_unchanged_bit_for_bit(seed, folds):
    labels = np.random.default_rng(seed).integers(0, 2, 137)
    new, old = crossval.fold_indices(labels, folds, seed), old_fold_indices(labels, folds, seed)
    for n, o in zip(new, old):
        assert n.dtype == o.dtype and n.tobytes() == o.tobytes()
    new = crossval.fold_indices(labels, folds, seed, groups=None)
    assert all(n.tobytes() == o.tobytes() for n, o in zip(new, old))


def clustered(seed, clusters=60, unrelated=900):
    """Related couples in clusters of 1..20; a third of the unrelated couples carry the id of a
    related cluster (they must follow it), the others ids of no related cluster."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 21, clusters)
    rel_groups = np.repeat(rng.permutation(1000)[:clusters], sizes)
    unrel_groups = np.where(rng.random(unrelated) < 1 / 3, rng.choice(rel_groups, unrelated),
                            5000 + np.arange(unrelated))
    labels = np.r_[np.ones(rel_groups.size, int), np.zeros(unrelated, int)]
    order = rng.permutation(labels.size)  # classes and clusters interleaved
    return labels[order], np.r_[rel_groups, unrel_groups][order]


@pytest.mark.parametrize("seed", range(4))
def test_grouped_folds_keep_clusters_whole_and_classes_even(seed):
    labels, groups = clustered(seed)
    folds = 5
    tr_rel, tr_unrel, held = crossval.fold_indices(labels, folds, seed, groups)
    rel_groups = set(groups[labels == 1].tolist())
    n_rel, n_unrel = int((labels[held[0]] == 1).sum()), int((labels[held[0]] == 0).sum())
    assert held.shape == (folds, n_rel + n_unrel) and tr_rel.shape == (folds, (folds - 1) * n_rel)
    assert tr_unrel.shape == (folds, (folds - 1) * n_unrel)
    assert len(set(held.ravel().tolist())) == held.size  # held-out folds are disjoint
    fold_of_group = {}
    for f in range(folds):
        assert (labels[held[f]] == 1).sum() == n_rel and (labels[held[f]] == 0).sum() == n_unrel
        assert np.all(labels[tr_rel[f]] == 1) and np.all(labels[tr_unrel[f]] == 0)
        # the training couples are the other folds' held-out couples of each class
        others = np.concatenate([held[g] for g in range(folds) if g != f])
        assert sorted(tr_rel[f].tolist() + tr_unrel[f].tolist()) == sorted(others.tolist())
        for i in held[f]:
            g = int(groups[i])
            if labels[i] == 1 or g in rel_groups:  # related, or unrelated with a related cluster's id
                assert fold_of_group.setdefault(g, f) == f, f"cluster {g} in folds {fold_of_group[g]} and {f}"
    # balanced dealing: trimming to equal shapes loses few couples
    assert folds * n_rel >= 0.85 * (labels == 1).sum() and folds * n_unrel >= 0.95 * (labels == 0).sum()
    same = crossval.fold_indices(labels, folds, seed, groups)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(same, (tr_rel, tr_unrel, held)))  # seeded


def test_grouped_folds_by_hand():
    """Clusters of 5, 4, 3, 3, 2, 1 related couples in 2 folds, largest first to the lighter
    fold: 5 -> A, 4 -> B, 3 -> B (7), 3 -> A (8), 2 -> B (9), 1 -> A (9): 9 and 9, nothing
    trimmed; 10 unrelated couples with ids of no cluster, 5 per fold."""
    sizes = [5, 4, 3, 3, 2, 1]
    labels = np.r_[np.ones(18, int), np.zeros(10, int)]
    groups = np.r_[np.repeat([10, 20, 30, 40, 50, 60], sizes), np.arange(100, 110)]
    for seed in range(5):
        _, _, held = crossval.fold_indices(labels, 2, seed, groups)
        assert held.shape == (2, 14)
        dealt = []
        for f in range(2):
            rel, unrel = held[f][:9], held[f][9:]
            assert np.all(labels[rel] == 1) and np.all(labels[unrel] == 0)
            mine = np.unique(groups[rel])
            assert sorted(rel.tolist()) == np.flatnonzero(np.isin(groups, mine)).tolist()  # whole clusters
            dealt.append(sorted(sizes[g // 10 - 1] for g in mine.tolist()))
        assert sorted(dealt) == [[1, 3, 5], [2, 3, 4]]


def test_fill_evens_the_counts():
    assert crossval._fill([3, 0, 1], 5).tolist() == [0, 3, 2]  # all raised to 3
    assert crossval._fill([3, 0, 1], 6).tolist() == [1, 3, 2]  # one left over: the first fold at 3
    assert crossval._fill([0, 0, 0], 7).tolist() == [3, 2, 2]
    assert crossval._fill([9, 0], 4).tolist() == [0, 4]


def test_grouped_folds_errors():
    labels = np.array([1, 1, 1, 0, 0, 0])
    with pytest.raises(ValueError, match="groups: 2 clusters of related couples cannot fill 3 folds"):
        crossval.fold_indices(labels, 3, 0, np.array([1, 1, 2, 3, 4, 5]))
    with pytest.raises(ValueError, match="groups must be a"):
        crossval.fold_indices(labels, 3, 0, np.arange(5))


def test_means_within_a_relative_1e_9_tie():
    # the same mean summed in another order: they differ in the 12th digit and tie
    assert crossval.best_kappa([20.0, 10.0], [0.1, 0.1 + 1e-12]) == 10.0
    assert crossval.best_kappa([20.0, 10.0], [0.1 + 1e-12, 0.1]) == 10.0
    assert crossval.best_kappa([20.0, 10.0], [0.1, 0.1 + 1e-6]) == 20.0  # a real difference
    assert crossval.best_kappa([5.0, 80.0], [0.4, 0.1]) == 80.0


def test_train_weights_reads_the_training_clusters(tmp_path):
    from experiments.train_weights import train_groups

    (tmp_path / "wiki20").mkdir()
    assert train_groups(str(tmp_path), "wiki20", 4) is None  # no groups.npz
    store.write_npz(str(tmp_path / "wiki20" / "groups.npz"), test=np.arange(3))
    assert train_groups(str(tmp_path), "wiki20", 4) is None  # no train array
    store.write_npz(str(tmp_path / "wiki20" / "groups.npz"), train=np.array([7, 7, 8, 9]), test=np.arange(3))
    assert train_groups(str(tmp_path), "wiki20", 4).tolist() == [7, 7, 8, 9]
    with pytest.raises(Exception, match="groups for the 5 couples of train"):
        train_groups(str(tmp_path), "wiki20", 5)
