"""repro.data.couples: splits by group or by couple, unrelated matching, balance with a dominant group."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from repro.data import couples


def texts(n_pairs, groups_of_pairs, seed=0, width=4):
    """2P distinct packed texts (text i holds word i + 1 and its length), groups per text."""
    g = np.repeat(np.asarray(groups_of_pairs), 2)
    packed = np.zeros((2 * n_pairs, width), np.int32)
    packed[:, 0] = np.arange(1, 2 * n_pairs + 1)
    lengths = np.ones(2 * n_pairs, np.int32)
    return packed, lengths, g


def text_ids(ps, side):
    return (ps.a if side == "a" else ps.b)[:, 0] - 1  # back to the text index


def check_split(ps, groups):
    a, b, rel = text_ids(ps, "a"), text_ids(ps, "b"), ps.label == 1
    assert rel.sum() == (~rel).sum()
    assert (groups[a[rel]] == groups[b[rel]]).all() and (a[rel] // 2 == b[rel] // 2).all()
    assert (groups[a[~rel]] != groups[b[~rel]]).all()  # unrelated: never one group
    same = collections.Counter(np.concatenate([a[rel], b[rel]]).tolist())
    assert same == collections.Counter(np.concatenate([a[~rel], b[~rel]]).tolist())  # the same texts
    assert max(same.values()) == 1  # each text once per class


def test_balance_groups_drops_exactly_the_surplus():
    pair_groups = np.array([0] * 8 + [1] * 2)
    kept = couples.balance_groups(np.arange(10), pair_groups, np.random.default_rng(0))
    # group 0 held 8 of 10 couples; 2*8 - 10 = 6 of them go, then it holds 2 of 4: exactly half
    assert len(kept) == 4 and (pair_groups[kept] == 0).sum() == 2 and {8, 9} <= set(kept.tolist())
    assert couples.balance_groups(np.arange(6), np.array([0, 0, 0, 1, 1, 2]), np.random.default_rng(0)).tolist() == list(range(6))


def test_a_dominant_group_keeps_both_classes_on_the_same_texts():
    """The audit's case: couples lost by the matching must not leave their texts in the other class."""
    rng = np.random.default_rng(0)
    groups_of_pairs = np.array([7] * 60 + list(range(20)))  # group 7 holds 60 of 80 couples
    packed, lengths, groups = texts(80, groups_of_pairs)
    splits, counts, dropped, _ = couples.make_splits(packed, lengths, groups, rng, by="pair")
    assert sum(dropped.values()) > 0
    for name, ps in splits.items():
        check_split(ps, groups)
        assert counts[name]["related"] == counts[name]["unrelated"] == int((ps.label == 1).sum())


@pytest.mark.parametrize("by", couples.SPLIT_BY)
def test_splits_are_disjoint_and_in_proportion(by):
    rng = np.random.default_rng(3)
    groups_of_pairs = rng.integers(0, 200, size=3000)
    packed, lengths, groups = texts(3000, groups_of_pairs)
    splits, counts, dropped, _ = couples.make_splits(packed, lengths, groups, np.random.default_rng(1), by=by)
    assert list(splits) == ["train", "test", "validation"] and sum(dropped.values()) == 0
    seen_text, seen_group = {}, collections.defaultdict(set)
    for name, ps in splits.items():
        check_split(ps, groups)
        for t in np.concatenate([text_ids(ps, "a"), text_ids(ps, "b")]).tolist():
            assert seen_text.setdefault(t, name) == name  # no text in two splits
            seen_group[groups[t]].add(name)
    n = [counts[k]["related"] for k in ("train", "test", "validation")]
    assert sum(n) == 3000
    if by == "pair":
        assert n == couples.split_sizes(3000)
    else:
        assert all(len(s) == 1 for s in seen_group.values())  # no article gives texts to two splits
        sizes = np.bincount(groups_of_pairs, minlength=200)
        for got, want in zip(np.cumsum(n)[:2], np.cumsum(couples.split_sizes(3000))[:2]):
            assert abs(got - want) <= sizes.max()  # a cut lands on the nearest group boundary


