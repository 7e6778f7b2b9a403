"""The persistent index: a folder of text vectors, their k-means cells and ids, to search again
without reading or scanning everything anew, and to add texts to (beyond the paper; issue 58).

Files (no pickle anywhere):

- ``manifest.json``: what the folder holds (``n``, ``dim``, ``metric``, the encoder's identity, the
  cells' settings) and a SHA-256 of every file but the vectors, of which it keeps the SHA-256 of
  64 rows spread over the set, the length and (checked by ``load(verify=True)``) a SHA-256 of every byte;
- ``vectors.npy``: (n, dim) float32, the vectors as given, row i the i-th item added
  (``np.load(..., mmap_mode="r")`` reads it); its header has room to grow, so an add appends;
- ``norms.npy``: (n, 1) float64, each vector's length (a query reads the vectors once);
- ``centroids.npy``, ``cells.npy`` (cosine only): the cells' (C, dim) float32 centroids and each
  item's probed cells, (n, P) int32, its home first, -1 for none (:mod:`repro.search.cells`);
- ``ids.txt``: one id per line, where ids were given (otherwise an item's id is its row);
- any files the caller adds (the command line: ``encoder.npz`` and ``.json``, the encoder).

The cells are learned on the first :data:`repro.search.cells.TRAIN` items, so a folder built in
parts (:func:`add`) holds the same bits as one built at once from the same rows: an add that
reaches past that prefix learns the cells again on the new prefix and places every item anew;
later adds place only the new items (and the partial block before them, in the same shapes).

The manifest is written last, through a temporary file and a rename: an add interrupted before
it leaves the folder as it was (rows past the manifest's ``n`` are ignored and overwritten by the
next add), and a build goes to a temporary folder renamed at the end. A truncated file, a changed
one, or a manifest that is not this format is refused with one line naming the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil

import numpy as np

from repro.errors import InputError
from repro.io import store
from repro.search import cells as cellmod
from repro.search import cellsearch
from repro.search.neighbours import as_matrix, norms, top_k as exact_top_k

FORMAT, VERSION = "repro-index", 1
MANIFEST, VECTORS, NORMS, CENTROIDS, CELLS, IDS = ("manifest.json", "vectors.npy", "norms.npy", "centroids.npy", "cells.npy",
                                                   "ids.txt")
#: the encoder a folder holds, where it holds one (its .json beside it), written by the caller
ENCODER = "encoder.npz"
#: bytes of a growable .npy header (magic, version, length and the padded dict)
HEADER = 128
#: rows whose SHA-256 the manifest keeps (the vectors' cheap check on every load)
SAMPLE_ROWS = 64


def _header(shape: tuple, dtype: str) -> bytes:
    d = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (dtype, ", ".join(map(str, shape)) +
                                                                      ("," if len(shape) == 1 else ""))
    body = d.ljust(HEADER - 10 - 1) + "\n"
    return b"\x93NUMPY\x01\x00" + (HEADER - 10).to_bytes(2, "little") + body.encode("latin1")


def _write_rows(path: str, rows: np.ndarray, start: int, dtype: str) -> None:
    """Rows ``start``.. of the growable .npy at ``path`` set to ``rows`` (the file cut after row
    ``start`` first), and its header's shape updated."""
    rows = np.ascontiguousarray(rows, np.dtype(dtype))
    row_bytes = rows.itemsize * (int(np.prod(rows.shape[1:])) if rows.ndim > 1 else 1)
    with open(path, "r+b" if os.path.exists(path) else "w+b") as f:
        f.truncate(HEADER + start * row_bytes)
        f.seek(HEADER + start * row_bytes)
        f.write(rows.tobytes())
        f.seek(0)
        f.write(_header((start + len(rows),) + rows.shape[1:], dtype))
        f.flush()
        os.fsync(f.fileno())


def _write_items(path: str, v, rep, start: int) -> int:
    """The items' vectors (row ``rep[i]`` of ``v``, or row i where ``rep`` is None) written from
    row ``start`` on, a chunk at a time (never all the items' rows in memory at once); their number."""
    n = len(v) if rep is None else len(rep)
    chunk = 1 << 16
    if n == 0:
        raise InputError("vectors", "no vectors to index")
    for lo in range(0, n, chunk):
        rows = v[lo:lo + chunk] if rep is None else v[rep[lo:lo + chunk]]
        if lo == 0:
            _write_rows(path, np.asarray(rows, np.float32), start, "<f4")
        else:
            with open(path, "ab") as f:
                f.write(np.ascontiguousarray(rows, np.float32).tobytes())
    with open(path, "r+b") as f:
        f.write(_header((start + n, v.shape[1]), "<f4"))
    return n


