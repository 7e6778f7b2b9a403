"""Related and unrelated couples with their splits, for any corpus (paper, sections 4.1 and 4.2).

The input is what a corpus-specific stage found: packed token rows of 2P texts, where texts
2k and 2k+1 are related couple k, and a group number per text (the Wikipedia article, say).
:func:`make_splits` cuts the related couples into train, test and validation and builds each
split's unrelated couples from that split's own texts:

* **Splits** in the paper's proportions 1.5 : 1.5 : 1.9 (1.5M : 1.5M : 1.9M couples).
  ``by="group"``: whole groups go to one split (no article gives texts to two splits), with
  the cut points at the group boundaries nearest to those proportions, and at least two groups
  in every split when there are six or more (:func:`repro.core.clusters.deal`, rule ``cuts``); ``by="pair"``: couples
  are shuffled and cut one by one (a paragraph may then give couples to several splits).
* **Unrelated couples**: the 2P texts of a split's P related couples are paired at random,
  never two texts of one group (:func:`match_unrelated`). Both classes then hold exactly the
  same texts; only the pairing differs. When one group holds more than half of a split's
  texts, no such pairing exists: that group's surplus related couples are dropped *before*
  the matching, so that the classes stay balanced and still hold the same texts.
* Labels: 1 related, 0 unrelated. The rows of a split are shuffled.
* **Clusters** (the units a bootstrap resamples, ``groups.npz``): a related couple's is the
  group both texts come from; an unrelated couple's is the group of its text a, which always
  holds related couples of the split (the split's texts are those of its related couples).
  :func:`cluster_counts` counts them. No random draw: the couples are the same with or without.

Every random choice comes from the ``numpy.random.Generator`` passed in.
"""

from __future__ import annotations

import numpy as np

from repro.core.clusters import deal
from repro.core.pairset import PairSet, from_rows

#: Split names and their shares of the related couples (paper: 1.5M, 1.5M, 1.9M).
SPLITS = (("train", 15), ("test", 15), ("validation", 19))
SPLIT_BY = ("group", "pair")


def split_sizes(n: int) -> list[int]:
    """Sizes of train, test, validation for n items in proportions 1.5 : 1.5 : 1.9."""
    total = sum(w for _, w in SPLITS)
    train = n * SPLITS[0][1] // total
    test = n * SPLITS[1][1] // total
    return [train, test, n - train - test]


