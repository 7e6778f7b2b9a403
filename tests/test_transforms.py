"""repro.spaces.transforms: Zipfian whitening by hand on a tiny table, the transformed table through the
one scoring surface, and the whitening peers' choice on validation against brute force."""

from __future__ import annotations

import numpy as np
import pytest

from repro.core import metrics
from repro.evaluate import peers, scoring
from repro.spaces import transforms
from repro.evaluate.scoring import Encoding
from repro.core.pairset import PairSet
from repro.spaces.transforms import Transform


def _table(seed=0, vocab=30, dim=5):
    rng = np.random.default_rng(seed)
    table = (rng.normal(size=(vocab, dim)) @ rng.normal(size=(dim, dim)) + 3.0).astype(np.float32)
    p = rng.uniform(0.1, 5.0, vocab) ** 3
    return table, p / p.sum()


def test_moments_by_hand():
    table = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 4.0]])
    mu, cov = transforms.weighted_moments(table, np.array([2.0, 1.0, 1.0]))  # p = 1/2, 1/4, 1/4
    np.testing.assert_allclose(mu, [0.5 + 0.75, 0.5 + 1.0])
    xc = table - mu
    np.testing.assert_allclose(cov, 0.5 * np.outer(xc[0], xc[0]) + 0.25 * np.outer(xc[1], xc[1])
                               + 0.25 * np.outer(xc[2], xc[2]))
    mu_u, _ = transforms.weighted_moments(table, "uniform")
    np.testing.assert_allclose(mu_u, [4 / 3, 2.0])


def test_zipfian_whitened_vectors_have_zero_weighted_mean_and_identity_covariance():
    table, p = _table()
    t = transforms.zipf_whitening(table, p, "whiten")
    e = (table.astype(np.float64) - t.shift) @ t.matrix
    np.testing.assert_allclose(p @ e, 0.0, atol=1e-10)
    np.testing.assert_allclose((e * p[:, None]).T @ e, np.eye(5), atol=1e-8)
    np.testing.assert_allclose(t.matrix, t.matrix.T, atol=1e-10)  # C^(-1/2) is symmetric
    kept = transforms.zipf_whitening(table, p, "whiten", dims=2)  # the 2 leading directions
    ek = (table.astype(np.float64) - kept.shift) @ kept.matrix
    assert kept.matrix.shape == (5, 2)
    np.testing.assert_allclose((ek * p[:, None]).T @ ek, np.eye(2), atol=1e-8)
    centred = transforms.zipf_whitening(table, p, "centre")
    assert centred.matrix is None and centred.scale is None
    np.testing.assert_allclose(centred.shift, p @ table.astype(np.float64))
    applied = transforms.apply(t, table)
    assert applied.dtype == np.float32
    np.testing.assert_allclose(applied, e, rtol=1e-5, atol=1e-5)


def test_a_rank_deficient_covariance_is_floored():
    table, p = _table()
    flat = np.concatenate([table, table[:, :1]], axis=1)  # dim 6, rank 5
    t = transforms.zipf_whitening(flat, p, "whiten")
    assert np.isfinite(t.matrix).all() and np.abs(t.matrix).max() < 1e4


def test_bad_arguments_are_named():
    table, p = _table()
    with pytest.raises(ValueError, match="^mode"):
        transforms.zipf_whitening(table, p, "sphere")
    with pytest.raises(ValueError, match="^p"):
        transforms.zipf_whitening(table, p[:-1])
    with pytest.raises(ValueError, match="^p"):
        transforms.zipf_whitening(table, "zipf")
    with pytest.raises(ValueError, match="^dims"):
        transforms.zipf_whitening(table, p, dims=9)
    with pytest.raises(ValueError, match="^shift"):
        transforms.apply(Transform(shift=np.zeros(4)), table)
    with pytest.raises(ValueError, match="^matrix"):
        transforms.apply(Transform(matrix=np.zeros((4, 2))), table)
    with pytest.raises(ValueError, match="^scale"):
        transforms.apply(Transform(scale=np.ones(3)), table)
    with pytest.raises(ValueError, match="^transform"):
        scoring.text_vectors(Encoding("mean", transform=(None, None, None)), table, np.zeros((1, 2), np.int32),
                               np.array([1], np.int32))