def _rows(path: str, n: int, width: int, dtype: str) -> np.ndarray:
    """The first ``n`` rows of a growable .npy, memory-mapped; InputError when it is shorter."""
    need = HEADER + n * width * np.dtype(dtype).itemsize
    size = os.path.getsize(path) if os.path.exists(path) else -1
    if size < need:
        raise InputError(path, f"truncated or missing: {max(size, 0):,} bytes, the manifest needs {need:,}")
    with open(path, "rb") as f:
        if f.read(6) != b"\x93NUMPY":
            raise InputError(path, "not a .npy file")
    if n == 0:
        return np.zeros((0, width), dtype)
    return np.memmap(path, dtype, "r", offset=HEADER, shape=(n, width))


def _sample_sha(vectors: np.ndarray) -> str:
    n = len(vectors)
    rows = np.unique(np.linspace(0, n - 1, min(n, SAMPLE_ROWS)).astype(np.int64)) if n else np.zeros(0, np.int64)
    return hashlib.sha256(np.ascontiguousarray(vectors[rows]).tobytes()).hexdigest()


class Index:
    """A loaded index folder (:func:`load`): ``vectors`` (n, dim) memory-mapped, ``centroids`` and
    ``cells`` (None under the Euclidean distance), ``metric``, ``encoder`` (the identity the
    manifest records), ``n``, ``dim``."""

    def __init__(self, folder: str, manifest: dict):
        self.folder, self.manifest = folder, manifest
        self.n, self.dim, self.metric = int(manifest["n"]), int(manifest["dim"]), manifest["metric"]
        self.encoder = manifest.get("encoder")
        self.vectors = _rows(self.path(VECTORS), self.n, self.dim, "<f4")
        self.norms = np.asarray(_rows(self.path(NORMS), self.n, 1, "<f8")).ravel()
        self.centroids = self.cells = None
        if manifest.get("cells"):
            c = manifest["cells"]
            self.centroids = np.asarray(_rows(self.path(CENTROIDS), int(c["count"]), self.dim, "<f4"))
            self.cells = _rows(self.path(CELLS), self.n, int(c["probes"]), "<i4")

    def path(self, name: str) -> str:
        return os.path.join(self.folder, name)

    def ids(self) -> list:
        """Every item's id: the ids given (``ids.txt``), else the rows as strings."""
        if not self.manifest.get("ids"):
            return [str(i) for i in range(self.n)]
        with open(self.path(IDS), encoding="utf-8") as f:
            out = f.read().split("\n")[:self.n]
        return out

    def id_of(self, rows) -> list:
        """The ids of ``rows``."""
        rows = np.asarray(rows).ravel()
        if not self.manifest.get("ids"):
            return [str(int(r)) for r in rows]
        every = self.ids()
        return [every[int(r)] for r in rows]

    def top_k(self, queries, k: int, *, probes: int = cellsearch.QUERY_PROBES, exact: bool = True):
        """(rows, scores), (Q, k) each: the ``k`` items of highest score with each query (best first,
        ties by the lower row), every item scanned exactly (its kept lengths, ``norms.npy``: one
        read of the vectors); with ``exact=False`` (cosine only) the members of each query's
        ``probes`` nearest cells only, scored exactly (approximate: docs/SEARCH.md)."""
        queries = as_matrix(queries, "queries", self.dim, "the index's")
        k = min(int(k), self.n)
        if exact or self.cells is None:
            return exact_top_k(queries, self.vectors, k, self.metric, corpus_norms=self.norms)
        q_cells, _ = cellmod.nearest_cells(queries, self.centroids, self.metric, probes)
        return cellsearch.top_k(self.vectors, np.asarray(self.cells[:, 0]), self.centroids, queries, q_cells, k,
                                self.metric)

    def duplicates(self, threshold: float, rule: str = "groups", exact: bool | None = None):
        """:func:`repro.search.duplicates.near_duplicates` of the folder's items, through its own cells."""
        from repro.search.duplicates import near_duplicates
        cells_of = None if self.cells is None else (np.asarray(self.cells), len(self.centroids))
        return near_duplicates(self.vectors, threshold, self.metric, rule=rule, exact=exact, cells_of=cells_of,
                               row_norms=self.norms)


def _manifest(folder: str, n: int, dim: int, metric: str, encoder, cells: dict | None, ids: bool,
              vectors: np.ndarray, extra: list) -> dict:
    files = {name: {"bytes": os.path.getsize(os.path.join(folder, name)),
                    "sha256": store.sha256(os.path.join(folder, name))}
             for name in [NORMS] + ([CENTROIDS, CELLS] if cells else []) + ([IDS] if ids else []) + list(extra)}
    return {"format": FORMAT, "version": VERSION, "n": n, "dim": dim, "metric": metric, "encoder": encoder,
            "cells": cells, "ids": ids, "files": files, "extra": list(extra),
            "vectors": {"bytes": HEADER + n * dim * 4, "sample_sha256": _sample_sha(vectors),
                        "sha256": _prefix_sha(os.path.join(folder, VECTORS), HEADER + n * dim * 4, skip=HEADER)}}


