"""Every file format of the project: one checked loader and one atomic writer each.

Writers put the bytes under a temporary name beside the target and rename it when complete,
so an interrupted run never leaves a file that looks complete and is not. Loaders raise
:class:`repro.errors.InputError` (a ``ValueError``) whose text is ``"<file>: <cause>"``.

=============  ==========================================  ================================
format         file                                        reader / writer
=============  ==========================================  ================================
text, JSON     any ``.md``/``.tex``/``.csv``/``.json``     :func:`write_text`, :func:`write_json`, :func:`read_json`
any stream     e.g. ``paragraphs.tsv``, figures            :func:`atomic_file` (a context manager)
array          any ``.npy`` (text vectors)                 :func:`load_array`, :func:`save_array`
vocabulary     ``w2v/vocab.txt``: one word per line        :func:`read_vocab`, :func:`write_vocab`
word vectors   ``w2v/``, ``repro vectors`` folders: vocab +   :func:`load_vectors`, :func:`save_vectors`
               ``vectors.npy`` (V, d) float32 (mmap)
doc. freq.     ``df.npz``: ``df``, ``n_docs``, ``counts``   :func:`load_df`, :func:`load_counts`, :func:`save_df`
couples        ``<setting>/<split>.npz`` (a PairSet)       :func:`load_pairs`, :func:`save_pairs`, :func:`save_splits`
groups         ``<setting>/groups.npz`` (tweet settings)   :func:`load_groups`, :func:`save_splits`
text couples   ``twitter/couples.jsonl``, user files        :func:`read_couples`, :func:`write_couples`
texts          one per line, or JSON lines                 :func:`read_texts`
model          ``models/<setting>-<loss>.npz``             :func:`load_model`, :func:`save_model`
               (a :class:`repro.core.modelrecord.ModelRecord`)
scores         ``scores/<setting>.npz`` + ``.json``        :func:`load_scores`, :func:`save_scores`
word df        ``*.npz``: ``words``, ``df``, ``n_docs``      :func:`load_word_df`, :func:`save_word_df`
               (and ``counts`` where counted)
weights        ``*.npz`` (``weights``) + ``.json``          :func:`load_weights`, :func:`save_weights`
encoder        ``*.npz`` + ``.json`` (its parts, ``fit_*``,   :func:`load_encoder`, :func:`save_encoder`
               ``map_*``, ...: :mod:`repro.encode.encoderfile`)
=============  ==========================================  ================================

Where each file lives under a data folder is :class:`repro.io.layout.Layout`. numpy is imported
inside the functions: the Wikipedia extractor uses this module and must not start numpy's
threads before it forks its workers (:func:`repro.data.parallel.mp_context`).
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

from repro.errors import InputError

# ---- atomic writers --------------------------------------------------------------------------


def _tmp(path: str, suffix: str = "") -> str:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    return f"{path}.tmp{suffix}"


def _commit(tmp: str, path: str) -> None:
    os.replace(tmp, path)


def _discard(tmp: str) -> None:
    if os.path.exists(tmp):
        os.remove(tmp)


@contextlib.contextmanager
def atomic_file(path: str, mode: str = "w"):
    """A file object for ``path`` that is written under a temporary name and renamed to ``path``
    only when the ``with`` block ends without an error (text modes: UTF-8, ``\\n`` newlines)."""
    tmp = _tmp(path)
    text = {} if "b" in mode else {"encoding": "utf-8", "newline": "\n"}
    try:
        with open(tmp, mode, **text) as f:
            yield f
        _commit(tmp, path)
    finally:
        _discard(tmp)


def write_text(path: str, text: str) -> None:
    """``text`` (UTF-8) to ``path``, atomically."""
    with atomic_file(path) as f:
        f.write(text)


def _plain(x):
    import numpy as np

    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


def write_json(path: str, obj, sort_keys: bool = False) -> None:
    """``obj`` as indented JSON (numpy scalars and arrays as plain values), atomically."""
    write_text(path, json.dumps(obj, indent=2, sort_keys=sort_keys, default=_plain) + "\n")


def save_array(path: str, array) -> None:
    """One array as ``.npy`` (no pickles), atomically."""
    import numpy as np

    tmp = _tmp(path, ".npy")
    try:
        np.save(tmp, np.asarray(array), allow_pickle=False)
        _commit(tmp, path)
    finally:
        _discard(tmp)


def load_array(path: str, mmap: bool = False):
    """The array of a ``.npy`` (no pickles); ``mmap``: memory-mapped, read only (rows are read
    from disk as they are used)."""
    import numpy as np

    if not os.path.isfile(path):
        raise InputError(path, "no such file")
    with open(path, "rb") as f:
        if f.read(6) != b"\x93NUMPY":
            raise InputError(path, "not a NumPy .npy file (np.save writes one; repro encode --out X.npy)")
    try:
        return np.load(path, mmap_mode="r" if mmap else None, allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        if "pickle" in str(err) or "Python objects" in str(err):
            raise InputError(path, "holds Python objects, which are never unpickled (not an array of numbers)") from None
        raise InputError(path, f"cannot read the .npy file ({err})") from None


def read_json(path: str):
    if not os.path.isfile(path):
        raise InputError(path, "no such file")
    with open(path, encoding="utf-8") as f:
        try:
            return json.load(f)
        except json.JSONDecodeError as err:
            raise InputError(path, f"not valid JSON ({err})") from None


def sha256(path: str) -> str:
    """Hex SHA-256 of a file's bytes, read in blocks (for provenance)."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_json_if_any(path: str):
    """:func:`read_json`, or None when there is no such file."""
    return read_json(path) if os.path.exists(path) else None


