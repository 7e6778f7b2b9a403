"""``repro dedup``: near-duplicates of a set of texts or vectors, under one of two rules (beyond the paper).

    repro dedup texts.txt --threshold 0.9                       # groups (single linkage), the default encoder
    repro dedup texts.txt --threshold 0.9 --keep first --out dedup.npz
    repro dedup INDEX/ --threshold 0.95 --keep first            # an index folder of repro index
    repro dedup X.npy --threshold 0.95 --metric cosine --exact

ITEMS is a file of texts (one per line, or JSON lines), a .npy of their vectors (repro encode's
output, memory-mapped) or an index folder of repro index; an item's id is its row, from 0. A
couple's score is the score of repro similarity: the metric --model records, else the shipped
model's (the cosine for --pretrained default and best), or --metric, needed when no encoder is
named and ITEMS is a .npy. T lies in [-1, 1] for the cosine; under euclidean a score is minus a
distance, so T <= 0 (0: identical vectors only).

The rules (--keep):
  groups  two items are in one group when a chain of couples joins them, each couple scoring at
          least T (single linkage). For clusters of paraphrases, and to see what joins what; on a
          large set a chain can join unrelated texts into one large group.
  first   semhash's rule: go through the items in order, drop an item that scores at least T with
          an item kept before it (naming the kept item it scores highest with), keep the others.
          For cleaning a data set: what is dropped is within T of what is kept, and no chain forms.

How: below 40,000 items (or with --exact, under the Euclidean distance, or a cosine T below 0.5)
every couple is scored, exactly, block by block in bounded memory (repro.search.dedup). From
40,000 items on, each item is scanned against the items of its nearest few k-means cells
(repro.search.cellsearch; --cells forces it): it can miss a couple (on the 1M-text benchmark it
found 99.98% of them, docs/SEARCH.md) but every couple it reports is scored exactly. Texts are
encoded once per distinct text there, on --processes processes.

Output: with --out FILE.npz, groups: group (N,) int64 (numbered from 0 in the order of their first
item) and size (G,) int64; first: kept (N,) bool, duplicate_of (N,) int64 (-1 where kept) and score
(N,) float64 (NaN where kept); with threshold, metric, rule and method. Otherwise TSV on
standard output, one line per item: groups, id<TAB>group<TAB>size; first,
id<TAB>kept (1 or 0)<TAB>duplicate_of (-1 where kept)<TAB>score (empty where kept).
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

from repro.io import store
from repro.errors import InputError, run
from repro.commands.options import report_warnings
from repro.commands.vectorsource import (add_common_options, check_dims, encoder_for, is_index, metric_of, parser,
                                         read_items)
from repro.search.dedup import check_threshold
from repro.search.duplicates import Duplicates, near_duplicates


def summary(group: np.ndarray, size: np.ndarray) -> str:
    """"N items in G groups (M of 2 or more, holding P items)"."""
    many = size > 1
    return (f"{group.size:,} items in {size.size:,} groups ({int(many.sum()):,} of 2 or more, holding "
            f"{int(size[many].sum()):,} items)")


def tsv(r: Duplicates) -> str:
    if r.rule == "groups":
        return "".join(f"{i}\t{g}\t{r.size[g]}\n" for i, g in enumerate(r.group))
    return "".join(f"{i}\t1\t-1\t\n" if k else f"{i}\t0\t{d}\t{s:.6f}\n"
                   for i, (k, d, s) in enumerate(zip(r.kept, r.duplicate_of, r.score)))


def find(args) -> tuple[Duplicates, float, str]:
    """The near-duplicates of ITEMS by the options: (result, threshold, metric)."""
    exact = True if args.exact else (False if args.cells else None)
    if is_index(args.items):
        from repro.search.indexfolder import load
        index = load(args.items)
        t = check_threshold(args.threshold, index.metric, "--threshold")
        return index.duplicates(t, args.keep, exact), t, index.metric
    items = read_items(args.items, args.format)
    enc = encoder_for(args, items)
    metric = metric_of(args, enc)
    t = check_threshold(args.threshold, metric, "--threshold")
    check_dims({args.items: items}, enc)
    if isinstance(items, np.ndarray):
        return near_duplicates(items, t, metric, rule=args.keep, exact=exact), t, metric
    return enc.dedup(items, t, keep=args.keep, exact=exact, metric=metric, processes=args.processes), t, metric


def main(argv=None) -> int:
    ap = parser("repro dedup", __doc__)
    ap.add_argument("--threshold", type=float, required=True,
                    help="the least score of a duplicate couple: in [-1, 1] for the cosine, <= 0 for euclidean "
                         "(minus a distance)")
    ap.add_argument("--keep", choices=("groups", "first"), default="groups",
                    help="the rule: groups (single linkage, the default) or first (keep the first, drop what scores "
                         ">= T with a kept item; semhash's); see below")
    how = ap.add_mutually_exclusive_group()
    how.add_argument("--exact", action="store_true", help="score every couple (the default below 40,000 items)")
    how.add_argument("--cells", action="store_true", help="go through k-means cells at any size (cosine only)")
    ap.add_argument("--processes", type=int, help="processes that encode texts (default: one per core, at most 8)")
    ap.add_argument("--out", help="the .npz to write (default: TSV on standard output)")
    add_common_options(ap)
    args = ap.parse_args(argv)
    if args.metric:  # checked before any encoding
        check_threshold(args.threshold, args.metric, "--threshold")
    if args.out and not args.out.endswith(".npz"):
        raise InputError(args.out, "the output must be a .npz file")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r, threshold, metric = find(args)
    report_warnings(caught)
    if not args.out:
        sys.stdout.write(tsv(r))
        return 0
    meta = dict(threshold=np.array(threshold), metric=np.array(metric), rule=np.array(r.rule), method=np.array(r.method))
    if r.rule == "groups":
        store.write_npz(args.out, group=r.group, size=r.size, **meta)
        what = summary(r.group, r.size)
    else:
        store.write_npz(args.out, kept=r.kept, duplicate_of=r.duplicate_of, score=r.score, **meta)
        what = f"{r.kept.size:,} items, {int(r.kept.sum()):,} kept, {int((~r.kept).sum()):,} dropped"
    print(f"dedup: {what}, {metric} >= {threshold:g} ({r.method}) -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
