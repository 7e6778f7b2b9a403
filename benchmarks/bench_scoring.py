"""Every row of Table 1 scored at the paper's vocabulary, 2.2M x 400: stages, couples/s, peak memory.

    python -m benchmarks.bench_scoring [--vocab 2200000] [--couples 100000] [--whiten-vocabs 275000,550000]
                                       [--work data/scale/scoring] [--out benchmarks/results/scoring-scale-<backend>.json]

Writes the synthetic table once (:func:`benchmarks.scoring_scale.write_table`, memory-mapped),
then scores each row in a fresh process (:func:`benchmarks.scoring_scale.run_rows`: its peak RSS
and wall time by :mod:`benchmarks.measure`) on a subset of ``--couples`` couples, the rates then
projected onto the paper's couples by ``scale_doc``. The whitening peers hold two float64 copies
of the table while they compute its moments (14 GB at the paper's size): where that does not fit
they run at ``--whiten-vocabs`` and their table-sized stages are projected along the line through
the two largest. ``--row`` runs one row here (what each fresh process does).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from benchmarks import scoring_scale as sc
from repro import settings
from repro.evaluate import peers
from repro.io.provenance import git_commit, hardware
from repro.io.store import write_json

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vocab", type=int, default=sc.PAPER_VOCAB)
    ap.add_argument("--dim", type=int, default=sc.PAPER_DIM)
    ap.add_argument("--couples", type=int, default=100_000, help="couples scored per row (the rate's subset)")
    ap.add_argument("--validation", type=int, default=20_000, help="validation couples a peer's select scores")
    ap.add_argument("--whiten-vocabs", default="275000,550000", help="vocabulary sizes of the whitening rows "
                    "(their table-sized stages projected to --vocab); empty: at --vocab")
    # the learned family's row (repro/evaluate/family.py) is 14 rank rows on mapped tables, not measured here
    ap.add_argument("--methods", default=",".join(m for m in settings.METHODS if m not in settings.FAMILY))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", default=os.path.join(ROOT, "data", "scale", "scoring"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--row", default=None, choices=settings.METHODS, help="score one row here; needs --table")
    ap.add_argument("--table", default=None)
    args = ap.parse_args(argv)
    if args.row:
        if not args.table or not args.out:
            ap.error("--row needs --table and --out")
        write_json(args.out, sc.measure_row(args.row, args.table, args.vocab, args.couples, args.validation, args.seed))
        return 0
    started, t, load = time.time(), time.perf_counter(), os.getloadavg()[0]
    table = os.path.join(args.work, f"table-{args.vocab}x{args.dim}.npy")
    sc.write_table(table, args.vocab, args.dim, args.seed)
    made_s = time.perf_counter() - t
    whiten = [int(x) for x in args.whiten_vocabs.split(",") if x] or [args.vocab]
    methods = args.methods.split(",")
    vocabs = {m: whiten if m in peers.WHITENING else [args.vocab] for m in methods}
    runs = sc.run_rows(methods, table, vocabs, args.couples, args.validation, args.work, args.seed)
    rows = {m: sc.at_vocab(r, args.vocab) for m, r in runs.items()}
    backend = next(iter(rows.values()))["backend"]
    result = {"vocab": args.vocab, "dim": args.dim, "table_gb": round(args.vocab * args.dim * 4 / 1e9, 2),
              "table_written_s": round(made_s, 2), "couples": args.couples, "validation_couples": args.validation,
              "couples_shape": f"synthetic {sc.SETTING}: lengths uniform in 10..30, word ids uniform",
              "rows": rows, "runs": runs, "backend": backend,
              "load_average": [round(load, 2), round(os.getloadavg()[0], 2)], "minutes": round((time.time() - started) / 60, 1),
              "commit": git_commit(), **hardware()}
    out = args.out or os.path.join(ROOT, "benchmarks", "results", f"scoring-scale-{backend}.json")
    write_json(out, result)
    print(f"-> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
