"""Encoder's options beyond the paper (issue 23; repro/spaces/wordmap.py): word weights, whitening,
common components, frequency sources and learning under the cosine, on tiny tables.

Each is checked against a float64 reference of t = (1/n) sum_j z_j s(w_j) P(e_(j) - mu) written
here from the formulas, and the defaults against the vectors and weights of the code before them.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest
import scipy.linalg

from codeclass import same_class
from repro import cli
from repro.io import store
from repro.words import wordfrequencies
from repro.words.docfreq import DocFreq
from repro.encode.encoder import Encoder
from repro.errors import InputError
from repro.core.model import represent
from repro.words.vocabulary import Vocabulary

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORDS = [f"w{i}" for i in range(40)]
A = 1e-3  # SIF's a (repro.spaces.wordmap.SIF_A)
# the words w30..w39 are never in the corpus (count 1, df 1): the df warning is expected
pytestmark = pytest.mark.filterwarnings("ignore::repro.encode.encoder.SparseDfWarning")


@pytest.fixture(scope="module")
def matrix():
    return np.random.default_rng(0).standard_normal((len(WORDS), 6)).astype(np.float32)


@pytest.fixture(scope="module")
def corpus():
    rng = np.random.default_rng(1)
    # Zipf-like counts: w0 is the most frequent word; w30..w39 never occur (count 1 by DocFreq.translate)
    p = 1.0 / np.arange(1, 31)
    return [list(rng.choice(WORDS[:30], rng.integers(2, 9), p=p / p.sum())) for _ in range(300)]


def couples_of(seed: int, n: int = 120):
    rng = np.random.default_rng(seed)
    couples, labels = [], []
    for i in range(n):
        a = list(rng.choice(WORDS, rng.integers(2, 9)))
        b = list(rng.choice(WORDS, rng.integers(2, 9)))
        if i % 2 == 0:
            b[0] = a[0]  # related couples share a word
        couples.append((a, b))
        labels.append(int(i % 2 == 0))
    return couples, labels


def reference_table(matrix, corpus, word_weights, whiten, usif_length=None) -> np.ndarray:
    """(V, d) float64 rows s(w) P (e_w - mu) in word order, written from the papers' formulas."""
    e = matrix.astype(np.float64)
    e = e / np.linalg.norm(e, axis=1, keepdims=True)
    seen = {}
    for text in corpus:
        for w in text:
            seen[w] = seen.get(w, 0) + 1
    counts = np.array([seen.get(w, 1) for w in WORDS], np.float64)  # unseen words count 1
    p = counts / counts.sum()
    if whiten is not None:
        mu = p @ e
        e = e - mu
        if whiten == "zipf":
            cov = (e * p[:, None]).T @ e
            e = e @ np.real(scipy.linalg.fractional_matrix_power(cov, -0.5))
    if word_weights == "sif":
        e = e * (A / (A + p))[:, None]
    elif word_weights == "usif":
        v = p.size
        alpha = np.sum(p > 1.0 - (1.0 - 1.0 / v) ** usif_length) / v
        a = (1.0 - alpha) / (alpha * v / 2 + np.finfo(np.float32).eps)
        e = e * (a / (a / 2 + p))[:, None]
    return e


def reference_vectors(enc, texts, ref_words: np.ndarray) -> np.ndarray:
    """t = (1/n) sum_j z_j e'_(j) in float64, the rows sorted by idf (the encoder's own order)."""
    rows, lengths = enc.vocabulary.rows(texts)  # word indices, idf-descending
    return np.asarray(represent(enc.weights_.astype(np.float64), ref_words, rows, lengths, allow_empty=True))


MAPS = [(w, h) for w in (None, "sif", "usif") for h in (None, "centre", "zipf")]


