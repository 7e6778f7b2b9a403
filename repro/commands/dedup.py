"""``repro dedup``: near-duplicate groups of a set of texts or vectors (beyond the paper).

    repro dedup texts.txt --threshold 0.9 --vectors glove300/ --df df.npz
    repro dedup X.npy --threshold 0.95 --metric cosine --out groups.npz

ITEMS is a file of texts (one per line, or JSON lines) or a .npy of their vectors (repro
encode's output, memory-mapped); an item's id is its row, from 0. The rule: two items are in one
group when a chain of couples joins them, each couple scoring at least --threshold (the
connected components of the graph of couples scoring >= T, single linkage: two members of a group
may score below T); an item with no such couple is a group of one. A score is the couple's score
of repro similarity: the metric --model records, else the shipped model's (the cosine for
--pretrained default and best), or --metric, needed when no encoder is named and ITEMS is a
.npy. T lies in [-1, 1] for the cosine; under euclidean a score is minus a distance, so T <= 0
(0: identical vectors only). Every couple is compared, exactly, block by block in bounded memory
(repro.search.dedup).

Output: groups are numbered from 0 in the order of their first item (item 0 is in group 0). With
--out FILE.npz, the arrays group (N,) int64, size (G,) int64 (each group's number of items),
threshold and metric; otherwise TSV on standard output, one line per item,
id<TAB>group<TAB>size (the size of its group), and nothing else.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

from repro.io import store
from repro.errors import InputError, run
from repro.commands.options import report_warnings
from repro.commands.vectorsource import add_common_options, check_dims, encoder_for, metric_of, parser, read_items
from repro.search.dedup import check_threshold, groups


def summary(group: np.ndarray, size: np.ndarray) -> str:
    """"N items in G groups (M of 2 or more, holding P items)"."""
    many = size > 1
    return (f"{group.size:,} items in {size.size:,} groups ({int(many.sum()):,} of 2 or more, holding "
            f"{int(size[many].sum()):,} items)")


def main(argv=None) -> int:
    ap = parser("repro dedup", __doc__)
    ap.add_argument("--threshold", type=float, required=True,
                    help="the least score of a couple that joins two groups: in [-1, 1] for the cosine, <= 0 for "
                         "euclidean (minus a distance)")
    ap.add_argument("--out", help="the .npz to write: group (N,) and size (G,) (default: TSV on standard output)")
    add_common_options(ap)
    args = ap.parse_args(argv)
    if args.metric:  # checked before any encoding
        check_threshold(args.threshold, args.metric, "--threshold")
    if args.out and not args.out.endswith(".npz"):
        raise InputError(args.out, "the output must be a .npz file")
    items = read_items(args.items, args.format)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        enc = encoder_for(args, items)
        metric = metric_of(args, enc)
        threshold = check_threshold(args.threshold, metric, "--threshold")
        check_dims({args.items: items}, enc)
        vectors = items if isinstance(items, np.ndarray) else enc.transform(items)
        group, size = groups(vectors, threshold, metric)
    report_warnings(caught)
    if args.out:
        store.write_npz(args.out, group=group, size=size, threshold=np.array(threshold), metric=np.array(metric))
        print(f"dedup: {summary(group, size)}, {metric} >= {threshold:g} -> {args.out}")
    else:
        sys.stdout.write("".join(f"{i}\t{g}\t{size[g]}\n" for i, g in enumerate(group)))
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
