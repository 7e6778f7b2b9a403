"""Document frequencies and counts of a token space's tokens over the corpus's paragraphs (issue 34; not in the paper).

    python -m experiments.token_df --paragraphs data/paragraphs.tsv --out data/tokens/df.npz [--space wordllama]

Each paragraph (a line ``article_id<TAB>text`` of the cleaned corpus) is one document, as the
corpus words' df is counted (docs/FIDELITY.md); its text is split by the token space's own
tokenizer (:mod:`repro.spaces.tokenspace`, WordLlama's by default). Every token of the space is written
with its df, its count and N (:func:`repro.io.store.save_word_df`); a token no paragraph holds gets
df 1 and count 1 (:func:`repro.evaluate.tokentables.corpus_docfreq`). The WordLlama rows of Tables 1 and 2
read it (:mod:`experiments.tokenrows`).
"""

from __future__ import annotations

import argparse
import sys

from repro.evaluate import tokentables
from repro.io import store
from repro.errors import InputError, run


def paragraphs(path: str) -> list[str]:
    """The texts of a paragraphs file (``article_id<TAB>text`` lines)."""
    try:
        with open(path, encoding="utf-8") as f:
            texts = [line.rstrip("\n").partition("\t")[2] for line in f]
    except OSError as err:
        raise InputError(path, f"cannot read the paragraphs ({err.strerror})") from None
    if not texts:
        raise InputError(path, "no paragraphs")
    return texts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--paragraphs", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--space", default=tokentables.SOURCE,
                    help="the token space: wordllama (the wheel's), or a folder with a tokenizer.json and its matrix")
    args = ap.parse_args(argv)
    texts = paragraphs(args.paragraphs)
    _, _, space = tokentables.load(args.space)
    freq = tokentables.corpus_docfreq(space, texts)
    store.save_word_df(args.out, freq.words, freq.df, freq.n_docs, freq.counts)
    seen = int((freq.counts > 1).sum())
    print(f"{len(texts):,} paragraphs, {int(freq.counts.sum()):,} tokens; {seen:,} of {len(freq.words):,} tokens "
          f"occur more than once -> {args.out}")


if __name__ == "__main__":
    sys.exit(run(main))