@pytest.mark.parametrize("word_weights, whiten", MAPS)
def test_vectors_equal_the_float64_formula(matrix, corpus, word_weights, whiten):
    weights = np.array([1.5, 1.0, 0.7, 0.4], np.float32)
    enc = Encoder((WORDS, matrix), corpus=corpus, weights=weights, word_weights=word_weights, whiten=whiten,
                  usif_length=6.5 if word_weights == "usif" else None)
    texts = couples_of(5)[0][0] + couples_of(6)[0][3]
    ref = reference_vectors(enc, list(texts), reference_table(matrix, corpus, word_weights, whiten, 6.5))
    got = enc.transform(list(texts))
    scale = np.abs(ref).max()
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5 * scale)
    assert enc.word_map_.identity == (word_weights is None and whiten is None)


def test_a_hand_computed_case():
    """Three words in 2-d, counts 3, 1, 0 (-> 1): p = 3/5, 1/5, 1/5. Centred: mu = (3/5, 1/5);
    SIF-weighted: s = a / (a + p)."""
    words, m = ["x", "y", "z"], np.array([[1, 0], [0, 1], [0, 1]], np.float32)
    corpus = [["x", "x", "x", "y"]]
    mu = np.array([0.6, 0.4])
    for opts, row_x in ((dict(whiten="centre"), np.array([0.4, -0.4])),
                        (dict(word_weights="sif"), np.array([A / (A + 0.6), 0.0])),
                        (dict(word_weights="sif", whiten="centre"), A / (A + 0.6) * (np.array([1.0, 0]) - mu))):
        enc = Encoder((words, m), corpus=corpus, weights=[1.0], **opts)
        np.testing.assert_allclose(enc.transform([["x"]])[0], row_x, rtol=1e-6, atol=1e-7)
    # the mean of "x y" with one weight 1: (e'_x + e'_y) / 2, mu cancels in a difference
    enc = Encoder((words, m), corpus=corpus, weights=[1.0], whiten="centre")
    np.testing.assert_allclose(enc.transform([["x", "y"]])[0], [0.5 - 0.6, 0.5 - 0.4], atol=1e-7)
    np.testing.assert_allclose(enc.similarity([["x"]], [["y"]]), [-np.sqrt(2)], rtol=1e-6)


def default_case(Encoder, WORDS=WORDS):
    """The vectors and weights of a default Encoder (no word map): what the code at ad54499, before
    the options existed, gave. tests/data/encoder-default-ad54499.npz was written by running this
    function with that commit's repro on PYTHONPATH (``git archive ad54499``):
    ``np.savez(path, **default_case(Encoder))``."""
    rng = np.random.default_rng(0)
    matrix = rng.standard_normal((40, 6)).astype(np.float32)
    corpus = [list(rng.choice(WORDS, rng.integers(1, 8))) for _ in range(60)]
    couples = [(list(rng.choice(WORDS, 5)), list(rng.choice(WORDS, 4))) for _ in range(120)]
    labels = [i % 2 for i in range(120)]
    texts = [list(rng.choice(WORDS, rng.integers(1, 30))) for _ in range(50)]
    # the paper's shipped weights (model="paper": the default of ad54499, which had no model argument)
    out = {"pretrained": Encoder.pretrained((WORDS, matrix), corpus=corpus, model="paper").transform(texts)}
    enc = Encoder((WORDS, matrix), corpus=corpus, n_max=5).fit(couples, labels, kappa=20.0, max_epochs=5)
    out["weights_median"], out["vectors_median"] = enc.weights_, enc.transform(texts)
    out["scores_median"] = enc.similarity(texts[:25], texts[25:])
    enc.fit_components(texts[:30], k=2)
    out["vectors_components"] = enc.transform(texts)
    out["weights_contrastive"] = Encoder((WORDS, matrix), corpus=corpus, n_max=5).fit(
        couples, labels, loss="contrastive", max_epochs=3).weights_
    return out


