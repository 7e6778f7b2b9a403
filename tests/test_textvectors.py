"""repro.io.vectorfiles: the fast text reader gives gensim's words and matrix, awkward words included."""

from __future__ import annotations

import bz2
import gzip
import warnings

import numpy as np
import pytest

from repro.io import vectorfiles as tv
from repro.spaces.vectors import load_word2vec_file


def gensim_read(path: str):
    """The reference: gensim's load_word2vec_format, as repro.spaces.vectors called it before."""
    from gensim.models import KeyedVectors

    with tv.open_binary(path) as f:
        header = tv.is_header(f.readline())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gensim's unclosed handle of a headerless file
        kv = KeyedVectors.load_word2vec_format(path, binary=False, no_header=not header)
    return list(kv.index_to_key), kv.vectors


def write(tmp_path, data: bytes, name: str = "v.txt") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def assert_same(got, expected):
    assert got[0] == expected[0]
    assert got[1].dtype == np.float32 and got[1].flags.c_contiguous
    np.testing.assert_array_equal(got[1].view(np.uint32), np.asarray(expected[1], np.float32).view(np.uint32))


AWKWARD = ['"quoted', "it's", '"both"', "#", "#hash", "a#b", "nan", "NaN", "-nan", "null", "NULL", "NA", "N/A",
           "#N/A", "None", "none", "True", "FALSE", "1", "1.0", "007", "1e5", "-", ",", "a,b", "\\", "a\tb", "\x00x",
           "café", "naïve\u00a0x", "日本", "😀", "inf", "-inf", "''", "<unk>", "</s>", "[PAD]"]


@pytest.fixture(scope="module")
def awkward_matrix():
    rng = np.random.default_rng(0)
    m = rng.standard_normal((len(AWKWARD), 7)) * 10.0 ** rng.integers(-6, 3, (len(AWKWARD), 7))
    m[0, 0], m[1, 1] = -0.0, 0.0
    return m


@pytest.mark.parametrize("header", [False, True])
@pytest.mark.parametrize("style", ["repr", "short", "exp", "trailing space", "crlf"])
def test_awkward_words_and_values_read_as_gensim_reads_them(tmp_path, awkward_matrix, header, style):
    fmt = {"repr": repr, "short": lambda x: f"{x:.5f}", "exp": lambda x: f"{x:.9e}"}.get(style, repr)
    end = {"trailing space": " \n", "crlf": "\r\n"}.get(style, "\n")
    lines = [w + " " + " ".join(fmt(float(x)) for x in row) + end for w, row in zip(AWKWARD, awkward_matrix)]
    text = (f"{len(AWKWARD)} 7\n" if header else "") + "".join(lines)
    path = write(tmp_path, text.encode("utf-8"))
    expected = gensim_read(path)
    assert expected[0] == AWKWARD  # gensim keeps every word as written
    assert_same(tv.read_text_vectors(path), expected)
    assert_same(tv.read_text_vectors_exact(path), expected)


def test_many_digit_values_round_like_gensim(tmp_path):
    """Values pandas must parse to the very float32 gensim gets (str -> double -> float32),
    float32 midpoints printed with 25 digits included."""
    rng = np.random.default_rng(1)
    f32 = rng.standard_normal(3000).astype(np.float32)
    mid = (f32.astype(np.float64) + np.nextafter(f32, np.float32(np.inf)).astype(np.float64)) / 2
    values = [f"{m:.25g}" for m in mid] + [repr(float(x)) for x in rng.standard_normal(3000) * 1e-3]
    path = write(tmp_path, "".join(f"w{i} {a} {b}\n" for i, (a, b) in enumerate(zip(values[::2], values[1::2])))
                 .encode())
    assert_same(tv.read_text_vectors(path), gensim_read(path))


def test_the_fast_path_reads_ordinary_files(tmp_path, monkeypatch):
    """On an ordinary file (with a header, without, with trailing spaces) the exact reader is never called."""
    def refuse(path):
        raise AssertionError("fell back to the line-by-line reader")

    monkeypatch.setattr(tv, "read_text_vectors_exact", refuse)
    for data, n in ((b"3 2\nthe 1 0\ncat 0 2\ndog 3 4\n", 3), (b"the 1 0\ncat 0 2\ndog 3 4", 3),
                    (b"the 1 0 \ncat 0 2 \ndog 3 4 \n", 3), (b"2 2\nthe 1 0\ncat 0 2\nignored past the count\n", 2)):
        words, m = tv.read_text_vectors(write(tmp_path, data))
        assert words == ["the", "cat", "dog"][:n]
        np.testing.assert_array_equal(m, [[1, 0], [0, 2], [3, 4]][:n])