def _pairs(seed, vocab=30, n=60, width=6):
    rng = np.random.default_rng(seed)

    def rows():
        lengths = rng.integers(1, width + 1, n).astype(np.int32)
        tokens = np.zeros((n, width), np.int32)
        for i, k in enumerate(lengths):
            tokens[i, :k] = rng.integers(0, vocab, k)
        return tokens, lengths

    (a, la), (b, lb) = rows(), rows()
    return PairSet(a, b, la, lb, (rng.random(n) < 0.5).astype(np.int8))


def test_an_encoding_aggregates_the_transformed_table():
    table, p = _table()
    pairs = _pairs(1)
    t = Transform(shift=np.linspace(-1, 1, 5), matrix=np.random.default_rng(2).normal(size=(5, 3)),
                  scale=np.linspace(0.5, 2.0, 30))
    e = ((table.astype(np.float64) - t.shift) @ t.matrix) * t.scale[:, None]
    for kind, weights in (("mean", None), ("word", np.linspace(2.0, 0.1, 30)), ("max", None)):
        got = scoring.text_vectors(Encoding(kind, weights, transform=t), table, pairs.a, pairs.len_a)
        ref = scoring.text_vectors(Encoding(kind, weights), e.astype(np.float32), pairs.a, pairs.len_a)
        assert got.shape == (60, 3)
        np.testing.assert_allclose(got, ref, rtol=1e-6, err_msg=kind)
    wrapped = scoring.Table(table)
    assert wrapped.transformed(t) is wrapped.transformed(t)  # made once per transform
    assert wrapped.transformed(transforms.IDENTITY) is wrapped
    with pytest.raises(ValueError, match="^transform"):
        scoring.couple_scores(Encoding("tfidf", np.ones(30), transform=t), table, pairs)


def test_centring_alone_leaves_the_euclidean_distance_of_means_unchanged_but_not_the_cosine():
    table, p = _table()
    pairs = _pairs(3)
    centred = Encoding("mean", transform=transforms.zipf_whitening(table, p, "centre"))
    plain = scoring.couple_scores(Encoding("mean"), table, pairs)[0]
    moved = scoring.couple_scores(centred, table, pairs)[0]
    np.testing.assert_allclose(moved[0], plain[0], rtol=1e-5, atol=1e-5)  # euclidean
    assert np.abs(moved[1] - plain[1]).max() > 0.1  # the cosine sees the shift


@pytest.mark.parametrize("name", peers.WHITENING)
def test_whitening_peers_choose_on_validation_as_brute_force(name):
    table, p = _table(seed=4)
    counts = np.round(p * 1e6)
    train, validation = _pairs(5), _pairs(6)
    picked = peers.select(name, scoring.Column(table, {"validation": validation}, train), counts)
    assert set(picked) == {"euclidean", "cosine"}
    pw = peers.probabilities(counts) if name == "zipf" else "uniform"
    for metric, (enc, params, err) in picked.items():
        errors = []
        for entry in peers.GRIDS[name]:
            t = transforms.zipf_whitening(table, pw, entry["mode"])
            e = (table.astype(np.float64) - t.shift) @ (np.eye(5) if t.matrix is None else t.matrix)
            va = np.stack([e[r[:k]].mean(0) for r, k in zip(validation.a, validation.len_a)])
            vb = np.stack([e[r[:k]].mean(0) for r, k in zip(validation.b, validation.len_b)])
            if metric == "euclidean":
                s = -np.linalg.norm(va - vb, axis=1)
            else:
                s = np.sum(va * vb, 1) / np.linalg.norm(va, axis=1) / np.linalg.norm(vb, axis=1)
            errors.append(metrics.split(s, validation.label, s, validation.label).error)
        assert err == pytest.approx(min(errors)) and params == peers.GRIDS[name][int(np.argmin(errors))]
        assert enc.kind == "mean" and enc.components.vectors.shape[0] == 0
    with pytest.raises(ValueError, match="^table"):
        peers.weighting(name, counts, 3.0)