def test_the_defaults_are_the_code_before_them_bit_for_bit():
    """Bit for bit where XLA compiles as it did for the committed file (tests/codeclass.py); on
    another code class the trained weights (and what they encode) may differ in their last bits,
    so there they are held to float32 rounding. The shipped model's vectors (NumPy only) are
    compared bit for bit everywhere."""
    with np.load(os.path.join(ROOT, "tests", "data", "encoder-default-ad54499.npz")) as z:
        before = {k: z[k] for k in z.files}
    # the shipped paper weights were retrained at ed204df (the packed quadratic forms: each weight
    # within 1.2e-07 of ad54499's); the code that had matched ad54499's "pretrained" vectors with the
    # weights before wrote them again with the new weights (NumPy only, portable)
    with np.load(os.path.join(ROOT, "tests", "data", "encoder-pretrained-ed204df.npz")) as z:
        before["pretrained"] = z["pretrained"]
    now = default_case(Encoder)
    assert sorted(now) == sorted(before)
    bitwise = same_class()
    for key in before:
        assert now[key].dtype == before[key].dtype, key
        if bitwise or key == "pretrained":
            assert now[key].tobytes() == before[key].tobytes(), key
        else:
            np.testing.assert_allclose(now[key], before[key], rtol=1e-4, atol=1e-5, err_msg=key)


def test_a_default_encoder_maps_nothing_and_saves_no_map(matrix, corpus, tmp_path):
    enc = Encoder((WORDS, matrix), corpus=corpus, weights=[1.0, 0.5])
    assert enc.word_map_.identity and enc.word_space.base is None and enc.word_space.counts is None
    enc.save(str(tmp_path / "e.npz"))
    with np.load(tmp_path / "e.npz") as z:
        assert not [k for k in z.files if k.startswith("map_") or k == "word_counts"]
    meta = json.loads((tmp_path / "e.json").read_text())
    assert (meta["word_weights"], meta["whiten"], meta["components"], meta["frequencies"]) == (None, None, 0, "corpus")
    # an encoder file written before the options loads as the paper's encoder
    old = Encoder.load(os.path.join(ROOT, "tests", "data", "encoder-before-record.npz"),
                       vectors=([f"w{i}" for i in range(12)], np.arange(48, dtype=np.float32).reshape(12, 4) % 7 - 3.0))
    assert old.word_map_.identity and old.settings["word_weights"] is None and old.settings["components"] == 0


def rank_table(enc, ref_words: np.ndarray) -> np.ndarray:
    """The encoder's rows (idf-rank order) of a word-order table."""
    out = np.empty_like(ref_words)
    out[enc.vocabulary.rank] = ref_words
    return out


@pytest.mark.parametrize("distance", ["euclidean", "cosine"])
def test_training_on_the_mapped_table_is_training_on_its_quadratic_form(matrix, corpus, distance):
    """The weights are learned on the mapped table: the prepared form's distances are those of the
    float64 formula, and Encoder.fit equals fit on the quadratic form built from the reference
    mapped vectors."""
    import jax.numpy as jnp

    from repro.core.fit import fit
    from repro.core.prepared import prepare

    couples, labels = couples_of(11)
    enc = Encoder((WORDS, matrix), corpus=corpus, n_max=4, word_weights="sif", whiten="zipf")
    pairs, dropped = enc.couples_to_pairs(couples, labels)
    assert dropped == 0
    ref = rank_table(enc, reference_table(matrix, corpus, "sif", "zipf"))
    quad = prepare(ref.astype(np.float32), pairs, 4, form="quadratic", distance=distance)
    w = np.array([1.3, 0.8, 0.5, -0.2])
    index = jnp.arange(pairs.size)
    ta = np.asarray(represent(w, ref, pairs.a, pairs.len_a))
    tb = np.asarray(represent(w, ref, pairs.b, pairs.len_b))
    if distance == "euclidean":
        got = np.asarray(quad.form.sq_distances(jnp.asarray(w, jnp.float32), index))
        want = ((ta - tb) ** 2).sum(axis=1)
    else:
        got = np.stack([np.asarray(x) for x in quad.form.products(jnp.asarray(w, jnp.float32), index)])
        want = np.stack([(ta * ta).sum(1), (tb * tb).sum(1), (ta * tb).sum(1)])
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=1e-4 * np.abs(want).max())

    enc.fit(couples, labels, kappa=20.0, max_epochs=8, distance=distance)
    by_form = fit(quad, "median", 20.0, max_epochs=8, distance=distance, batch_related=50)
    np.testing.assert_allclose(enc.weights_, by_form.weights, rtol=1e-3, atol=1e-4)
    assert enc.record_.distance == distance and enc.provenance_["fit"]["distance"] == distance
    assert (enc.metric, enc.metric_from) == (distance, "training")  # scored as it was learned
    assert np.abs(enc.weights_ - 0.5).max() > 1e-3  # it learned something: the check can fail


