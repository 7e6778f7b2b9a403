"""STS-B through a static token space: WordLlama's own mean pooling and our rows on its token ids.

Not in the paper (issue 34). WordLlama (``wordllama==0.4.0.post1``, MIT; the extra ``tokens``) ships
a 32,000 x 256 token matrix trained for mean pooling and its Llama tokenizer
(:mod:`repro.tokenspace` reads both from the wheel). A sentence is its token ids (the tokenizer's,
no special tokens, the unknown token dropped); the table is the raw matrix (not unit length, as
WordLlama's ``embed`` uses it); df and token counts are counted on the train and dev sentences
(a sentence is a document), so the idf order, Zipfian whitening's p(t) and the learned family's
maps come from train and dev only. Rows, each scored by the cosine of its two vectors, Pearson x
100 on test, the same protocol as the STS table's:

* **WordLlama** (a peer): its own mean pooling of the tokens, the mean of their rows;
* **Zipfian-whitened mean** of the token vectors (p(t) from the train and dev token counts);
* **the learned family on the token space**: the weights learned by :func:`repro.family.fits` for
  each map of :data:`MAPS` (the raw token vectors, Zipfian-whitened ones) under both training
  distances, on the STS-B train couples at the learned row's (lo, hi) (chosen on dev) with the
  shipped kappa; the member of the best dev Pearson is the row.

Each row gets its bootstrap interval and its paired difference from WordLlama's own pooling
(the test pairs taken as independent).
"""

from __future__ import annotations

import numpy as np

from experiments import stsinductive
from experiments.stsinductive import Setup
from repro import encodings, family, settings, tokenspace, transforms
from repro.metrics import pearson
from repro.vocabulary import Vocabulary

SOURCE = "wordllama"
MAPS = ("plain", "zipf")
ROWS = {"mean": "WordLlama (peer: its own mean pooling of its tokens)",
        "zipf": "Zipfian-whitened mean of WordLlama's token vectors",
        "learned_best": "Weights learned on STS-B train on WordLlama's token space, best transform (dev)"}


def _token_lists(space, names: list, texts: list) -> list[list[str]]:
    """Each text's tokens as names, the unknown token and ids without a row dropped."""
    drop = set(space.unknown)
    return [[names[i] for i in ids if 0 <= i < len(names) and i not in drop] for ids in space.ids(texts)]


def setup(data: dict, source=SOURCE) -> Setup:
    """The :class:`Setup` of the read STS-B wheel ``data`` on the token space ``source``."""
    names, matrix, space = tokenspace.load(source)
    tokens = {s: (_token_lists(space, names, [p.a for p in pairs]), _token_lists(space, names, [p.b for p in pairs]))
              for s, pairs in data.items()}
    index = {n: i for i, n in enumerate(names)}
    df, counts, docs = np.zeros(len(names), np.int64), np.zeros(len(names), np.int64), 0
    for s in ("train", "dev"):
        for side in tokens[s]:
            for toks in side:
                ids = np.fromiter((index[t] for t in toks), np.int64, len(toks))
                np.add.at(counts, ids, 1)
                df[np.unique(ids)] += 1
                docs += 1
    vocab = Vocabulary(names, df, docs)
    splits = {s: vocab.couples(a, b, np.zeros(len(a), np.int8))[0] for s, (a, b) in tokens.items()}
    gold = {s: np.array([p.score for p in pairs]) for s, pairs in data.items()}
    return Setup(vocab, encodings.Table(np.asarray(matrix, np.float32)), counts, splits, gold)


def couples(x: Setup, lo: float, hi: float):
    """STS-B train's couples on the token space: related at gold >= ``hi``, unrelated at <= ``lo``
    (the pairs between and those with an empty side left out), as the STS table's learned row."""
    gold, split = x.gold["train"], x.splits["train"]
    keep = ((gold >= hi) | (gold <= lo)) & (np.asarray(split.len_a) > 0) & (np.asarray(split.len_b) > 0)
    chosen = np.flatnonzero(keep)
    return split.take(chosen)._replace(label=(gold[chosen] >= hi).astype(np.int8))


def rows(x: Setup, train_couples, kappa: float, seed: int) -> tuple[dict, dict]:
    """Every row's encoding and the learned family's choice on dev. Returns ({row: encoding}, record)."""
    p = transforms.probabilities(np.maximum(x.counts, 0))
    out = {"mean": encodings.Encoding("word", np.ones(len(x.vocab))),
           "zipf": encodings.Encoding("mean", transform=transforms.zipf_whitening(x.table.host, p, "whiten"))}
    best, tried = None, []
    for member, t, result, seconds in family.fits(x.table.host, x.counts, x.splits["train"], train_couples,
                                                   settings.N_MAX, lambda _: (kappa, "model"), names=MAPS, seed=seed):
        enc = encodings.Encoding("rank", result.weights, transform=t)
        dev = pearson(encodings.scores(enc, x.table, x.splits["dev"], "cosine"), x.gold["dev"])
        tried.append({"member": member.key, "dev_pearson": dev, "epochs": int(result.epochs)})
        if best is None or dev > best[1]:
            best = (enc, dev, member.key)
    out["learned_best"] = best[0]
    return out, {"member": best[2], "tried": tried}


def evaluate(encs: dict, x: Setup, seed: int) -> dict:
    """Per row: dev and test Pearson, test Spearman, the test Pearson's interval and the paired
    difference ``vs_mean`` from WordLlama's own pooling (:func:`experiments.stsinductive.evaluate`)."""
    return stsinductive.evaluate(encs, x, seed, references=("mean",))


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
