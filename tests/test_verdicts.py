"""repro.core.verdicts: the seed-aware verdict rule on synthetic seeds with known answers."""

from __future__ import annotations

import numpy as np
import pytest

from repro.core import metrics
from repro.core.verdicts import WORDS, across_sets, seed_verdict, word_of

P_REL, P_UNREL, CLUSTER = 200, 200, 5
LABELS = np.r_[np.ones(P_REL, int), np.zeros(P_UNREL, int)]
GROUPS = np.r_[np.arange(P_REL) // CLUSTER, np.arange(P_UNREL)]  # 40 articles of 5 related couples


def wrong(rate: float, rng) -> np.ndarray:
    """(P,) bool: each couple misclassified with probability ``rate``."""
    return rng.random(LABELS.size) < rate


def seeds(rates_a, rates_b, seed=0):
    """(S, P) wrongs of rows a and b, seed s at error rates rates_a[s], rates_b[s]."""
    rng = np.random.default_rng(seed)
    return np.stack([wrong(r, rng) for r in rates_a]), np.stack([wrong(r, rng) for r in rates_b])


def test_the_words_by_hand():
    assert word_of(-0.03, -0.01, [-0.02, -0.01, -0.03]) == "better"
    assert word_of(0.01, 0.03, [0.02, 0.01, 0.03]) == "worse"
    assert word_of(-0.03, 0.01, [-0.02, -0.01, -0.03]) == "level"  # every seed ahead, but the couples could say otherwise
    assert word_of(-0.03, -0.01, [-0.02, 0.004, -0.03]) == "depends on the seed"
    assert word_of(-0.03, -0.01, [-0.02, 0.0, -0.03]) == "depends on the seed"  # a tie is not ahead
    assert word_of(0.0, 0.0, [0.0]) == "level"
    assert set(WORDS) == {"better", "worse", "level", "depends on the seed"}


def test_a_word_over_sets_of_seeds_is_the_word_every_set_gives():
    assert across_sets(["worse"]) == "worse"
    assert across_sets(["worse", "worse", "worse"]) == "worse"
    assert across_sets(["worse", "level"]) == "depends on the seed"  # seeds 0-4 against seeds 5-9
    assert across_sets(["level", "better"]) == "depends on the seed"
    assert across_sets(["not ranked", "not ranked"]) == "not ranked"
    with pytest.raises(ValueError, match="at least one"):
        across_sets([])


def test_one_seed_is_the_one_run_paired_cluster_bootstrap():
    a, b = seeds([0.08], [0.14])
    v = seed_verdict(a, b, LABELS, GROUPS, n_boot=500, seed=3)
    ref = metrics.paired_bootstrap(a[0], b[0], LABELS, GROUPS, n_boot=500, seed=3)
    assert (v.difference, v.low, v.high) == (ref.difference, ref.low, ref.high)
    assert v.per_seed == (ref.difference,) and v.seeds == 1 and v.n_boot == 500


def test_a_method_better_in_every_run_is_better_and_the_mirror_is_worse():
    a, b = seeds([0.04] * 5, [0.20] * 5)
    v = seed_verdict(a, b, LABELS, GROUPS, n_boot=500)
    assert v.word == "better" and v.high < 0 and all(d < 0 for d in v.per_seed)
    assert v.difference == pytest.approx(np.mean(v.per_seed)) and -0.2 < v.difference < -0.1
    w = seed_verdict(b, a, LABELS, GROUPS, n_boot=500)
    assert w.word == "worse" and w.difference == pytest.approx(-v.difference)


def test_one_lucky_seed_says_better_but_the_seeds_say_level():
    """The truth is level: a and b have the same error on average over runs, but each run is
    lucky for one or the other. Seed 0 alone says "better"; the five seeds do not."""
    rates_a, rates_b = [0.04, 0.16, 0.10, 0.13, 0.07], [0.16, 0.04, 0.10, 0.07, 0.13]
    a, b = seeds(rates_a, rates_b, seed=1)
    alone = seed_verdict(a[:1], b[:1], LABELS, GROUPS, n_boot=500)
    assert alone.word == "better"
    together = seed_verdict(a, b, LABELS, GROUPS, n_boot=500)
    assert together.word == "level" and together.low < 0 < together.high
    assert together.per_seed[0] == alone.difference  # the same run, the same couples
    # each run's own word, from its own column of the same resamples: seed 0 alone said better
    assert together.one_run[0] == alone.word == "better" and together.one_run[1] == "worse"
    for k in range(5):
        own = metrics.paired_bootstrap(a[k], b[k], LABELS, GROUPS, n_boot=500)
        assert together.one_run[k] == ("better" if own.high < 0 else "worse" if own.low > 0 else "level")


def test_ahead_on_average_but_behind_in_one_run_depends_on_the_seed():
    a, b = seeds([0.02, 0.02, 0.02, 0.02, 0.13], [0.20, 0.20, 0.20, 0.20, 0.10], seed=2)
    v = seed_verdict(a, b, LABELS, GROUPS, n_boot=1000)
    assert v.high < 0 and v.per_seed[4] > 0 and v.word == "depends on the seed"


def test_the_interval_widens_with_the_spread_of_the_runs():
    """The same seed-mean difference; the runs that disagree more give the wider interval."""
    base = np.random.default_rng(5)
    b = np.stack([wrong(0.12, base)] * 5)
    close = np.stack([wrong(r, np.random.default_rng(10 + i)) for i, r in enumerate([0.08, 0.09, 0.08, 0.09, 0.08])])
    spread = np.stack([wrong(r, np.random.default_rng(10 + i)) for i, r in enumerate([0.02, 0.15, 0.04, 0.14, 0.07])])
    narrow = seed_verdict(close, b, LABELS, GROUPS, n_boot=1000)
    wide = seed_verdict(spread, b, LABELS, GROUPS, n_boot=1000)
    assert wide.high - wide.low > narrow.high - narrow.low


def test_bad_input_is_refused():
    a, b = seeds([0.1], [0.1])
    with pytest.raises(ValueError, match="level"):
        seed_verdict(a, b, LABELS, level=1.0)
    with pytest.raises(ValueError, match="wrongs_a"):
        seed_verdict(a[0], b[0], LABELS)
    with pytest.raises(ValueError, match="wrongs_a"):
        seed_verdict(a, b[:, :10], LABELS)
