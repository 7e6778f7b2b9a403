"""Related and unrelated Wikipedia text pairs with their splits (paper, section 4.1).

    python -m repro.pairs --paragraphs DATA/paragraphs.tsv --vocab DATA/w2v/vocab.txt
                          --df DATA/df.npz --setting wiki20|wikivar --seed S --out DATA/wiki20

Writes ``train.npz``, ``test.npz`` and ``validation.npz`` (:mod:`repro.pairset`) into ``--out``,
then, last, ``summary.json`` (counts per split and class, setting, seed, sizes).

Rules (paper 4.1, the original ``extract_pairs.py``, and project issue 3):

* **Windows.** A text is a window of n consecutive *in-vocabulary* words of one paragraph:
  collecting from a position, out-of-vocabulary tokens are dropped and not counted until n
  vocabulary words are in (as the original code).
* **Related pair.** Text A, then exactly two raw tokens skipped (in the vocabulary or not),
  then text B, both inside the same paragraph. Unlike the original (one pair per line), the
  walk goes on along the paragraph: the next pair's A starts right after the previous B, so
  every window of a paragraph is disjoint from the others. A paragraph that ends before a
  window is full gives no further pair.
* **Lengths.** ``wiki20``: n = 20 for every text (width 20). ``wikivar``: n drawn uniformly
  from 10..30 inclusive, independently for A and B of every attempt (width 30).
* **Splits.** Related pairs are shuffled and cut train:test:validation = 1.5:1.5:1.9
  (``15/49``, ``15/49``, rest, as the paper's 1.5M/1.5M/1.9M).
* **Unrelated pairs**, made per split from that split's own windows: the 2P windows of the P
  related pairs are paired at random, never two windows of the same article (a random
  perfect matching, repaired by swaps). So each split has as many unrelated pairs as related
  ones, both classes hold exactly the same texts (the same lengths and words; only the
  pairing differs), and no text is shared between splits. If one article holds more than
  half of a split's windows, the pairs that cannot be repaired are dropped with as many
  related pairs of that split, to keep the classes balanced (``summary.json`` counts them).
* **Order inside a text**: descending idf (``repro.idf.idf``; ascending df), ties broken by
  the word string ascending; padded with 0 to the width. Labels: 1 related, 0 unrelated. The
  rows of a split are shuffled.

Every random choice comes from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from array import array

import numpy as np
from tqdm import tqdm

from repro.atomic import write_json
from repro.cli import InputError, fail
from repro.docfreq import load_df, read_vocab
from repro.idf import idf
from repro.pairset import PairSet, save

SETTINGS = {
    "wiki20": {"min_n": 20, "max_n": 20, "width": 20},
    "wikivar": {"min_n": 10, "max_n": 30, "width": 30},
}
SKIP = 2  # raw tokens between text A and text B (paper and original code)
SPLITS = (("train", 15), ("test", 15), ("validation", 19))  # 1.5 : 1.5 : 1.9


def idf_order_rank(words: list[str], df: np.ndarray, n_docs: int) -> np.ndarray:
    """rank[i] = position of word i when sorted by descending idf, ties by the word ascending."""
    values = idf(df, n_docs)
    order = np.lexsort((np.asarray(words, dtype=object).astype(str), -values))
    rank = np.empty(len(words), dtype=np.int64)
    rank[order] = np.arange(len(words))
    return rank


def sort_text(ids, rank: np.ndarray) -> np.ndarray:
    """Word indices of one text in descending-idf order (word-string tie-break)."""
    ids = np.asarray(ids, dtype=np.int64)
    return ids[np.argsort(rank[ids], kind="stable")]


def take_window(ids: list[int], start: int, n: int):
    """Collect ``n`` in-vocabulary words (``ids`` >= 0) from position ``start``, skipping OOV (-1).

    Returns (word ids, position of the first word, position after the last) or None if the
    paragraph ends first.
    """
    out, pos, first, end = [], start, -1, len(ids)
    while pos < end:
        w = ids[pos]
        pos += 1
        if w >= 0:
            if first < 0:
                first = pos - 1
            out.append(w)
            if len(out) == n:
                return out, first, pos
    return None


def related_pairs(ids: list[int], sizes) -> list[tuple[list[int], list[int], tuple[int, int], tuple[int, int]]]:
    """All related pairs of one paragraph, walking it from the start.

    ``ids``: the paragraph's tokens as vocabulary indices, -1 for out-of-vocabulary ones.
    ``sizes``: a callable giving (n_a, n_b) for each attempt. Returns a list of
    (a ids, b ids, a span, b span); a span is (position of first word, position after last).
    Text A is collected, ``SKIP`` raw tokens are skipped, text B is collected; the next
    attempt starts right after B.
    """
    pairs, pos = [], 0
    while pos < len(ids):
        n_a, n_b = sizes()
        a = take_window(ids, pos, n_a)
        if a is None:
            break
        b = take_window(ids, a[2] + SKIP, n_b)
        if b is None:
            break
        pairs.append((a[0], b[0], (a[1], a[2]), (b[1], b[2])))
        pos = b[2]
    return pairs


def match_unrelated(articles: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """Pair up the items (an even number) so that no pair shares an article.

    A random perfect matching, then every pair within one article gets its second item swapped
    with that of a random pair holding neither its article; every swap fixes the bad pair and
    keeps the other one good. Returns ((M, 2) item indices, number of pairs that could not be
    repaired and were dropped; only possible when one article holds over half the items).
    """
    articles = np.asarray(articles)
    order = rng.permutation(len(articles))
    first, second = order[0::2].copy(), order[1::2].copy()
    m = min(len(first), len(second))
    first, second = first[:m], second[:m]
    keep = np.ones(m, dtype=bool)
    for k in np.flatnonzero(articles[first] == articles[second]):
        a = articles[first[k]]
        if articles[second[k]] != a:
            continue  # repaired by an earlier swap
        ok = np.flatnonzero((articles[first] != a) & (articles[second] != a) & keep)
        if ok.size == 0:
            keep[k] = False
            continue
        j = ok[rng.integers(ok.size)]
        second[k], second[j] = second[j], second[k]
    return np.stack([first[keep], second[keep]], axis=1), int((~keep).sum())


def pack_texts(flat: np.ndarray, lengths: np.ndarray, rank: np.ndarray, width: int) -> np.ndarray:
    """Every text sorted by descending idf and 0-padded: a (number of texts, width) int32 array.

    ``flat`` holds the texts one after the other, ``lengths`` their lengths.
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    text_of = np.repeat(np.arange(len(lengths)), lengths)
    order = np.lexsort((rank[flat], text_of))  # text by text, then by idf rank
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    packed = np.zeros((len(lengths), width), dtype=np.int32)
    packed[text_of, np.arange(len(flat)) - offsets[text_of]] = flat[order]
    return packed


