"""experiments/fit_curves.py (make fit-curves, issue 59) on a tiny synthetic domain: the curve's
rows, the choice never worse than the start on validation, the verdicts and the generated text."""

from __future__ import annotations

import numpy as np

from experiments import fit_curves, fitcurvesdoc
from repro.core.pairset import PairSet


def couples(rng, n: int, width: int = 6, vocab: int = 60) -> PairSet:
    """Related couples share their first (rarest) word; the others are common words."""
    a = np.sort(rng.integers(20, vocab, (n, width)), axis=1).astype(np.int32)
    b = np.sort(rng.integers(20, vocab, (n, width)), axis=1).astype(np.int32)
    label = (np.arange(n) % 2 == 0).astype(np.int8)
    key = rng.integers(0, 20, n)
    a[:, 0] = key
    b[:, 0] = np.where(label == 1, key, (key + 1 + rng.integers(0, 19, n)) % 20)
    lengths = np.full(n, width, np.int32)
    return PairSet(a, b, lengths, lengths.copy(), label)


def test_a_curve_on_a_tiny_domain(monkeypatch, tmp_path):
    rng = np.random.default_rng(0)
    table = rng.standard_normal((60, 8)).astype(np.float32)
    start = np.linspace(1.0, 0.2, 6).astype(np.float32)
    d = fit_curves.Domain("toy", table, couples(rng, 400), couples(rng, 200), couples(rng, 300), None, start,
                          "a start", 6, "euclidean")
    monkeypatch.setattr(fit_curves, "SIZES", (100,))
    c = fit_curves.curve(d, [0, 1])
    assert [p["size"] for p in c["points"]] == [100, 400] and c["points"][-1]["all"]
    for p in c["points"]:
        assert set(p["mean"]) == set(fit_curves.ROWS) and len(p["runs"]) == 2
        for r in p["runs"]:
            chosen = r["choice"]
            assert r["validation"][chosen] == min(r["validation"].values())  # the least validation error
            assert r["validation"][chosen] <= r["validation"]["start"]
        assert p["verdict"]["start"]["word"] in ("better", "worse", "level", "depends on the seed")
    assert c["points"][0]["runs"][0]["couples"] == 100
    result = {"seeds": [0, 1], "domains": {"toy": c}, "left_out": ["twitter"], "commit": "abc"}
    text = fitcurvesdoc.block(result, "fit.png")
    assert "| toy (a start) | 100 |" in text and "Left out (their files missing on this run): twitter." in text
    assert "taken as independent" in text
    sentence = fitcurvesdoc.sentence(result)
    assert sentence.startswith("Does learning pay? Better than its start") and "toy" in sentence
    fitcurvesdoc.figure(result, str(tmp_path / "f.png"))
    assert (tmp_path / "f.png").stat().st_size > 1000


def test_a_subset_keeps_half_of_each_class():
    labels = np.array([1, 0] * 50 + [0] * 20)
    pick = fit_curves.subset(labels, 40, seed=3)
    assert pick.size == 40 and labels[pick].sum() == 20 and len(set(pick)) == 40
    assert np.array_equal(pick, fit_curves.subset(labels, 40, seed=3))
