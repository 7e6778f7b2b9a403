"""repro.search.dedup: near-duplicate groups against a brute force (every couple scored, then a
breadth-first search of the graph of couples scoring >= T), by hand, and its union-find (issue 35, item 3)."""

from __future__ import annotations

import numpy as np
import pytest

from repro.search.dedup import check_threshold, groups, join
from repro.errors import InputError
from repro.core.textmetric import vector_scores


def brute_force(x, threshold, metric):
    """Group of each item: components of the graph whose edges are the couples scoring >= threshold,
    numbered in the order of their first item."""
    x = np.asarray(x, np.float64)
    n = len(x)
    s = vector_scores(np.repeat(x, n, axis=0), np.tile(x, (n, 1)), metric).reshape(n, n)
    label = np.full(n, -1)
    for start in range(n):
        if label[start] >= 0:
            continue
        label[start], todo = label.max() + 1, [start]
        while todo:
            for j in np.flatnonzero(s[todo.pop()] >= threshold):
                if label[j] < 0:
                    label[j] = label[start]
                    todo.append(j)
    return label


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
def test_groups_match_the_brute_force_whatever_the_blocks(metric):
    rng = np.random.default_rng(0)
    for trial in range(16):
        n, d = int(rng.integers(1, 150)), int(rng.integers(1, 6))
        if trial % 2:  # whole numbers: many exact duplicates and ties at the threshold
            x = rng.integers(-2, 3, (n, d)).astype(np.float32)
        else:
            x = rng.standard_normal((n, d)).astype(np.float32)
        t = float(rng.uniform(0.2, 1.0)) if metric == "cosine" else -float(rng.uniform(0.0, 1.5))
        if trial % 4 == 1:
            t = 1.0 if metric == "cosine" else 0.0  # only identical directions / vectors
        want = brute_force(x, t, metric)
        group, size = groups(x, t, metric, block=int(rng.integers(1, 50)), edge_budget=int(rng.integers(1, 40)))
        np.testing.assert_array_equal(group, want, err_msg=f"trial {trial}, threshold {t}")
        np.testing.assert_array_equal(size, np.bincount(want))


def test_a_chain_joins_items_that_score_below_the_threshold():
    """Single linkage by hand: 0-1 and 1-2 are 0.5 apart, 0-2 is 1.0 apart, 3 is far."""
    x = np.array([[0.0], [0.5], [1.0], [3.0], [0.5]])
    group, size = groups(x, -0.6, "euclidean", block=2)
    assert group.tolist() == [0, 0, 0, 1, 0] and size.tolist() == [4, 1]
    group, size = groups(x, 0.0, "euclidean", block=2)  # identical vectors only: 1 and 4
    assert group.tolist() == [0, 1, 2, 3, 1] and size.tolist() == [1, 2, 1, 1]


def test_the_threshold_is_reached_exactly_below_float32_rounding():
    """Couples 1e-9 apart in cosine: float32 cannot tell which reach the threshold, the groups must."""
    rng = np.random.default_rng(1)
    base = rng.standard_normal(256)
    x = np.vstack([base, base + 1e-5 * rng.standard_normal((60, 256))])
    cos = vector_scores(np.repeat(x[:1], 60, axis=0), x[1:], "cosine")
    t = float(np.sort(cos)[30])  # the median couple with item 0 sits at the threshold
    want = brute_force(x, t, "cosine")
    np.testing.assert_array_equal(groups(x, t, "cosine", block=7)[0], want)
    assert 1 < np.bincount(want).max() < len(x)


def test_join_roots_each_group_at_its_first_item():
    parent = join(np.arange(8), np.array([7, 5, 6, 3]), np.array([5, 6, 2, 7]))
    assert parent.tolist() == [0, 1, 2, 2, 4, 2, 2, 2]  # 2-3-5-6-7 rooted at 2
    star = join(np.arange(6), np.full(5, 5), np.arange(5))
    assert star.tolist() == [0] * 6


@pytest.mark.parametrize("threshold, metric, message", [
    (1.5, "cosine", "threshold: the cosine lies in [-1, 1], got 1.5"),
    (float("nan"), "cosine", "threshold: the cosine lies in [-1, 1], got nan"),
    (0.1, "euclidean", "threshold: scores under euclidean are minus a distance, so at most 0 (0: identical vectors "
                       "only), got 0.1"),
    (float("-inf"), "euclidean", "threshold: scores under euclidean are minus a distance, so at most 0 (0: identical "
                                 "vectors only), got -inf"),
    ("high", "cosine", "threshold: must be a number, got 'high'"),
])
def test_a_threshold_outside_the_metrics_range_is_refused(threshold, metric, message):
    with pytest.raises(InputError) as err:
        check_threshold(threshold, metric)
    assert str(err.value) == message
    with pytest.raises(InputError):
        groups(np.eye(2), threshold, metric)
    assert check_threshold(-1, "cosine") == -1.0 and check_threshold(0, "euclidean") == 0.0
