"""Exact neighbours: repro.search.neighbours.top_k against the brute-force NumPy a user writes, in one process.

    python -m benchmarks.bench_neighbours                                      # make bench: 100,000 x 100,000, 256-d
    python -m benchmarks.bench_neighbours --items 5000 --queries 500 --dim 32  # a quick check, seconds

Items and queries are float32 standard normal vectors (seed 0; repro encode writes float32), and
both find, for every query, the ``--k`` items of highest cosine (the shipped model's metric):

* **baseline**, as a user writes it: normalise the rows once, then for each block of
  ``--baseline-block`` queries, the block's scores against every item (one float32 matrix
  product), ``np.argpartition`` of each row for its top k, and ``np.argsort`` of those k;
* **ours**: :func:`repro.search.neighbours.top_k` with its default blocks (1,024 queries x 8,192
  items): the same products, a running top k per query, the candidates scored exactly in
  float64 (ties by the lower index).

The queries are split in two halves, timed in the order ours, baseline, baseline, ours, so that
a change of the shared machine's load weighs on both alike; a small warm-up of both runs first.
Agreement: the share of queries whose k ids are the same, in the same order (the baseline ranks
by float32 scores, so a near tie below float32 rounding may swap two of them), and the largest
difference of their scores. Peak memory (``tracemalloc``, which sees NumPy's arrays) of each on
the first ``--memory-queries`` queries against every item.

Writes benchmarks/results/neighbours.json: ``neighbours_speedup_vs_numpy`` (the baseline's
seconds over ours), both times, the agreement and the peaks.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc

from repro.io import store  # first: the kernel pins (repro.pins) apply before NumPy starts, as under make

import numpy as np
from repro.search.neighbours import CORPUS_BLOCK, QUERY_BLOCK, top_k
from repro.io.provenance import git_commit, hardware, versions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def baseline(queries: np.ndarray, items: np.ndarray, k: int, block: int) -> tuple[np.ndarray, np.ndarray]:
    """Normalise, matmul, argpartition, argsort: the brute force a user writes (float32 throughout)."""
    q = queries / np.linalg.norm(queries, axis=1, keepdims=True)
    x = items / np.linalg.norm(items, axis=1, keepdims=True)
    ids, scores = np.empty((len(q), k), np.int64), np.empty((len(q), k), np.float32)
    for lo in range(0, len(q), block):
        s = q[lo:lo + block] @ x.T
        top = np.argpartition(s, s.shape[1] - k, axis=1)[:, s.shape[1] - k:]
        top_scores = np.take_along_axis(s, top, axis=1)
        order = np.argsort(-top_scores, axis=1)
        ids[lo:lo + block] = np.take_along_axis(top, order, axis=1)
        scores[lo:lo + block] = np.take_along_axis(top_scores, order, axis=1)
    return ids, scores


def timed(fn, *args) -> tuple[float, tuple]:
    t0 = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t0, out


def peak_mb(fn, *args) -> float:
    """Largest memory held at once while ``fn`` runs, in MB (tracemalloc's peak)."""
    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def race(queries, items, k: int, block: int) -> dict:
    """Both on two halves of the queries, in the order ours, baseline, baseline, ours."""
    half = len(queries) // 2 or len(queries)
    parts = [queries[:half], queries[half:]] if half < len(queries) else [queries]
    ours_s = base_s = 0.0
    ours, base = [None] * len(parts), [None] * len(parts)
    for i, part in enumerate(parts):
        steps = [("ours", top_k, (part, items, k, "cosine")), ("base", baseline, (part, items, k, block))]
        for name, fn, args in (steps if i % 2 == 0 else steps[::-1]):
            seconds, out = timed(fn, *args)
            print(f"{name}, queries part {i + 1}: {seconds:.1f} s", flush=True)
            if name == "ours":
                ours_s, ours[i] = ours_s + seconds, out
            else:
                base_s, base[i] = base_s + seconds, out
    ids, scores = (np.concatenate([o[j] for o in ours]) for j in (0, 1))
    b_ids, b_scores = (np.concatenate([b[j] for b in base]) for j in (0, 1))
    return {"ours_s": ours_s, "baseline_s": base_s, "same_ids_share": float((ids == b_ids).all(axis=1).mean()),
            "largest_score_difference": float(np.abs(scores - b_scores).max())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--baseline-block", type=int, default=1024, help="queries per block of the baseline")
    ap.add_argument("--memory-queries", type=int, default=2048, help="queries of the peak-memory runs")
    ap.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results", "neighbours.json"))
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    items = rng.standard_normal((args.items, args.dim), dtype=np.float32)
    queries = rng.standard_normal((args.queries, args.dim), dtype=np.float32)
    small = min(args.items, 2000)
    top_k(queries[:50], items[:small], min(args.k, small), "cosine")  # warm-up: imports, BLAS threads
    baseline(queries[:50], items[:small], min(args.k, small), args.baseline_block)
    load_before = os.getloadavg()
    result = race(queries, items, args.k, args.baseline_block)
    load_after = os.getloadavg()
    few = queries[:args.memory_queries]
    memory = {"queries": len(few), "ours_mb": peak_mb(top_k, few, items, args.k, "cosine"),
              "baseline_mb": peak_mb(baseline, few, items, args.k, args.baseline_block),
              "inputs_mb": (items.nbytes + queries.nbytes) / 1e6}
    speedup = result["baseline_s"] / result["ours_s"]
    out = {"items": args.items, "queries": args.queries, "dim": args.dim, "k": args.k, "metric": "cosine",
           "baseline_block": args.baseline_block, "blocks": {"queries": QUERY_BLOCK, "items": CORPUS_BLOCK},
           **result, "neighbours_speedup_vs_numpy": speedup, "peak_memory": memory,
           "load_average_before": load_before, "load_average_after": load_after,
           "commit": git_commit(), **hardware(), "versions": versions(("numpy",))}
    store.write_json(args.out, out)
    print(f"neighbours: {args.queries:,} x {args.items:,} items, {args.dim}-d, k = {args.k}: ours "
          f"{result['ours_s']:.1f} s, "
          f"NumPy brute force {result['baseline_s']:.1f} s ({speedup:.2f}x); same ids for "
          f"{result['same_ids_share']:.2%} of the queries; peak memory {memory['ours_mb']:.0f} MB against "
          f"{memory['baseline_mb']:.0f} MB -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
