"""Baselines of paper section 5.1 against vectors worked out by hand on a 5-word table."""

import numpy as np
import pytest

from repro.core import baselines as bl
from repro.core.pairset import PairSet

EMBEDDING_METHODS = bl.METHODS[1:]  # every method but tf-idf: the ones that make text vectors

# Row 0 is a real word that no text below uses: padding is 0, so if padding were ever
# read, this huge vector would show up in every result.
TABLE = np.array([[100.0, -100.0],
                  [1.0, 2.0],
                  [3.0, -1.0],
                  [-2.0, 4.0],
                  [0.0, 1.0]])
IDF = np.array([9.0, 3.0, 2.0, 1.0, 0.5])


def _texts(*rows, width=5, pad=0):
    tok = np.full((len(rows), width), pad, dtype=np.int32)
    for i, r in enumerate(rows):
        tok[i, :len(r)] = r
    return tok, np.array([len(r) for r in rows], dtype=np.int32)


# Text A = words 1, 2, 3 (n = 3); text B = words 2, 4 (n = 2); C = word 3 alone; E empty.
TOK, LEN = _texts([1, 2, 3], [2, 4], [3], [])

EXPECTED = {
    # A: mean of (1,2), (3,-1), (-2,4) = (2/3, 5/3); B: mean of (3,-1), (0,1) = (1.5, 0)
    "mean": [[2 / 3, 5 / 3], [1.5, 0.0], [-2.0, 4.0], [0.0, 0.0]],
    "max": [[3.0, 4.0], [3.0, 1.0], [-2.0, 4.0], [0.0, 0.0]],
    "minmax": [[3.0, 4.0, -2.0, -1.0], [3.0, 1.0, 0.0, -1.0], [-2.0, 4.0, -2.0, 4.0], [0, 0, 0, 0]],
    # n <= 6: k = 1 under both rules, so the first (highest-idf) word alone
    "mean_top30": [[1.0, 2.0], [3.0, -1.0], [-2.0, 4.0], [0.0, 0.0]],
    "max_top30": [[1.0, 2.0], [3.0, -1.0], [-2.0, 4.0], [0.0, 0.0]],
    "minmax_top30": [[1.0, 2.0, 1.0, 2.0], [3.0, -1.0, 3.0, -1.0], [-2.0, 4.0, -2.0, 4.0], [0, 0, 0, 0]],
    # A: (3*(1,2) + 2*(3,-1) + 1*(-2,4)) / 3 = (7/3, 8/3); B: (2*(3,-1) + 0.5*(0,1)) / 2
    "mean_idf": [[7 / 3, 8 / 3], [3.0, -0.75], [-2.0, 4.0], [0.0, 0.0]],
}


@pytest.mark.parametrize("method", EMBEDDING_METHODS)
def test_baseline_vectors_by_hand(method):
    got = bl.baseline_vectors(method, TABLE, TOK, LEN, IDF)
    np.testing.assert_allclose(got, np.array(EXPECTED[method], dtype=float), rtol=0, atol=1e-12)


def test_code_rule_top_mean_divides_by_n():
    # k = max(1, floor(n/3)) = 1 for n = 3 and n = 2, and the sum is divided by n
    got = bl.baseline_vectors("mean_top30", TABLE, TOK, LEN, IDF, top_rule="code")
    np.testing.assert_allclose(got, [[1 / 3, 2 / 3], [1.5, -0.5], [-2.0, 4.0], [0.0, 0.0]], atol=1e-12)
    # max over the same top word: the divisor plays no part
    np.testing.assert_allclose(bl.baseline_vectors("max_top30", TABLE, TOK, LEN, top_rule="code"),
                               EXPECTED["max_top30"], atol=1e-12)


def test_top_k_rounding_both_rules():
    n = np.arange(31)
    paper = [0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9]
    code = [0, 1, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 10]
    np.testing.assert_array_equal(bl.top_k(n, "paper"), paper)
    np.testing.assert_array_equal(bl.top_k(n, "code"), code)
    differ = set(np.nonzero(bl.top_k(n, "paper") != bl.top_k(n, "code"))[0].tolist())
    # the reference notes list, for 10..30 words: 12, 13, 15, 16, 18, 19, 21-30; below 10: 6, 9
    assert differ == {6, 9, 12, 13, 15, 16, 18, 19, *range(21, 31)}
    assert bl.top_k([20], "paper")[0] == bl.top_k([20], "code")[0] == 6
    np.testing.assert_array_equal(bl.top_divisor([0, 7, 20], "paper"), [0, 2, 6])
    np.testing.assert_array_equal(bl.top_divisor([0, 7, 20], "code"), [0, 7, 20])


