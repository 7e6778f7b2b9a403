"""repro.search.neighbours.top_k and Encoder.neighbours: exact top k against a brute force over the full
score matrix (every couple scored, then sorted), with ties, blocks smaller than the corpus, near
ties below float32's rounding, memory maps and bad input (issue 35, item 3)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from repro.encode.encoder import Encoder
from repro.errors import InputError
from repro.search import neighbours
from repro.search.neighbours import top_k

add = neighbours.Pool.add
from repro.core.textmetric import vector_scores


def brute_force(queries, corpus, k, metric):
    """Every couple scored by vector_scores, each row sorted by (score descending, index ascending)."""
    q, c = np.asarray(queries, np.float64), np.asarray(corpus, np.float64)
    s = vector_scores(np.repeat(q, len(c), axis=0), np.tile(c, (len(q), 1)), metric).reshape(len(q), len(c))
    ids = np.array([np.lexsort((np.arange(len(c)), -row))[:k] for row in s])
    return ids, np.take_along_axis(s, ids, axis=1)


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
def test_random_vectors_match_the_brute_force_whatever_the_blocks(metric):
    rng = np.random.default_rng(0)
    corpus = rng.standard_normal((257, 12)).astype(np.float32)
    queries = rng.standard_normal((37, 12)).astype(np.float32)
    want_ids, want_scores = brute_force(queries, corpus, 7, metric)
    for query_block, corpus_block in ((1024, 8192), (5, 16), (1, 1), (37, 256), (8, 7)):
        ids, scores = top_k(queries, corpus, 7, metric, query_block=query_block, corpus_block=corpus_block)
        assert ids.shape == scores.shape == (37, 7) and ids.dtype == np.int64 and scores.dtype == np.float64
        np.testing.assert_array_equal(ids, want_ids)
        np.testing.assert_allclose(scores, want_scores, rtol=1e-12, atol=1e-12)
    assert (np.diff(scores, axis=1) <= 0).all()  # best first


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
def test_ties_go_to_the_lower_index(metric):
    """Small whole numbers: every product is exact, so many couples score exactly alike."""
    rng = np.random.default_rng(1)
    for trial in range(12):
        n, d = int(rng.integers(1, 120)), int(rng.integers(1, 5))
        corpus = rng.integers(-1, 2, (n, d)).astype(np.float32)
        queries = rng.integers(-1, 2, (int(rng.integers(1, 20)), d)).astype(np.float32)
        k = int(rng.integers(1, n + 1))
        want_ids, want_scores = brute_force(queries, corpus, k, metric)
        ids, scores = top_k(queries, corpus, k, metric, query_block=int(rng.integers(1, 9)),
                            corpus_block=int(rng.integers(1, 40)))
        np.testing.assert_array_equal(ids, want_ids, err_msg=f"trial {trial}")
        np.testing.assert_allclose(scores, want_scores, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
def test_a_flood_of_ties_is_settled_in_bounded_pools(metric, monkeypatch):
    """800 items of 3 distinct vectors: every query ties with hundreds of items, more than a pool
    holds (4k + 256), and more entries per block than are taken at once (a slab of rows at a time)."""
    rng = np.random.default_rng(6)
    corpus = rng.integers(-1, 2, (3, 4)).astype(np.float32)[rng.integers(0, 3, 800)]
    queries = rng.integers(-1, 2, (9, 4)).astype(np.float32)
    monkeypatch.setattr(neighbours, "CANDIDATES", 500)
    added = []
    monkeypatch.setattr(neighbours.Pool, "add", lambda self, r, *rest: added.append(r.size) or add(self, r, *rest))
    want = brute_force(queries, corpus, 3, metric)
    ids, scores = top_k(queries, corpus, 3, metric, query_block=4, corpus_block=400)
    np.testing.assert_array_equal(ids, want[0])
    np.testing.assert_allclose(scores, want[1], rtol=1e-12, atol=1e-12)
    assert max(added) <= 500 and sum(added) > 4 * (4 * 3 + 256)


def test_a_case_by_hand():
    corpus = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [2.0, 0.0]])
    query = np.array([[1.0, 0.0]])
    ids, scores = top_k(query, corpus, 3, "cosine", corpus_block=2)
    assert ids.tolist() == [[0, 2, 3]] and scores.tolist() == [[1.0, 1.0, 1.0]]  # the tie in index order
    ids, scores = top_k(query, corpus, 3, "euclidean", corpus_block=2)
    assert ids.tolist() == [[0, 2, 3]] and scores.tolist() == [[0.0, 0.0, -1.0]]  # minus the distances 0, 0, 1
    ids, scores = top_k(query, corpus, 4, "euclidean", corpus_block=1)
    assert ids.tolist() == [[0, 2, 3, 1]] and scores[0, 3] == -np.sqrt(2.0)


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
def test_near_ties_below_float32_rounding_are_ordered_exactly(metric):
    """float64 corpus rows 1e-9 apart: float32 cannot tell them apart, the result still must."""
    rng = np.random.default_rng(2)
    base = rng.standard_normal(16)
    corpus = base + 1e-9 * rng.standard_normal((300, 16))
    queries = base + 1e-3 * rng.standard_normal((6, 16))
    assert len(np.unique(corpus.astype(np.float32), axis=0)) < 300  # float32 merges some of them
    want_ids, want_scores = brute_force(queries, corpus, 10, metric)
    for corpus_block in (8192, 13, 1):
        ids, scores = top_k(queries, corpus, 10, metric, corpus_block=corpus_block)
        np.testing.assert_array_equal(ids, want_ids)
        np.testing.assert_allclose(scores, want_scores, rtol=1e-14, atol=0)


def test_zero_vectors_under_the_cosine_score_0():
    corpus = np.array([[0.0, 0.0], [1.0, 1.0], [-1.0, 0.0], [0.0, 0.0]])
    queries = np.array([[0.0, 0.0], [-2.0, -1.0]])
    ids, scores = top_k(queries, corpus, 3, "cosine", corpus_block=2)
    assert ids[0].tolist() == [0, 1, 2] and scores[0].tolist() == [0.0, 0.0, 0.0]  # every item scores 0: index order
    assert ids[1].tolist() == [2, 0, 3] and scores[1, 1:].tolist() == [0.0, 0.0]
    np.testing.assert_allclose(scores[1, 0], 2 / np.sqrt(5))


def test_a_memory_mapped_corpus_and_integer_vectors(tmp_path):
    rng = np.random.default_rng(3)
    corpus = rng.standard_normal((90, 8)).astype(np.float32)
    np.save(tmp_path / "X.npy", corpus)
    mapped = np.load(tmp_path / "X.npy", mmap_mode="r")
    queries = rng.integers(-3, 4, (4, 8))
    want = brute_force(queries, corpus, 5, "cosine")
    ids, scores = top_k(queries, mapped, 5, "cosine", corpus_block=16)
    np.testing.assert_array_equal(ids, want[0])
    np.testing.assert_allclose(scores, want[1], rtol=1e-12)


def test_k_above_the_corpus_is_cut_with_a_warning():
    corpus = np.eye(3)
    with pytest.warns(UserWarning, match="k=5 is more than the 3 items of the corpus: each query gets all 3"):
        ids, _ = top_k(corpus, corpus, 5, "cosine")
    assert ids.tolist() == [[0, 1, 2], [1, 0, 2], [2, 0, 1]]


@pytest.mark.parametrize("args, kwargs, message", [
    ((np.eye(3), np.eye(3), 0), {}, "k: must be at least 1, got 0"),
    ((np.eye(3), np.eye(3), 2.5), {}, "k: must be a whole number, got 2.5"),
    ((np.eye(3), np.eye(4), 1), {}, "corpus: 4-d vectors, but the queries are 3-d"),
    ((np.eye(3), np.zeros((0, 3)), 1), {}, "corpus: no vectors (shape (0, 3))"),
    ((np.ones(3), np.eye(3), 1), {}, "queries: expected an (n, d) array of numbers, got shape (3,) of float64"),
    ((np.eye(3), np.array([[1.0, 0, 0], [np.nan, 0, 0]]), 1), {}, "corpus: row 1 holds NaN or inf"),
    ((np.eye(3), np.eye(3), 1), {"corpus_block": 0}, "corpus_block: must be a whole number of at least 1, got 0"),
])
def test_bad_input_names_the_argument(args, kwargs, message):
    with pytest.raises(InputError) as err:
        top_k(*args, "cosine", **kwargs)
    assert str(err.value) == message


WORDS = [f"w{i}" for i in range(30)]


@pytest.fixture(scope="module")
def enc():
    rng = np.random.default_rng(4)
    matrix = rng.standard_normal((len(WORDS), 6)).astype(np.float32)
    corpus = [list(rng.choice(WORDS, rng.integers(1, 6))) for _ in range(50)]
    return Encoder.pretrained((WORDS, matrix), corpus=corpus, model="paper")


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
def test_the_encoders_neighbours_score_as_its_similarity(enc, metric):
    rng = np.random.default_rng(5)
    texts = [list(rng.choice(WORDS, rng.integers(1, 8))) for _ in range(40)]
    texts[7] = list(texts[3])  # a duplicate: a tie, broken by the lower index
    queries = [texts[3], ["w1", "w2"]]
    ids, scores = enc.neighbours(queries, texts, k=5, metric=metric)
    assert ids[0, :2].tolist() == [3, 7]
    for q, row_ids, row_scores in zip(queries, ids, scores):
        np.testing.assert_allclose(row_scores, enc.similarity([q] * 5, [texts[i] for i in row_ids], metric=metric),
                                   rtol=1e-12, atol=1e-12)
    vectors = enc.transform(texts)
    want = brute_force(enc.transform(queries), vectors, 5, metric)
    np.testing.assert_array_equal(ids, want[0])
    by_vectors = enc.neighbours(enc.transform(queries), vectors, k=5, metric=metric, corpus_block=3)
    np.testing.assert_array_equal(by_vectors[0], ids)
    np.testing.assert_array_equal(by_vectors[1], scores)


def test_the_encoders_metric_is_the_default(enc):
    texts = [["w1", "w2"], ["w3"], ["w1", "w2", "w2"]]
    assert enc.metric == "euclidean"
    np.testing.assert_array_equal(enc.neighbours(texts, texts, k=3)[1], enc.neighbours(texts, texts, 3, "euclidean")[1])


def test_the_encoder_refuses_vectors_of_another_width_and_a_single_string(enc):
    with pytest.raises(InputError, match=r"^corpus: 4-d vectors, but the encoder's are 6-d$"):
        enc.neighbours([["w1"]], np.ones((3, 4)), k=1)
    with pytest.raises(InputError, match="queries: expected a list of texts or an"):
        enc.neighbours("w1 w2", [["w1"]], k=1)
    with pytest.raises(ValueError, match="metric"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            enc.neighbours([["w1"]], [["w1"]], k=1, metric="dot")