def test_group_split_is_seeded():
    packed, lengths, groups = texts(500, np.arange(500) // 7)
    one = couples.make_splits(packed, lengths, groups, np.random.default_rng(5), by="group")[0]
    two = couples.make_splits(packed, lengths, groups, np.random.default_rng(5), by="group")[0]
    other = couples.make_splits(packed, lengths, groups, np.random.default_rng(6), by="group")[0]
    assert all((one[k].a == two[k].a).all() for k in one)
    assert any(one[k].a.shape != other[k].a.shape or (one[k].a != other[k].a).any() for k in one)


def test_too_few_couples_or_groups():
    packed, lengths, groups = texts(2, [0, 1])
    with pytest.raises(ValueError, match="at least 3"):
        couples.make_splits(packed, lengths, groups, np.random.default_rng(0))
    packed, lengths, groups = texts(9, [0, 0, 0, 0, 0, 1, 1, 1, 1])
    with pytest.raises(ValueError, match="groups cannot fill"):
        couples.make_splits(packed, lengths, groups, np.random.default_rng(0), by="group")
    with pytest.raises(ValueError, match="by"):
        couples.make_splits(packed, lengths, groups, np.random.default_rng(0), by="article")


def test_cluster_counts_by_hand():
    clusters, labels = np.array([5, 5, 2, 9, 5, 2, 5]), np.array([1, 1, 1, 0, 0, 0, 1])
    assert couples.cluster_counts(clusters, labels) == {"related_clusters": 2, "largest_cluster_related": 3}
    assert couples.cluster_counts(np.array([4]), np.array([0])) == {"related_clusters": 0, "largest_cluster_related": 0}


@pytest.mark.parametrize("by", couples.SPLIT_BY)
def test_clusters_are_the_group_of_text_a(by):
    """A related couple's cluster is its article; an unrelated one's is text a's article, which
    holds related couples of the same split: no fresh id is needed and no two articles merge."""
    groups_of_pairs = np.array([3, 3, 3, 8, 8, 1, 1, 1, 1, 6, 4, 4, 9, 9, 9, 2, 2, 0, 0, 0, 5, 7, 7, 7])
    packed, lengths, groups = texts(len(groups_of_pairs), groups_of_pairs)
    splits, counts, _, clusters = couples.make_splits(packed, lengths, groups, np.random.default_rng(2), by=by)
    assert list(clusters) == list(splits)
    for name, ps in splits.items():
        a, b, rel = text_ids(ps, "a"), text_ids(ps, "b"), ps.label == 1
        got = clusters[name]
        assert got.dtype == np.int64 and got.shape == ps.label.shape and (got >= 0).all()
        assert (got == groups[a]).all() and (got[rel] == groups[b[rel]]).all()
        assert set(got[~rel].tolist()) <= set(got[rel].tolist())  # text a's article has related couples here
        sizes = collections.Counter(groups[a[rel]].tolist())
        assert counts[name]["related_clusters"] == len(sizes) == counts[name]["groups"]
        assert counts[name]["largest_cluster_related"] == max(sizes.values())


# Digests of make_splits' couples (and of the next draw of its rng) on this input, computed
# before the clusters were added: the clusters take no random draw, so the couples stay the
# same bytes. numpy's Generator streams are stable; a numpy that changed them would fail here.
BEFORE_CLUSTERS = {"group": ("46f5579ab8a5bd77", 870296557), "pair": ("107a4de27831064b", 371580640)}


@pytest.mark.parametrize("by", couples.SPLIT_BY)
def test_couples_are_the_bytes_they_were_before_the_clusters(by):
    import hashlib

    n = 40
    groups = np.repeat(np.arange(n) // 3, 2)
    lengths = np.full(2 * n, 3, np.int32)
    packed = np.arange(2 * n * 4, dtype=np.int32).reshape(2 * n, 4)
    rng = np.random.default_rng(7)
    splits = couples.make_splits(packed, lengths, groups, rng, by=by)[0]
    h = hashlib.sha256()
    for name in sorted(splits):
        for arr in splits[name]:
            h.update(name.encode())
            h.update(np.ascontiguousarray(arr).tobytes())
    assert (h.hexdigest()[:16], int(rng.integers(1 << 30))) == BEFORE_CLUSTERS[by]
