"""Tweet couples to the token rows of the Twitter setting, cut into the paper's splits (section 4.2).

    python -m repro tweetsets --couples DATA/twitter/couples.jsonl --vocab DATA/w2v/vocab.txt
                              --df DATA/df.npz --seed S --out DATA/twitter

The couples file is what ``python -m repro tweets`` wrote (:mod:`repro.data.tweets.tweetpairs`): one
couple a line, ``{"label": 1|0, "a": [tokens], "b": [tokens]}``. As in the paper, the word
vectors and idf are the Wikipedia ones (no embeddings are trained on tweets), so every text
becomes its in-vocabulary words in descending Wikipedia idf (:meth:`repro.words.vocabulary.Vocabulary.rows`,
the couples then picked by :func:`repro.core.pairset.from_rows`).
A couple with a text left without any in-vocabulary word is dropped and counted: it has no
representation (paper, section 3). The rows are as wide as the longest text and at least
n_max = 35 (the code's Twitter setting); longer texts use interpolated weights like any other.

Splits: every couple goes to the split its line names. The tweets stage cut them tweet-disjoint
(whole components of the related-couple graph per split, in the paper's proportions 15,000 :
20,000 : 13,645) and drew each split's unrelated couples among its own tweets. Both classes of a
split then get the same size (the smaller class's, the surplus of the other dropped and counted).
Writes ``train.npz``, ``validation.npz``, ``test.npz``, ``groups.npz`` and, last, ``summary.json``.

**Clusters** (``groups.npz``, one id per couple of each split: the units of the bootstrap
interval of :func:`repro.core.metrics.cluster_bootstrap_ci`; :func:`couple_groups`). The split's
*related* couples are the edges of a graph on its tweets; a related couple's cluster is its
connected component there. An unrelated couple takes the component of its tweet a when that
tweet is in a related couple of the split, else the id of tweet a alone, used by no cluster
(shared by the unrelated couples with that tweet a). Unrelated couples are no edges: they would
glue the components into a couple of giant ones. Ids are >= 0 and mean something within one
split only. Per split, the summary's counts give ``components`` (distinct ids: the bootstrap's
units, related clusters and lone tweets a together), ``related_clusters`` and
``largest_cluster_related`` (:func:`repro.data.couples.cluster_counts`).

**Cues** (``summary.json``'s ``cues``, :func:`cue_stats`): what tells the column's related
couples from its unrelated ones besides meaning, over the couples of the three splits:
``manual_retweet_share`` (``related``, ``related_test``: shares of related couples with a
manual retweet "RT @user: ..." on either side; null for a couples file without the tweets
stage's ``manual_rt``), ``answer_token_share`` (``related``, ``unrelated``: shares of couples
whose two texts hold one tweet-chat answer token, ``A1:`` cleaned to ``a0``),
``top5_component_share_test`` (share of the related test couples in the test split's five
largest clusters) and ``mean_known_words`` (``related``, ``unrelated``: in-vocabulary words
per text).
"""

from __future__ import annotations

import argparse
import os
import re
import sys

import numpy as np

from repro import settings
from repro.io import store
from repro.errors import InputError, run
from repro.data import couplestage
from repro.data.couples import cluster_counts
from repro.data.tweets.tweetpairs import components, shared_across_splits
from repro.core.pairset import PairSet, from_rows
from repro.words.text import tokens as text_tokens
from repro.words.vocabulary import Vocabulary

SETTING = "twitter"
TWITTER_SETTINGS = settings.TWITTER_SETTINGS


def read_records(path: str) -> tuple[list, np.ndarray, list]:
    """(couples of token lists, labels, one ``{"ids", "split", "manual_rt"}`` per couple) of a
    couples file of the tweets stage (``manual_rt`` None in files written before it was); both
    classes must be present and every split name known."""
    couples, labels, info = store.read_couples(path, labels=True, fields=("ids", "split"), optional=("manual_rt",))
    if not (labels == 1).any() or not (labels == 0).any():
        raise InputError(path, f"{int((labels == 1).sum())} related and {int((labels == 0).sum())} unrelated "
                               "couples: both classes are needed")
    bad = sorted({x["split"] for x in info} - set(settings.SPLITS))
    if bad:
        raise InputError(path, f"unknown split {bad[0]!r} (expected {', '.join(settings.SPLITS)})")
    return couples, labels, info


