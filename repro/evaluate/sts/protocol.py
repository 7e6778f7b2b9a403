"""The STS protocol: rows scored by the cosine on one setup, every choice made on dev, bootstrap intervals on test (not in the paper).

On a :class:`repro.evaluate.sts.setups.Setup` a row is an :class:`repro.evaluate.scoring.Encoding`; a pair is scored
by the cosine of its two text vectors through the one scoring surface (:func:`cosines`), and a
row's number is the Pearson (and Spearman) correlation x 100 with the gold scores
(:func:`correlations`). Every choice is made on dev Pearson (ties: the earlier candidate), never
on test:

* the gold-score thresholds (lo, hi) of the learned weights' training couples
  (:func:`learned_thresholds`, :data:`THRESHOLDS`): the weights learned by :func:`repro.core.fit.fit`
  (median loss) on STS-B train's couples at each (lo, hi), with kappa the shipped model's (from
  the Wikipedia search, recorded in its file: :func:`shipped_kappa`), as Table 2 keeps it (paper,
  section 5.4);
* Zipfian whitening's mode, centring or whitening (:func:`zipf_mode`; Yokoi et al. 2024);
* the number k of common components (:func:`with_k_on_dev`, fitted on the distinct train
  sentences);
* the peers' configuration (:func:`peer_on_dev`, :func:`peers_on_dev`: the peer family of
  :mod:`repro.evaluate.peerfamily`, word weighting x word map x common components);
* the member of the learned family (:func:`family_on_dev`: every word map of the registry
  :mod:`repro.spaces.wordmap` that :mod:`repro.evaluate.family` fits, under each training distance, learned on
  STS-B train's couples; the one place an STS table fits the family and keeps its best member).

The shipped weights enter as they ship (:func:`shipped_best`: ``Encoder.pretrained(model="best")``'s
weights on their word map). Each row's test Pearson gets a 95% bootstrap interval and paired
differences from reference rows (:func:`repro.core.metrics.pearson_interval`,
:func:`repro.core.metrics.paired_pearson`: 2,000 resamples of the test pairs, taken as independent):
:func:`score_with_removal` for a table whose rows are each scored without and with common-component
removal (against the best row and the best peer chosen on dev, :data:`PEERS`), :func:`score_rows`
for a table of single rows.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import stats

from repro import settings
from repro.core import pairset
from repro.evaluate import family, peerfamily, peers, scoring
from repro.io import store
from repro.spaces import transforms, wordmap
from repro.spaces.components import fit_components
from repro.errors import InputError
from repro.core.fit import fit
from repro.core.metrics import paired_pearson, pearson, pearson_interval
from repro.core.prepared import prepare
from repro.encode.shippedweights import SHIPPED, SHIPPED_BEST
from repro.evaluate.sts.setups import Setup, threshold_couples

#: The (lo, hi) gold-score thresholds of the learned weights' training couples tried on dev.
THRESHOLDS = tuple((lo, hi) for lo in (1.0, 2.0) for hi in (3.5, 4.0, 4.5))
#: The rows that are peers: candidates for the best peer chosen on dev (:func:`score_with_removal`).
PEERS = ("sif", "usif", "zipf", "peer_best")
#: The numbers of common components tried on dev (:func:`with_k_on_dev`).
KS = peerfamily.STS_COMPONENTS
REMOVALS = ("without", "with")
#: What :func:`family_on_dev` records of each member by default.
MEMBER_RECORD = ("member", "dev_pearson", "epochs", "seconds")


def cosines(enc: scoring.Encoding, table, pairs) -> np.ndarray:
    """(P,) cosine of every sentence pair of ``pairs`` under ``enc``, through the one scoring surface."""
    return scoring.scores(enc, table, pairs, "cosine")


def correlations(enc: scoring.Encoding, table, split, gold: np.ndarray) -> dict:
    """The Pearson and Spearman correlations x 100 of ``enc``'s cosines of ``split`` with ``gold``."""
    s = cosines(enc, table, split)
    return {"pearson": pearson(s, gold), "spearman": 100 * float(stats.spearmanr(s, gold)[0])}


def dev_pearson(enc: scoring.Encoding, x: Setup) -> float:
    """The dev Pearson x 100 of ``enc`` on the setup ``x``: what every choice is made on."""
    return pearson(cosines(enc, x.table, x.splits["dev"]), x.gold["dev"])


