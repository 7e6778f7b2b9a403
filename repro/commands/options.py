"""What the encoder subcommands share: building an Encoder from options, ``--quiet``, ``--metric``, warnings.

The files of texts and of couples they read are :func:`repro.store.read_texts` and
:func:`repro.store.read_couples`. Bad input raises :class:`repro.errors.InputError` naming the file.
"""

from __future__ import annotations

import argparse
import os
import sys

from repro import settings, store
from repro.errors import InputError


def texts_parser(prog: str, doc: str, out_help: str) -> argparse.ArgumentParser:
    """The parser of a command that reads a file of texts (``repro encode``, ``repro df``): the
    texts, ``--out`` (``out_help``) and ``--format``; ``doc``'s first paragraph describes it, the
    rest is its epilog."""
    ap = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=doc.split("\n\n", 1)[1])
    ap.add_argument("texts", help="file of texts: one per line, or JSON lines (.jsonl)")
    ap.add_argument("--out", required=True, help=out_help)
    ap.add_argument("--format", default="auto", choices=("auto", "lines", "jsonl"),
                    help="how to read TEXTS (auto: JSON lines when it ends in .jsonl)")
    return ap


def add_encoder_options(ap: argparse.ArgumentParser) -> None:
    g = ap.add_argument_group("encoder (a saved --model, or the shipped weights on --vectors and --df/--corpus)")
    g.add_argument("--model", help="an encoder saved by `repro train` or Encoder.save (.npz)")
    g.add_argument("--vectors", help="word vectors: a folder made by `repro vectors` (loads in a second, "
                                     "memory-mapped), or a word2vec .bin, word2vec or GloVe text file")
    g.add_argument("--df", help="document frequencies with their words (.npz, repro.store.save_word_df)")
    g.add_argument("--corpus", help="texts to count document frequencies in (one document per line, or .jsonl)")
    add_tokeniser_option(g)
    g.add_argument("--lowercase", action="store_true", help="fold the vector words' case (case-sensitive models)")
    g.add_argument("--no-normalize", action="store_true", help="keep the vectors' lengths (default: unit length)")
    g.add_argument("--workers", type=int, help="threads that encode (default: one per core, at most 8; any "
                                               "number gives the same vectors)")
    add_quiet_option(ap)


def add_tokeniser_option(ap, default: str | None = None) -> None:
    """``--tokeniser {paper,unicode}``: how raw strings are split into words (:data:`repro.text.TOKENISERS`)."""
    ap.add_argument("--tokeniser", choices=("paper", "unicode"), default=default,
                    help="how raw texts are split: paper (the paper's rule: a-z, 0-9 and _ only, every number "
                         "0; what the tables use) or unicode (letters of any script, numbers as written) "
                         "(default: " + ("paper" if default else "the one --model records, else paper") + ")")


def add_quiet_option(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--quiet", action="store_true", help="no progress bars (by default a step that lasts more than "
                                                         "a second shows one bar, on a terminal)")


def add_metric_option(ap: argparse.ArgumentParser) -> None:
    from repro.textmetric import METRICS

    ap.add_argument("--metric", choices=METRICS, help="how a couple is scored: euclidean, minus the Euclidean "
                                                      "distance of its vectors (the paper's eq. 2), or cosine "
                                                      "(default: the one --model records, else euclidean)")


def _exists(path: str) -> str:
    if not os.path.exists(path):
        raise InputError(path, "no such file")
    return path


def _workers(args) -> int | None:
    workers = getattr(args, "workers", None)
    if workers is not None and workers < 1:
        raise InputError("--workers", f"must be at least 1, got {workers}")
    return workers


def encoder_from(args, *, weights: bool = True, n_max: int = settings.N_MAX):
    """The Encoder the options name: ``--model`` (its vectors from ``--vectors`` or as saved), or
    ``--vectors`` with ``--df``/``--corpus`` and the shipped weights (or none, ``weights=False``)."""
    from repro.encoder import Encoder

    progress, metric = not getattr(args, "quiet", False), getattr(args, "metric", None)
    tokeniser = getattr(args, "tokeniser", None)
    if weights and args.model:
        return Encoder.load(_exists(args.model), vectors=args.vectors and _exists(args.vectors), progress=progress,
                            workers=_workers(args), metric=metric, tokeniser=tokeniser)
    if not args.vectors:
        raise InputError("--vectors", "required (word vectors to encode with)" + ("" if not weights else " unless --model is given"))
    if bool(args.df) == bool(args.corpus):
        raise InputError("--df/--corpus", "give exactly one: a df file, or a corpus to count document frequencies in")
    corpus = store.read_texts(args.corpus) if args.corpus else None
    options = dict(corpus=corpus, normalize=not args.no_normalize, lowercase=args.lowercase, progress=progress,
                   workers=_workers(args), metric=metric or "euclidean", tokeniser=tokeniser or "paper")
    df = _exists(args.df) if args.df else None
    if weights:
        return Encoder.pretrained(_exists(args.vectors), df, **options)
    return Encoder(_exists(args.vectors), df, n_max=n_max, **options)


def report_warnings(caught) -> None:
    """Every warning caught during a command as one ``warning: ...`` line on stderr."""
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)

