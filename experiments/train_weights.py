"""Learn the weights for one setting and loss (paper, sections 3 and 5.2).

    python -m experiments.train_weights --data data --setting wiki20 --loss median --out data/models/wiki20-median.npz

For the median loss kappa comes first from five-fold cross-validation with a grid search
on the training split (all folds and kappas in one batched run), then the weights are
trained on the whole training split by Algorithm 1 with the chosen kappa.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from experiments.common import load_corpus, load_split
from repro import settings, store
from repro.cli import InputError, run
from repro.crossval import DEFAULT_GRID, select_kappa
from repro.train import TrainConfig, fitting_batch, train


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--setting", required=True, choices=settings.PAIR_SETTINGS)
    ap.add_argument("--loss", required=True, choices=settings.LOSSES)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kappa-grid", default=",".join(str(k) for k in DEFAULT_GRID),
                    help="comma-separated kappa values for the cross-validated grid search")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--distance", default="euclidean", choices=("euclidean", "sqeuclidean"))
    ap.add_argument("--max-epochs", type=int, default=100)
    ap.add_argument("--batch-related", type=int, default=50)
    args = ap.parse_args(argv)

    _, table = load_corpus(args.data)
    pairs = load_split(args.data, args.setting, "train")
    try:
        batch = fitting_batch(pairs.label, args.batch_related, args.folds if args.loss == "median" else 0)
    except ValueError as err:
        raise InputError(store.Layout(args.data).pairs(args.setting, "train"), str(err)) from None
    if batch < args.batch_related:
        print(f"note: {int((pairs.label == 1).sum())} related and {int((pairs.label == 0).sum())} unrelated training "
              f"couples: batches of {batch} + {batch} instead of {args.batch_related} + {args.batch_related}",
              file=sys.stderr)
    config = TrainConfig(loss=args.loss, distance=args.distance, max_epochs=args.max_epochs, batch_related=batch)
    n_max = settings.setting(args.setting).n_max
    meta = {}
    t0 = time.perf_counter()
    if args.loss == "median":
        try:
            grid = [float(k) for k in args.kappa_grid.split(",")]
        except ValueError:
            raise ValueError(f"--kappa-grid: not a list of numbers: {args.kappa_grid!r}") from None
        cv = select_kappa(table, pairs, grid, folds=args.folds, config=config, n_max=n_max, seed=args.seed)
        config = config._replace(kappa=cv.kappa)
        meta = dict(cv_grid=cv.grid, cv_errors=cv.errors, cv_epochs=cv.epochs)
        print(f"kappa by {args.folds}-fold CV: {cv.kappa:g} (mean held-out split error per kappa: "
              + ", ".join(f"{k:g}: {e:.4f}" for k, e in zip(cv.grid, cv.errors.mean(axis=1))) + ")")
    cv_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    result = train(table, pairs, config, n_max=n_max, seed=args.seed)
    train_seconds = time.perf_counter() - t0
    print(f"{args.setting} {args.loss}: {result.epochs} epochs, final mean loss "
          f"{result.history[-1]:.5f}, weights {np.array2string(result.weights, precision=3)}")
    store.save_model(args.out, result.weights, history=result.history, etas=result.etas, epochs=result.epochs,
                     kappa=config.kappa if args.loss == "median" else np.nan, lam=config.lam,
                     distance=config.distance, seed=args.seed, train_pairs=pairs.size, cv_seconds=cv_seconds,
                     train_seconds=train_seconds, batch_related=batch, **meta)
    print(f"done in {cv_seconds + train_seconds:.1f} s")


if __name__ == "__main__":
    sys.exit(run(main))
