"""fse Average on saved vectors and texts, timed inside this process (run by bench_encode.py).

Runs under the side environment ``.bench-venv-fse`` (fse 1.0.0 built by the recipe in
/work/shared/reference/peers.md), never the project's: it imports neither repro nor jax.

    .bench-venv-fse/bin/python benchmarks/fse_average.py DIR --workers 2 --repeats 3

DIR holds ``vocab.txt`` and ``vectors.npy`` (repro.io.store's word-vector format) and ``texts.txt``
(one text per line, tokens separated by spaces). Prints one JSON line: the seconds of every
timed ``Average.train`` call over all texts (token lists in, sentence vectors out, the lookup of
every word included), after one untimed warm-up call; writes the first ``--check`` vectors to
DIR/fse-<workers>.npy for the bench's check that both compute the same mean.
"""

import argparse
import json
import logging
import os
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--check", type=int, default=1000)
    args = ap.parse_args()
    logging.disable(logging.WARNING)

    from fse import Average, IndexedList
    from fse.models.average import FAST_VERSION
    from gensim.models import KeyedVectors

    with open(os.path.join(args.dir, "vocab.txt"), encoding="utf-8") as f:
        words = f.read().split("\n")[:-1]
    matrix = np.load(os.path.join(args.dir, "vectors.npy"))
    kv = KeyedVectors(matrix.shape[1])
    kv.add_vectors(words, matrix)  # built with its words: no placeholder keys (peers.md)
    for w in words:
        kv.set_vecattr(w, "count", 1)  # fse requires a count; Average does not use it
    with open(os.path.join(args.dir, "texts.txt"), encoding="utf-8") as f:
        texts = [line.split() for line in f]

    def run():
        model = Average(kv, workers=args.workers)
        t0 = time.perf_counter()
        model.train(IndexedList(texts))
        return time.perf_counter() - t0, model

    _, model = run()  # warm-up
    np.save(os.path.join(args.dir, f"fse-{args.workers}.npy"), np.asarray(model.sv.vectors[: args.check]))
    seconds = [run()[0] for _ in range(args.repeats)]
    print(json.dumps({"workers": args.workers, "seconds": seconds, "texts": len(texts),
                      "fast_version": int(FAST_VERSION)}))


if __name__ == "__main__":
    main()
