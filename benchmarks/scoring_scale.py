"""Scoring at the paper's vocabulary: a synthetic 2.2M x 400 table, couples, and one Table 1 row timed.

The pieces of :mod:`benchmarks.bench_scoring`. Every row of Table 1 (:data:`repro.settings.METHODS`:
the eight baselines of section 5.1, the learned weights of section 3, the peers SIF, uSIF and the
Zipfian and uniform whitening, and the learned weights with common components removed) is scored
here exactly as ``experiments.score`` scores it: an :class:`repro.evaluate.scoring.Encoding` per row (the
peers' chosen by :func:`repro.evaluate.peers.select` on validation couples), both metrics of
:data:`repro.settings.TABLE_METRICS` at once by :meth:`repro.evaluate.scoring.Column.score`, the one
scoring surface. Only the inputs are synthetic, since the cost does not depend on their values:

* the table: ``vocab`` x ``dim`` float32 unit rows of a seeded normal, written block by block to a
  ``.npy`` file and memory-mapped (:func:`write_table`; 3.5 GB at the paper's size);
* the couples: the wikivar setting's shape (each text ``min_n``..``max_n`` = 10..30 words, drawn
  uniformly, width 30), word ids uniform over the vocabulary (no Zipfian locality: every gather
  may miss the cache, the worst case), half related (:func:`couples`);
* the corpus's word counts (for SIF, uSIF, Zipfian whitening) a Zipf law, count(rank r) = C / r,
  and the idf log(N / df) with df the same law (:func:`corpus`); the learned weights a decreasing
  positive curve, one per idf rank (``n_max`` = 30).

:func:`measure_row` times one row's stages apart, so that those that grow with the table are named:
``table_s`` (the checks of :class:`repro.evaluate.scoring.Table`: every value finite), ``device_s`` (the
table's copy to the JAX device, for the rows JAX computes), ``setup_s`` (a peer's
:func:`repro.evaluate.peers.select`: its word weights, the whitening's moments and transformed tables, the
common components on the distinct training texts, the validation couples under every grid entry)
and ``warmup_s`` (the first chunk of :data:`repro.evaluate.scoring.CHUNK` couples alone: the compile of the JAX
rows, a fixed cost) and ``score_s`` (``couples`` couples scored under each chosen encoding).
"""

from __future__ import annotations

import json
import os
import time

import repro  # noqa: F401, I001 - the kernel pins, before NumPy loads

import numpy as np

from repro import settings
from repro.core import baselines, pairset
from repro.evaluate import peers, scoring
from repro.core.pairset import PairSet, from_rows

PAPER_VOCAB = 2_200_000
PAPER_DIM = 400
SETTING = "wikivar"
BLOCK = 65_536  # rows of the table written at a time
TRAIN_COUPLES = pairset.COMPONENT_TEXTS // 2  # their distinct texts: the most the components are fitted on


def write_table(path: str, vocab: int, dim: int, seed: int = 0) -> np.ndarray:
    """A (vocab, dim) float32 table of unit rows, memory-mapped from ``path``; written block by
    block (never whole in memory) unless a file of that shape and seed is there."""
    meta = path + ".json"
    want = {"vocab": vocab, "dim": dim, "seed": seed}
    if os.path.isfile(path) and os.path.isfile(meta):
        with open(meta) as f:
            if json.load(f) == want:
                return np.load(path, mmap_mode="r")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(vocab, dim))
    rng = np.random.default_rng(seed)
    for start in range(0, vocab, BLOCK):
        x = rng.standard_normal((min(BLOCK, vocab - start), dim), dtype=np.float32)
        out[start:start + len(x)] = x / np.linalg.norm(x, axis=1, keepdims=True)
    out.flush()
    del out
    with open(meta, "w") as f:
        json.dump(want, f)
    return np.load(path, mmap_mode="r")


