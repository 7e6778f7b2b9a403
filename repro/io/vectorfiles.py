"""Word vectors in text files (word2vec text with its ``count dim`` header, GloVe without one), read fast.

gensim's ``load_word2vec_format`` reads a text file line by line in Python and converts every
value on its own (18.8 s for GloVe 6B 50d, and six times that for 300 d). :func:`read_text_vectors`
hands the whole file to pandas' C parser in one call and gives the **same words and the same
float32 matrix** as gensim on every file gensim reads, by gensim's rules:

* the first line is a header when it has two fields, both digits: ``count dim``; then exactly
  ``count`` lines are read and any further lines are ignored; without a header (GloVe) every line
  is a word, and the first line gives the dimension;
* a line's trailing whitespace is stripped and the rest split at single spaces: the first field
  is the word (quotes, ``#``, ``nan``, ``null``, ``1.0``: all kept as written), the others its
  values, each parsed as a double and rounded to float32;
* a word listed twice keeps its first vector;
* UTF-8, strictly; ``.gz``, ``.bz2`` and ``.xz`` files are decompressed.

What pandas would read otherwise falls back to :func:`read_text_vectors_exact`, a line-by-line
reader of the same rules, which reads the odd file or names the line at fault: a UTF-8 byte order
mark (pandas drops it, gensim keeps it in the first word), a blank, short or long line, a ``\\r``
inside a line, a value pandas does not parse, a warning of any kind from pandas, fewer lines
than the header's count, or a NaN or infinite value. The one difference left: gensim spreads a
line with a single value over the whole vector (NumPy broadcasting), both readers here refuse it.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import itertools
import lzma
import os
import warnings

import numpy as np

#: Decompressors by file-name ending (gensim's ``smart_open`` opens these the same way).
OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
BOM = b"\xef\xbb\xbf"


class _Fallback(Exception):
    """The fast path cannot promise gensim's reading of this file: use the exact reader."""


def open_binary(path: str):
    """``path`` opened for reading bytes, decompressed by its ending (:data:`OPENERS`)."""
    opener = OPENERS.get(os.path.splitext(path)[1].lower(), open)
    return opener(path, "rb")


def is_header(line: bytes) -> bool:
    """True when a first line is a ``count dim`` header (two fields, both digits), gensim's test."""
    fields = line.split()
    return len(fields) == 2 and all(x.isdigit() for x in fields)


def _fail(path: str, cause: str) -> ValueError:
    return ValueError(f"{path}: cannot read word vectors ({cause})")


def _first_rows(words: list[str]) -> np.ndarray | None:
    """Rows of the first occurrence of every word, in file order; None when no word repeats."""
    first: dict[str, int] = {}
    for i, w in enumerate(words):
        first.setdefault(w, i)
    if len(first) == len(words):
        return None
    return np.fromiter(first.values(), dtype=np.int64, count=len(first))


def _dedup(words: list[str], matrix: np.ndarray) -> tuple[list[str], np.ndarray]:
    rows = _first_rows(words)
    if rows is None:
        return words, matrix
    return [words[i] for i in rows], matrix[rows]


class _Counted:
    """A binary file whose reads advance a progress bar (pandas reads it through ``read``)."""

    def __init__(self, f, bar):
        self.f, self.bar = f, bar

    def read(self, size: int = -1) -> bytes:
        data = self.f.read(size)
        self.bar.update(len(data))
        return data

    def __iter__(self):  # pandas checks that a handle is iterable
        return iter(self.f)


