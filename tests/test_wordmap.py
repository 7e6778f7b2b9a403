"""The one registry of named word maps (repro/spaces/wordmap.py, issue 33 item 2): every map against its
formula, what each needs, compositions, and a new entry reaching the family, the peers' grid and
the command line's choices with nothing else edited."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from repro.core import pairset
from repro.evaluate import family, peerfamily
from repro.spaces import transforms, wordmap
from repro.commands.options import add_word_map_options, word_map_options
from tests.synthetic import signal_pairs


@pytest.fixture(scope="module")
def setup():
    table, pairs = signal_pairs(n_pairs=200, width=8, vocab=130, dim=6, seed=4, variable=True)
    counts = np.random.default_rng(8).zipf(1.6, 130).astype(np.int64)
    return table, counts, pairs


def test_each_map_needs_what_its_parts_need():
    needs = {n: set(m.needs) for n, m in wordmap.MAPS.items()}
    assert needs == {"plain": set(), "centre": {"counts"}, "sif": {"counts"}, "usif": {"counts", "length"},
                     "zipf": {"counts"}, "uwhiten": set(), "cc": {"texts"}, "zipf_sif": {"counts"}}
    assert wordmap.MAPS["zipf_sif"].parts == {"scale", "shift", "matrix"} and wordmap.MAPS["cc"].parts == {"matrix"}
    table = np.eye(3, dtype=np.float32)
    for name, message in (("sif", "^counts: "), ("usif", "^usif_length: "), ("cc", "^texts: ")):
        with pytest.raises(ValueError, match=message):
            wordmap.word_map(name, table, None if name != "usif" else np.ones(3))
    with pytest.raises(ValueError, match="word map: unknown 'nope'; expected one of plain, centre"):
        wordmap.word_map("nope", table)


def test_the_family_and_the_peers_grid_read_the_registry():
    assert family.maps() == ("plain", "centre", "sif", "usif", "zipf", "cc", "zipf_sif")  # the tables' order
    assert peerfamily.MAPS == ("none", "centre", "zipf", "uwhiten")
    assert [w for w, _ in peerfamily.WEIGHTINGS] == ["mean", "sif", "sif", "sif", "usif"]
    assert peerfamily.Config("mean", None, "uwhiten", 0).label == "mean, uniformly whitened"
    assert family.Member("zipf_sif", "cosine").label == \
        "on Zipfian-whitened, SIF-weighted word vectors under 1 - cos"
    # the Encoder options of each map name it back
    for name, m in wordmap.MAPS.items():
        assert wordmap.of(**m.options()) is m, name


def test_uniform_whitening_and_a_composition_against_their_formulas(setup):
    table, counts, pairs = setup
    t = wordmap.word_map("uwhiten", table, None)
    x = np.asarray(table, np.float64)
    mu = x.mean(axis=0)
    cov = (x - mu).T @ (x - mu) / len(x)
    lam, q = np.linalg.eigh(cov)
    np.testing.assert_allclose(t.shift, mu, atol=1e-12)
    np.testing.assert_allclose(t.matrix, q @ np.diag(lam ** -0.5) @ q.T, rtol=1e-8, atol=1e-8)
    z = wordmap.word_map("zipf_sif", table, counts)
    p = counts / counts.sum()
    np.testing.assert_allclose(z.scale, 1e-3 / (1e-3 + p), rtol=1e-12)
    np.testing.assert_array_equal(z.matrix, wordmap.word_map("zipf", table, counts).matrix)


def test_common_components_after_a_whitening_are_the_whitened_texts_top_direction(setup):
    """word_components composed with a whitening: c the top right singular vector of the means
    of the distinct texts' whitened vectors, and P <- P (I - c c^T)."""
    table, counts, pairs = setup
    texts = pairset.training_texts(pairs)
    m = wordmap.WordMap("", whiten="zipf", word_components=1)
    t = wordmap.word_map(m, table, counts, texts=texts)
    w = wordmap.word_map("zipf", table, counts)
    white = (np.asarray(table, np.float64) - w.shift) @ w.matrix
    means = np.array([white[tok[:n]].mean(axis=0) for tok, n in zip(*texts)])
    c = np.linalg.svd(means, full_matrices=False)[2][0]
    np.testing.assert_allclose(t.matrix, w.matrix @ (np.eye(len(c)) - np.outer(c, c)), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(t.shift, w.shift)
    # the mapped texts have no component along c
    mapped = transforms.apply(t, table).astype(np.float64)
    tm = np.array([mapped[tok[:n]].mean(axis=0) for tok, n in zip(*texts)])
    assert np.abs(tm @ c).max() < 1e-5 < np.abs(means @ c).max()


def test_a_new_map_is_one_entry(setup, monkeypatch):
    """Registering a map puts it in the family (two more members, parsed and fitted), the STS
    harness's list, the command line's --word-map choices and the Encoder's options."""
    table, counts, pairs = setup
    monkeypatch.setattr(wordmap, "MAPS", dict(wordmap.MAPS))
    m = wordmap.register("uwhiten_sif", wordmap.WordMap("uniformly whitened, SIF-weighted word vectors",
                                                       word_weights="sif", whiten="uwhiten"))
    assert family.maps()[-1] == "uwhiten_sif" and len(family.members()) == 2 * 8
    assert family.parse("uwhiten_sif-cosine").label == \
        "on uniformly whitened, SIF-weighted word vectors under 1 - cos"
    t = family.member_map("uwhiten_sif", table, counts, pairs)
    u = transforms.zipf_whitening(table, "uniform", "whiten")
    np.testing.assert_array_equal(t.matrix, u.matrix)
    np.testing.assert_array_equal(t.scale, transforms.sif_weights(counts, 1e-3))
    ap = argparse.ArgumentParser()
    add_word_map_options(ap)
    args = ap.parse_args(["--word-map", "uwhiten_sif"])
    assert word_map_options(args) == {"word_weights": "sif", "whiten": "uwhiten", "word_components": 0,
                                      "components": 0, "usif_length": None}
    assert m.options() == {"word_weights": "sif", "whiten": "uwhiten"}
    with pytest.raises(ValueError, match="taken"):
        wordmap.register("sif", m)
    with pytest.raises(ValueError, match="whiten: expected None or one of"):
        wordmap.register("pca", wordmap.WordMap("", whiten="pca"))