def couples(n: int, vocab: int, seed: int = 0) -> PairSet:
    """``n`` wikivar-shaped couples (module docstring): half related, word ids 1..vocab-1."""
    cfg = settings.setting(SETTING)
    rng = np.random.default_rng(seed)
    lens = rng.integers(cfg.min_n, cfg.max_n + 1, size=(2, n)).astype(np.int32)
    rows = rng.integers(1, vocab, size=(2, n, cfg.width), dtype=np.int32)
    rows[np.arange(cfg.width)[None, None, :] >= lens[..., None]] = 0
    label = (np.arange(n) < n // 2).astype(np.int8)
    return from_rows(rows.reshape(2 * n, cfg.width), lens.reshape(2 * n), np.arange(n), n + np.arange(n), label)


def corpus(vocab: int, docs: int = 6_000_000) -> tuple[np.ndarray, np.ndarray]:
    """(counts, idf) of a Zipfian corpus of ``vocab`` words: count = 10^9 / rank, df = docs / rank
    (at least 1), idf = log(docs / df)."""
    rank = np.arange(1, vocab + 1, dtype=np.float64)
    df = np.maximum(np.floor(docs / rank), 1.0)
    return np.floor(1e9 / rank) + 1, np.log(docs / df)


def learned_weights(n_max: int) -> np.ndarray:
    """(n_max,) positive weights falling with the idf rank, the shape the paper's Figure 2 shows."""
    return np.linspace(1.5, 0.2, n_max).astype(np.float32)


def row_encodings(method, column, counts, idf) -> tuple[list, dict]:
    """The passes that score ``method``'s couples, as ``experiments.score`` makes them
    ([(:class:`repro.evaluate.scoring.Pass`, [(metric, set index)])], :func:`repro.evaluate.peers.passes`;
    the peers chosen per metric on the validation couples of the ``column``, a
    :class:`repro.evaluate.scoring.Column`, one pass per word weighting chosen), and facts for the
    projection: ``grid_weightings`` (word weightings a peer's select scores the validation couples
    under) and the chosen hyperparameters."""
    cfg = settings.setting(SETTING)
    weights = learned_weights(cfg.n_max)
    if method in settings.LEARNED + settings.BASELINES:
        enc = (scoring.Encoding("rank", weights) if method in settings.LEARNED
               else scoring.Encoding(method, idf if method in baselines.IDF_METHODS else None))
        return [(scoring.Pass(enc, None, settings.TABLE_METRICS), [(m, 0) for m in settings.TABLE_METRICS])], \
            {"grid_weightings": 0}
    name, w = ("learned", weights) if method in settings.BEYOND else (method, None)
    picked = peers.select(name, column, counts, w, metrics=settings.TABLE_METRICS)
    chosen = {tuple(sorted(params.items())): None for _, params, _ in picked.values()}
    weightings = {tuple(sorted((k, v) for k, v in p.items() if k != "components")) for p in peers.GRIDS[name]}
    return peers.passes(name, picked), {"grid_weightings": len(weightings), "chosen": [dict(k) for k in chosen]}


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def measure_row(method: str, table_path: str, vocab: int, n: int, validation_n: int, seed: int = 0) -> dict:
    """One row of Table 1 on the first ``vocab`` words of the table at ``table_path``: the seconds
    of each stage (module docstring), ``n`` couples scored, and the rate in couples per second."""
    import jax

    host = np.load(table_path, mmap_mode="r")[:vocab]
    counts, idf = corpus(vocab)
    train, validation, pairs = (couples(k, vocab, seed + i) for i, k in enumerate((TRAIN_COUPLES, validation_n, n)))
    out = {"method": method, "vocab": vocab, "dim": int(host.shape[1]), "couples": n, "validation_couples": validation_n}
    out["table_s"], table = _timed(lambda: scoring.Table(host))
    on_device = method in settings.LEARNED + settings.BEYOND + ("sif", "usif")
    out["device_s"] = _timed(lambda: jax.block_until_ready(table.device))[0] if on_device else 0.0
    column = scoring.Column(table, {"validation": validation, "first": pairs.take(slice(0, scoring.CHUNK)),
                                    "pairs": pairs}, train)
    out["setup_s"], (encs, facts) = _timed(lambda: row_encodings(method, column, counts, idf))
    out.update(facts, scorings=len(encs))

    def score(split):
        return column.score([p for p, _ in encs], splits=(split,))
    # one chunk first: the compile (JAX rows) and first touches, a fixed cost apart from the rate
    out["warmup_s"] = _timed(lambda: score("first"))[0]
    out["score_s"] = _timed(lambda: score("pairs"))[0]
    out["couples_per_s"] = n * len(encs) / out["score_s"]
    out["backend"] = jax.default_backend()
    return {k: round(v, 6) if isinstance(v, float) else v for k, v in out.items()}


def projection(rows: dict, couples_n: float, validation_share: float) -> dict:
    """Seconds per row to score ``couples_n`` couples of one column at the measured rates: the
    table-wide stages, a peer's setup less its measured validation scoring, then every validation
    couple under each of its grid's weightings and every couple under each chosen encoding."""
    out = {}
    for m, r in rows.items():
        rate = r["couples_per_s"] / r["scorings"]  # couples per second under one encoding
        val_measured = r["grid_weightings"] * r["validation_couples"] / rate
        setup = max(0.0, r["setup_s"] - val_measured) + r["grid_weightings"] * validation_share * couples_n / rate
        out[m] = r["table_s"] + r["device_s"] + r["warmup_s"] + setup + r["scorings"] * couples_n / rate
    return out


def run_rows(methods, table_path: str, vocabs: dict, n: int, validation_n: int, work: str, seed: int = 0) -> dict:
    """Each row in a fresh process (``python -m benchmarks.bench_scoring --row``) at each of its
    vocabulary sizes ``vocabs[method]``: {method: [the row's stages, peak RSS and wall time]}."""
    import sys

    from benchmarks.measure import measured

    out = {}
    for m in methods:
        for v in vocabs[m]:
            path = os.path.join(work, f"row-{m}-{v}.json")
            cmd = [sys.executable, "-m", "benchmarks.bench_scoring", "--row", m, "--table", table_path, "--vocab", v,
                   "--couples", n, "--validation", validation_n, "--seed", seed, "--out", path]
            run = measured(cmd, f"scoring row {m} at {v} words")
            with open(path) as f:
                r = dict(json.load(f), peak_rss_mb=run["max_process_rss_mb"], wall_s=run["seconds"])
            out.setdefault(m, []).append(r)
            print(f"  {m:18s} {v:>9,} words: table {r['table_s']:6.2f} s, device {r['device_s']:5.2f} s, setup "
                  f"{r['setup_s']:7.2f} s, {r['couples_per_s']:9,.0f} couples/s, peak {r['peak_rss_mb']:8.0f} MB", flush=True)
    return out


def at_vocab(runs: list, vocab: int) -> dict:
    """The row's stages at ``vocab`` words: measured there, or the line through its two largest
    measured sizes (table-sized stages and peak RSS grow linearly with the vocabulary), marked."""
    exact = [r for r in runs if r["vocab"] == vocab]
    if exact:
        return dict(exact[0], projected_from=None)
    a, b = sorted(runs, key=lambda r: r["vocab"])[-2:]
    f = (vocab - a["vocab"]) / (b["vocab"] - a["vocab"])
    out = dict(b, vocab=vocab, projected_from=[a["vocab"], b["vocab"]])
    for k in ("table_s", "device_s", "setup_s", "warmup_s", "peak_rss_mb"):
        out[k] = round(max(0.0, a[k] + f * (b[k] - a[k])), 3)
    return out