def shipped_kappa(path: str = SHIPPED) -> tuple[np.ndarray, float]:
    """The shipped weights and their kappa (the Wikipedia search's, recorded in the model file)."""
    shipped, meta = store.load_weights(path)
    if meta.get("kappa") is None:
        raise InputError(path, "the shipped model records no kappa (make weights writes it from make table1's model)")
    return shipped, float(meta["kappa"])


def shipped_best(x: Setup, path: str = SHIPPED_BEST) -> scoring.Encoding:
    """The encoding of ``Encoder.pretrained(model="best")`` (:data:`repro.encode.shippedweights.SHIPPED_BEST`): its
    weights on the word map its ``encoder_options`` name (:func:`repro.spaces.wordmap.of`), fitted on the
    setup's word counts and its distinct train sentences (uSIF's length, the word vectors' common
    components), as the encoder builds it; a common-component option of the text vectors is left
    to a table's "with components removed" column."""
    weights, meta = store.load_weights(path)
    options = meta.get("encoder_options") or {}
    texts = pairset.training_texts(x.splits["train"])
    recipe = wordmap.of(options.get("word_weights"), options.get("whiten"), options.get("word_components", 0))
    t = wordmap.word_map(recipe, x.table, x.counts, length=float(np.mean(texts[1])), texts=texts)
    return scoring.Encoding("rank", weights, transform=t)


def learned_thresholds(data: dict, x: Setup, kappa: float, seed: int, thresholds=THRESHOLDS) -> tuple:
    """Weights learned by :func:`repro.core.fit.fit` on the couples of STS-B train (``data["train"]``, on
    the setup's vocabulary) at every (lo, hi) of ``thresholds``; the pair of the best dev Pearson.
    Returns ((encoding, dev Pearson, lo, hi), one record per threshold tried)."""
    learned, choice = None, []
    for lo, hi in thresholds:
        couples = threshold_couples(x.vocab, data["train"], x.gold["train"], lo, hi)
        result = fit(prepare(x.table.host, couples, settings.N_MAX), "median", kappa, kappa_source="model", seed=seed)
        enc = scoring.Encoding("rank", result.weights)
        dev = dev_pearson(enc, x)
        choice.append({"lo": lo, "hi": hi, "couples": int(couples.size), "related": int(couples.label.sum()),
                       "epochs": int(result.epochs), "dev_pearson": dev})
        if learned is None or dev > learned[1]:
            learned = (enc, dev, lo, hi)
    return learned, choice


def zipf_mode(x: Setup) -> tuple:
    """Zipfian whitening (:func:`repro.evaluate.peers.weighting`, p(w) from the setup's word counts) for
    every mode of :data:`repro.spaces.transforms.MODES`; the mode of the best dev Pearson (without removal;
    ties: the earlier mode). Returns ((encoding, dev Pearson, mode), {mode: dev Pearson})."""
    best, tried = None, {}
    for mode in transforms.MODES:
        enc = peers.weighting("zipf", x.counts, 1.0, table=x.table.host, mode=mode)  # the length is uSIF's only
        tried[mode] = dev_pearson(enc, x)
        if best is None or tried[mode] > best[1]:
            best = (enc, tried[mode], mode)
    return best, tried


def dev_column(x: Setup) -> scoring.Column:
    """The setup's dev pairs as a :class:`repro.evaluate.scoring.Column` of its table, common
    components fitted on its distinct train sentences: what every choice is made on, checked once
    (it holds no test pair)."""
    return scoring.Column(x.table, {"dev": x.splits["dev"]}, x.splits["train"])


def with_k_on_dev(enc: scoring.Encoding, x: Setup, scales: str = "one", ks=KS,
                  column: scoring.Column | None = None) -> tuple:
    """``enc`` with the k of ``ks`` common components (fitted on the distinct train sentences,
    removed at ``scales``) of the best dev Pearson (ties: the smaller k): one pass of the setup's
    ``column`` (default :func:`dev_column`) for every k. Returns (encoding, k, {k: dev Pearson})."""
    column = column or dev_column(x)
    scored = column.score([scoring.Pass(enc, tuple(ks), ("cosine",), scales)], splits=("dev",))[0]
    tried = {int(k): pearson(s, x.gold["dev"]) for k, s in zip(ks, scored.scores["dev"][:, 0])}
    best = max(ks, key=lambda k: (tried[int(k)], -k))
    return scored.encodings[list(ks).index(best)], int(best), tried