def collect_windows(paragraphs: str, index: dict[str, int], setting: str, rng: np.random.Generator,
                    progress: bool | None = None):
    """Walk the paragraph TSV; return (flat word ids, text lengths, text article numbers, stats).

    The texts lie one after the other in the flat array; texts 2k and 2k+1 are related pair k.
    """
    cfg = SETTINGS[setting]
    if cfg["min_n"] == cfg["max_n"]:
        fixed = (cfg["min_n"], cfg["min_n"])

        def sizes():
            return fixed
    else:
        lo, hi = cfg["min_n"], cfg["max_n"]

        def sizes():
            n = rng.integers(lo, hi + 1, size=2)
            return int(n[0]), int(n[1])

    flat, lengths, arts = array("i"), array("i"), array("q")
    article_no: dict[str, int] = {}
    n_par = used_par = tokens = oov = 0
    with open(paragraphs, encoding="utf-8") as f:
        for lineno, line in enumerate(tqdm(f, desc=f"pairs {setting}", unit=" paragraphs", disable=progress is False or None), 1):
            art, sep, text = line.rstrip("\n").partition("\t")
            if not sep:
                raise InputError(paragraphs, f"line {lineno}: no tab between article id and text")
            n_par += 1
            ids = [index.get(t, -1) for t in text.split()]
            tokens += len(ids)
            oov += ids.count(-1)
            found = related_pairs(ids, sizes)
            if not found:
                continue
            used_par += 1
            a_no = article_no.setdefault(art, len(article_no))
            for a, b, _, _ in found:
                flat.extend(a)
                flat.extend(b)
                lengths.extend((len(a), len(b)))
                arts.extend((a_no, a_no))
    stats = {"paragraphs": n_par, "paragraphs_with_pairs": used_par, "articles_with_pairs": len(article_no),
             "tokens": tokens, "oov_tokens": oov}
    as_np = lambda buf, dtype: np.frombuffer(buf, dtype=dtype) if len(buf) else np.zeros(0, dtype)  # noqa: E731
    return as_np(flat, np.int32), as_np(lengths, np.int32), as_np(arts, np.int64), stats


def split_sizes(n: int) -> list[int]:
    """Sizes of train, test, validation for n items in proportions 1.5:1.5:1.9."""
    total = sum(w for _, w in SPLITS)
    train = n * SPLITS[0][1] // total
    test = n * SPLITS[1][1] // total
    return [train, test, n - train - test]


