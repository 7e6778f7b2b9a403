"""The stratified cluster bootstrap of the split error and the paired bootstrap of a difference
(repro.core.metrics; not in the paper): exact enumeration of tiny cases, the units, and coverage on a
generative model of clustered errors whose population split error is known."""

import itertools

import numpy as np
import pytest

from repro.core import metrics


def test_units_related_by_cluster_unrelated_one_each():
    labels = np.array([1, 0, 1, 1, 0, 0, 1])
    groups = np.array([9, 9, 4, 9, 4, 7, 2])
    units, r, u = metrics.bootstrap_units(labels, groups)
    # related clusters 2, 4, 9 -> units 0, 1, 2; the unrelated couples follow, one unit each
    assert units.tolist() == [2, 3, 1, 2, 4, 5, 0] and (r, u) == (3, 3)
    units, r, u = metrics.bootstrap_units(labels)  # groups=None: every couple its own unit
    assert units.tolist() == [0, 4, 1, 2, 5, 6, 3] and (r, u) == (4, 3)
    with pytest.raises(ValueError, match="groups must be a"):
        metrics.bootstrap_units(labels, groups[:3])
    with pytest.raises(ValueError, match="groups must be a"):
        metrics.bootstrap_units(labels, groups.astype(float))
    with pytest.raises(ValueError, match="both classes"):
        metrics.bootstrap_units(np.ones(3, int), np.zeros(3, int))


def exact_distribution(wrong, labels, groups):
    """{split error: probability} over every ordered draw of the stratified resample."""
    rel = labels == 1
    clusters = [np.flatnonzero(rel & (groups == g)) for g in np.unique(groups[rel])]
    unrel = np.flatnonzero(~rel)
    dist = {}
    for cs in itertools.product(range(len(clusters)), repeat=len(clusters)):
        idx = np.concatenate([clusters[c] for c in cs])
        fnr = wrong[idx].mean()
        for us in itertools.product(unrel, repeat=len(unrel)):
            e = round(0.5 * (wrong[list(us)].mean() + fnr), 12)
            dist[e] = dist.get(e, 0.0) + 1.0
    total = sum(dist.values())
    return {e: n / total for e, n in dist.items()}


def test_resampled_errors_match_the_exact_enumeration():
    # related clusters A (2 couples, 1 wrong), B (1 couple, right); unrelated: one wrong, two right
    labels = np.array([1, 1, 1, 0, 0, 0])
    groups = np.array([5, 5, 8, 0, 5, 8])  # unrelated ids are ignored, even when they match a cluster
    wrong = np.array([1, 0, 0, 1, 0, 0], bool)
    exact = exact_distribution(wrong, labels, groups)
    e = np.round(metrics.bootstrap_split_errors(wrong, labels, groups, n_boot=40000, seed=3), 12)
    assert set(np.unique(e)) == set(exact)
    for value, p in exact.items():
        assert np.mean(e == value) == pytest.approx(p, abs=0.01)
    # by hand: FNR 1/2 (AA, p 1/4), 1/3 (AB or BA, p 1/2) or 0 (BB, p 1/4); FPR k/3 with
    # k ~ Binomial(3, 1/3). Error 1/3 needs FNR + FPR = 2/3: FNR 1/3 and k = 1, or FNR 0 and k = 2
    assert exact[round(1 / 3, 12)] == pytest.approx(0.5 * 12 / 27 + 0.25 * 6 / 27)
    assert len(exact) == 9  # FNR 0, 1/3, 1/2 plus FPR 0, 1/3, 2/3, 1: 12 sums, 3 of them coincide


