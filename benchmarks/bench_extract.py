"""Extraction speed and memory of repro.data.wikipedia.wikidump against gensim's WikiCorpus.

    .venv/bin/python -m benchmarks.bench_extract [--dump PATH] [--repeats 3] [--copies 10]

1. Throughput on the same dump in the same run: ``repro.data.wikipedia.wikidump.extract`` (all cores) and
   ``gensim.corpora.wikicorpus.WikiCorpus(path, dictionary={}).get_texts()`` (its default
   ``processes = cpu_count - 1``, and with ``processes = cpu_count``); ours with one worker
   too, for reference. MB of uncompressed XML
   per second, and paragraphs (ours) or articles (gensim, which yields one token list per
   article) per second. Each run is a fresh interpreter and times the extraction only (not
   the imports); runs alternate and the best of ``--repeats`` counts, because a shared
   machine adds noise.
2. Peak resident memory of ``python -m repro wikidump`` on the dump and on the dump's pages
   repeated ``--copies`` times inside one ``<mediawiki>`` root (bz2, written to a temporary
   folder): the largest single process (``getrusage(RUSAGE_CHILDREN)`` in a wrapper process)
   and the sum over the process tree (parser + pool workers, sampled from ``/proc``).

Prints a table and writes ``benchmarks/results/extract.json``.
"""

from __future__ import annotations

import argparse
import bz2
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

from benchmarks.measure import measured
from repro.data.wikipedia import wikidump
from repro.io.store import write_json

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def xml_bytes(path: str) -> int:
    stream, under = wikidump.open_dump(path)
    n = 0
    with stream, under:
        while True:
            block = stream.read(1 << 20)
            if not block:
                return n
            n += len(block)


OURS = """
import json, sys, time
from repro.data.wikipedia import wikidump
t = time.perf_counter()
s = wikidump.extract(sys.argv[1], sys.argv[2], workers=int(sys.argv[3]))
print(json.dumps({"seconds": time.perf_counter() - t, "summary": s}))
"""

GENSIM = """
import json, sys, time
from gensim.corpora.wikicorpus import WikiCorpus
t = time.perf_counter()
corpus = WikiCorpus(sys.argv[1], dictionary={}, processes=int(sys.argv[2]))
articles = tokens = 0
for text in corpus.get_texts():
    articles += 1
    tokens += len(text)
print(json.dumps({"seconds": time.perf_counter() - t, "articles": articles, "tokens": tokens}))
"""


def _timed(code: str, *args) -> dict:
    """Run ``code`` in a fresh interpreter (imports excluded from its own timing)."""
    out = subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def time_ours(dump: str, out: str, workers: int) -> tuple[float, dict]:
    r = _timed(OURS, dump, out, workers)
    return r["seconds"], r["summary"]


def time_gensim(dump: str, processes: int) -> tuple[float, int, int]:
    r = _timed(GENSIM, dump, processes)
    return r["seconds"], r["articles"], r["tokens"]


def peak_memory(dump: str, out: str, workers: int) -> dict:
    return measured([sys.executable, "-m", "repro", "wikidump", "--out", out, "--dump", dump, "--workers", workers],
                    f"{dump}: repro.wikidump")


def write_copies(dump: str, path: str, copies: int) -> None:
    """The dump's pages repeated ``copies`` times inside one <mediawiki> root, bz2-compressed."""
    stream, under = wikidump.open_dump(dump)
    with stream, under:
        text = stream.read()
    start = text.index(b"<page>")
    start = text.rindex(b"\n", 0, start) + 1
    end = text.rindex(b"</mediawiki>")
    with bz2.open(path, "wb", compresslevel=9) as f:
        f.write(text[:start])
        for _ in range(copies):
            f.write(text[start:end])
        f.write(text[end:])


def time_runs(dump: str, out: str, repeats: int, cores: int) -> tuple[dict, dict, tuple[int, int]]:
    """Alternating runs, ``repeats`` of each: ({run: [seconds]}, our last summary, gensim's
    (articles, tokens)); one worker and gensim on all cores only where there are several cores."""
    runs = {"ours": [], "ours_1_worker": [], "gensim_default": [], "gensim_all_cores": []}
    summary = gensim_counts = None
    for _ in range(repeats):
        sec, summary = time_ours(dump, out, cores)
        runs["ours"].append(sec)
        if cores > 1:
            runs["ours_1_worker"].append(time_ours(dump, out, 1)[0])
        sec, articles, tokens = time_gensim(dump, max(1, cores - 1))
        runs["gensim_default"].append(sec)
        gensim_counts = (articles, tokens)
        if cores > 1:
            sec, _, _ = time_gensim(dump, cores)
            runs["gensim_all_cores"].append(sec)
    return runs, summary, gensim_counts


def memory(dump: str, tmp: str, copies: int, cores: int, xml_mb: float) -> dict:
    """Peak memory on the dump and on its pages repeated ``copies`` times (section 2 above)."""
    big = os.path.join(tmp, f"dump-x{copies}.xml.bz2")
    write_copies(dump, big, copies)
    big_xml_mb = xml_bytes(big) / 1e6
    mem_1 = peak_memory(dump, os.path.join(tmp, "m1.tsv"), cores)
    mem_n = peak_memory(big, os.path.join(tmp, "mn.tsv"), cores)
    with open(os.path.join(tmp, "mn.json")) as f:
        big_summary = json.load(f)
    return {"copies": copies, "one": dict(mem_1, xml_mb=round(xml_mb, 2)),
            "many": dict(mem_n, xml_mb=round(big_xml_mb, 2), paragraphs=big_summary["paragraphs"]),
            "growth_max_process": round(mem_n["max_process_rss_mb"] / mem_1["max_process_rss_mb"], 3),
            "growth_tree": round(mem_n["tree_rss_mb"] / mem_1["tree_rss_mb"], 3)}