def build(paragraphs: str, words: list[str], df: np.ndarray, n_docs: int, setting: str, seed: int,
          progress: bool | None = None) -> tuple[dict[str, PairSet], dict]:
    """All three splits of one setting, and the summary (no file written)."""
    rng = np.random.default_rng(seed)
    width = SETTINGS[setting]["width"]
    rank = idf_order_rank(words, df, n_docs)
    index = {w: i for i, w in enumerate(words)}
    flat, lengths, arts, stats = collect_windows(paragraphs, index, setting, rng, progress)
    n_rel = len(lengths) // 2
    if n_rel == 0:
        raise InputError(paragraphs, f"corpus too small: no paragraph holds two {setting} windows of in-vocabulary words")
    if n_rel < len(SPLITS):
        raise InputError(paragraphs, f"corpus too small: {n_rel} related pair(s), at least {len(SPLITS)} needed (one per split)")
    packed = pack_texts(flat, lengths, rank, width)
    perm = rng.permutation(n_rel)
    out, counts, dropped = {}, {}, {}
    start = 0
    for (name, _), size in zip(SPLITS, split_sizes(n_rel)):
        rel = perm[start : start + size]
        start += size
        items = np.stack([2 * rel, 2 * rel + 1], axis=1).reshape(-1)  # this split's windows
        matched, lost = match_unrelated(arts[items], rng)
        if lost:  # keep the classes balanced
            rel = rel[np.sort(rng.permutation(len(rel))[: len(rel) - lost])]
        if len(matched) == 0:
            raise InputError(paragraphs, f"corpus too small: every window of the {name} split comes from one article")
        unrel_a, unrel_b = items[matched[:, 0]], items[matched[:, 1]]
        a_idx = np.concatenate([2 * rel, unrel_a])
        b_idx = np.concatenate([2 * rel + 1, unrel_b])
        labels = np.concatenate([np.ones(len(rel), np.int8), np.zeros(len(matched), np.int8)])
        shuffle = rng.permutation(len(labels))
        a_idx, b_idx, labels = a_idx[shuffle], b_idx[shuffle], labels[shuffle]
        out[name] = PairSet(packed[a_idx], packed[b_idx], lengths[a_idx].copy(), lengths[b_idx].copy(), labels)
        counts[name] = {"related": int(labels.sum()), "unrelated": int((labels == 0).sum()), "total": int(len(labels))}
        dropped[name] = lost
    summary = {
        "setting": setting,
        "seed": seed,
        "width": width,
        "n_range": [SETTINGS[setting]["min_n"], SETTINGS[setting]["max_n"]],
        "skip": SKIP,
        "counts": counts,
        "sizes": {k: v["total"] for k, v in counts.items()},
        "related_pairs_found": n_rel,
        "dropped_for_balance": dropped,
        "text_length_mean": round(float(lengths.mean()), 3),
        "vocabulary": len(words),
        "n_docs": int(n_docs),
        "corpus": stats,
        "paragraphs_file": os.path.abspath(paragraphs),
    }
    return out, summary


def write(out_dir: str, splits: dict[str, PairSet], summary: dict) -> None:
    """Save the splits, then ``summary.json`` last (its presence means the set is complete)."""
    os.makedirs(out_dir, exist_ok=True)
    marker = os.path.join(out_dir, "summary.json")
    if os.path.exists(marker):
        os.remove(marker)
    for name, pairs in splits.items():
        save(os.path.join(out_dir, f"{name}.npz"), pairs)
    write_json(marker, summary, sort_keys=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m repro.pairs", description=__doc__.split("\n\n")[0])
    ap.add_argument("--paragraphs", required=True, help="paragraph TSV from repro.wikidump")
    ap.add_argument("--vocab", required=True, help="vocab.txt from repro.embeddings")
    ap.add_argument("--df", required=True, help="df.npz from repro.docfreq")
    ap.add_argument("--setting", required=True, choices=sorted(SETTINGS), help="wiki20 (n = 20) or wikivar (n in 10..30)")
    ap.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")
    ap.add_argument("--out", required=True, help="folder for train/test/validation.npz and summary.json")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    try:
        words = read_vocab(args.vocab)
        df, n_docs = load_df(args.df)
        if len(df) != len(words):
            raise InputError(args.df, f"{len(df)} df values for {len(words)} vocabulary words in {args.vocab}")
        if not os.path.isfile(args.paragraphs):
            raise InputError(args.paragraphs, "no such file")
        try:
            splits, summary = build(args.paragraphs, words, df, n_docs, args.setting, args.seed)
        except UnicodeDecodeError as err:
            raise InputError(args.paragraphs, f"not UTF-8 text ({err.reason})") from None
        write(args.out, splits, summary)
    except (InputError, KeyboardInterrupt) as err:
        return fail(err, args.out)
    c = summary["counts"]
    print(f"pairs {args.setting}: {summary['related_pairs_found']} related pairs from "
          f"{summary['corpus']['paragraphs_with_pairs']} paragraphs of {summary['corpus']['articles_with_pairs']} articles; "
          + ", ".join(f"{k} {v['related']}+{v['unrelated']}" for k, v in c.items())
          + f" (related+unrelated) in {time.perf_counter() - t0:.2f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
