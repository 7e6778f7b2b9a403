"""The evaluation protocol: optimal split error, JS divergence, binomial test (paper, section 5).

Details the paper leaves open follow the original code (docs/FIDELITY.md): scores are
similarities (higher = more related); validation and test scores are min-max normalised
with the validation minimum and maximum; the threshold is chosen on validation among the
1001 points linspace(0, 1, 1001); the reported error is the balanced test error.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import stats

THRESHOLDS = np.linspace(0.0, 1.0, 1001)


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


def normaliser(val_scores):
    """(lo, hi): the validation minimum and maximum that map scores onto [0, 1]."""
    lo, hi = float(np.min(val_scores)), float(np.max(val_scores))
    if not hi > lo:
        raise ValueError("val_scores: all validation scores are equal; cannot normalise")
    return lo, hi


def normalise(scores, lo: float, hi: float) -> np.ndarray:
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
    lo, hi = normaliser(vs)
    errs = validation_errors(normalise(vs, lo, hi), vy)
    best = np.flatnonzero(errs == errs.min())[-1]  # the largest threshold among ties
    theta = float(THRESHOLDS[best])
    pred = normalise(ts, lo, hi) > theta  # "related" iff score > theta
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


def js_divergence(val_scores, test_scores, test_labels, bins: int = 10000) -> float:
    """Jensen-Shannon divergence (log base 2) between related and unrelated test scores.

    Test scores are normalised with the validation minimum and maximum, binned into
    ``bins`` bins over [-1, 1.5] (values outside are dropped), every bin gets +1 and
    each histogram is normalised to sum 1, as the original code.
    """
    vs = np.asarray(val_scores, dtype=np.float64)
    if vs.ndim != 1 or vs.size == 0 or not np.isfinite(vs).all():
        raise ValueError("val_scores must be a non-empty finite 1-D array")
    ts, ty = _scores_labels(test_scores, test_labels, "test_scores")
    if int(bins) < 1:
        raise ValueError(f"bins must be positive, got {bins}")
    lo, hi = normaliser(vs)
    t = normalise(ts, lo, hi)
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
    return float(stats.binomtest(int(errors_b), int(n_b), p0, alternative="two-sided").pvalue)


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
    p = 1.0 if b + c == 0 else float(stats.binomtest(min(b, c), b + c, 0.5, alternative="two-sided").pvalue)
    return p, b, c


def binomial_ci(errors: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) confidence interval of an error rate of ``errors`` out of ``n``.

    With balanced classes, as in every split here, errors / n is the split error itself, so this
    is the interval of the split error: it shows how far a small test split can be trusted.
    """
    if not (0 <= int(errors) <= int(n)) or int(n) < 1:
        raise ValueError(f"errors={errors} and n={n}: need 0 <= errors <= n and n >= 1")
    ci = stats.binomtest(int(errors), int(n)).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


def group_bootstrap_ci(wrong, labels, groups, level: float = 0.95, n_boot: int = 2000,
                       seed: int = 0) -> tuple[float, float]:
    """Percentile interval of the balanced split error (FPR + FNR) / 2 over ``n_boot`` resamples,
    with replacement, of whole ``groups`` of test couples (the threshold stays fixed).

    Couples that share a text are not independent: resampling their groups (the connected
    components of the couples' graph) instead of single couples gives an interval that says so.
    ``wrong`` (P,) bool: misclassified; ``labels`` (P,) 1 related, 0 unrelated; ``groups`` (P,)
    any integer labels. Resamples without a couple of one class are drawn again.
    """
    wrong, labels, groups = np.asarray(wrong, bool), np.asarray(labels) == 1, np.asarray(groups)
    if not (wrong.shape == labels.shape == groups.shape) or wrong.ndim != 1 or wrong.size == 0:
        raise ValueError("wrong, labels and groups must be (P,) arrays of one length P >= 1")
    if not (labels.any() and (~labels).any()):
        raise ValueError("labels: both classes are needed")
    _, inv = np.unique(groups, return_inverse=True)
    g = int(inv.max()) + 1
    fn = np.bincount(inv, weights=wrong & labels, minlength=g)
    fp = np.bincount(inv, weights=wrong & ~labels, minlength=g)
    n_rel = np.bincount(inv, weights=labels, minlength=g)
    n_unrel = np.bincount(inv, weights=~labels, minlength=g)
    rng = np.random.default_rng(seed)
    errors: list[np.ndarray] = []
    while sum(e.size for e in errors) < n_boot:
        counts = np.stack([np.bincount(rng.integers(0, g, g), minlength=g) for _ in range(n_boot)])  # (B, g)
        r, u = counts @ n_rel, counts @ n_unrel
        ok = (r > 0) & (u > 0)
        errors.append(0.5 * ((counts @ fp)[ok] / u[ok] + (counts @ fn)[ok] / r[ok]))
    e = np.concatenate(errors)[:n_boot]
    alpha = (1.0 - level) / 2
    lo, hi = np.quantile(e, [alpha, 1.0 - alpha])
    return float(lo), float(hi)
