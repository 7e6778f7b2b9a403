"""Every stage of the Wikipedia chain on synthetic dumps 1x, 10x and 30x the default corpus.

    python -m benchmarks.bench_scale [--sizes 1,10,30] [--work data/scale] [--ovos WHEEL]
                                    [--out benchmarks/results/scale.json]

For each size, :mod:`synthdump` writes a multistream dump of the default corpus's pages with
the vocabulary grown by Heaps' law, and each stage runs as ``make table1`` runs it, in a
fresh process (:func:`measure.measured`: wall time, the largest process's peak RSS and the
process tree's):

=================  ==============================================================================
extraction         ``repro wikidump`` on the multistream dump, every core; at every size also
                   with 1 worker, for the parallel speed-up (alternately, best of 3 each)
word2vec           ``repro word2vec``, 1 epoch (the paper's), every core
df                 ``repro docfreq``
couples            ``repro pairs --setting wikivar`` (width 30, the larger setting)
kappa_search       ``experiments.train_weights --loss median``: prepare, the 10 x 5 kappa
                   search and the final run (the default data form: the quadratic one here)
kappa_search_gather  the same with ``--form gather --max-epochs 2`` (the form the paper's
                   3M training couples take under the 4 GB budget), 1x and 10x only
contrastive        ``experiments.train_weights --loss contrastive``
scoring            ``experiments.score --setting wikivar`` (every row of Table 1's column)
=================  ==============================================================================

Then, per stage, the peak-RSS growth from 1x to 10x (and 30x), and for the stages whose state
grows with their couples a least-squares line RSS = a + b couples (b: bytes per couple) and
for word2vec and df one against the vocabulary; ``scale_doc.py`` turns it into docs/SCALE.md.
A benchmark, not a test: ``make scale``. Generated data live in ``--work`` (reused when the
dump's parameters are unchanged).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

import repro  # noqa: F401, I001 - the kernel pins, before NumPy loads

import numpy as np

from benchmarks import synthdump
from benchmarks.bench_extract import xml_bytes
from benchmarks.measure import measured
from repro.io.provenance import git_commit, hardware
from repro.io.store import write_json

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PY = sys.executable
SETTING = "wikivar"
GROWING = {"couples": "couples", "kappa_search": "train_couples", "kappa_search_gather": "train_couples",
           "contrastive": "train_couples", "scoring": "scored_couples"}
BY_VOCABULARY = ("word2vec", "df")
STREAMING = ("extraction", "df")


def synthetic_dump(work: str, copies: int, ovos: str | None, seed: int) -> tuple[str, dict, float]:
    """The size's dump (made unless one with the same parameters is there) and its summary."""
    folder = os.path.join(work, f"x{copies}")
    meta = os.path.join(folder, "dump.json")
    if os.path.isfile(meta):
        with open(meta) as f:
            s = json.load(f)
        if s["copies"] == copies and s["seed"] == seed and s["ovos"] == bool(ovos):
            return folder, s, 0.0
    t = time.perf_counter()
    s = synthdump.make(copies, folder, ovos, seed)
    return folder, s, time.perf_counter() - t


def _read(path: str) -> dict:
    with open(path) as f:
        return json.load(f)


