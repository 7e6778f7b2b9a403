"""``repro index``: a persistent index folder of texts or vectors, to search and deduplicate again
without reading and scanning everything anew, and to add to (beyond the paper).

    repro index texts.txt INDEX/                    # the default encoder (or --model, --vectors, ...)
    repro index more.jsonl INDEX/ --add             # more texts, encoded by the index's own encoder
    repro index X.npy INDEX/ --metric cosine        # vectors (repro encode's output)
    repro neighbours INDEX/ "a query" -k 10
    repro dedup INDEX/ --threshold 0.9 --keep first

ITEMS is a file of texts (one per line, or JSON lines with "text" and an optional "id") or a
.npy of their vectors. The folder holds the vectors (vectors.npy, memory-mapped when searched),
the encoder (encoder.npz and .json; none for vectors given with --metric), under the cosine the
k-means cells of the vectors (learned on the first 65,536 items) and each item's nearest cells,
the ids given (ids.txt; else an item's id is its row, from 0), and manifest.json, which records
the encoder's identity and a SHA-256 of the files. --add appends: the folder then gives the same
answers as one built at once from all the items. Vectors of another dimension, of another encoder
than the folder's, a truncated or changed folder: refused with one line. A build writes to a
temporary folder renamed at the end; an add writes the manifest last (docs/SEARCH.md).
"""

from __future__ import annotations

import sys
import warnings

from repro.io import store
from repro.errors import InputError, run
from repro.commands.options import encoder_from, report_warnings
from repro.commands.vectorsource import (add_common_options, check_dims, index_encoder, metric_of, names_encoder, parser,
                                         read_items)
from repro.search import indexfolder


def main(argv=None) -> int:
    ap = parser("repro index", __doc__)
    ap.add_argument("index", metavar="INDEX", help="the index folder to build (must not exist), or with --add to grow")
    ap.add_argument("--add", action="store_true", help="append ITEMS to the index folder INDEX")
    ap.add_argument("--processes", type=int, help="processes that encode texts (default: one per core, at most 8)")
    add_common_options(ap)
    args = ap.parse_args(argv)
    npy = args.items.endswith(".npy")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        index = indexfolder.load(args.index) if args.add else None
        enc = None
        if not npy or names_encoder(args):  # texts, or vectors of a named encoder
            enc = index_encoder(args, index) if args.add else encoder_from(args)
            if enc is None and not npy:
                raise InputError(args.index, "holds no encoder (built from vectors): add a .npy of vectors")
        items, ids = (read_items(args.items), None) if npy else store.read_texts_ids(args.items, args.format)
        check_dims({args.items: items}, enc)
        if enc is not None:
            index = enc.index(items, args.index, ids=ids, add=args.add, metric=None if args.add else metric_of(args, enc),
                              processes=args.processes)
        elif args.add:
            index = indexfolder.add(args.index, items)
        else:
            index = indexfolder.create(args.index, items, metric_of(args, None))
    report_warnings(caught)
    cells = index.manifest.get("cells")
    print(f"index: {index.n:,} items, {index.dim}-d, {index.metric}"
          + (f", {cells['count']:,} cells" if cells else "") + f" -> {args.index}")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
