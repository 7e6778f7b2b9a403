"""Learn the weights of every member of the learned family for one setting (not in the paper).

    python -m experiments.train_family --data data --setting wikivar

For each word map of :mod:`repro.evaluate.family` (fitted on the corpus's word counts and the setting's
training texts only) and each training distance, the paper's median loss is fitted by
:func:`repro.core.fit.fit` on the mapped table: kappa by five-fold cross-validation over the family's
grid (:data:`repro.evaluate.family.KAPPA_GRID`), folds of whole clusters where the setting has them, or,
with ``--kappa-from SETTING``, the same member's kappa from that setting's family (the tweets take
the ``wikivar`` family's, as their median models take the ``wikivar`` model's kappa). Every
member's record goes to ``<data>/family/<setting>/<map>-<distance>.npz``, then the summary.

``--distance D`` fits only the members learned under ``D`` and writes their part of the summary
(``summary-<D>.json``); ``--merge`` then joins the parts into ``summary.json``, the same file one
run of every member writes. make runs the two distances side by side (each member's fit is its
own seeded run, so its weights are the same bits either way).
"""

from __future__ import annotations

import argparse
import os
import sys

from experiments.files import load_corpus, load_split
from experiments.train_weights import fold_groups, parse_grid
from repro import settings
from repro.evaluate import family
from repro.io import store
from repro.errors import InputError, run
from repro.io.layout import Layout


def add_fit_options(ap: argparse.ArgumentParser, grid, which: str = "family") -> None:
    """The options every family's stage shares (this one's and the token family's): the data,
    the setting, kappa's source or search over ``grid``, and Algorithm 1's bounds."""
    ap.add_argument("--data", required=True)
    ap.add_argument("--setting", required=True, choices=settings.PAIR_SETTINGS)
    ap.add_argument("--kappa-from", metavar="SETTING", choices=settings.PAIR_SETTINGS,
                    help=f"take each member's kappa from this setting's {which} (no search)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--kappa-grid", default=",".join(f"{k:g}" for k in grid),
                    help="comma-separated kappa values of the cross-validated search")
    ap.add_argument("--max-epochs", type=int, default=100)
    ap.add_argument("--batch-related", type=int, default=50)


def kappa_from(args, path_of, which: str = "family"):
    """``kappa(member)`` of :func:`repro.evaluate.family.fits`: (None, None), the search, without
    ``--kappa-from``; else the kappa of the same member's model in that setting's family, its file
    ``path_of(setting, key)`` (an InputError naming it where it is missing)."""
    def kappa(member):
        if not args.kappa_from:
            return None, None
        path = path_of(args.kappa_from, member.key)
        if not os.path.isfile(path):
            raise InputError(path, f"no {member.key} model in the {args.kappa_from} {which} (make it first)")
        return store.load_model(path).kappa, "model"

    return kappa


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_fit_options(ap, family.KAPPA_GRID)
    part = ap.add_mutually_exclusive_group()
    part.add_argument("--distance", choices=family.DISTANCES,
                      help="fit only the members of this training distance; their summary goes to summary-<D>.json")
    part.add_argument("--merge", action="store_true",
                      help="join the summaries of every distance (summary-<D>.json) into summary.json; fit nothing")
    return ap


def merge(layout: Layout, setting: str) -> dict:
    """The summary of every member, from the parts of each training distance, members in
    :func:`repro.evaluate.family.members` order (the order of one run of them all). InputError naming a
    missing part, or a part of other settings."""
    parts = {}
    for d in family.DISTANCES:
        path = layout.family_part(setting, d)
        if not os.path.isfile(path):
            raise InputError(path, f"no {d} part of the {setting} family (make it first)")
        parts[d] = store.read_json(path)
    first = parts[family.DISTANCES[0]]
    for d, part in parts.items():
        if (part["setting"], part["grid"], part["kappa_from"]) != (first["setting"], first["grid"], first["kappa_from"]):
            raise InputError(layout.family_part(setting, d), "its setting, kappa grid or kappa source differs "
                                                             f"from the {family.DISTANCES[0]} part's")
    members = {}
    for m in family.members():
        if m.key not in parts[m.distance]["members"]:
            raise InputError(layout.family_part(setting, m.distance), f"member {m.key} is missing")
        members[m.key] = parts[m.distance]["members"][m.key]
    return {**{k: first[k] for k in ("setting", "grid", "kappa_from")}, "members": members}


def main(argv=None):
    args = parser().parse_args(argv)
    layout = Layout(args.data)
    if args.merge:
        store.write_json(layout.family_summary(args.setting), merge(layout, args.setting))
        return
    vocab, table = load_corpus(args.data)
    counts = store.load_counts(layout.df, len(vocab))
    train = load_split(args.data, args.setting, "train")
    groups = None if args.kappa_from else fold_groups(args.data, args.setting, train, args.folds)
    n_max = settings.setting(args.setting).n_max
    grid = parse_grid(args.kappa_grid)
    summary = {"setting": args.setting, "grid": grid, "kappa_from": args.kappa_from, "members": {}}

    kappa = kappa_from(args, layout.family)
    distances = family.DISTANCES if args.distance is None else (args.distance,)
    for member, _, record, seconds in family.fits(table, counts, train, train, n_max, kappa, distances=distances,
                                                   grid=grid, folds=args.folds,
                                                   seed=args.seed, batch_related=args.batch_related, groups=groups,
                                                   max_epochs=args.max_epochs):
        store.save_model(layout.family(args.setting, member.key), record)
        summary["members"][member.key] = {"kappa": record.kappa, "epochs": record.epochs, "seconds": seconds}
        print(f"{args.setting} {member.key}: kappa {record.kappa:g}, {record.epochs} epochs, {seconds:.1f} s", flush=True)
    store.write_json(layout.family_summary(args.setting) if args.distance is None
                     else layout.family_part(args.setting, args.distance), summary)


if __name__ == "__main__":
    sys.exit(run(main))
