"""repro.evaluate.peerfamily: the peer family's grid, its fast search against the one scoring surface, and
both families' budgets in one registry."""

from __future__ import annotations

import numpy as np
import pytest

from repro.core import metrics
from repro.evaluate import family, peerfamily, scoring
from repro.core.pairset import PairSet


def _case(seed=0, vocab=50, dim=10, n_train=60, n_val=40, width=8):
    rng = np.random.default_rng(seed)
    table = rng.normal(size=(vocab, dim)).astype(np.float32)
    table[:, 0] += 2.0  # a common direction, as real word vectors have
    counts = rng.integers(1, 1000, vocab)

    def texts(n):
        lengths = rng.integers(1, width + 1, n).astype(np.int32)
        tokens = np.zeros((n, width), np.int32)
        for i, k in enumerate(lengths):
            tokens[i, :k] = rng.integers(0, vocab, k)  # repeats included
        return tokens, lengths

    (ta, la), (tb, lb) = texts(n_train), texts(n_train)
    train = PairSet(ta, tb, la, lb, np.zeros(n_train, np.int8))
    (va, lva), (vb, lvb) = texts(n_val), texts(n_val)
    validation = PairSet(va, vb, lva, lvb, (rng.random(n_val) < 0.5).astype(np.int8))
    return table, counts, train, validation


def test_the_grid_is_every_weighting_map_and_component_count_once():
    configs = peerfamily.grid()
    assert len(configs) == 5 * 4 * 2 == 40
    assert len(set(configs)) == len(configs)
    assert {(c.weighting, c.a) for c in configs} == {("mean", None), ("sif", 1e-4), ("sif", 1e-3), ("sif", 1e-2),
                                                       ("usif", None)}
    assert {c.map for c in configs} == {"none", "centre", "zipf", "uwhiten"}
    assert len(peerfamily.grid(peerfamily.STS_COMPONENTS)) == 5 * 4 * 5
    for c in configs:
        assert peerfamily.from_key(c.key) == c
    assert peerfamily.Config("sif", 1e-4, "zipf", 1).label == "SIF (a = 0.0001), Zipfian-whitened, 1 component removed"
    assert peerfamily.Config("mean", None, "none", 0).label == "mean"
    with pytest.raises(ValueError, match="peer configuration"):
        peerfamily.from_key("bm25/none/0")


def test_the_peers_search_at_least_as_widely_as_the_learned_family():
    budgets = family.budgets()
    assert budgets["learned"] == len(family.members()) == len(family.maps()) * len(family.DISTANCES)
    assert budgets["peers"] == len(family.PEER_CONFIGS) >= budgets["learned"]
    assert budgets["peers_sts"] >= budgets["learned"]


def test_the_averager_is_the_mean_of_each_texts_known_rows():
    tokens = np.array([[3, 1, 3, 0], [2, 0, 0, 0], [0, 0, 0, 0]], np.int32)
    lengths = np.array([3, 1, 0], np.int32)
    s = peerfamily._averager(tokens, lengths, 5).toarray()
    expected = np.zeros((3, 5))
    expected[0, 3], expected[0, 1] = 2 / 3, 1 / 3
    expected[1, 2] = 1.0
    np.testing.assert_array_equal(s, expected)


@pytest.mark.parametrize("config", [peerfamily.Config("mean", None, "none", 0),
                                    peerfamily.Config("sif", 1e-2, "centre", 1),
                                    peerfamily.Config("usif", None, "zipf", 1),
                                    peerfamily.Config("sif", 1e-4, "uwhiten", 2)])
def test_the_fast_scores_are_the_scoring_surfaces(config):
    """Each configuration's scores by the linear shortcut equal those of its encoding through
    repro.evaluate.scoring (the word weights, the map as a transform, components by SVD) to float32 rounding."""
    table, counts, train, validation = _case(seed=1)
    column = scoring.Column(table, {"validation": validation}, train)
    fast = {(c, m): s for c, m, s in peerfamily.config_scores(column, counts, [config])}
    enc = peerfamily.encoding(config, column, counts)
    assert enc.components.vectors.shape[0] == config.components
    for m in ("euclidean", "cosine"):
        slow = scoring.scores(enc, table, validation, m)
        np.testing.assert_allclose(fast[config, m], slow, rtol=2e-5, atol=2e-5)


