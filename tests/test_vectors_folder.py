"""repro vectors: a vectors file converted once into the memory-mapped folder, and what loads from it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from repro import cli
from repro.io import store
from repro.spaces import vectors
from repro.encode.encoder import Encoder
from repro.io.vectorfiles import read_text_vectors

WORDS = ["the", "cat", "sat", "on", "mat", '"quoted', "#tag", "nan", "null", "1.0", "café", "UPPER", "upper"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("vectors")
    m = np.random.default_rng(0).standard_normal((len(WORDS), 6)).astype(np.float32)
    m[3] = 0.0  # a zero vector stays zero when normalised
    (d / "glove.txt").write_text("".join(w + " " + " ".join(f"{x:.6f}" for x in row) + "\n" for w, row in zip(WORDS, m)),
                                 encoding="utf-8")
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=6)
    kv.add_vectors(WORDS, m)
    kv.save_word2vec_format(str(d / "w2v.bin"), binary=True)
    (d / "corpus.txt").write_text("the cat sat on the mat\nthe #tag nan\nnull café upper\ncat UPPER 1.0\n")
    return d


def convert(capsys, source, out) -> str:
    assert cli.main(["vectors", str(source), str(out)]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("name", ["glove.txt", "w2v.bin"])
def test_the_folder_holds_the_file_as_read(files, tmp_path, capsys, name):
    out = convert(capsys, files / name, tmp_path / "folder")
    assert out.startswith(f"vectors: {len(WORDS)} words x 6 d from the file {files / name} -> {tmp_path / 'folder'}/ (")
    # a folder typed with a trailing slash is named with one (issue 35, item 7: it printed glove50//)
    again = convert(capsys, files / name, str(tmp_path / "folder2") + "/")
    assert f" -> {tmp_path / 'folder2'}/ (vocab.txt" in again and "//" not in again
    assert (tmp_path / "folder" / "vocab.txt").read_text(encoding="utf-8") == "".join(w + "\n" for w in WORDS)
    words, matrix = store.load_vectors(str(tmp_path / "folder"))
    source = vectors.load_word_vectors(str(files / name), normalize=False)
    assert words == source[0] == WORDS
    assert matrix.dtype == np.float32 and matrix.flags.c_contiguous
    np.testing.assert_array_equal(matrix, source[1])  # stored as read: not normalised, not case-folded


def test_the_folder_loads_memory_mapped_and_gives_the_same_encoder(files, tmp_path, capsys):
    folder = tmp_path / "folder"
    convert(capsys, files / "glove.txt", folder)
    words, raw = vectors.load_word_vectors(str(folder), normalize=False)
    base = raw
    while not isinstance(base, np.memmap) and getattr(base, "base", None) is not None:
        base = base.base
    assert isinstance(base, np.memmap) and not raw.flags.writeable  # the file's pages, read-only
    text = read_text_vectors(str(files / "glove.txt"))
    np.testing.assert_array_equal(vectors.load_word_vectors(str(folder))[1], vectors.normalise(text[1]))
    lower = vectors.load_word_vectors(str(folder), lowercase=True)
    assert lower[0].count("upper") == 1 and "UPPER" not in lower[0]

    corpus = (files / "corpus.txt").read_text().splitlines()
    texts = ["The cat sat on the mat.", ["#tag", "nan", "null", "1.0"], ["café", "upper", "UPPER", "cat"]]
    from_text = Encoder.pretrained(str(files / "glove.txt"), corpus=corpus)
    from_folder = Encoder.pretrained(str(folder), corpus=corpus)
    np.testing.assert_array_equal(from_folder.transform(texts), from_text.transform(texts))
    # an encoder saved on the text file loads on the folder: the same words in the same order
    from_text.save(str(tmp_path / "enc.npz"))
    assert json.loads((tmp_path / "enc.json").read_text())["vectors"] == str(files / "glove.txt")
    loaded = Encoder.load(str(tmp_path / "enc.npz"), vectors=str(folder))
    np.testing.assert_array_equal(loaded.transform(texts), from_text.transform(texts))
    # and the commands take the folder
    assert cli.main(["similarity", "the cat", "the mat", "--vectors", str(folder), "--corpus",
                     str(files / "corpus.txt")]) == 0
    assert float(capsys.readouterr().out) == pytest.approx(from_text.similarity(["the cat"], ["the mat"])[0], abs=1e-6)


def test_normalise_gives_numpys_formula_bit_for_bit():
    rng = np.random.default_rng(4)
    m = (rng.standard_normal((2 * vectors.BLOCK + 37, 19)) * 10.0 ** rng.integers(-3, 4, (1, 19))).astype(np.float32)
    m[5] = 0.0
    m64 = m.astype(np.float64)
    norms = np.linalg.norm(m64, axis=1, keepdims=True)
    expected = (m64 / np.where(norms > 0, norms, 1.0)).astype(np.float32)
    for layout in (m, np.asfortranarray(m), m.astype(np.float64)):
        got = vectors.normalise(layout)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got.view(np.uint32), expected.view(np.uint32))
    assert not got[5].any()


def test_bad_conversions_give_one_line_and_leave_no_complete_folder(files, tmp_path, capsys):
    def error(argv) -> str:
        assert cli.main(argv) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("error: ")
        return err

    tabbed = tmp_path / "tab.txt"
    tabbed.write_bytes(b"the 1 2\na\tb 3 4\n")  # a word vocab.txt cannot hold
    out = tmp_path / "out"
    assert "vocab.txt: cannot store the word 'a\\tb'" in error(["vectors", str(tabbed), str(out)])
    assert not (out / "vectors.npy").exists()
    assert f"{tmp_path / 'none.txt'}: no such file" in error(["vectors", str(tmp_path / "none.txt"), str(out)])
    (tmp_path / "file").write_text("x")
    assert "file: exists and is not a folder" in error(["vectors", str(files / "glove.txt"), str(tmp_path / "file")])
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"the 1 2\ncat 3\n")
    assert "bad.txt: cannot read word vectors (line 2: 1 values, expected 2)" in error(["vectors", str(bad), str(out)])

    # converting over a complete folder: the old vectors.npy goes first, so a failure leaves none
    convert(capsys, files / "glove.txt", out)
    assert (out / "vectors.npy").exists()
    with pytest.raises(ValueError, match="cannot store the word"):
        store.save_vectors(str(out), ["ok", "not ok"], np.zeros((2, 3)))
    assert not (out / "vectors.npy").exists() and not vectors.is_folder(str(out))
