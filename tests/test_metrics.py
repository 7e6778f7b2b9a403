import numpy as np
import pytest
from scipy import stats

from repro.core import metrics


def brute_split_error(vs, vy, ts, ty):
    lo, hi = vs.min(), vs.max()
    vn, tn = (vs - lo) / (hi - lo), (ts - lo) / (hi - lo)
    best_err, best_t = np.inf, None
    for t in np.linspace(0, 1, 1001):
        err = (np.sum((vn > t) & (vy == 0)) + np.sum((vn <= t) & (vy == 1))) / vn.size
        if err <= best_err:  # the largest threshold among ties
            best_err, best_t = err, t
    pred = tn > best_t
    fpr = np.sum(pred & (ty == 0)) / np.sum(ty == 0)
    fnr = np.sum(~pred & (ty == 1)) / np.sum(ty == 1)
    return (fpr + fnr) / 2, best_t


@pytest.mark.parametrize("seed", range(6))
def test_split_error_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 300
    vy, ty = rng.integers(0, 2, n), rng.integers(0, 2, n)
    vs = rng.normal(size=n) + vy * rng.uniform(0, 2)
    ts = rng.normal(size=n) + ty * rng.uniform(0, 2)
    if seed % 2:  # heavy ties: scores on a coarse grid, some exactly on thresholds
        vs, ts = np.round(vs, 1), np.round(ts, 1)
    err, theta = metrics.split_error(vs, vy, ts, ty)
    ref_err, ref_theta = brute_split_error(vs, vy, ts, ty)
    assert theta == ref_theta
    assert err == pytest.approx(ref_err, abs=1e-15)


def test_split_error_hand_computed():
    # validation normalised scores 0, .25, .5, 1 ; related ones are .5 and 1
    vs = np.array([0.0, 1.0, 2.0, 4.0]); vy = np.array([0, 0, 1, 1])
    # errors are 0 for every threshold in [.25, .5): the largest is 0.499
    err, theta = metrics.split_error(vs, vy, np.array([1.0, 3.0, 2.1, 0.5]), np.array([1, 1, 0, 0]))
    assert theta == pytest.approx(0.499)
    # test normalised .25, .75, .525, .125 -> predictions 0, 1, 1, 0: FNR 1/2, FPR 1/2
    assert err == pytest.approx(0.5)


def test_split_counts():
    s = metrics.split([0, 1, 2, 3], [0, 0, 1, 1], [0, 3, 3, 0], [0, 0, 1, 1])
    assert (s.false_positives, s.false_negatives, s.errors) == (1, 1, 2)
    assert s.error == pytest.approx(0.5)


def test_js_divergence_direct_formula():
    rng = np.random.default_rng(0)
    vs = rng.normal(size=200)
    ts = rng.normal(size=500) * 1.5
    ty = rng.integers(0, 2, 500)
    ts = ts + ty
    bins = 50
    lo, hi = vs.min(), vs.max()
    t = (ts - lo) / (hi - lo)
    edges = np.linspace(-1, 1.5, bins + 1)
    p = np.array([np.sum((t[ty == 1] >= edges[i]) & ((t[ty == 1] < edges[i + 1]) | ((i == bins - 1) & (t[ty == 1] == 1.5)))) for i in range(bins)]) + 1.0
    q = np.array([np.sum((t[ty == 0] >= edges[i]) & ((t[ty == 0] < edges[i + 1]) | ((i == bins - 1) & (t[ty == 0] == 1.5)))) for i in range(bins)]) + 1.0
    p, q = p / p.sum(), q / q.sum()
    js = 0.0
    for pi, qi in zip(p, q):
        js += 0.5 * pi * np.log2(2 * pi / (pi + qi)) + 0.5 * qi * np.log2(2 * qi / (pi + qi))
    assert metrics.js_divergence(vs, ts, ty, bins=bins) == pytest.approx(js, rel=1e-12)


def test_js_divergence_bounds():
    vs = np.array([0.0, 1.0])
    same = metrics.js_divergence(vs, np.array([0.5, 0.5]), np.array([1, 0]), bins=10)
    assert same == pytest.approx(0.0, abs=1e-15)
    apart = metrics.js_divergence(vs, np.r_[np.zeros(10**5), np.ones(10**5)], np.r_[np.zeros(10**5), np.ones(10**5)], bins=10)
    assert 0.99 < apart <= 1.0


def test_js_auto_bins_on_a_hand_computed_case():
    # validation 0 and 1: the test scores are their own normalised values; 1 couple a class: 5 bins
    # of width 0.5 on [-1, 1.5]; related 0.75 in bin 3, unrelated 0.25 in bin 2, +1 in every bin
    assert metrics.js_bins(1, 1) == 5
    p = np.array([1, 1, 1, 2, 1]) / 6
    q = np.array([1, 1, 2, 1, 1]) / 6
    m = (p + q) / 2
    js = 0.5 * np.sum(p * np.log2(p / m)) + 0.5 * np.sum(q * np.log2(q / m))
    assert js == pytest.approx(np.log2(2 / 3) / 6 + np.log2(4 / 3) / 3, rel=1e-12)  # bins 2 and 3 only
    assert metrics.js_divergence([0.0, 1.0], [0.75, 0.25], [1, 0], bins="auto") == pytest.approx(js, rel=1e-12)
    # 0 and 1 lie on bin edges: 5 ceil(sqrt(m) / 2) bins put 2 ceil(sqrt(m) / 2) of them on [0, 1]
    assert [metrics.js_bins(m, m) for m in (1, 4, 5, 14, 16, 17, 499)] == [5, 5, 10, 10, 10, 15, 60]
    assert metrics.js_bins(14, 300) == 10  # the smaller class decides
    with pytest.raises(ValueError, match="bins must be a positive number or 'auto', got 'many'"):
        metrics.js_divergence([0.0, 1.0], [0.75, 0.25], [1, 0], bins="many")