def test_top30_on_longer_texts():
    # 9 words: paper k = floor(2.7) = 2, code k = floor(3) = 3
    words = [1, 2, 3, 4, 1, 2, 3, 4, 1]
    tok, n = _texts(words, width=10)
    paper = bl.baseline_vectors("mean_top30", TABLE, tok, n)
    code = bl.baseline_vectors("mean_top30", TABLE, tok, n, top_rule="code")
    np.testing.assert_allclose(paper, [[(1 + 3) / 2, (2 - 1) / 2]], atol=1e-12)
    np.testing.assert_allclose(code, [[(1 + 3 - 2) / 9, (2 - 1 + 4) / 9]], atol=1e-12)
    np.testing.assert_allclose(bl.baseline_vectors("minmax_top30", TABLE, tok, n), [[3, 2, 1, -1]])
    np.testing.assert_allclose(bl.baseline_vectors("minmax_top30", TABLE, tok, n, top_rule="code"), [[3, 4, -2, -1]])


def test_pair_scores_negative_euclidean():
    pairs = PairSet(TOK[[0, 0, 3, 2]], TOK[[1, 3, 3, 2]], LEN[[0, 0, 3, 2]], LEN[[1, 3, 3, 2]],
                    np.array([1, 0, 1, 0], dtype=np.int8))
    s = bl.baseline_pair_scores("mean", TABLE, pairs, IDF)
    # A vs B: (2/3 - 3/2, 5/3 - 0) = (-5/6, 5/3): d = sqrt(125)/6; A vs empty: |(2/3, 5/3)|
    np.testing.assert_allclose(s, [-np.sqrt(125) / 6, -np.sqrt(29) / 3, 0.0, 0.0], atol=1e-12)
    assert s.dtype == np.float64 and s.shape == (4,)
    s = bl.baseline_pair_scores("minmax", TABLE, pairs, IDF)
    np.testing.assert_allclose(s[0], -np.sqrt(0 + 9 + 4 + 0))  # (3,4,-2,-1) vs (3,1,0,-1)
    s = bl.baseline_pair_scores("mean", TABLE, pairs, IDF, empty_score=-7.0)
    np.testing.assert_allclose(s, [-np.sqrt(125) / 6, -7.0, -7.0, 0.0], atol=1e-12)


def _dense_tfidf_cosine(ta, na, tb, nb, idf):
    out = []
    for x, m, y, k in zip(ta, na, tb, nb):
        u = np.bincount(x[:m], minlength=idf.size) * idf
        v = np.bincount(y[:k], minlength=idf.size) * idf
        den = np.linalg.norm(u) * np.linalg.norm(v)
        out.append(u @ v / den if den > 0 else 0.0)
    return np.array(out)


