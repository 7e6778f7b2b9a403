"""repro.evaluate.scoring, the one scoring surface: every kind of row by hand or against its reference,
both metrics, components, chunks."""

from __future__ import annotations

import numpy as np
import pytest

from repro.core import baselines, pairset
from repro.evaluate import scoring
from repro.spaces import transforms
from repro.spaces.components import NO_COMPONENTS, fit_components, remove_components
from repro.evaluate.scoring import Encoding
from repro.core.model import represent
from repro.core.pairset import PairSet
from repro.core.textmetric import vector_scores


def _case(seed=0, vocab=40, dim=6, n=50, width=7):
    rng = np.random.default_rng(seed)
    table = rng.normal(size=(vocab, dim)).astype(np.float32)
    idf = rng.uniform(0.5, 5.0, vocab)

    def rows():
        lengths = rng.integers(0, width + 1, n).astype(np.int32)
        tokens = np.zeros((n, width), np.int32)
        for i, k in enumerate(lengths):
            tokens[i, :k] = rng.integers(0, vocab, k)
        return tokens, lengths

    (a, la), (b, lb) = rows(), rows()
    return table, idf, PairSet(a, b, la, lb, (rng.random(n) < 0.5).astype(np.int8))


def test_word_weighted_mean_by_hand():
    table = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 4.0]], np.float32)
    tokens, lengths = np.array([[0, 1, 1], [2, 0, 0], [0, 0, 0]]), np.array([3, 1, 0])
    v = scoring.text_vectors(Encoding("word", np.array([2.0, 1.0, 0.5])), table, tokens, lengths)
    np.testing.assert_allclose(v, [[2 / 3, 4 / 3], [1.5, 2.0], [0.0, 0.0]], rtol=1e-6)
    assert v.dtype == np.float64


def test_rank_encoding_is_represent():
    table, _, pairs = _case()
    w = np.linspace(1.0, 0.1, 5).astype(np.float32)
    v = scoring.text_vectors(Encoding("rank", w), table, pairs.a, pairs.len_a, chunk=16)
    np.testing.assert_array_equal(v, np.asarray(represent(w, table, pairs.a, pairs.len_a, allow_empty=True), np.float64))


