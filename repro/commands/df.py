"""``repro df``: document frequencies of a file of texts, the df file that ``--df`` reads (paper, eq. 1).

    repro df texts.txt --out df.npz
    repro df corpus.jsonl --out df.npz --tokeniser unicode
    repro encode texts.txt --vectors glove300/ --df df.npz --out X.npy

TEXTS is any file ``repro encode`` reads (one text per line, or JSON lines); each text is one
document. The output holds every word with the number of texts that hold it, its number of
occurrences (the word counts of ``repro train --word-weights/--whiten``), and N, the number of
texts (:meth:`repro.words.docfreq.DocFreq.save`). Count them on a corpus like the texts you
will encode, and a large one: with a few hundred texts most words of new texts are unseen and
get df = 1 (the encoder warns when that is many of them); tens of thousands of texts are
better. Raw strings are split by the paper's rule unless ``--tokeniser unicode``; use the
tokeniser you will encode with.
"""

from __future__ import annotations

import sys

from repro.io import store
from repro.errors import InputError, run
from repro.commands.options import texts_parser, add_quiet_option, add_tokeniser_option


def main(argv=None) -> int:
    from repro.words.docfreq import DocFreq
    from repro.words.text import tokeniser

    ap = texts_parser("repro df", __doc__, "the df file to write (.npz): words, df, word counts and N")
    add_tokeniser_option(ap, default="paper")
    add_quiet_option(ap)
    args = ap.parse_args(argv)
    if not args.out.endswith(".npz"):
        raise InputError(args.out, "the df file must end in .npz")
    texts = store.read_texts(args.texts, args.format)
    freq = DocFreq.from_corpus(texts, tokeniser(args.tokeniser), progress=not args.quiet)
    if not freq.words:
        raise InputError(args.texts, f"no words in its {freq.n_docs:,} texts (after the {args.tokeniser} tokeniser)")
    freq.save(args.out)
    print(f"df: {len(freq.words):,} words in {freq.n_docs:,} texts -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