def couple_groups(info: list, labels) -> np.ndarray:
    """(P,) int64 cluster of each of P couples of one split (``info``: their ``{"ids"}``;
    ``labels``: (P,) 1 related, 0 unrelated): the connected component of the graph whose edges
    are the related couples alone. An unrelated couple takes its tweet a's component, which is
    that tweet alone (an id no related couple has) when it is in no related couple. Ids are
    0, 1, ... in order of first appearance."""
    index: dict = {}
    for x in info:
        for tid in x["ids"]:
            index.setdefault(tid, len(index))
    edges = [(index[x["ids"][0]], index[x["ids"][1]]) for x, y in zip(info, labels) if y == 1]
    comp = components(len(index), edges)[[index[x["ids"][0]] for x in info]]
    first = {}
    return np.asarray([first.setdefault(int(c), len(first)) for c in comp], np.int64)


ANSWER_TOKEN = re.compile(r"a\d+")


def answer_tokens(tokens) -> set:
    """The tweet-chat answer tokens of a cleaned text: ``a`` then digits (``A1:`` cleans to ``a0``)."""
    return {t for t in tokens if ANSWER_TOKEN.fullmatch(t)}


def _share(flags) -> float | None:
    """Mean of booleans, rounded to 4 digits; None for none."""
    flags = np.asarray(flags, bool)
    return round(float(flags.mean()), 4) if flags.size else None


def top_share(clusters, k: int = 5) -> float | None:
    """Share of the items in the ``k`` most frequent of their (n,) cluster ids; None for none."""
    sizes = np.sort(np.unique(np.asarray(clusters), return_counts=True)[1])[::-1]
    return round(float(sizes[:k].sum() / sizes.sum()), 4) if sizes.size else None


def cue_stats(couples: list, labels, info: list, known, picks: dict, clusters: dict) -> dict:
    """The ``cues`` of the summary (module docstring) over the couples that made the splits.

    Args:
      couples: N (tokens a, tokens b); labels: (N,); info: N dicts with ``manual_rt`` (a pair
        of bools, or None); known: (2N,) in-vocabulary words of every text (2k: a, 2k + 1: b).
      picks: {split: (P,) indices of its couples}; clusters: {split: (P,) their cluster ids}.
    """
    labels, known = np.asarray(labels), np.asarray(known)
    every = np.concatenate([np.asarray(p, np.int64) for p in picks.values()])
    rel, unrel = every[labels[every] == 1], every[labels[every] == 0]
    test = np.asarray(picks["test"], np.int64)
    rel_test = test[labels[test] == 1]
    flags = [info[k].get("manual_rt") for k in every]
    if all(f is not None for f in flags):
        manual = {"related": _share([any(info[k]["manual_rt"]) for k in rel]),
                  "related_test": _share([any(info[k]["manual_rt"]) for k in rel_test])}
    else:
        manual = None

    def answer(idx):
        return _share([bool(answer_tokens(text_tokens(couples[k][0])) & answer_tokens(text_tokens(couples[k][1]))) for k in idx])

    def words(idx):
        both = np.concatenate([known[2 * idx], known[2 * idx + 1]])
        return round(float(both.mean()), 3) if both.size else None

    return {"manual_retweet_share": manual,
            "answer_token_share": {"related": answer(rel), "unrelated": answer(unrel)},
            "top5_component_share_test": top_share(np.asarray(clusters["test"])[labels[test] == 1]),
            "mean_known_words": {"related": words(rel), "unrelated": words(unrel)}}


