"""Encoding speed: ``Encoder.transform`` against fse Average (1 and 2 workers), side by side in one run.

    python -m benchmarks.bench_encode --fse-venv .bench-venv-fse     # make bench; about 2 minutes on 2 cores

For each case, 100,000 texts of 20 words and 400-d unit vectors are written once (seed 0) to a
temporary folder: ``vocab.txt`` + ``vectors.npy`` and ``texts.txt``. Every process reads the same
files, splits the lines into token lists, and times token lists in, vectors out, the lookup of
every word included, after one untimed warm-up on all the texts (which loads the compiled loops
of :mod:`repro.words.numbakernels`, where numba is installed). Rounds are interleaved: ours (2 threads,
in this process, with ``REPRO_NUMBA=1``: the compiled loops, as in any process once it has
encoded 10 million tokens), ours on the NumPy path (``REPRO_NUMBA=0``, the same bits; the
reference for the compiled loops, and what a process runs before), fse with 1 worker, fse with
2 workers (each a subprocess of the side environment, timing inside itself:
benchmarks/fse_average.py). Each gets one untimed call at the start of its turn in every round,
as fse's fresh process makes its own: the first call after another process has freed its memory
pays for fresh pages (160 MB of output; measured on the 2-core Xeon: 0.26-0.5 s against 0.17-0.18 s
for the next calls), and that cost belongs to neither method. Words are drawn with Zipf frequencies (p ~ 1/rank, the rank
order shuffled against the row order), from

* a corpus-sized vocabulary of 7,800 words (the word2vec vocabulary of the 106-article corpus,
  `QUICK=1`, as in the issue's measurement), and
* a 200,000-word table (its 320 MB do not fit in any cache).

The check: with every weight 1 the paper's model is the plain mean, which fse Average computes;
the first 1,000 vectors of both must agree to float32 rounding. Writes
benchmarks/results/encode.json (``encode_speedup_vs_fse``: ours against fse with 2 workers, the
smaller over the cases) with the load average of the machine before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from repro.io import store
from repro.words import numbakernels
from repro.encode.encoder import SHIPPED, Encoder
from repro.io.provenance import git_commit, hardware, versions
from repro.words.docfreq import DocFreq

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_case(folder: str, vocab: int, n_texts: int, length: int, dim: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(vocab)]
    m = rng.standard_normal((vocab, dim)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    store.save_vectors(folder, words, m)
    p = 1.0 / np.arange(1, vocab + 1)
    ids = rng.permutation(vocab)[rng.choice(vocab, size=(n_texts, length), p=p / p.sum())]
    store.write_text(os.path.join(folder, "texts.txt"), "".join(" ".join(words[i] for i in row) + "\n" for row in ids))


def read_case(folder: str):
    words, matrix = store.load_vectors(folder)
    with open(os.path.join(folder, "texts.txt"), encoding="utf-8") as f:
        texts = [line.split() for line in f]
    return words, np.asarray(matrix), texts


def time_ours(enc: Encoder, texts, repeats: int, compiled: str = "") -> list[float]:
    """Seconds of ``repeats`` calls; ``compiled``: ``REPRO_NUMBA`` for them ("0": the NumPy path)."""
    old = os.environ.get(numbakernels.ENV)
    os.environ[numbakernels.ENV] = compiled
    try:
        out = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            enc.transform(texts)
            out.append(time.perf_counter() - t0)
        return out
    finally:
        if old is None:
            del os.environ[numbakernels.ENV]
        else:
            os.environ[numbakernels.ENV] = old


def run_fse(python: str, folder: str, workers: int, repeats: int) -> dict:
    proc = subprocess.run([python, os.path.join(ROOT, "benchmarks", "fse_average.py"), folder,
                           "--workers", str(workers), "--repeats", str(repeats)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"error: fse ({python}) failed: {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def measure_case(python: str, vocab: int, args) -> dict:
    """One vocabulary size: ours and fse Average with 1 and 2 workers, ``args.rounds`` interleaved
    rounds of ``args.repeats``, and the plain mean checked against fse's vectors."""
    with tempfile.TemporaryDirectory(prefix="bench-encode-") as folder:
        make_case(folder, vocab, args.texts, args.length, args.dim, seed=0)
        words, matrix, texts = read_case(folder)
        freq = DocFreq.from_corpus(texts[:10_000])
        enc = Encoder.pretrained((words, matrix), freq, normalize=False, workers=2, model="paper")  # as many as fse's
        mean = Encoder((words, matrix), freq, weights=np.ones(30, np.float32), normalize=False)
        time_ours(enc, texts, 1, compiled="1")  # warm-up: the coefficient table, the thread pool, the compiled loops
        times = {"ours": [], "ours_numpy": [], "fse_1": [], "fse_2": []}
        fast = None
        for _ in range(args.rounds):
            for name, compiled in (("ours", "1"), ("ours_numpy", "0")):
                time_ours(enc, texts, 1, compiled)  # this turn's untimed call, as fse's process makes one
                times[name] += time_ours(enc, texts, args.repeats, compiled)
            for w in (1, 2):
                r = run_fse(python, folder, w, args.repeats)
                times[f"fse_{w}"] += r["seconds"]
                fast = r["fast_version"]
        check = np.load(os.path.join(folder, "fse-2.npy"))
        diff = float(np.abs(mean.transform(texts[: len(check)]) - check).max())
    med = {k: statistics.median(v) for k, v in times.items()}
    return {"vocab": vocab, "texts": args.texts, "length": args.length, "dim": args.dim,
            "seconds": times, "median_s": med,
            "texts_per_s": {k: args.texts / v for k, v in med.items()},
            "speedup_vs_fse_1": med["fse_1"] / med["ours"], "speedup_vs_fse_2": med["fse_2"] / med["ours"],
            "speedup_vs_numpy_path": med["ours_numpy"] / med["ours"],
            "mean_check_max_abs_diff": diff, "fse_fast_version": fast}