def test_tfidf_repeated_words_by_hand():
    # a = word1 twice + word2: (6, 2) on words 1, 2; b = word1 + word3 thrice: (3, 3) on 1, 3
    ta, na = _texts([1, 1, 2], [1], [2, 2], [], width=4)
    tb, nb = _texts([1, 3, 3, 3], [4], [2], [3], width=4)
    pairs = PairSet(ta, tb, na, nb, np.array([1, 0, 1, 0], dtype=np.int8))
    s = bl.baseline_pair_scores("tfidf", None, pairs, IDF)
    np.testing.assert_allclose(s, [18 / np.sqrt(40 * 18), 0.0, 1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(s, _dense_tfidf_cosine(ta, na, tb, nb, IDF), atol=1e-12)
    m = bl.baseline_vectors("tfidf", TABLE, ta, na, IDF)
    np.testing.assert_allclose(m.toarray()[0], [0, 6, 2, 0, 0])
    assert m.nnz == 4  # duplicates merged


def test_tfidf_random_against_dense_and_chunks():
    rng = np.random.default_rng(0)
    v, p, w = 12, 40, 8
    idf = rng.uniform(0.1, 5, v)
    ta, tb = rng.integers(0, 4, (p, w)), rng.integers(0, 6, (p, w))  # small range: many repeats
    na, nb = rng.integers(0, w + 1, p), rng.integers(0, w + 1, p)
    pairs = PairSet(ta, tb, na, nb, np.zeros(p, dtype=np.int8))
    want = _dense_tfidf_cosine(ta, na, tb, nb, idf)
    for chunk in (None, 1, 7):
        np.testing.assert_allclose(bl.baseline_pair_scores("tfidf", None, pairs, idf, chunk_size=chunk), want, atol=1e-12)


@pytest.mark.parametrize("method", bl.METHODS)
@pytest.mark.parametrize("rule", bl.TOP_RULES)
def test_chunking_matches_unchunked(method, rule):
    rng = np.random.default_rng(1)
    v, d, p, w = 30, 3, 53, 12
    table = rng.normal(size=(v, d))  # float64: chunked and whole must agree to rounding
    idf = rng.uniform(0.5, 4, v)
    a, b = rng.integers(0, v, (p, w)).astype(np.int32), rng.integers(0, v, (p, w)).astype(np.int32)
    la, lb = rng.integers(0, w + 1, p).astype(np.int32), rng.integers(0, w + 1, p).astype(np.int32)
    pairs = PairSet(a, b, la, lb, np.zeros(p, dtype=np.int8))
    whole = bl.baseline_pair_scores(method, table, pairs, idf, top_rule=rule)
    for chunk in (1, 5, 1000):
        np.testing.assert_allclose(bl.baseline_pair_scores(method, table, pairs, idf, top_rule=rule, chunk_size=chunk),
                                   whole, rtol=1e-12, atol=1e-12)
    if method != "tfidf":
        va = bl.baseline_vectors(method, table, a, la, idf, top_rule=rule)
        vb = bl.baseline_vectors(method, table, b, lb, idf, top_rule=rule, chunk_size=4)
        np.testing.assert_allclose(-np.linalg.norm(va - vb, axis=1), whole, rtol=1e-9, atol=1e-9)
    # a float32 table computes in float32: same scores to float32 precision
    single = bl.baseline_pair_scores(method, table.astype(np.float32), pairs, idf, top_rule=rule, chunk_size=7)
    np.testing.assert_allclose(single, whole, rtol=1e-5, atol=1e-5)


def test_padding_never_read():
    # garbage padding (out-of-range index 99) must not matter
    tok, n = _texts([1, 2, 3], [2, 4], [3], [], pad=99)
    for method in EMBEDDING_METHODS:
        np.testing.assert_allclose(bl.baseline_vectors(method, TABLE, tok, n, IDF), EXPECTED[method], atol=1e-12)


def test_every_method_scores_the_couples():
    pairs = PairSet(TOK, TOK[::-1], LEN, LEN[::-1], np.array([1, 0, 1, 0], dtype=np.int8))
    out = {m: bl.baseline_pair_scores(m, TABLE, pairs, IDF) for m in bl.METHODS}
    assert list(out) == ["tfidf", *EMBEDDING_METHODS] and all(v.shape == (4,) for v in out.values())
    np.testing.assert_allclose(out["mean"], -np.linalg.norm(np.array(EXPECTED["mean"]) -
                                                            np.array(EXPECTED["mean"])[::-1], axis=1))


def test_bad_input_messages():
    pairs = PairSet(TOK, TOK, LEN, LEN, np.zeros(4, dtype=np.int8))
    with pytest.raises(ValueError, match="method"):
        bl.baseline_pair_scores("median", TABLE, pairs, IDF)
    with pytest.raises(ValueError, match="top_rule"):
        bl.baseline_vectors("mean_top30", TABLE, TOK, LEN, top_rule="third")
    bad = TABLE.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"table.*NaN.*row 2"):
        bl.baseline_pair_scores("mean", bad, pairs, IDF)
    with pytest.raises(ValueError, match="idf: length 4 != vocabulary size 5"):
        bl.baseline_pair_scores("mean_idf", TABLE, pairs, IDF[:4])
    with pytest.raises(ValueError, match="idf: required"):
        bl.baseline_pair_scores("mean_idf", TABLE, pairs)
    with pytest.raises(ValueError, match="idf: contains NaN"):
        bl.baseline_pair_scores("tfidf", None, pairs, np.array([1, 2, np.nan, 1, 1]))
    with pytest.raises(ValueError, match="lengths"):
        bl.baseline_vectors("mean", TABLE, TOK, LEN[:3])
    with pytest.raises(ValueError, match="len_a"):
        bl.baseline_pair_scores("max", TABLE, PairSet(TOK, TOK, LEN + 3, LEN, pairs.label), IDF)
    with pytest.raises(ValueError, match="tokens: must be a 2-D"):
        bl.baseline_vectors("mean", TABLE, TOK[0], LEN[:1])
    with pytest.raises(ValueError, match=r"word indices must lie in 0\.\.4"):
        bl.baseline_vectors("mean", TABLE, TOK + 5, LEN)
    with pytest.raises(ValueError, match="table: must be a non-empty 2-D"):
        bl.baseline_vectors("max", TABLE[0], TOK, LEN)
    with pytest.raises(ValueError, match="pairs: a and b"):
        bl.baseline_pair_scores("mean", TABLE, PairSet(TOK, TOK[:, :3], LEN, LEN, pairs.label), IDF)
