"""repro.evaluate.report.evaluate's bootstrap keys: the cluster interval and the paired bootstrap of every
row against the reference."""

import numpy as np
import pytest

from repro import settings
from repro.core import metrics
from repro.evaluate import report


def scores_of(groups: bool):
    """Validation scores that split perfectly at 0.5; on test, the reference errs on related
    cluster 0 (10 couples), the other row on clusters 0 and 1 (20 couples)."""
    val = np.r_[np.zeros(20), np.ones(20)]
    val_y = np.r_[np.zeros(20, int), np.ones(20, int)]
    test_y = np.r_[np.ones(40, int), np.zeros(40, int)]
    ref = np.r_[np.zeros(10), np.ones(30), np.zeros(40)]
    other = np.r_[np.zeros(20), np.ones(20), np.zeros(40)]
    s = {"validation_label": val_y, "test_label": test_y, "validation_learned_median": val, "validation_mean": val,
         "test_learned_median": ref, "test_mean": other}
    if groups:  # four related clusters of 10; the unrelated couples' ids say nothing
        s["test_group"] = np.r_[np.arange(40) // 10, np.zeros(40, int)]
    return s


@pytest.mark.parametrize("groups", [True, False])
def test_evaluate_pairs_every_row_with_the_reference(groups):
    s = scores_of(groups)
    rows = report.evaluate(s, methods=("learned_median", "mean"))
    ref, other = rows["learned_median"], rows["mean"]
    assert ref["split_error"] == 0.125 and other["split_error"] == 0.25
    d = other["boot_diff_vs_learned_median"]
    assert set(d) == {"difference", "low", "high", "p_value"} and all(type(v) is float for v in d.values())
    assert d["difference"] == 0.125
    g = s.get("test_group")
    wrong_ref, wrong_other = np.arange(80) < 10, np.arange(80) < 20
    want = metrics.paired_bootstrap(wrong_other, wrong_ref, s["test_label"], g)
    assert (d["low"], d["high"], d["p_value"]) == (want.low, want.high, want.p_value)
    assert ref["boot_diff_vs_learned_median"] is None
    if groups:
        # the rows differ on cluster 1 only: a resample's difference is 0.5 * 10 k / 40 with
        # k ~ Binomial(4, 1/4) draws of it; k = 0 with p (3/4)^4, so low = 0 and p = 2 (3/4)^4
        assert ref["boot_units"]["related"] == other["boot_units"]["related"] == 4
        assert ref["split_error_boot95"] == metrics.cluster_bootstrap_ci(wrong_ref, s["test_label"], g)
        assert d["low"] == 0.0 and d["high"] in (0.25, 0.375)
        assert d["p_value"] == pytest.approx(2 * 0.75 ** 4, abs=0.05)
    else:
        # every couple its own unit: the 40 related couples, and the interval a couple bootstrap's
        assert ref["boot_units"]["related"] == 40
        assert ref["split_error_boot95"] == metrics.cluster_bootstrap_ci(wrong_ref, s["test_label"], None)
        assert d["low"] > 0 and d["p_value"] < 0.01  # 10 independent discordant couples of 40


def test_effective_clusters_by_hand():
    labels = np.r_[np.ones(10, int), np.zeros(4, int)]
    groups = np.r_[np.zeros(6, int), np.ones(3, int), [7], [0, 0, 1, 2]]  # related sizes 6, 3, 1; unrelated ids ignored
    assert metrics.effective_clusters(labels, groups) == pytest.approx(100 / (36 + 9 + 1))
    assert metrics.effective_clusters(labels, np.arange(14)) == pytest.approx(10.0)  # 10 clusters of 1
    assert metrics.effective_clusters(labels) == 10.0  # no groups: every related couple its own
    assert metrics.effective_clusters(labels, np.r_[np.zeros(10, int), np.arange(4)]) == 1.0
    with pytest.raises(ValueError, match="no related couple"):
        metrics.effective_clusters(np.zeros(4, int))


def test_best_row_and_the_reference_against_the_best_peer(monkeypatch):
    """Three rows on 40 related couples in 4 clusters: sif errs on cluster 0, the reference on
    clusters 0 and 1, the mean on clusters 0 to 2; sif is best, the reference is compared with it."""
    s = scores_of(True)
    s["test_sif"] = np.r_[np.zeros(10), np.ones(30), np.zeros(40)]
    s["test_learned_median"] = np.r_[np.zeros(20), np.ones(20), np.zeros(40)]
    s["test_mean"] = np.r_[np.zeros(30), np.ones(10), np.zeros(40)]
    s["validation_sif"] = s["validation_mean"]
    rows = report.evaluate(s, methods=("mean", "learned_median", "sif"))
    assert [m for m, r in rows.items() if r["best"]] == ["sif"] and rows["sif"]["boot_diff_vs_best"] is None
    assert rows["learned_median"]["best_peer"] == "sif"
    d = rows["learned_median"]["boot_diff_vs_best_peer"]
    assert d["difference"] == pytest.approx(0.125) and d == rows["learned_median"]["boot_diff_vs_best"]
    assert rows["mean"]["boot_diff_vs_best"]["difference"] == pytest.approx(0.25)
    assert rows["sif"]["boot_units"]["effective_clusters"] == 4.0  # four related clusters of 10
    few = report.findings({"euclidean": {"wiki20": rows}}, {"wiki20": "Wikipedia, 20 words"})
    assert few.startswith("- **Wikipedia, 20 words, Euclidean (the paper's):** lowest split error SIF (peer, not in "
                          "the paper) (12.50%); too few independent clusters to rank (4.0 effective clusters of "
                          "related test couples, fewer than 20")
    assert "level with" not in few and "better than" not in few and "worse than" not in few
    assert "Learned weights, median: not ranked against SIF, the best peer by test error (25.00% against 12.50%" in few
    monkeypatch.setattr(metrics, "MIN_CLUSTERS", 4)  # enough clusters: the rows are ranked
    text = report.findings({"euclidean": {"wiki20": rows}}, {"wiki20": "Wikipedia, 20 words"})
    # four clusters: a resample may skip the clusters where two rows differ, so no row is surely worse
    low = rows["learned_median"]["boot_diff_vs_best"]["low"]
    assert "best row SIF (peer, not in the paper) (12.50%)" in text
    assert ("Learned weights, median" in text.split("level with it")[1]) == (low <= 0)
    assert "Learned weights, median: " + ("level with" if low <= 0 else "worse than") + " SIF, the best peer by test error" \
        in text


def test_ours_against_the_peer_family_chosen_on_validation_and_the_best_peer_by_test():
    """With a peer-family row, each row of ours gets both comparisons: against the peer family's row
    (chosen on validation, whatever its test error) and against the rival of the lowest test error,
    which may be the peer family itself; the verdicts name both, the validation choice first."""
    s = scores_of(False)
    s["test_sif"] = np.r_[np.zeros(10), np.ones(30), np.zeros(40)]
    s["test_peer_best"] = np.r_[np.zeros(25), np.ones(15), np.zeros(40)]
    s["test_learned_median"] = np.r_[np.zeros(20), np.ones(20), np.zeros(40)]
    s["validation_sif"] = s["validation_peer_best"] = s["validation_mean"]
    rows = report.evaluate(s, methods=("mean", "learned_median", "sif", "peer_best"))
    ours = rows["learned_median"]
    assert ours["best_peer"] == "sif" and ours["peer_family"] == "peer_best"
    # of the 40 related test couples ours misses 20, sif 10 and the peer family 25 (balanced error: half the miss rate)
    assert ours["boot_diff_vs_best_peer"]["difference"] == pytest.approx(0.125)
    assert ours["boot_diff_vs_peer_family"]["difference"] == pytest.approx(-0.0625)
    assert "peer_family" not in rows["sif"] and "boot_diff_vs_peer_family" not in rows["mean"]
    text = report.findings({"euclidean": {"wiki20": rows}}, {"wiki20": "Wikipedia, 20 words"})
    family_at = text.index("Learned weights, median: " + ("better than" if ours["boot_diff_vs_peer_family"]["high"] < 0
                                                          else "level with") + " the peers' best configuration chosen on validation")
    assert family_at < text.index("SIF, the best peer by test error")
    md = report.peer_markdown({"wiki20": rows}, {"wiki20": "W"})
    head, _, first = md.splitlines()[:3]
    assert head == ("| Method | W: against the peers' best configuration (validation), points (95%) | W: against the best "
                    "peer by test error, points (95%) |")
    cells = first.split(" | ")
    assert cells == ["| " + settings.LABELS[settings.OURS[0]], "-", "- |"]  # not among the rows
    median = next(ln for ln in md.splitlines() if ln.startswith("| Learned weights, median |")).split(" | ")
    assert median[1] == report.points(ours["boot_diff_vs_peer_family"])
    assert median[2] == report.points(ours["boot_diff_vs_best_peer"]) + " |"
