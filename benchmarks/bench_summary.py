"""One summary of `make bench`: benchmarks/results/summary.json, plain numbers with the machine beside them.

    python -m benchmarks.bench_summary [--couples 20000] [--scores 10000000]

Measures two things itself, each against its reference in this one process, and takes the rest
from the other benchmarks' result files (run them first; a key whose file is missing is null):

* ``kappa_grid_over_single``: the whole kappa search (:data:`repro.settings.KAPPA_GRID`, 10 kappas
  x 5 folds, :func:`repro.core.fit.fit` without kappa) over one training with a given kappa, on the same
  prepared couples (synthetic, the default form), both compiled first;
* ``evaluate_seconds_10m``: the optimal split error and the JS divergence on 10 million
  validation and 10 million test scores (:mod:`repro.core.metrics`);
* ``train_speedup_vs_numpy`` (train.json: one epoch in the default, quadratic form against the
  NumPy reference), ``encode_speedup_vs_fse`` (encode.json), ``extract_speedup_vs_gensim`` and
  ``extract_rss_growth_10x`` (extract.json: the growth of the largest process's memory from one
  dump to ten copies of it), ``neighbours_speedup_vs_numpy`` (neighbours.json: exact top 10 of
  100,000 x 100,000 256-d vectors against the brute-force NumPy a user writes),
  ``token_encode_speedup_vs_wordllama`` (tokens.json: raw texts through WordLlama's token space
  against WordLlama's own ``embed``, tokenisation included), ``second_call_seconds`` (second-call.json:
  a second ``repro similarity`` with the default model and no files, what its first call cached
  read back; target 1.0 s; ``second_call_seconds_best``: the same with ``--pretrained best`` from
  a folder of vectors, its mapped space cached), ``dedup_speedup_vs_semhash``, ``dedup_seconds_1m``
  and ``dedup_recall_1m`` (dedup.json of ``make bench-dedup``: semhash's seconds over ours, ours,
  and the recall of the exact couples, at 1M texts), ``cli_encode_seconds``, ``cli_similarity_seconds``
  and ``cli_neighbours_seconds`` (second-call.json's ``cli``: second calls on three texts with the
  default model; target 0.3 s) with ``cli_numpy_import_seconds`` (``python -c "import numpy"`` timed beside them).

``targets`` holds what the issues ask of a key, where one does (:data:`TARGETS`: a least for a
speed-up, a most for the seconds of :data:`AT_MOST`), and ``met`` whether the measured value reaches it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

from repro import settings
from repro.core import metrics
from repro.core.fit import fit
from repro.core.pairset import from_rows
from repro.io.provenance import git_commit, hardware
from repro.io.store import write_json
from repro.core.prepared import prepare

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: The least value a key must reach (issue 34, item 4: raw texts through a token space at 1.5x WordLlama's embed).
TARGETS = {"token_encode_speedup_vs_wordllama": 1.5,  # issue 34: at least 1.5x WordLlama's embed
           "encode_speedup_vs_fse": 3.0,  # issue 34: at least 3x fse Average with 2 workers
           "neighbours_speedup_vs_numpy": 1.0,  # issue 35: no slower than NumPy's brute force
           "second_call_seconds": 1.0,  # issue 35: a second call under 1.0 s
           "dedup_speedup_vs_semhash": 5.0,  # issue 58: at least 5x semhash at 1M texts
           "dedup_seconds_1m": 60.0,  # issue 58: repro dedup of 1M texts within 60 s
           "dedup_recall_1m": 0.99,  # issue 58: at least 99% of the exact couples
           "cli_encode_seconds": 0.3,  # issue 60: a CLI second call on a few texts within 0.3 s
           "cli_similarity_seconds": 0.3,
           "cli_neighbours_seconds": 0.3}
#: the keys whose target is a most (seconds); every other target is a least (a speed-up)
AT_MOST = ("second_call_seconds", "dedup_seconds_1m", "cli_encode_seconds", "cli_similarity_seconds",
           "cli_neighbours_seconds")


def _couples(p: int, vocab: int = 5000, dim: int = 50, width: int = 20, seed: int = 0):
    """Related couples share their rarest words (the first columns), unrelated ones do not."""
    rng = np.random.default_rng(seed)
    table = rng.normal(size=(vocab, dim)).astype(np.float32)
    table /= np.linalg.norm(table, axis=1, keepdims=True)
    a = rng.integers(0, vocab, (p, width), dtype=np.int32)
    b = rng.integers(0, vocab, (p, width), dtype=np.int32)
    label = (np.arange(p) % 2 == 0).astype(np.int8)
    b[label == 1, :3] = a[label == 1, :3]
    lengths = np.full(p, width, np.int32)
    return table, from_rows(np.concatenate([a, b]), np.concatenate([lengths, lengths]), np.arange(p), p + np.arange(p),
                            label)


def kappa_grid_over_single(couples: int) -> dict:
    table, pairs = _couples(couples)
    prepared = prepare(table, pairs)
    fit(prepared, kappa=160.0, max_epochs=2)  # compile both programs
    fit(prepared, grid=settings.KAPPA_GRID[:2], max_epochs=2)
    t0 = time.perf_counter()
    single = fit(prepared, kappa=160.0)
    t1 = time.perf_counter()
    search = fit(prepared)
    t2 = time.perf_counter()
    return {"single_seconds": t1 - t0, "single_epochs": int(single.epochs), "grid_seconds": t2 - t1,
            "grid": [float(k) for k in settings.KAPPA_GRID], "folds": 5, "couples": couples,
            "ratio": (t2 - t1) / (t1 - t0)}


def evaluate_seconds(n: int) -> float:
    rng = np.random.default_rng(1)
    labels = rng.random(n) < 0.5
    val = rng.normal(size=n) + labels
    test = rng.normal(size=n) + labels
    t0 = time.perf_counter()
    metrics.split(val, labels, test, labels)
    metrics.js_divergence(val, test, labels)
    return time.perf_counter() - t0


def _read(results: str, name: str) -> dict:
    path = os.path.join(results, f"{name}.json")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--couples", type=int, default=20000)
    ap.add_argument("--scores", type=int, default=10_000_000)
    ap.add_argument("--results", default=os.path.join(ROOT, "benchmarks", "results"))
    args = ap.parse_args(argv)
    grid = kappa_grid_over_single(args.couples)
    evaluate = evaluate_seconds(args.scores)
    train, encode, extract, neighbours, tokens, second, dedup = (_read(args.results, n) for n in (
        "train", "encode", "extract", "neighbours", "tokens", "second-call", "dedup"))
    top = (dedup.get("sizes") or [{}])[-1]
    summary = {
        "train_speedup_vs_numpy": train.get("quad_speedup_per_epoch"),
        "kappa_grid_over_single": grid["ratio"],
        "encode_speedup_vs_fse": encode.get("encode_speedup_vs_fse"),
        f"evaluate_seconds_{args.scores // 1_000_000}m": evaluate,
        "extract_speedup_vs_gensim": extract.get("speedup_vs_gensim_default"),
        "extract_rss_growth_10x": (extract.get("memory") or {}).get("growth_max_process"),
        "neighbours_speedup_vs_numpy": neighbours.get("neighbours_speedup_vs_numpy"),
        "token_encode_speedup_vs_wordllama": tokens.get("token_encode_speedup_vs_wordllama"),
        "second_call_seconds": second.get("default_call_s"),
        "second_call_seconds_best": second.get("second_call_s"),
        **{f"cli_{c}_seconds": ((second.get("cli") or {}).get(c) or {}).get("second_call_s")
           for c in ("encode", "similarity", "neighbours")},
        "cli_numpy_import_seconds": (second.get("cli") or {}).get("numpy_s"),
        "dedup_speedup_vs_semhash": dedup.get("dedup_speedup_vs_semhash"),
        "dedup_seconds_1m": (top.get("ours_groups") or {}).get("seconds") if top.get("texts") == 1_000_000 else None,
        "dedup_recall_1m": (top.get("quality") or {}).get("recall_ours") if top.get("texts") == 1_000_000 else None,
        "details": {"kappa_grid": grid, "evaluate_scores": args.scores,
                    "from": {"train": train.get("commit"), "encode": encode.get("commit"),
                             "extract": extract.get("commit"), "neighbours": neighbours.get("commit"),
                             "tokens": tokens.get("commit"), "second-call": second.get("commit"),
                             "dedup": dedup.get("commit")}},
        "commit": git_commit(), "hardware": hardware(),
    }
    summary["targets"], summary["targets_at_most"] = TARGETS, list(AT_MOST)
    summary["met"] = {k: None if summary.get(k) is None else (summary[k] < v if k in AT_MOST else summary[k] >= v)
                      for k, v in TARGETS.items()}
    write_json(os.path.join(args.results, "summary.json"), summary)
    print(json.dumps({k: v for k, v in summary.items() if k not in ("details", "hardware")}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