def test_blocks_cover_the_rows_and_fold_a_short_tail_into_the_last_block():
    assert transforms.blocks(3 * 256 + 70, 256) == [(0, 256), (256, 512), (512, 768), (768, 838)]
    assert transforms.blocks(2 * 256 + 5, 256) == [(0, 256), (256, 517)]  # 5 rows < MIN_BLOCK: joined
    assert transforms.blocks(200, 256) == [(0, 200)] and transforms.blocks(0, 256) == []


def _whole(t, table):
    return ((np.asarray(table, np.float64) - t.shift) @ t.matrix * t.scale[:, None]).astype(np.float32)


def test_apply_in_one_block_is_the_whole_table_product_bit_for_bit_and_by_blocks_to_float32_rounding(monkeypatch):
    rng = np.random.default_rng(3)
    table = rng.standard_normal((3 * 256 + 70, 64), dtype=np.float32)
    t = transforms.zipf_whitening(table, rng.random(table.shape[0]), "whiten")._replace(scale=rng.random(table.shape[0]))
    whole = _whole(t, table)
    np.testing.assert_array_equal(transforms.apply(t, table).view(np.uint32), whole.view(np.uint32))
    monkeypatch.setattr(transforms, "BLOCK", 256)
    assert len(transforms.blocks(table.shape[0])) == 4
    # BLAS may round a row at a thread's edge differently in float64; in float32 at most one step apart
    np.testing.assert_array_max_ulp(transforms.apply(t, table), whole, maxulp=1)
    shifted = transforms.apply(t._replace(shift=t.shift + 1.0), table)
    assert np.abs(shifted - whole).max() > 1e-3  # the comparison can fail


def test_apply_writes_into_out_and_refuses_a_wrong_one():
    rng = np.random.default_rng(9)
    table = rng.normal(size=(7, 3)).astype(np.float32)
    t = transforms.Transform(shift=rng.normal(size=3), matrix=rng.normal(size=(3, 3)), scale=rng.random(7) + 0.5)
    want = transforms.apply(t, table)
    same = table.copy()  # in place: each block is read before it is written
    assert transforms.apply(t, same, out=same) is same and same.tobytes() == want.tobytes()
    with pytest.raises(ValueError, match="out: need a"):
        transforms.apply(t, table, out=np.empty((7, 2), np.float32))


def test_weighted_moments_by_blocks_equal_the_whole_table_sums(monkeypatch):
    """Several row blocks (a short last one joined): the same mean and covariance as one float64
    sum over the whole table, to rounding, and the same bits on a second call."""
    rng = np.random.default_rng(7)
    table = rng.standard_normal((1000, 6)).astype(np.float32)
    p = rng.random(1000)
    monkeypatch.setattr(transforms, "BLOCK", 256)
    assert len(transforms.blocks(1000)) == 4
    mu, cov = transforms.weighted_moments(table, p)
    x, q = table.astype(np.float64), p / p.sum()
    want_mu = (q[:, None] * x).sum(axis=0)
    want_cov = ((x - want_mu) * q[:, None]).T @ (x - want_mu)
    np.testing.assert_allclose(mu, want_mu, rtol=0, atol=1e-13)
    np.testing.assert_allclose(cov, want_cov, rtol=1e-12, atol=1e-14)
    again = transforms.weighted_moments(table, p)
    assert np.array_equal(again[0], mu) and np.array_equal(again[1], cov)
