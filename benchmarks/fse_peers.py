"""fse 1.0.0's SIF and uSIF on saved vectors, counts and texts (run by tests/test_peers.py).

Runs under the side environment ``.bench-venv-fse`` (see the Makefile's bench rules), never the
project's: it imports neither repro nor jax.

    .bench-venv-fse/bin/python benchmarks/fse_peers.py DIR

DIR holds ``vocab.txt`` and ``vectors.npy`` (repro.io.store's word-vector format), ``counts.npy``
(one word count per vocabulary word), ``train.txt`` and ``test.txt`` (one text per line, tokens
separated by spaces). Writes DIR/fse-sif.npy and DIR/fse-usif.npy: the test texts' vectors after
training each model on the training texts (SIF: alpha 1e-3, 1 component; uSIF: 5 components,
the average length fse computes itself).
"""

import os
import sys

import numpy as np


def main():
    folder = sys.argv[1]
    from gensim.models import KeyedVectors
    from fse import IndexedList
    from fse.models import SIF, uSIF

    with open(os.path.join(folder, "vocab.txt"), encoding="utf-8") as f:
        words = f.read().split("\n")[:-1]
    vectors = np.load(os.path.join(folder, "vectors.npy"))
    counts = np.load(os.path.join(folder, "counts.npy"))
    kv = KeyedVectors(vectors.shape[1])  # no count=: that would keep empty keys (peers.md's pitfall)
    kv.add_vectors(words, vectors)
    for w, c in zip(words, counts):
        kv.set_vecattr(w, "count", int(c))

    def texts(name):
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            return [line.split() for line in f.read().split("\n") if line]

    train, test = IndexedList(texts("train.txt")), IndexedList(texts("test.txt"))
    for name, model in (("sif", SIF(kv, alpha=1e-3, components=1, workers=1)),
                        ("usif", uSIF(kv, components=5, workers=1))):
        model.train(train)
        np.save(os.path.join(folder, f"fse-{name}.npy"), model.infer(test))
        if name == "usif":
            print(model.length)


if __name__ == "__main__":
    main()
