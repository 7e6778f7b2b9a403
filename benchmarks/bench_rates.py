"""The CPU stages' rates on this box, by number of workers: what docs/SCALE.md projects from.

    python -m benchmarks.bench_rates [--copies 10] [--workers 1,2,...,all] [--w2v-workers ...]
                                    [--ovos WHEEL] [--work DIR] [--out FILE]

On a :mod:`synthdump` dump of ``--copies`` times the default corpus (multistream), each in a
fresh process (:func:`measure.measured`):

* extraction (``repro wikidump``) with each number of ``--workers``: MB of XML per second;
* word2vec (``repro word2vec``, 1 epoch, the paper's settings) with each of ``--w2v-workers``
  threads: tokens per second;
* document frequencies (``repro docfreq``, every core) and the wikivar couples (``repro
  pairs``, one process): tokens per second.

Writes ``benchmarks/results/rates-<cores>cpu.json`` by default. ``make scale`` runs it with
this box's cores; on a bigger box (``make scale-gpu``) it gives the rates of many cores.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

from benchmarks import synthdump
from benchmarks.bench_extract import xml_bytes
from benchmarks.bench_scale import synthetic_dump
from benchmarks.measure import measured
from repro.io.provenance import git_commit, hardware
from repro.io.store import read_json, write_json

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PY = sys.executable


def _counts(cores: int) -> list[int]:
    """1, 2, 4, ... up to ``cores``, and ``cores`` itself."""
    out, k = [], 1
    while k < cores:
        out.append(k)
        k *= 2
    return out + [cores]


def main(argv=None) -> int:
    cores = os.cpu_count() or 1
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--workers", default=",".join(map(str, _counts(cores))))
    ap.add_argument("--w2v-workers", default=",".join(map(str, sorted({1, cores}))))
    ap.add_argument("--ovos", default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", default=os.path.join(ROOT, "data", "scale"))
    ap.add_argument("--out", default=os.path.join(HERE, "results", f"rates-{cores}cpu.json"))
    args = ap.parse_args(argv)
    started = time.time()
    folder, dump_summary, gen_s = synthetic_dump(args.work, args.copies, args.ovos, args.seed)
    dump = os.path.join(folder, synthdump.DUMP_NAME)
    xml = xml_bytes(dump)
    par = os.path.join(folder, "rates-paragraphs.tsv")
    w2v, df = os.path.join(folder, "rates-w2v"), os.path.join(folder, "rates-df.npz")

    extraction = {}
    for w in (int(x) for x in args.workers.split(",")):
        m = measured([PY, "-m", "repro", "wikidump", "--dump", dump, "--out", par, "--workers", w], f"extraction, {w} workers")
        extraction[str(w)] = dict(m, xml_mb_per_s=round(xml / 1e6 / m["seconds"], 2))
        print(f"extraction, {w:2d} workers: {m['seconds']:7.2f} s, {extraction[str(w)]['xml_mb_per_s']} MB/s", flush=True)
    tokens = read_json(os.path.join(folder, "rates-paragraphs.json"))["tokens"]
    word2vec = {}
    for w in (int(x) for x in args.w2v_workers.split(",")):
        m = measured([PY, "-m", "repro", "word2vec", "--paragraphs", par, "--out", w2v, "--epochs", 1,
                      "--workers", w, "--seed", args.seed], f"word2vec, {w} workers")
        word2vec[str(w)] = dict(m, tokens_per_s=round(tokens / m["seconds"]))
        print(f"word2vec, {w:2d} threads: {m['seconds']:7.2f} s, {word2vec[str(w)]['tokens_per_s']} tokens/s", flush=True)
    vocab = os.path.join(w2v, "vocab.txt")
    m = measured([PY, "-m", "repro", "docfreq", "--paragraphs", par, "--vocab", vocab, "--out", df], "docfreq")
    docfreq = dict(m, workers=cores, tokens_per_s=round(tokens / m["seconds"]))
    out_pairs = os.path.join(folder, "rates-wikivar")
    m = measured([PY, "-m", "repro", "pairs", "--paragraphs", par, "--vocab", vocab, "--df", df, "--setting", "wikivar",
                  "--seed", args.seed, "--out", out_pairs], "pairs")
    related = read_json(os.path.join(out_pairs, "summary.json"))["related_pairs_found"]
    couples = dict(m, tokens_per_s=round(tokens / m["seconds"]), related=related,
                   tokens_per_related=round(tokens / related, 2))
    print(f"docfreq: {docfreq['tokens_per_s']} tokens/s; couples: {couples['tokens_per_s']} tokens/s, "
          f"{couples['tokens_per_related']} tokens per related couple", flush=True)
    result = {
        "copies": args.copies, "compressed_bytes": dump_summary["compressed_bytes"], "xml_bytes": xml,
        "tokens": tokens, "extraction": extraction, "word2vec": word2vec, "docfreq": docfreq, "couples": couples,
        "minutes": round((time.time() - started) / 60, 1), "commit": git_commit(),
        "python": platform.python_version(), **hardware(),
    }
    write_json(args.out, result)
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
