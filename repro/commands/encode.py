"""``repro encode``: a file of texts to a .npy of text vectors (paper, eq. 3).

    repro encode texts.txt --vectors glove.6B.300d.txt --corpus texts.txt --out vectors.npy
    repro encode texts.jsonl --model enc.npz --out vectors.npy
    repro encode texts.txt --out vectors.npy       # no files: the installed vectors, wordfreq's frequencies

Row i of the output is the vector of text i (one per line, or JSON lines). Without
``--model`` the shipped weights are used: ``--pretrained default`` (the default: the space and
model of the best STS-B dev Pearson, ``repro/weights/default.json``), ``best``, the learned
family's winner (the paper's weights learned on Zipfian-whitened word vectors under 1 - cos), or
``paper``, the paper's own. Without ``--vectors`` the default's space where installed, else the
installed ones (WordLlama's token space with the extra tokens, else GloVe 6B 50d), without ``--df`` and ``--corpus``
wordfreq's frequencies (``--frequencies``, default wordfreq:en): nothing to download. A text with
no known word is the zero vector (with a warning); unknown words do not count in n.
"""

from __future__ import annotations

import sys
import time
import warnings

from repro.io import store
from repro.errors import InputError, run
from repro.commands.options import texts_parser, add_encoder_options, encoder_from, report_warnings


def main(argv=None) -> int:
    ap = texts_parser("repro encode", __doc__, "the .npy to write: (number of texts, d) float32")
    add_encoder_options(ap)
    args = ap.parse_args(argv)
    if not args.out.endswith(".npy"):
        raise InputError(args.out, "the output must be a .npy file")
    t0 = time.perf_counter()
    texts = store.read_texts(args.texts, args.format)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        enc = encoder_from(args)
        vectors = enc.transform(texts)
    report_warnings(caught)
    store.save_array(args.out, vectors)
    print(f"encode: {vectors.shape[0]:,} texts -> {args.out} ({vectors.shape[1]}-d) in {time.perf_counter() - t0:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
