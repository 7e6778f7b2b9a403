"""repro.data.wikipedia.paragraphdf: paragraph-level df over the vocabulary, N, idf formula, bad input."""

import math
import os

import numpy as np
import pytest

from repro.errors import run
from repro.io import store
from repro.data.wikipedia import paragraphdf
from repro.words.docfreq import idf

LINES = [
    "a1\tthe cat sat on the mat",
    "a1\tthe dog the dog the dog",
    "a2\tzebra oov words only",
    "a2\tcat and dog",
    "a3\tmat mat mat",
]
VOCAB = ["the", "cat", "dog", "mat", "zebra", "never"]
EXPECTED_DF = [2, 2, 2, 2, 1, 0]  # one count per paragraph, repeats ignored; OOV ignored
EXPECTED_COUNTS = [5, 2, 4, 4, 1, 0]  # every occurrence


@pytest.fixture
def files(tmp_path):
    par = tmp_path / "paragraphs.tsv"
    par.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    voc = tmp_path / "vocab.txt"
    voc.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    return par, voc


@pytest.mark.parametrize("workers", [1, 2])
def test_df_and_n(files, tmp_path, capsys, workers, monkeypatch):
    monkeypatch.setattr(paragraphdf, "BLOCK_LINES", 2)  # several blocks, so the pool really splits the work
    monkeypatch.setattr(paragraphdf, "MIN_POOL_BYTES", 0)
    par, voc = files
    out = tmp_path / "df.npz"
    assert run(paragraphdf.main, ["--paragraphs", str(par), "--vocab", str(voc), "--out", str(out), "--workers", str(workers)]) == 0
    with np.load(out) as z:
        assert sorted(z.files) == ["counts", "df", "n_docs"]
        assert z["counts"].tolist() == EXPECTED_COUNTS
        assert z["df"].dtype == np.int64 and z["df"].shape == (len(VOCAB),)
        assert z["n_docs"].dtype == np.int64 and z["n_docs"].shape == ()
        assert z["df"].tolist() == EXPECTED_DF
        assert int(z["n_docs"]) == len(LINES)
    assert "5 paragraphs" in capsys.readouterr().out
    assert sorted(os.listdir(tmp_path)) == ["df.npz", "paragraphs.tsv", "vocab.txt"]


def test_blocks_do_not_matter(files, monkeypatch):
    monkeypatch.setattr(paragraphdf, "MIN_POOL_BYTES", 0)
    monkeypatch.setattr(paragraphdf, "BLOCK_LINES", 2)
    par, voc = files
    words = store.read_vocab(str(voc))
    a = paragraphdf.document_frequencies(str(par), words, workers=1, counts=True)
    b = paragraphdf.document_frequencies(str(par), words, workers=2, counts=True)
    assert a[1] == b[1] == 5 and (a[0] == b[0]).all() and a[2].tolist() == b[2].tolist() == EXPECTED_COUNTS


def test_idf_formula():
    df = np.array([0, 1, 4, 9])
    n = 10
    np.testing.assert_allclose(idf(df, n), [math.log(10 / 1), math.log(10 / 2), math.log(10 / 5), math.log(10 / 10)])
    assert (np.diff(idf(df, n)) < 0).all()  # idf falls as df grows: descending idf = ascending df


def test_same_input_same_bytes(files, tmp_path):
    par, voc = files
    blobs = []
    for name in ("x.npz", "y.npz"):
        assert run(paragraphdf.main, ["--paragraphs", str(par), "--vocab", str(voc), "--out", str(tmp_path / name)]) == 0
        blobs.append((tmp_path / name).read_bytes())
    assert blobs[0] == blobs[1]


def test_load_df_roundtrip_and_checks(tmp_path):
    path = tmp_path / "df.npz"
    store.save_df(str(path), np.array([3, 0, 1]), 4)
    df, n = store.load_df(str(path))
    assert df.tolist() == [3, 0, 1] and n == 4
    np.savez(tmp_path / "bad.npz", df=np.array([5]), n_docs=np.int64(4))
    with pytest.raises(paragraphdf.InputError, match="bad.npz: inconsistent"):
        store.load_df(str(tmp_path / "bad.npz"))


@pytest.mark.parametrize("case", ["no-vocab", "no-paragraphs", "no-tab", "empty"])
def test_bad_input(files, tmp_path, capsys, case, monkeypatch):
    monkeypatch.setattr(paragraphdf, "MIN_POOL_BYTES", 0)
    monkeypatch.setattr(paragraphdf, "BLOCK_LINES", 1)  # the broken line reaches the parent through the pool
    par, voc = files
    blamed = {"no-vocab": voc, "no-paragraphs": par}.get(case, par)
    if case == "no-vocab":
        voc.unlink()
    elif case == "no-paragraphs":
        par.unlink()
    elif case == "no-tab":
        par.write_text("a\tfine line\nbroken line\n")
    else:
        par.write_text("")
    out = tmp_path / "df.npz"
    before = set(os.listdir(tmp_path))
    assert run(paragraphdf.main, ["--paragraphs", str(par), "--vocab", str(voc), "--out", str(out), "--workers", "2"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {blamed}: ") and err.count("\n") == 1, err
    assert set(os.listdir(tmp_path)) == before
