"""The evaluation protocol: optimal split error, JS divergence, binomial test (paper, section 5).

Details the paper leaves open follow the original code (docs/FIDELITY.md): scores are
similarities (higher = more related); validation and test scores are min-max normalised
with the validation minimum and maximum; the threshold is chosen on validation among the
1001 points linspace(0, 1, 1001); the reported error is the balanced test error.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from repro.checks import check_groups

THRESHOLDS = np.linspace(0.0, 1.0, 1001)


def _binomtest(k: int, n: int, p: float = 0.5, **options):
    """``scipy.stats.binomtest``, imported at its first call: scipy.stats takes half a second of
    CPU to import, and most processes that import this module (training, the commands) test nothing."""
    from scipy.stats import binomtest

    return binomtest(k, n, p, **options)


def _scores_labels(scores, labels, name: str):
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels)
    if s.ndim != 1 or y.shape != s.shape:
        raise ValueError(f"{name}: scores and labels must be 1-D of one length, got {s.shape} and {y.shape}")
    if s.size == 0:
        raise ValueError(f"{name}: no scores")
    if not np.isfinite(s).all():
        raise ValueError(f"{name}: scores contain NaN or infinite values")
    if not np.isin(y, (0, 1)).all():
        raise ValueError(f"{name}: labels must be 0 (unrelated) or 1 (related)")
    y = y.astype(bool)
    if y.all() or not y.any():
        raise ValueError(f"{name}: both related (1) and unrelated (0) couples are needed")
    return s, y


def minmax_bounds(val_scores):
    """(lo, hi): the validation minimum and maximum that map scores onto [0, 1]."""
    lo, hi = float(np.min(val_scores)), float(np.max(val_scores))
    if not hi > lo:
        raise ValueError("val_scores: all validation scores are equal; cannot normalise")
    return lo, hi


def rescale(scores, lo: float, hi: float) -> np.ndarray:
    return (np.asarray(scores, dtype=np.float64) - lo) / (hi - lo)


def validation_errors(val_norm, val_labels) -> np.ndarray:
    """Error at every threshold of :data:`THRESHOLDS`: (#unrelated > t + #related <= t) / N.

    Sorting once and binary-searching each threshold makes this O(N log N).
    """
    pos = np.sort(val_norm[val_labels])
    neg = np.sort(val_norm[~val_labels])
    pos_le = np.searchsorted(pos, THRESHOLDS, side="right")  # related predicted unrelated
    neg_gt = neg.size - np.searchsorted(neg, THRESHOLDS, side="right")  # unrelated predicted related
    return (pos_le + neg_gt) / val_norm.size


class Split(NamedTuple):
    error: float  # balanced test error (FPR + FNR) / 2
    threshold: float  # on the normalised scale
    false_positives: int
    false_negatives: int
    n_related: int
    n_unrelated: int
    wrong: np.ndarray | None = None  # (P,) bool: the test couples misclassified at the threshold

    @property
    def errors(self) -> int:
        """Misclassified test couples (what the binomial test counts)."""
        return self.false_positives + self.false_negatives


def split(val_scores, val_labels, test_scores, test_labels) -> Split:
    """Optimal split point on validation, applied to test; full counts."""
    vs, vy = _scores_labels(val_scores, val_labels, "val_scores")
    ts, ty = _scores_labels(test_scores, test_labels, "test_scores")
    lo, hi = minmax_bounds(vs)
    errs = validation_errors(rescale(vs, lo, hi), vy)
    best = np.flatnonzero(errs == errs.min())[-1]  # the largest threshold among ties
    theta = float(THRESHOLDS[best])
    pred = rescale(ts, lo, hi) > theta  # "related" iff score > theta
    fp = int(np.sum(pred & ~ty))
    fn = int(np.sum(~pred & ty))
    n_rel, n_unrel = int(ty.sum()), int((~ty).sum())
    error = 0.5 * (fp / n_unrel + fn / n_rel)
    return Split(error, theta, fp, fn, n_rel, n_unrel, pred != ty)


def split_error(val_scores, val_labels, test_scores, test_labels) -> tuple[float, float]:
    """(error, threshold): the optimal split error of the paper's section 5.

    Args:
      val_scores, val_labels: validation similarities and labels (1 related, 0 not).
      test_scores, test_labels: test similarities and labels.
    Returns:
      The balanced test error (FPR + FNR) / 2 at the threshold that minimises the
      validation error over linspace(0, 1, 1001) after min-max normalisation with the
      validation extremes (largest threshold among ties), and that threshold.
    """
    s = split(val_scores, val_labels, test_scores, test_labels)
    return s.error, s.threshold


JS_BINS = 10000
"""The paper's (the original code's) number of JS bins over [-1, 1.5]: what the tables use."""
JS_PAPER_COUPLES = 1000
"""Test couples from which ``bins="auto"`` takes the paper's :data:`JS_BINS` (every test split of
Tables 1 and 2 has at least 1,424). Not in the paper."""


def js_bins(n_related: int, n_unrelated: int) -> int:
    """The number of JS bins over [-1, 1.5] of ``bins="auto"``: the paper's :data:`JS_BINS` from
    :data:`JS_PAPER_COUPLES` test couples on; below, 5 ceil(sqrt(m) / 2) for the smaller class's m
    couples, so the normalised validation range [0, 1] holds about sqrt(m) bins (the square-root
    choice of a histogram's bins) with 0 and 1 on bin edges. With 10,000 bins a small test set puts
    nearly every score alone in its bin, and the divergence then depends only on the label counts
    (28 couples: the same value for any model). Not in the paper."""
    n_related, n_unrelated = int(n_related), int(n_unrelated)
    if min(n_related, n_unrelated) < 1:
        raise ValueError(f"js_bins: both classes are needed, got {n_related} related and {n_unrelated} unrelated")
    if n_related + n_unrelated >= JS_PAPER_COUPLES:
        return JS_BINS
    return 5 * math.ceil(math.sqrt(min(n_related, n_unrelated)) / 2)


def js_divergence(val_scores, test_scores, test_labels, bins: int | str = JS_BINS) -> float:
    """Jensen-Shannon divergence (log base 2) between related and unrelated test scores.

    Test scores are normalised with the validation minimum and maximum, binned into
    ``bins`` bins over [-1, 1.5] (values outside are dropped), every bin gets +1 and
    each histogram is normalised to sum 1, as the original code (10,000 bins, the default).
    ``bins="auto"``: :func:`js_bins` of the test couples (the paper's 10,000 from 1,000 couples on).
    """
    vs = np.asarray(val_scores, dtype=np.float64)
    if vs.ndim != 1 or vs.size == 0 or not np.isfinite(vs).all():
        raise ValueError("val_scores must be a non-empty finite 1-D array")
    ts, ty = _scores_labels(test_scores, test_labels, "test_scores")
    if bins == "auto":
        bins = js_bins(int(ty.sum()), int((~ty).sum()))
    if isinstance(bins, str) or int(bins) < 1:
        raise ValueError(f"bins must be a positive number or 'auto', got {bins!r}")
    lo, hi = minmax_bounds(vs)
    t = rescale(ts, lo, hi)
    p = np.histogram(t[ty], bins=int(bins), range=(-1.0, 1.5))[0] + 1.0
    q = np.histogram(t[~ty], bins=int(bins), range=(-1.0, 1.5))[0] + 1.0
    p, q = p / p.sum(), q / q.sum()
    m = 0.5 * (p + q)
    return float(0.5 * np.sum(p * np.log2(p / m)) + 0.5 * np.sum(q * np.log2(q / m)))


def binomial_test(errors_a: int, n_a: int, errors_b: int, n_b: int) -> float:
    """Two-tailed binomial test of method B against method A (paper, section 5.3).

    As the original code: the null rate is A's test error rate counted over all its
    items, and B's error count out of its items is tested against it. Returns the
    p-value.
    """
    for name, k, n in (("a", errors_a, n_a), ("b", errors_b, n_b)):
        if not (0 <= int(k) <= int(n)) or int(n) < 1:
            raise ValueError(f"errors_{name}={k} and n_{name}={n}: need 0 <= errors <= n and n >= 1")
    p0 = errors_a / n_a
    return float(_binomtest(int(errors_b), int(n_b), p0, alternative="two-sided").pvalue)


def mcnemar_test(wrong_a, wrong_b) -> tuple[float, int, int]:
    """Exact McNemar test of two methods scored on the same test couples: (two-sided p-value,
    couples only A got wrong, couples only B got wrong).

    Only the discordant couples count: under the null each is as likely to go either way, so
    the smaller count is tested against Binomial(b + c, 1/2). Unlike :func:`binomial_test`, which
    treats the two error counts as independent samples, this uses the pairing.
    """
    wrong_a, wrong_b = np.asarray(wrong_a, bool), np.asarray(wrong_b, bool)
    if wrong_a.shape != wrong_b.shape or wrong_a.ndim != 1:
        raise ValueError(f"wrong_a {wrong_a.shape} and wrong_b {wrong_b.shape}: need two (P,) arrays of one length")
    b, c = int(np.sum(wrong_a & ~wrong_b)), int(np.sum(~wrong_a & wrong_b))
    p = 1.0 if b + c == 0 else float(_binomtest(min(b, c), b + c, 0.5, alternative="two-sided").pvalue)
    return p, b, c


def binomial_ci(errors: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) confidence interval of an error rate of ``errors`` out of ``n``.

    With balanced classes, as in every split here, errors / n is the split error itself, so this
    is the interval of the split error: it shows how far a small test split can be trusted.
    """
    if not (0 <= int(errors) <= int(n)) or int(n) < 1:
        raise ValueError(f"errors={errors} and n={n}: need 0 <= errors <= n and n >= 1")
    return _exact_interval(int(errors), int(n), float(level))


@functools.lru_cache(maxsize=4096)
def _exact_interval(errors: int, n: int, level: float) -> tuple[float, float]:
    """:func:`binomial_ci`'s interval, computed once per (errors, n, level) in a process: a table
    asks for the same few hundred (two root searches of a few milliseconds each) many times."""
    ci = _binomtest(errors, n).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


MIN_CLUSTERS = 20
"""Effective clusters (:func:`effective_clusters`) below which the percentile cluster bootstrap is
not trusted to rank rows: its intervals undercover with a handful of large clusters."""


def effective_clusters(labels, groups=None) -> float:
    """The effective number of clusters of the related couples, (sum n_g)^2 / sum n_g^2 over the
    sizes n_g of their clusters ``groups`` (P,): the number of equal clusters that would carry
    as much information (Kish's effective sample size of the cluster totals). ``groups=None``:
    every related couple is its own cluster, so it is their count. Not in the paper."""
    labels = np.asarray(labels)
    rel = labels == 1
    if not rel.any():
        raise ValueError("labels: no related couple")
    if groups is None:
        return float(rel.sum())
    sizes = np.unique(np.asarray(groups)[rel], return_counts=True)[1].astype(np.float64)
    return float(sizes.sum() ** 2 / np.square(sizes).sum())


def bootstrap_units(labels, groups=None) -> tuple[np.ndarray, int, int]:
    """The resampling units of the stratified cluster bootstrap: (units (P,) int64, related
    units R, unrelated units U).

    A related couple's unit is its cluster, ``groups`` (P,) (the article it comes from, or its
    component in the graph of related tweet couples): units 0 .. R-1, in the order of the
    sorted group ids. Every unrelated couple is a unit of its own, whatever its group id: units
    R .. R+U-1 in the couples' order. ``groups=None``: every couple is its own unit (couples
    taken as independent). Not in the paper (section 5 reports point errors only).
    """
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size == 0 or not np.isin(labels, (0, 1)).all():
        raise ValueError("labels must be a non-empty (P,) array of 0 (unrelated) and 1 (related)")
    rel = labels == 1
    if not (rel.any() and (~rel).any()):
        raise ValueError("labels: both classes are needed")
    units = np.empty(labels.size, np.int64)
    if groups is None:
        units[rel] = np.arange(int(rel.sum()))
    else:
        groups = check_groups(groups, labels)
        units[rel] = np.unique(groups[rel], return_inverse=True)[1].ravel()
    n_rel = int(units[rel].max()) + 1
    n_unrel = int((~rel).sum())
    units[~rel] = n_rel + np.arange(n_unrel)
    return units, n_rel, n_unrel


BOOT_BLOCK = 1 << 21
"""Unit draws per block of resamples (per class): the (block, units) draw and count matrices
stay about 16 MB each whatever the number of units."""


def bootstrap_split_errors(wrongs, labels, groups=None, n_boot: int = 2000, seed: int = 0) -> np.ndarray:
    """Balanced split errors 0.5 (FP/n_unrelated + FN/n_related) of K rows of one test split
    over ``n_boot`` stratified cluster-bootstrap resamples, the threshold fixed: (n_boot, K),
    or (n_boot,) for one (P,) row.

    ``wrongs`` (K, P) or (P,) bool: the couples each row misclassifies; ``labels`` (P,) 1
    related, 0 unrelated; ``groups`` as :func:`bootstrap_units`. A resample draws R related
    units with replacement among the R related units and U unrelated units among the U
    unrelated ones, so both classes are always present; every row is scored on the same
    resamples (a paired comparison).
    """
    wrongs = np.asarray(wrongs, bool)
    one = wrongs.ndim == 1
    out = _resampled(wrongs[None] if one else wrongs, labels, groups, n_boot, seed)
    return out[:, 0] if one else out


def _resampled(values, labels, groups, n_boot: int, seed: int) -> np.ndarray:
    """(n_boot, K): 0.5 (sum of ``values`` over resampled unrelated couples / U + sum over
    resampled related couples / related couples drawn), for (K, P) ``values`` (0/1 errors, or
    the -1/0/1 differences of two rows: the statistic is linear in them). Per unit the values
    and related couples are summed once (``bincount``); a resample's totals are its vector of
    draw counts per unit times those sums, in blocks of resamples (:data:`BOOT_BLOCK`)."""
    values = np.asarray(values, np.float64)
    units, r, u = bootstrap_units(labels, groups)
    if values.ndim != 2 or values.shape[1] != units.size:
        raise ValueError(f"wrongs: need (P,) or (K, P) with P = {units.size} like labels, got {values.shape}")
    if int(n_boot) < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    rel = np.asarray(labels) == 1
    n_r = np.bincount(units[rel], minlength=r).astype(np.float64)  # (R,) related couples per unit
    fn = np.stack([np.bincount(units[rel], weights=v[rel], minlength=r) for v in values], axis=1)  # (R, K)
    fp = values[:, ~rel].T  # (U, K): an unrelated unit is one couple
    rng = np.random.default_rng(seed)
    block = max(1, BOOT_BLOCK // max(r, u))
    out = np.empty((int(n_boot), values.shape[0]))
    for s in range(0, int(n_boot), block):
        b = min(block, int(n_boot) - s)
        c_r, c_u = _draw_counts(rng, b, r), _draw_counts(rng, b, u)
        out[s:s + b] = 0.5 * ((c_u @ fp) / u + (c_r @ fn) / (c_r @ n_r)[:, None])
    return out


def _draw_counts(rng: np.random.Generator, b: int, n: int) -> np.ndarray:
    """(b, n) float: how often each of n units is drawn in each of b resamples of n draws with
    replacement."""
    draws = rng.integers(0, n, (b, n)) + n * np.arange(b)[:, None]
    return np.bincount(draws.ravel(), minlength=b * n).reshape(b, n).astype(np.float64)


def cluster_bootstrap_ci(wrong, labels, groups=None, level: float = 0.95, n_boot: int = 2000,
                         seed: int = 0) -> tuple[float, float]:
    """Percentile interval of the balanced split error (FPR + FNR) / 2 over ``n_boot``
    stratified cluster-bootstrap resamples of the test couples, the threshold fixed.

    ``wrong`` (P,) bool: misclassified; ``labels`` (P,) 1 related, 0 unrelated; ``groups`` (P,)
    int: the related couples' clusters (:func:`bootstrap_units`), None for independent
    couples. Couples of one article (or one component of related tweet couples) are not
    independent: resampling whole clusters gives an interval that says so. Not in the paper.
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    e = bootstrap_split_errors(wrong, labels, groups, n_boot, seed)
    alpha = (1.0 - level) / 2
    lo, hi = np.quantile(e, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


class PairedDiff(NamedTuple):
    difference: float  # observed split error of row a minus row b
    low: float  # percentile interval of the difference
    high: float
    p_value: float  # two-sided bootstrap p-value of "no difference"
    n_boot: int
    related_units: int  # clusters of related couples resampled


def paired_bootstrap(wrong_a, wrong_b, labels, groups=None, level: float = 0.95, n_boot: int = 2000,
                     seed: int = 0) -> PairedDiff:
    """Split error of row a minus that of row b, scored on the same test couples at fixed
    thresholds, with its stratified cluster-bootstrap percentile interval and two-sided p-value
    min(1, 2 min(share of resampled differences <= 0, share >= 0)).

    ``wrong_a``, ``wrong_b`` (P,) bool; ``labels``, ``groups`` as :func:`cluster_bootstrap_ci`.
    Both rows are scored on the same resamples, so the pairing is kept, as in McNemar's test,
    and whole clusters are resampled, unlike it and the binomial test of section 5.3, which
    take the couples as independent.
    """
    wrong_a, wrong_b = np.asarray(wrong_a, bool), np.asarray(wrong_b, bool)
    if wrong_a.shape != wrong_b.shape or wrong_a.ndim != 1:
        raise ValueError(f"wrong_a {wrong_a.shape} and wrong_b {wrong_b.shape}: need two (P,) arrays of one length")
    return paired_bootstraps(wrong_a[None], wrong_b[None], labels, groups, level, n_boot, seed)[0]


def paired_resamples(wrongs_a, wrongs_b, labels, groups=None, n_boot: int = 2000,
                     seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Split errors of K rows a minus those of K rows b over the same stratified cluster-bootstrap
    resamples of the test couples, the thresholds fixed.

    Args:
      wrongs_a, wrongs_b: (K, P) bool, the couples each row misclassifies.
      labels, groups: (P,), as :func:`cluster_bootstrap_ci`.

    Returns:
      ((n_boot, K) float64 resampled differences, (K,) float64 observed differences).
    """
    a, b = np.asarray(wrongs_a, bool), np.asarray(wrongs_b, bool)
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"wrongs_a {a.shape} and wrongs_b {b.shape}: need two (K, P) arrays of one shape")
    d = _resampled(a.astype(np.float64) - b, labels, groups, n_boot, seed)  # (n_boot, K)
    # a difference is a sum of two fractions with denominators at most P: one that is not 0 is
    # at least 1 / (2 P^2); below 1e-13 it is rounding of an exact 0 (P up to about 2 million)
    d[np.abs(d) < 1e-13] = 0.0
    rel = np.asarray(labels) == 1
    observed = 0.5 * ((a[:, ~rel].mean(axis=1) - b[:, ~rel].mean(axis=1)) + (a[:, rel].mean(axis=1) - b[:, rel].mean(axis=1)))
    return d, observed


def paired_bootstraps(wrongs_a, wrongs_b, labels, groups=None, level: float = 0.95, n_boot: int = 2000,
                      seed: int = 0) -> list[PairedDiff]:
    """:func:`paired_bootstrap` of K couples of rows at once, (K, P) each: every difference on
    the same resamples (the draws depend on the seed and the units only), each as if alone."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    a, b = np.asarray(wrongs_a, bool), np.asarray(wrongs_b, bool)
    d, observed = paired_resamples(a, b, labels, groups, n_boot, seed)
    alpha = (1.0 - level) / 2
    lo, hi = np.quantile(d, [alpha, 1.0 - alpha], axis=0)
    le, ge = np.mean(d <= 0, axis=0), np.mean(d >= 0, axis=0)
    units = bootstrap_units(labels, groups)[1]
    return [PairedDiff(float(observed[k]), float(lo[k]), float(hi[k]), min(1.0, 2.0 * float(min(le[k], ge[k]))),
                       int(n_boot), units) for k in range(a.shape[0])]


def pearson(s, gold) -> float:
    """The Pearson correlation x 100 of the scores ``s`` with ``gold`` (STS's yardstick)."""
    from scipy import stats

    return 100 * float(stats.pearsonr(s, gold)[0])


def _resampled_pearsons(s, gold, idx) -> np.ndarray:
    """(n_boot,) Pearson correlations of the scores ``s`` with ``gold`` over each resample of ``idx``
    (n_boot, P), vectorised."""
    x, y = s[idx], gold[idx]
    x = x - x.mean(axis=1, keepdims=True)
    y = y - y.mean(axis=1, keepdims=True)
    return (x * y).sum(axis=1) / np.sqrt((x * x).sum(axis=1) * (y * y).sum(axis=1))


def _pearson_resamples(size: int, n_boot: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, size, (n_boot, size))


def paired_pearson(s_a, s_b, gold, n_boot: int = 2000, seed: int = 0) -> dict:
    """The paired bootstrap of Pearson(a) - Pearson(b) x 100 over the scored pairs (the same
    resamples for both rows; the pairs taken as independent, as STS-B's sentence pairs are): the
    difference, its 95% percentile interval and its two-sided p-value."""
    from scipy import stats

    s_a, s_b, gold = (np.asarray(x, np.float64) for x in (s_a, s_b, gold))
    idx = _pearson_resamples(gold.size, n_boot, seed)
    d = 100 * (_resampled_pearsons(s_a, gold, idx) - _resampled_pearsons(s_b, gold, idx))
    lo, hi = np.quantile(d, [0.025, 0.975])
    p = min(1.0, 2 * min(float(np.mean(d <= 0)), float(np.mean(d >= 0))))
    obs = 100 * (stats.pearsonr(s_a, gold)[0] - stats.pearsonr(s_b, gold)[0])
    return {"difference": float(obs), "low": float(lo), "high": float(hi), "p_value": p}


def pearson_interval(s, gold, n_boot: int = 2000, seed: int = 0) -> dict:
    """The bootstrap 95% percentile interval of Pearson(s, gold) x 100 over the scored pairs (taken
    as independent), with the same resamples as :func:`paired_pearson` for the same seed."""
    s, gold = np.asarray(s, np.float64), np.asarray(gold, np.float64)
    r = 100 * _resampled_pearsons(s, gold, _pearson_resamples(gold.size, n_boot, seed))
    lo, hi = np.quantile(r, [0.025, 0.975])
    return {"low": float(lo), "high": float(hi)}