@pytest.mark.parametrize("data, words", [
    (b"\xef\xbb\xbfthe 1 2\ncat 3 4\n", ["\ufeffthe", "cat"]),  # gensim keeps the byte order mark; pandas would not
    (b"the 1 2\ncat 3 4 \n", ["the", "cat"]),                    # one line with a trailing space
    (b"the 1 2\t\ncat 3 4\x0b\n", ["the", "cat"]),               # other trailing whitespace
    (b"a\rb 1 2\ncat 3 4\n", ["a\rb", "cat"]),                   # a carriage return inside a word
    (b"the 1_0 2\ncat 3 4\n", ["the", "cat"]),                   # a value only Python's float reads
])
def test_what_pandas_reads_otherwise_falls_back_to_gensim_rules(tmp_path, data, words):
    path = write(tmp_path, data)
    got = tv.read_text_vectors(path)
    assert got[0] == words
    assert_same(got, gensim_read(path))


def test_a_repeated_word_keeps_its_first_vector(tmp_path):
    path = write(tmp_path, b"the 1 2\ncat 3 4\nthe 5 6\n")
    for read in (tv.read_text_vectors, tv.read_text_vectors_exact):
        words, m = read(path)
        assert words == ["the", "cat"]
        np.testing.assert_array_equal(m, [[1, 2], [3, 4]])


@pytest.mark.parametrize("data, cause", [
    (b"3 2\nthe 1 2\ncat 3 4\n", "the header says 3 words, the file has 2"),
    (b"the 1 2 3\ncat 4 5\n", "line 2: 2 values, expected 3"),
    (b"the 1 2\ncat 3 4 5\n", "line 2: 3 values, expected 2"),
    (b"the 1 2\n\ncat 3 4\n", "line 2: 0 values, expected 2"),
    (b"the 1  2\n", "line 1: could not convert string to float: ''"),
    (b"the 1 x\n", "line 1: could not convert string to float: 'x'"),
    (b"th\xffe 1 2\n", "line 1: not UTF-8"),
    (b"2 3\nthe 1 x 2\n", "line 2: could not convert string to float: 'x'"),
])
def test_bad_files_name_the_line(tmp_path, data, cause):
    path = write(tmp_path, data)
    with pytest.raises(ValueError, match="cannot read word vectors") as err:
        tv.read_text_vectors(path)
    assert str(err.value).startswith(f"{path}: ") and cause in str(err.value)
    with pytest.raises((ValueError, EOFError)):
        gensim_read(path)  # gensim refuses them too


def test_empty_and_missing_files(tmp_path):
    with pytest.raises(ValueError, match="no word vectors found"):
        tv.read_text_vectors(write(tmp_path, b""))
    with pytest.raises(ValueError, match="nope.txt: no such file"):
        tv.read_text_vectors(str(tmp_path / "nope.txt"))


@pytest.mark.parametrize("suffix, opener", [(".txt.gz", gzip.open), (".txt.bz2", bz2.open)])
def test_compressed_files(tmp_path, suffix, opener):
    data = b"3 2\nthe 1 0\ncat 0 2\ndog 3 4\n"
    path = str(tmp_path / f"v{suffix}")
    with opener(path, "wb") as f:
        f.write(data)
    words, m = load_word2vec_file(path)
    assert words == ["the", "cat", "dog"]
    np.testing.assert_array_equal(m, [[1, 0], [0, 2], [3, 4]])
    assert_same((words, m), gensim_read(path))


def test_no_file_is_left_open(tmp_path):
    """The reader of the issue warned "unclosed file" on every GloVe file; this one does not."""
    import gc

    path = write(tmp_path, b"the 1 0\ncat 0 2\n")
    gc.collect()  # what earlier tests left (gensim's handles)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            load_word2vec_file(path)
            load_word2vec_file(write(tmp_path, b"2 2\nthe 1 0\ncat 0 2\n", "header.txt"))
        gc.collect()
    assert [str(w.message) for w in caught] == []