def match_unrelated(groups: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """Pair up the items (an even number) so that no pair shares a group.

    A random perfect matching, then every pair within one group gets its second item swapped
    with that of a random pair holding neither its group; every swap fixes the bad pair and
    keeps the other one good. Returns ((M, 2) item indices, number of pairs that could not be
    repaired and were dropped; only possible when one group holds over half the items).
    """
    groups = np.asarray(groups)
    order = rng.permutation(len(groups))
    first, second = order[0::2].copy(), order[1::2].copy()
    m = min(len(first), len(second))
    first, second = first[:m], second[:m]
    keep = np.ones(m, dtype=bool)
    for k in np.flatnonzero(groups[first] == groups[second]):
        a = groups[first[k]]
        if groups[second[k]] != a:
            continue  # repaired by an earlier swap
        ok = np.flatnonzero((groups[first] != a) & (groups[second] != a) & keep)
        if ok.size == 0:
            keep[k] = False
            continue
        j = ok[rng.integers(ok.size)]
        second[k], second[j] = second[j], second[k]
    return np.stack([first[keep], second[keep]], axis=1), int((~keep).sum())


def balance_groups(rel: np.ndarray, pair_groups: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The related couples ``rel`` less the surplus of a group holding over half of them.

    A pairing of the 2P texts with no two of one group exists iff no group holds more than P
    texts, i.e. more than half the couples. If group g holds m > P/2 couples, 2m - P of them,
    drawn at random, are dropped: then g holds exactly half. Returns the kept couples, in order.
    """
    if rel.size == 0:
        return rel
    values, counts = np.unique(pair_groups[rel], return_counts=True)
    top = int(np.argmax(counts))
    surplus = 2 * int(counts[top]) - rel.size
    if surplus <= 0:
        return rel
    mine = np.flatnonzero(pair_groups[rel] == values[top])
    drop = rng.choice(mine, size=surplus, replace=False)
    return np.delete(rel, np.sort(drop))


def _assign(pair_groups: np.ndarray, by: str, rng: np.random.Generator) -> list[np.ndarray]:
    """Related couple indices of train, test and validation."""
    n = len(pair_groups)
    if by == "pair":
        perm = rng.permutation(n)
        sizes = split_sizes(n)
        cuts = np.cumsum(sizes)[:-1]
        return np.split(perm, cuts)
    # whole groups, in a random order, cut at the group boundaries nearest the proportions,
    # at least two groups per split where there are enough: unrelated couples need two
    uniq, inverse, counts = np.unique(pair_groups, return_inverse=True, return_counts=True)
    split_of_group, order = deal(counts, split_sizes(n), rng, "cuts", least=2 if len(uniq) >= 2 * len(SPLITS) else 1)
    position = np.empty(len(uniq), np.int64)
    position[order] = np.arange(len(uniq))
    split_of_pair = split_of_group[inverse]
    pair_order = np.argsort(position[inverse], kind="stable")  # groups in their drawn order
    return [pair_order[split_of_pair[pair_order] == k] for k in range(len(SPLITS))]


def cluster_counts(clusters: np.ndarray, labels: np.ndarray) -> dict:
    """Counts of one split's (P,) cluster ids given its (P,) labels (1 related, 0 unrelated):
    ``related_clusters`` (distinct ids among related couples) and ``largest_cluster_related``
    (related couples in the largest of them; 0 without related couples)."""
    rel = np.asarray(clusters)[np.asarray(labels) == 1]
    sizes = np.unique(rel, return_counts=True)[1]
    return {"related_clusters": int(sizes.size), "largest_cluster_related": int(sizes.max(initial=0))}


def make_splits(packed: np.ndarray, lengths: np.ndarray, groups: np.ndarray, rng: np.random.Generator,
                by: str = "group") -> tuple[dict[str, PairSet], dict, dict, dict]:
    """Train, test and validation couples from 2P packed texts (texts 2k, 2k+1 related).

    Args:
      packed: (2P, W) idf-sorted token rows; lengths: (2P,); groups: (2P,) group of each text
        (both texts of a related couple share theirs).
      by: "group" (whole groups per split, the default) or "pair".
    Returns:
      ({split: PairSet}, {split: counts}, {split: related couples dropped for balance},
      {split: (P,) int64 cluster of every couple: the group of its text a}).
    Raises:
      ValueError when there are fewer related couples than splits, or when a split's texts
      all come from one group.
    """
    if by not in SPLIT_BY:
        raise ValueError(f"by: unknown {by!r}; expected one of {', '.join(SPLIT_BY)}")
    n_rel = len(lengths) // 2
    if n_rel < len(SPLITS):
        raise ValueError(f"{n_rel} related couple(s), at least {len(SPLITS)} needed (one per split)")
    pair_groups = np.asarray(groups)[0::2]
    groups = np.asarray(groups)
    chosen, counts, dropped, clusters = {}, {}, {}, {}
    for (name, _), rel in zip(SPLITS, _assign(pair_groups, by, rng)):
        kept = balance_groups(rel, pair_groups, rng)
        dropped[name] = int(rel.size - kept.size)
        rel = kept
        items = np.stack([2 * rel, 2 * rel + 1], axis=1).reshape(-1)  # this split's texts
        matched, lost = match_unrelated(groups[items], rng)
        if len(matched) == 0:
            raise ValueError(f"every text of the {name} split comes from one group")
        assert lost == 0, "balance_groups leaves a pairing across groups"
        unrel_a, unrel_b = items[matched[:, 0]], items[matched[:, 1]]
        a_idx = np.concatenate([2 * rel, unrel_a])
        b_idx = np.concatenate([2 * rel + 1, unrel_b])
        labels = np.concatenate([np.ones(len(rel), np.int8), np.zeros(len(matched), np.int8)])
        shuffle = rng.permutation(len(labels))
        a_idx, b_idx, labels = a_idx[shuffle], b_idx[shuffle], labels[shuffle]
        chosen[name] = a_idx, b_idx, labels
        clusters[name] = groups[a_idx].astype(np.int64)
        counts[name] = {"related": int(labels.sum()), "unrelated": int((labels == 0).sum()),
                        "total": int(len(labels)), "groups": int(len(np.unique(pair_groups[rel]))),
                        **cluster_counts(clusters[name], labels)}
    # every split's couples assembled after the splits are drawn: the rows pass to pairset once
    out = {name: from_rows(packed, lengths, *idx) for name, idx in chosen.items()}
    return out, counts, dropped, clusters
