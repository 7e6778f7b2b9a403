"""The generated blocks of ``make bench-dedup``: docs/SEARCH.md's tables (``search-results``) and
README.md's summary (``search-summary``), from benchmarks/results/dedup.json.

    python -m benchmarks.search_doc benchmarks/results/dedup.json    # rewrite both blocks from the file
"""

from __future__ import annotations

import json
import os
import sys

from repro.io.readmeblock import ReadmeBlock, short_commit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: what issue 58 asks at a million texts
TARGETS = {"seconds": 60, "rss_gb": 2.0, "recall": 0.99, "semhash_speedup": 5.0, "stream_texts_per_s": 20_000,
           "second_call_s": 0.5, "top10_recall": 0.99}


def _s(x) -> str:
    return "" if x is None else f"{x:,.1f}"


def _pct(x) -> str:
    """A share in percent: one decimal, two where one would round a share below 1 up to 100%."""
    if x is None:
        return ""
    return f"{100 * x:.2f}%" if x < 1 and round(100 * x, 1) >= 100 else f"{100 * x:.1f}%"


def _gb(mb) -> str:
    return "" if mb is None else f"{mb / 1024:.2f}"


def provenance(r: dict, source: str) -> str:
    hw = r.get("hardware", {})
    cpu = hw.get("cpu") or hw.get("processor") or "?"
    kept = sorted({row["peers_from"] for row in r["sizes"] if row.get("peers_from")})
    return (f"Made by `make bench-dedup` ({source}) at commit {short_commit(r.get('commit', '?'))}, on {cpu} "
            f"({hw.get('cpus', '?')} cores); semhash {r.get('semhash') or 'not run'}; "
            f"cosine >= {r['threshold']}, the default encoder, seed {r['seed']}."
            + (f" The exact path's and semhash's runs are those of commit {', '.join(map(short_commit, kept))} on the "
               "same texts, vectors and box (`--keep-peers`: neither depends on this project's search code)."
               if kept else ""))


