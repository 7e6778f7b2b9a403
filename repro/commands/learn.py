"""``repro train``: a couples file to learned weights, saved as an encoder (paper, Algorithm 1).

    repro train --couples train.tsv --vectors vec.bin --corpus texts.txt --out enc.npz
    repro train --couples train.tsv --init shipped --validation val.tsv --out enc.npz   # never worse than the start

Couples are ``text_a<TAB>text_b<TAB>label`` lines (1 related, 0 unrelated) or JSON lines.
Training is :func:`repro.core.fit.fit`: with the median loss kappa is chosen by five-fold
cross-validation unless ``--kappa`` is given. The output is an encoder file (.npz + .json, with the
run's model record) for ``repro encode --model``.

Beyond the paper (not in it; docs/ENCODING.md): ``--word-weights sif|usif`` and ``--whiten
centre|zipf`` map every word vector once before the weights are learned, with p(w) from the
corpus's word counts or ``--frequencies wordfreq:en``; ``--components K`` removes K common
components of the training texts afterwards; ``--distance cosine`` learns under 1 - cos. All are
saved in the encoder file, and ``repro encode``, ``similarity`` and ``evaluate --model`` apply them;
the training distance is saved as the encoder's metric, which ``similarity`` and ``evaluate`` score by
unless given ``--metric``.
"""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

from repro import settings
from repro.io import store
from repro.errors import InputError, run
from repro.commands.options import add_encoder_options, add_word_map_options, encoder_from, report_warnings
from repro.encode import fitchoice


def check_options(args) -> None:
    """The numeric options, each checked by name before any file is read."""
    for option, value, least in (("--n-max", args.n_max, 1), ("--max-epochs", args.max_epochs, 1), ("--seed", args.seed, 0)):
        if value < least:
            raise InputError(option, f"must be at least {least}, got {value}")
    if args.kappa is not None and not args.kappa > 0:
        raise InputError("--kappa", f"must be a positive number, got {args.kappa:g}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="repro train", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--couples", required=True, help="labelled couples: TSV or .jsonl")
    ap.add_argument("--out", required=True, help="the encoder to write (.npz, and .json beside it)")
    ap.add_argument("--loss", default="median", choices=settings.LOSSES)
    ap.add_argument("--kappa", type=float, help="the median loss's kappa (default: 5-fold CV over "
                                                "repro.settings.KAPPA_GRID, " + ", ".join(f"{k:g}" for k in settings.KAPPA_GRID) + ")")
    ap.add_argument("--n-max", type=int, default=settings.N_MAX, help=f"number of weights (default {settings.N_MAX})")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-epochs", type=int, default=100)
    ap.add_argument("--init", default="paper", help="where Algorithm 1 starts: paper (its constant, the default), "
                                                    "shipped or default (the shipped default model's weights), best, "
                                                    "wikivar (the paper's Wikipedia weights), or a weights or encoder "
                                                    "file (beyond the paper: the README's Training your own weights; docs/FIDELITY.md)")
    ap.add_argument("--validation", help="couples that choose (TSV or .jsonl), or a share of --couples to hold out "
                                         "(e.g. 0.2): the start, the fit from it and the fit from the paper's start are "
                                         "compared by their split error there, and the best kept (the start on a tie)")
    ap.add_argument("--shrink", type=float, nargs="*", default=(), metavar="A",
                    help="with --validation, also start + A (fit - start) for each A in (0, 1)")
    add_encoder_options(ap, pretrained=False)
    add_word_map_options(ap)
    args = ap.parse_args(argv)
    if not args.out.endswith(".npz"):
        raise InputError(args.out, "the encoder file must end in .npz")
    if args.model:
        raise InputError("--model", "train learns new weights: give --vectors and --df/--corpus instead")
    check_options(args)
    couples, labels = store.read_couples(args.couples, labels=True)
    validation = validation_of(args.validation)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        enc = encoder_from(args, weights=False, n_max=args.n_max)
        try:
            enc.fit(couples, labels, loss=args.loss, kappa=args.kappa, seed=args.seed, max_epochs=args.max_epochs,
                    distance=args.distance, init=args.init, validation=validation, shrink=tuple(args.shrink))
        except ValueError as err:
            name, _, cause = str(err).partition(": ")
            if name in ("init", "validation", "shrink"):  # an option's value: named as the option
                raise InputError(f"--{name}", cause) from None
            raise InputError(args.couples, str(err)) from None
    report_warnings(caught)
    enc.save(args.out)
    record = enc.record_
    for line in fitchoice.lines(enc.fit_report_):
        print(f"train: {line}")
    weights = np.array2string(enc.weights_, precision=3, max_line_width=200)
    if record is None:  # the start kept, and it was no run of this encoder's
        print(f"train: the start's weights {weights} -> {args.out}")
        return 0
    print(f"train: {record.train_pairs:,} couples, {record.epochs:,} epochs"
          + (f", kappa {record.kappa:g}" if record.kappa is not None else "")
          + f", weights {weights} -> {args.out}")
    return 0


def validation_of(value: str | None):
    """``--validation``: None, a share of the couples (a number), or (couples, labels) read from a file."""
    if value is None:
        return None
    try:
        share = float(value)
    except ValueError:
        return store.read_couples(value, labels=True)
    if not 0.0 < share < 1.0:
        raise InputError("--validation", f"a share of the couples must lie strictly between 0 and 1, got {value}")
    return share


if __name__ == "__main__":
    sys.exit(run(main))
