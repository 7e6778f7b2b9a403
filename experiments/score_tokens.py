"""Scores of the WordLlama rows of Tables 1 and 2 on a setting's validation and test couples (issue 34 item 3; not in the paper).

    python -m experiments.score_tokens --data data --setting wikivar --out data/tokens/scores/wikivar.npz

The couples are read as text on the token space (:func:`repro.evaluate.tokentables.couples`), and every row is
scored by the one surface of the tables (:mod:`repro.evaluate.scoring`) under both metrics:

* the row "WordLlama" (a peer): its own mean pooling of the tokens (the raw token vectors' mean);
* every member of the token family (:mod:`experiments.train_tokenfamily`), its weights on its map of
  the token vectors, fitted on the corpus's token counts and the training couples only;
* every configuration of the peer family on the token space (:data:`repro.evaluate.tokentables.PEER_CONFIGS`),
  its components fitted on the distinct training texts.

The JSON beside the scores holds each member's and each configuration's validation split error per
metric (the configurations' from :func:`repro.evaluate.peerfamily.search`, as the word grid's), by which
:func:`experiments.tokenrows.merge` chooses the families' rows in the tables.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from experiments import tokenrows
from experiments.files import load_split, load_words
from repro import settings
from repro.evaluate import family, peerfamily, scoring, tokentables
from repro.io import store
from repro.core import metrics as protocol
from repro.errors import run
from repro.io.layout import Layout


def validation_error(scores, labels) -> float:
    """The split error on the validation couples, threshold and error both on them (as the families choose)."""
    return float(protocol.split(scores, labels, scores, labels).error)


def score(table, counts, couples: dict, member_weights: dict) -> tuple[dict, dict]:
    """({score key: (P,) scores}, choices) of every token row on the token couples ``couples``
    {split: PairSet} (``train`` for the maps and components, ``validation``, ``test``);
    ``member_weights`` {member key: (n_max,) weights}. The table and couples are checked once, as a
    :class:`repro.evaluate.scoring.Column`, and each row is scored on both splits by one call."""
    column = scoring.Column(table, {s: couples[s] for s in ("validation", "test")}, couples["train"])
    validation = column.splits["validation"]
    out, seconds = {}, {}
    errors = {"family": {m: {} for m in settings.TABLE_METRICS}, "peers": {m: {} for m in settings.TABLE_METRICS}}

    def put(method: str, row: scoring.Pass) -> None:
        both = column.score([row])[0].scores
        for split in column.splits:
            for j, metric in enumerate(settings.TABLE_METRICS):
                out[settings.score_key(split, method, metric)] = both[split][0, j]

    t0 = time.perf_counter()
    maps = peerfamily.word_maps(tokentables.PEER_CONFIGS, column, counts)
    errors["peers"] = peerfamily.search(column, counts, tokentables.PEER_CONFIGS, metrics=settings.TABLE_METRICS,
                                        maps=maps)
    for config in tokentables.PEER_CONFIGS:
        put(tokentables.peer_method(config),
            peerfamily.row_pass(config, column, counts, maps, settings.TABLE_METRICS))
    for metric in settings.TABLE_METRICS:  # the row "WordLlama": its own mean pooling
        for split in column.splits:
            out[settings.score_key(split, "wordllama", metric)] = \
                out[settings.score_key(split, tokentables.peer_method(tokentables.ROW_CONFIG), metric)]
    seconds["peers"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    word_maps = {name: family.member_map(name, column.table, counts, column.train) for name in family.TOKEN_MAPS}
    for m in family.members("tokens"):
        method = settings.family_method(m.key)
        put(method, scoring.Pass(scoring.Encoding("rank", member_weights[m.key], transform=word_maps[m.name]),
                                 None, settings.TABLE_METRICS))
        for metric in settings.TABLE_METRICS:
            errors["family"][metric][m.key] = validation_error(out[settings.score_key("validation", method, metric)],
                                                               validation.label)
    seconds["family"] = time.perf_counter() - t0
    return out, {**errors, "seconds": seconds}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--setting", required=True, choices=settings.PAIR_SETTINGS)
    ap.add_argument("--out", required=True)
    ap.add_argument("--space", default=tokentables.SOURCE,
                    help="the token space: wordllama (the wheel's), or a folder with a tokenizer.json and its matrix")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    layout = Layout(args.data)
    vocab, table, counts = tokenrows.space_setup(args.data, args.space)
    words = load_words(args.data)
    pairs = {s: load_split(args.data, args.setting, s) for s in settings.SPLITS}
    couples = {s: tokenrows.token_couples(vocab, p, words) for s, p in pairs.items()}
    weights = {m.key: store.load_model(tokenrows.family_path(layout, args.setting, m.key)).weights
               for m in family.members("tokens")}
    out, meta = score(table, counts, couples, weights)
    for split in ("validation", "test"):
        out[f"{split}_label"] = pairs[split].label
    lengths = {s: float(np.mean(np.r_[c.len_a, c.len_b])) for s, c in couples.items()}
    meta = {"setting": args.setting, "space": tokenrows.tokenspace_name(args.space), "dim": int(table.shape[1]),
            "mean_tokens": lengths, "pairs": {s: int(couples[s].size) for s in ("validation", "test")}, **meta}
    meta["seconds"]["all"] = time.perf_counter() - t0
    store.save_scores(args.out, out, meta)
    print(f"{args.setting}: scored WordLlama's rows ({len(tokenrows.METHODS)} rows, "
          f"{len(tokentables.PEER_CONFIGS)} peer configurations) on "
          + ", ".join(f"{n:,} {s}" for s, n in meta["pairs"].items()) + " couples")


if __name__ == "__main__":
    sys.exit(run(main))