def sizes_table(r: dict) -> list[str]:
    lines = ["| texts | ours, groups: s | ours, keep first: s | peak RSS (largest process), GB | peak PSS (all processes), GB "
             "| exact: s | semhash (encode + index + dedup): s | semhash peak RSS, GB | ours over semhash |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in r["sizes"]:
        g, f = row["ours_groups"], row["ours_first"]
        exact = (_s(row["exact_groups"]["seconds"]) if "exact_groups" in row
                 else f"about {row['exact_projected_seconds']:,} (n² from the largest measured)"
                 if "exact_projected_seconds" in row else "")
        sem = row.get("semhash_seconds")
        ratio = "" if sem is None else f"{sem / g['seconds']:.1f}x"
        lines.append(f"| {row['texts']:,} | {_s(g['seconds'])} | {_s(f['seconds'])} | "
                     f"{_gb(max(g['max_process_rss_mb'], f['max_process_rss_mb']))} | "
                     f"{_gb(max(g.get('tree_pss_mb', 0), f.get('tree_pss_mb', 0)))} | {exact} | {_s(sem)} | "
                     f"{_gb(row.get('semhash_rss_mb'))} | {ratio} |")
    return lines


def quality_table(r: dict) -> list[str]:
    lines = ["| texts | exact couples of the sampled items | recall: ours | recall: semhash | planted couples found: exact "
             "| ours | semhash | copies dropped (keep first): ours | semhash | largest group: exact | ours, groups "
             "| ours, keep first | semhash |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in r["sizes"]:
        q = row["quality"]
        lines.append(f"| {row['texts']:,} | {q['sample_couples']:,} ({q['sample']:,} items) | {_pct(q['recall_ours'])} | "
                     f"{_pct(q.get('recall_semhash'))} | {_pct(q['planted_found_exact'])} | "
                     f"{_pct(q['planted_found_ours'])} | {_pct(q.get('planted_found_semhash'))} | "
                     f"{_pct(row['copies_dropped_ours'])} | {_pct(row.get('copies_dropped_semhash'))} | "
                     f"{row.get('largest_group_exact', '')} | {row['largest_group_ours']} | {row['largest_first_ours']} | "
                     f"{row.get('largest_first_semhash', '')} |")
    return lines


def other_tables(r: dict) -> list[str]:
    ix, top = r["index"], r["sizes"][-1]["texts"]
    at = f" (at commit {short_commit(ix['commit'])})" if ix.get("commit") else ""
    lines = ["", f"**The index** of the {top:,} texts{at}: `repro index` took {ix['build']['seconds']:.1f} s "
                 f"(peak RSS {_gb(ix['build']['max_process_rss_mb'])} GB); a second `repro neighbours INDEX \"query\" -k 10` "
                 f"(exact: every item scanned) took {ix['second_call']['seconds']:.2f} s. On {ix['queries']:,} held-out "
                 f"texts the cells' top 10 (`--cells`) held {_pct(ix['top10_recall'])} of the exact top 10 "
                 f"({ix['index_query_ms']} ms a query, one at a time, against {ix['exact_query_ms']} ms for the exact "
                 "scan of every item, the queries in one batch).",
             "", "**The stream** of the same texts (`repro stream --window W`, exact):", "",
             "| window (texts) | seconds | texts a second | peak RSS, GB |", "|---:|---:|---:|---:|"]
    for s in r["stream"]:
        lines.append(f"| {s['window']:,} | {s['seconds']:.1f} | {s['texts_per_s']:,} | {_gb(s['max_process_rss_mb'])} |")
    lines += ["", "**Where the exact path stops being faster** (the couples of the first m distinct texts, in one process):",
              "", "| rows | exact: s | cells: s |", "|---:|---:|---:|"]
    for c in r["crossover"]:
        lines.append(f"| {c['rows']:,} | {c['exact_s']:.2f} | {c['cells_s']:.2f} |")
    if r.get("sts"):
        st = r["sts"]
        lines += ["", f"**Below the crossover, today's groups**: the {st['sentences']:,} STS-B sentences through `repro dedup` "
                      f"({st['method']} path, {st['groups']:,} groups) gave "
                      + ("the same arrays, bit for bit, as" if st["same_as_before"] else "**other groups** than")
                      + f" the exact groups of commit {st['before']} (before issue 58) on the same vectors."]
    per = ix["memory_per_item_bytes"]
    lines += ["", f"**Past one machine** (arithmetic on the measured index, not a run): an item takes {per['float32']} "
                  f"bytes of float32 vector and {per['cells']} of cells; in float16 {per['float16']}, in int8 (with a "
                  f"scale and offset) {per['int8']}.", "", "| items | float32, GB | float16, GB | int8, GB |",
              "|---:|---:|---:|---:|"]
    for m, p in ix["projected_gb"].items():
        lines.append(f"| {m} | {p['float32']} | {p['float16']} | {p['int8']} |")
    return lines


def summary_lines(r: dict, link: str) -> list[str]:
    row = r["sizes"][-1]
    g, q = row["ours_groups"], row["quality"]
    sem = row.get("semhash_seconds")
    parts = [f"On {row['texts']:,} short texts (cosine >= {r['threshold']}, the default encoder, "
             f"{r['hardware'].get('cpus', '?')} cores), `repro dedup` took "
             f"**{g['seconds']:.0f} s** end to end (read, encode, index, groups) with a peak of "
             f"{_gb(g['max_process_rss_mb'])} GB in its largest process, and found {_pct(q['recall_ours'])} of the exact "
             f"couples of a {q['sample']:,}-item sample (every couple it reports is scored exactly)"]
    if sem is not None:
        parts.append(f"semhash {r['semhash'].split()[0]} took **{sem:.0f} s** on the same vectors "
                     f"({sem / g['seconds']:.1f}x ours; {_gb(row['semhash_rss_mb'])} GB) and found "
                     f"{_pct(q.get('recall_semhash'))}")
    if "exact_groups" in row:
        parts.append(f"the exact path took {row['exact_groups']['seconds']:.0f} s")
    elif "exact_projected_seconds" in row:
        parts.append(f"the exact path would take about {row['exact_projected_seconds'] / 60:.0f} minutes (n², "
                     "projected)")
    ix = r["index"]
    rates = " and ".join(f"{s['texts_per_s']:,} with a window of {s['window']:,} texts" for s in r["stream"])
    text = "; ".join(parts) + (f". A second `repro neighbours INDEX \"query\"` (exact) took "
                               f"{ix['second_call']['seconds']:.2f} s; `repro stream` ran at {rates} a second. "
                               f"Every figure: [{link}]({link}).")
    return [text]


def write_blocks(r: dict, source: str) -> None:
    doc = ReadmeBlock(os.path.join(ROOT, "docs", "SEARCH.md"), "search-results")
    body = [provenance(r, os.path.relpath(source, ROOT)), "", *sizes_table(r), "", *quality_table(r), *other_tables(r)]
    doc.fill_body("\n".join(body))
    readme = ReadmeBlock(os.path.join(ROOT, "README.md"), "search-summary")
    readme.fill_body("\n".join(summary_lines(r, readme.link(os.path.join(ROOT, "docs", "SEARCH.md")))))


def main(argv=None) -> int:
    path = (argv or sys.argv[1:])[0]
    with open(path, encoding="utf-8") as f:
        write_blocks(json.load(f), path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