def test_round_trip_bit_identical(matrix, corpus, tmp_path):
    couples, labels = couples_of(3)
    enc = Encoder((WORDS, matrix), corpus=corpus, n_max=4, word_weights="usif", whiten="zipf", components=2)
    enc.fit(couples, labels, kappa=20.0, max_epochs=5, distance="cosine")
    texts = [list(t) for c in couples_of(4)[0][:30] for t in c]
    x, s = enc.transform(texts), enc.similarity(texts[:30], texts[30:], metric="cosine")
    path = str(tmp_path / "enc.npz")
    vec = str(tmp_path / "vec")
    store.save_vectors(vec, WORDS, matrix)
    enc.save(path)
    back = Encoder.load(path, vectors=vec)
    assert back.transform(texts).tobytes() == x.tobytes()
    assert back.similarity(texts[:30], texts[30:], metric="cosine").tobytes() == s.tobytes()
    for part in ("shift", "matrix", "scale"):
        assert getattr(back.word_map_, part).tobytes() == getattr(enc.word_map_, part).tobytes()
    assert back.components_.vectors.tobytes() == enc.components_.vectors.tobytes()
    assert back.record_.distance == "cosine" and (back.metric, back.metric_from) == ("cosine", "training")
    meta = json.loads((tmp_path / "enc.json").read_text())
    assert (meta["word_weights"], meta["whiten"], meta["components"], meta["usif_length_from"]) == \
        ("usif", "zipf", 2, "fit")
    # a loaded encoder fits again with the counts its file holds
    again = Encoder.load(path, vectors=vec).fit(couples, labels, kappa=20.0, max_epochs=5, distance="cosine")
    assert again.transform(texts).tobytes() == x.tobytes()
    # a file whose map does not match its options is refused
    meta["whiten"] = None
    (tmp_path / "enc.json").write_text(json.dumps(meta))
    with pytest.raises(InputError, match=r"enc.npz: its word map \(matrix, scale, shift\) does not match"):
        Encoder.load(path, vectors=vec)


def test_usif_length_and_components_come_from_the_training_couples_only(matrix, corpus):
    """uSIF's length is the mean known-word length of the distinct training texts; scoring or
    encoding other texts never changes the fitted map, components or weights."""
    train, labels = couples_of(21)
    held_out = [couples_of(22)[0], couples_of(23)[0]]

    def fitted(other):
        enc = Encoder((WORDS, matrix), corpus=corpus, n_max=4, word_weights="usif", whiten="centre", components=1)
        enc.fit(train, labels, kappa=20.0, max_epochs=4)
        state = [enc.word_map_.shift, enc.word_map_.scale, enc.components_.vectors, enc.weights_, enc.word_space.table]
        enc.similarity([a for a, _ in other], [b for _, b in other])
        enc.transform([b for _, b in other])
        after = [enc.word_map_.shift, enc.word_map_.scale, enc.components_.vectors, enc.weights_, enc.word_space.table]
        assert all(x.tobytes() == y.tobytes() for x, y in zip(state, after))
        return enc, state

    (enc, one), (_, two) = fitted(held_out[0]), fitted(held_out[1])
    assert all(x.tobytes() == y.tobytes() for x, y in zip(one, two))
    distinct = {tuple(sorted(t)) for c in train for t in c}  # every text's words are all known
    assert enc.settings["usif_length"] == pytest.approx(np.mean([len(t) for t in distinct]))
    assert enc.settings["usif_length_from"] == "fit"
    # the check can fail: other training couples give other components
    other = Encoder((WORDS, matrix), corpus=corpus, n_max=4, word_weights="usif", whiten="centre", components=1)
    other.fit(held_out[0], labels, kappa=20.0, max_epochs=4)
    assert other.components_.vectors.tobytes() != enc.components_.vectors.tobytes()


