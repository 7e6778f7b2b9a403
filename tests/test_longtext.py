"""Long texts (issue 35, item 1): the model's vector in memory and time linear in the length, NumPy
only (repro.encode.longtext), checked against a float64 brute force of the paper's formula, the JAX
table's sums where both run, and the memory bound of a 1,000,000-word text and a 5,000,000-word
line given to ``repro encode``; and the longest text that learning takes (``FIT_MAX_WORDS``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from repro import cli
from repro.encode import longtext, weightedsums
from repro.io import store
from repro.encode.encoder import Encoder
from repro.words.ranklookup import RankLookup

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def letters(i: int) -> str:
    """A word of letters only (the paper's tokeniser turns digits into 0): 0 -> "ba", 1 -> "bb", ..."""
    s, i = "", i + 26
    while i:
        s, i = chr(97 + i % 26) + s, i // 26
    return s


WORDS = [letters(i) for i in range(2000)]


def brute_force(weights, table64: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """t(C) = (1/n) sum_j z_j e_(j) in float64, written from the paper (eq. 3, section 3.3, the
    code's interpolation, docs/FIDELITY.md) one position at a time in blocks: ``rows`` the
    text's table rows already in descending-idf order."""
    w = np.asarray(weights, np.float64)
    n, k = rows.size, w.size
    total = np.zeros(table64.shape[1])
    for s in range(0, n, 200_000):
        j = np.arange(s, min(n, s + 200_000))
        pos = j * (k - 1) / max(n - 1, 1)  # 0-based linspace(0, n_max - 1, n)
        lo, hi = np.floor(pos).astype(int), np.ceil(pos).astype(int)
        z = (w[hi] - w[lo]) * (pos - lo) / (hi - lo + 1e-5) + w[lo]
        total += z @ table64[rows[j]]
    return total / n


@pytest.fixture(scope="module")
def enc():
    rng = np.random.default_rng(0)
    matrix = rng.standard_normal((len(WORDS), 12)).astype(np.float32)
    corpus = [" ".join(rng.choice(WORDS, rng.integers(1, 40))) for _ in range(300)]
    return Encoder((WORDS, matrix), corpus=corpus, weights=rng.uniform(-0.5, 2.0, 30).astype(np.float32))


def rank_rows(enc: Encoder, tokens) -> np.ndarray:
    """The text's known words as rows of the encoder's rank-ordered table, in descending idf."""
    r = enc.vocabulary.lookup.ranks([tokens])
    return np.sort(r[r < len(WORDS)])


def test_interpolated_is_the_formula_by_hand():
    w = np.array([1.0, 2.0, 4.0], np.float32)
    eps = 1e-5
    # n = 5: positions 0, 0.5, 1, 1.5, 2
    want = [1.0, 1.0 + 1.0 * 0.5 / (1 + eps), 2.0, 2.0 + 2.0 * 0.5 / (1 + eps), 4.0]
    np.testing.assert_allclose(longtext.interpolated(w, 5), want, rtol=1e-15)
    np.testing.assert_allclose(longtext.interpolated(w, 5, 1, 4), want[1:4], rtol=1e-15)  # a block of positions
    assert longtext.interpolated(w, 1).tolist() == [1.0]  # n = 1: w[0]
    assert longtext.interpolated(w, 3).tolist() == [1.0, 2.0, 4.0]  # n = n_max: w itself
    assert longtext.EPS == 1e-5


def test_interpolated_agrees_with_the_jax_model():
    from repro.core.model import EPS, interpolated_weights

    assert longtext.EPS == EPS
    w = np.random.default_rng(3).uniform(-1, 2, 30).astype(np.float32)
    lengths = np.array([1, 2, 7, 29, 30, 31, 61, 200, 997])
    jax_z = np.asarray(interpolated_weights(w, lengths, int(lengths.max())))
    for row, n in zip(jax_z, lengths):
        # JAX's positions are float32: one a unit in the last place below an integer k gives
        # f = (1 - ulp) / (1 + eps) between w[k - 1] and w[k], 1e-5 of |w[k] - w[k - 1]| off w[k]
        np.testing.assert_allclose(longtext.interpolated(w, int(n)), row[:n], atol=2e-5 * np.ptp(w))
        assert not row[n:].any()


def test_counting_and_sorting_find_the_same_words():
    rng = np.random.default_rng(4)
    for size, n in ((50, 400), (10_000, 30), (7, 7)):  # counting (n >= size / 4), sorting, counting
        r = rng.integers(0, size, n)
        words, counts = longtext.distinct(r, size)
        want_w, want_c = np.unique(r, return_counts=True)
        assert words.tolist() == want_w.tolist() and counts.tolist() == want_c.tolist()


def test_blocks_of_positions_give_the_coefficients_of_one_block(monkeypatch):
    rng = np.random.default_rng(5)
    ranks = rng.integers(0, 40, 1000)
    w = rng.uniform(0, 1, 30)
    words, whole = longtext.word_coefficients(ranks, w, 40)
    monkeypatch.setattr(longtext, "BLOCK", 7)  # runs of a word straddle many blocks
    words7, blocked = longtext.word_coefficients(ranks, w, 40)
    assert words7.tolist() == words.tolist()
    np.testing.assert_allclose(blocked, whole, rtol=1e-13)
    # by hand: c_w sums z_j / n over the word's run of positions in ascending-rank order
    z = longtext.interpolated(w, 1000) / 1000
    order = np.sort(ranks)
    np.testing.assert_allclose(whole, [z[order == u].sum() for u in words], rtol=1e-12)


def test_blocked_lookup_gives_the_same_ranks(monkeypatch):
    lookup = RankLookup(WORDS[:50], np.arange(50)[::-1])
    texts = [["ba", "zz", "bc"], [], ["bd"] * 5, ["bb", "a" * 30, "ba"]]
    whole = lookup.ranks(texts)
    monkeypatch.setattr("repro.words.ranklookup.BLOCK", 2)
    assert lookup.ranks(texts).tolist() == whole.tolist()
    assert whole.tolist() == [49, 50, 47] + [46] * 5 + [48, 50, 49]


@pytest.mark.parametrize("n", [61, 100, 400, 1000])
def test_a_long_text_agrees_with_the_table_and_the_formula(enc, n):
    """Past 60 words the vector comes from the linear path: it agrees with what the (quadratic)
    JAX table gives to float32 rounding, and with the float64 formula more closely still."""
    tokens = list(np.random.default_rng(n).choice(WORDS, n))
    got = enc.transform([tokens])[0]
    rows = rank_rows(enc, tokens)
    table = weightedsums.coefficient_table(enc.weights_, rows.size, precomputed=None)
    old = weightedsums.weighted_sums(rows[None, :], np.array([rows.size], np.int32), table, enc.word_space.table)[0]
    exact = brute_force(enc.weights_, enc.word_space.table.astype(np.float64), rows)
    scale = np.abs(exact).max()
    np.testing.assert_allclose(old, exact, atol=1e-5 * scale)  # float32 positions and sums
    np.testing.assert_allclose(got, old, atol=1e-5 * scale)
    np.testing.assert_allclose(got, exact, atol=2e-7 * scale)  # float64 positions and sums, rounded once


def test_short_texts_keep_the_table_and_its_bits(enc):
    """Up to 60 known words a text is summed with the coefficient table as before, bit for bit:
    also one of many tokens (it leaves its chunk) whose known words are few."""
    rng = np.random.default_rng(6)
    short = [list(rng.choice(WORDS, k)) for k in (1, 2, 30, 59, 60)]
    padded = short[3] + ["unknownword"] * 5000  # 5,059 tokens, 59 known
    got = enc.transform(short + [padded])
    ranks, lengths = enc.vocabulary.rows(short, order="idf")
    table = weightedsums.coefficient_table(enc.weights_, 60, precomputed=None)
    want = weightedsums.weighted_sums(ranks, lengths, table, enc.word_space.table)
    assert got[:5].tobytes() == want.tobytes()
    assert got[5].tobytes() == want[3].tobytes()


def test_long_and_short_texts_mixed_in_chunks_and_threads(enc):
    rng = np.random.default_rng(7)
    texts = [list(rng.choice(WORDS, k)) for k in (3, 700, 0, 61, 12, 60, 2500, 5)]
    with pytest.warns(UserWarning, match="no word with a vector"):
        alone = np.stack([enc.transform([t])[0] for t in texts])
    enc2 = Encoder.__new__(Encoder)
    enc2.__dict__.update(enc.__dict__, chunk=3, workers=2)
    with pytest.warns(UserWarning, match="no word with a vector"):
        together = enc2.transform(texts)
    assert together.tobytes() == alone.tobytes()
    assert not together[2].any()


def test_similarity_of_long_texts_is_the_metric_of_their_vectors(enc):
    rng = np.random.default_rng(8)
    a, b = list(rng.choice(WORDS, 20_000)), list(rng.choice(WORDS, 300))
    va, vb = enc.transform([a, b]).astype(np.float64)
    np.testing.assert_allclose(enc.similarity([a], [b]), [-np.linalg.norm(va - vb)], rtol=1e-6)
    np.testing.assert_allclose(enc.similarity([a], [b], metric="cosine"),
                               [va @ vb / np.linalg.norm(va) / np.linalg.norm(vb)], rtol=1e-6)


#: The child's own peak RSS in MB (``VmHWM``: ``ru_maxrss`` would include the RSS of the pytest
#: process that started it, which Linux carries across the exec), and a reset of it to the RSS now
#: (``clear_refs`` 5), which returns that RSS.
PEAK = textwrap.dedent("""
    def _status(key):
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) // 1024 for line in f if line.startswith(key + ":"))
    def peak():
        return _status("VmHWM")
    def reset_peak():
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return _status("VmRSS")
""")

#: The peak RSS growth the encoding of a 1,000,000-word text may take (measured at about 160 MB:
#: the token list, the lookup's blocks, the known ranks and their coefficients).
MILLION_BOUND_MB = 600


def _vectors(tmp_path, v: int, d: int, seed: int = 0):
    words = [letters(i) for i in range(v)]
    rng = np.random.default_rng(seed)
    store.save_vectors(str(tmp_path / "vec"), words, rng.standard_normal((v, d)).astype(np.float32))
    df = rng.integers(1, 500, v)
    store.save_word_df(str(tmp_path / "df.npz"), words, df, 1000, counts=3 * df)
    return words


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="measures memory through Linux's /proc")
def test_a_million_word_text_in_bounded_memory_against_the_formula(tmp_path):
    words = _vectors(tmp_path, 20_000, 24)
    rng = np.random.default_rng(9)
    ids = rng.zipf(1.2, 1_000_000) % 25_000  # some ids past the vocabulary: unknown words
    (tmp_path / "text.txt").write_text(" ".join(letters(i) for i in ids.tolist()))
    code = PEAK + textwrap.dedent("""
        import sys
        import numpy as np
        from repro.encode.encoder import Encoder
        enc = Encoder.pretrained(sys.argv[1], sys.argv[2], model="paper")
        text = open(sys.argv[3]).read()
        enc.transform(["ba bb"])
        before = reset_peak()
        x = enc.transform([text])
        grew = peak() - before
        np.save(sys.argv[4], x)
        print(grew, "jax" in sys.modules)
    """)
    out = tmp_path / "x.npy"
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "vec"), str(tmp_path / "df.npz"),
                           str(tmp_path / "text.txt"), str(out)], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    assert proc.returncode == 0, proc.stderr
    grew_mb, jax = proc.stdout.split()
    print(f"1,000,000 words: peak RSS grew by {grew_mb} MB")
    assert int(grew_mb) < MILLION_BOUND_MB, f"peak RSS grew by {grew_mb} MB"
    assert jax == "False"  # NumPy only
    # the formula, independently: unit vectors in float64, the words sorted by descending idf,
    # ties by the word (eq. 1), the paper's shipped weights
    w, _ = store.load_weights(longtext_weights())
    with np.load(tmp_path / "df.npz") as z:
        df, n_docs = z["df"], int(z["n_docs"])
    matrix = np.load(tmp_path / "vec" / "vectors.npy").astype(np.float64)
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    idf = np.log(n_docs / (1.0 + df))
    order = sorted(range(len(words)), key=lambda i: (-idf[i], words[i]))
    position = np.empty(len(words), np.int64)
    position[order] = np.arange(len(words))
    known = ids[ids < len(words)]
    rows = np.sort(position[known])  # descending idf
    want = brute_force(w, unit[order], rows)
    got = np.load(out)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * np.abs(want).max())