@pytest.mark.parametrize("method", baselines.METHODS)
def test_every_baseline_under_both_metrics_equals_its_vectors(method):
    table, idf, pairs = _case(seed=1)
    enc = Encoding(method, idf if method in baselines.IDF_METHODS else None)
    s = scoring.couple_scores(enc, table, pairs, chunk=16)  # (1, 2, P), chunks padded
    assert s.shape == (1, 2, pairs.size)
    if method == "tfidf":
        va = baselines.tfidf_vectors(pairs.a, pairs.len_a, idf).toarray()
        vb = baselines.tfidf_vectors(pairs.b, pairs.len_b, idf).toarray()
        np.testing.assert_allclose(s[0, 1], baselines.tfidf_cosine(pairs.a, pairs.len_a, pairs.b, pairs.len_b, idf),
                                   rtol=1e-12, atol=1e-12)
    else:
        va = baselines.baseline_vectors(method, table, pairs.a, pairs.len_a, idf)
        vb = baselines.baseline_vectors(method, table, pairs.b, pairs.len_b, idf)
        np.testing.assert_array_equal(s[0, 0], baselines.baseline_pair_scores(method, table, pairs, idf))
    np.testing.assert_allclose(s[0, 0], vector_scores(va, vb, "euclidean"), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(s[0, 1], vector_scores(va, vb, "cosine"), rtol=1e-9, atol=1e-9)


def test_components_sets_and_chunks():
    table, _, pairs = _case(seed=2)
    w = np.full(table.shape[0], 0.5)
    enc = Encoding("word", w)
    texts = scoring.text_vectors(enc, table, pairs.a, pairs.len_a)
    sets = [NO_COMPONENTS, fit_components(texts, 1), fit_components(texts, 2, "share")]
    s = scoring.couple_scores(enc, table, pairs, components=sets, chunk=7)
    for i, comps in enumerate(sets):
        ra = remove_components(texts, comps)
        rb = remove_components(scoring.text_vectors(enc, table, pairs.b, pairs.len_b), comps)
        np.testing.assert_allclose(s[i, 0], vector_scores(ra, rb, "euclidean"), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(s[i, 1], vector_scores(ra, rb, "cosine"), rtol=1e-6, atol=1e-7)
    # one set on the encoding itself is the same as passing it
    np.testing.assert_allclose(scoring.scores(enc._replace(components=sets[1]), table, pairs, "cosine"), s[1, 1],
                               rtol=1e-6, atol=1e-7)


def test_bad_input_named():
    table, idf, pairs = _case(seed=3)
    with pytest.raises(ValueError, match="kind"):
        scoring.couple_scores(Encoding("bm25"), table, pairs)
    with pytest.raises(ValueError, match="weights"):
        scoring.couple_scores(Encoding("word", np.ones(3)), table, pairs)
    with pytest.raises(ValueError, match="metric"):
        scoring.couple_scores(Encoding("mean"), table, pairs, metrics=("manhattan",))
    with pytest.raises(ValueError, match="tf-idf"):
        scoring.couple_scores(Encoding("tfidf", idf, fit_components(np.eye(3, 2), 1)), table, pairs)


def test_the_table_is_checked_once_per_entry_point(monkeypatch):
    table, _, pairs = _case(seed=4)
    calls = []
    real = scoring.check_table
    monkeypatch.setattr(scoring, "check_table", lambda t, *a, **k: calls.append(1) or real(t, *a, **k))
    scoring.couple_scores(Encoding("word", np.ones(table.shape[0])), table, pairs, chunk=5)
    assert len(calls) == 1
    wrapped = scoring.Table(table)
    scoring.couple_scores(Encoding("mean"), wrapped, pairs, chunk=5)
    scoring.text_vectors(Encoding("mean"), wrapped, pairs.a, pairs.len_a, chunk=5)
    assert len(calls) == 2  # a Table is checked when made, not again


def test_the_tables_path_through_peers_select_is_short(monkeypatch):
    """Follow the embedding table through peers.select (every call of a repro function that holds
    it, or the column that holds it): at most 6 module visits and 2 returns to a module left before,
    and one check of the whole table, when the column is made (at 8129641 it went peers ->
    baselines -> checks -> baselines -> peers ... : 36 visits)."""
    import sys

    from repro.evaluate import peers

    table, idf, val = _case(seed=5, n=30)
    train = _case(seed=6, n=40)[2]
    counts = np.arange(1, table.shape[0] + 1)
    peers.select("sif", scoring.Column(table, {"validation": val}, train), counts)  # compiled once before the trace
    checks = []
    real = scoring.check_table
    monkeypatch.setattr(scoring, "check_table", lambda t, *a, **k: checks.append(1) or real(t, *a, **k))
    column = scoring.Column(table, {"validation": val}, train)
    assert len(checks) == 1
    held, visits = {id(table), id(column), id(column.table)}, []

    def follow(frame, event, arg):
        mod = frame.f_globals.get("__name__", "")
        if event != "call" or not mod.startswith("repro"):
            return
        found = False
        for v in list(frame.f_locals.values()):
            if isinstance(v, (scoring.Table, scoring.Column)):
                held.add(id(v))
            found = found or id(v) in held
        if found and (not visits or visits[-1] != mod):
            visits.append(mod)

    sys.setprofile(follow)
    try:
        peers.select("sif", column, counts)
    finally:
        sys.setprofile(None)
    returns = sum(m in visits[:i] for i, m in enumerate(visits))
    assert visits[0] == "repro.evaluate.peers" and len(visits) <= 6 and returns <= 2, visits
    assert len(checks) == 1  # not again


def _counting(monkeypatch) -> list:
    """Every call of ``baselines.vectors_block`` (one chunk of the NumPy baselines' text vectors)
    as the kind it is given, the real function still run."""
    calls, real = [], baselines.vectors_block

    def counted(kind, *rest):
        calls.append(kind)
        return real(kind, *rest)

    monkeypatch.setattr(baselines, "vectors_block", counted)
    return calls


def test_a_column_scores_a_row_as_the_separate_calls_did(monkeypatch):
    """A column's one call per row gives the bits of couple_scores per split, and its fitted
    components the bits of fit_components of text_vectors; the table is checked once in all."""
    table, idf, val = _case(seed=7, n=30)
    test, train = _case(seed=8, n=25)[2], _case(seed=9, n=40)[2]
    checks = []
    real = scoring.check_table
    monkeypatch.setattr(scoring, "check_table", lambda t, *a, **k: checks.append(1) or real(t, *a, **k))
    column = scoring.Column(table, {"validation": val, "test": test}, train)
    tokens, lengths = column.texts  # the distinct training texts, made and checked once
    expected = pairset.training_texts(train)
    assert column.texts is column.texts and column.table.host is table
    assert np.array_equal(tokens, expected[0]) and np.array_equal(lengths, expected[1]) and len(lengths) < 80
    cases = [scoring.Pass(Encoding("mean_idf", idf)),  # its own (no) components, both metrics
             scoring.Pass(Encoding("word", np.linspace(2.0, 0.5, 40)), (0, 1, 3), ("cosine",), "share"),
             scoring.Pass(Encoding("rank", np.linspace(1.0, 0.1, 7).astype(np.float32)), (2, NO_COMPONENTS)),
             scoring.Pass(Encoding("tfidf", idf), None, ("euclidean", "cosine"))]
    row = column.score(cases)
    assert len(checks) == 1  # the column's, when made
    for p, scored in zip(cases, row):
        assert list(scored.scores) == ["validation", "test"]
        given = [p.encoding.components] if p.components is None else list(p.components)
        means = None if p.encoding.kind == "tfidf" else scoring.text_vectors(p.encoding, table, tokens, lengths)
        sets = [c if not isinstance(c, int) else fit_components(means, c, p.scales) for c in given]
        for c, enc in zip(sets, scored.encodings):
            assert enc.components.vectors.tobytes() == c.vectors.tobytes() and enc.kind == p.encoding.kind
            assert enc.components.scales.tobytes() == c.scales.tobytes()
        for split, pairs in (("validation", val), ("test", test)):
            alone = scoring.couple_scores(p.encoding, table, pairs, components=sets, metrics=p.metrics)
            assert scored.scores[split].shape == (len(sets), len(p.metrics), pairs.size)
            assert scored.scores[split].tobytes() == alone.tobytes(), (p.encoding.kind, split)
    fit_only = column.score(cases[1:2], splits=())[0]
    assert fit_only.scores == {} and len(fit_only.encodings) == 3
    with pytest.raises(ValueError, match="splits: this column has no dev couples"):
        column.score(cases[:1], splits=("dev",))
    with pytest.raises(ValueError, match="tf-idf"):
        column.score([scoring.Pass(Encoding("tfidf", idf), (1,))])
    with pytest.raises(ValueError, match="train"):
        scoring.Column(table, {"validation": val}).fit(Encoding("mean"), (1,))
    with pytest.raises(ValueError, match="validation: word indices"):
        scoring.Column(table[:3], {"validation": val})


def test_a_column_makes_an_encodings_training_means_once(monkeypatch):
    """The training texts' vectors under an encoding are made once per column, whatever the
    numbers of components asked, the scales, the passes and the calls; an encoding of the same
    values built apart is the same encoding (its spectrum is kept by value); another map or other
    weights make their own. k = 0 alone makes none."""
    table, idf, val = _case(seed=10, n=30)
    train = _case(seed=11, n=40)[2]
    column = scoring.Column(table, {"validation": val}, train)
    calls = _counting(monkeypatch)  # one call per chunk of texts (the training texts: one chunk)
    enc = Encoding("mean_idf", idf)
    assert column.fit(enc, (0,))[0].vectors.shape == (0, table.shape[1]) and calls == []  # k = 0: no vector
    first = column.fit(enc, (1, 2))
    again = column.fit(Encoding("mean_idf", idf.copy()), (3,), "share")  # the same values, built apart
    assert calls == ["mean_idf"]  # the training texts' vectors, once
    column.score([scoring.Pass(enc, (1, 4)), scoring.Pass(enc._replace(weights=idf.copy()), (2,))])
    assert calls == ["mean_idf"] * 5  # then only the validation couples: 2 passes x 2 sides
    del calls[:]
    column.fit(Encoding("mean_idf", idf * 2.0), (1,))  # other weights
    column.fit(Encoding("mean"), (1,))  # another kind
    column.fit(Encoding("mean", transform=transforms.zipf_whitening(table, "uniform", "centre")), (1,))  # a map
    column.fit(Encoding("mean"), (2,), "share_squared")
    assert calls == ["mean_idf", "mean", "mean"]
    ref = fit_components(scoring.text_vectors(enc, table, *column.texts), 3, "share")
    assert again[0].vectors.tobytes() == ref.vectors.tobytes() and again[0].scales.tobytes() == ref.scales.tobytes()
    assert first[1].vectors.tobytes() == fit_components(scoring.text_vectors(enc, table, *column.texts), 2).vectors.tobytes()
