"""repro.evaluate.seedrows: a column over seeds, by hand and against the one-run functions."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from repro.core import metrics
from repro.evaluate import seedrows

P = 240  # test couples, half related, in 24 articles of 5 related couples
LABELS = np.r_[np.ones(P // 2, int), np.zeros(P // 2, int)]
GROUPS = np.r_[np.arange(P // 2) // 5, np.arange(P // 2)]


def scores(rng, separation: float) -> dict:
    """One seed's scores of row "a" (related couples above unrelated ones by ``separation``) and
    row "b" (no separation), on validation and test couples."""
    out = {"validation_label": LABELS.copy(), "test_label": LABELS.copy(), "test_group": GROUPS.copy()}
    for split in ("validation", "test"):
        out[f"{split}_a"] = rng.normal(size=P) + separation * LABELS
        out[f"{split}_b"] = rng.normal(size=P)
    return out


def test_a_column_holds_each_seeds_one_run_numbers():
    per_seed = [scores(np.random.default_rng(s), 2.0) for s in range(3)]
    col = seedrows.column(per_seed, (0, 1, 2), ("a", "b"))
    for k, z in enumerate(per_seed):
        sp = metrics.split(z["validation_a"], LABELS, z["test_a"], LABELS)
        assert col.errors["a"][k] == sp.error and (col.wrongs["a"][k] == sp.wrong).all()
        assert col.js["b"][k] == metrics.js_divergence(z["validation_b"], z["test_b"], LABELS)
    rows = seedrows.rows(col)
    e = col.errors["a"]
    assert rows["a"]["split_error"]["mean"] == pytest.approx(e.mean())
    assert rows["a"]["split_error"]["sd"] == pytest.approx(np.sqrt(((e - e.mean()) ** 2).sum() / 2))
    assert (rows["a"]["split_error"]["min"], rows["a"]["split_error"]["max"]) == (e.min(), e.max())
    assert seedrows.rankable(col)  # 24 articles: at least metrics.MIN_CLUSTERS effective ones
    v = seedrows.verdict(col, "a", "b", n_boot=300)
    assert v["word"] == "better" and v["one_run"] == ["better"] * 3 and v["difference"] < -0.2


def test_seeds_on_other_couples_are_refused():
    a, b = scores(np.random.default_rng(0), 1.0), scores(np.random.default_rng(1), 1.0)
    b["test_group"] = GROUPS[::-1].copy()
    with pytest.raises(ValueError, match="seed 7: its test couples are not seed 3's"):
        seedrows.column([a, b], (3, 7), ("a",))
    with pytest.raises(ValueError, match="no seeds"):
        seedrows.column([], (), ("a",))


def test_too_few_clusters_are_not_ranked():
    few = np.r_[np.arange(P // 2) // 30, np.arange(P // 2)]  # 4 articles
    per_seed = [dict(scores(np.random.default_rng(s), 2.0), test_group=few) for s in range(2)]
    col = seedrows.column(per_seed, (0, 1), ("a", "b"))
    assert metrics.effective_clusters(LABELS, few) < metrics.MIN_CLUSTERS and not seedrows.rankable(col)
    assert seedrows.verdict(col, "a", "b", n_boot=200)["word"] == "not ranked"


def test_spread_counts_and_the_unstable_flag_by_hand():
    sp = seedrows.spread([0.10, 0.12, 0.14])
    assert sp["mean"] == pytest.approx(0.12) and sp["sd"] == pytest.approx(0.02)
    assert seedrows.spread([0.3])["sd"] == 0.0
    assert seedrows.counts(["cc", "plain", "cc", "sif", "plain", "cc"]) == [("cc", 3), ("plain", 2), ("sif", 1)]
    assert seedrows.counts(["sif", "cc"]) == [("sif", 1), ("cc", 1)]  # ties: first seen first
    assert seedrows.unstable([0.28, 0.38, 0.30]) and not seedrows.unstable([0.28, 0.30, 0.29])
    assert not seedrows.unstable([0.5])


def test_the_band_is_the_t_prediction_interval_with_a_floor():
    v = np.array([0.10, 0.11, 0.12, 0.13, 0.14])
    lo, hi = seedrows.band(v, level=0.99)
    half = stats.t.ppf(0.995, 4) * v.std(ddof=1) * np.sqrt(1.2)
    assert (lo, hi) == pytest.approx((0.12 - half, 0.12 + half))
    assert seedrows.band([0.2, 0.2, 0.2], floor=1e-4) == pytest.approx((0.2 - 1e-4, 0.2 + 1e-4))
    assert seedrows.band([0.2], floor=0.01) == pytest.approx((0.19, 0.21))


def test_the_sts_word_needs_every_seeds_interval_on_one_side():
    up, down, zero = {"low": 0.2, "high": 1.0}, {"low": -1.0, "high": -0.1}, {"low": -0.3, "high": 0.4}
    assert seedrows.interval_word([up, up, up]) == "better"
    assert seedrows.interval_word([down, down]) == "worse"
    assert seedrows.interval_word([up, zero, up]) == "depends on the seed"
    assert seedrows.interval_word([up, down]) == "depends on the seed"
    assert seedrows.interval_word([zero, zero]) == "level"
