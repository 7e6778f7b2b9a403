"""Copy the learned weights that ship inside the package from a model file, with their provenance.

    python -m experiments.ship_weights --model data/models/wikivar-median.npz --out repro/weights/wikivar-median.npz

``make weights`` runs it. The shipped file holds the (n_max,) weights only (they do not depend on
any vocabulary: ``Encoder.pretrained`` applies them to any word vectors, paper section 5.3) and a
``.json`` beside it: the model file's SHA-256, fields of its record
(:class:`repro.modelrecord.ModelRecord`: kappa, epochs, loss, distance, seed) and the commit.
Prints whether the weights changed; the files are rewritten only when they did. It also
keeps ``coefficients.npz`` beside them (:data:`repro.gathersum.PRECOMPUTED`): the encoder's first
coefficient table of these weights, computed here by JAX, so that ``repro encode`` with the
shipped weights neither imports nor compiles JAX.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from repro import gathersum, store
from repro.errors import run
from repro.provenance import git_commit


def write_coefficients(weights: np.ndarray, path: str) -> None:
    """The coefficient table of ``weights`` at the encoder's first width (2 n_max), computed by
    JAX (:func:`repro.gathersum.coefficient_table`), into ``path`` unless it already holds it."""
    width = 2 * weights.shape[0]
    if gathersum.precomputed_table(weights, width, path) is None:
        store.write_npz(path, weights=weights.astype(np.float32),
                        table=gathersum.coefficient_table(weights, width, precomputed=None))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="a models/<setting>-<loss>.npz of experiments.train_weights")
    ap.add_argument("--out", required=True, help="the shipped .npz (its .json is written beside it)")
    ap.add_argument("--setting", default="wikivar")
    args = ap.parse_args(argv)

    record = store.load_model(args.model)
    weights = record.weights
    old = None
    if os.path.exists(args.out):
        old = store.load_weights(args.out)[0]
    if old is not None and old.shape == weights.shape and np.array_equal(old, weights):
        write_coefficients(weights, os.path.join(os.path.dirname(args.out), "coefficients.npz"))
        print(f"weights: unchanged ({args.out} holds the {weights.size} weights of {args.model})")
        return 0
    meta = {
        "what": "learned weights of De Boom et al. (2016), Algorithm 1, for Encoder.pretrained",
        "setting": args.setting, "loss": record.loss, "n_max": int(weights.size), "kappa": record.kappa,
        "kappa_source": record.kappa_source, "epochs": record.epochs, "lambda": record.lam,
        "distance": record.distance, "seed": record.seed, "train_pairs": record.train_pairs,
        "source": os.path.basename(args.model), "source_sha256": store.sha256(args.model),
        "copied_at_commit": git_commit(),
        "made_by": "make weights (python -m experiments.ship_weights)",
    }
    store.save_weights(args.out, weights, meta)
    write_coefficients(weights, os.path.join(os.path.dirname(args.out), "coefficients.npz"))
    change = "new" if old is None else (
        f"changed (largest difference {np.abs(old - weights).max():.3g})" if old.shape == weights.shape
        else f"changed ({old.size} -> {weights.size} weights)")
    print(f"weights: {change}: {args.out} from {args.model}")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