def test_components_follow_sif_and_usif_conventions(matrix, corpus):
    """components=k: k components of the distinct training texts, removed whole (SIF), or each
    scaled by its share of the squared singular values under uSIF."""
    from repro.spaces.components import fit_components, remove_components

    train, labels = couples_of(31)
    for ww, scales in ((None, "one"), ("sif", "one"), ("usif", "share")):
        enc = Encoder((WORDS, matrix), corpus=corpus, n_max=4, word_weights=ww, components=2)
        enc.fit(train, labels, kappa=20.0, max_epochs=3)
        texts = list({tuple(t): None for c in train for t in c})
        plain = enc._encode([list(t) for t in texts], "encode", components=False)[0]
        ref = fit_components(plain, 2, scales)
        np.testing.assert_allclose(enc.components_.scales, ref.scales, rtol=1e-6)
        np.testing.assert_allclose(np.abs(enc.components_.vectors @ ref.vectors.T), np.eye(2), atol=1e-6)
        np.testing.assert_allclose(enc.transform(texts[:10]), remove_components(plain[:10], ref), rtol=1e-5,
                                   atol=1e-7)


def test_bad_options_and_missing_counts(matrix, corpus, tmp_path):
    with pytest.raises(ValueError, match="^word_weights: expected None or one of sif, usif, got 'idf'"):
        Encoder((WORDS, matrix), corpus=corpus, word_weights="idf")
    with pytest.raises(ValueError, match="^whiten: expected None or one of centre, zipf, uwhiten, got 'pca'"):
        Encoder((WORDS, matrix), corpus=corpus, whiten="pca")
    with pytest.raises(ValueError, match="^components: expected a whole number >= 0"):
        Encoder((WORDS, matrix), corpus=corpus, components=-1)
    with pytest.raises(InputError, match="^frequencies: expected 'corpus' or 'wordfreq:<language>'"):
        Encoder((WORDS, matrix), corpus=corpus, whiten="zipf", frequencies="fse")
    with pytest.raises(ValueError, match="^usif_length: uSIF needs the mean text length, and an encoder with "
                                         "given weights"):
        Encoder((WORDS, matrix), df=DocFreq.from_corpus(corpus), weights=[1.0], word_weights="usif")
    enc = Encoder((WORDS, matrix), corpus=corpus, n_max=3, word_weights="sif")
    with pytest.raises(ValueError, match=r"^labels: need one 0 \(unrelated\) or 1 \(related\) per couple"):
        enc.fit(couples_of(1)[0], [2] * 120, kappa=10.0)
    with pytest.raises(ValueError, match="^distance: expected one of euclidean, sqeuclidean, cosine, got 'l1'"):
        enc.fit(*couples_of(1), kappa=10.0, distance="l1")
    assert enc.weights_ is None
    # a df file without word counts, or a Vocabulary, cannot give p(w)
    freq = DocFreq.from_corpus(corpus)
    store.save_word_df(str(tmp_path / "old.npz"), freq.words, freq.df, freq.n_docs)
    vocab = Vocabulary(WORDS, freq.translate(WORDS).df, freq.n_docs)
    for df in (str(tmp_path / "old.npz"), vocab):
        with pytest.raises(InputError, match=r"^frequencies: word weights and whitening need word counts, and the "
                                             r"df source holds none .* pass corpus= \(texts; --corpus\) or "
                                             r"frequencies='wordfreq:en'"):
            Encoder((WORDS, matrix), df=df, whiten="zipf")
    # a df file with counts (DocFreq.save, repro df) gives the corpus's p(w): the same encoder
    freq.save(str(tmp_path / "new.npz"))
    back = DocFreq.load(str(tmp_path / "new.npz"))
    assert back.counts.tolist() == freq.counts.tolist() and DocFreq.load(str(tmp_path / "old.npz")).counts is None
    store.save_word_df(str(tmp_path / "bad.npz"), freq.words, freq.df, freq.n_docs, freq.df - 1)
    with pytest.raises(InputError, match=r"bad.npz: word counts that do not match the words \(need one count per "
                                         r"word, count >= df\)"):
        DocFreq.load(str(tmp_path / "bad.npz"))
    a = Encoder((WORDS, matrix), df=str(tmp_path / "new.npz"), weights=[1.0, 0.5], word_weights="sif", whiten="zipf")
    b = Encoder((WORDS, matrix), corpus=corpus, weights=[1.0, 0.5], word_weights="sif", whiten="zipf")
    assert a.word_space.table.tobytes() == b.word_space.table.tobytes()


