"""repro.data.wikipedia.embeddings: paper settings, streaming corpus, unit vectors, determinism, bad input."""

import os
import subprocess
import sys

import numpy as np

from repro.errors import run
from repro.data.wikipedia import embeddings
from repro.io.store import load_vectors

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_corpus(path, n_lines=120, seed=0):
    """Synthetic paragraphs: words w0..w59 with a Zipf-like frequency, in two article topics."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(60)]
    p = 1.0 / np.arange(1, 61)
    p /= p.sum()
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n_lines):
            toks = rng.choice(words, size=int(rng.integers(8, 30)), p=p)
            f.write(f"{i // 10}\t{' '.join(toks)}\n")
    return path


TINY = ["--dim", "8", "--min-count", "2", "--epochs", "2", "--seed", "7"]


def test_defaults_are_the_papers():
    assert embeddings.PAPER == dict(sg=1, hs=0, negative=10, window=5, vector_size=400, sample=1e-4,
                                    min_count=5, alpha=0.025, min_alpha=1e-4, epochs=1)
    seen = vars(embeddings.parser().parse_args(["--paragraphs", "p", "--out", "o"]))
    assert (seen["dim"], seen["min_count"], seen["window"], seen["epochs"], seen["workers"]) == (400, 5, 5, 1, 1)


def test_sentences_are_restartable_and_split_long_paragraphs(tmp_path, monkeypatch):
    path = tmp_path / "p.tsv"
    path.write_text("a\tx y z\nb\t" + " ".join(["t"] * 25) + "\n")
    monkeypatch.setattr(embeddings, "MAX_SENTENCE", 10)
    s = embeddings.ParagraphSentences(str(path))
    first, second = list(s), list(s)
    assert first == second
    assert [len(x) for x in first] == [3, 10, 10, 5]


def test_train_writes_unit_vectors_in_gensim_order(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "p.tsv")
    out = tmp_path / "w2v"
    assert run(embeddings.main, ["--paragraphs", str(corpus), "--out", str(out), *TINY]) == 0
    words, vectors = load_vectors(str(out))
    assert vectors.shape == (len(words), 8) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    counts = {}
    for line in corpus.read_text().splitlines():
        for t in line.split("\t")[1].split():
            counts[t] = counts.get(t, 0) + 1
    assert set(words) == {w for w, c in counts.items() if c >= 2}
    assert [counts[w] for w in words] == sorted((counts[w] for w in words), reverse=True)
    assert sorted(os.listdir(out)) == ["summary.json", "vectors.npy", "vocab.txt"]


def test_same_seed_same_bytes_across_processes(tmp_path):
    """Two separate processes with different PYTHONHASHSEED give byte-identical files."""
    corpus = write_corpus(tmp_path / "p.tsv")
    digests = []
    for i, hashseed in enumerate(("1", "2")):
        out = tmp_path / f"w2v{i}"
        env = dict(os.environ, PYTHONHASHSEED=hashseed)
        subprocess.run([sys.executable, "-m", "repro", "word2vec", "--paragraphs", str(corpus), "--out", str(out), *TINY],
                       check=True, cwd=ROOT, env=env, capture_output=True)
        digests.append([(out / n).read_bytes() for n in ("vectors.npy", "vocab.txt", "summary.json")])
    assert digests[0] == digests[1]
    other = tmp_path / "w2v-other-seed"
    assert run(embeddings.main, ["--paragraphs", str(corpus), "--out", str(other), *TINY[:-1], "8"]) == 0
    assert (other / "vectors.npy").read_bytes() != digests[0][0]


def test_missing_paragraphs(tmp_path, capsys):
    out = tmp_path / "w2v"
    assert run(embeddings.main, ["--paragraphs", str(tmp_path / "none.tsv"), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err == f"error: {tmp_path / 'none.tsv'}: no such file\n"
    assert not out.exists()


def test_empty_vocabulary(tmp_path, capsys):
    corpus = tmp_path / "p.tsv"
    corpus.write_text("1\tonly once each word here\n")
    out = tmp_path / "w2v"
    assert run(embeddings.main, ["--paragraphs", str(corpus), "--out", str(out), "--dim", "4"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {corpus}: ") and err.count("\n") == 1 and "5 or more times" in err
    assert not out.exists()


def test_line_without_tab(tmp_path, capsys):
    corpus = tmp_path / "p.tsv"
    corpus.write_text("1\tgood line\nno tab on this line\n")
    assert run(embeddings.main, ["--paragraphs", str(corpus), "--out", str(tmp_path / "w2v"), "--dim", "4"]) == 1
    err = capsys.readouterr().err
    assert err == f"error: {corpus}: line 2: no tab between article id and text\n"
    assert not (tmp_path / "w2v").exists()


def test_the_vocabulary_alone_is_the_trained_vocabulary_and_training_leaves_it_untouched(tmp_path):
    """make's vocab stage (--vocab-only) writes the words the training keeps, byte for byte, so the
    stages that need only the words run while the vectors train; the training then leaves that file
    as it is (its time too, so make redoes nothing after it) and its vectors are the same bits."""
    corpus = write_corpus(tmp_path / "p.tsv")
    alone, first = tmp_path / "alone", tmp_path / "first"
    assert run(embeddings.main, ["--paragraphs", str(corpus), "--out", str(first), *TINY, "--vocab-only"]) == 0
    assert sorted(os.listdir(first)) == ["vocab.txt"]
    vocab = first / "vocab.txt"
    os.utime(vocab, (1_000_000, 1_000_000))
    assert run(embeddings.main, ["--paragraphs", str(corpus), "--out", str(first), *TINY]) == 0
    assert run(embeddings.main, ["--paragraphs", str(corpus), "--out", str(alone), *TINY]) == 0
    assert vocab.read_bytes() == (alone / "vocab.txt").read_bytes() and os.stat(vocab).st_mtime == 1_000_000
    assert (first / "vectors.npy").read_bytes() == (alone / "vectors.npy").read_bytes()
    # another vocabulary in the folder is replaced by the trained one
    vocab.write_text("zz\n")
    assert run(embeddings.main, ["--paragraphs", str(corpus), "--out", str(first), *TINY]) == 0
    assert vocab.read_bytes() == (alone / "vocab.txt").read_bytes()
