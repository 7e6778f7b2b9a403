"""``repro stream``: texts as they arrive, each one's earlier texts that score at least T within a
window (beyond the paper; its Twitter couples are tweets at most 15 minutes apart, section 4.2).

    tail -f tweets.jsonl | repro stream - --threshold 0.9 --minutes 15
    repro stream texts.txt --threshold 0.9 --window 10000 > related.tsv

TEXTS is a file, or - for standard input, read as it comes: one text per line, or JSON lines
(.jsonl, or --format jsonl) with "text" and optionally "id" (default: the text's position in the
stream, from 0) and "time" (seconds, or a date as ISO 8601 or Twitter's "Wed Oct 10 20:19:24
+0000 2018"; needed by --minutes, and never decreasing). The window is the last --window texts
(default 10,000), or with --minutes M the texts of the last M minutes. Only the window is held in
memory. A score is the couple's score of repro similarity (the encoder's metric, or --metric).
Every couple scoring >= T is found, exactly (repro.search.stream). Texts are read --batch at a
time (default 2,048): a batch's lines are written once it is scored, while the next batch is read
and encoded (--batch 1 for one text at a time).

Output: TSV on standard output (or --out FILE), one line per couple, in the order the texts
arrived: id<TAB>earlier_id<TAB>score; a summary line on standard error at the end.
"""

from __future__ import annotations

import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

from repro.errors import InputError, run
from repro.commands.options import add_encoder_options, add_metric_option, encoder_from
from repro.search.stream import Window


def parse_time(value, where: str) -> float:
    """Seconds since the epoch of a number, an ISO 8601 date or Twitter's date."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        for parse in (datetime.fromisoformat, lambda v: datetime.strptime(v, "%a %b %d %H:%M:%S %z %Y")):
            try:
                return parse(value.strip()).timestamp()
            except ValueError:
                pass
    raise InputError(where, f"\"time\" must be seconds or a date (ISO 8601, or Twitter's), got {value!r}")


def batches(lines, jsonl: bool, name: str, size: int):
    """(texts, ids, times) a batch of ``size`` texts at a time from an iterable of lines."""
    texts, ids, times, row = [], [], [], 0
    for i, line in enumerate(lines, 1):
        line = line.rstrip("\n").rstrip("\r")
        if jsonl:
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(name, f"line {i}: not JSON ({e.msg})") from None
            if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
                raise InputError(name, f"line {i}: expected an object with a \"text\" string")
            texts.append(obj["text"])
            ids.append(str(obj["id"]) if "id" in obj else str(row))
            times.append(parse_time(obj["time"], f"{name}: line {i}") if "time" in obj else None)
        else:
            texts.append(line)
            ids.append(str(row))
            times.append(None)
        row += 1
        if len(texts) == size:
            yield texts, ids, times
            texts, ids, times = [], [], []
    if texts:
        yield texts, ids, times


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="repro stream", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("texts", metavar="TEXTS", help="a file of texts (lines or JSON lines), or - for standard input")
    ap.add_argument("--threshold", type=float, required=True, help="the least score of a related couple")
    win = ap.add_mutually_exclusive_group()
    win.add_argument("--window", type=int, help="the window: the last N texts (default: 10,000)")
    win.add_argument("--minutes", type=float, help="the window: the texts of the last M minutes (needs \"time\")")
    ap.add_argument("--batch", type=int, default=2048, help="texts read and scored at once (default: 2,048)")
    ap.add_argument("--format", default="auto", choices=("auto", "lines", "jsonl"),
                    help="how to read TEXTS (auto: JSON lines when it ends in .jsonl)")
    ap.add_argument("--out", help="the TSV file to write (default: standard output)")
    add_metric_option(ap)
    add_encoder_options(ap)
    args = ap.parse_args(argv)
    if args.batch < 1:
        raise InputError("--batch", f"must be at least 1, got {args.batch}")
    jsonl = args.format == "jsonl" or (args.format == "auto" and args.texts.endswith((".jsonl", ".ndjson")))
    enc = encoder_from(args)
    metric = args.metric or enc.metric
    window = Window(enc.dim, args.threshold, metric, count=None if args.minutes is not None else (args.window or 10_000),
                    span=None if args.minutes is None else 60.0 * args.minutes)
    source = sys.stdin if args.texts == "-" else _open(args.texts)
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    n = couples = 0
    t0 = time.perf_counter()
    pending = None  # the batch being scored on a thread while the next one is read and encoded
    with ThreadPoolExecutor(1) as scorer:
        try:
            for texts, ids, times in batches(source, jsonl, args.texts, args.batch):
                if args.minutes is not None and any(t is None for t in times):
                    raise InputError(args.texts, f"text {n + times.index(None)}: no \"time\", which --minutes needs")
                vectors = enc.transform(texts)
                couples += _written(pending, out)
                pending = scorer.submit(window.push, vectors, ids, times if args.minutes is not None else None)
                n += len(texts)
            couples += _written(pending, out)
        finally:
            if args.out:
                out.close()
            if source is not sys.stdin:
                source.close()
    if n == 0:
        raise InputError(args.texts, "no texts (empty input)")
    dt = time.perf_counter() - t0
    print(f"stream: {n:,} texts, {couples:,} related couples ({metric} >= {window.t:g}), "
          f"{n / max(dt, 1e-9):,.0f} texts/s", file=sys.stderr)
    return 0


def _written(pending, out) -> int:
    """Write a scored batch's couples (waiting for it); their number."""
    if pending is None:
        return 0
    r = pending.result()
    out.write("".join(f"{a}\t{b}\t{s:.6f}\n" for a, b, s in zip(r.new_ids, r.earlier_ids, r.score)))
    out.flush()
    return len(r.score)


def _open(path: str):
    import os
    if not os.path.exists(path):
        raise InputError(path, "no such file")
    if os.path.isdir(path):
        raise InputError(path, "is a directory")
    return open(path, encoding="utf-8", errors="strict")


if __name__ == "__main__":
    sys.exit(run(main))
