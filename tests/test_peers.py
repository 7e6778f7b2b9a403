"""repro.evaluate.peers: SIF and uSIF by hand on a tiny case, and against fse 1.0.0 where it is installed."""

from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest

from repro.core import pairset
from repro.evaluate import peers, scoring
from repro.spaces.components import fit_components, remove_components
from repro.core.pairset import PairSet

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FSE_PYTHON = os.path.join(ROOT, ".bench-venv-fse", "bin", "python")


def test_weights_by_hand():
    counts = np.array([6.0, 3.0, 1.0])  # p = 0.6, 0.3, 0.1
    np.testing.assert_allclose(peers.sif_weights(counts, 0.1), [0.1 / 0.7, 0.1 / 0.4, 0.1 / 0.2])
    # V = 3, length 2: threshold 1 - (2/3)^2 = 5/9; only p = 0.6 exceeds it: alpha = 1/3, Z = 1.5,
    # a = (2/3) / (0.5 + eps) ~ 4/3, weights a / (a/2 + p)
    a = (2 / 3) / (0.5 + peers.EPS)
    np.testing.assert_allclose(peers.usif_weights(counts, 2), a / (a / 2 + np.array([0.6, 0.3, 0.1])))
    with pytest.raises(ValueError, match="counts"):
        peers.sif_weights([0, 0])


def test_mean_and_components_by_hand():
    table = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 4.0]])
    tokens, lengths = np.array([[0, 1, 1], [2, 0, 0], [0, 0, 0]]), np.array([3, 1, 0])
    v = peers.weighted_means(table, tokens, lengths, np.array([2.0, 1.0, 0.5]))
    np.testing.assert_allclose(v, [[2 / 3, 4 / 3], [1.5, 2.0], [0.0, 0.0]])  # repeats count; empty is 0
    comps = fit_components(v, 1)
    c = comps.vectors[0]
    np.testing.assert_allclose(np.linalg.norm(c), 1.0)
    out = remove_components(v, comps)
    np.testing.assert_allclose(out @ c, 0.0, atol=1e-12)  # nothing left along the component
    np.testing.assert_allclose(out + np.outer(v @ c, c), v)
    share_of = fit_components(v, 2, "share")  # uSIF as Ethayarajh publishes it
    share = share_of.values ** 2 / np.sum(share_of.values ** 2)
    np.testing.assert_allclose(share_of.scales, share)
    np.testing.assert_allclose(fit_components(v, 2, "share_squared").scales, share ** 2)  # fse 1.0.0's
    with pytest.raises(ValueError, match="scales"):
        fit_components(v, 1, "squared")


def test_usif_removes_its_components_by_their_share_by_default_and_fse_squares_it():
    words, table, counts, train, (tok, lengths) = _case(seed=9)
    column = scoring.Column(table, train=train)
    published = peers.fit_peer("usif", column, counts, components=5)
    fse = peers.fit_peer("usif", column, counts, components=5, usif_scales="share_squared")
    np.testing.assert_array_equal(published.components.vectors, fse.components.vectors)
    np.testing.assert_allclose(fse.components.scales, published.components.scales ** 2)
    assert np.isclose(published.components.scales.sum(), 1.0)
    with pytest.raises(ValueError, match="usif_scales"):
        peers.fit_peer("usif", column, counts, usif_scales="square")


