"""Learn the weights for one setting and loss (paper, sections 3 and 5.2).

    python -m experiments.train_weights --data data --setting wiki20 --loss median --out data/models/wiki20-median.npz

The training split is prepared once (its data form built once), then :func:`repro.core.fit.fit`
runs: for the median loss kappa comes from five-fold cross-validation with a grid search on
the training split (all folds and kappas in batched runs), unless ``--kappa`` gives it or
``--kappa-from`` takes it from another model's file; then Algorithm 1 trains the weights on
the whole training split. The model file holds the run's record
(:class:`repro.core.modelrecord.ModelRecord`): its loss, where kappa came from, the search. When the
setting's folder has a ``groups.npz`` with a ``train`` array (the cluster of every training
couple) and at least as many clusters of related couples as folds, the cross-validation
folds keep whole clusters, and the model file says so (``cv_folds``: "grouped" or "couples").
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys

import numpy as np

from experiments.files import load_corpus, load_split
from repro import settings
from repro.core import forms, losses
from repro.io import store
from repro.errors import InputError, run
from repro.core.fit import fit
from repro.io.layout import Layout
from repro.core.modelrecord import check_kappa
from repro.core.prepared import prepare


def parse_grid(text: str) -> list[float]:
    try:
        return [float(k) for k in text.split(",")]
    except ValueError:
        raise InputError("--kappa-grid", f"not a list of numbers: {text!r}") from None


def train_groups(data: str, setting: str, n: int):
    """The (n,) clusters of the setting's training couples from its ``groups.npz``, or None when
    there is no such file or it has no ``train`` array."""
    path = Layout(data).pairs_groups(setting)
    if not os.path.isfile(path):
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            if "train" not in z.files:
                return None
    except (OSError, ValueError, EOFError) as err:
        raise InputError(path, f"cannot read groups file ({err})") from None
    return store.load_groups(path, {"train": n})["train"]


def fold_groups(data: str, setting: str, pairs, folds: int):
    """The clusters the cross-validation folds keep whole (:func:`train_groups`), or None (with a
    note) when the related training couples have fewer clusters than ``folds``."""
    groups = train_groups(data, setting, pairs.size)
    clusters = 0 if groups is None else np.unique(groups[pairs.label == 1]).size
    if groups is not None and clusters < folds:
        print(f"note: {clusters} cluster(s) of related training couples cannot fill {folds} folds: "
              "cross-validation folds of single couples", file=sys.stderr)
        return None
    return groups


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--setting", required=True, choices=settings.PAIR_SETTINGS)
    ap.add_argument("--loss", required=True, choices=settings.LOSSES)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kappa-grid", default=",".join(f"{k:g}" for k in settings.KAPPA_GRID),
                    help="comma-separated kappa values for the cross-validated grid search")
    ap.add_argument("--kappa", type=float, help="the median loss's kappa (no search)")
    ap.add_argument("--kappa-from", metavar="MODEL", help="take kappa from another median model's file (no search)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--distance", default="euclidean", choices=losses.DISTANCES,
                    help="the training distance: the paper's euclidean, the original code's sqeuclidean, or "
                         "cosine (1 - cos, not in the paper)")
    ap.add_argument("--max-epochs", type=int, default=100)
    ap.add_argument("--batch-related", type=int, default=50)
    ap.add_argument("--form", default="auto", choices=forms.FORMS,
                    help="the couples' data form (repro/core/forms.py; default auto: the quadratic form while it "
                         f"fits {forms.QUADRATIC_BUDGET / 1e9:g} GB, else the gather form)")
    return ap


def given_kappa(args) -> tuple[float | None, str | None, dict]:
    """(kappa, its source, the record fields naming the model it came from) of ``--kappa`` or
    ``--kappa-from``: (None, None, {}) when neither is given (kappa by cross-validation)."""
    if args.kappa is not None and args.kappa_from:
        raise InputError("--kappa", "give --kappa or --kappa-from, not both")
    if not args.kappa_from:
        kappa, source, origin, option = args.kappa, None if args.kappa is None else "given", {}, "--kappa"
    else:
        model = store.load_model(args.kappa_from)
        if model.kappa is None:
            raise InputError(args.kappa_from, f"a {model.loss} model has no kappa")
        kappa, source, option = model.kappa, "model", "--kappa-from"
        origin = dict(kappa_model=os.path.basename(args.kappa_from), kappa_model_sha256=store.sha256(args.kappa_from))
    if kappa is not None:
        try:
            check_kappa(args.loss, kappa, source)
        except ValueError as err:
            raise InputError(option, str(err).split(": ", 1)[-1]) from None
    return kappa, source, origin


def report(record, setting: str, folds: int) -> None:
    """The chosen kappa with every kappa's mean held-out error, and the run's result."""
    if record.cv is not None:
        cv = record.cv
        print(f"kappa by {folds}-fold CV, folds of {'clusters' if cv.folds == 'grouped' else 'couples'}: "
              f"{record.kappa:g} (mean held-out split error per kappa: "
              + ", ".join(f"{k:g}: {e:.4f}" for k, e in zip(cv.grid, cv.errors.mean(axis=1))) + ")")
    print(f"{setting} {record.loss}: {record.epochs} epochs, final mean loss "
          f"{record.final_mean_loss:.5f}, weights {np.array2string(record.weights, precision=3)}")


def main(argv=None):
    args = parser().parse_args(argv)
    kappa, source, origin = given_kappa(args)
    _, table = load_corpus(args.data)
    pairs = load_split(args.data, args.setting, "train")
    groups = fold_groups(args.data, args.setting, pairs, args.folds)
    prepared = prepare(table, pairs, settings.setting(args.setting).n_max, form=args.form, distance=args.distance)
    try:
        record = fit(prepared, args.loss, kappa, kappa_source=source, grid=parse_grid(args.kappa_grid), folds=args.folds,
                     seed=args.seed, batch_related=args.batch_related, groups=groups, distance=args.distance,
                     max_epochs=args.max_epochs)
    except ValueError as err:
        raise InputError(Layout(args.data).pairs(args.setting, "train"), str(err)) from None
    record = dataclasses.replace(record, **origin)
    if record.batch_related < args.batch_related:
        b, wanted = record.batch_related, args.batch_related
        print(f"note: {int((pairs.label == 1).sum())} related and {int((pairs.label == 0).sum())} unrelated training "
              f"couples: batches of {b} + {b} instead of {wanted} + {wanted}", file=sys.stderr)
    report(record, args.setting, args.folds)
    store.save_model(args.out, record)
    print(f"done in {sum(record.seconds.values()):.1f} s")


if __name__ == "__main__":
    sys.exit(run(main))
