"""repro.encode.encoder.Encoder and its kernel repro.encode.weightedsums, on tiny vocabularies."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from repro.encode import weightedsums
from repro.io import store
from repro.spaces.components import fit_components, remove_components
from repro.errors import InputError
from repro.spaces.vectors import normalise
from repro.encode.encoder import SHIPPED, EmptyTextWarning, Encoder
from repro.core.model import represent
from repro.words.ranklookup import RankLookup
from repro.words.vocabulary import Vocabulary
from repro.words.docfreq import DocFreq

WORDS = [f"w{i}" for i in range(40)]


@pytest.fixture(scope="module")
def matrix():
    return np.random.default_rng(0).standard_normal((len(WORDS), 6)).astype(np.float32)


@pytest.fixture(scope="module")
def corpus():
    rng = np.random.default_rng(1)
    # token lists: the paper's rule would read the string "w12" as "w0" (numbers become 0)
    return [list(rng.choice(WORDS, rng.integers(1, 8))) for _ in range(60)]


@pytest.fixture(scope="module")
def enc(matrix, corpus):
    return Encoder.pretrained((WORDS, matrix), corpus=corpus, chunk=5, model="paper")


def token_texts(seed, n=23, oov=True):
    rng = np.random.default_rng(seed)
    texts = [list(rng.choice(WORDS, rng.integers(1, 45))) for _ in range(n)]
    if oov:
        texts[3] = texts[3] + ["unknown", "Words"]
    return texts


def test_transform_equals_represent(enc, matrix):
    texts = token_texts(2)
    rows, lengths = enc.vocabulary.rows(texts)
    expected = np.asarray(represent(enc.weights_, normalise(matrix), rows, lengths))
    got = enc.transform(texts)
    assert got.shape == (len(texts), 6) and got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-7)
    # texts longer than n_max (up to 44 words here) and a chunk of 5 split across threads
    assert max(map(len, texts)) > enc.n_max


def test_the_paper_model_by_hand(matrix):
    """Two texts of two known words: t = (w1 e_high-idf + w2 e_low-idf) / 2 with n_max = 2."""
    df = DocFreq(["w0", "w1"], np.array([5, 1]), 10)  # w1 is rarer: higher idf, first
    enc = Encoder((WORDS, matrix), df, weights=[3.0, 0.5], normalize=False)
    got = enc.transform([["w0", "w1"], ["w1", "zzz", "w0"]])
    expected = (3.0 * matrix[1] + 0.5 * matrix[0]) / 2
    np.testing.assert_allclose(got, [expected, expected], rtol=1e-6)


def test_raw_strings_and_token_lists_agree():
    words = ["alpha", "beta", "gamma", "delta", "0"]
    m = np.random.default_rng(3).standard_normal((5, 4)).astype(np.float32)
    enc = Encoder.pretrained((words, m), corpus=["alpha beta", "beta gamma", "delta 0 alpha"], model="paper")
    raw = ["Alpha, BETA and gamma!", "delta\t- 1984 beta", "nothing known here"]
    tokens = [["alpha", "beta", "and", "gamma"], ["delta", "0", "beta"], ["nothing", "known", "here"]]
    with pytest.warns(EmptyTextWarning):
        a = enc.transform(raw)
    with pytest.warns(EmptyTextWarning):
        b = enc.transform(tokens)
    np.testing.assert_array_equal(a, b)
    assert np.abs(a[:2]).sum(axis=1).min() > 0


def test_no_known_word_is_the_zero_vector_with_a_warning(enc):
    with pytest.warns(EmptyTextWarning, match=r"1 of 3 texts have no word with a vector \(first: texts\[1\]\)"):
        got = enc.transform([["w1"], ["zzz", "yyy"], ["w2", "qq"]])
    np.testing.assert_array_equal(got[1], np.zeros(6, np.float32))
    # unknown words do not count in n: ["w2", "qq"] is ["w2"]
    np.testing.assert_array_equal(got[2], enc.transform([["w2"]])[0])


def test_deterministic_whatever_the_chunk_and_threads(enc, matrix, corpus):
    texts = token_texts(4, n=50)
    one = Encoder.pretrained((WORDS, matrix), corpus=corpus, chunk=7, workers=1, model="paper").transform(texts)
    two = Encoder.pretrained((WORDS, matrix), corpus=corpus, chunk=7, workers=2, model="paper").transform(texts)  # 8 chunks, 2 threads
    many = Encoder.pretrained((WORDS, matrix), corpus=corpus, chunk=3, workers=16, model="paper").transform(texts)  # 17 chunks
    np.testing.assert_array_equal(one, two)
    np.testing.assert_array_equal(one, many)
    np.testing.assert_array_equal(one, enc.transform(texts))
    np.testing.assert_array_equal(one, enc.transform(texts))


def test_save_load_round_trip(enc, matrix, tmp_path):
    path = str(tmp_path / "enc.npz")
    enc.save(path)
    meta = json.loads((tmp_path / "enc.json").read_text())
    assert meta["fingerprint"] == Vocabulary(WORDS, np.zeros(40, int), 1).fingerprint() and meta["n_max"] == 30
    back = Encoder.load(path, vectors=(WORDS, matrix))
    texts = token_texts(5)
    np.testing.assert_array_equal(back.transform(texts), enc.transform(texts))
    np.testing.assert_array_equal(back.vocabulary.idf, enc.vocabulary.idf)
    with np.load(path, allow_pickle=False) as z:  # no pickles anywhere
        assert set(z.files) == {"weights", "df", "n_docs", "idf", "df_unlisted"}


def test_load_from_a_vectors_folder_by_its_recorded_path(enc, matrix, tmp_path):
    store.save_vectors(str(tmp_path / "vec"), WORDS, matrix)
    a = Encoder.pretrained(str(tmp_path / "vec"), DocFreq(enc.vocabulary.words, enc.vocabulary.df, 60), model="paper")
    a.save(str(tmp_path / "a.npz"))
    b = Encoder.load(str(tmp_path / "a.npz"))  # vectors from the recorded folder
    np.testing.assert_array_equal(b.transform([["w3", "w4"]]), a.transform([["w3", "w4"]]))


def test_weights_for_another_vocabulary_fail_clearly(enc, matrix, tmp_path):
    path = str(tmp_path / "enc.npz")
    enc.save(path)
    other = [w.upper() for w in WORDS]
    with pytest.raises(InputError, match=r"enc.npz: weights saved for another vocabulary \(40 words"):
        Encoder.load(path, vectors=(other, matrix))
    with pytest.raises(InputError, match="saved for 6-d vectors, but the vectors are 3-d"):
        Encoder.load(path, vectors=(WORDS, matrix[:, :3]))
    with pytest.raises(InputError, match="pass vectors="):
        Encoder.load(path)
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    np.savez(path, **{**arrays, "idf": arrays["idf"] + 1e-9})
    with pytest.raises(InputError, match="enc.npz: the idf table does not match the document frequencies"):
        Encoder.load(path, vectors=(WORDS, matrix))


def test_df_sources_agree_and_unlisted_words_get_df_1(matrix, corpus, tmp_path):
    freq = DocFreq.from_corpus(corpus)
    freq.save(str(tmp_path / "df.npz"))
    a = Encoder.pretrained((WORDS, matrix), str(tmp_path / "df.npz"), model="paper")
    b = Encoder.pretrained((WORDS, matrix), corpus=corpus, model="paper")
    np.testing.assert_array_equal(a.vocabulary.df, b.vocabulary.df)
    c = Encoder.pretrained((WORDS, matrix), DocFreq(["w0"], np.array([7]), 9), model="paper")
    assert c.vocabulary.df[0] == 7 and (c.vocabulary.df[1:] == 1).all()
    with pytest.raises(ValueError, match="exactly one"):
        Encoder((WORDS, matrix))
    store.save_df(str(tmp_path / "bare.npz"), np.ones(40), 3)
    with pytest.raises(InputError, match="without its words"):
        Encoder((WORDS, matrix), str(tmp_path / "bare.npz"))


def test_shipped_weights_and_their_provenance():
    w, meta = store.load_weights(SHIPPED)
    assert w.shape == (30,) and meta["setting"] == "wikivar" and meta["loss"] == "median"
    assert len(meta["source_sha256"]) == 64


def test_similarity_is_minus_the_distance(enc):
    a, b = ["w1 w2", "w3"], ["w2 w1", "w5 w6"]
    s = enc.similarity(a, b)
    ta, tb = enc.transform(a), enc.transform(b)
    assert s[0] == 0.0  # the same words in another order: the same vector
    np.testing.assert_allclose(s[1], -np.linalg.norm(ta[1] - tb[1]), rtol=1e-6)
    with pytest.raises(ValueError, match="texts_a has 2 texts but texts_b has 1"):
        enc.similarity(a, b[:1])


def test_bad_texts(enc):
    with pytest.raises(ValueError, match="single string"):
        enc.transform("w1 w2")
    with pytest.raises(ValueError, match=r"texts\[1\]: expected a string or a list"):
        enc.transform(["w1", 5])
    assert enc.transform([]).shape == (0, 6)
    with pytest.raises(ValueError, match="no weights yet"):
        Encoder((WORDS, np.eye(40, 6, dtype=np.float32)), corpus=["w1"]).transform(["w1"])


def test_fit_learns_weights_that_separate_couples(matrix):
    """Related couples share their rarest word: the learned weights must score them higher."""
    rng = np.random.default_rng(7)
    corpus = [list(rng.choice(WORDS[20:], 6)) for _ in range(200)]  # w0..w19 rare, w20.. common
    couples, labels = [], []
    for i in range(400):
        key = WORDS[i % 20]
        common = lambda: list(rng.choice(WORDS[20:], 9))  # noqa: E731
        other = WORDS[(i + 1 + rng.integers(19)) % 20]
        related = i % 2 == 0
        couples.append(([key] + common(), [key if related else other] + common()))
        labels.append(int(related))
    enc = Encoder((WORDS, matrix), corpus=corpus, n_max=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        enc.fit(couples, labels, loss="median", kappa=40.0, seed=0)
    fit_info = enc.provenance_["fit"]
    assert enc.weights_.shape == (10,) and fit_info["kappa"] == 40.0 and fit_info["kappa_source"] == "given"
    s = enc.similarity([a for a, _ in couples], [b for _, b in couples])
    y = np.asarray(labels) == 1
    assert s[y].mean() > s[~y].mean()
    assert enc.weights_[0] > np.abs(enc.weights_[1:]).mean()  # the rarest word's weight dominates


def test_kernel_pieces():
    lookup = RankLookup(["a", "b", "c"], np.array([2, 0, 1]))
    ranks, n = lookup.rows([["a", "x", "b"], [], ["c"]])
    np.testing.assert_array_equal(ranks, [[0, 2], [3, 3], [1, 3]])
    np.testing.assert_array_equal(n, [2, 0, 1])
    coef = weightedsums.coefficient_table([4.0, 2.0], 3)
    np.testing.assert_allclose(coef[1], [4.0, 0, 0])
    np.testing.assert_allclose(coef[2], [2.0, 1.0, 0])
    table = np.array([[1.0, 0], [0, 1.0], [1, 1], [0, 0]], np.float32)
    got = weightedsums.weighted_sums(ranks, n, coef, table)
    np.testing.assert_allclose(got, [[3.0, 1.0], [0, 0], [0, 4.0]])  # 2 (1, 0) + 1 (1, 1); 4 (0, 1)


def test_small_sums_are_scipys_bits(monkeypatch):
    # below SMALL words a chunk's sums are a NumPy loop: the same bits as SciPy's kernel above it
    rng = np.random.default_rng(3)
    table = rng.standard_normal((500, 24)).astype(np.float32)
    lengths = rng.integers(0, 30, 60).astype(np.int32)
    ranks = np.sort(rng.integers(0, 500, (60, 30)), axis=1).astype(np.int32)
    coef = weightedsums.coefficient_table(rng.uniform(0.1, 2.0, 12).astype(np.float32), 30)
    small = weightedsums.weighted_sums(ranks, lengths, coef, table)
    monkeypatch.setattr(weightedsums, "SMALL", 0)
    big = weightedsums.weighted_sums(ranks, lengths, coef, table)
    assert int(lengths.sum()) < 2048  # so the first call took the loop
    np.testing.assert_array_equal(small, big)
    np.testing.assert_array_equal(small[lengths == 0], 0.0)


def test_similarity_by_cosine(enc, matrix, corpus):
    # token lists: the paper's rule would read every string "w3" as "w0" (numbers become 0)
    a = [["w1", "w2"], ["w3"], ["w1", "w2", "w7"], ["nothing", "known"]]
    b = [["w2", "w1"], ["w5", "w6"], ["w9"], ["w4"]]
    with pytest.warns(EmptyTextWarning, match=r"1 of 4 texts_a have no word with a vector \(first: texts_a\[3\]\)"):
        s = enc.similarity(a, b, metric="cosine")
        ta, tb = enc.transform(a[:3]).astype(np.float64), enc.transform(b[:3]).astype(np.float64)
    expected = (ta * tb).sum(axis=1) / (np.linalg.norm(ta, axis=1) * np.linalg.norm(tb, axis=1))
    assert s.dtype == np.float64 and 1.0 - 1e-12 < s[0] <= 1.0  # the same vector; rounding never steps past 1
    np.testing.assert_allclose(s[:3], expected, rtol=1e-12)
    assert s[3] == 0.0  # a zero vector (no known word) scores 0
    assert -1.0 < s[1] < 1.0 and s[1] != enc.similarity(a[1:2], b[1:2])[0]
    # the encoder's own metric is the default; the paper's Euclidean distance unless told
    assert enc.metric == "euclidean"
    cos = Encoder.pretrained((WORDS, matrix), corpus=corpus, metric="cosine", model="paper")
    np.testing.assert_array_equal(cos.similarity(a[:3], b[:3]), s[:3])
    np.testing.assert_array_equal(cos.similarity(a[:3], b[:3], metric="euclidean"), enc.similarity(a[:3], b[:3]))
    with pytest.raises(ValueError, match="metric: expected one of euclidean, cosine, got 'manhattan'"):
        enc.similarity(a, b, metric="manhattan")
    with pytest.raises(ValueError, match="metric: expected one of"):
        Encoder((WORDS, matrix), corpus=corpus, metric="dot")


def test_a_saved_encoder_records_its_metric(tmp_path, matrix, corpus):
    vec = str(tmp_path / "vec")
    store.save_vectors(vec, WORDS, matrix)
    Encoder.pretrained(vec, corpus=corpus, metric="cosine", model="paper").save(str(tmp_path / "cos.npz"))
    Encoder.pretrained(vec, corpus=corpus, model="paper").save(str(tmp_path / "euc.npz"))
    assert json.loads((tmp_path / "cos.json").read_text())["metric"] == "cosine"
    assert json.loads((tmp_path / "euc.json").read_text())["metric"] == "euclidean"
    a, b = ["w1 w2", "w3 w8"], ["w2 w4", "w5 w6"]
    cos, euc = Encoder.load(str(tmp_path / "cos.npz")), Encoder.load(str(tmp_path / "euc.npz"))
    assert cos.metric == "cosine" and euc.metric == "euclidean"
    np.testing.assert_array_equal(cos.similarity(a, b), euc.similarity(a, b, metric="cosine"))
    assert Encoder.load(str(tmp_path / "cos.npz"), metric="euclidean").metric == "euclidean"
    # a file written before metrics were recorded scores by the paper's distance
    meta = json.loads((tmp_path / "cos.json").read_text())
    del meta["metric"]
    (tmp_path / "cos.json").write_text(json.dumps(meta))
    assert Encoder.load(str(tmp_path / "cos.npz")).metric == "euclidean"
    meta["metric"] = "hamming"
    (tmp_path / "cos.json").write_text(json.dumps(meta))
    with pytest.raises(InputError, match=r"cos.npz: metric: expected one of euclidean, cosine, got 'hamming'"):
        Encoder.load(str(tmp_path / "cos.npz"))


def test_fit_records_the_distance_it_learned_with(matrix, corpus):
    rng = np.random.default_rng(3)
    couples = [(list(rng.choice(WORDS, 4)), list(rng.choice(WORDS, 4))) for _ in range(60)]
    enc = Encoder((WORDS, matrix), corpus=corpus, n_max=4, metric="cosine")
    enc.fit(couples, [i % 2 for i in range(60)], kappa=10.0, max_epochs=2)
    assert enc.provenance_["fit"]["distance"] == "euclidean" and enc.metric == "cosine"  # a given metric stays
    assert enc.metric_from == "given"
    # not given: the paper's Euclidean until fit, then the training distance (issue 35, item 6)
    for distance in ("euclidean", "cosine"):
        enc = Encoder((WORDS, matrix), corpus=corpus, n_max=4)
        assert (enc.metric, enc.metric_from) == ("euclidean", "default")
        enc.fit(couples, [i % 2 for i in range(60)], kappa=10.0, max_epochs=2, distance=distance)
        assert (enc.metric, enc.metric_from) == (distance, "training")
        np.testing.assert_array_equal(enc.similarity(["w1 w2"], ["w2 w3"]),
                                      enc.similarity(["w1 w2"], ["w2 w3"], metric=distance))
    paper = Encoder.pretrained((WORDS, matrix), corpus=corpus, model="paper")
    assert (paper.metric, paper.metric_from) == ("euclidean", "shipped")  # the paper's model keeps Euclidean
    given = Encoder.pretrained((WORDS, matrix), corpus=corpus, model="paper", metric="cosine")
    assert (given.metric, given.metric_from) == ("cosine", "given")


def test_common_components_removed_and_saved(enc, matrix, tmp_path):
    train, texts = token_texts(40), token_texts(7)
    plain = enc.transform(texts)
    enc.fit_components(train, k=2)
    try:
        ref = fit_components(_without_components(enc, train), 2)
        np.testing.assert_allclose(np.abs(enc.components_.vectors @ ref.vectors.T), np.eye(2), atol=1e-5)
        out = enc.transform(texts)
        np.testing.assert_allclose(out, remove_components(plain, enc.components_), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(out @ enc.components_.vectors.T, 0.0, atol=1e-5)
        path = str(tmp_path / "cc.npz")
        enc.save(path)
        back = Encoder.load(path, vectors=(WORDS, matrix))
        np.testing.assert_array_equal(back.transform(texts), out)
    finally:
        enc.components_ = None


def _without_components(enc, texts):
    saved, enc.components_ = enc.components_, None
    try:
        return enc.transform(texts)
    finally:
        enc.components_ = saved


def test_an_encoder_on_a_ready_space_reads_nothing_and_encodes_as_the_reading_one(matrix, corpus, monkeypatch):
    """Encoder(space) stores the space and its options (cheap: no vectors read, no df counted);
    Encoder.from_vectors and the old call Encoder(vectors, corpus=...) read, and all three give
    the same vectors bit for bit."""
    from repro.encode import wordspace
    from repro.encode.wordspace import WordSpace

    w = np.linspace(1.0, 0.2, 12).astype(np.float32)
    space = WordSpace.of((WORDS, matrix), None, corpus, whiten="zipf")
    for owner, name in ((wordspace, "read_vectors"), (wordspace, "docfreq_of"), (WordSpace, "of")):
        monkeypatch.setattr(owner, name, lambda *a, **k: pytest.fail("read or counted"))
    cheap = Encoder(space, weights=w)
    assert cheap.word_space is space and cheap.settings["whiten"] == "zipf"
    monkeypatch.undo()
    texts = token_texts(7)
    for reading in (Encoder.from_vectors((WORDS, matrix), corpus=corpus, whiten="zipf", weights=w),
                    Encoder((WORDS, matrix), corpus=corpus, whiten="zipf", weights=w)):
        assert reading.settings == cheap.settings
        np.testing.assert_array_equal(reading.transform(texts), cheap.transform(texts))


def test_a_ready_space_refuses_what_would_reshape_it(matrix, corpus):
    from repro.encode.wordspace import WordSpace

    space = WordSpace.of((WORDS, matrix), None, corpus, whiten="zipf")
    with pytest.raises(ValueError, match="whiten: the WordSpace was made with whiten='zipf', not 'centre'"):
        Encoder(space, whiten="centre")
    with pytest.raises(ValueError, match="corpus: the WordSpace holds its df"):
        Encoder(space, corpus=corpus)
    with pytest.raises(ValueError, match="vectors: already a WordSpace"):
        Encoder.from_vectors(space)
    with pytest.raises(ValueError, match="made by WordSpace.of"):
        Encoder(WordSpace.build(WORDS, matrix, np.ones(len(WORDS)), 10))
    assert Encoder(space, whiten="zipf").settings["whiten"] == "zipf"  # the space's own value is welcome
