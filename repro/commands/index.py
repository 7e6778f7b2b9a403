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

import os
import sys
import tempfile
import warnings

from repro.errors import InputError, run
from repro.commands.options import encoder_from, report_warnings
from repro.commands.vectorsource import (ENCODER_FILE, add_common_options, index_encoder, metric_of, names_encoder,
                                         parser, read_items)
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
        if args.add:
            index = indexfolder.load(args.index)
            enc = index_encoder(args, index) if (not npy or names_encoder(args)) else None
            if enc is None and not npy:
                raise InputError(args.index, "holds no encoder (built from vectors): add a .npy of vectors")
            v, rep, ids = _items(args, enc)
            index = indexfolder.add(args.index, v, rep=rep, ids=ids, encoder=enc.identity if enc else None)
        else:
            enc = encoder_from(args) if (not npy or names_encoder(args)) else None
            metric = metric_of(args, enc)
            v, rep, ids = _items(args, enc)
            with tempfile.TemporaryDirectory() as tmp:
                files = {}
                if enc is not None:
                    enc.save(os.path.join(tmp, ENCODER_FILE))
                    files = {ENCODER_FILE: os.path.join(tmp, ENCODER_FILE),
                             "encoder.json": os.path.join(tmp, "encoder.json")}
                index = indexfolder.create(args.index, v, metric, rep=rep, ids=ids, files=files,
                                           encoder=enc.identity if enc else None)
    report_warnings(caught)
    cells = index.manifest.get("cells")
    print(f"index: {index.n:,} items, {index.dim}-d, {index.metric}"
          + (f", {cells['count']:,} cells" if cells else "") + f" -> {args.index}")
    return 0


def _items(args, enc):
    """(rows, rep, ids) of ITEMS: a .npy's rows (rep None), or the distinct texts' vectors and each text's row."""
    from repro.io import store
    if args.items.endswith(".npy"):
        x = read_items(args.items)
        if enc is not None and x.shape[1] != enc.dim:
            raise InputError(args.items, f"{x.shape[1]}-d vectors, but the encoder's are {enc.dim}-d")
        return x, None, None
    from repro.encode.distinct import transform_distinct
    texts, ids = store.read_texts_ids(args.items, args.format)
    v, rep = transform_distinct(enc, texts, args.processes)
    return v, rep, ids


if __name__ == "__main__":
    sys.exit(run(main))