def write_npz(path: str, **arrays) -> None:
    """``numpy.savez`` to ``path`` (which should end in ``.npz``), atomically."""
    import numpy as np

    tmp = _tmp(path, ".npz")
    try:
        np.savez(tmp, **arrays)
        _commit(tmp, path)
    finally:
        _discard(tmp)


def _a(what: str) -> str:
    """``what`` with its article: "a df", "an encoder"."""
    return ("an " if what[:1] in "aeiou" else "a ") + what


def _open_npz(path: str, keys, what: str) -> dict:
    """Every array of an ``.npz`` (no pickles), after checking that ``keys`` are present."""
    import zipfile

    import numpy as np

    if not os.path.isfile(path):
        raise InputError(path, "no such file")
    if not zipfile.is_zipfile(path):
        raise InputError(path, f"not {_a(what)} file (not a NumPy .npz archive)")
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = [k for k in keys if k not in z.files]
            if missing:
                raise InputError(path, f"not {_a(what)} file (missing {', '.join(missing)})")
            return {k: z[k] for k in z.files}
    except InputError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
        if "pickle" in str(err):  # NumPy's advice to unpickle: never taken here, never shown
            raise InputError(path, f"not {_a(what)} file (it holds Python objects, which are never unpickled)") from None
        raise InputError(path, f"cannot read {_a(what)} file ({err})") from None


# ---- vocabulary and word vectors -------------------------------------------------------------


def read_vocab(path: str) -> list[str]:
    """Words of a ``vocab.txt``: one per line, UTF-8, unique, without spaces or tabs."""
    if not os.path.isfile(path):
        raise InputError(path, "no such file")
    text = read_utf8(path)
    words = text.split("\n")[:-1]
    if not words:
        raise InputError(path, "empty vocabulary")
    # the checks on the whole text, not word by word: 400,000 words in a few milliseconds
    if len(set(words)) != len(words) or "" in words or "\t" in text or " " in text:
        raise InputError(path, "not a vocabulary (empty, repeated or space-holding words)")
    return words