def run_size(folder: str, cores: int, seed: int, gather: bool, repeats: int = 3) -> dict:
    """Every stage on one size's dump; {stage: measured} plus the counts the ratios need."""
    dump = os.path.join(folder, synthdump.DUMP_NAME)
    par, w2v, df = (os.path.join(folder, x) for x in ("paragraphs.tsv", "w2v", "df.npz"))
    r = {}

    def stage(name, *cmd):
        r[name] = measured([PY, *cmd], f"{name} at {folder}")
        print(f"  {name:20s} {r[name]['seconds']:8.2f} s  {r[name]['max_process_rss_mb']:8.1f} MB "
              f"(tree {r[name]['tree_rss_mb']:.1f} MB)", flush=True)

    # 1 worker and every core alternately, the best of ``repeats`` each: a shared machine adds noise
    for _ in range(repeats):
        for name, workers in (("extraction_1_worker", 1), ("extraction", cores)):
            m = measured([PY, "-m", "repro", "wikidump", "--dump", dump, "--out", par, "--workers", workers],
                         f"{name} at {folder}")
            runs = r.get(name, {}).get("all_seconds", []) + [m["seconds"]]
            if name not in r or m["seconds"] < r[name]["seconds"]:
                r[name] = m
            r[name]["all_seconds"] = runs
    for name in ("extraction_1_worker", "extraction"):
        print(f"  {name:20s} {r[name]['seconds']:8.2f} s  {r[name]['max_process_rss_mb']:8.1f} MB "
              f"(best of {r[name]['all_seconds']})", flush=True)
    stage("word2vec", "-m", "repro", "word2vec", "--paragraphs", par, "--out", w2v, "--epochs", 1,
          "--workers", cores, "--seed", seed)
    stage("df", "-m", "repro", "docfreq", "--paragraphs", par, "--vocab", os.path.join(w2v, "vocab.txt"), "--out", df)
    stage("couples", "-m", "repro", "pairs", "--paragraphs", par, "--vocab", os.path.join(w2v, "vocab.txt"),
          "--df", df, "--setting", SETTING, "--seed", seed, "--out", os.path.join(folder, SETTING))
    models = os.path.join(folder, "models")
    os.makedirs(models, exist_ok=True)
    train = ["-m", "experiments.train_weights", "--data", folder, "--setting", SETTING, "--seed", seed]
    stage("kappa_search", *train, "--loss", "median", "--out", os.path.join(models, f"{SETTING}-median.npz"))
    if gather:
        stage("kappa_search_gather", *train, "--loss", "median", "--form", "gather", "--max-epochs", 2,
              "--out", os.path.join(folder, "gather-median.npz"))
    stage("contrastive", *train, "--loss", "contrastive", "--out", os.path.join(models, f"{SETTING}-contrastive.npz"))
    os.makedirs(os.path.join(folder, "scores"), exist_ok=True)
    stage("scoring", "-m", "experiments.score", "--data", folder, "--setting", SETTING,
          "--out", os.path.join(folder, "scores", f"{SETTING}.npz"))

    paragraphs = _read(os.path.join(folder, "paragraphs.json"))
    pairs = _read(os.path.join(folder, SETTING, "summary.json"))
    model = np.load(os.path.join(models, f"{SETTING}-median.npz"))
    contrastive = np.load(os.path.join(models, f"{SETTING}-contrastive.npz"))
    with open(os.path.join(w2v, "vocab.txt"), encoding="utf-8") as f:
        vocab = sum(1 for _ in f)
    words: set[str] = set()  # distinct words of the corpus, against the dump's Heaps' law target
    with open(par, encoding="utf-8") as f:
        for line_ in f:
            words.update(line_.split("\t", 1)[1].split())
    sizes = pairs["sizes"]
    counts = {
        "xml_bytes": None, "tokens": paragraphs["tokens"], "paragraphs": paragraphs["paragraphs"],
        "vocabulary": vocab, "distinct_words": len(words), "related": pairs["related_pairs_found"], "couples": sum(sizes.values()),
        "train_couples": sizes["train"], "scored_couples": sizes["validation"] + sizes["test"],
        "kappa": float(model["kappa"]), "final_epochs": int(model["epochs"]),
        "search_epochs_max": int(np.max(model["cv_epochs"])), "search_epochs_sum": int(np.sum(model["cv_epochs"])),
        "contrastive_epochs": int(contrastive["epochs"]),
        "median_seconds": {k: round(float(model[f"{k}_seconds"]), 2) for k in ("prepare", "cv", "train")},
    }
    return {"stages": r, "counts": counts}


