"""Searching the shards of a set with Dask against one scan of the whole set (issue 58, item 6):
the last part of ``make bench-dedup``.

    python -m benchmarks.bench_shards [--index data/dedup/index] [--shards 4] [--queries FILE]

The million vectors of the benchmark's index folder (``make bench-dedup`` builds it) are cut
into ``--shards`` ``.npy`` files (made once, beside it), and the benchmark's held-out queries are
searched for their exact top 10: once over the whole folder in this process (``Index.top_k``),
then over the shards with :func:`repro.search.shards.sharded_top_k` under Dask's threads and
processes schedulers (2 workers each). Every result must equal the whole scan's. Writes
benchmarks/results/shards.json and the generated block ``shards`` of docs/SEARCH.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from repro.io import store  # first: the kernel pins apply before NumPy starts

import numpy as np

from repro.io.provenance import git_commit, hardware, versions
from repro.io.readmeblock import ReadmeBlock

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cut(index, folder: str, parts: int) -> list[str]:
    """The index's vectors as ``parts`` .npy shards in ``folder`` (written once)."""
    os.makedirs(folder, exist_ok=True)
    bounds = np.linspace(0, index.n, parts + 1).astype(int)
    paths = []
    for p in range(parts):
        path = os.path.join(folder, f"shard-{p}-of-{parts}.npy")
        if not os.path.exists(path):
            store.save_array(path, np.asarray(index.vectors[bounds[p]:bounds[p + 1]]))
        paths.append(path)
    return paths


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", default=os.path.join(ROOT, "data", "dedup", "index"))
    ap.add_argument("--queries", default=os.path.join(ROOT, "data", "dedup", "queries-500-seed7.txt"))
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results", "shards.json"))
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "SEARCH.md"))
    args = ap.parse_args(argv)
    from repro import Encoder
    from repro.search.indexfolder import load
    from repro.search.shards import sharded_top_k
    index = load(args.index)
    paths = cut(index, args.index.rstrip("/") + "-shards", args.shards)
    q = Encoder.pretrained().transform(store.read_texts(args.queries))
    (want, whole_s) = timed(lambda: index.top_k(q, 10))
    rows = {"whole": {"seconds": round(whole_s, 2)}}
    for scheduler in ("threads", "processes"):
        import dask
        with dask.config.set(num_workers=2):
            got, s = timed(lambda: sharded_top_k(q, paths, 10, index.metric, scheduler=scheduler))
        same = bool(np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1]))
        if not same:
            raise SystemExit(f"error: the shards under {scheduler} did not give the whole scan's top 10")
        rows[scheduler] = {"seconds": round(s, 2), "same_as_whole": same}
        print(f"shards: {scheduler}: {s:.2f} s (whole: {whole_s:.2f} s), the same top 10", flush=True)
    result = {"items": index.n, "dim": index.dim, "shards": args.shards, "queries": int(len(q)), "k": 10,
              "runs": rows, "commit": git_commit(), "hardware": hardware(), "versions": versions(("numpy", "dask"))}
    store.write_json(args.out, result)
    ReadmeBlock(args.doc, "shards").fill_body(
        f"Measured by `make bench-dedup` (benchmarks/bench_shards.py, commit `{str(result['commit'])[:12]}`, "
        f"{hardware().get('cpus', '?')} cores): the {index.n:,} vectors cut into {args.shards} `.npy` shards, "
        f"{len(q)} queries' exact top 10 with `repro.search.shards.sharded_top_k` (one Dask task a shard, the parts "
        f"merged): {rows['threads']['seconds']:.2f} s under Dask's threads, {rows['processes']['seconds']:.2f} s under "
        f"its processes (2 workers each), against {whole_s:.2f} s for one scan of the whole folder in one process; "
        "every result the same as the whole scan's, bit for bit.")
    print(f"bench-shards -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
