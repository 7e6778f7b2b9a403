"""``repro vectors``: convert word vectors, once, into the project's folder, which every command loads in a second.

    repro vectors glove.6B.300d.txt glove300/
    repro encode texts.txt --vectors glove300/ --corpus texts.txt --out X.npy

IN is any vectors file the encoder reads: a word2vec binary (.bin, .bin.gz), a word2vec text
file (``count dim`` header) or a GloVe text file (no header), plain or .gz/.bz2/.xz. OUT is a
folder of ``vocab.txt`` (the words, one a line, in file order) and ``vectors.npy`` (the (V, d)
float32 matrix), :func:`repro.store.save_vectors`; ``vectors.npy`` is written last, so a folder
that holds it is complete. The vectors are stored as read: unit length, case folding and
document frequencies stay options of the encoder (``--no-normalize``, ``--lowercase``), and
an encoder saved on the text file loads on the folder (same words, same order). A word listed
twice keeps its first vector, as in gensim.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from repro import store
from repro.errors import InputError, run
from repro.commands.options import add_quiet_option


def main(argv=None) -> int:
    from repro.vectors import is_folder, load_word_vectors

    ap = argparse.ArgumentParser(prog="repro vectors", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("source", metavar="IN", help="word vectors: word2vec .bin, word2vec or GloVe text (or a folder)")
    ap.add_argument("out", metavar="OUT", help="the folder to write: vocab.txt + vectors.npy")
    add_quiet_option(ap)
    args = ap.parse_args(argv)
    if not os.path.exists(args.source):
        raise InputError(args.source, "no such file")
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise InputError(args.out, "exists and is not a folder")
    if os.path.isdir(args.source) and os.path.realpath(args.source) == os.path.realpath(args.out):
        raise InputError(args.out, "is the input folder itself")
    t0 = time.perf_counter()
    kind = "folder" if is_folder(args.source) else "file"
    # a bad file is a ValueError "<file>: <cause>" of the loaders, one line through repro.errors.run
    words, matrix = load_word_vectors(args.source, normalize=False, progress=not args.quiet)
    store.save_vectors(args.out, words, matrix)
    folder = os.path.join(os.path.normpath(args.out), "")  # one trailing separator, however it was typed
    print(f"vectors: {len(words):,} words x {matrix.shape[1]} d from the {kind} {args.source} -> {folder} "
          f"(vocab.txt, vectors.npy) in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
