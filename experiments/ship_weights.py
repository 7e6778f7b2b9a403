"""Copy the learned weights that ship inside the package from model files, with their provenance.

    python -m experiments.ship_weights --model data/models/wikivar-median.npz --out repro/weights/wikivar-median.npz \
        --scores data/scores/wikivar.json --family data/family/wikivar --best-out repro/weights/wikivar-best.npz

``make weights`` runs it. Two models ship:

* ``wikivar-median.npz``, the paper's weights (median loss, variable-length Wikipedia, plain word
  vectors, Euclidean): ``Encoder.pretrained(model="paper")``;
* ``wikivar-best.npz``, the winner of the learned family (:mod:`repro.evaluate.family`): of the members
  that ``experiments.score`` chose per table metric (the score file's ``["family"]["chosen"]``),
  the one of the lowest validation split error (ties: the Euclidean metric first), copied from
  ``<family>/<member>.npz``: ``Encoder.pretrained(model="best")`` (the default is chosen on STS-B
  dev by ``make default``, :mod:`experiments.ship_default`).

A shipped file holds the (n_max,) weights only (they do not depend on any vocabulary:
``Encoder.pretrained`` applies them to any word vectors, paper section 5.3) and a ``.json`` beside
it: the model file's SHA-256, fields of its record (:class:`repro.core.modelrecord.ModelRecord`: kappa,
epochs, loss, distance, seed) and the commit. The best model's ``.json`` adds ``member``,
``metric``, ``validation_split_error`` and ``encoder_options``, the Encoder options that
reproduce the member's word map exactly (:func:`encoder_options`, from the registry
:mod:`repro.spaces.wordmap`) and its metric. The ``cc`` map (the common component removed from every word
vector) becomes ``word_components: 1``: the encoder fits it as the family does, on the plain means
of the distinct training texts (the couples it is fitted on, or its ``corpus``), before the weights.

Prints whether the weights changed; the files are rewritten only when they did. It also keeps
the coefficient tables beside them (:data:`repro.encode.weightedsums.PRECOMPUTED`, one file per shipped
model): the encoder's first coefficient table of these weights, computed here by JAX, so that
``repro encode`` with the shipped weights neither imports nor compiles JAX.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from repro import settings
from repro.encode import weightedsums
from repro.evaluate import family
from repro.io import store
from repro.spaces import wordmap
from repro.errors import InputError, run
from repro.io.provenance import git_commit

def write_coefficients(weights: np.ndarray, path: str) -> None:
    """The coefficient table of ``weights`` at the encoder's first width (2 n_max), computed by
    JAX (:func:`repro.encode.weightedsums.coefficient_table`), into ``path`` unless it already holds it."""
    width = 2 * weights.shape[0]
    if weightedsums.precomputed_table(weights, width, path) is None:
        store.write_npz(path, weights=weights.astype(np.float32),
                        table=weightedsums.coefficient_table(weights, width, precomputed=None))


def coefficients_path(out: str) -> str:
    """Where the coefficient table of the shipped ``out`` goes: ``coefficients.npz`` beside the
    paper's weights, ``coefficients-<name>.npz`` beside any other (``wikivar-best`` ->
    ``coefficients-best.npz``), the files of :data:`repro.encode.weightedsums.PRECOMPUTED`."""
    name = os.path.splitext(os.path.basename(out))[0]
    suffix = "" if name.endswith("-median") else "-" + name.rsplit("-", 1)[-1]
    return os.path.join(os.path.dirname(out), f"coefficients{suffix}.npz")


def winner(scores_path: str) -> tuple[str, str, float]:
    """(member key, metric, validation split error) of the family's choice of the lowest
    validation split error over the metrics of the score file ``scores_path`` (.json; ties: the
    order of :data:`repro.settings.TABLE_METRICS`, Euclidean first). InputError when the file holds
    no family choice."""
    meta = store.read_json_if_any(scores_path)
    if meta is None:
        raise InputError(scores_path, "no such file (make table1 writes it)")
    chosen = (meta.get("family") or {}).get("chosen") or {}
    ranked = [(float(chosen[m]["validation_split_error"]), i, m)
              for i, m in enumerate(settings.TABLE_METRICS) if m in chosen]
    if not ranked:
        raise InputError(scores_path, "no family choice (['family']['chosen']): a score file of make table1 "
                                      "with the learned family")
    err, _, metric = min(ranked)
    key = chosen[metric]["member"]
    family.parse(key)  # a known member
    return key, metric, err


def encoder_options(key: str, metric: str) -> dict:
    """The Encoder options of member ``key`` scored by ``metric``: its map's
    (:meth:`repro.spaces.wordmap.WordMap.options`: ``word_weights``, ``whiten`` and, where the map removes
    common components from the word vectors, ``cc``, ``word_components``), no common components
    removed from the text vectors (``components: 0``) and ``metric``."""
    return {**wordmap.named(family.parse(key).name).options(), "components": 0, "metric": metric}


def ship(model: str, out: str, setting: str, extra: dict | None = None) -> None:
    """Copy the weights of the model file ``model`` to ``out`` with its ``.json`` (``extra``
    added) and its coefficient table, each rewritten only when it changed; prints what happened."""
    record = store.load_model(model)
    weights = record.weights
    meta = {
        "what": "learned weights of De Boom et al. (2016), Algorithm 1, for Encoder.pretrained",
        "setting": setting, "loss": record.loss, "n_max": int(weights.size), "kappa": record.kappa,
        "kappa_source": record.kappa_source, "epochs": record.epochs, "lambda": record.lam,
        "distance": record.distance, "seed": record.seed, "train_pairs": record.train_pairs,
        "source": os.path.basename(model), "source_sha256": store.sha256(model),
        **(extra or {}),
        "copied_at_commit": git_commit(),
        "made_by": "make weights (python -m experiments.ship_weights)",
    }
    old, old_meta = (None, {})
    if os.path.exists(out):
        old, old_meta = store.load_weights(out)
    same = old is not None and old.shape == weights.shape and np.array_equal(old, weights)
    keys = tuple(extra or {})  # the paper's weights: rewritten only when the weights change, as before
    if same and all(old_meta.get(k) == meta[k] for k in keys if k != "scores_sha256"):
        write_coefficients(weights, coefficients_path(out))
        print(f"weights: unchanged ({out} holds the {weights.size} weights of {model})")
        return
    store.save_weights(out, weights, meta)
    write_coefficients(weights, coefficients_path(out))
    change = "new" if old is None else "provenance changed" if same else (
        f"changed (largest difference {np.abs(old - weights).max():.3g})" if old.shape == weights.shape
        else f"changed ({old.size} -> {weights.size} weights)")
    print(f"weights: {change}: {out} from {model}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="a models/<setting>-<loss>.npz of experiments.train_weights")
    ap.add_argument("--out", required=True, help="the shipped .npz (its .json is written beside it)")
    ap.add_argument("--setting", default="wikivar")
    ap.add_argument("--scores", help="the setting's score file (.json of experiments.score) with the family's "
                                     "choices; with --family and --best-out, ship the family's winner too")
    ap.add_argument("--family", help="the setting's family folder (<member>.npz of experiments.train_family)")
    ap.add_argument("--best-out", help="the shipped .npz of the family's winner (its .json beside it)")
    args = ap.parse_args(argv)
    best = (args.scores, args.family, args.best_out)
    if any(best) and not all(best):
        raise InputError("--scores/--family/--best-out", "give all three (the family's winner) or none")

    ship(args.model, args.out, args.setting)
    if all(best):
        key, metric, err = winner(args.scores)
        member = family.parse(key)
        ship(os.path.join(args.family, f"{key}.npz"), args.best_out, args.setting, {
            "member": key, "member_label": f"weights learned {member.label}", "metric": metric,
            "validation_split_error": err, "encoder_options": encoder_options(key, metric),
            "scores": os.path.basename(args.scores), "scores_sha256": store.sha256(args.scores)})
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