def test_two_clusters_known_interval():
    """Related clusters A (10 couples, all wrong) and B (10, all right), 20 unrelated couples
    all right: a resample holds A twice (error 0.5, p 1/4), A and B (0.25, p 1/2) or B twice
    (0, p 1/4), so the 95% percentile interval is [0, 0.5]."""
    labels = np.array([1] * 20 + [0] * 20)
    wrong = np.array([True] * 10 + [False] * 30)
    groups = np.array([7] * 10 + [3] * 10 + list(range(20)))
    lo, hi = metrics.cluster_bootstrap_ci(wrong, labels, groups, n_boot=4000, seed=1)
    assert (lo, hi) == (0.0, 0.5)
    assert metrics.cluster_bootstrap_ci(wrong, labels, groups, n_boot=4000, seed=1) == (lo, hi)  # seeded
    # every couple its own unit: the error is 0.5 K / 20 with K ~ Binomial(20, 1/2) related
    # couples wrong (the unrelated are all right), whose 2.5% and 97.5% quantiles are 6 and 14
    lo1, hi1 = metrics.cluster_bootstrap_ci(wrong, labels, None, n_boot=4000, seed=0)
    assert (lo1, hi1) == (0.5 * 6 / 20, 0.5 * 14 / 20)
    assert metrics.cluster_bootstrap_ci(np.zeros(40, bool), labels, groups) == (0.0, 0.0)
    with pytest.raises(ValueError, match="both classes"):
        metrics.cluster_bootstrap_ci(wrong[:10], labels[:10], groups[:10])
    with pytest.raises(ValueError, match="wrongs: need"):
        metrics.cluster_bootstrap_ci(wrong[:30], labels, groups)


def test_resamples_are_stratified_even_with_one_related_cluster():
    """One related cluster: every resample holds all its couples (FNR fixed at 3/4) and
    exactly 50 unrelated couples, so no resample lacks a class and the error is 3/8 + FPR/2."""
    labels = np.array([1] * 4 + [0] * 50)
    groups = np.array([11] * 4 + [11] * 50)
    wrong = np.array([1, 1, 1, 0] + [1] * 5 + [0] * 45, bool)
    e = metrics.bootstrap_split_errors(wrong, labels, groups, n_boot=3000, seed=0)
    fpr = 2 * e - 0.75
    assert np.all(np.isfinite(e))
    np.testing.assert_allclose(fpr * 50, np.round(fpr * 50), atol=1e-9)  # k of 50 unrelated couples
    assert fpr.mean() == pytest.approx(0.1, abs=0.005)
    # the unrelated couples' group ids are ignored: any ids give the same resamples
    other = metrics.bootstrap_split_errors(wrong, labels, np.r_[[11] * 4, np.arange(50)], n_boot=3000, seed=0)
    np.testing.assert_array_equal(e, other)


