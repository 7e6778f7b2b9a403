"""semhash's self-deduplication on this project's vectors, in semhash's side environment (a plain
script: ``.bench-venv-semhash/bin/python benchmarks/semhash_dedup.py TEXTS VECTORS.npy T OUT.npz``).

The texts are read as ``repro`` reads a file of lines; the vectors are the project's (``repro
encode``), given to ``SemHash.from_embeddings`` (which groups exact duplicate texts first, as
``from_records`` does); then ``self_deduplicate(threshold=T)`` (usearch's HNSW, semhash's
default backend). Written to OUT: ``kept`` (N,) bool, ``duplicate_of`` (N,) int64 (-1 where
kept), and the couples of exact-duplicate groups semhash's search returned at or above T
(``gi``, ``gj``; ``group`` (N,) each item's group), to count the couples it found. Prints one JSON
line: its phases' seconds.
"""

import json
import sys
import time

import numpy as np


class Vectors:
    """semhash's encoder protocol; never called here (the vectors are given)."""

    def encode(self, sentences, **kwargs):
        raise RuntimeError("the vectors are given to from_embeddings")


def main(texts_path, vectors_path, threshold, out):
    from semhash import SemHash
    t0 = time.perf_counter()
    with open(texts_path, encoding="utf-8") as f:
        texts = f.read().splitlines()
    x = np.load(vectors_path)
    records = [{"text": t, "id": str(i)} for i, t in enumerate(texts)]
    t1 = time.perf_counter()
    sh = SemHash.from_embeddings(x, records, model=Vectors(), columns=["text"])
    t2 = time.perf_counter()
    captured = {}
    query = sh.index.query_threshold

    def keep(vectors, threshold):
        captured["neighbours"] = query(vectors, threshold)
        return captured["neighbours"]

    sh.index.query_threshold = keep
    result = sh.self_deduplicate(threshold=float(threshold))
    t3 = time.perf_counter()
    n = len(texts)
    kept = np.zeros(n, bool)
    dup = np.full(n, -1, np.int64)
    for r in result.selected:
        kept[int(r["id"])] = True
    for d in result.filtered:
        dup[int(d.record["id"])] = int(d.duplicate_of["id"])
    group = np.empty(n, np.int64)
    for g, items in enumerate(sh.index.items):
        for r in items:
            group[int(r["id"])] = g
    gi, gj = [], []
    for g, (idx, scores) in enumerate(captured["neighbours"]):
        idx = np.asarray(idx, np.int64)[np.asarray(scores) >= float(threshold)]
        idx = idx[idx != g]
        gi.append(np.full(idx.size, g, np.int64))
        gj.append(idx)
    np.savez(out, kept=kept, duplicate_of=dup, group=group, gi=np.concatenate(gi), gj=np.concatenate(gj))
    print(json.dumps({"read_s": t1 - t0, "index_s": t2 - t1, "dedup_s": t3 - t2, "groups": len(sh.index.items)}))


if __name__ == "__main__":
    main(*sys.argv[1:5])
