"""Issue 59: a warm start and a choice on validation couples (repro.core.warmstart,
repro.encode.fitchoice), with known answers on tiny synthetic couples."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from repro.core import warmstart
from repro.core.model import interpolated_weights
from repro.encode import fitchoice
from repro.encode.encoder import Encoder

WORDS = [f"w{i}" for i in range(40)]


@pytest.fixture(scope="module")
def matrix():
    return np.random.default_rng(0).standard_normal((len(WORDS), 6)).astype(np.float32)


def couples_of(seed: int, n: int = 400, noise: bool = False):
    """Related couples share their rarest word (w0..w19); the rest are common words (w20..)."""
    rng = np.random.default_rng(seed)
    couples, labels = [], []
    for i in range(n):
        key = WORDS[i % 20]
        other = WORDS[(i + 1 + rng.integers(19)) % 20]
        related = i % 2 == 0
        couples.append(([key] + list(rng.choice(WORDS[20:], 9)), [key if related else other] + list(rng.choice(WORDS[20:], 9))))
        labels.append(int(rng.integers(2)) if noise else int(related))
    return couples, labels


def encoder(matrix, n_max: int = 10, weights=None):
    rng = np.random.default_rng(1)
    corpus = [list(rng.choice(WORDS[20:], 6)) for _ in range(200)]  # w0..w19 rare
    return Encoder((WORDS, matrix), corpus=corpus, n_max=n_max, weights=weights)


def test_a_start_of_another_length_is_the_models_own_interpolation(matrix):
    w = np.array([3.0, 1.0, 0.5, 0.25], np.float32)
    start = warmstart.start_weights(w, 7)
    np.testing.assert_array_equal(start, np.asarray(interpolated_weights(w, np.array([7]), 7))[0])
    assert start[0] == 3.0 and start[-1] == 0.25
    # a text of exactly 7 known words gets the same vector from w (4 weights) and from its start (7)
    text = [WORDS[i] for i in (0, 3, 5, 21, 25, 30, 33)]
    short, long_ = encoder(matrix, 4, w), encoder(matrix, 7, start)
    np.testing.assert_allclose(long_.transform([text]), short.transform([text]), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(warmstart.start_weights(w, 4), w)
    with pytest.raises(ValueError, match="init: expected a vector of finite weights"):
        warmstart.start_weights([np.nan, 1.0], 3)


def test_a_warm_start_from_the_optimum_stays_near_it(matrix):
    couples, labels = couples_of(0)
    best = encoder(matrix).fit(couples, labels, kappa=40.0, seed=0).weights_.copy()
    warm = encoder(matrix).fit(couples, labels, kappa=40.0, seed=1, init=best)
    flat = np.full(10, 0.5, np.float32)
    assert warm.fit_report_["start"] == "given weights" and warm.fit_report_["choice"] == "warm"
    # far closer to the optimum it started from than the optimum is to the paper's start
    assert np.linalg.norm(warm.weights_ - best) < 0.25 * np.linalg.norm(best - flat)


def test_the_paper_start_is_todays_fit_bit_for_bit(matrix):
    couples, labels = couples_of(0, 200)
    plain = encoder(matrix).fit(couples, labels, kappa=40.0, seed=3)
    named = encoder(matrix).fit(couples, labels, kappa=40.0, seed=3, init="paper")
    assert plain.weights_.tobytes() == named.weights_.tobytes()
    assert named.fit_report_["choice"] == "paper" and named.fit_report_["candidates"] is None


def test_noise_couples_keep_the_start_and_say_so(matrix):
    good, good_labels = couples_of(0)
    start = encoder(matrix).fit(good, good_labels, kappa=40.0, seed=0).weights_.copy()
    noise, noise_labels = couples_of(5, noise=True)  # labels drawn at random: nothing to learn
    val = couples_of(9, 300)
    enc = encoder(matrix)
    with pytest.warns(UserWarning, match=r"fit: no fit beat the start \(given weights\) on the 300 validation couples"):
        enc.fit(noise, noise_labels, kappa=40.0, seed=0, init=start, validation=val, shrink=(0.5,))
    np.testing.assert_array_equal(enc.weights_, start)
    rep = enc.fit_report_
    assert rep["choice"] == "start" and rep["kept_start"]
    assert set(rep["candidates"]) == {"start", "shrunk-0.5", "warm", "paper"}
    assert rep["validation_error"]["start"] == rep["validation_error"]["result"] == min(rep["candidates"].values())
    assert rep["couples"] == {"train": 400, "validation": 300, "validation_from": "given"}


def test_good_couples_choose_a_fit_over_a_poor_start(matrix):
    couples, labels = couples_of(0)
    poor = np.linspace(-1.0, 1.0, 10).astype(np.float32)  # the rarest word weighed least
    enc = encoder(matrix)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        enc.fit(couples, labels, kappa=40.0, seed=0, init=poor, validation=couples_of(9, 300))
    rep = enc.fit_report_
    assert rep["choice"] in ("warm", "paper") and rep["validation_error"]["result"] < rep["validation_error"]["start"]
    assert abs(enc.weights_[0]) > np.abs(enc.weights_[1:]).mean()  # the rarest word weighs most (its sign cancels)


def test_the_validation_couples_never_train(matrix, monkeypatch):
    from repro.core import prepared as prepared_module

    sizes = []
    real = prepared_module.prepare

    def spy(table, pairs, *args, **kwargs):
        sizes.append(pairs.size)
        return real(table, pairs, *args, **kwargs)

    monkeypatch.setattr(prepared_module, "prepare", spy)
    couples, labels = couples_of(0)
    encoder(matrix).fit(couples, labels, kappa=40.0, seed=2, init=np.ones(10), validation=couples_of(9, 300))
    assert sizes == [400]  # one preparation, of the training couples only: every candidate's fit reads it
    # a held-out share: those couples leave the training set, the same share of each class
    train_c, train_l, val_c, val_l, where = fitchoice.held_out(couples, labels, 0.25, seed=4)
    assert len(val_c) == 100 and int(np.sum(val_l)) == 50 and len(train_c) == 300 and "seed 4" in where
    assert not {id(c) for c in val_c} & {id(c) for c in train_c}
    held = encoder(matrix).fit(couples, labels, kappa=40.0, seed=4, validation=0.25)
    assert sizes[1:] == [300] and held.fit_report_["couples"]["validation"] == 100
    if held.fit_report_["choice"] == "paper":  # the paper's fit among the candidates: the training couples' alone
        alone = encoder(matrix).fit(train_c, train_l, kappa=40.0, seed=4)
        assert held.weights_.tobytes() == alone.weights_.tobytes()


def test_bad_choices_are_one_line_errors(matrix):
    couples, labels = couples_of(0, 40)
    with pytest.raises(ValueError, match="validation: a share of the couples to hold out must lie strictly between 0 and 1"):
        encoder(matrix).fit(couples, labels, kappa=40.0, validation=1.5)
    with pytest.raises(ValueError, match="init: 'nowhere.npz' is neither a weights or encoder file nor one of"):
        encoder(matrix).fit(couples, labels, kappa=40.0, init="nowhere.npz")
    with pytest.raises(ValueError, match="shrink: each coefficient must lie strictly between 0 and 1"):
        encoder(matrix).fit(couples, labels, kappa=40.0, init=np.ones(10), validation=0.3, shrink=(1.5,))
