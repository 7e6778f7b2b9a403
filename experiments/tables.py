"""The paper's tables from the score files: results/table<N>.{md,csv,tex,json} and the README.

    python -m experiments.tables --table 1 --data data --results results [--readme README.md --started EPOCH]

The columns of table N are the settings of ``repro.settings.TABLE_SETTINGS[N]``, the rows the
methods of ``repro.settings.METHODS``; the paper's own table is printed beside ours.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import time

import pandas as pd

from repro import report, settings, store
from repro.cli import run
from repro.provenance import git_commit, hardware, versions
from repro.settings import PAPER_TABLE1 as PAPER
from repro.store import read_json, read_json_if_any as _optional_json, write_json, write_text

TITLES = {s: settings.SETTINGS[s].title for s in settings.TABLE_SETTINGS[1]}
START, END = "<!-- table1:start -->", "<!-- table1:end -->"


def paper_markdown() -> str:
    lines = ["| Method | " + " | ".join(f"{TITLES[s]}: split error | JS" for s in TITLES) + " |",
             "|---|" + "---:|---:|" * len(TITLES)]
    for m in report.METHODS:
        cells = [f"{100 * PAPER[m][s][0]:.2f}% | {PAPER[m][s][1]:.4f}" for s in TITLES]
        lines.append(f"| {report.LABELS[m]} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def provenance(args, results) -> dict:
    layout = store.Layout(args.data)
    models = {}
    for path in sorted(glob.glob(layout.model("*", "*"))):
        models[os.path.basename(path)[:-4]] = store.model_summary(store.load_model(path))
    scores = {s: _optional_json(os.path.splitext(layout.scores(s))[0] + ".json") for s in results}
    return {
        "commit": git_commit(), "seed": args.seed,
        "corpus": _optional_json(layout.path("paragraphs.json")),
        "word2vec": _optional_json(layout.path("w2v", "summary.json")),
        "pairs": {s: _optional_json(layout.pairs_summary(s)) for s in settings.PAIR_SETTINGS},
        "other_vectors": scores.get("other") and {k: v for k, v in scores["other"].items() if k != "seconds"},
        "models": models,
        # the same bytes give the same table; word2vec's float arithmetic differs across CPUs (README)
        "checksums": {os.path.relpath(p, args.data): store.sha256(p) for p in
                      [layout.vectors, layout.df] + [layout.pairs(s, k) for s in settings.PAIR_SETTINGS
                                                     for k in settings.SPLITS] if os.path.exists(p)},
        "scoring_seconds": {s: (v or {}).get("seconds") for s, v in scores.items()},
        "stage_seconds": {os.path.basename(p)[:-5]: read_json(p)["seconds"]
                          for p in sorted(glob.glob(os.path.join(layout.timings, "*.json")))},
        "hardware": hardware(), "versions": versions(),
        "results": results,
        "make_wall_seconds": (time.time() - args.started) if args.started else None,
    }


def readme_block(md: str, pv: str, prov: dict) -> str:
    hw = prov["hardware"]
    stages = prov.get("stage_seconds") or {}
    other = prov.get("other_vectors") or {}
    remap = other.get("remap_test") or {}
    commit = prov["commit"][:12] + ("+dirty" if prov["commit"].endswith("+dirty") else "")
    lines = [START, "", "Made by `make table1` (commit `%s`, seed %s) on %s (%s cores, JAX on %s)." % (
        commit, prov["seed"], hw.get("cpu", hw.get("machine")), hw.get("cpus"), hw.get("jax_backend", "?"))]
    if stages:
        groups = {"install": ("install",), "data chain": ("wikidump", "word2vec", "docfreq", "pairs-"),
                  "kappa search and training": ("weights-",), "scoring": ("scores-",)}
        parts = [f"{g} {sum(v for k, v in stages.items() if k.startswith(keys)):.0f} s" for g, keys in groups.items()]
        lines += ["", f"Wall time of the stages, as last run: {sum(stages.values()) / 60:.1f} min "
                  f"({', '.join(parts)}); a rerun with nothing stale takes well under a second."]
    lines += ["", md, "Two-tailed binomial test of learned weights (median loss) against every other row, "
        "p-values (paper, section 5.3):", "", pv]
    if remap:
        lines += [f"Other vectors: {other.get('vectors')} ({other.get('dim')} d); "
                  f"{100 * remap.get('other_vocab_found', float('nan')):.1f}% of their vocabulary is in the corpus "
                  f"vocabulary, {100 * remap.get('corpus_vocab_found', float('nan')):.1f}% of the corpus vocabulary "
                  f"is in theirs, {100 * remap.get('tokens_kept', float('nan')):.1f}% of the test tokens kept.", ""]
    models = prov.get("models") or {}
    if models:
        lines += ["Learned weights: " + "; ".join(
            f"{name}: {m['epochs']} epochs" + (f", kappa {m['kappa']:g} by 5-fold CV" if m["kappa"] is not None else "")
            for name, m in sorted(models.items())) + f" ({prov['models'][next(iter(models))]['distance']} distance).", ""]
    lines += ["The paper's Table 1 (Wikipedia dump of March 2015, 4.9M pairs per setting, Google News vectors):",
              "", paper_markdown(), END]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", type=int, default=1, choices=sorted(settings.TABLE_SETTINGS))
    ap.add_argument("--data", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--readme", default="", help="README whose table1 block to regenerate")
    ap.add_argument("--started", type=float, default=0.0, help="epoch seconds when make started")
    args = ap.parse_args(argv)

    results = {s: report.evaluate(store.load_scores(store.Layout(args.data).scores(s), settings.METHODS))
               for s in TITLES}
    os.makedirs(args.results, exist_ok=True)
    md = report.markdown(results, TITLES)
    pv = report.pvalues_markdown(results, TITLES)
    prov = provenance(args, results)
    write_text(os.path.join(args.results, "table1.md"), md)
    write_text(os.path.join(args.results, "table1_pvalues.md"), pv)
    write_text(os.path.join(args.results, "table1.tex"), report.latex(
        results, TITLES, "Split error and JS divergence on Wikipedia couples (reproduction of Table 1)."))
    write_text(os.path.join(args.results, "table1.csv"),
               pd.DataFrame(report.csv_rows(results)).to_csv(index=False, float_format="%.6f"))
    write_json(os.path.join(args.results, "table1.json"), prov)
    if args.readme:
        with open(args.readme, encoding="utf-8") as f:
            text = f.read()
        if START not in text or END not in text:
            raise ValueError(f"{args.readme}: no {START} ... {END} block to fill")
        head, rest = text.split(START, 1)
        tail = rest.split(END, 1)[1]
        write_text(args.readme, head + readme_block(md, pv, prov) + tail)
    print(md)
    print(f"table written to {os.path.join(args.results, 'table1.md')} (.csv, .tex, .json beside it)")


if __name__ == "__main__":
    sys.exit(run(main))
