"""Word2vec embeddings of the paragraph corpus (original code ``vectors/w2v.py``; paper, 4.1).

    python -m repro word2vec --paragraphs DATA/paragraphs.tsv --out DATA/w2v
                               [--epochs 1] [--seed 1] [--workers 1]
                               [--dim 400] [--min-count 5] [--window 5]

Writes ``DATA/w2v/vocab.txt`` and ``DATA/w2v/vectors.npy`` (via :func:`repro.io.store.save_vectors`,
temporary names then renames, ``vectors.npy`` last) and ``DATA/w2v/summary.json``.

Settings are the original code's (gensim ``Word2Vec``): skip-gram (``sg=1``), negative sampling
with 10 noise words (``negative=10``, ``hs=0``), ``window=5``, ``vector_size=400``,
``sample=1e-4``, ``min_count=5``, learning rate 0.025 decaying linearly to 1e-4. The vocabulary
is gensim's: words of count >= ``min_count``, in gensim's index order (descending count), and
that order is the row order of ``vectors.npy``. Vectors are L2-normalised (unit length), as
the original's ``init_sims(replace=True)`` left them.

Epochs. The original made one pass (gensim's default then) over the whole 2015 English
Wikipedia, some 2 to 3 billion tokens. The default corpus here (gensim's shipped dump excerpt
and the ovos lead sections) has about 1.2 million tokens, roughly 1/2000 of that: one pass
gives each of its ~16k vocabulary words only a few dozen updates, and the vectors stay close to
their random start. Ten passes (the Makefile's ``W2V_EPOCHS=10``) is the usual remedy for small
corpora (gensim's own default is 5) and costs about two minutes here; the command-line default
stays at the paper's 1 for a paper-scale corpus.

Determinism. With ``--workers 1`` (the default) training is a single thread and the vectors are
byte-identical for a given seed and corpus, whatever ``PYTHONHASHSEED``: gensim draws initial
vectors and negative samples from generators seeded by ``--seed``, and a CRC32 hash replaces
Python's salted ``hash`` as ``hashfxn``. More workers train several times faster (gensim's
threads run its C loop without the GIL) but make the result depend on thread scheduling.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import zlib

from tqdm import tqdm

from repro.errors import InputError, run
from repro.io.store import save_vectors, write_json, write_vocab
from repro.spaces.vectors import normalise

#: The original code's settings (w2v.py:35-37 and gensim 0.11 defaults).
PAPER = dict(sg=1, hs=0, negative=10, window=5, vector_size=400, sample=1e-4, min_count=5,
             alpha=0.025, min_alpha=1e-4, epochs=1)
MAX_SENTENCE = 10_000  # gensim silently truncates longer sentences; cut them into pieces instead



class ParagraphSentences:
    """Restartable iterable over the token lists of a paragraph TSV (``article_id<TAB>text``).

    Reopens the file on every pass, so memory does not depend on the corpus size.
    """

    def __init__(self, path: str):
        self.path = path

    def __iter__(self):
        with open(self.path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                _, sep, text = line.partition("\t")
                if not sep:
                    raise InputError(self.path, f"line {lineno}: no tab between article id and text")
                tokens = text.split()
                for i in range(0, len(tokens), MAX_SENTENCE):
                    yield tokens[i : i + MAX_SENTENCE]


def stable_hash(text: str) -> int:
    """A hash that does not change between processes (unlike ``hash`` on ``str``)."""
    return zlib.crc32(text.encode("utf-8"))


def vocabulary_model(paragraphs: str, seed: int = 1, workers: int = 1, dim: int = 400, min_count: int = 5,
                     window: int = 5, progress: bool | None = None):
    """The word2vec model of ``paragraphs`` with its vocabulary built and nothing trained: its
    words (gensim's index order) are those of the trained model, which only adds the vectors."""
    from gensim.models import Word2Vec

    settings = dict(PAPER, vector_size=dim, min_count=min_count, window=window)
    model = Word2Vec(seed=seed, workers=workers, hashfxn=stable_hash, **{k: v for k, v in settings.items() if k != "epochs"})
    model.build_vocab(tqdm(ParagraphSentences(paragraphs), desc="w2v vocabulary", unit=" paragraphs",
                           disable=progress is False or None))
    if not model.wv.index_to_key:
        raise InputError(paragraphs, f"no word occurs {min_count} or more times")
    return model


def train_word2vec(paragraphs: str, epochs: int = 1, seed: int = 1, workers: int = 1, dim: int = 400,
          min_count: int = 5, window: int = 5, progress: bool | None = None):
    """Train word2vec on ``paragraphs``; return (words in gensim index order, unit vectors, model)."""
    from gensim.models.callbacks import CallbackAny2Vec

    sentences = ParagraphSentences(paragraphs)
    model = vocabulary_model(paragraphs, seed, workers, dim, min_count, window, progress)

    class Bar(CallbackAny2Vec):
        def __init__(self):
            self.bar = tqdm(total=epochs, desc="w2v epochs", unit="epoch", disable=progress is False or None)

        def on_epoch_end(self, model):
            self.bar.update(1)

        def on_train_end(self, model):
            self.bar.close()

    model.train(sentences, total_examples=model.corpus_count, epochs=epochs, callbacks=[Bar()])
    return list(model.wv.index_to_key), normalise(model.wv.vectors), model


def parser() -> argparse.ArgumentParser:
    """The command line (defaults are the paper's settings)."""
    ap = argparse.ArgumentParser(prog="python -m repro word2vec", description=__doc__.split("\n\n")[0])
    ap.add_argument("--paragraphs", required=True, help="paragraph TSV of the wikidump stage")
    ap.add_argument("--out", required=True, help="folder for vectors.npy and vocab.txt")
    ap.add_argument("--epochs", type=int, default=PAPER["epochs"], help="passes over the corpus (default 1, the paper's)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1, gensim's)")
    ap.add_argument("--workers", type=int, default=1, help="training threads; 1 (default) is deterministic")
    ap.add_argument("--dim", type=int, default=PAPER["vector_size"], help="vector size (default 400)")
    ap.add_argument("--min-count", type=int, default=PAPER["min_count"], help="vocabulary threshold (default 5)")
    ap.add_argument("--window", type=int, default=PAPER["window"], help="context window (default 5)")
    ap.add_argument("--vocab-only", action="store_true",
                    help="write only vocab.txt, the words the training keeps (seconds): the stages that need "
                         "only the words (document frequencies, couples) then run while the vectors train")
    return ap


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    for name in ("epochs", "workers", "dim", "min_count", "window"):
        if getattr(args, name) < 1:
            raise InputError(args.out, f"--{name.replace('_', '-')} must be at least 1")
    if not os.path.isfile(args.paragraphs):
        raise InputError(args.paragraphs, "no such file")
    t0 = time.perf_counter()
    if args.vocab_only:
        try:
            words = list(vocabulary_model(args.paragraphs, args.seed, args.workers, args.dim, args.min_count,
                                          args.window).wv.index_to_key)
        except (UnicodeDecodeError, OSError) as err:
            raise InputError(args.paragraphs, f"cannot read ({err})") from None
        os.makedirs(args.out, exist_ok=True)
        write_vocab(os.path.join(args.out, "vocab.txt"), words)
        print(f"embeddings: {len(words)} words (vocabulary only) in {time.perf_counter() - t0:.2f} s -> {args.out}")
        return 0
    try:
        words, vectors, model = train_word2vec(args.paragraphs, args.epochs, args.seed, args.workers,
                                      args.dim, args.min_count, args.window)
    except (UnicodeDecodeError, OSError) as err:
        raise InputError(args.paragraphs, f"cannot read ({err})") from None
    save_vectors(args.out, words, vectors)
    summary = {
        "paragraphs": os.path.abspath(args.paragraphs),
        "settings": dict(PAPER, vector_size=args.dim, min_count=args.min_count, window=args.window,
                         epochs=args.epochs, seed=args.seed, workers=args.workers),
        "vocabulary": len(words),
        "corpus_paragraphs": model.corpus_count,
        "corpus_tokens": model.corpus_total_words,
    }
    write_json(os.path.join(args.out, "summary.json"), summary, sort_keys=True)
    print(f"embeddings: {summary['corpus_tokens']} tokens in {summary['corpus_paragraphs']} paragraphs, "
          f"{args.epochs} epoch(s) -> {len(words)} words x {args.dim} (unit vectors) in "
          f"{time.perf_counter() - t0:.2f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