def build(couples: list, labels, info: list, vocab: Vocabulary, seed: int,
          setting: str = SETTING) -> tuple[dict[str, PairSet], dict, dict]:
    """The three splits (each couple in the split its line names), their couples' clusters
    (:func:`couple_groups`), and the summary with counts and cues (no file written)."""
    rng = np.random.default_rng(seed)
    n_max = settings.setting(setting).n_max
    labels = np.asarray(labels)
    texts = [t for ab in couples for t in ab]
    rows, lengths = vocab.rows(texts)
    ok = (lengths[0::2] > 0) & (lengths[1::2] > 0)
    width = max(n_max, rows.shape[1])
    rows = np.pad(rows, ((0, 0), (0, width - rows.shape[1])))
    split_of = np.asarray([x["split"] for x in info])
    out, groups, picked, counts, dropped_balance = {}, {}, {}, {}, {}
    for name in settings.SPLITS:
        picks = []
        for label in (1, 0):
            idx = np.flatnonzero((split_of == name) & (labels == label) & ok)
            picks.append(idx[rng.permutation(idx.size)])
        n = min(p.size for p in picks)
        if n < 1:
            raise ValueError(f"the {name} split has {picks[0].size} related and {picks[1].size} unrelated couples "
                             "with in-vocabulary words: at least one of each is needed")
        dropped_balance[name] = {"related": int(picks[0].size - n), "unrelated": int(picks[1].size - n)}
        pick = np.concatenate([p[:n] for p in picks])
        pick = pick[rng.permutation(pick.size)]
        picked[name] = pick
        out[name] = from_rows(rows, lengths, 2 * pick, 2 * pick + 1, labels[pick])
        groups[name] = couple_groups([info[k] for k in pick], labels[pick])
        counts[name] = {"related": n, "unrelated": n, "total": 2 * n, "components": int(np.unique(groups[name]).size),
                        **cluster_counts(groups[name], labels[pick])}
    lens = np.concatenate([np.concatenate([o.len_a, o.len_b]) for o in out.values()])
    summary = {
        "setting": setting, "seed": seed, "width": int(width), "n_max": n_max,
        "couples_read": {"related": int((labels == 1).sum()), "unrelated": int((labels == 0).sum())},
        "dropped_empty_text": {"related": int((~ok & (labels == 1)).sum()), "unrelated": int((~ok & (labels == 0)).sum())},
        "dropped_for_balance": dropped_balance,
        "tweets_shared_across_splits": shared_across_splits(info),
        "counts": counts, "sizes": {k: v["total"] for k, v in counts.items()},
        "cues": cue_stats(couples, labels, info, lengths, picked, groups),
        "text_length_mean": round(float(lens.mean()), 3), "text_length_max": int(lens.max()),
        "vocabulary": len(vocab), "n_docs": vocab.n_docs,
    }
    return out, groups, summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m repro tweetsets", description=__doc__.split("\n\n")[0])
    ap.add_argument("--couples", required=True, help="couples file of the tweets stage (JSON lines)")
    couplestage.add_inputs(ap, corpus=" (Wikipedia)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the shuffles (default 0)")
    ap.add_argument("--setting", default=SETTING, choices=TWITTER_SETTINGS, help="the Table 2 column (default %(default)s)")
    ap.add_argument("--out", required=True, help="folder for train/validation/test.npz and summary.json")
    args = ap.parse_args(argv)
    vocab = Vocabulary.load(args.vocab, args.df)
    couples, labels, info = read_records(args.couples)
    try:
        splits, groups, summary = build(couples, labels, info, vocab, args.seed, args.setting)
    except ValueError as err:
        raise InputError(args.couples, str(err)) from None
    summary["couples_file"] = os.path.abspath(args.couples)
    pairing = os.path.splitext(args.couples)[0] + ".summary.json"
    summary["tweets"] = store.read_json_if_any(pairing)
    counts, c = couplestage.save_splits(args.out, splits, summary, groups), summary["counts"]
    print(f"tweetsets: {sum(v['related'] for v in c.values())} + {sum(v['unrelated'] for v in c.values())} couples "
          f"(related + unrelated): {counts}; {sum(summary['dropped_empty_text'].values())} dropped for an empty "
          f"text -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