def longtext_weights() -> str:
    from repro.encode.encoder import SHIPPED

    return SHIPPED


#: The peak RSS of the whole ``repro encode`` process on a 5,000,000-word line (measured at about
#: 0.6 GB: the line, its token list, the lookup's blocks).
FIVE_MILLION_BOUND_MB = 1500


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="measures memory through Linux's /proc")
def test_repro_encode_of_a_five_million_word_line(tmp_path):
    """One line of 5,000,000 words through ``repro encode`` with the shipped default model: exit 0,
    no JAX, peak RSS under 1.5 GB (about 0.6 GB measured), and the vector of the formula."""
    words = _vectors(tmp_path, 3000, 16, seed=1)
    cycle = np.random.default_rng(10).integers(0, 3000, 1000)
    line = " ".join(words[i] for i in cycle.tolist())
    with open(tmp_path / "line.txt", "w") as f:
        f.write(" ".join([line] * 5000) + "\n")
    code = PEAK + ("import sys; from repro.cli import main; rc = main(['encode', sys.argv[1], '--vectors', "
                   "sys.argv[2], '--df', sys.argv[3], '--out', sys.argv[4], '--quiet']); "
                   "print(peak(), 'jax' in sys.modules); sys.exit(rc)\n")
    out = tmp_path / "x.npy"
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "line.txt"), str(tmp_path / "vec"),
                           str(tmp_path / "df.npz"), str(out)], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    assert proc.returncode == 0, proc.stderr
    peak_mb, jax = proc.stdout.splitlines()[-1].split()
    print(f"5,000,000 words: repro encode peak RSS {peak_mb} MB")
    assert int(peak_mb) < FIVE_MILLION_BOUND_MB, f"peak RSS {peak_mb} MB"
    assert jax == "False"
    x = np.load(out)
    assert x.shape == (1, 16) and np.isfinite(x).all()
    # the formula on the default encoder's own mapped table (Zipfian whitening of these vectors)
    enc = Encoder.pretrained(str(tmp_path / "vec"), str(tmp_path / "df.npz"))
    rows = np.sort(np.repeat(enc.vocabulary.lookup.ranks([[words[i] for i in cycle.tolist()]]), 5000))
    want = brute_force(enc.weights_, enc.word_space.table.astype(np.float64), rows)
    np.testing.assert_allclose(x[0], want, rtol=1e-5, atol=1e-6 * np.abs(want).max())