def line(xs, ys) -> dict:
    """Least-squares y = a + b x (a in MB, b in bytes per unit of x)."""
    b, a = np.polyfit(np.asarray(xs, float), np.asarray(ys, float), 1)
    return {"intercept_mb": round(float(a), 1), "bytes_per_unit": round(float(b) * 2 ** 20, 1)}


def analyse(sizes: list[int], runs: dict) -> dict:
    first, ten = sizes[0], 10 if 10 in sizes else sizes[-1]
    out = {"growth": {}, "per_couple": {}, "per_word": {}}
    for name in runs[first]["stages"]:
        rss = {k: runs[k]["stages"][name]["max_process_rss_mb"] for k in sizes if name in runs[k]["stages"]}
        tree = {k: runs[k]["stages"][name]["tree_rss_mb"] for k in sizes if name in runs[k]["stages"]}
        out["growth"][name] = {f"{k}x": round(rss[k] / rss[first], 3) for k in rss if k != first}
        out["growth"][name].update({f"{k}x_tree": round(tree[k] / tree[first], 3) for k in tree if k != first})
        key = GROWING.get(name)
        if key and len(rss) >= 3:
            out["per_couple"][name] = dict(line([runs[k]["counts"][key] for k in rss], list(rss.values())), of=key)
        if name in BY_VOCABULARY and len(rss) >= 3:
            out["per_word"][name] = line([runs[k]["counts"]["vocabulary"] for k in rss], list(rss.values()))
    out["streaming_10x_growth"] = {s: out["growth"][s].get(f"{ten}x") for s in STREAMING}
    out["streaming_ok"] = all(v is not None and v <= 1.5 for v in out["streaming_10x_growth"].values())
    out["extraction_speedup"] = {f"{k}x": round(runs[k]["stages"]["extraction_1_worker"]["seconds"]
                                               / runs[k]["stages"]["extraction"]["seconds"], 3) for k in sizes}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1,10,30")
    ap.add_argument("--work", default=os.path.join(ROOT, "data", "scale"))
    ap.add_argument("--ovos", default=None, help="the ovos wheel (the default corpus's leads); without it, gensim's pages alone")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--gather-sizes", default="1,10", help="sizes that also run kappa_search_gather")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "scale.json"))
    args = ap.parse_args(argv)
    sizes = sorted(int(x) for x in args.sizes.split(","))
    gather_sizes = {int(x) for x in args.gather_sizes.split(",") if x}
    cores = os.cpu_count() or 1
    started = time.time()
    runs, dumps = {}, {}
    for k in sizes:
        folder, s, gen_s = synthetic_dump(args.work, k, args.ovos, args.seed)
        s["generated_s"] = round(gen_s, 2)
        dumps[k] = s
        print(f"{k}x: {s['compressed_bytes'] / 1e6:.1f} MB compressed ({folder})", flush=True)
        runs[k] = run_size(folder, cores, args.seed, k in gather_sizes)
        runs[k]["counts"]["compressed_bytes"] = s["compressed_bytes"]
        runs[k]["counts"]["xml_bytes"] = xml_bytes(os.path.join(folder, synthdump.DUMP_NAME))
    result = {
        "sizes": sizes, "setting": SETTING, "seed": args.seed, "cores": cores, "w2v_workers": cores, "w2v_epochs": 1,
        "dumps": {f"{k}x": v for k, v in dumps.items()},
        "runs": {f"{k}x": v for k, v in runs.items()},
        "analysis": analyse(sizes, runs),
        "minutes": round((time.time() - started) / 60, 1),
        "commit": git_commit(), "python": platform.python_version(), **hardware(),
    }
    write_json(args.out, result)
    a = result["analysis"]
    print(f"streaming stages' peak RSS growth to 10x: {a['streaming_10x_growth']} (<= 1.5: {a['streaming_ok']})")
    print(f"extraction speed-up, {cores} workers over 1: {a['extraction_speedup']}")
    for name, fit in a["per_couple"].items():
        print(f"{name}: {fit['bytes_per_unit']:.0f} bytes per {fit['of']} + {fit['intercept_mb']} MB")
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
