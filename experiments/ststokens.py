"""STS-B through a static token space: WordLlama's own mean pooling and our rows on its token ids.

Not in the paper (issue 34). WordLlama (``wordllama==0.4.0.post1``, MIT; the extra ``tokens``) ships
a 32,000 x 256 token matrix trained for mean pooling and its Llama tokenizer
(:mod:`repro.spaces.tokenspace` reads both from the wheel). A sentence is its token ids (the tokenizer's,
no special tokens, the unknown token dropped); the table is the raw matrix (not unit length, as
WordLlama's ``embed`` uses it); df and token counts are counted on the train and dev sentences
(a sentence is a document), so the idf order, Zipfian whitening's p(t) and the learned family's
maps come from train and dev only. Rows, each scored by the cosine of its two vectors, Pearson x
100 on test, the same protocol as the STS table's:

* **WordLlama** (a peer): its own mean pooling of the tokens, the mean of their rows;
* **Zipfian-whitened mean** of the token vectors (p(t) from the train and dev token counts);
* **the learned family on the token space**: the weights learned by :func:`repro.evaluate.sts.protocol.family_on_dev` for
  each map of :data:`MAPS` (the raw token vectors, Zipfian-whitened ones) under both training
  distances, on the STS-B train couples at the learned row's (lo, hi) (chosen on dev) with the
  shipped kappa; the member of the best dev Pearson is the row.

Each row gets its bootstrap interval and its paired difference from WordLlama's own pooling
(the test pairs taken as independent).
"""

from __future__ import annotations

import numpy as np

from repro.evaluate import family, scoring
from repro.evaluate.sts import protocol, setups
from repro.spaces import transforms

SOURCE = setups.TOKENS
MAPS = ("plain", "zipf")
ROWS = {"mean": "WordLlama (peer: its own mean pooling of its tokens)",
        "zipf": "Zipfian-whitened mean of WordLlama's token vectors",
        "learned_best": "Weights learned on STS-B train on WordLlama's token space, best transform (dev)"}
#: What the record of each member of the learned family holds (:func:`repro.evaluate.sts.protocol.family_on_dev`).
MEMBER_RECORD = ("member", "dev_pearson", "epochs")


def rows(x: setups.Setup, train_couples, kappa: float, seed: int) -> tuple[dict, dict]:
    """Every row's encoding on the token setup ``x`` (:func:`repro.evaluate.sts.setups.token_setup`) and the
    learned family's choice on dev (the train couples ``train_couples``, :func:`repro.evaluate.sts.setups.token_couples`).
    Returns ({row: encoding}, record)."""
    p = transforms.probabilities(np.maximum(x.counts, 0))
    out = {"mean": scoring.Encoding("word", np.ones(len(x.vocab))),
           "zipf": scoring.Encoding("mean", transform=transforms.zipf_whitening(x.table.host, p, "whiten"))}
    best = protocol.family_on_dev(x, train_couples, kappa, seed, names=MAPS, keys=MEMBER_RECORD)
    out["learned_best"] = best.encoding
    return out, {"member": best.member.key, "tried": best.tried}


def evaluate(encs: dict, x: setups.Setup, seed: int) -> dict:
    """Per row: dev and test Pearson, test Spearman, the test Pearson's interval and the paired
    difference ``vs_mean`` from WordLlama's own pooling (:func:`repro.evaluate.sts.protocol.score_rows`)."""
    return protocol.score_rows(encs, x, seed, references=("mean",))


HEAD = ("Through a static token space (not in the paper): WordLlama's 32,000 x 256 token matrix and its Llama "
        "tokenizer, read from the `wordllama` wheel (the extra `tokens`); df and token counts from the train and dev "
        "sentences; cosine, Pearson x 100; the paired bootstrap against WordLlama's own mean pooling.")


def markdown(results: dict, record: dict) -> str:
    lines = ["| Method (WordLlama's token space) | test Pearson (95%) | against WordLlama's pooling, points (95%) | "
             "test Spearman | dev Pearson |", "|---|---:|---:|---:|---:|"]
    for m, label in ROWS.items():
        r, d = results[m], results[m]["vs_mean"]
        diff = "–" if d is None else f"{d['difference']:+.1f} ({d['low']:+.1f} to {d['high']:+.1f})"
        lines.append(f"| {label} | {r['test_pearson']:.1f} ({r['interval']['low']:.1f} to {r['interval']['high']:.1f}) "
                     f"| {diff} | {r['test_spearman']:.1f} | {r['dev_pearson']:.1f} |")
    member = family.parse(record["member"])
    lines += ["", f"Chosen on dev, token space: weights learned {member.label} (among {len(record['tried'])} members)."]
    return "\n".join(lines) + "\n"


def finding(results: dict) -> str:
    r, d = results["learned_best"], results["learned_best"]["vs_mean"]
    verdict = "above" if d["low"] > 0 else "below" if d["high"] < 0 else "level with"
    return (f"- **WordLlama's token space (STS-B test, Pearson):** WordLlama's own mean pooling "
            f"{results['mean']['test_pearson']:.1f}, its Zipfian-whitened mean {results['zipf']['test_pearson']:.1f}; "
            f"weights learned on its token space (best transform, dev) {r['test_pearson']:.1f}: {verdict} WordLlama's "
            f"pooling ({d['difference']:+.1f} points, {d['low']:+.1f} to {d['high']:+.1f}).\n")