def test_fit_refuses_a_text_past_its_limit_and_names_it():
    rng = np.random.default_rng(11)
    matrix = rng.standard_normal((len(WORDS), 6)).astype(np.float32)
    enc = Encoder((WORDS, matrix), corpus=[" ".join(WORDS[:50])], n_max=5)
    couples = [(list(rng.choice(WORDS, 4)), list(rng.choice(WORDS, 5))) for _ in range(40)]
    labels = np.arange(40) % 2
    long = list(rng.choice(WORDS, longtext.FIT_MAX_WORDS + 1))
    bad = couples[:2] + [(couples[2][0], long)] + couples[3:]
    with pytest.raises(ValueError, match=r"couples: couple 2 \(text b\) has 257 words with a vector, and learning "
                                         r"takes texts of at most 256"):
        enc.fit(bad, labels, kappa=20.0, max_epochs=2)
    # many tokens, few known: reduced to the known words, the same couples and weights
    noisy = [(a + ["unknownword"] * 2000, b) if i == 3 else (a, b) for i, (a, b) in enumerate(couples)]
    clean_pairs, _ = enc.couples_to_pairs(couples, labels)
    noisy_pairs, _ = enc.couples_to_pairs(noisy, labels)
    assert noisy_pairs.a.shape == clean_pairs.a.shape
    assert np.array_equal(noisy_pairs.a, clean_pairs.a) and np.array_equal(noisy_pairs.len_a, clean_pairs.len_a)