def dev_pearsons(x: Setup, configs, column: scoring.Column | None = None) -> tuple[dict, dict]:
    """The dev Pearson of every peer configuration of ``configs`` under the cosine
    (:func:`repro.evaluate.peerfamily.config_scores` on the setup's ``column``, default
    :func:`dev_column`: components fitted on the train sentences). Returns ({config key: dev
    Pearson}, the word maps made for them)."""
    column = column or dev_column(x)
    maps = peerfamily.word_maps(configs, column, x.counts)
    return {c.key: pearson(s, x.gold["dev"]) for c, _, s in peerfamily.config_scores(
        column, x.counts, configs, split="dev", metrics=("cosine",), maps=maps)}, maps


def peer_on_dev(x: Setup, configs=family.PEER_CONFIGS_STS) -> tuple:
    """The peers' configuration of the best dev Pearson (:func:`dev_pearsons`; ties: the earlier
    configuration), as an encoding. Returns (encoding, its record)."""
    column = dev_column(x)
    tried, maps = dev_pearsons(x, configs, column)
    order = {c.key: i for i, c in enumerate(configs)}
    key = max(tried, key=lambda k: (tried[k], -order[k]))
    config = peerfamily.from_key(key)
    return peerfamily.encoding(config, column, x.counts, maps), {
        "config": key, "label": config.label, "grid": len(configs), "dev_pearson_search": tried}


def peers_on_dev(x: Setup, configs=family.PEER_CONFIGS_STS) -> tuple:
    """The peers' configuration of the best dev Pearson among those that remove no component (a
    table's first column) and among those that remove some (its "with components removed" column;
    ties: the earlier configuration). Returns ((encoding without, encoding with), the record)."""
    column = dev_column(x)
    tried, maps = dev_pearsons(x, configs, column)
    picked, record = [], {"grid": len(configs), "dev_pearson_search": tried}
    for removal, pool in (("without", [c for c in configs if c.components == 0]),
                          ("with", [c for c in configs if c.components > 0])):
        config = max(pool, key=lambda c: (tried[c.key], -configs.index(c)))
        picked.append(peerfamily.encoding(config, column, x.counts, maps))
        record[removal] = {"config": config.key, "label": config.label}
    return tuple(picked), record


def family_fits(x: Setup, couples, kappa: float, seed: int, names=None):
    """The learned family's members (:func:`repro.evaluate.family.fits`: each word map of ``names``, default
    every map of the family, fitted on the setup's word counts and train sentences, under each
    training distance) learned on the train ``couples`` with ``kappa`` (its source: the model).
    Yields (member, its word map, its ModelRecord, seconds)."""
    yield from family.fits(x.table, x.counts, x.splits["train"], couples, settings.N_MAX, lambda _: (kappa, "model"),
                           names=names, seed=seed)


class FamilyChoice(NamedTuple):
    """The member of the learned family of the best dev Pearson: its encoding (the learned weights'
    aggregate of the mapped word vectors, with its k common components when k was chosen), the
    :class:`repro.evaluate.family.Member`, k (None when not chosen), its dev Pearson, and one record per
    member fitted."""

    encoding: scoring.Encoding
    member: family.Member
    k: int | None
    dev_pearson: float
    tried: list


def family_on_dev(x: Setup, couples, kappa: float, seed: int, *, names=None, ks=None,
                  keys=MEMBER_RECORD) -> FamilyChoice:
    """Fit the learned family on STS-B train and keep the member of the best dev Pearson (ties: the
    earlier member, in :func:`repro.evaluate.family.members` order): every member of :func:`family_fits`
    (``names``: its word maps), scored on dev by the cosine without components, or, with ``ks``,
    with the k of ``ks`` common components chosen on dev for each member (:func:`with_k_on_dev`).
    Each member's record holds ``keys`` of: member (its key), map, distance, k, dev_pearson,
    dev_pearson_by_k, epochs, seconds."""
    best, tried, column = None, [], None if ks is None else dev_column(x)
    for member, t, result, seconds in family_fits(x, couples, kappa, seed, names):
        enc, k, by_k = scoring.Encoding("rank", result.weights, transform=t), None, None
        if ks is None:
            dev = dev_pearson(enc, x)
        else:
            enc, k, by_k = with_k_on_dev(enc, x, ks=ks, column=column)
            dev = by_k[k]
        full = {"member": member.key, "map": member.name, "distance": member.distance, "k": k, "dev_pearson": dev,
                "dev_pearson_by_k": by_k, "epochs": int(result.epochs), "seconds": seconds}
        tried.append({key: full[key] for key in keys})
        if best is None or dev > best.dev_pearson:
            best = FamilyChoice(enc, member, k, dev, tried)
    return best


