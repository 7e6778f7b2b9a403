"""``repro neighbours``: the k items most similar to each query (beyond the paper).

    repro neighbours INDEX/ "a cat on a mat" "markets fell" -k 5        # an index folder of repro index
    repro neighbours texts.txt "a cat on a mat" "markets fell" --vectors glove300/ --df df.npz -k 5
    repro neighbours X.npy --queries queries.txt --model enc.npz -k 10 --out nn.npz
    repro neighbours X.npy --queries Q.npy --metric cosine --out nn.npz

ITEMS is a file of texts (one per line, or JSON lines), a .npy of their vectors (repro
encode's output, memory-mapped: read a block at a time) or an index folder of repro index; an
item's id is its row, from 0 (a line of the texts file, as repro encode numbers its rows), or
in an index folder the id it was given. An index folder encodes the queries with its own
encoder and scans its vectors once (their lengths are kept); with --cells, only the items of
each query's 256 nearest k-means cells (of 2,048 for a large index: approximate, docs/SEARCH.md
gives its recall of the exact top 10; every score exact). The queries are the TEXTs given, or
--queries FILE (texts, or a .npy). A score is the couple's score of repro similarity, higher =
more similar: the metric --model records, else the shipped model's (the cosine for --pretrained
best, the default), or --metric, which is needed when no encoder is named and every input is a
.npy. The k are exact: the highest scores over every item, ties broken by the lower id, found
block by block in bounded memory (repro.search.neighbours). A k above the number of items is cut to it,
with a warning.

Output: with --out FILE.npz, the arrays ids (Q, k) int64 and scores (Q, k) float64, best first,
and metric; otherwise TSV on standard output, one line per query and rank,
query<TAB>rank<TAB>id<TAB>score (query from 0, rank from 1), and nothing else.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

from repro.io import store
from repro.errors import InputError, run
from repro.commands.options import report_warnings
from repro.commands.vectorsource import (add_common_options, check_dims, encoder_for, index_encoder, is_index, metric_of,
                                         parser, read_items)
from repro.search.neighbours import top_k


def tsv(ids: np.ndarray, scores: np.ndarray) -> str:
    """query<TAB>rank<TAB>id<TAB>score lines, rank from 1."""
    return "".join(f"{q}\t{r + 1}\t{ids[q, r]}\t{scores[q, r]:.6f}\n" for q in range(ids.shape[0])
                   for r in range(ids.shape[1]))


def main(argv=None) -> int:
    ap = parser("repro neighbours", __doc__)
    ap.add_argument("texts", nargs="*", metavar="TEXT", help="query texts (or --queries)")
    ap.add_argument("--queries", help="a file of query texts, or a .npy of query vectors")
    ap.add_argument("-k", type=int, default=10, help="neighbours per query (default: 10)")
    ap.add_argument("--cells", action="store_true", help="in an index folder, scan only the items of each query's "
                                                         "nearest k-means cells (approximate)")
    ap.add_argument("--out", help="the .npz to write: ids and scores, (queries, k) each (default: TSV on standard "
                                  "output)")
    add_common_options(ap)
    args = ap.parse_args(argv)
    if args.k < 1:
        raise InputError("-k", f"must be at least 1, got {args.k}")
    if bool(args.texts) == bool(args.queries):
        raise InputError("neighbours", "give query texts, or --queries FILE (one of the two)")
    if args.out and not args.out.endswith(".npz"):
        raise InputError(args.out, "the output must be a .npz file")
    queries = read_items(args.queries, args.format) if args.queries else list(args.texts)
    if is_index(args.items):
        return _from_index(args, queries)
    items = read_items(args.items, args.format)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        enc = encoder_for(args, items, queries)
        metric = metric_of(args, enc)
        check_dims({args.queries or "queries": queries, args.items: items}, enc)
        search = enc.neighbours if enc is not None else top_k
        ids, scores = search(queries, items, args.k, metric)
    report_warnings(caught)
    if args.out:
        store.write_npz(args.out, ids=ids, scores=scores, metric=np.array(metric))
        print(f"neighbours: {ids.shape[0]:,} queries x top {ids.shape[1]:,} of {len(items):,} items ({metric}) "
              f"-> {args.out}")
    else:
        sys.stdout.write(tsv(ids, scores))
    return 0


def _from_index(args, queries) -> int:
    """The neighbours of the queries in an index folder, by its encoder and cells."""
    from repro.search.indexfolder import load
    index = load(args.items)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if isinstance(queries, np.ndarray):
            q = queries
        else:
            enc = index_encoder(args, index)
            if enc is None:
                raise InputError(args.items, "holds no encoder (built from vectors): give the queries as a .npy")
            q = enc.transform(queries)
        rows, scores = index.top_k(q, args.k, exact=not args.cells)
    report_warnings(caught)
    names = index.id_of(rows)
    k = rows.shape[1]
    if args.out:
        store.write_npz(args.out, ids=rows, scores=scores, metric=np.array(index.metric))
        print(f"neighbours: {rows.shape[0]:,} queries x top {k:,} of {index.n:,} items ({index.metric}) -> {args.out}")
    else:
        sys.stdout.write("".join(f"{qi}\t{r + 1}\t{names[qi * k + r]}\t{scores[qi, r]:.6f}\n"
                                 for qi in range(rows.shape[0]) for r in range(k)))
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