def test_repro_train_refuses_a_long_text_in_one_line(tmp_path, capsys):
    words = _vectors(tmp_path, 400, 8)
    rng = np.random.default_rng(12)
    lines = [f"{' '.join(rng.choice(words, 4))}\t{' '.join(rng.choice(words, 3))}\t{i % 2}" for i in range(20)]
    lines[5] = f"{' '.join(rng.choice(words, 1000))}\tba bb\t1"
    (tmp_path / "couples.tsv").write_text("\n".join(lines) + "\n")
    rc = cli.main(["train", "--couples", str(tmp_path / "couples.tsv"), "--vectors", str(tmp_path / "vec"),
                        "--df", str(tmp_path / "df.npz"), "--out", str(tmp_path / "enc.npz"), "--kappa", "20",
                        "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc != 0
    assert len(err) == 1 and err[0].startswith("error: ") and "couple 5 (text a) has 1,000 words with a vector" in err[0]


def test_repro_evaluate_scores_couples_with_a_long_text(tmp_path, capsys):
    """evaluate encodes through the encoder's path: a 200,000-word text in a couple is scored."""
    words = _vectors(tmp_path, 400, 8)
    rng = np.random.default_rng(13)
    lines = [f"{' '.join(rng.choice(words, 4))}\t{' '.join(rng.choice(words, 3))}\t{i % 2}" for i in range(20)]
    lines[3] = f"{' '.join(rng.choice(words, 200_000))}\tba bb\t0"
    (tmp_path / "couples.tsv").write_text("\n".join(lines) + "\n")
    assert cli.main(["evaluate", "--couples", str(tmp_path / "couples.tsv"), "--vectors", str(tmp_path / "vec"),
                     "--df", str(tmp_path / "df.npz"), "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["couples"] == 20 and 0.0 <= result["split_error"] <= 0.5