def _case(seed=0, vocab=60, dim=12, n_train=80, n_test=20):
    rng = np.random.default_rng(seed)
    words = [f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(vocab)]
    table = rng.normal(size=(vocab, dim)).astype(np.float32)
    table[:, 0] += 2.0  # a common direction, as real word vectors have
    counts = rng.integers(1, 1000, vocab)
    width = 8

    def texts(n):
        lengths = rng.integers(3, width + 1, n)
        tokens = np.zeros((n, width), np.int32)
        for i, k in enumerate(lengths):
            tokens[i, :k] = rng.integers(0, vocab, k)
        return tokens, lengths.astype(np.int32)

    ta, la = texts(n_train // 2)
    tb, lb = texts(n_train // 2)
    train = PairSet(ta, tb, la, lb, np.zeros(n_train // 2, np.int8))
    return words, table, counts, train, texts(n_test)


@pytest.mark.skipif(not os.path.exists(FSE_PYTHON),
                    reason="fse 1.0.0 lives in the side environment .bench-venv-fse, which `make bench` builds; "
                           "it is not installed here")
def test_sif_and_usif_equal_fse(tmp_path):
    from repro.io import store

    words, table, counts, train, (test_tokens, test_lengths) = _case()
    store.save_vectors(str(tmp_path), words, table)
    np.save(tmp_path / "counts.npy", counts)

    def lines(tokens, lengths):
        return "".join(" ".join(words[t] for t in row[:k]) + "\n" for row, k in zip(tokens, lengths))

    (tmp_path / "train.txt").write_text(lines(train.a, train.len_a) + lines(train.b, train.len_b))
    (tmp_path / "test.txt").write_text(lines(test_tokens, test_lengths))
    out = subprocess.run([FSE_PYTHON, os.path.join(ROOT, "benchmarks", "fse_peers.py"), str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    fse_length = int(out.stdout.split()[-1])  # fse's int(total words / texts)
    column = scoring.Column(table, train=train)
    sif = peers.fit_peer("sif", column, counts, a=1e-3, components=1)
    # fse 1.0.0 removes uSIF's components by the square of their share: the documented option
    usif = peers.fit_peer("usif", column, counts, components=5, length=fse_length, usif_scales="share_squared")
    for name, peer in (("sif", sif), ("usif", usif)):
        ours = scoring.text_vectors(peer, table, test_tokens, test_lengths)
        theirs = np.load(tmp_path / f"fse-{name}.npy")
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5, err_msg=name)


def test_select_takes_the_lowest_validation_error_under_each_metric_and_never_the_test():
    from repro.core import metrics

    words, table, counts, train, (tok, lengths) = _case(seed=3, n_test=40)
    rng = np.random.default_rng(4)
    validation = PairSet(tok[:20], tok[20:], lengths[:20], lengths[20:], (rng.random(20) < 0.5).astype(np.int8))
    column = scoring.Column(table, {"validation": validation}, train)
    picked = peers.select("sif", column, counts)
    assert set(picked) == {"euclidean", "cosine"}
    for metric, (enc, params, err) in picked.items():
        errors = []
        for p in peers.GRIDS["sif"]:
            s = scoring.scores(peers.fit_peer("sif", column, counts, **p), table, validation, metric)
            errors.append(metrics.split(s, validation.label, s, validation.label).error)
        assert err == min(errors) and params == peers.GRIDS["sif"][int(np.argmin(errors))]
        assert enc.components.vectors.shape[0] == params["components"]
    with pytest.raises(ValueError, match="peer must be one of"):
        peers.select("bm25", column, counts)


def test_passes_share_a_weighting_and_give_each_metric_its_own_bits():
    words, table, counts, train, (tok, lengths) = _case(seed=6, n_test=40)
    pairs = PairSet(tok[:20], tok[20:], lengths[:20], lengths[20:], (np.arange(20) % 2).astype(np.int8))
    column = scoring.Column(table, {"pairs": pairs}, train)
    sif = {a: {k: peers.fit_peer("sif", column, counts, a=a, components=k) for k in (0, 1)} for a in (1e-3, 1e-2)}
    cases = {  # picked per metric -> how many passes, and each metric's set index in its pass
        "same choice": ({"euclidean": (sif[1e-3][1], {"a": 1e-3, "components": 1}, 0.1),
                         "cosine": (sif[1e-3][1], {"a": 1e-3, "components": 1}, 0.2)}, [[0, 0]]),
        "components differ": ({"euclidean": (sif[1e-3][0], {"a": 1e-3, "components": 0}, 0.1),
                               "cosine": (sif[1e-3][1], {"a": 1e-3, "components": 1}, 0.2)}, [[0, 1]]),
        "weightings differ": ({"euclidean": (sif[1e-3][1], {"a": 1e-3, "components": 1}, 0.1),
                               "cosine": (sif[1e-2][1], {"a": 1e-2, "components": 1}, 0.2)}, [[0], [0]]),
    }
    for name, (picked, shape) in cases.items():
        got = peers.passes("sif", picked)
        assert [[i for _, i in picks] for _, picks in got] == shape, name
        assert all(p.metrics == tuple(m for m, _ in picks) and p.scales == "one" for p, picks in got)
        for (p, picks), scored in zip(got, column.score([p for p, _ in got])):
            s = scored.scores["pairs"]
            for j, (metric, i) in enumerate(picks):  # the same bits as scoring the metric's own choice alone
                alone = scoring.scores(picked[metric][0], table, pairs, metric)
                assert s[i, j].tobytes() == alone.tobytes(), (name, metric)
                # the pass's fitted components are the choice's, bit for bit
                fitted, chosen = scored.encodings[i].components, picked[metric][0].components
                assert fitted.vectors.tobytes() == chosen.vectors.tobytes()
    # uSIF's passes remove its components at their share
    usif = peers.fit_peer("usif", column, counts, components=5)
    (p, _), = peers.passes("usif", {"cosine": (usif, {"components": 5}, 0.1)})
    assert p.scales == "share" and p.components == (5,)
    fitted = column.score([p], splits=())[0].encodings[0].components
    np.testing.assert_array_equal(fitted.scales, usif.components.scales)


def test_learned_weights_with_common_components_removed():
    from repro.core.model import represent

    words, table, counts, train, (tok, lengths) = _case(seed=5)
    w = np.linspace(1.0, 0.2, 8).astype(np.float32)
    enc = peers.fit_peer("learned", scoring.Column(table, train=train), None, weights=w, components=2)
    plain = scoring.text_vectors(enc, table, tok, lengths, components=False)
    np.testing.assert_allclose(plain, np.asarray(represent(w, table, tok, lengths)), rtol=1e-6)
    out = scoring.text_vectors(enc, table, tok, lengths)
    np.testing.assert_allclose(out @ enc.components.vectors.T, 0.0, atol=1e-5)  # nothing left along them
    texts = np.concatenate([train.a, train.b]), np.concatenate([train.len_a, train.len_b])
    ref = fit_components(np.asarray(represent(w, table, *texts), np.float64), 2)
    np.testing.assert_allclose(np.abs(enc.components.vectors @ ref.vectors.T), np.eye(2), atol=1e-6)


def test_components_are_fitted_on_each_distinct_text_once():
    """A text in many couples (a tweet-chat hub) counts once: repeating one training text 40 times
    gives the components of the texts without the repeats, not a direction pulled towards it."""
    words, table, counts, train, _ = _case(seed=10, n_train=60)
    hub = PairSet(np.repeat(train.a[:1], 40, axis=0), train.b[:40], np.repeat(train.len_a[:1], 40), train.len_b[:40],
                  np.zeros(40, np.int8))
    with_hub = PairSet(*(np.concatenate([x, y]) for x, y in zip(train, hub)))
    tokens, lengths = pairset.training_texts(with_hub)
    assert lengths.size == 60  # 30 + 30 texts; the hub and the 40 b's were all there already
    padded = train.a.copy()
    padded[0, train.len_a[0]:] = 7  # padding past a text's length does not make it another text
    assert pairset.distinct_texts(np.concatenate([train.a, padded]), np.concatenate([train.len_a] * 2))[1].size == 30
    a = peers.fit_peer("sif", scoring.Column(table, train=with_hub), counts, components=1)
    b = peers.fit_peer("sif", scoring.Column(table, train=train), counts, components=1)
    np.testing.assert_allclose(a.components.vectors, b.components.vectors, atol=1e-12)


def test_scores_in_small_chunks_are_the_whole_computation():
    """The couples a few at a time (the last chunk padded): the scores agree to float32 rounding."""
    words, table, counts, train, (tok, lengths) = _case(seed=6, n_test=60)
    rng = np.random.default_rng(7)
    validation = PairSet(tok[:30], tok[30:], lengths[:30], lengths[30:], (rng.random(30) < 0.5).astype(np.int8))
    for name in ("sif", "usif", "learned"):
        w = np.linspace(1.0, 0.2, 8).astype(np.float32) if name == "learned" else None
        column = scoring.Column(table, {"validation": validation}, train)
        for metric, (enc, _, _) in peers.select(name, column, counts, w).items():
            s = scoring.scores(enc, table, validation, metric)
            np.testing.assert_allclose(scoring.scores(enc, table, validation, metric, chunk=4), s,
                                       rtol=1e-6, atol=1e-7)


def test_components_come_from_a_seeded_sample_beyond_the_limit(monkeypatch):
    words, table, counts, train, _ = _case(seed=8, n_train=400)
    full = peers.fit_peer("sif", scoring.Column(table, train=train), counts, components=1)
    monkeypatch.setattr(pairset, "COMPONENT_TEXTS", 150)
    tokens, lengths = pairset.training_texts(train)
    assert lengths.size == 150
    again = pairset.training_texts(train)
    assert (again[0] == tokens).all()  # seeded: the same sample every time
    every = np.concatenate([train.a, train.b])
    assert all((row == every).all(axis=1).any() for row in tokens)  # training texts, nothing else
    sample = peers.fit_peer("sif", scoring.Column(table, train=train), counts, components=1)
    ref = fit_components(peers.weighted_means(table, tokens, lengths, sample.weights), 1)
    assert sample.components.vectors.tobytes() == ref.vectors.tobytes()
    # the first common direction of 150 of the 400 texts is the first of all of them, nearly
    assert abs(float(sample.components.vectors[0] @ full.components.vectors[0])) > 0.99