def score_with_removal(base: dict, x: Setup, seed: int, peer_rows=PEERS) -> tuple[dict, tuple]:
    """Every row of ``base`` (name -> encoding, or a pair of encodings: its own choice for each
    column) without and with common-component removal (fitted on the distinct train sentences: the
    first component, uSIF its five): dev and test correlations, the paired intervals against the
    best row and the best peer of ``peer_rows`` on dev, each row's own interval, and the paired
    interval of ``shipped`` (where a row) against the best peer so treated. Returns (results, the
    best peer on dev as (row, removal))."""
    texts = pairset.training_texts(x.splits["train"])  # each distinct train sentence once
    gold, results, test_scores = x.gold, {}, {}
    for name, enc in base.items():
        if not isinstance(enc, scoring.Encoding):  # its own choice for each column (the peer family)
            pair = enc
        else:
            comps = fit_components(scoring.text_vectors(enc, x.table, *texts), 5 if name == "usif" else 1,
                                   peers.component_scales("usif" if name == "usif" else "sif"))
            pair = (enc, enc._replace(components=comps))
        results[name] = {}
        for removal, e in zip(REMOVALS, pair):
            results[name][removal] = {s: correlations(e, x.table, x.splits[s], gold[s]) for s in ("dev", "test")}
            test_scores[name, removal] = cosines(e, x.table, x.splits["test"])
    best_key = max(test_scores, key=lambda k: results[k[0]][k[1]]["test"]["pearson"])
    for (name, removal), sc in test_scores.items():
        results[name][removal]["test"]["vs_best"] = (None if (name, removal) == best_key
                                                     else paired_pearson(sc, test_scores[best_key], gold["test"]))
    # every row against the best peer chosen on dev, and its own interval
    dev_peer = max(((m, r) for m in peer_rows for r in REMOVALS), key=lambda k: results[k[0]][k[1]]["dev"]["pearson"])
    for (name, removal), sc in test_scores.items():
        t = results[name][removal]["test"]
        t["interval"] = pearson_interval(sc, gold["test"], seed=seed)
        t["vs_dev_best_peer"] = (None if (name, removal) == dev_peer else dict(
            paired_pearson(sc, test_scores[dev_peer], gold["test"], seed=seed), peer=dev_peer[0], removal=dev_peer[1]))
    if "shipped" in base:
        for removal in REMOVALS:  # the shipped weights against the best peer, each with or without removal
            peer = max(peer_rows, key=lambda m: results[m][removal]["test"]["pearson"])
            results["shipped"][removal]["test"]["vs_best_peer"] = dict(
                paired_pearson(test_scores["shipped", removal], test_scores[peer, removal], gold["test"]), peer=peer)
    return results, dev_peer


def score_rows(encs: dict, x: Setup, seed: int, references=()) -> dict:
    """Per row of ``encs``: dev and test Pearson (and test Spearman), the test Pearson's 95% bootstrap
    interval and its paired differences ``vs_<row>`` from each row of ``references``."""
    test = {m: cosines(e, x.table, x.splits["test"]) for m, e in encs.items()}
    dev = {m: cosines(e, x.table, x.splits["dev"]) for m, e in encs.items()}
    out = {}
    for m in encs:
        r = {"dev_pearson": pearson(dev[m], x.gold["dev"]), "test_pearson": pearson(test[m], x.gold["test"]),
             "test_spearman": 100 * float(stats.spearmanr(test[m], x.gold["test"])[0]),
             "interval": pearson_interval(test[m], x.gold["test"], seed=seed)}
        for ref in references:
            r[f"vs_{ref}"] = None if m == ref else paired_pearson(test[m], test[ref], x.gold["test"], seed=seed)
        out[m] = r
    return out
