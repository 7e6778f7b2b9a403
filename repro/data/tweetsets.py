"""Tweet couples to the token rows of the Twitter setting, cut into the paper's splits (section 4.2).

    python -m repro tweetsets --couples DATA/twitter/couples.jsonl --vocab DATA/w2v/vocab.txt
                              --df DATA/df.npz --seed S --out DATA/twitter

The couples file is what ``python -m repro tweets`` wrote (:mod:`repro.data.tweetpairs`): one
couple a line, ``{"label": 1|0, "a": [tokens], "b": [tokens]}``. As in the paper, the word
vectors and idf are the Wikipedia ones (no embeddings are trained on tweets), so every text
becomes its in-vocabulary words in descending Wikipedia idf (:meth:`repro.vocabulary.Vocabulary.to_rows`).
A couple with a text left without any in-vocabulary word is dropped and counted: it has no
representation (paper, section 3). The rows are as wide as the longest text and at least
n_max = 35 (the code's Twitter setting); longer texts use interpolated weights like any other.

Splits: related and unrelated couples are each shuffled and cut train : validation : test =
15,000 : 20,000 : 13,645, the paper's numbers (:func:`repro.data.tweetpairs.paper_split_sizes`);
both classes of a split then have the same size (the smaller class's share, the surplus of the
other dropped and counted). Writes ``train.npz``, ``validation.npz``, ``test.npz`` and, last,
``summary.json``.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from repro import settings, store
from repro.errors import InputError, run
from repro.data.tweetpairs import paper_split_sizes
from repro.pairset import PairSet
from repro.vocabulary import Vocabulary

SETTING = "twitter"


def read_classes(path: str) -> tuple[list, list]:
    """(related, unrelated) lists of (tokens a, tokens b) of a couples file (:func:`repro.store.read_couples`)."""
    couples, labels = store.read_couples(path, labels=True)
    related = [c for c, y in zip(couples, labels) if y == 1]
    unrelated = [c for c, y in zip(couples, labels) if y == 0]
    if not related or not unrelated:
        raise InputError(path, f"{len(related)} related and {len(unrelated)} unrelated couples: both classes are needed")
    return related, unrelated


def build(related: list, unrelated: list, vocab: Vocabulary, seed: int) -> tuple[dict[str, PairSet], dict]:
    """The three splits and the counts (no file written)."""
    rng = np.random.default_rng(seed)
    n_max = settings.setting(SETTING).n_max
    classes, dropped_empty = {}, {}
    for label, group in ((1, related), (0, unrelated)):
        rows, lengths = vocab.to_rows([t for ab in group for t in ab])
        ok = (lengths[0::2] > 0) & (lengths[1::2] > 0)
        dropped_empty[label] = int((~ok).sum())
        keep = np.flatnonzero(ok)
        classes[label] = (rows, lengths, keep[rng.permutation(keep.size)])
    width = max(n_max, *(c[0].shape[1] for c in classes.values()))
    n = min(c[2].size for c in classes.values())
    if n < 3:
        raise ValueError(f"{n} couple(s) of each class with in-vocabulary words, at least 3 needed (one per split)")
    sizes = paper_split_sizes(n)
    out, counts, start = {}, {}, 0
    for name in ("train", "validation", "test"):
        parts = []
        for label in (1, 0):
            rows, lengths, order = classes[label]
            pick = order[start:start + sizes[name]]
            rows = np.pad(rows, ((0, 0), (0, width - rows.shape[1])))
            parts.append((rows[2 * pick], rows[2 * pick + 1], lengths[2 * pick], lengths[2 * pick + 1],
                          np.full(pick.size, label, np.int8)))
        start += sizes[name]
        cols = [np.concatenate(c) for c in zip(*parts)]
        shuffle = rng.permutation(cols[0].shape[0])
        ps = PairSet(*(c[shuffle] for c in cols))
        out[name] = PairSet(ps.a.astype(np.int32), ps.b.astype(np.int32), ps.len_a.astype(np.int32),
                            ps.len_b.astype(np.int32), ps.label)
        counts[name] = {"related": int(ps.label.sum()), "unrelated": int((ps.label == 0).sum()),
                        "total": int(ps.label.size)}
    lens = np.concatenate([np.concatenate([o.len_a, o.len_b]) for o in out.values()])
    summary = {
        "setting": SETTING, "seed": seed, "width": int(width), "n_max": n_max,
        "couples_read": {"related": len(related), "unrelated": len(unrelated)},
        "dropped_empty_text": {"related": dropped_empty[1], "unrelated": dropped_empty[0]},
        "dropped_for_balance": {"related": int(classes[1][2].size - n), "unrelated": int(classes[0][2].size - n)},
        "counts": counts, "sizes": {k: v["total"] for k, v in counts.items()},
        "text_length_mean": round(float(lens.mean()), 3), "text_length_max": int(lens.max()),
        "vocabulary": len(vocab), "n_docs": vocab.n_docs,
    }
    return out, summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m repro tweetsets", description=__doc__.split("\n\n")[0])
    ap.add_argument("--couples", required=True, help="couples file of the tweets stage (JSON lines)")
    ap.add_argument("--vocab", required=True, help="vocab.txt of the word2vec stage (Wikipedia)")
    ap.add_argument("--df", required=True, help="df.npz of the docfreq stage (Wikipedia)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the shuffles (default 0)")
    ap.add_argument("--out", required=True, help="folder for train/validation/test.npz and summary.json")
    args = ap.parse_args(argv)
    vocab = Vocabulary.load(args.vocab, args.df)
    related, unrelated = read_classes(args.couples)
    try:
        splits, summary = build(related, unrelated, vocab, args.seed)
    except ValueError as err:
        raise InputError(args.couples, str(err)) from None
    summary["couples_file"] = os.path.abspath(args.couples)
    pairing = os.path.splitext(args.couples)[0] + ".summary.json"
    summary["tweets"] = store.read_json_if_any(pairing)
    store.save_splits(args.out, splits, summary)
    c = summary["counts"]
    print(f"tweetsets: {sum(v['related'] for v in c.values())} + {sum(v['unrelated'] for v in c.values())} couples "
          "(related + unrelated): " + ", ".join(f"{k} {v['related']}+{v['unrelated']}" for k, v in c.items())
          + f"; {sum(summary['dropped_empty_text'].values())} dropped for an empty text -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