def record(dump: str, xml_mb: float, cores: int, load_before, repeats: int, runs: dict, summary: dict,
           gensim_counts: tuple[int, int], mem: dict) -> dict:
    """extract.json: the best of each run's times as MB/s and paragraphs (or articles) per second."""
    best = {k: min(v) for k, v in runs.items() if v}
    result = {
        "machine": {"cpu_count": cores, "processor": platform.processor() or platform.machine(),
                    "python": platform.python_version(), "load_average_at_start": [round(x, 2) for x in load_before]},
        "dump": dump,
        "xml_mb": round(xml_mb, 2),
        "compressed_bytes": os.path.getsize(dump),
        "repeats": repeats,
        "ours": {"workers": cores, "best_seconds": round(best["ours"], 3), "all_seconds": [round(x, 3) for x in runs["ours"]],
                 "mb_per_s": round(xml_mb / best["ours"], 2), "paragraphs": summary["paragraphs"],
                 "paragraphs_per_s": round(summary["paragraphs"] / best["ours"], 1),
                 "articles": summary["articles"], "tokens": summary["tokens"]},
        "gensim_default": {"processes": max(1, cores - 1), "best_seconds": round(best["gensim_default"], 3),
                           "all_seconds": [round(x, 3) for x in runs["gensim_default"]],
                           "mb_per_s": round(xml_mb / best["gensim_default"], 2),
                           "articles": gensim_counts[0], "articles_per_s": round(gensim_counts[0] / best["gensim_default"], 1),
                           "tokens": gensim_counts[1]},
        "speedup_vs_gensim_default": round(best["gensim_default"] / best["ours"], 2),
        "memory": mem,
    }
    if "ours_1_worker" in best:
        o1 = best["ours_1_worker"]
        result["ours_1_worker"] = {"best_seconds": round(o1, 3), "all_seconds": [round(x, 3) for x in runs["ours_1_worker"]],
                                   "mb_per_s": round(xml_mb / o1, 2), "paragraphs_per_s": round(summary["paragraphs"] / o1, 1)}
    if "gensim_all_cores" in best:
        g = best["gensim_all_cores"]
        result["gensim_all_cores"] = {"processes": cores, "best_seconds": round(g, 3),
                                      "all_seconds": [round(x, 3) for x in runs["gensim_all_cores"]],
                                      "mb_per_s": round(xml_mb / g, 2), "articles_per_s": round(gensim_counts[0] / g, 1)}
        result["speedup_vs_gensim_all_cores"] = round(g / best["ours"], 2)
    return result


def report(result: dict, xml_mb: float, load_before, out: str) -> None:
    """The printed table of a run."""
    cores, m = result["ours"]["workers"], result["memory"]
    print(f"dump: {result['dump']}\n  {xml_mb:.1f} MB of XML, {cores} cores, load average at start {load_before[0]:.2f}")
    print(f"{'extractor':34s} {'best s':>7s} {'MB/s':>7s} {'units/s':>9s}")
    o = result["ours"]
    print(f"{'repro.wikidump (' + str(cores) + ' workers)':34s} {o['best_seconds']:7.2f} {o['mb_per_s']:7.2f} {o['paragraphs_per_s']:9.0f} paragraphs")
    if "ours_1_worker" in result:
        o1 = result["ours_1_worker"]
        print(f"{'repro.wikidump (1 worker)':34s} {o1['best_seconds']:7.2f} {o1['mb_per_s']:7.2f} {o1['paragraphs_per_s']:9.0f} paragraphs")
    for key, label in (("gensim_default", "gensim WikiCorpus (processes=%d)"), ("gensim_all_cores", "gensim WikiCorpus (processes=%d)")):
        if key in result:
            g = result[key]
            print(f"{label % g['processes']:34s} {g['best_seconds']:7.2f} {g['mb_per_s']:7.2f} {g['articles_per_s']:9.0f} articles")
    print(f"speed-up vs gensim default: {result['speedup_vs_gensim_default']}x"
          + (f", vs gensim on all cores: {result['speedup_vs_gensim_all_cores']}x" if "speedup_vs_gensim_all_cores" in result else ""))
    print(f"{'peak RSS':34s} {'XML MB':>7s} {'process':>9s} {'tree':>9s}")
    print(f"{'default dump':34s} {m['one']['xml_mb']:7.1f} {m['one']['max_process_rss_mb']:7.1f}MB {m['one']['tree_rss_mb']:7.1f}MB")
    print(f"{'x%d concatenated' % m['copies']:34s} {m['many']['xml_mb']:7.1f} {m['many']['max_process_rss_mb']:7.1f}MB {m['many']['tree_rss_mb']:7.1f}MB")
    print(f"growth: {m['growth_max_process']}x (largest process), {m['growth_tree']}x (process tree)  -> {out}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dump", default=None, help="dump to read (default: gensim's shipped excerpt)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "extract.json"))
    args = ap.parse_args(argv)
    dump = args.dump or wikidump.default_dump()
    cores = os.cpu_count() or 1
    xml_mb = xml_bytes(dump) / 1e6
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        runs, summary, gensim_counts = time_runs(dump, os.path.join(tmp, "paragraphs.tsv"), args.repeats, cores)
        mem = memory(dump, tmp, args.copies, cores, xml_mb)
    result = record(dump, xml_mb, cores, load_before, args.repeats, runs, summary, gensim_counts, mem)
    write_json(args.out, result)
    report(result, xml_mb, load_before, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
