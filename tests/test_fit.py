"""repro.core.fit: kappa by cross-validation or given, then Algorithm 1, on couples prepared once."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

from repro.core import crossval, forms
from repro.core.fit import fit, fitting_batch
from repro.core.prepared import prepare
from repro.core.train import TrainConfig, train

from synthetic import signal_pairs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def prepared():
    table, pairs = signal_pairs(n_pairs=800, width=10, informative=3, seed=0, variable=True)
    return prepare(table, pairs, 8)


def test_cv_then_train_on_one_prepared_form(prepared, monkeypatch):
    def no_second_build(*args, **kwargs):
        raise AssertionError("fit must not build the data form again")

    monkeypatch.setattr(forms, "build", no_second_build)
    r = fit(prepared, grid=(5.0, 40.0), folds=3, seed=2, max_epochs=6)
    assert r.loss == "median" and r.kappa_source == "cv" and r.kappa in r.cv.grid
    # the grid, and the kappas the search went on to beyond its edge (each recorded)
    assert r.cv.grid.tolist() == sorted({5.0, 40.0} | set(r.cv.extended.tolist()))
    assert r.cv.errors.shape == (r.cv.grid.size, 3) and r.cv.folds == "couples"
    assert r.kappa == r.cv.grid[int(np.argmin(r.cv.errors.mean(axis=1)))]  # the lowest mean held-out error
    # the final run is Algorithm 1 with the chosen kappa and the same seed, bit for bit
    alone = train(prepared, TrainConfig(max_epochs=6), r.kappa, seed=2)
    assert r.weights.tobytes() == alone.weights.tobytes() and r.epochs == alone.epochs
    # and the search is select_kappa on the same prepared couples
    cv = crossval.select_kappa(prepared, (5.0, 40.0), folds=3, config=TrainConfig(max_epochs=6), seed=2)
    np.testing.assert_array_equal(cv.errors, r.cv.errors)
    assert r.kappa == cv.kappa and list(r.seconds) == ["prepare", "kappa_cv", "train"]
    assert r.seed == 2 and r.train_pairs == 800 and r.batch_related == 50 and r.lam == 1e-3


def test_given_kappa_and_the_contrastive_loss(prepared):
    given = fit(prepared, kappa=40.0, seed=1, max_epochs=4)
    assert given.cv is None and given.kappa == 40.0 and given.kappa_source == "given"
    assert given.seconds["kappa_cv"] < 0.05  # no search ran
    other = fit(prepared, kappa=40.0, kappa_source="model", seed=1, max_epochs=4)
    assert other.kappa_source == "model" and other.weights.tobytes() == given.weights.tobytes()
    c = fit(prepared, "contrastive", seed=1, max_epochs=4)
    assert c.loss == "contrastive" and c.kappa is None and c.kappa_source == "none" and c.cv is None


def test_bad_arguments(prepared):
    with pytest.raises(ValueError, match="the contrastive loss has no kappa"):
        fit(prepared, "contrastive", 40.0)
    with pytest.raises(ValueError, match="loss must be one of"):
        fit(prepared, "hinge")
    with pytest.raises(ValueError, match="kappa must be a positive number"):
        fit(prepared, kappa=-1.0)
    with pytest.raises(ValueError, match="kappa_source"):
        fit(prepared, kappa_source="model")
    with pytest.raises(ValueError, match="kappa_source"):
        fit(prepared, kappa=40.0, kappa_source="cv")


def test_batches_shrink_to_what_a_small_set_allows():
    table, pairs = signal_pairs(n_pairs=60, width=10, seed=3)
    r = fit(prepare(table, pairs), grid=(40.0,), folds=5, max_epochs=3)
    assert r.batch_related == 24  # 30 per class: 6 per fold, 4 folds to train on
    assert fit(prepare(table, pairs), kappa=40.0, max_epochs=3).batch_related == 30


def test_fit_is_the_one_way_through_training():
    """Only repro.core.fit chains the kappa search and Algorithm 1; the callers go through it."""
    callers = {}
    for part in ("repro", "experiments", "benchmarks"):
        for folder, _, files in os.walk(os.path.join(ROOT, part)):
            for f in files:
                if f.endswith(".py"):
                    path = os.path.relpath(os.path.join(folder, f), ROOT)
                    callers[path] = open(os.path.join(ROOT, path), encoding="utf-8").read()
    search = sorted(p for p, text in callers.items() if re.search(r"\bselect_kappa\(", text))
    assert search == ["repro/core/crossval.py", "repro/core/fit.py"]
    final = sorted(p for p, text in callers.items() if re.search(r"(?<![\w.])(?<!def )train\(prepared", text))
    assert final == ["repro/core/fit.py"]
    for path in ("repro/encode/encoder.py", "experiments/train_weights.py"):
        assert re.search(r"\bfit\(prepared", callers[path]), path
    assert "enc.fit(" in callers["repro/commands/learn.py"]


def test_grouped_folds_reach_the_search_and_can_shrink_the_batch():
    """30 related couples in clusters of 10, 5, 5, 5, 5 make 5 folds of 10, 5, 5, 5, 5, trimmed
    to 5 each: training folds of 20 related couples, so batches of 20 instead of the 24 that
    folds of single couples allow; the search runs on those grouped folds."""
    table, pairs = signal_pairs(n_pairs=60, width=10, seed=3)
    prepared = prepare(table, pairs)
    rel = np.flatnonzero(prepared.labels == 1)
    groups = np.arange(60) + 100  # the unrelated couples: ids of no cluster
    groups[rel] = np.repeat([0, 1, 2, 3, 4], [10, 5, 5, 5, 5])
    r = fit(prepared, grid=(40.0,), folds=5, max_epochs=3, groups=groups)
    assert r.batch_related == 20 and r.cv.folds == "grouped"
    config = TrainConfig(batch_related=r.batch_related, max_epochs=3)
    cv = crossval.select_kappa(prepared, (40.0,), folds=5, config=config, groups=groups)
    np.testing.assert_array_equal(cv.errors, r.cv.errors)
    plain = crossval.select_kappa(prepared, (40.0,), folds=5, config=config)
    assert not np.array_equal(plain.errors, r.cv.errors)


def test_fitting_batch_shrinks_to_what_the_classes_allow():
    labels = np.array([1] * 7 + [0] * 9)
    assert fitting_batch(labels, 50) == 7  # the smaller class
    assert fitting_batch(labels, 50, folds=5) == 4  # a training fold holds 4 folds of 7 // 5 = 1
    assert fitting_batch(np.array([1] * 500 + [0] * 500), 50, folds=5) == 50
    with pytest.raises(ValueError, match="too few to train with 5-fold"):
        fitting_batch(np.array([1] * 4 + [0] * 9), 50, folds=5)