def _fast(f, path: str, count: int | None, dim: int, trailing: bool, bar) -> tuple[list[str], np.ndarray]:
    """pandas' C parser from the file's current position: ``count`` lines (all when None) of a
    word and ``dim`` values, plus an empty last field when every line ends in a space
    (``trailing``, as the word2vec C tool writes). _Fallback when it cannot promise gensim's reading."""
    import pandas as pd

    columns = dim + 1 + int(trailing)
    dtypes = {0: object, **{j: np.float32 for j in range(1, dim + 1)}}
    if trailing:
        dtypes[dim + 1] = object
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            frame = pd.read_csv(_Counted(f, bar), sep=" ", header=None, names=list(range(columns)), index_col=False,
                                dtype=dtypes, quoting=csv.QUOTE_NONE, doublequote=False, escapechar=None,
                                comment=None, na_filter=False, skip_blank_lines=False, skipinitialspace=False,
                                nrows=count, engine="c", encoding="utf-8", encoding_errors="strict")
    except Exception as err:  # a line pandas cannot read as gensim would: the exact reader says which
        raise _Fallback(str(err)) from None
    if caught:
        raise _Fallback(str(caught[0].message))
    if count is not None and len(frame) != count:
        raise _Fallback(f"{len(frame):,} lines, the header says {count:,}")
    if trailing and not (frame[dim + 1] == "").all():
        raise _Fallback("a line with more fields than the first")
    words = frame[0].tolist()
    if not all(type(w) is str for w in words):
        raise _Fallback("a missing word")
    matrix = np.ascontiguousarray(frame.iloc[:, 1:dim + 1].to_numpy(np.float32))
    del frame
    if not np.isfinite(matrix).all():
        raise _Fallback("a NaN or infinite value, or a short line")
    return words, matrix


def read_text_vectors(path: str, progress: bool = False) -> tuple[list[str], np.ndarray]:
    """Words and a C-contiguous (V, d) float32 matrix of a word2vec text or GloVe file, as gensim
    reads it (module docstring), by pandas' C parser; ValueError naming ``path`` and the fault."""
    from repro.progress import bar

    if not os.path.isfile(path):
        raise ValueError(f"{path}: no such file")
    compressed = os.path.splitext(path)[1].lower() in OPENERS
    with open_binary(path) as f:
        first = f.readline()
        if first.startswith(BOM) or not first.strip():
            return read_text_vectors_exact(path)
        count, start = None, 0
        if is_header(first):
            count, dim = (int(x) for x in first.split())
            start = f.tell()
            line = f.readline()
        else:
            dim, line = len(first.rstrip().split(b" ")) - 1, first
        if dim < 1 or count == 0:
            return read_text_vectors_exact(path)
        trailing = line.rstrip(b"\r\n").endswith(b" ")
        f.seek(start)
        with bar(None if compressed else os.path.getsize(path), f"read {os.path.basename(path)}", unit="B",
                 unit_scale=True, show=progress) as progress_bar:
            try:
                words, matrix = _fast(f, path, count, dim, trailing, progress_bar)
            except _Fallback:
                words = None
    if words is None:
        return read_text_vectors_exact(path)
    return _dedup(words, matrix)


def _line_vector(line: bytes, path: str, number: int) -> tuple[str, list[float]]:
    """gensim's reading of one line: trailing whitespace stripped, UTF-8, split at single spaces."""
    try:
        parts = line.rstrip().decode("utf-8").split(" ")
    except UnicodeDecodeError as err:
        raise _fail(path, f"line {number}: not UTF-8 ({err.reason})") from None
    try:
        return parts[0], [np.float32(x).item() for x in parts[1:]]
    except ValueError as err:
        raise _fail(path, f"line {number}: {err}") from None


def read_text_vectors_exact(path: str) -> tuple[list[str], np.ndarray]:
    """The same as :func:`read_text_vectors`, line by line in Python, as gensim's reader does (slow:
    the fast path's fallback, and its reference in the tests). ValueError names the line at fault."""
    if not os.path.isfile(path):
        raise ValueError(f"{path}: no such file")
    words, rows = [], []
    with open_binary(path) as f:
        first = f.readline()
        if is_header(first):
            count, dim = (int(x) for x in first.split())
            lines, start = (f.readline() for _ in range(count)), 2
        else:
            lines, dim, start = itertools.chain([first] if first else [], f), None, 1
        for number, line in enumerate(lines, start):
            if line == b"":
                raise _fail(path, f"the header says {count:,} words, the file has {len(words):,}")
            word, values = _line_vector(line, path, number)
            dim = len(values) if dim is None else dim
            if len(values) != dim:
                raise _fail(path, f"line {number}: {len(values)} values, expected {dim}")
            words.append(word)
            rows.append(values)
    if not rows:
        raise ValueError(f"{path}: no word vectors found")
    return _dedup(words, np.array(rows, dtype=np.float32).reshape(len(rows), dim))