def _place(folder: str, vectors: np.ndarray, v_norms: np.ndarray, metric: str, start: int, seed: int,
           cells: dict | None) -> dict | None:
    """Learn the cells (when the training prefix changed) and write every item's probed cells from
    ``start`` on (a multiple of :data:`repro.search.cells.BLOCK`); ``v_norms``: the vectors'
    lengths (``norms.npy``); the cells' settings, or None."""
    if metric != "cosine":
        return None
    n = len(vectors)
    n_train = min(n, cellmod.TRAIN)
    probes, margin = cellsearch.MAX_PROBES, cellsearch.MARGIN
    if cells is None or cells["train"] != n_train:
        centroids = cellmod.train_cells(vectors, metric, seed=seed)
        _write_rows(os.path.join(folder, CENTROIDS), centroids, 0, "<f4")
        start = 0
    else:  # an add keeps the folder's own probes (a folder made before a default changed stays whole)
        centroids = np.asarray(_rows(os.path.join(folder, CENTROIDS), cells["count"], vectors.shape[1], "<f4"))
        probes, margin = int(cells["probes"]), float(cells["margin"])
    near, near_scores = cellmod.nearest_cells(vectors, centroids, metric, probes, start=start, x_norms=v_norms)
    probed = cellsearch.probed(near, near_scores, near.shape[1], margin)
    _write_rows(os.path.join(folder, CELLS), probed.astype(np.int32), start, "<i4")
    return {"count": len(centroids), "train": n_train, "seed": seed, "probes": int(probed.shape[1]),
            "margin": margin, "iterations": cellmod.ITERATIONS}


def _write_ids(folder: str, ids, start: int, had: bool) -> None:
    """ids.txt holding ``ids`` from row ``start`` on (cut there first; None: the item's row); where
    the folder had no ids, the rows before ``start`` get theirs (the row numbers) first."""
    path = os.path.join(folder, IDS)
    new = [str(start + r) if i is None else str(i) for r, i in enumerate(ids)]
    if any("\n" in s or "\r" in s for s in new):
        raise InputError("ids", "an id holds a line break")
    if had:
        _truncate_lines(path, start)
    with open(path, "a" if had else "w", encoding="utf-8") as f:
        if not had:
            f.write("".join(f"{i}\n" for i in range(start)))
        f.write("".join(f"{s}\n" for s in new))