def test_search_takes_each_configurations_validation_split_error_and_choose_the_lowest():
    table, counts, train, validation = _case(seed=2)
    column = scoring.Column(table, {"validation": validation}, train)
    configs = peerfamily.grid()
    errors = peerfamily.search(column, counts, configs)
    assert set(errors) == {"euclidean", "cosine"}
    assert set(errors["cosine"]) == {c.key for c in configs}
    for c in (configs[0], configs[17], configs[-1]):  # by the one surface, brute force
        s = scoring.scores(peerfamily.encoding(c, column, counts), table, validation, "cosine")
        assert errors["cosine"][c.key] == pytest.approx(metrics.split(s, validation.label, s, validation.label).error,
                                                        abs=1.5 / validation.size)
    config, err = peerfamily.choose(errors["cosine"], configs)
    assert err == min(errors["cosine"].values())
    first = next(c for c in configs if errors["cosine"][c.key] == err)
    assert config == first  # ties go to the earlier configuration


def test_uniform_whitening_and_zipfian_whitening_differ_by_their_p():
    table, counts, _, _ = _case(seed=3)
    z = peerfamily.whitening("zipf", table, counts)
    u = peerfamily.whitening("uwhiten", table, counts)
    np.testing.assert_allclose(u.shift, table.astype(np.float64).mean(axis=0), rtol=1e-6, atol=1e-6)
    p = counts / counts.sum()
    np.testing.assert_allclose(z.shift, p @ table.astype(np.float64), rtol=1e-6, atol=1e-6)
    c = peerfamily.whitening("centre", table, counts)
    assert c.matrix is None and np.allclose(c.shift, z.shift)
    assert peerfamily.whitening("none", table, counts).identity


def test_sif_and_zipf_choices_read_off_the_family_search_are_peers_selects():
    """The single peers whose grids the family holds take their choice from the family's search:
    the same entries peers.select picks on its own, and the same rows' scores, bit for bit."""
    from experiments.score import from_search
    from repro.evaluate import peers

    table, counts, train, validation = _case(seed=5, n_val=60)
    column = scoring.Column(table, {"validation": validation}, train)
    errors = peerfamily.search(column, counts, family.PEER_CONFIGS)
    for name in ("sif", "zipf"):
        fast, slow = from_search(name, errors, column, counts), peers.select(name, column, counts)
        for metric in ("euclidean", "cosine"):
            assert fast[metric][1] == slow[metric][1]
            assert fast[metric][2] == pytest.approx(slow[metric][2], abs=1.5 / validation.size)
            np.testing.assert_array_equal(scoring.scores(peers.fit_peer(name, column, counts, **fast[metric][1]),
                                                         table, validation, metric),
                                          scoring.scores(slow[metric][0], table, validation, metric))
        rows = [column.score([p for p, _ in peers.passes(name, picked)]) for picked in (fast, slow)]
        for a, b in zip(*rows):
            assert a.scores["validation"].tobytes() == b.scores["validation"].tobytes()
    assert from_search("usif", errors, column, counts) is None  # uSIF's own 5 components: not in the family
    assert peerfamily.from_peer("uwhiten", {"mode": "centre", "components": 0}) is None


def test_a_configuration_is_one_pass_whose_components_the_column_fits():
    """row_pass is the configuration before its components, which the column fits when it scores
    the pass: the same encoding and the same scores as encoding(), bit for bit."""
    table, counts, train, validation = _case(seed=6)
    column = scoring.Column(table, {"validation": validation}, train)
    for config in (peerfamily.Config("sif", 1e-3, "zipf", 2), peerfamily.Config("mean", None, "none", 0)):
        p = peerfamily.row_pass(config, column, counts, metrics=("cosine",))
        assert p.components == ((config.components,) if config.components else None) and p.metrics == ("cosine",)
        enc = peerfamily.encoding(config, column, counts)
        scored = column.score([p])[0]
        np.testing.assert_array_equal(scored.encodings[0].components.vectors, enc.components.vectors)
        assert scored.scores["validation"][0, 0].tobytes() == scoring.scores(enc, table, validation, "cosine").tobytes()