def test_frequencies_from_wordfreq(matrix, monkeypatch, tmp_path):
    freq = DocFreq(WORDS, np.ones(40, np.int64), 10)  # no word counts
    words = ["the", "of", "cat", "qwzxqwzx"] + WORDS[4:]
    monkeypatch.setitem(sys.modules, "wordfreq", None)  # import wordfreq raises ImportError
    with pytest.raises(InputError, match=r"^frequencies: 'wordfreq:en' needs the wordfreq package: pip install "
                                         r"'repro-deboom2016\[freq\]'"):
        Encoder((words, matrix), df=freq, whiten="zipf", frequencies="wordfreq:en")
    monkeypatch.undo()
    pytest.importorskip("wordfreq")
    enc = Encoder((words, matrix), df=freq, weights=[1.0], word_weights="sif", frequencies="wordfreq:en")
    counts = wordfrequencies.word_counts("wordfreq:en", words)
    assert enc.word_space.counts.tolist() == counts.tolist() and counts[0] > counts[1] > counts[2] > counts[3] == 21
    p = counts / counts.sum()
    np.testing.assert_allclose(enc.word_map_.scale, A / (A + p), rtol=1e-12)


def test_the_cli_options_end_to_end(matrix, corpus, tmp_path, capsys):
    vec = str(tmp_path / "vec")
    store.save_vectors(vec, WORDS, matrix)
    (tmp_path / "corpus.txt").write_text("".join(" ".join(t) + "\n" for t in corpus))
    couples, labels = couples_of(41)
    (tmp_path / "train.tsv").write_text("".join(f"{' '.join(a)}\t{' '.join(b)}\t{y}\n"
                                                for (a, b), y in zip(couples, labels)))
    texts = [" ".join(a) for a, _ in couples_of(42)[0][:20]]
    (tmp_path / "texts.txt").write_text("\n".join(texts) + "\n")
    out = str(tmp_path / "enc.npz")
    args = ["train", "--couples", str(tmp_path / "train.tsv"), "--vectors", vec, "--corpus",
            str(tmp_path / "corpus.txt"), "--out", out, "--n-max", "4", "--kappa", "20", "--max-epochs", "4", "--quiet",
            "--tokeniser", "unicode"]  # keeps "w12" (the paper's rule reads every number as 0)
    extra = ["--word-weights", "usif", "--whiten", "zipf", "--components", "2", "--distance", "cosine"]
    assert cli.main(args + extra) == 0
    lines = (tmp_path / "corpus.txt").read_text().splitlines()
    lib = Encoder(vec, corpus=lines, n_max=4, word_weights="usif", whiten="zipf", components=2, tokeniser="unicode")
    lib.fit([(" ".join(a), " ".join(b)) for a, b in couples], labels, kappa=20.0, max_epochs=4, distance="cosine")
    saved = Encoder.load(out)
    assert saved.record_.distance == "cosine" and saved.settings["components"] == 2
    assert saved.weights_.tobytes() == lib.weights_.tobytes()
    # encode, similarity and evaluate read the options from the encoder file
    assert cli.main(["encode", str(tmp_path / "texts.txt"), "--model", out, "--out", str(tmp_path / "X.npy"),
                     "--quiet"]) == 0
    assert np.load(tmp_path / "X.npy").tobytes() == lib.transform(texts).tobytes()
    capsys.readouterr()
    assert cli.main(["similarity", texts[0], texts[1], "--model", out, "--metric", "cosine"]) == 0
    assert float(capsys.readouterr().out) == pytest.approx(lib.similarity(texts[:1], texts[1:2], "cosine")[0],
                                                           abs=1e-6)
    assert cli.main(["evaluate", "--couples", str(tmp_path / "train.tsv"), "--model", out]) == 0
    result = json.loads(capsys.readouterr().out)
    s = lib.similarity([a for a, _ in couples], [b for _, b in couples])
    from repro.core import metrics

    assert result["split_error"] == metrics.split_error(s, np.asarray(labels), s, np.asarray(labels))[0]
    # errors name the option
    for bad, message in ((["--components", "-1"], "error: --components: must be at least 0, got -1"),
                         (["--frequencies", "books"], "error: --frequencies: expected 'corpus' or 'wordfreq:"),
                         (["--usif-length", "0"], "error: --usif-length: must be a positive number, got 0")):
        assert cli.main(args + bad) == 1
        assert capsys.readouterr().err.startswith(message)
    freq = DocFreq.from_corpus([ln.split() for ln in lines])
    store.save_word_df(str(tmp_path / "nocounts.npz"), freq.words, freq.df, freq.n_docs)
    no_counts = [a if a != str(tmp_path / "corpus.txt") else str(tmp_path / "nocounts.npz") for a in args]
    no_counts[no_counts.index("--corpus")] = "--df"
    assert cli.main(no_counts + ["--whiten", "zipf"]) == 1
    assert "(--frequencies wordfreq:en)" in capsys.readouterr().err


