"""Learn the learned family's members on WordLlama's token space for one setting (issue 34 item 3; not in the paper).

    python -m experiments.train_tokenfamily --data data --setting wikivar [--kappa-from wikivar]

The setting's training couples are read as text on the token space (:func:`repro.evaluate.tokentables.couples`:
a side's words joined by spaces, split by the space's tokenizer, idf-sorted over the token df of
``<data>/tokens/df.npz``); each map of :data:`repro.evaluate.family.TOKEN_MAPS` (the raw token vectors, the
Zipfian-whitened ones, p(t) from the corpus's token counts) under each training distance is fitted by
:func:`repro.evaluate.family.fits` with ``n_max`` from :func:`repro.evaluate.tokentables.token_n_max`: kappa by
five-fold cross-validation over :data:`repro.evaluate.family.TOKEN_KAPPA_GRID` with folds of whole clusters, as the word family,
or with ``--kappa-from SETTING`` the same member's kappa from that setting's token family (the tweets
take the ``wikivar`` one's). Every member's record goes to
``<data>/tokens/family/<setting>/wordllama_<map>-<distance>.npz``, then the summary.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from experiments import tokenrows
from experiments.files import load_split, load_words
from experiments.train_family import add_fit_options, kappa_from
from experiments.train_weights import fold_groups, parse_grid
from repro import settings
from repro.evaluate import family, tokentables
from repro.io import store
from repro.errors import run
from repro.io.layout import Layout


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_fit_options(ap, family.TOKEN_KAPPA_GRID, "token family")
    ap.add_argument("--space", default=tokentables.SOURCE,
                    help="the token space: wordllama (the wheel's), or a folder with a tokenizer.json and its matrix")
    return ap


def main(argv=None):
    args = parser().parse_args(argv)
    layout = Layout(args.data)
    vocab, table, counts = tokenrows.space_setup(args.data, args.space)
    words = load_words(args.data)
    train = load_split(args.data, args.setting, "train")
    couples = tokenrows.token_couples(vocab, train, words)
    groups = None if args.kappa_from else fold_groups(args.data, args.setting, train, args.folds)
    n_max = tokentables.token_n_max(settings.setting(args.setting).n_max, np.r_[train.len_a, train.len_b],
                                    np.r_[couples.len_a, couples.len_b])
    grid = parse_grid(args.kappa_grid)
    summary = {"setting": args.setting, "space": tokenrows.tokenspace_name(args.space), "n_max": n_max,
               "width": couples.width, "grid": grid, "kappa_from": args.kappa_from, "members": {}}

    kappa = kappa_from(args, lambda setting, key: tokenrows.family_path(layout, setting, key), "token family")

    for member, _, record, seconds in family.fits(table, counts, couples, couples, n_max, kappa, space="tokens",
                                                  grid=grid, folds=args.folds, seed=args.seed, groups=groups,
                                                  batch_related=args.batch_related, max_epochs=args.max_epochs):
        store.save_model(tokenrows.family_path(layout, args.setting, member.key), record)
        summary["members"][member.key] = {"kappa": record.kappa, "epochs": record.epochs, "seconds": seconds}
        print(f"{args.setting} {member.key}: n_max {n_max}, kappa {record.kappa:g}, {record.epochs} epochs, "
              f"{seconds:.1f} s", flush=True)
    store.write_json(tokenrows.family_summary(layout, args.setting), summary)


if __name__ == "__main__":
    sys.exit(run(main))