def create(folder: str, vectors, metric: str, *, rep=None, encoder=None, ids=None, files: dict | None = None,
           seed: int = 0) -> Index:
    """A new index folder of ``vectors`` ((n, d), an array or memory map) scored by ``metric``;
    ``rep``: (N,) each item's row of ``vectors`` (distinct texts encoded once), or None (row i is item i);
    ``encoder``: the encoder's identity (any JSON value; adds are checked against it); ``ids``: one
    per item, or None; ``files``: name -> path of files copied in (the encoder's). Written to a
    temporary folder, renamed at the end; InputError when ``folder`` exists."""
    from repro.core.textmetric import check_metric
    check_metric(metric)
    x = as_matrix(vectors, "vectors")
    if os.path.exists(folder):
        raise InputError(folder, "exists already: add to it (repro index --add) or name a new folder")
    n = len(x) if rep is None else len(rep)
    if ids is not None and len(ids) != n:
        raise InputError("ids", f"{len(ids):,} ids for {n:,} items")
    tmp = f"{folder.rstrip(os.sep)}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    try:
        for name, src in (files or {}).items():
            shutil.copyfile(src, os.path.join(tmp, name))
        _write_items(os.path.join(tmp, VECTORS), x, rep, 0)
        stored = _rows(os.path.join(tmp, VECTORS), n, x.shape[1], "<f4")
        v_norms = norms(stored, "vectors")
        _write_rows(os.path.join(tmp, NORMS), v_norms[:, None], 0, "<f8")
        cells = _place(tmp, stored, v_norms, metric, 0, seed, None)
        has_ids = ids is not None
        if has_ids:
            _write_ids(tmp, ids, 0, False)
        manifest = _manifest(tmp, n, x.shape[1], metric, encoder, cells, has_ids, stored, list(files or {}))
        store.write_json(os.path.join(tmp, MANIFEST), manifest)
        os.rename(tmp, folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return load(folder)


def add(folder: str, vectors, *, rep=None, encoder=None, ids=None) -> Index:
    """``vectors`` appended to the index folder (the same answers as a folder built at once from all
    the rows: the module's docstring). InputError for another dimension, or an ``encoder`` identity
    other than the folder's (when both are known)."""
    index = load(folder)
    x = as_matrix(vectors, "vectors", index.dim, "the index's")
    if encoder is not None and index.encoder is not None and encoder != index.encoder:
        raise InputError(folder, "was built by another encoder: add vectors of the encoder it holds, or build a new index")
    added = len(x) if rep is None else len(rep)
    if ids is not None and len(ids) != added:
        raise InputError("ids", f"{len(ids):,} ids for {added:,} items")
    m, n_old = index.manifest, index.n
    del index  # its memory maps close before the files grow
    _write_items(os.path.join(folder, VECTORS), x, rep, n_old)
    n = n_old + added
    stored = _rows(os.path.join(folder, VECTORS), n, m["dim"], "<f4")
    _write_rows(os.path.join(folder, NORMS), norms(stored[n_old:], "vectors")[:, None], n_old, "<f8")
    v_norms = np.asarray(_rows(os.path.join(folder, NORMS), n, 1, "<f8")).ravel()
    start = (n_old // cellmod.BLOCK) * cellmod.BLOCK
    cells = _place(folder, stored, v_norms, m["metric"], start, m["cells"]["seed"] if m.get("cells") else 0,
                   m.get("cells"))
    has_ids = bool(m.get("ids")) or ids is not None
    if has_ids:
        _write_ids(folder, ids if ids is not None else range(n_old, n), n_old, bool(m.get("ids")))
    manifest = _manifest(folder, n, m["dim"], m["metric"], m.get("encoder"), cells, has_ids, stored, m.get("extra", []))
    store.write_json(os.path.join(folder, MANIFEST), manifest)
    return load(folder)


def _truncate_lines(path: str, n: int) -> None:
    """``path`` cut after its first ``n`` lines (a line an interrupted add wrote past the manifest)."""
    with open(path, "rb+") as f:
        data = f.read()
        cut, seen = 0, 0
        while seen < n:
            cut = data.index(b"\n", cut) + 1
            seen += 1
        f.truncate(cut)


def load(folder: str, verify: bool = False) -> Index:
    """The index folder, checked: its manifest, every file's length, the SHA-256 of every file but
    the vectors, and of the vectors' sampled rows (``verify``: of every byte of the vectors too).
    InputError with one line naming the file for anything that does not match."""
    path = os.path.join(folder, MANIFEST)
    if not os.path.isdir(folder):
        raise InputError(folder, "not an index folder (no such folder)")
    try:
        with open(path, encoding="utf-8") as f:
            m = json.load(f)
    except FileNotFoundError:
        raise InputError(folder, f"not an index folder (no {MANIFEST})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(path, f"not valid JSON ({e})") from None
    if not isinstance(m, dict) or m.get("format") != FORMAT:
        raise InputError(path, f"not a {FORMAT} manifest")
    if m.get("version") != VERSION:
        raise InputError(path, f"index format version {m.get('version')!r}; this version reads {VERSION}")
    for name, meta in m.get("files", {}).items():
        p = os.path.join(folder, name)
        if not os.path.exists(p):
            raise InputError(p, "missing")
        if os.path.getsize(p) < meta["bytes"]:
            raise InputError(p, f"truncated: {os.path.getsize(p):,} bytes, the manifest says {meta['bytes']:,}")
        if name in (IDS, CELLS, NORMS):
            continue  # may hold rows past the manifest's n (an interrupted add): checked below
        if store.sha256(p) != meta["sha256"]:
            raise InputError(p, "changed since the index was written (SHA-256 differs from the manifest's)")
    index = Index(folder, m)
    if _sample_sha(index.vectors) != m["vectors"]["sample_sha256"]:
        raise InputError(index.path(VECTORS), "changed since the index was written (its sampled rows' SHA-256 "
                                              "differs from the manifest's)")
    for name in (NORMS, CELLS, IDS):
        meta = m.get("files", {}).get(name)
        if meta and _prefix_sha(index.path(name), meta["bytes"]) != meta["sha256"]:
            raise InputError(index.path(name), "changed since the index was written (SHA-256 differs from the manifest's)")
    if verify and _prefix_sha(index.path(VECTORS), m["vectors"]["bytes"], skip=HEADER) != m["vectors"]["sha256"]:
        raise InputError(index.path(VECTORS), "changed since the index was written (SHA-256 differs from the manifest's)")
    return index


def _prefix_sha(path: str, size: int, skip: int = 0) -> str:
    """SHA-256 of bytes ``skip`` to ``size`` of ``path``."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        f.seek(skip)
        left = size - skip
        while left > 0:
            chunk = f.read(min(left, 1 << 20))
            if not chunk:
                break
            h.update(chunk)
            left -= len(chunk)
    return h.hexdigest()