def test_word_components_are_the_family_cc_map_bit_for_bit(matrix, corpus, tmp_path):
    """``word_components=1`` (the shipped options of the family's ``cc``) fits the common
    component of the word vectors as :func:`repro.evaluate.family.member_map` does, on the distinct texts
    of the couples fitted on: the same map, bit for bit; before fitting, on ``corpus``'s texts;
    saved and loaded with the encoder; with given weights and no corpus, an error naming corpus."""
    from repro.evaluate import family
    from repro.spaces import transforms

    couples, labels = couples_of(13)
    plain = Encoder((WORDS, matrix), corpus=corpus, n_max=4)
    base = plain.word_space.table[:-1]  # the unit-length rows in rank order, unmapped
    enc = Encoder((WORDS, matrix), corpus=corpus, n_max=4, word_components=1)
    rows, lengths = plain.vocabulary.rows(corpus, order="idf")
    distinct = dict.fromkeys(tuple(r[:n]) for r, n in zip(rows, lengths) if n)  # each distinct text once
    means = np.array([np.asarray(base[list(t)], np.float64).mean(axis=0) for t in distinct])
    c = np.linalg.svd(means, full_matrices=False)[2][0]
    np.testing.assert_allclose(enc.word_map_.matrix, np.eye(6) - np.outer(c, c), atol=1e-9)  # from corpus
    # the shipped options of a cc member (experiments.ship_weights) make the same map from the corpus
    store.save_weights(str(tmp_path / "cc.npz"), np.ones(4, np.float32), {"encoder_options": {
        "word_weights": None, "whiten": None, "word_components": 1, "components": 0, "metric": "euclidean"}})
    shipped = Encoder.pretrained((WORDS, matrix), corpus=iter(corpus), weights_path=str(tmp_path / "cc.npz"))
    assert shipped.word_map_.matrix.tobytes() == enc.word_map_.matrix.tobytes()
    pairs, _ = enc.couples_to_pairs(couples, labels)
    want = family.member_map("cc", base, None, pairs)
    enc.fit(couples, labels, kappa=20.0, max_epochs=3)
    assert enc.word_map_.matrix.tobytes() == want.matrix.tobytes() and enc.word_map_.shift is None
    assert enc.word_space.table[:-1].tobytes() == transforms.apply(want, base).tobytes()
    vec = str(tmp_path / "vec")
    store.save_vectors(vec, WORDS, matrix)
    enc.save(str(tmp_path / "enc.npz"))
    back = Encoder.load(str(tmp_path / "enc.npz"), vectors=vec)
    assert back.settings["word_components"] == 1 and back.word_map_.matrix.tobytes() == want.matrix.tobytes()
    texts = [list(a) for a, _ in couples[:20]]
    assert back.transform(texts).tobytes() == enc.transform(texts).tobytes()
    with pytest.raises(ValueError, match="^corpus: word_components removes common components"):
        Encoder((WORDS, matrix), DocFreq.from_corpus(corpus), weights=np.ones(4), word_components=1)