def write_vocab(path: str, words) -> None:
    """One word per line; a word :func:`read_vocab` could not read back (empty, or holding a
    newline, carriage return, tab or space) is an InputError naming it."""
    bad = next((w for w in words if not isinstance(w, str) or w == "" or any(c in w for c in "\n\r\t ")), None)
    if bad is not None:
        raise InputError(path, f"cannot store the word {bad!r} (words must be non-empty, without spaces, tabs or "
                               "line breaks)")
    write_text(path, "".join(w + "\n" for w in words))


def save_vectors(directory: str, words: list[str], matrix) -> None:
    """``vocab.txt`` and ``vectors.npy`` (row i = vector of line i, C order) into ``directory``.

    An old ``vectors.npy`` is removed first and the new one renamed last: its presence means
    both files are complete and belong together.
    """
    import numpy as np

    matrix = np.ascontiguousarray(matrix, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[0] != len(words):
        raise InputError(directory, f"matrix shape {matrix.shape} does not match {len(words):,} words")
    vec = os.path.join(directory, "vectors.npy")
    if os.path.exists(vec):
        os.remove(vec)
    vocab = os.path.join(directory, "vocab.txt")
    if not (os.path.isfile(vocab) and read_utf8(vocab) == "".join(w + "\n" for w in words)):
        write_vocab(vocab, words)  # the same words already there stay untouched (make's vocab.txt stage)
    tmp = _tmp(vec, ".npy")
    try:
        np.save(tmp, matrix)
        _commit(tmp, vec)
    finally:
        _discard(tmp)


def load_vectors(directory: str, mmap: bool = False) -> tuple[list[str], "np.ndarray"]:
    """(words, (V, d) matrix) of a folder written by :func:`save_vectors`."""
    import numpy as np

    vec, voc = os.path.join(directory, "vectors.npy"), os.path.join(directory, "vocab.txt")
    if not os.path.isfile(vec):
        raise InputError(vec, "no such file")
    words = read_vocab(voc)
    try:
        matrix = np.load(vec, allow_pickle=False, mmap_mode="r" if mmap else None)
    except (OSError, ValueError) as err:
        raise InputError(vec, f"cannot read vectors ({err})") from None
    if matrix.ndim != 2 or matrix.shape[0] != len(words):
        raise InputError(vec, f"{matrix.shape[0] if matrix.ndim else 0:,} rows but {voc} has {len(words):,} words")
    return words, matrix


# ---- document frequencies --------------------------------------------------------------------


def save_df(path: str, df, n_docs: int, counts=None) -> None:
    """``df`` (V,) and N, the number of documents (paragraphs); ``counts`` (V,), when given, the
    word counts (occurrences)."""
    import numpy as np

    extra = {} if counts is None else {"counts": np.asarray(counts, dtype=np.int64)}
    write_npz(path, df=np.asarray(df, dtype=np.int64), n_docs=np.int64(n_docs), **extra)


def load_df(path: str, vocab_size: int | None = None) -> tuple["np.ndarray", int]:
    """(df (V,) int64, N) of :func:`save_df`; with ``vocab_size``, V is checked against it."""
    import numpy as np

    z = _open_npz(path, ("df", "n_docs"), "df")
    df, n_docs = z["df"].astype(np.int64), int(z["n_docs"])
    if df.ndim != 1 or n_docs <= 0 or (df < 0).any() or (df > n_docs).any():
        raise InputError(path, "inconsistent df file (need 0 <= df <= n_docs, n_docs > 0)")
    if vocab_size is not None and df.shape[0] != vocab_size:
        raise InputError(path, f"{df.shape[0]:,} document frequencies for {vocab_size:,} vocabulary words")
    return df, n_docs


def load_counts(path: str, vocab_size: int | None = None) -> "np.ndarray":
    """The (V,) int64 word counts of a df file (:func:`save_df` with ``counts``), checked: at least
    the document frequencies, and not all zero."""
    import numpy as np

    df, _ = load_df(path, vocab_size)
    z = _open_npz(path, ("counts",), "df (with word counts)")
    counts = z["counts"].astype(np.int64)
    if counts.shape != df.shape or (counts < df).any() or counts.sum() <= 0:
        raise InputError(path, "word counts inconsistent with the document frequencies (need counts >= df)")
    return counts


# ---- couples -----------------------------------------------------------------------------------

PAIR_KEYS = ("a", "b", "len_a", "len_b", "label")


def save_pairs(path: str, pairs) -> None:
    """A :class:`repro.core.pairset.PairSet` as ``.npz`` with the keys ``a b len_a len_b label``."""
    import numpy as np

    from repro.checks import check_pairs

    check_pairs(pairs, name=path)
    write_npz(path, **{k: np.asarray(v) for k, v in zip(PAIR_KEYS, pairs)})


def load_pairs(path: str):
    """The :class:`repro.core.pairset.PairSet` of :func:`save_pairs`, validated."""
    import numpy as np

    from repro.checks import check_pairs
    from repro.core.pairset import PairSet

    z = _open_npz(path, PAIR_KEYS, "pair")
    pairs = PairSet(z["a"].astype(np.int32), z["b"].astype(np.int32), z["len_a"].astype(np.int32),
                    z["len_b"].astype(np.int32), z["label"].astype(np.int8))
    try:
        check_pairs(pairs, name=path)
    except ValueError as err:
        raise InputError(path, str(err).split(": ", 1)[-1]) from None
    return pairs


def save_splits(folder: str, splits: dict, summary: dict, groups: dict | None = None) -> None:
    """A setting's couples: ``<split>.npz`` for every split, ``groups.npz`` (one integer array per
    split: the group of every couple, for a bootstrap over groups) when given, then
    ``summary.json`` last (its presence means the set is complete; an old one is removed first)."""
    import numpy as np

    os.makedirs(folder, exist_ok=True)
    marker = os.path.join(folder, "summary.json")
    if os.path.exists(marker):
        os.remove(marker)
    for name, pairs in splits.items():
        save_pairs(os.path.join(folder, f"{name}.npz"), pairs)
    if groups is not None:
        bad = [k for k, g in groups.items() if np.shape(g) != (splits[k].label.shape[0],)]
        if bad:
            raise InputError(folder, f"groups of the {bad[0]} split do not match its couples")
        write_npz(os.path.join(folder, "groups.npz"), **{k: np.asarray(g, np.int64) for k, g in groups.items()})
    write_json(marker, summary, sort_keys=True)


def load_groups(path: str, splits: dict) -> dict:
    """The arrays of ``groups.npz`` (:func:`save_splits`), checked against ``{split: couples}``."""
    z = _open_npz(path, tuple(splits), "groups")
    for k, n in splits.items():
        if z[k].shape != (n,):
            raise InputError(path, f"{z[k].shape[0] if z[k].ndim else 0:,} groups for the {n:,} couples of {k}")
    return z


# ---- files of texts and of couples of texts -------------------------------------------------------
# Texts: one per line, or JSON lines (``.jsonl``; a string, a list of tokens, or an object with
# ``"text"``). Couples: TSV ``text_a<TAB>text_b[<TAB>label]``, or JSON lines with ``"a"``, ``"b"``
# and ``"label"`` (1 related, 0 unrelated).


def _json_text(value, path: str, line: int):
    if isinstance(value, dict):
        value = value.get("text")
    if isinstance(value, str) or (isinstance(value, list) and all(isinstance(t, str) for t in value)):
        return value
    raise InputError(path, f"line {line}: expected a string, a list of tokens or an object with \"text\"")


def read_utf8(path: str) -> str:
    """The text of a UTF-8 file; InputError naming the line and byte of the first bad byte."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise InputError(path, f"line {line}: not UTF-8 text ({err.reason} at byte {column} of the line)") from None
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text  # as open()'s newlines


def _lines(path: str) -> list[str]:
    if not os.path.exists(path):
        raise InputError(path, "no such file")
    if os.path.isdir(path):
        raise InputError(path, "is a directory")
    return read_utf8(path).splitlines()


def _is_jsonl(path: str, fmt: str) -> bool:
    return fmt == "jsonl" or (fmt == "auto" and path.endswith((".jsonl", ".ndjson")))


def _json(line: str, path: str, i: int):
    try:
        return json.loads(line)
    except json.JSONDecodeError as err:
        raise InputError(path, f"line {i}: not JSON ({err.msg})") from None


def read_texts(path: str, fmt: str = "auto") -> list:
    """The texts of a file: one per line, or JSON lines (``fmt`` "lines", "jsonl" or "auto" by extension)."""
    lines = _lines(path)
    if _is_jsonl(path, fmt):
        texts = [_json_text(_json(s, path, i), path, i) for i, s in enumerate(lines, 1) if s.strip()]
    else:
        texts = lines
    if not texts:
        raise InputError(path, "no texts (empty input)")
    return texts


def read_texts_ids(path: str, fmt: str = "auto") -> tuple[list, list | None]:
    """(texts, ids) of a file of texts: ids from the JSON lines' ``"id"`` as strings (None for a line
    without one), or None where no line has one (and for plain lines)."""
    if not _is_jsonl(path, fmt):
        return read_texts(path, fmt), None
    texts, ids = [], []
    for i, s in enumerate(_lines(path), 1):
        if s.strip():
            obj = _json(s, path, i)
            ids.append(obj.get("id") if isinstance(obj, dict) else None)
            texts.append(_json_text(obj, path, i))
    if not texts:
        raise InputError(path, "no texts (empty input)")
    if all(v is None for v in ids):
        return texts, None
    return texts, [None if v is None else str(v) for v in ids]


def read_couples(path: str, labels: bool, fields: tuple = (), optional: tuple = ()):
    """((text_a, text_b) list, labels or None) of a couples file; ``labels=True`` requires them.
    With ``fields`` (JSON lines only, e.g. ``("ids", "split")``), a third value: one dict of those
    fields per couple, each required, and of the ``optional`` ones (None where a line lacks one)."""
    lines = _lines(path)
    couples, ys, extra = [], [], []
    jsonl = _is_jsonl(path, "auto")
    if fields and not jsonl:
        raise InputError(path, f"only a JSON lines file can hold {', '.join(fields)}")
    for i, s in enumerate(lines, 1):
        if not s.strip():
            continue
        if jsonl:
            obj = _json(s, path, i)
            if not isinstance(obj, dict) or "a" not in obj or "b" not in obj:
                raise InputError(path, f"line {i}: expected an object with \"a\" and \"b\"")
            a, b, y = _json_text(obj["a"], path, i), _json_text(obj["b"], path, i), obj.get("label")
            missing = [f for f in fields if f not in obj]
            if missing:
                raise InputError(path, f"line {i}: no {', '.join(missing)}")
            extra.append({**{f: obj[f] for f in fields}, **{f: obj.get(f) for f in optional}})
        else:
            parts = s.split("\t")
            if len(parts) not in (2, 3):
                raise InputError(path, f"line {i}: expected text_a<TAB>text_b[<TAB>label], found {len(parts)} fields")
            a, b, y = parts[0], parts[1], parts[2] if len(parts) == 3 else None
        if labels:
            if y is None:
                raise InputError(path, f"line {i}: no label " + ("(\"label\": 0 or 1)" if jsonl else
                                                                  "(a third column: 0 unrelated, 1 related)"))
            if str(y).strip() not in ("0", "1"):
                raise InputError(path, f"line {i}: label must be 0 (unrelated) or 1 (related), got {y!r}")
            ys.append(int(str(y).strip()))
        couples.append((a, b))
    if not couples:
        raise InputError(path, "no couples (empty input)")
    import numpy as np

    out = couples, (np.asarray(ys, np.int8) if labels else None)
    return out + (extra,) if fields else out


def write_couples(path: str, related, unrelated, fmt: str = "jsonl", info=(None, None)) -> None:
    """Related then unrelated couples of token lists, one a line: JSON lines
    ``{"label": 1|0, "a": [...], "b": [...]}``, which :func:`read_couples` reads back, or, with
    ``fmt="tsv"``, the tweet stage's table ``label<TAB>tokens a<TAB>tokens b`` (tokens joined by
    spaces), for reading by eye. ``info``: for each class None or one dict per couple whose
    fields join its JSON line (the tweet stage's ``ids`` and ``split``)."""
    lines = []
    for label, group, extra in ((1, related, info[0]), (0, unrelated, info[1])):
        for k, (a, b) in enumerate(group):
            lines.append(f"{label}\t{' '.join(a)}\t{' '.join(b)}\n" if fmt == "tsv"
                         else json.dumps({"label": label, "a": a, "b": b, **(extra[k] if extra else {})}) + "\n")
    write_text(path, "".join(lines))


# ---- learned weights ---------------------------------------------------------------------------

def save_model(path: str, record) -> None:
    """A :class:`repro.core.modelrecord.ModelRecord`: learned weights and how they were made, as the
    arrays of :meth:`~repro.core.modelrecord.ModelRecord.arrays`."""
    write_npz(path, **record.arrays())


def load_model(path: str):
    """The :class:`repro.core.modelrecord.ModelRecord` of :func:`save_model`, checked: finite 1-D
    weights, a known loss, and a kappa and its source as the loss allows
    (:func:`repro.core.modelrecord.check_kappa`)."""
    from repro.core.modelrecord import REQUIRED_KEYS, ModelRecord

    z = _open_npz(path, REQUIRED_KEYS, "model")
    try:
        return ModelRecord.from_arrays(z)
    except ValueError as err:
        raise InputError(path, f"a {z['loss']} model with kappa source {z['kappa_source']}: {err}") from None


# ---- scores --------------------------------------------------------------------------------------


def save_scores(path: str, scores: dict, meta: dict) -> None:
    """Scores ``{<split>_<method>: (P,), <split>_label: (P,)}`` to ``path`` and ``meta`` beside it
    (``.json``); the ``.npz`` is renamed last."""
    write_json(os.path.splitext(path)[0] + ".json", meta)
    write_npz(path, **scores)


def load_scores(path: str, methods=(), splits=("validation", "test")) -> dict:
    """The arrays of :func:`save_scores`; every ``<split>_<method>`` and ``<split>_label`` checked."""
    keys = [f"{s}_{m}" for s in splits for m in ("label", *methods)]
    z = _open_npz(path, keys, "scores")
    for s in splits:
        n = z[f"{s}_label"].shape
        bad = [m for m in methods if z[f"{s}_{m}"].shape != n]
        if bad:
            raise InputError(path, f"{s} scores of {', '.join(bad)} do not match the {n[0]:,} labels")
    return z


# ---- word document frequencies, weights and encoders (repro.encode.encoder) ------------------------------


def save_word_df(path: str, words, df, n_docs: int, counts=None) -> None:
    """Document frequencies that name their words: ``words`` (V,) str, ``df`` (V,) int64, ``n_docs``,
    and optionally ``counts`` (V,) int64, the words' occurrences (SIF, uSIF and whitening read them)."""
    import numpy as np

    extra = {} if counts is None else {"counts": np.asarray(counts, np.int64)}
    write_npz(path, words=np.asarray(list(words), dtype=str), df=np.asarray(df, np.int64), n_docs=np.int64(n_docs),
              **extra)


def load_word_df(path: str, counts: bool = False) -> tuple:
    """(words, df (V,) int64, N) of :func:`save_word_df`, checked (unique words, 0 <= df <= N);
    with ``counts=True`` also the (V,) int64 word counts, or None for a file written without them."""
    import numpy as np

    z = _open_npz(path, ("df", "n_docs"), "df")
    if "words" not in z:
        raise InputError(path, "a df file without its words (a data folder's df.npz goes with its "
                               "w2v/vocab.txt: use repro.words.vocabulary.Vocabulary.load(vocab, df))")
    words, df, n_docs = [str(w) for w in z["words"]], z["df"].astype(np.int64), int(z["n_docs"])
    if df.shape != (len(words),) or len(set(words)) != len(words):
        raise InputError(path, f"{df.shape[0] if df.ndim else 0:,} frequencies for {len(words):,} words, or a word twice")
    if n_docs <= 0 or (df < 0).any() or (df > n_docs).any():
        raise InputError(path, "inconsistent df file (need 0 <= df <= n_docs, n_docs > 0)")
    if not counts:
        return words, df, n_docs
    terms = z["counts"].astype(np.int64) if "counts" in z else None
    if terms is not None and (terms.shape != df.shape or (terms < df).any()):
        raise InputError(path, "word counts that do not match the words (need one count per word, count >= df)")
    return words, df, n_docs, terms


def save_weights(path: str, weights, meta: dict) -> None:
    """Learned weights (n_max,) float32 to ``path`` and their provenance ``meta`` to ``.json`` beside it."""
    import numpy as np

    write_json(os.path.splitext(path)[0] + ".json", meta)
    write_npz(path, weights=np.asarray(weights, np.float32))


def _checked_weights(path: str, w):
    """``w`` as float32 after :func:`repro.checks.check_weights`; its error names ``path``."""
    import numpy as np

    from repro.checks import check_weights

    try:
        return check_weights(w, "weights").astype(np.float32)
    except ValueError as err:
        raise InputError(path, str(err)) from None


def load_weights(path: str) -> tuple["np.ndarray", dict]:  # noqa: F821
    """(weights, provenance) of :func:`save_weights`; also reads a ``models/*.npz`` (no ``.json``)."""
    w = _checked_weights(path, _open_npz(path, ("weights",), "weights")["weights"])
    return w, read_json_if_any(os.path.splitext(path)[0] + ".json") or {}


ENCODER_KEYS = ("weights", "df", "n_docs", "idf")
ENCODER_FORMAT = "repro-encoder/1"


def save_encoder(path: str, arrays: dict, meta: dict) -> None:
    """An encoder: ``arrays`` (``weights``, ``df``, ``n_docs``, ``idf``) in ``path`` (.npz) and
    ``meta`` (settings, vocabulary fingerprint) in ``.json`` beside it; the ``.npz`` is renamed last."""
    if not path.endswith(".npz"):
        raise InputError(path, "an encoder file name must end in .npz")
    write_json(os.path.splitext(path)[0] + ".json", {"format": ENCODER_FORMAT, **meta})
    write_npz(path, **arrays)


def load_encoder(path: str) -> tuple[dict, dict]:
    """(arrays, meta) of :func:`save_encoder`, checked against each other (the idf table against
    the document frequencies, and each part, by :func:`repro.encode.encoderfile.read`)."""
    import numpy as np

    meta_path = os.path.splitext(path)[0] + ".json"
    z = _open_npz(path, ENCODER_KEYS, "encoder")
    meta = read_json(meta_path)
    if not isinstance(meta, dict) or meta.get("format") != ENCODER_FORMAT:
        raise InputError(meta_path, f"not an encoder description (format {ENCODER_FORMAT} expected)")
    missing = [k for k in ("fingerprint", "vocab_size", "dim", "n_max") if k not in meta]
    if missing:
        raise InputError(meta_path, f"missing {', '.join(missing)}")
    z["weights"] = _checked_weights(path, z["weights"])
    df, n_docs = z["df"].astype(np.int64), int(z["n_docs"])
    if df.shape != (meta["vocab_size"],) or z["idf"].shape != df.shape:
        raise InputError(path, f"{df.shape[0] if df.ndim else 0} frequencies for a {meta['vocab_size']}-word vocabulary")
    if n_docs <= 0 or (df < 0).any():
        raise InputError(path, "inconsistent document frequencies (need df >= 0, n_docs > 0)")
    if z["weights"].shape[0] != meta["n_max"]:
        raise InputError(path, f"{z['weights'].shape[0]} weights but n_max {meta['n_max']} in {meta_path}")
    z["df"], z["n_docs"] = df, n_docs
    return z, meta