def test_js_on_28_couples_depends_on_the_scores_with_auto_bins_not_only_on_the_labels():
    """Issue 35, item 5: five models on 28 test couples all gave one JS. With 10,000 bins every
    score sits alone in its bin, so the value is a function of the label counts; auto bins tell
    two score sets apart."""
    rng = np.random.default_rng(5)
    labels = np.r_[np.ones(14, int), np.zeros(14, int)]
    val = np.r_[0.0, 1.0, rng.uniform(size=26)]
    good = np.r_[rng.uniform(0.6, 1.0, 14), rng.uniform(0.0, 0.4, 14)]  # separates the classes
    poor = rng.uniform(0.0, 1.0, 28)  # does not
    paper = [metrics.js_divergence(val, s, labels) for s in (good, poor)]
    assert paper[0] == pytest.approx(paper[1], rel=1e-12)  # the defect: the paper's bins cannot tell them apart
    auto = [metrics.js_divergence(val, s, labels, bins="auto") for s in (good, poor)]
    assert metrics.js_bins(14, 14) == 10 and auto[0] > auto[1] + 0.1
    assert auto[0] == metrics.js_divergence(val, good, labels, bins=10)


def test_js_auto_bins_are_the_papers_at_the_size_of_the_tables():
    """Every test split of Tables 1 and 2 has at least 1,424 couples: there auto is the paper's
    10,000 bins, bit for bit, and the default (the tables') is always the paper's."""
    rng = np.random.default_rng(6)
    for n in (1000, 1424, 12000):
        labels = np.r_[np.ones(n // 2, int), np.zeros(n - n // 2, int)]
        val, test = rng.normal(size=300), rng.normal(size=n) + labels
        assert metrics.js_bins(n // 2, n - n // 2) == metrics.JS_BINS == 10000
        paper = metrics.js_divergence(val, test, labels, bins=10000)
        assert metrics.js_divergence(val, test, labels, bins="auto") == paper == metrics.js_divergence(val, test, labels)
    assert metrics.js_bins(499, 500) == 60  # one couple fewer: chosen from the couples


def test_binomial_test():
    # null rate 0.5, B makes 0 errors in 5: two-sided p = 2 * 0.5**5
    assert metrics.binomial_test(5, 10, 0, 5) == pytest.approx(0.0625)
    assert metrics.binomial_test(30, 100, 12, 40) == pytest.approx(stats.binomtest(12, 40, 0.3).pvalue)
    with pytest.raises(ValueError, match="errors_b"):
        metrics.binomial_test(1, 10, 11, 10)


@pytest.mark.parametrize(
    "args, match",
    [
        (([], [], [1.0], [1]), "val_scores: no scores"),
        (([1.0, np.nan], [0, 1], [1.0, 2.0], [0, 1]), "val_scores: scores contain NaN"),
        (([1.0, 2.0], [1, 1], [1.0, 2.0], [0, 1]), "val_scores: both related"),
        (([1.0, 2.0], [0, 1], [1.0, 2.0], [0, 2]), "test_scores: labels must be"),
        (([1.0, 1.0], [0, 1], [1.0, 2.0], [0, 1]), "all validation scores are equal"),
        (([1.0, 2.0], [0, 1, 1], [1.0, 2.0], [0, 1]), "val_scores: scores and labels"),
    ],
)
def test_split_error_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        metrics.split_error(*args)


def test_binomial_ci_is_the_exact_interval():
    from scipy import stats as st

    lo, hi = metrics.binomial_ci(3, 10)
    # Clopper-Pearson by its definition: the beta quantiles
    assert lo == pytest.approx(st.beta.ppf(0.025, 3, 8)) and hi == pytest.approx(st.beta.ppf(0.975, 4, 7))
    assert metrics.binomial_ci(0, 20)[0] == 0.0 and metrics.binomial_ci(20, 20)[1] == 1.0
    with pytest.raises(ValueError):
        metrics.binomial_ci(5, 3)


def test_split_reports_which_test_couples_it_got_wrong():
    val_s, val_y = np.array([0.0, 0.2, 0.8, 1.0]), np.array([0, 0, 1, 1])
    test_s, test_y = np.array([0.1, 0.9, 0.95, 0.3]), np.array([0, 1, 0, 1])
    s = metrics.split(val_s, val_y, test_s, test_y)
    assert s.wrong.tolist() == [False, False, True, True] and s.errors == 2 and s.error == 0.5


def test_mcnemar_counts_only_the_discordant_couples():
    a = np.array([1, 1, 1, 1, 1, 1, 0, 0, 1, 0], bool)
    b = np.array([0, 0, 0, 0, 0, 0, 1, 0, 1, 0], bool)
    p, only_a, only_b = metrics.mcnemar_test(a, b)
    assert (only_a, only_b) == (6, 1)
    # exact two-sided: 2 * P(X <= 1), X ~ Binomial(7, 1/2) = 2 * 8/128
    assert p == pytest.approx(16 / 128)
    assert metrics.mcnemar_test(a, a) == (1.0, 0, 0)
    with pytest.raises(ValueError, match="one length"):
        metrics.mcnemar_test(a, b[:5])