def fse_versions(python: str) -> dict:
    """The versions of fse, gensim and numpy in the side environment."""
    return dict(zip(("fse", "gensim", "numpy"), subprocess.run(
        [python, "-c", "from importlib.metadata import version as v; print(v('fse'), v('gensim'), v('numpy'))"],
        capture_output=True, text=True).stdout.split()))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fse-venv", default=".bench-venv-fse")
    ap.add_argument("--texts", type=int, default=100_000)
    ap.add_argument("--length", type=int, default=20)
    ap.add_argument("--dim", type=int, default=400)
    ap.add_argument("--vocabs", default="7800,200000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results", "encode.json"))
    args = ap.parse_args(argv)
    python = os.path.join(args.fse_venv, "bin", "python")
    if not os.path.exists(python):
        print(f"error: {python}: no such file (make bench builds the fse side environment)", file=sys.stderr)
        return 1
    load_before = os.getloadavg()
    cases = {}
    for vocab in (int(v) for v in args.vocabs.split(",")):
        case = cases[str(vocab)] = measure_case(python, vocab, args)
        diff = case["mean_check_max_abs_diff"]
        print(f"vocab {vocab:,}: ours {case['texts_per_s']['ours']:,.0f} texts/s, fse 1 worker "
              f"{case['texts_per_s']['fse_1']:,.0f}, 2 workers {case['texts_per_s']['fse_2']:,.0f} -> "
              f"{case['speedup_vs_fse_2']:.2f}x fse (2 workers); mean check {diff:.2g}", flush=True)
        if diff > 1e-5:
            print(f"error: the plain mean differs from fse Average by {diff:g}", file=sys.stderr)
            return 1
    result = {
        "encode_speedup_vs_fse": min(c["speedup_vs_fse_2"] for c in cases.values()),
        "cases": cases, "distribution": "Zipf (p ~ 1/rank), rank order shuffled against the rows",
        "weights": os.path.relpath(SHIPPED, ROOT), "rounds": args.rounds, "repeats": args.repeats,
        "kernels": f"numba {numbakernels.load().version}" if numbakernels.load() is not None else "numpy",
        "load_average_before": load_before, "load_average_after": os.getloadavg(),
        "commit": git_commit(), **hardware(), "versions": versions(("jax", "numpy", "scipy", "numba")),
        "fse": fse_versions(python),
    }
    store.write_json(args.out, result)
    print(f"encode: {result['encode_speedup_vs_fse']:.2f}x fse Average with 2 workers (the smaller case); "
          f"load {load_before[0]:.2f} -> {result['load_average_after'][0]:.2f}; -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