def test_many_units_in_blocks(monkeypatch):
    """Blocks of resamples give the same statistic as one block would, in expectation; with
    20,000 units per class the interval takes well under a few seconds and is narrow."""
    rng = np.random.default_rng(0)
    n = 20000
    labels = np.r_[np.ones(2 * n, int), np.zeros(n, int)]
    groups = np.r_[np.arange(2 * n) // 2, np.arange(n)]
    wrong = rng.random(3 * n) < 0.2
    lo, hi = metrics.cluster_bootstrap_ci(wrong, labels, groups, n_boot=500)
    e = metrics.bootstrap_split_errors(wrong, labels, groups, n_boot=1)[0]
    assert lo < 0.2 < hi and hi - lo < 0.015 and 0.18 < e < 0.22
    monkeypatch.setattr(metrics, "BOOT_BLOCK", 10 * n)  # blocks of 10 resamples: draws change, not the law
    lo2, hi2 = metrics.cluster_bootstrap_ci(wrong, labels, groups, n_boot=500)
    assert abs(lo2 - lo) < 0.002 and abs(hi2 - hi) < 0.002


def test_paired_difference_of_a_row_with_itself_is_zero():
    rng = np.random.default_rng(1)
    labels = np.r_[np.ones(300, int), np.zeros(300, int)]
    groups = np.r_[np.arange(300) // 10, np.zeros(300, int)]
    w = rng.random(600) < 0.3
    d = metrics.paired_bootstrap(w, w, labels, groups, n_boot=500)
    assert (d.difference, d.low, d.high, d.p_value) == (0.0, 0.0, 0.0, 1.0)
    assert d.n_boot == 500 and d.related_units == 30


def test_paired_difference_by_hand():
    """Row a misses related cluster A (10 couples) and nothing else; row b misses nothing.
    Observed difference 0.5 * 10/20; a resample holds A 0, 1 or 2 times (p 1/4, 1/2, 1/4):
    differences 0, 0.25, 0.5, so the interval is [0, 0.5] and p = 2 * 1/4."""
    labels = np.array([1] * 20 + [0] * 20)
    groups = np.array([7] * 10 + [3] * 10 + [0] * 20)
    a = np.array([True] * 10 + [False] * 30)
    d = metrics.paired_bootstrap(a, np.zeros(40, bool), labels, groups, n_boot=8000, seed=2)
    assert d.difference == 0.25 and (d.low, d.high) == (0.0, 0.5) and d.related_units == 2
    assert d.p_value == pytest.approx(0.5, abs=0.03)
    # the same resamples for both rows: the interval of b - a is the mirror image
    m = metrics.paired_bootstrap(np.zeros(40, bool), a, labels, groups, n_boot=8000, seed=2)
    assert (m.difference, m.low, m.high, m.p_value) == (-0.25, -0.5, 0.0, d.p_value)
    with pytest.raises(ValueError, match="one length"):
        metrics.paired_bootstrap(a, a[:5], labels, groups)


def clustered_rows(rng, clusters=40, a=0.5, b=1.5, shrink=0.4, q_a=0.2, q_b=0.18):
    """One test split from a model of clustered errors, and its population values.

    Related couples come in ``clusters`` clusters of 1..30 couples; a cluster has an error
    probability p ~ Beta(a, b) and each couple a uniform u: row a misses it when u < p, row b
    when u < shrink * p (so the rows' errors are correlated). As many unrelated couples,
    independent: a misses when u < q_a, b when u < q_b. Sizes and p are independent, so the
    population FNRs (ratios of expectations) are E[p] and shrink E[p]."""
    sizes = rng.integers(1, 31, clusters)
    p = np.repeat(rng.beta(a, b, clusters), sizes)
    n = int(sizes.sum())
    u_r, u_u = rng.random(n), rng.random(n)
    labels = np.r_[np.ones(n, int), np.zeros(n, int)]
    groups = np.r_[np.repeat(np.arange(clusters), sizes), np.arange(n)]
    wrong_a = np.r_[u_r < p, u_u < q_a]
    wrong_b = np.r_[u_r < shrink * p, u_u < q_b]
    mean_p = a / (a + b)
    true_a, true_b = 0.5 * (q_a + mean_p), 0.5 * (q_b + shrink * mean_p)
    return wrong_a, wrong_b, labels, groups, true_a, true_a - true_b


def test_coverage_cluster_bootstrap_versus_per_couple():
    """Over 200 draws of the clustered model, the 95% cluster-bootstrap interval covers the
    population split error about 95% of the time; the per-couple bootstrap of the same data,
    blind to the clusters, is far too narrow. The same for the paired difference of two rows."""
    hits = {"cluster": 0, "couples": 0, "diff_cluster": 0, "diff_couples": 0}
    draws = 200
    for seed in range(draws):
        wa, wb, labels, groups, true_a, true_d = clustered_rows(np.random.default_rng(1000 + seed))
        for name, g in (("cluster", groups), ("couples", None)):
            lo, hi = metrics.cluster_bootstrap_ci(wa, labels, g, n_boot=400, seed=seed)
            hits[name] += lo <= true_a <= hi
            d = metrics.paired_bootstrap(wa, wb, labels, g, n_boot=400, seed=seed)
            hits["diff_" + name] += d.low <= true_d <= d.high
    cover = {k: v / draws for k, v in hits.items()}
    assert 0.88 <= cover["cluster"] <= 0.995, cover
    assert 0.88 <= cover["diff_cluster"] <= 0.995, cover
    assert cover["couples"] < 0.8 and cover["diff_couples"] < 0.8, cover
